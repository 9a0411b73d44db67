/* test_import.c: T1 specs become configs that load and enumerate; what cannot be imported is
 * said, with its position. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "import.h"
#include "space.h"
#include "tests.h"

static void test_vector_add_spec_imports_loads_and_enumerates(void)
{
	diags d = {0};
	char yaml[200];
	snprintf(yaml, sizeof yaml, "%s/vector_add.test.yaml", test_dir);
	CU_ASSERT_EQUAL_FATAL(import_t1("tests/t1/vector_add.json", yaml, &d), 0);
	config cfg;
	int rc = config_load(yaml, &cfg, &d);
	diags_print(&d);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_STRING_EQUAL(cfg.entry, "vector_add");
	/* the kernel beside the spec, found from the config written elsewhere */
	CU_ASSERT(access(cfg.source, R_OK) == 0 && strstr(cfg.source, "tests/t1/vector_add.cu"));
	CU_ASSERT_EQUAL(cfg.nargs, 4);
	CU_ASSERT(cfg.args[0].output);
	CU_ASSERT_EQUAL(cfg.args[1].seed, 7);
	CU_ASSERT(!cfg.args[3].is_array);
	CU_ASSERT(cfg.params[0].is_define);
	space sp;
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	/* "block_size_x >= 64 and not block_size_x > 1024" keeps 64..1024 */
	CU_ASSERT_EQUAL(sp.count, 5);
	value v;
	CU_ASSERT_EQUAL(cexpr_eval(&cfg, &cfg.grid[0], space_config(&sp, 0), &v, &d, NULL), 0);
	CU_ASSERT_EQUAL(v.u.i, (10000000 + 63) / 64); /* Python's // is integer division */
	space_free(&sp);
	config_free(&cfg);
	diags_free(&d);
	unlink(yaml);
}

/* A one-kernel T1 spec with these tuning parameters (a JSON list's items), conditions and block
 * size, written as test_dir/4-NAME.json (a file name that starts with a digit); *yaml gets
 * test_dir/NAME.yaml. */
static const char *write_spec(const char *name, const char *params, const char *conditions, const char *local_x,
			      char *yaml, size_t yaml_size)
{
	static char file[256];
	char text[2048];
	snprintf(text, sizeof text,
		 "{\"ConfigurationSpace\": {\"TuningParameters\": [%s], \"Conditions\": [%s]},"
		 " \"KernelSpecification\": {\"Language\": \"CUDA\", \"KernelName\": \"k\", \"KernelFile\": \"/dev/null\","
		 " \"GlobalSize\": {\"X\": \"1\"}, \"LocalSize\": {\"X\": \"%s\"},"
		 " \"Arguments\": [{\"Name\": \"a\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"Size\": 64}]}}",
		 params, conditions, local_x);
	snprintf(file, sizeof file, "%s/4-%s.json", test_dir, name);
	snprintf(yaml, yaml_size, "%s/%s.yaml", test_dir, name);
	put_file(file, text);
	return file;
}

/* tests/t1/everything.json uses every field the import supports: Python value lists (a
 * comprehension, list(range()), bools), chained, membership and modulo conditions, ProblemSize with
 * GridDivX (GridDivY by default the block), sizes from ProblemSize[i] and max(param), every fill
 * kind that imports, Symbol and MemType Constant arrays, a bool scalar. It imports, loads,
 * enumerates the 79 configurations Python's rules keep (counted by hand: 17 block shapes in
 * 32..512 threads; 5 tile/shared pairs, of which the 3 with a tile of 2 or 4 for block_size_x 16),
 * and compiles in a dry run. */
static void test_a_spec_of_every_supported_field_imports_loads_and_compiles(void)
{
	char yaml[200];
	snprintf(yaml, sizeof yaml, "%s/everything.yaml", test_dir);
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(import_t1("tests/t1/everything.json", yaml, &d), 0);
	config cfg;
	int rc = config_load(yaml, &cfg, &d);
	diags_print(&d);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(cfg.nargs, 8);
	CU_ASSERT(cfg.args[2].constant && cfg.args[2].fill == FILL_EXPR);
	/* MemType Constant: the kernel's argument, and the __constant__ a copy of it */
	CU_ASSERT(!cfg.args[3].constant && cfg.args[3].fill == FILL_CONSTANT && !strcmp(cfg.args[3].name, "lut_arg"));
	CU_ASSERT(cfg.args[4].constant && cfg.args[4].copy_of == 3 && !strcmp(cfg.args[4].name, "lut"));
	CU_ASSERT(cfg.args[5].output && cfg.args[5].restore);
	space sp;
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	CU_ASSERT_EQUAL(sp.count, 79);
	/* the first: block 16x2, tile 2, shared: grid ceil(4096 / 32) x ceil(1024 / 2) */
	value v;
	CU_ASSERT_EQUAL(cexpr_eval(&cfg, &cfg.grid[0], space_config(&sp, 0), &v, &d, NULL), 0);
	CU_ASSERT_EQUAL(v.u.i, 128);
	CU_ASSERT_EQUAL(cexpr_eval(&cfg, &cfg.grid[1], space_config(&sp, 0), &v, &d, NULL), 0);
	CU_ASSERT_EQUAL(v.u.i, 512);
	CU_ASSERT_EQUAL(cfg.args[3].count, 256); /* max(block_size_x) */
	CU_ASSERT_EQUAL(cfg.args[0].count, 4096 * 1024); /* ProblemSize[0] * ProblemSize[1] */
	space_free(&sp);
	config_free(&cfg);
	diags_free(&d);
	/* nvcc compiles a shard of it: what was imported is a kernel's config, not only YAML */
	char *out = NULL;
	CU_ASSERT_EQUAL(run_autotune((char *[]){"--dry-run", "--arch", "sm_90", "--shard", "0/40", yaml, NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "2 binaries built"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "(0 failed"));
	free(out);
	unlink("results/everything.shard-0-of-40.csv");
	unlink(yaml);
}

/* The launch geometry of configuration c: block and grid. */
static void geometry(const config *cfg, const space *sp, size_t c, long long out[6])
{
	diags d = {0};
	for (int k = 0; k < 6; k++) {
		value v = value_int(1);
		const cexpr *x = k < 3 ? &cfg->block[k] : &cfg->grid[k - 3];
		if (x->e)
			CU_ASSERT_EQUAL(cexpr_eval(cfg, x, space_config(sp, c), &v, &d, NULL), 0);
		out[k] = v.u.i;
	}
	diags_free(&d);
}

/* tests/t1/gemm.json, a T1 spec of kernels/gemm.cu written as Kernel Tuner users write them
 * (comprehensions, a chained comparison, //, `not ... or`, ProblemSize over GridDivX/Y), imports
 * to the space of the hand-written configs/gemm.yaml: the same configurations in the same order,
 * each with the same launch geometry. */
static void test_a_gemm_spec_imports_to_the_hand_written_space(void)
{
	char yaml[200];
	snprintf(yaml, sizeof yaml, "%s/gemm_t1.yaml", test_dir);
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(import_t1("tests/t1/gemm.json", yaml, &d), 0);
	config a, b;
	space sa, sb;
	CU_ASSERT_EQUAL_FATAL(config_load(yaml, &a, &d), 0);
	CU_ASSERT_EQUAL_FATAL(config_load("configs/gemm.yaml", &b, &d), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&a, &sa, &d), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&b, &sb, &d), 0);
	diags_print(&d);
	CU_ASSERT_EQUAL_FATAL(a.nparams, b.nparams);
	CU_ASSERT_EQUAL(sa.count, sb.count);
	size_t differ = 0;
	for (size_t c = 0; c < sa.count && c < sb.count; c++) {
		long long ga[6], gb[6];
		geometry(&a, &sa, c, ga);
		geometry(&b, &sb, c, gb);
		const value *va = space_config(&sa, c), *vb = space_config(&sb, c);
		for (size_t p = 0; p < a.nparams; p++)
			differ += va[p].u.i != vb[p].u.i;
		differ += memcmp(ga, gb, sizeof ga) != 0;
	}
	CU_ASSERT_EQUAL(differ, 0);
	for (size_t p = 0; p < a.nparams; p++)
		CU_ASSERT(a.params[p].is_define && !strcmp(a.params[p].name, b.params[p].name));
	space_free(&sa);
	space_free(&sb);
	config_free(&a);
	config_free(&b);
	diags_free(&d);
	unlink(yaml);
}

/* Data files: a BinaryRaw fill becomes fill: {file}, BinaryRaw and Constant ReferenceArguments
 * verify.expected and verify.expect, each file named so that the config finds it (beside the spec
 * here), and the loader checks them against the arguments. */
static void test_data_files_and_references_import(void)
{
	char spec[200], yaml[200], in[200], ref[200];
	snprintf(spec, sizeof spec, "%s/data.json", test_dir);
	snprintf(yaml, sizeof yaml, "%s/data.yaml", test_dir);
	snprintf(in, sizeof in, "%s/in.bin", test_dir);
	snprintf(ref, sizeof ref, "%s/out.bin", test_dir);
	float zeros[64] = {0};
	FILE *f = fopen(in, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fwrite(zeros, sizeof zeros, 1, f);
	fclose(f);
	CU_ASSERT_EQUAL_FATAL(rename(in, ref), 0);
	f = fopen(in, "wb");
	fwrite(zeros, sizeof zeros, 1, f);
	fclose(f);
	put_file(spec, "{\"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"bs\", \"Type\": \"int\", \"Values\": \"[32, 64]\"}]},"
		       " \"KernelSpecification\": {\"Language\": \"CUDA\", \"KernelName\": \"k\", \"KernelFile\": \"/dev/null\","
		       " \"GlobalSize\": {\"X\": \"64 // bs\"}, \"LocalSize\": {\"X\": \"bs\"},"
		       " \"Arguments\": [{\"Name\": \"x\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"Size\": 64,"
		       " \"FillType\": \"BinaryRaw\", \"DataSource\": \"in.bin\"},"
		       " {\"Name\": \"out\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"Size\": 64, \"AccessType\": \"WriteOnly\"},"
		       " {\"Name\": \"c\", \"Type\": \"int32\", \"MemoryType\": \"Vector\", \"Size\": 4, \"AccessType\": \"WriteOnly\"},"
		       " {\"Name\": \"g\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"Size\": 4, \"AccessType\": \"WriteOnly\"}],"
		       " \"ReferenceArguments\": [{\"Name\": \"r\", \"TargetName\": \"out\", \"FillType\": \"BinaryRaw\", \"DataSource\": \"out.bin\"},"
		       " {\"Name\": \"s\", \"TargetName\": \"c\", \"FillType\": \"Constant\", \"FillValue\": 2},"
		       " {\"Name\": \"t\", \"TargetName\": \"g\", \"FillType\": \"Generator\", \"DataSource\": \"2 * i + 3 if i < 2 else i\","
		       " \"ValidationMethod\": \"SideBySideComparison\", \"ValidationThreshold\": 0.1}]}}");
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(import_t1(spec, yaml, &d), 0);
	CU_ASSERT_EQUAL(d.n, 0);
	diags_free(&d);
	config cfg;
	int rc = config_load(yaml, &cfg, &d);
	diags_print(&d);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	/* KTT's SideBySideComparison with 0.1: |got - expected| <= 0.1, whatever the magnitude */
	CU_ASSERT(cfg.rtol == 0 && cfg.atol == 0.1);
	CU_ASSERT_EQUAL(cfg.args[0].fill, FILL_FILE);
	CU_ASSERT_PTR_NOT_NULL(cfg.args[1].expected.path);
	CU_ASSERT_PTR_NOT_NULL(cfg.args[2].expect.e);
	/* KTT's Generator reference: an expression of the index, as the spec writes it */
	CU_ASSERT(cfg.args[3].expect.e && !strcmp(expr_source(cfg.args[3].expect.e), "select(((i < 2)), ((2 * i) + 3), i)"));
	config_free(&cfg);
	diags_free(&d);
	/* relative, KTT's SideBySideRelativeComparison, is rtol; two that differ are said, not chosen */
	char *text = read_text(spec);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	char *method = strstr(text, "\"SideBySideComparison\"");
	CU_ASSERT_PTR_NOT_NULL_FATAL(method);
	char *relative = xasprintf("%.*s\"SideBySideRelativeComparison\"%s", (int)(method - text), text,
				   method + strlen("\"SideBySideComparison\""));
	put_file(spec, relative);
	CU_ASSERT_EQUAL_FATAL(import_t1(spec, yaml, &d), 0);
	CU_ASSERT_EQUAL(d.n, 0);
	diags_free(&d);
	CU_ASSERT_EQUAL_FATAL(config_load(yaml, &cfg, &d), 0);
	CU_ASSERT(cfg.rtol == 0.1 && cfg.atol == 0);
	config_free(&cfg);
	diags_free(&d);
	char *constant = strstr(text, "\"FillValue\": 2}");
	CU_ASSERT_PTR_NOT_NULL_FATAL(constant);
	char *two = xasprintf("%.*s\"FillValue\": 2, \"ValidationThreshold\": 0.5}%s", (int)(constant - text), text,
			      constant + strlen("\"FillValue\": 2}"));
	put_file(spec, two);
	CU_ASSERT_EQUAL_FATAL(import_t1(spec, yaml, &d), 0);
	CU_ASSERT(d.n == 1 && strstr(d.msgs[0], "note: ReferenceArguments' ValidationMethod and ValidationThreshold are "
						"not honoured: they differ between outputs"));
	diags_free(&d);
	CU_ASSERT_EQUAL_FATAL(config_load(yaml, &cfg, &d), 0);
	CU_ASSERT(cfg.rtol == 1e-5 && cfg.atol == 1e-6);
	config_free(&cfg);
	diags_free(&d);
	free(relative);
	free(two);
	put_file(spec, text);
	/* a fill of another kind is refused with its field */
	char *at = strstr(text, "\"BinaryRaw\", \"DataSource\": \"in.bin\"");
	memcpy(at, "\"BinaryHDF\"", 11);
	put_file(spec, text);
	free(text);
	CU_ASSERT_EQUAL(import_t1(spec, yaml, &d), -1);
	CU_ASSERT(d.n >= 1 && strstr(d.msgs[0], "KernelSpecification.Arguments[0].FillType: 'BinaryHDF' is not imported"));
	diags_free(&d);
	unlink(spec);
	unlink(yaml);
	unlink(in);
	unlink(ref);
}

/* Written to another directory (import -o), the config still finds the spec's kernel. */
static void test_a_config_written_elsewhere_finds_the_kernel(void)
{
	char dir[160], yaml[200];
	snprintf(dir, sizeof dir, "%s/elsewhere", test_dir);
	mkdir(dir, 0777);
	snprintf(yaml, sizeof yaml, "%s/va.yaml", dir);
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(import_t1("tests/t1/vector_add.json", yaml, &d), 0);
	config cfg;
	int rc = config_load(yaml, &cfg, &d);
	diags_print(&d);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT(access(cfg.source, R_OK) == 0);
	config_free(&cfg);
	diags_free(&d);
	unlink(yaml);
	rmdir(dir);
}

static void test_not_binds_looser_than_comparison(void)
{
	char yaml[128];
	const char *json = write_spec("not", "{\"Name\": \"x\", \"Type\": \"int\", \"Values\": \"[1, 2, 3, 4]\"}",
				      "{\"Parameters\": [\"x\"], \"Expression\": \"not x > 2 or (not x == 1 and x < 3)\"}", "x", yaml,
				      sizeof yaml);
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(import_t1(json, yaml, &d), 0);
	config cfg;
	CU_ASSERT_EQUAL_FATAL(config_load(yaml, &cfg, &d), 0);
	/* the spec's file name starts with a digit; the config's name must still be an identifier */
	CU_ASSERT_STRING_EQUAL(cfg.name, "t1_4_not");
	space sp;
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	/* Python: x in {1, 2} */
	CU_ASSERT_EQUAL(sp.count, 2);
	space_free(&sp);
	config_free(&cfg);
	diags_free(&d);
	unlink(json);
	unlink(yaml);
}

/* Python's chained comparisons mean what Python means: `32 <= a * b <= 1024` is two comparisons
 * joined by and, where C would compare 32 <= a * b (0 or 1) with 1024 and keep everything with
 * a * b at all. Counts checked against Python's own count of each space (by hand: the pairs of
 * powers of two 1..1024 with 32 <= a*b <= 1024; and the same chains inside not, parentheses, or
 * beside a shift). */
static void test_chained_comparisons_are_pythons(void)
{
	static const struct {
		const char *what, *expression;
		size_t python;
	} cases[] = {
		/* a, b in {1, 2, 4, ..., 1024}: a*b = 2^(i+j), i, j in 0..10; 5 <= i+j <= 10 */
		{"chain", "32 <= a * b <= 1024", 51},
		{"not a chain", "not 32 <= a * b <= 1024", 70},
		{"in parentheses, with or", "(a < b < 4) or a == 1024", 12},
		{"a shift is no comparison", "a << 1 < b <= 2 * a", 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char yaml[128], cond[256];
		snprintf(cond, sizeof cond, "{\"Parameters\": [\"a\", \"b\"], \"Expression\": \"%s\"}", cases[i].expression);
		const char *json = write_spec("chain",
					      "{\"Name\": \"a\", \"Type\": \"int\", \"Values\": \"[1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]\"}, "
					      "{\"Name\": \"b\", \"Type\": \"int\", \"Values\": \"[1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]\"}",
					      cond, "a", yaml, sizeof yaml);
		diags d = {0};
		/* an empty space is no config to tune: the import says so */
		int imported = import_t1(json, yaml, &d);
		CU_ASSERT_EQUAL(imported, cases[i].python ? 0 : -1);
		if (!cases[i].python)
			CU_ASSERT(d.n >= 2 && strstr(d.msgs[1], "no configuration satisfies the constraints"));
		config cfg;
		space sp;
		int loaded = config_load(yaml, &cfg, &d) == 0;
		CU_ASSERT(loaded);
		if (loaded && space_enumerate(&cfg, &sp, &d) == 0) {
			if (sp.count != cases[i].python)
				fprintf(stderr, "\n  %s: %zu configurations, Python has %zu\n", cases[i].what, sp.count, cases[i].python);
			CU_ASSERT_EQUAL(sp.count, cases[i].python);
			space_free(&sp);
		} else if (cases[i].python)
			CU_FAIL("the space did not enumerate");
		if (loaded)
			config_free(&cfg);
		diags_free(&d);
		unlink(json);
		unlink(yaml);
	}
}

/* text with its first `from` replaced by `to` (caller frees); NULL when from is not there. */
static char *replaced(const char *text, const char *from, const char *to)
{
	const char *at = text ? strstr(text, from) : NULL;
	return at ? xasprintf("%.*s%s%s", (int)(at - text), text, to, at + strlen(from)) : NULL;
}

static void test_what_cannot_be_imported_is_reported(void)
{
	const char *spec = "{\"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"s\", \"Type\": \"string\", \"Values\": \"['a']\"}]},\n"
			   " \"KernelSpecification\": {\"Language\": \"OpenCL\", \"KernelName\": \"k\", \"KernelFile\": \"k.cl\",\n"
			   " \"GlobalSize\": {\"X\": \"1\"}, \"LocalSize\": {\"X\": \"1\"}, \"Arguments\": []}}";
	const char *json = write_temp(4, "bad.json", spec);
	char yaml[128];
	snprintf(yaml, sizeof yaml, "%s/bad.yaml", test_dir);
	diags d = {0};
	CU_ASSERT_EQUAL(import_t1(json, yaml, &d), -1);
	/* another language is said alone, in one line */
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], ":2:38: KernelSpecification.Language 'OpenCL': autotune tunes CUDA kernels"));
	diags_free(&d);
	char *cuda = replaced(spec, "OpenCL", "CUDA");
	json = write_temp(4, "bad.json", cuda);
	free(cuda);
	CU_ASSERT_EQUAL(import_t1(json, yaml, &d), -1);
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], ":1:46: ConfigurationSpace.TuningParameters[0].Type: 'string' is not supported"));
	CU_ASSERT_NOT_EQUAL(access(yaml, F_OK), 0);
	diags_free(&d);
	json = write_temp(4, "broken.json", "{\"a\": [1, 2}\n");
	CU_ASSERT_EQUAL(import_t1(json, yaml, &d), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], ":1:12: JSON syntax error"));
	diags_free(&d);
	unlink(json);
}

/* A Scalar of a vector type: a scalar is one value, so a kernel's float2 parameter has no config
 * form; refused at its Type, not written as a config that would not load. */
static void test_a_vector_scalar_is_refused_at_its_type(void)
{
	const char *spec = "{\"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"bx\", \"Type\": \"int\", \"Values\": \"[32]\"}]},\n"
			   " \"KernelSpecification\": {\"Language\": \"CUDA\", \"KernelName\": \"k\", \"KernelFile\": \"/dev/null\",\n"
			   " \"GlobalSize\": {\"X\": \"1\"}, \"LocalSize\": {\"X\": \"bx\"}, \"Arguments\": [\n"
			   "  {\"Name\": \"a\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"Size\": 64},\n"
			   "  {\"Name\": \"v\", \"Type\": \"float2\", \"MemoryType\": \"Scalar\", \"FillValue\": 1}]}}";
	const char *json = write_temp(4, "vec.json", spec);
	char yaml[128];
	snprintf(yaml, sizeof yaml, "%s/vec.yaml", test_dir);
	diags d = {0};
	CU_ASSERT_EQUAL(import_t1(json, yaml, &d), -1);
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], ":5:25: KernelSpecification.Arguments[1].Type: a Scalar of vector type "
						 "'float2' is not imported"));
	CU_ASSERT_NOT_EQUAL(access(yaml, F_OK), 0);
	diags_free(&d);
	unlink(json);
}

/* Names are copied as they are, so only the loader knows whether they mean something: the import
 * checks what it wrote as `validate` does, and a config that is not valid is reported at once
 * (and kept: the messages name its lines), not at the first `autotune` run. */
static void test_a_written_config_that_does_not_load_is_reported(void)
{
	char yaml[128];
	const char *json = write_spec("typo", "{\"Name\": \"y\", \"Type\": \"float\", \"Values\": \"[0.5, 1.5]\"}", "",
				      "block_size_y", yaml, sizeof yaml);
	diags d = {0};
	CU_ASSERT_EQUAL(import_t1(json, yaml, &d), -1);
	CU_ASSERT_FATAL(d.n >= 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "/typo.yaml: imported from "));
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "typo.json, but it is not a valid config"));
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[1], "unknown name 'block_size_y'"));
	CU_ASSERT_EQUAL(access(yaml, F_OK), 0);
	diags_free(&d);
	unlink(yaml);
	unlink(json);
}

/* A config that loads can still fail where `validate` looks further: a constraint or a launch
 * that cannot be evaluated for some configuration. Each is reported by import (exit 2, the
 * config's line and column, the file kept), and `validate` agrees with it. */
static void test_a_written_config_that_does_not_validate_is_reported(void)
{
	static const struct {
		const char *condition, *local_x, *message;
	} cases[] = {
		{"2 ** 100 > x", "x", ".yaml:9:"},  /* the constraints' line */
		{"x // 0 > 1", "x", ".yaml:9:"},
		{"x > 1", "x // 0", ".yaml:13:25: division by zero (for x=2)"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char yaml[128], cond[128];
		snprintf(cond, sizeof cond, "{\"Parameters\": [\"x\"], \"Expression\": \"%s\"}", cases[i].condition);
		const char *json = write_spec("eval", "{\"Name\": \"x\", \"Type\": \"int\", \"Values\": \"[1, 2]\"}", cond,
					      cases[i].local_x, yaml, sizeof yaml);
		char *out = NULL;
		CU_ASSERT_EQUAL(run_autotune((char *[]){"import", (char *)json, "-o", yaml, NULL}, &out), 2);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, "but it is not a valid config"));
		CU_ASSERT_PTR_NOT_NULL(strstr(out, cases[i].message));
		CU_ASSERT_PTR_NOT_NULL(strstr(out, i == 0 ? "integer overflow" : "division by zero"));
		CU_ASSERT_PTR_NULL(strstr(out, "tune it with"));
		free(out);
		CU_ASSERT_EQUAL(access(yaml, F_OK), 0);
		CU_ASSERT_EQUAL(run_autotune((char *[]){"validate", yaml, NULL}, NULL), 2);
		unlink(yaml);
		unlink(json);
	}
}

/* The config is never written over what the spec reads: its kernel source and its data files
 * (an argument's BinaryRaw fill, a reference's) are refused as -o, at their field, before anything
 * is written; so is the spec itself. */
static void test_the_output_is_none_of_the_specs_inputs(void)
{
	char dir[160], spec[200], kernel[200], in[200], ref[200];
	snprintf(dir, sizeof dir, "%s/inputs", test_dir);
	mkdir(dir, 0777);
	snprintf(spec, sizeof spec, "%s/s.json", dir);
	snprintf(kernel, sizeof kernel, "%s/k.cu", dir);
	snprintf(in, sizeof in, "%s/in.bin", dir);
	snprintf(ref, sizeof ref, "%s/ref.bin", dir);
	put_file(kernel, "__global__ void k(float *x, float *out) {}\n");
	put_file(in, "input");
	put_file(ref, "reference");
	put_file(spec, "{\"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"bs\", \"Type\": \"int\", \"Values\": \"[32]\"}]},\n"
		       " \"KernelSpecification\": {\"Language\": \"CUDA\", \"KernelName\": \"k\", \"KernelFile\": \"k.cu\",\n"
		       " \"GlobalSize\": {\"X\": \"1\"}, \"LocalSize\": {\"X\": \"bs\"},\n"
		       " \"Arguments\": [{\"Name\": \"x\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"Size\": 64,\n"
		       "   \"FillType\": \"BinaryRaw\", \"DataSource\": \"in.bin\"},\n"
		       "  {\"Name\": \"out\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"Size\": 64, \"AccessType\": \"WriteOnly\"}],\n"
		       " \"ReferenceArguments\": [{\"Name\": \"r\", \"TargetName\": \"out\", \"FillType\": \"BinaryRaw\",\n"
		       "   \"DataSource\": \"ref.bin\"}]}}\n");
	char *spec_text = read_text(spec);
	static const struct {
		const char *out, *want, *before;
	} cases[] = {
		{"k.cu", ":2:79: KernelSpecification.KernelFile 'k.cu' is the file the config would be written to",
		 "__global__ void k(float *x, float *out) {}\n"},
		{"in.bin", ":5:43: KernelSpecification.Arguments[0].DataSource 'in.bin' is the file the config would be", "input"},
		{"./ref.bin", ":8:18: KernelSpecification.ReferenceArguments[0].DataSource 'ref.bin' is the file", "reference"},
		{"s.json", "it is the spec being imported", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char out_path[256];
		snprintf(out_path, sizeof out_path, "%s/%s", dir, cases[i].out);
		char *out = NULL;
		CU_ASSERT_EQUAL(run_autotune((char *[]){"import", spec, "-o", out_path, NULL}, &out), 2);
		if (!strstr(out, cases[i].want))
			fprintf(stderr, "\n  -o %s: %s  want: %s\n", cases[i].out, out, cases[i].want);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, cases[i].want));
		free(out);
		char *after = read_text(out_path);
		const char *before = cases[i].before ? cases[i].before : spec_text;
		CU_ASSERT(after && before && !strcmp(after, before));
		free(after);
	}
	/* the kernel named by its absolute path (test_dir is one) is refused too */
	char *text = read_text(spec), *abs_spec = xasprintf("%s/abs.json", dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_EQUAL_FATAL(kernel[0], '/');
	char *at = strstr(text, "\"k.cu\"");
	char *rewritten = xasprintf("%.*s\"%s\"%s", (int)(at - text), text, kernel, at + 6);
	put_file(abs_spec, rewritten);
	diags d = {0};
	CU_ASSERT_EQUAL(import_t1(abs_spec, kernel, &d), -1);
	CU_ASSERT(d.n >= 1 && strstr(d.msgs[0], "KernelSpecification.KernelFile"));
	diags_free(&d);
	free(rewritten);
	free(text);
	unlink(abs_spec);
	free(abs_spec);
	free(spec_text);
	unlink(spec);
	unlink(kernel);
	unlink(in);
	unlink(ref);
	rmdir(dir);
}

/* An existing output is replaced only when an earlier import wrote it (its first line says so) or
 * it is empty: another file (a hand-written config) stays as it was. */
static void test_only_an_earlier_import_is_replaced(void)
{
	char yaml[200];
	snprintf(yaml, sizeof yaml, "%s/again.yaml", test_dir);
	put_file(yaml, "");
	diags d = {0};
	CU_ASSERT_EQUAL(import_t1("tests/t1/vector_add.json", yaml, &d), 0);
	CU_ASSERT_EQUAL(import_t1("tests/t1/vector_add.json", yaml, &d), 0);
	CU_ASSERT_EQUAL(d.n, 0);
	put_file(yaml, "name: mine\n");
	CU_ASSERT_EQUAL(import_t1("tests/t1/vector_add.json", yaml, &d), -1);
	CU_ASSERT(d.n == 1 && strstr(d.msgs[0], "the file exists and is not a config that autotune import wrote"));
	char *after = read_text(yaml);
	CU_ASSERT(after && !strcmp(after, "name: mine\n"));
	free(after);
	diags_free(&d);
	unlink(yaml);
}

/* Every object of a spec has its keys: a misspelt or unknown one, at any depth, is refused at its
 * line and column with the nearest known key, never left out as if it were not there. */
static void test_unknown_keys_are_refused_with_the_nearest(void)
{
	static const struct {
		const char *from, *to, *want;
	} cases[] = {
		{"\"AccessType\": \"WriteOnly\"", "\"AccesType\": \"WriteOnly\"",
		 ":20:80: unknown key 'AccesType' in KernelSpecification.Arguments[0]; did you mean 'AccessType'?"},
		{"\"CompilerOptions\"", "\"CompilerOption\"",
		 ":18:5: unknown key 'CompilerOption' in KernelSpecification; did you mean 'CompilerOptions'?"},
		{"\"RandomSeed\"", "\"RandomSed\"", "unknown key 'RandomSed' in KernelSpecification.Arguments[1]; did you mean 'RandomSeed'?"},
		{"\"TimeUnit\"", "\"Timeunit\"", ":2:35: unknown key 'Timeunit' in General; did you mean 'TimeUnit'?"},
		{"\"General\"", "\"Genral\"", ":2:3: unknown key 'Genral' in the T1 spec; did you mean 'General'?"},
		{"\"Values\"", "\"Value\"", "unknown key 'Value' in ConfigurationSpace.TuningParameters[0]; did you mean 'Values'?"},
		{"\"Expression\"", "\"Expresion\"", "unknown key 'Expresion' in ConfigurationSpace.Conditions[0]; did you mean"},
		{"\"KernelSpecification\"", "\"kernelSpecification\"",
		 "unknown key 'kernelSpecification' in the T1 spec; did you mean 'KernelSpecification'?"},
		{"\"Conditions\"", "\"constraints\"",
		 "unknown key 'constraints' in ConfigurationSpace; did you mean 'Conditions'?"},
		{"\"Language\": \"CUDA\",", "\"Language\": \"CUDA\", \"Language\": \"CUDA\",", "duplicate key 'Language'"},
	};
	char *spec = read_text("tests/t1/vector_add.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(spec);
	char json[200], yaml[200];
	snprintf(json, sizeof json, "%s/keys.json", test_dir);
	snprintf(yaml, sizeof yaml, "%s/keys.yaml", test_dir);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *text = replaced(spec, cases[i].from, cases[i].to);
		CU_ASSERT_PTR_NOT_NULL_FATAL(text);
		put_file(json, text);
		diags d = {0};
		CU_ASSERT_EQUAL(import_t1(json, yaml, &d), -1);
		int found = d.n == 1 && strstr(d.msgs[0], cases[i].want);
		if (!found)
			fprintf(stderr, "\n  %s: %s  want: %s\n", cases[i].to, d.n ? d.msgs[0] : "(nothing)", cases[i].want);
		CU_ASSERT(found);
		CU_ASSERT_NOT_EQUAL(access(yaml, F_OK), 0);
		diags_free(&d);
		free(text);
	}
	unlink(json);
	free(spec);
}

/* The schema's fields that describe the tuning run rather than the kernel are known, and read
 * past: a spec with all of them imports to the same config as without. */
static void test_the_schemas_run_fields_import(void)
{
	char *spec = read_text("tests/t1/vector_add.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(spec);
	char *a = replaced(spec, "\"TimeUnit\": \"Milliseconds\"},",
			   "\"TimeUnit\": \"Milliseconds\", \"BenchmarkName\": \"va\", \"LoggingLevel\": \"Info\", "
			   "\"OutputFile\": \"out\", \"OutputFormat\": \"JSON\"},\n"
			   "  \"Search\": {\"Name\": \"random\", \"Attributes\": [{\"Name\": \"x\", \"Value\": \"1\"}]},\n"
			   "  \"Budget\": [{\"Type\": \"ConfigurationCount\", \"BudgetValue\": 10}],");
	char *b = replaced(a, "\"Language\": \"CUDA\",",
			   "\"Language\": \"CUDA\", \"Device\": {\"PlatformId\": 0, \"DeviceId\": 0, \"Name\": \"GPU\"}, "
			   "\"Profiling\": false, \"SimulationInput\": \"cache.json\",");
	char *c = replaced(b, "\"AccessType\": \"WriteOnly\"", "\"AccessType\": \"WriteOnly\", \"TypeSize\": 4");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	char json[200], yaml[200];
	snprintf(json, sizeof json, "tests/t1/run_fields.test.json");
	snprintf(yaml, sizeof yaml, "%s/run_fields.yaml", test_dir);
	put_file(json, c);
	diags d = {0};
	CU_ASSERT_EQUAL(import_t1(json, yaml, &d), 0);
	diags_print(&d);
	diags_free(&d);
	char plain[200];
	snprintf(plain, sizeof plain, "%s/plain.yaml", test_dir);
	CU_ASSERT_EQUAL(import_t1("tests/t1/vector_add.json", plain, &d), 0);
	/* the same from the kernel on (the comment and the name follow the spec's file name) */
	char *got = read_text(yaml), *want = read_text(plain);
	const char *g = got ? strstr(got, "\nkernel:") : NULL, *w = want ? strstr(want, "\nkernel:") : NULL;
	char *notes = g ? strstr(g, "\n# note: Budget is not honoured") : NULL;
	CU_ASSERT_PTR_NOT_NULL(notes);
	if (notes)
		notes[1] = 0; /* the notes of what is not honoured follow the config */
	CU_ASSERT(g && w && !strcmp(g, w));
	free(got);
	free(want);
	unlink(plain);
	unlink(json);
	unlink(yaml);
	free(a);
	free(b);
	free(c);
	free(spec);
}

/* libyaml reads JSON as YAML's flow style, which also takes what JSON forbids and what would
 * import as something the spec did not mean; each is a syntax error at its line and column
 * (counted in characters, past a multi-byte one), and JSON itself still reads. */
static void test_only_json_is_read(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{"{\"a\": [1, 2,]}", ":1:12: JSON syntax error: a comma before ']': JSON has none after the last item"},
		{"{\"a\": 1,\n}", ":1:8: JSON syntax error: a comma before '}'"},
		{"{\"s\": \"\u2265,]\", \"a\": [1,]}", ":1:21: JSON syntax error: a comma before ']'"},
		{"{\"a\": True}", ":1:7: JSON syntax error: 'True' is not JSON (a \"string\", a number, true, false or null)"},
		{"{'a': 1}", ":1:2: JSON syntax error: ''a'' is not JSON"},
		{"{\"a\": 1 # a comment\n}", ":1:9: JSON syntax error: '#' is not JSON"},
		{"{\"a\": 01}", ":1:7: JSON syntax error: '01' is not JSON"},
		{"{\"a\": 1.}", ":1:7: JSON syntax error: '1.' is not JSON"},
		{"{\"a\": +1}", ":1:7: JSON syntax error: '+1' is not JSON"},
		{"{\"a\": 2e}", ":1:7: JSON syntax error: '2e' is not JSON"},
		{"{\"General\": {\"BenchmarkName\": \"x\\\",]\", \"TimeUnit\": [-0.5e+3, true, false, null, 0, 1E2, 10.25, -7]}}",
		 ":1:1: not a T1 spec: it has neither ConfigurationSpace nor KernelSpecification"},
	};
	char yaml[200];
	snprintf(yaml, sizeof yaml, "%s/json.yaml", test_dir);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *json = write_temp(4, "json.json", cases[i].text);
		diags d = {0};
		CU_ASSERT_EQUAL(import_t1(json, yaml, &d), -1);
		int found = d.n == 1 && strstr(d.msgs[0], cases[i].want);
		if (!found)
			fprintf(stderr, "\n  %s: %s  want: %s\n", cases[i].text, d.n ? d.msgs[0] : "(nothing)", cases[i].want);
		CU_ASSERT(found);
		diags_free(&d);
		unlink(json);
	}
}

/* A character outside the Python that is translated is named whole in the spec's message, at its
 * character: '≥', not its first byte. */
static void test_a_foreign_character_is_named_whole(void)
{
	char *spec = read_text("tests/t1/vector_add.json");
	char *text = replaced(spec, "block_size_x >= 64", "block_size_x \u2265 64");
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	char json[200], yaml[200];
	snprintf(json, sizeof json, "%s/ge.json", test_dir);
	snprintf(yaml, sizeof yaml, "%s/ge.yaml", test_dir);
	put_file(json, text);
	diags d = {0};
	CU_ASSERT_EQUAL(import_t1(json, yaml, &d), -1);
	CU_ASSERT(d.n == 1 && strstr(d.msgs[0], ":8:54: ConfigurationSpace.Conditions[0].Expression: "));
	CU_ASSERT(d.n == 1 && strstr(d.msgs[0], ": '\u2265' is not part of the Python that autotune translates (at "
						 "character 14)"));
	diags_free(&d);
	unlink(json);
	free(text);
	free(spec);
}

/* The flag of cfg's build, or NULL. */
static const char *flag(const config *cfg, const char *want)
{
	for (size_t i = 0; i < cfg->nflags; i++)
		if (!strcmp(cfg->nvcc_flags[i], want))
			return cfg->nvcc_flags[i];
	return NULL;
}

/* tests/t1/tuners.json is written as Kernel Tuner's and BAT's users write specs, and imports to
 * what those tuners do with it: the constant-memory filter both __constant__ and argument,
 * kernel_tuner defined, BenchmarkConfig's SCALE a define (dataSize, which the kernel does not
 * name, left out), Default the reference, Output the outputs, Random normal, SharedMemory null
 * none, double3 an argument type, lists joined by +, and Kernel Tuner's 1,024-thread limit: 52
 * valid configurations where Python's conditions alone keep 54 (block_size_x 2048 with a tile of
 * 1, twice). It compiles in a dry run, the kernel's own parameters unused. */
static void test_a_spec_imports_to_what_the_tuners_do(void)
{
	char yaml[200];
	snprintf(yaml, sizeof yaml, "%s/tuners.yaml", test_dir);
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(import_t1("tests/t1/tuners.json", yaml, &d), 0);
	CU_ASSERT_EQUAL(d.n, 2); /* the keys read past; the BenchmarkConfig keys left out */
	CU_ASSERT(d.n == 2 && strstr(d.msgs[0], "General.Objective, General.Minimize, KernelSpecification.Stream"));
	CU_ASSERT(d.n == 2 && strstr(d.msgs[1], "BenchmarkConfig keys the kernel does not name are not defined: dataSize, "
						"iterations"));
	diags_free(&d);
	config cfg;
	int rc = config_load(yaml, &cfg, &d);
	diags_print(&d);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL_FATAL(cfg.nargs, 6);
	CU_ASSERT(cfg.args[0].output && !cfg.args[1].output && !cfg.args[4].output); /* Output, not AccessType */
	CU_ASSERT_EQUAL(cfg.args[4].type, ELEM_DOUBLE3);
	CU_ASSERT_EQUAL(cfg.args[1].fill, FILL_NORMAL);
	CU_ASSERT_EQUAL(cfg.args[1].seed, 5);
	CU_ASSERT(!strcmp(cfg.args[2].name, "filter_arg") && !cfg.args[2].constant && cfg.args[2].fill == FILL_NORMAL);
	CU_ASSERT(!strcmp(cfg.args[3].name, "filter") && cfg.args[3].constant && cfg.args[3].copy_of == 2);
	CU_ASSERT_PTR_NULL(cfg.shared_mem.e);
	CU_ASSERT_PTR_NOT_NULL(flag(&cfg, "-Dkernel_tuner=1"));
	CU_ASSERT_PTR_NOT_NULL(flag(&cfg, "-DSCALE=2"));
	CU_ASSERT_PTR_NULL(flag(&cfg, "-DdataSize=4096"));
	CU_ASSERT(cfg.rtol == 1e-5 && cfg.atol == 1e-6); /* numpy.allclose as Kernel Tuner and BAT call it */
	CU_ASSERT_FATAL(cfg.has_reference);
	CU_ASSERT(cfg.reference[0].u.i == 128 && cfg.reference[1].u.i == 1 && cfg.reference[2].u.i == 1);
	space sp;
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	CU_ASSERT_EQUAL(sp.total, 66);
	CU_ASSERT_EQUAL(sp.count, 52);
	space_free(&sp);
	config_free(&cfg);
	diags_free(&d);
	char *out = NULL;
	CU_ASSERT_EQUAL(run_autotune((char *[]){"--dry-run", "--arch", "sm_90", "--shard", "0/26", yaml, NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out ? out : "", "(0 failed"));
	free(out);
	unlink("results/tuners.shard-0-of-26.csv");
	unlink("results/tuners.shard-0-of-26.journal");
	unlink(yaml);
}

/* Default that is not a configuration of the space is no reference, and said. */
static void test_a_default_outside_the_space_is_said(void)
{
	char *spec = read_text("tests/t1/tuners.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(spec);
	char *text = replaced(spec, "\"Values\": \"[1, 2, 4]\", \"Default\": 1", "\"Values\": \"[1, 2, 4]\", \"Default\": 3");
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	char json[200], kernel[200], yaml[200];
	snprintf(json, sizeof json, "%s/default.json", test_dir);
	snprintf(kernel, sizeof kernel, "%s/tuners.cu", test_dir);
	snprintf(yaml, sizeof yaml, "%s/default.yaml", test_dir);
	put_file(json, text);
	put_file(kernel, ""); /* import reads no more of it */
	diags d = {0};
	CU_ASSERT_EQUAL(import_t1(json, yaml, &d), 0);
	int said = 0;
	for (size_t i = 0; i < d.n; i++)
		said |= strstr(d.msgs[i], "note: Default is not a valid configuration (tile_size_x=3 is not among its "
					  "Values): outputs are checked against the first configuration's") != NULL;
	CU_ASSERT(said);
	CU_ASSERT_EQUAL(count_in(yaml, "reference:"), 0);
	diags_free(&d);
	unlink(json);
	unlink(kernel);
	unlink(yaml);
	free(text);
	free(spec);
}

/* A number as the table writes it ("1,867,776"); -1 when the cell has none. */
static long long table_number(const char *cell)
{
	long long n = -1;
	for (const char *p = cell; *p && *p != ' '; p++)
		if (*p >= '0' && *p <= '9')
			n = (n < 0 ? 0 : n * 10) + (*p - '0');
		else if (*p != ',')
			break;
	return n;
}

/* BAT's TRIAD declares its arrays and scalar double while its BenchmarkConfig PRECISION is 32
 * (the kernel's float): the import names them and the fix. FFT's float2 under 32 is said nothing. */
static void test_a_precision_the_arguments_do_not_follow_is_noted(void)
{
	char yaml[256];
	snprintf(yaml, sizeof yaml, "%s/precision.yaml", test_dir);
	const struct {
		const char *spec;
		int noted;
	} cases[] = {{"TRIAD-CAFF.json", 1}, {"FFT-CAFF.json", 0}};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		diags d = {0};
		CU_ASSERT_EQUAL(import_t1(published_copy("bat", cases[i].spec), yaml, &d), 0);
		int noted = 0, precision = 0;
		for (size_t m = 0; m < d.n; m++) {
			noted |= strstr(d.msgs[m], "note: BenchmarkConfig.PRECISION is 32, for which BAT's kernels compute in "
						    "float, but 'A', 'B', 'C' and 's' are double: if the kernel's type follows "
						    "PRECISION, declare them float (Type \"float\")") != NULL;
			precision |= strstr(d.msgs[m], "PRECISION is") != NULL;
		}
		CU_ASSERT_EQUAL(noted, cases[i].noted);
		CU_ASSERT_EQUAL(precision, cases[i].noted);
		diags_free(&d);
		unlink(yaml);
	}
}

/* docs/real-kernels.md's table of the published specs is what the import does with each: the exit
 * status, the valid configurations of how many, the same count as Python's (Kernel Tuner's where
 * its thread limit applies), and for a refusal the reason it quotes first. */
static void test_the_table_of_published_specs_is_true(void)
{
	char *doc = read_text("docs/real-kernels.md");
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	int rows = 0;
	stderr_begin(); /* what the library would print, and this test's own notes of a wrong row */
	for (char *line = strstr(doc, "\n| `"); line; line = strstr(line + 1, "\n| `")) {
		char dir[64], spec[96], cells[5][512];
		char *end = strchr(line + 1, '\n');
		if (end)
			*end = 0;
		if (sscanf(line + 1, "| `%63[^/]/%95[^`]` | %511[^|]| %511[^|]| %511[^|]| %511[^\n]", dir, spec, cells[1],
			   cells[2], cells[3], cells[4]) != 6) {
			if (end)
				*end = '\n';
			continue;
		}
		rows++;
		char yaml[256];
		snprintf(yaml, sizeof yaml, "%s/published.yaml", test_dir);
		diags d = {0};
		int rc = import_t1(published_copy(dir, spec), yaml, &d) == 0 ? 0 : 2;
		int ok = rc == atoi(cells[1]);
		if (rc == 0) {
			config cfg;
			space sp;
			long long count = -1, total = -1;
			if (config_load(yaml, &cfg, &d) == 0) {
				if (space_enumerate_sampled(&cfg, &sp, &d) == 0) {
					count = (long long)sp.valid;
					total = (long long)sp.total;
					space_free(&sp);
				}
				config_free(&cfg);
			}
			const char *of = strstr(cells[2], " of ");
			ok &= count == table_number(cells[2]) && of && total == table_number(of + 4) &&
			      count == table_number(cells[3]);
			if (!ok)
				fprintf(stderr, "\n  %s/%s: exit %d, %lld of %lld; the table: %s| %s\n", dir, spec, rc, count, total,
					cells[2], cells[3]);
		} else {
			char want[256] = "";
			const char *q = strchr(cells[4], '`');
			if (q)
				sscanf(q + 1, "%255[^`]", want);
			int found = 0;
			for (size_t m = 0; m < d.n; m++)
				found |= strstr(d.msgs[m], want) != NULL;
			ok &= *want && found;
			if (!ok)
				fprintf(stderr, "\n  %s/%s: exit %d: %s; the table: %s\n", dir, spec, rc, d.n ? d.msgs[0] : "", cells[4]);
		}
		CU_ASSERT(ok);
		diags_free(&d);
		unlink(yaml);
		if (end)
			*end = '\n';
	}
	/* the loader's warnings about the specs' outputs came back in d: the library printed nothing */
	char *said = stderr_end();
	if (said && *said)
		fputs(said, stderr);
	CU_ASSERT_STRING_EQUAL(said ? said : "", "");
	free(said);
	CU_ASSERT_EQUAL(rows, 26); /* every spec in tests/t1/published */
	free(doc);
}

/* Nesting the translation cannot bear (chains doubling their middle operand, a value 150 deep) is
 * refused at the spec's line and column and field, and nothing is written; never a constraint cut
 * to "()". */
static void test_deep_nesting_is_refused_at_its_place(void)
{
	char chain[1024] = "a", tmp[1024];
	for (int k = 0; k < 24; k++) {
		snprintf(tmp, sizeof tmp, "a < (%s) < 9", chain);
		memcpy(chain, tmp, sizeof chain);
	}
	char cond[1200], yaml[128], deep[400] = "[", *p = deep + 1;
	snprintf(cond, sizeof cond, "{\"Parameters\": [\"a\"], \"Expression\": \"%s\"}", chain);
	const char *json = write_spec("deep", "{\"Name\": \"a\", \"Type\": \"int\", \"Values\": \"[1, 2]\"}", cond, "a", yaml,
				      sizeof yaml);
	diags d = {0};
	CU_ASSERT_EQUAL(import_t1(json, yaml, &d), -1);
	CU_ASSERT(d.n == 1 && strstr(d.msgs[0], ":1:") && strstr(d.msgs[0], ": ConfigurationSpace.Conditions[0].Expression: ") &&
		  strstr(d.msgs[0], "the translation grows past"));
	CU_ASSERT(access(yaml, F_OK) != 0);
	diags_free(&d);
	for (int k = 0; k < 150; k++)
		*p++ = '(';
	*p++ = '1';
	for (int k = 0; k < 150; k++)
		*p++ = ')';
	strcpy(p, "]");
	char param[512];
	snprintf(param, sizeof param, "{\"Name\": \"a\", \"Type\": \"int\", \"Values\": \"%s\"}", deep);
	json = write_spec("deep", param, "", "a", yaml, sizeof yaml);
	CU_ASSERT_EQUAL(import_t1(json, yaml, &d), -1);
	CU_ASSERT(d.n == 1 && strstr(d.msgs[0], ": ConfigurationSpace.TuningParameters[0].Values: ") &&
		  strstr(d.msgs[0], "nested more than 100 levels deep"));
	CU_ASSERT(access(yaml, F_OK) != 0);
	diags_free(&d);
	unlink(json);
}

int add_import_suite(void)
{
	CU_pSuite s = CU_add_suite("import", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "vector_add spec imports, loads and enumerates", test_vector_add_spec_imports_loads_and_enumerates);
	CU_add_test(s, "not binds looser than comparison", test_not_binds_looser_than_comparison);
	CU_add_test(s, "data files and references import", test_data_files_and_references_import);
	CU_add_test(s, "a spec of every supported field imports, loads and compiles",
		    test_a_spec_of_every_supported_field_imports_loads_and_compiles);
	CU_add_test(s, "chained comparisons are Python's", test_chained_comparisons_are_pythons);
	CU_add_test(s, "a config written elsewhere finds the kernel", test_a_config_written_elsewhere_finds_the_kernel);
	CU_add_test(s, "a GEMM spec imports to the hand-written space", test_a_gemm_spec_imports_to_the_hand_written_space);
	CU_add_test(s, "what cannot be imported is reported", test_what_cannot_be_imported_is_reported);
	CU_add_test(s, "a vector scalar is refused at its type", test_a_vector_scalar_is_refused_at_its_type);
	CU_add_test(s, "a written config that does not load is reported", test_a_written_config_that_does_not_load_is_reported);
	CU_add_test(s, "the output is none of the spec's inputs", test_the_output_is_none_of_the_specs_inputs);
	CU_add_test(s, "only an earlier import is replaced", test_only_an_earlier_import_is_replaced);
	CU_add_test(s, "unknown keys are refused with the nearest", test_unknown_keys_are_refused_with_the_nearest);
	CU_add_test(s, "the schema's run fields import", test_the_schemas_run_fields_import);
	CU_add_test(s, "only JSON is read", test_only_json_is_read);
	CU_add_test(s, "a foreign character is named whole", test_a_foreign_character_is_named_whole);
	CU_add_test(s, "a spec imports to what the tuners do", test_a_spec_imports_to_what_the_tuners_do);
	CU_add_test(s, "a default outside the space is said", test_a_default_outside_the_space_is_said);
	CU_add_test(s, "the table of published specs is true", test_the_table_of_published_specs_is_true);
	CU_add_test(s, "a precision the arguments do not follow is noted", test_a_precision_the_arguments_do_not_follow_is_noted);
	CU_add_test(s, "a written config that does not validate is reported",
		    test_a_written_config_that_does_not_validate_is_reported);
	CU_add_test(s, "deep nesting is refused at its place", test_deep_nesting_is_refused_at_its_place);
	return 0;
}
