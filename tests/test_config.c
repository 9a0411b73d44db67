/* test_config.c: loading a config (config.c): the shipped example and the defaults, and the errors
 * of its sections (the kernel source, element types, arguments, the launch, verify) reported at
 * their exact line and column, all of them at once. (The typed getters and key checks:
 * test_config_yaml.c; names in expressions: test_config_expr.c; the settings' tables:
 * test_config_keys.c; what is read from the kernel source: test_config_source.c.) */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "proc.h"
#include "tests.h"

static void test_good_config_loads_with_defaults(void)
{
	config cfg;
	char *first;
	int n = config_load_text(config_good, &cfg, &first);
	if (first)
		fprintf(stderr, "\n  unexpected: %s\n", first);
	free(first);
	CU_ASSERT_EQUAL_FATAL(n, 0);
	CU_ASSERT_STRING_EQUAL(cfg.name, "tiny");
	CU_ASSERT_EQUAL(cfg.nconstants, 1);
	CU_ASSERT_EQUAL(cfg.constants[0].v.u.i, 1024);
	CU_ASSERT_EQUAL(cfg.nargs, 2);
	CU_ASSERT(cfg.args[0].is_array);
	CU_ASSERT_EQUAL(cfg.args[0].count, 1024);
	CU_ASSERT_EQUAL(cfg.args[0].fill, FILL_RANDOM);
	CU_ASSERT(!cfg.args[1].is_array);
	CU_ASSERT_EQUAL(cfg.nparams, 1);
	CU_ASSERT_EQUAL(cfg.params[0].nvalues, 3);
	CU_ASSERT_EQUAL(cfg.params[0].values[2].u.i, 128);
	CU_ASSERT_STRING_EQUAL(cfg.csv_path, "results/tiny.csv");
	CU_ASSERT_STRING_EQUAL(cfg.header_path, "results/tiny_tuned.h");
	CU_ASSERT_EQUAL(cfg.min_samples, 10);
	CU_ASSERT_EQUAL(cfg.select.kind, POLICY_BALANCED);
	CU_ASSERT_DOUBLE_EQUAL(cfg.noise_target, 0.01, 0);
	CU_ASSERT_PTR_NULL(cfg.block[1].e);
	config_free(&cfg);
}

static void test_summatrix_config_loads(void)
{
	config cfg;
	diags d = {0};
	int rc = config_load("configs/summatrix.yaml", &cfg, &d);
	diags_print(&d);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(d.n, 0);
	diags_free(&d);
	if (rc)
		return;
	CU_ASSERT_STRING_EQUAL(cfg.name, "summatrix");
	CU_ASSERT_STRING_EQUAL(cfg.source, "configs/../kernels/summatrix.cu");
	CU_ASSERT_EQUAL(cfg.nparams, 3);
	/* powers of two 1..1024 inclusive */
	CU_ASSERT_EQUAL(cfg.params[0].nvalues, 11);
	CU_ASSERT_EQUAL(cfg.params[0].values[10].u.i, 1024);
	CU_ASSERT(cfg.params[2].is_maxreg);
	CU_ASSERT(!cfg.params[0].is_maxreg && !cfg.params[0].is_define);
	CU_ASSERT(cfg.has_reference);
	CU_ASSERT(cfg.args[2].output);
	CU_ASSERT_EQUAL(cfg.args[2].fill, FILL_ZEROS);
	config_free(&cfg);
}

/* Every config the checkout ships or benchmarks with (configs/, bench/spaces/) validates: a
 * config that only a GPU run reads would otherwise break unseen. */
static void test_every_shipped_and_bench_config_validates(void)
{
	const char *dirs[] = {"configs", "bench/spaces"};
	size_t seen = 0;
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		DIR *dir = opendir(dirs[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
		struct dirent *e;
		while ((e = readdir(dir))) {
			size_t len = strlen(e->d_name);
			if (len < 6 || strcmp(e->d_name + len - 5, ".yaml"))
				continue;
			char path[512], *out;
			snprintf(path, sizeof path, "%s/%s", dirs[i], e->d_name);
			int rc = run_autotune((char *[]){"validate", path, NULL}, &out);
			if (rc)
				fprintf(stderr, "\n  %s: exit %d\n%s\n", path, rc, out);
			CU_ASSERT_EQUAL(rc, 0);
			free(out);
			seen++;
		}
		closedir(dir);
	}
	CU_ASSERT(seen >= 10);
}

static void test_yaml_syntax_error_has_position(void)
{
	config_expect_error(config_with_line(11, "  bx: [32, 64"), 12, 7, "YAML syntax error: did not find expected ',' or ']'");
}

static void test_missing_kernel_file(void)
{
	config_expect_error(config_with_line(3, "  source: no-such-file.cu"), 3, 11, "cannot read kernel source");
}

/* What a path can name besides a source: each is refused at the source's position, none is read
 * until it ends (the fuzzer's find: /dev/zero and /dev/full took all memory) or waited on. */
static void test_kernel_source_that_is_no_file(void)
{
	config cfg;
	diags d = {0};
	CU_ASSERT_EQUAL(config_load("/tmp", &cfg, &d), -1); /* the config itself, to begin with */
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	CU_ASSERT_STRING_EQUAL(d.msgs[0], "/tmp: cannot open: Is a directory");
	diags_free(&d);
	config_expect_error(config_with_line(3, "  source: /dev/zero"), 3, 11, "kernel source '/dev/zero' is over 64 MiB: not a CUDA source file");
	config_expect_error(config_with_line(3, "  source: /tmp"), 3, 11, "kernel source '/tmp' is a directory");
	char fifo[128], line[160];
	snprintf(fifo, sizeof fifo, "%s/kernel.fifo", test_dir);
	CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
	snprintf(line, sizeof line, "  source: %s", fifo);
	char msg[200];
	snprintf(msg, sizeof msg, "kernel source '%s' is a pipe or a socket, not a file", fifo);
	config_expect_error(config_with_line(3, line), 3, 11, msg);
	unlink(fifo);
}

/* kernel.arch follows --arch's rule: sm_ and two or three digits. */
static void test_kernel_arch_is_checked_as_arch_is(void)
{
	config cfg;
	char *first;
	CU_ASSERT_EQUAL(config_load_text(config_with_line(4, "  entry: k\n  arch: sm_100"), &cfg, &first), 0);
	CU_ASSERT_STRING_EQUAL(cfg.arch, "sm_100");
	config_free(&cfg);
	free(first);
	config_expect_error(config_with_line(4, "  entry: k\n  arch: sm_9"), 5, 9,
			    "arch must look like sm_90 or sm_100, not 'sm_9'");
	config_expect_error(config_with_line(4, "  entry: k\n  arch: compute_90"), 5, 9,
			    "arch must look like sm_90 or sm_100, not 'compute_90'");
}

static void test_unknown_element_type(void)
{
	config_expect_error(config_with_line(8, "  - {name: a, type: flaot, count: n}"), 8, 21, "unknown type 'flaot'");
}

static void test_unquoted_commas_in_flow_list_get_a_hint(void)
{
	const char *hint = "launch grid: inside [ ] a comma ends an item, which cut this expression in two: quote it whole, "
			   "\"ceil_div(n, bx)\"";
	/* the cut leaves too many items, or (1-D) as many as a grid may have: the same hint */
	config_expect_error(config_with_line(14, "  grid: [ceil_div(n, bx), 1, 1]"), 14, 10, hint);
	config_expect_error(config_with_line(14, "  grid: [ceil_div(n, bx)]"), 14, 10, hint);
	config_expect_error(config_with_line(14, "  grid: [1, ceil_div(n, bx)]"), 14, 13, hint);
	/* nested calls are joined until every parenthesis closes */
	config_expect_error(config_with_line(14, "  grid: [max(1, ceil_div(n, bx))]"), 14, 10,
		     "launch grid: inside [ ] a comma ends an item, which cut this expression in two: "
		     "quote it whole, \"max(1, ceil_div(n, bx))\"");
	/* a cut with balanced parentheses is still told by the count */
	config_expect_error(config_with_line(14, "  grid: [n, bx, 1, 2]"), 14, 9,
		     "launch grid takes 1 to 3 expressions (x, y, z), not 4 (inside [ ] a comma ends an item");
	char text[4096];
	snprintf(text, sizeof text, "%sconstraints: [bx <= min(n, 1024)]\n", config_good);
	config_expect_error(text, 15, 15, "constraints: inside [ ] a comma ends an item, which cut this expression in two: "
				    "quote it whole, \"bx <= min(n, 1024)\"");
}

static void test_every_error_is_reported_not_only_the_first(void)
{
	const char *text = "name: t\nkernel: {source: /dev/null, entry: k, colour: red}\nspace: {x: [1]}\n"
			   "arguments: [{name: a, type: float, count: 4}]\nlaunch: {block: [y], grid: [z]}\n";
	diags d = {0};
	config cfg;
	const char *path = write_temp(0, "m.yaml", text);
	CU_ASSERT_EQUAL(config_load(path, &cfg, &d), -1);
	CU_ASSERT_EQUAL(d.n, 3); /* colour, y, z */
	diags_free(&d);
	unlink(path);
}

static void test_reference_must_name_every_parameter(void)
{
	char text[4096];
	snprintf(text, sizeof text, "%sverify:\n  reference: {by: 1}\n", config_good);
	config_expect_error(text, 16, 14, "verify reference does not give parameter 'bx'");
}

/* An output that is also an input (a fill of its own) is valid but warned about at its fill,
 * unless restored; a pure output (zeros) is not. */
static void test_output_read_as_input_is_warned_about(void)
{
	const char *kernel = write_temp(0, "io.cu", "extern \"C\" __global__ void k(float *a) { a[threadIdx.x] += 1; }\n");
	const char *tails[] = {"fill: random, output: true}]", "fill: {expr: \"i\"}, output: true}]",
			       "fill: random, output: true, restore: true}]", "output: true}]", "fill: zeros, output: true}]"};
	for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
		char text[1024];
		snprintf(text, sizeof text, "name: io\nkernel: {source: %s, entry: k}\n"
			 "arguments: [{name: acc, type: float, count: 64, %s\nspace: {x: [32]}\nlaunch: {block: [x], grid: [1]}\n",
			 kernel, tails[i]);
		const char *path = write_temp(1, "io.yaml", text);
		char *out, want[256];
		CU_ASSERT_EQUAL(run_autotune((char *[]){"validate", (char *)path, NULL}, &out), 0);
		snprintf(want, sizeof want, "%s:3:55: warning: 'acc' is an output with a fill of its own", path);
		if (i < 2) {
			CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
		} else {
			CU_ASSERT_PTR_NULL(strstr(out, "warning"));
		}
		free(out);
	}
}

/* A value listed twice is an error at the second (an int and the same float are one value). */
static void test_a_value_listed_twice_is_refused(void)
{
	config_expect_error(config_with_line(11, "  bx: [32, 64, 32]"), 11, 16, "parameter 'bx' lists the value 32 twice (items 1 and 3)");
	config_expect_error(config_with_line(11, "  bx: [32, 64, 64.0]"), 11, 16, "parameter 'bx' lists the value 64.0 twice (items 2 and 3)");
	config_expect_error(config_with_line(11, "  bx: [32, \"1 << 5\"]"), 11, 12, "parameter 'bx' lists the value 1 << 5 twice (items 1 and 2)");
}

/* A config that verifies nothing says so at its arguments (it is legal: a pure timing); one
 * output is enough to be quiet. */
static void test_a_config_without_outputs_is_warned_about(void)
{
	char kernel[256]; /* config_load_text writes slot 0 again */
	snprintf(kernel, sizeof kernel, "%s", write_temp(0, "t.cu", "extern \"C\" __global__ void k(float *a) { a[threadIdx.x] = 1; }\n"));
	for (int output = 0; output < 2; output++) {
		char text[512], *out;
		snprintf(text, sizeof text, "name: t\nkernel: {source: %s, entry: k}\narguments: [{name: a, type: float, count: 64%s}]\n"
			 "space: {x: [32]}\nlaunch: {block: [x], grid: [1]}\n", kernel, output ? ", output: true" : "");
		const char *path = write_temp(1, "t.yaml", text);
		CU_ASSERT_EQUAL(run_autotune((char *[]){"validate", (char *)path, NULL}, &out), 0);
		char want[256];
		snprintf(want, sizeof want, "%s:3:12: warning: no argument is an output, so nothing is verified", path);
		CU_ASSERT_EQUAL(strstr(out, want) != NULL, !output);
		free(out);
		/* in the library the warning is the caller's to show: in cfg.warnings, nothing printed */
		config cfg;
		char *first = NULL;
		stderr_begin();
		CU_ASSERT_EQUAL_FATAL(config_load_text(text, &cfg, &first), 0);
		char *said = stderr_end();
		CU_ASSERT_STRING_EQUAL(said ? said : "", "");
		free(said);
		CU_ASSERT_EQUAL(cfg.warnings.n, (size_t)!output);
		CU_ASSERT(output || (cfg.warnings.n && strstr(cfg.warnings.msgs[0], ":3:12: warning: no argument is an output")));
		config_free(&cfg);
	}
}

/* Without name:, the file's name begins the header's macros: one that starts with a digit is
 * refused at load, before anything is compiled or measured, rather than after. */
static void test_a_file_name_that_cannot_name_the_macros(void)
{
	config cfg;
	diags d = {0};
	char path[256];
	snprintf(path, sizeof path, "%s/2d.yaml", test_dir);
	static const char *const body = "kernel: {source: /dev/null, entry: k}\narguments: [{name: a, type: float, count: 4}]\n"
					"space: {x: [32, 64]}\nlaunch: {block: [x], grid: [1]}\n";
	put_file(path, body);
	CU_ASSERT_EQUAL(config_load(path, &cfg, &d), -1);
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "2d.yaml:1:1: no name: given, and the file's name '2d'"));
	diags_free(&d);
	/* with name: it loads */
	char *named = malloc(strlen(body) + 16);
	sprintf(named, "name: two_d\n%s", body);
	put_file(path, named);
	free(named);
	CU_ASSERT_EQUAL_FATAL(config_load(path, &cfg, &d), 0);
	config_free(&cfg);
	diags_free(&d);
	unlink(path);
}

/* A parameter whose macro the tuned header defines for itself, or two that make one macro, are
 * config errors at the parameter, found before anything is measured; with a plan its choices'
 * macros too. */
static void test_parameters_that_clash_with_the_header_macros(void)
{
	config_expect_error(config_with_line(11, "  time_ms: [1]"), 11, 3,
			    "parameter 'time_ms' would define TINY_TIME_MS, which the tuned header defines for itself");
	config_expect_error(config_with_line(11, "  {bx: [32], spec_hash: [1]}"), 11, 14,
			    "parameter 'spec_hash' would define TINY_SPEC_HASH");
	config_expect_error(config_with_line(11, "  {bx: [32, 64], block: [1], BLOCK: [2]}"), 11, 30,
			    "parameters 'block' and 'BLOCK' both become the tuned header's macro TINY_BLOCK: rename one");
	config cfg;
	char *first = NULL;
	/* plan_streams is only the header's with a plan */
	CU_ASSERT_EQUAL(config_load_text(config_with_line(11, "  {bx: [32, 64], plan_streams: [1]}\nconstraints: [plan_streams > 0]"),
					&cfg, &first), 0);
	free(first);
	config_free(&cfg);
}

/* A kernel source whose name starts with '-', beside a config given without a directory: nvcc
 * gets it as a path (./-v.cu), not as its -v option. */
static void test_a_source_named_like_an_option_stays_a_path(void)
{
	char cwd[4096], path[256];
	CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
	snprintf(path, sizeof path, "%s/-v.cu", test_dir);
	put_file(path, "extern \"C\" __global__ void k(float *a) { a[0] = 1; }\n");
	snprintf(path, sizeof path, "%s/dash.yaml", test_dir);
	put_file(path, "kernel: {source: -v.cu, entry: k}\narguments: [{name: a, type: float, count: 4}]\n"
		       "space: {x: [32, 64]}\nlaunch: {block: [x], grid: [1]}\n");
	CU_ASSERT_EQUAL_FATAL(chdir(test_dir), 0);
	config cfg;
	diags d = {0};
	int rc = config_load("dash.yaml", &cfg, &d);
	CU_ASSERT_EQUAL(chdir(cwd), 0);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_STRING_EQUAL(cfg.source, "./-v.cu");
	config_free(&cfg);
	diags_free(&d);
}

/* An array's count is checked against what any GPU could hold before a size is multiplied:
 * 1 << 61 floats once wrapped the memory check to 0 and ran. */
static void test_an_array_count_past_any_gpu_is_refused(void)
{
	config cfg;
	diags d = {0};
	const char *path = write_temp(3, "huge.yaml", "kernel: {source: /dev/null, entry: k}\narguments: [{name: a, type: float, count: 1 << 61}]\n"
						     "space: {x: [32, 64]}\nlaunch: {block: [x], grid: [1]}\n");
	CU_ASSERT_EQUAL(config_load(path, &cfg, &d), -1);
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "huge.yaml:2:43: array count 2305843009213693952 of 4-byte elements is over 256 TiB"));
	diags_free(&d);
	/* the largest that passes the check is left to the device's memory */
	path = write_temp(3, "huge.yaml", "kernel: {source: /dev/null, entry: k}\narguments: [{name: a, type: float, count: 1 << 46}]\n"
					  "space: {x: [32, 64]}\nlaunch: {block: [x], grid: [1]}\n");
	CU_ASSERT_EQUAL_FATAL(config_load(path, &cfg, &d), 0);
	CU_ASSERT_EQUAL(cfg.args[0].count, 1ll << 46);
	config_free(&cfg);
	diags_free(&d);
}

/* fill: {copy} of an argument listed after it loads (a stencil's x_new before x_old); a copy
 * of itself, directly or through others, and one of another type are refused where named. */
static void test_copies_name_any_other_array_but_never_themselves(void)
{
	config cfg;
	char *first = NULL;
	const char *later = "  - {name: a, type: float, count: n, fill: {copy: b}}\n  - {name: b, type: float, count: n}";
	CU_ASSERT_EQUAL(config_load_text(config_with_line(8, later), &cfg, &first), 0);
	free(first);
	if (cfg.nargs >= 2)
		CU_ASSERT_EQUAL(cfg.args[0].copy_of, 1);
	config_free(&cfg);
	config_expect_error(config_with_line(8, "  - {name: a, type: float, count: n, fill: {copy: a}}"), 8, 51,
			    "fill copy: 'a' is not another array argument");
	config_expect_error(config_with_line(8, "  - {name: a, type: float, count: n, fill: {copy: b}}\n"
						"  - {name: b, type: float, count: n, fill: {copy: a}}"),
			    8, 51, "fill copy: 'a' is a copy of itself, through the arguments it copies");
	config_expect_error(config_with_line(8, "  - {name: a, type: float, count: n, fill: {copy: b}}\n"
						"  - {name: b, type: int32, count: n}"),
			    8, 51, "fill copy: 'b' has another element type");
}

/* verify.max_mismatches: a count of elements, 0 or more, that reaches the worker's settings. */
static void test_max_mismatches_is_a_count(void)
{
	config cfg;
	char *first = NULL;
	char *text = xasprintf("%sverify: {max_mismatches: 3}\n", config_good);
	CU_ASSERT_EQUAL(config_load_text(text, &cfg, &first), 0);
	CU_ASSERT_EQUAL(cfg.max_mismatches, 3);
	free(first);
	config_free(&cfg);
	free(text);
	text = xasprintf("%sverify: {max_mismatches: -1}\n", config_good);
	config_expect_error(text, 15, 26, "verify max_mismatches");
	free(text);
}

int add_config_suite(void)
{
	CU_pSuite s = CU_add_suite("config", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "max_mismatches is a count", test_max_mismatches_is_a_count);
	CU_add_test(s, "copies name any other array but never themselves", test_copies_name_any_other_array_but_never_themselves);
	CU_add_test(s, "good config loads with defaults", test_good_config_loads_with_defaults);
	CU_add_test(s, "summatrix config loads", test_summatrix_config_loads);
	CU_add_test(s, "every shipped and bench config validates", test_every_shipped_and_bench_config_validates);
	CU_add_test(s, "YAML syntax error has a position", test_yaml_syntax_error_has_position);
	CU_add_test(s, "missing kernel file", test_missing_kernel_file);
	CU_add_test(s, "kernel source that is no file", test_kernel_source_that_is_no_file);
	CU_add_test(s, "kernel.arch is checked as --arch is", test_kernel_arch_is_checked_as_arch_is);
	CU_add_test(s, "unknown element type", test_unknown_element_type);
	CU_add_test(s, "commas in a flow list get a hint", test_unquoted_commas_in_flow_list_get_a_hint);
	CU_add_test(s, "all errors reported", test_every_error_is_reported_not_only_the_first);
	CU_add_test(s, "reference names every parameter", test_reference_must_name_every_parameter);
	CU_add_test(s, "an output read as input is warned about", test_output_read_as_input_is_warned_about);
	CU_add_test(s, "a config without outputs is warned about", test_a_config_without_outputs_is_warned_about);
	CU_add_test(s, "a value listed twice is refused", test_a_value_listed_twice_is_refused);
	CU_add_test(s, "a file name that cannot name the macros", test_a_file_name_that_cannot_name_the_macros);
	CU_add_test(s, "parameters that clash with the header's macros", test_parameters_that_clash_with_the_header_macros);
	CU_add_test(s, "a source named like an option stays a path", test_a_source_named_like_an_option_stays_a_path);
	CU_add_test(s, "an array count past any GPU is refused", test_an_array_count_past_any_gpu_is_refused);
	return 0;
}
