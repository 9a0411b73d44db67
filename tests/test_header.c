/* test_header.c: the tuned header and make fragment from crafted results CSVs: they compile (C
 * and C++) and carry the winner's values; merged headers select per target and default to the
 * best on average; bad input exits 2; the example app re-tunes only when its spec changed. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "header.h"
#include "proc.h"
#include "tests.h"

static char dir[64];

static int setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/autotune-header-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void)
{
	char *argv[] = {"rm", "-rf", dir, NULL}, *out = NULL;
	proc_capture(argv, 30, &out);
	free(out);
	return 0;
}

static char *at(const char *name) { return xasprintf("%s/%s", dir, name); }

#define COLS "bx,by,blockDim.x,time_ms_median,samples,flags,status,message,gpu,gpu_uuid,arch,nvcc_flags,spec_hash,tuned_at,config\n"

/* One row: parameters, time (0: failed), winner or not. */
static void row(FILE *f, int bx, const char *by, double t, int winner, const char *gpu, const char *spec)
{
	fprintf(f, "%d,%s,%d,%g,%d,%s,%s,,%s,GPU-1,sm_90,%s,%s,2026-01-02T03:04:05Z,\n", bx, by, bx, t, t > 0 ? 20 : 0,
		winner ? "cold;winner" : t > 0 ? "cold" : "", t > 0 ? "ok" : "wrong-result", gpu,
		bx == 128 ? "-maxrregcount=64" : "", spec);
}

/* Runs argv; returns the exit status (-1 when it did not exit), output in *out (caller frees). */
static int run(char **argv, char **out)
{
	*out = NULL;
	int st = proc_capture(argv, 300, out);
	if (!*out)
		*out = strdup("");
	return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Compiles prog (C or C++) with every warning an error, runs it and returns what it printed, or
 * NULL when it did not compile. */
static char *compile_and_run(const char *compiler, const char *src, const char *define)
{
	int cxx = strstr(compiler, "++") != NULL;
	char *prog = at(cxx ? "prog.cc" : "prog.c"), *exe = at("prog"), *inc = xasprintf("-I%s", dir);
	FILE *f = fopen(prog, "w");
	fputs(src, f);
	fclose(f);
	char *argv[] = {(char *)compiler, cxx ? "-std=c++11" : "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", inc,
			"-o", exe, prog, (char *)define, NULL};
	char *out, *result = NULL;
	int rc = run(argv, &out);
	if (rc != 0)
		fprintf(stderr, "\n%s did not compile %s (%s):\n%s\n", compiler, prog, define ? define : "", out);
	free(out);
	if (rc == 0) {
		char *eargv[] = {exe, NULL};
		if (run(eargv, &result) != 0) {
			free(result);
			result = NULL;
		}
	}
	unlink(exe);
	free(prog);
	free(exe);
	free(inc);
	return result;
}

static const char use_demo[] =
	"#include <stdio.h>\n#include \"demo_tuned.h\"\n#include \"demo_tuned.h\"\n"
	"int main(void) { printf(\"%d %g %s %s %s %d\\n\", DEMO_BX, DEMO_BY, DEMO_NVCC_FLAGS, DEMO_SPEC_HASH,\n"
	"  DEMO_TUNED_DEVICE, demo_tuned.bx + (int)(demo_tuned.by * 10) + (demo_tuned.time_ms > 0)); return 0; }\n";

static void test_one_csv_header_compiles_with_the_winner(void)
{
	char *csv = at("one.csv"), *h = at("demo_tuned.h"), *mk = at("demo.mk");
	FILE *f = fopen(csv, "w");
	fputs(COLS, f);
	/* a device name that would end the comment and break the line it is quoted in */
	row(f, 64, "0.5", 2.0, 0, "\"Evil */ GPU\nnext\"", "0123456789abcdef");
	row(f, 128, "0.25", 1.5, 1, "\"Evil */ GPU\nnext\"", "0123456789abcdef");
	row(f, 256, "0.5", 0, 0, "\"Evil */ GPU\nnext\"", "0123456789abcdef");
	fclose(f);
	diags d = {0};
	int rc = header_write(&csv, 1, "demo", h, &d);
	diags_print(&d);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	diags_free(&d);
	char *text = read_text(h), *mtext = read_text(mk);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mtext);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "#ifndef DEMO_TUNED_H\n#define DEMO_TUNED_H\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "#define DEMO_BX 128\n#define DEMO_BY 0.25\n#define DEMO_TIME_MS 1.500000\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "Device: Evil *_ GPU next (sm_90), tuned 2026-01-02T03:04:05Z."));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "2 of 3 configurations passed"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "Rewrite from the results: autotune header "));
	CU_ASSERT_PTR_NOT_NULL(strstr(mtext, "\nDEMO_BX := 128\nDEMO_BY := 0.25\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(mtext, "\nDEMO_NVCC_FLAGS := -maxrregcount=64\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(mtext, "\nDEMO_SPEC_HASH := 0123456789abcdef\n"));
	/* the device as the header names it, on one line of make */
	CU_ASSERT_PTR_NOT_NULL(strstr(mtext, "\nDEMO_TUNED_DEVICE := Evil *_ GPU next\nDEMO_TUNED_ARCH := sm_90\n"));
	/* by has a double's value: the struct says so, and the literal is a double */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\tint bx;\n\tdouble by;\n"));
	const char *want = "128 0.25 -maxrregcount=64 0123456789abcdef Evil */ GPU\nnext 131\n";
	char *c = compile_and_run("cc", use_demo, NULL);
	CU_ASSERT_PTR_NOT_NULL(c);
	if (c)
		CU_ASSERT_STRING_EQUAL(c, want);
	free(c);
	if (access("/usr/bin/g++", X_OK) == 0 || access("/usr/local/bin/g++", X_OK) == 0) {
		char *cc = compile_and_run("g++", use_demo, NULL);
		CU_ASSERT_PTR_NOT_NULL(cc);
		if (cc)
			CU_ASSERT_STRING_EQUAL(cc, want);
		free(cc);
	}
	/* a file that includes the header and never uses the struct: no unused-variable warning */
	char *quiet = compile_and_run("cc", "#include \"demo_tuned.h\"\nint main(void) { return 0; }\n", NULL);
	CU_ASSERT_PTR_NOT_NULL(quiet);
	free(quiet);
	free(text);
	free(mtext);
	free(csv);
	free(h);
	free(mk);
}

#define PLAN_COLS                                                                                             \
	"S,bx,blockDim.x,time_ms_median,samples,plan_streams,plan_order,plan_connections,serial_ms,concurrency,flags," \
	"status,message,gpu,gpu_uuid,arch,nvcc_flags,spec_hash,tuned_at,config\n"

/* A plan's results: its host-side choices become macros, make variables and members, what a
 * program needs to repeat the plan as tuned (CUDA_DEVICE_MAX_CONNECTIONS before any CUDA call). */
static void test_a_plans_choices_are_macros(void)
{
	char *csv = at("plan.csv"), *h = at("plan_tuned.h"), *mk = at("plan.mk");
	FILE *f = fopen(csv, "w");
	fputs(PLAN_COLS, f);
	fputs("4,32,32,2.5,10,4,depth-first,1,10,4.000,cold,ok,,G,U,sm_90,,0123456789abcdef,,\n", f);
	fputs("16,32,32,1.25,10,16,breadth-first,32,20,16.000,cold;winner,ok,,G,U,sm_90,,0123456789abcdef,,\n", f);
	fclose(f);
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(header_write(&csv, 1, "plan", h, &d), 0);
	char *text = read_text(h), *mtext = read_text(mk);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mtext);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "#define PLAN_PLAN_STREAMS 16\n#define PLAN_PLAN_ORDER \"breadth-first\"\n"
					    "#define PLAN_PLAN_BREADTH_FIRST 1\n#define PLAN_PLAN_CONNECTIONS 32\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(mtext, "\nPLAN_PLAN_STREAMS := 16\nPLAN_PLAN_ORDER := breadth-first\n"
					     "PLAN_PLAN_BREADTH_FIRST := 1\nPLAN_PLAN_CONNECTIONS := 32\n"));
	const char *use = "#include <stdio.h>\n#include <stdlib.h>\n#include \"plan_tuned.h\"\n"
			  "#define STR_(x) #x\n#define STR(x) STR_(x)\n"
			  "int main(void) {\n"
			  "  setenv(\"CUDA_DEVICE_MAX_CONNECTIONS\", STR(PLAN_PLAN_CONNECTIONS), 1);\n"
			  "  printf(\"%s %d %s %d %d\\n\", getenv(\"CUDA_DEVICE_MAX_CONNECTIONS\"), plan_tuned.plan_streams,\n"
			  "    plan_tuned.plan_order, plan_tuned.plan_breadth_first, plan_tuned.plan_connections + PLAN_S);\n"
			  "  return 0; }\n";
	char *c = compile_and_run("cc", use, "-D_POSIX_C_SOURCE=200809L");
	CU_ASSERT_PTR_NOT_NULL(c);
	if (c)
		CU_ASSERT_STRING_EQUAL(c, "32 16 breadth-first 1 48\n");
	free(c);
	free(text);
	free(mtext);
	/* values no plan can have are refused, not written into C */
	f = fopen(csv, "w");
	fputs(PLAN_COLS, f);
	fputs("16,32,32,1.25,10,16,sideways,32,20,16.000,cold;winner,ok,,G,U,sm_90,,0123456789abcdef,,\n", f);
	fclose(f);
	CU_ASSERT_EQUAL(header_write(&csv, 1, "plan", h, &d), EXIT_USAGE);
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "plan.csv: row 1: the plan's plan_streams '16', plan_order 'sideways' and "
						 "plan_connections '32' are not 1 to 1024 streams"));
	diags_free(&d);
	/* a parameter whose macro would be one of the plan's */
	f = fopen(csv, "w");
	fputs("plan_streams", f);
	fputs(PLAN_COLS + 1, f); /* the first parameter renamed */
	fputs("16,32,32,1.25,10,16,breadth-first,32,20,16.000,cold;winner,ok,,G,U,sm_90,,0123456789abcdef,,\n", f);
	fclose(f);
	CU_ASSERT_EQUAL(header_write(&csv, 1, "plan", h, &d), EXIT_USAGE);
	CU_ASSERT_PTR_NOT_NULL(d.n ? strstr(d.msgs[0], "parameter 'plan_streams' would define PLAN_PLAN_STREAMS") : NULL);
	diags_free(&d);
	free(csv);
	free(h);
	free(mk);
}

/* The extremes of a 64-bit parameter (and of an int) make literals that compile and keep their
 * values: INT64_MIN has no literal of its own. */
static void test_extreme_integers_compile(void)
{
	char *csv = at("ext.csv"), *h = at("ext_tuned.h");
	FILE *f = fopen(csv, "w");
	fputs("lo,hi,imin,blockDim.x,time_ms_median,samples,flags,status,message,gpu,gpu_uuid,arch,nvcc_flags,spec_hash,"
	      "tuned_at,config\n", f);
	fputs("-9223372036854775808,9223372036854775807,-2147483648,32,1.5,20,cold;winner,ok,,GPU,GPU-1,sm_90,,"
	      "0123456789abcdef,2026-01-02T03:04:05Z,\n", f);
	fclose(f);
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(header_write(&csv, 1, "ext", h, &d), 0);
	diags_free(&d);
	char *c = compile_and_run("cc",
				  "#include <stdio.h>\n#include <stdint.h>\n#include \"ext_tuned.h\"\n"
				  "int main(void) { printf(\"%d %d %d\\n\", EXT_LO == INT64_MIN, EXT_HI == INT64_MAX,\n"
				  "  EXT_IMIN == INT32_MIN); return 0; }\n",
				  NULL);
	CU_ASSERT_PTR_NOT_NULL(c);
	if (c)
		CU_ASSERT_STRING_EQUAL(c, "1 1 1\n");
	free(c);
	free(csv);
	free(h);
}

/* A string parameter's winner (a type, a kernel's name) is a macro that expands to the token, so
 * device code can use it as the type or name it is, and a string in the host struct; a value
 * that C cannot take as a token (a quote in it) is refused, naming the row. */
static void test_a_string_parameter_is_a_token_and_a_string(void)
{
	char *csv = at("tok.csv"), *h = at("tok_tuned.h");
	FILE *f = fopen(csv, "w");
	fputs("T,KERNEL,bx,blockDim.x,time_ms_median,samples,flags,status,message,gpu,gpu_uuid,arch,nvcc_flags,spec_hash,"
	      "tuned_at,config\n", f);
	fputs("unsigned int,copy_naive,64,64,1.5,20,cold;winner,ok,,GPU,GPU-1,sm_90,,0123456789abcdef,2026-01-02T03:04:05Z,\n",
	      f);
	fclose(f);
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(header_write(&csv, 1, "tok", h, &d), 0);
	diags_free(&d);
	char *c = compile_and_run("cc",
				  "#include <stdio.h>\n#include <string.h>\n#include \"tok_tuned.h\"\n"
				  "static TOK_T as_type = 7u;\nstatic int copy_naive(void) { return 3; }\n"
				  "int main(void) { printf(\"%u %d %s %s %d\\n\", as_type, TOK_KERNEL(), tok_tuned.t, tok_tuned.kernel,\n"
				  "  tok_tuned.bx); return 0; }\n",
				  NULL);
	CU_ASSERT_PTR_NOT_NULL(c);
	if (c)
		CU_ASSERT_STRING_EQUAL(c, "7 3 unsigned int copy_naive 64\n");
	free(c);
	f = fopen(csv, "w");
	fputs("T,blockDim.x,time_ms_median,samples,flags,status,message,gpu,gpu_uuid,arch,nvcc_flags,spec_hash,tuned_at,config\n"
	      "a\"b,64,1.5,20,cold;winner,ok,,GPU,GPU-1,sm_90,,0123456789abcdef,2026-01-02T03:04:05Z,\n", f);
	fclose(f);
	CU_ASSERT_NOT_EQUAL(header_write(&csv, 1, "tok", h, &d), 0);
	CU_ASSERT(d.n && strstr(d.msgs[0], "row 1: parameter T is 'a\"b', not a number, nor a type or name C can take"));
	diags_free(&d);
	free(csv);
	free(h);
}

/* Four configurations on two GPUs. A: c4 fastest (0.9), B: c4 fails and c3 is fastest; on
 * average (geometric mean of time / fastest) c2 wins although it is best on neither. */
static const int cfg_bx[4] = {32, 64, 128, 256};
static const char *const cfg_by[4] = {"0.5", "1.5", "2.5", "3.5"};
static const double time_a[4] = {1.0, 1.1, 2.0, 0.9}, time_b[4] = {2.0, 1.1, 1.0, 0};

static void write_device(const char *path, const char *gpu, const double *t, const char *spec, int winner)
{
	FILE *f = fopen(path, "w");
	fputs(COLS, f);
	for (int c = 0; c < 4; c++)
		row(f, cfg_bx[c], cfg_by[c], t[c], c == winner, gpu, spec);
	fclose(f);
}

static void test_merged_header_selects_by_target_and_defaults_to_best_on_average(void)
{
	/* the expectation, computed here from the data */
	double best_a = INFINITY, best_b = INFINITY, best_score = INFINITY;
	int expect_default = -1;
	for (int c = 0; c < 4; c++) {
		best_a = time_a[c] > 0 && time_a[c] < best_a ? time_a[c] : best_a;
		best_b = time_b[c] > 0 && time_b[c] < best_b ? time_b[c] : best_b;
	}
	for (int c = 0; c < 4; c++)
		if (time_a[c] > 0 && time_b[c] > 0 && sqrt(time_a[c] / best_a * time_b[c] / best_b) < best_score) {
			best_score = sqrt(time_a[c] / best_a * time_b[c] / best_b);
			expect_default = c;
		}
	CU_ASSERT_EQUAL_FATAL(expect_default, 1);

	char *a = at("a.csv"), *b = at("b.csv"), *h = at("demo_tuned.h"), *mk = at("demo.mk");
	write_device(a, "Test GPU-A (80GB)", time_a, "0123456789abcdef", 3);
	write_device(b, "test gpu b", time_b, "0123456789abcdef", 2);
	char *csvs[] = {a, b};
	diags d = {0};
	int rc = header_write(csvs, 2, "demo", h, &d);
	diags_print(&d);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	diags_free(&d);
	struct {
		const char *define;
		int c;
		const char *device;
	} cases[] = {
		{"-DAUTOTUNE_TARGET_TEST_GPU_A_80GB", 3, "Test GPU-A (80GB)"},
		{"-DAUTOTUNE_TARGET_TEST_GPU_B", 2, "test gpu b"},
		{NULL, expect_default, "default"},
	};
	for (int k = 0; k < 3; k++) {
		char *got = compile_and_run("cc", use_demo, cases[k].define);
		char *want = xasprintf("%d %s %s 0123456789abcdef %s %d\n", cfg_bx[cases[k].c], cfg_by[cases[k].c],
				       cfg_bx[cases[k].c] == 128 ? "-maxrregcount=64" : "", cases[k].device,
				       cfg_bx[cases[k].c] + (int)(atof(cfg_by[cases[k].c]) * 10) + 1);
		CU_ASSERT_PTR_NOT_NULL(got);
		if (got)
			CU_ASSERT_STRING_EQUAL(got, want);
		free(got);
		free(want);
	}
	/* two targets at once is refused rather than silently resolved */
	char *prog = at("two.c"), *inc = xasprintf("-I%s", dir), *obj = at("two.o");
	FILE *f = fopen(prog, "w");
	fputs("#include \"demo_tuned.h\"\nint two(void) { return DEMO_BX; }\n", f);
	fclose(f);
	char *argv[] = {"cc", "-c", inc, "-DAUTOTUNE_TARGET_TEST_GPU_A_80GB", "-DAUTOTUNE_TARGET_TEST_GPU_B", "-o", obj, prog, NULL};
	char *out;
	CU_ASSERT_NOT_EQUAL(run(argv, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "define at most one AUTOTUNE_TARGET_ macro"));
	free(out);
	/* the fragment: the default first, each target's values under its ifeq */
	char *m = read_text(mk);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "DEMO_TARGETS := TEST_GPU_A_80GB TEST_GPU_B\nDEMO_BX := 64\nDEMO_BY := 1.5\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "ifeq ($(AUTOTUNE_TARGET),TEST_GPU_A_80GB)\nDEMO_BX := 256\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "ifeq ($(AUTOTUNE_TARGET),TEST_GPU_B)\nDEMO_BX := 128\n"));
	free(m);
	free(prog);
	free(inc);
	free(obj);
	free(a);
	free(b);
	free(h);
	free(mk);
}

static void test_mismatched_results_exit_2_naming_the_files(void)
{
	char *a = at("a.csv"), *b = at("b.csv"), *h = at("x_tuned.h"), *out;
	write_device(a, "GPU A", time_a, "0123456789abcdef", 3);
	/* other parameters */
	FILE *f = fopen(b, "w");
	fputs("tile,blockDim.x,time_ms_median,samples,flags,status,gpu,spec_hash\n8,8,1,20,cold;winner,ok,GPU B,0123456789abcdef\n", f);
	fclose(f);
	char *argv[] = {"./autotune", "header", a, b, "-o", h, NULL};
	CU_ASSERT_EQUAL(run(argv, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, a));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, b));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "different configs"));
	free(out);
	/* another spec */
	write_device(b, "GPU B", time_b, "fedcba9876543210", 2);
	CU_ASSERT_EQUAL(run(argv, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "different versions of the config or kernel"));
	free(out);
	/* the same GPU model twice */
	write_device(b, "GPU  A", time_b, "0123456789abcdef", 2);
	CU_ASSERT_EQUAL(run(argv, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "both measured"));
	free(out);
	/* nothing written by any of them */
	CU_ASSERT_NOT_EQUAL(access(h, F_OK), 0);
	/* a winner whose parameter is not a number never reaches the header */
	f = fopen(a, "w");
	fputs(COLS "1);int x(,1,1,1,20,cold;winner,ok,,GPU A,,sm_90,,,,\n", f);
	fclose(f);
	char *one[] = {"./autotune", "header", a, "-o", h, NULL};
	CU_ASSERT_EQUAL(run(one, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "not a number"));
	free(out);
	/* a dry run's results have no winner: exit 1, nothing written */
	f = fopen(a, "w");
	fputs(COLS "32,1,32,,,,not-run,,,,sm_90,,0123456789abcdef,,configs/summatrix.yaml\n", f);
	fclose(f);
	CU_ASSERT_EQUAL(run(one, &out), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "no configuration passed"));
	free(out);
	CU_ASSERT_NOT_EQUAL(access(h, F_OK), 0);
	free(a);
	free(b);
	free(h);
}

/* Older results (no winner flag, no gpu or config columns): named after -o, the winner chosen
 * again, and it is one of the rows that passed. */
static void test_older_results_take_their_name_from_the_output(void)
{
	char *h = at("summatrix_tuned.h"), *out;
	char *argv[] = {"./autotune", "header", "tests/data/summatrix_h100.csv", "-o", h, NULL};
	CU_ASSERT_EQUAL_FATAL(run(argv, &out), 0);
	free(out);
	char *text = read_text(h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	int bx = -1, by = -1, mr = -1;
	const char *p = strstr(text, "#define SUMMATRIX_BLOCK_X ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(sscanf(p, "#define SUMMATRIX_BLOCK_X %d\n#define SUMMATRIX_BLOCK_Y %d\n#define SUMMATRIX_MAXRREG %d", &bx,
			       &by, &mr), 3);
	char *csv = read_text("tests/data/summatrix_h100.csv");
	CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
	char *start = xasprintf("\n%d,%d,%d,", bx, by, mr);
	const char *r = strstr(csv, start);
	CU_ASSERT_PTR_NOT_NULL(r);
	if (r) {
		const char *eol = strchr(r + 1, '\n');
		while (eol && eol > r && eol[-1] == '\r')
			eol--;
		/* status is the last column but one, the message empty */
		CU_ASSERT(eol && eol - r > 4 && !strncmp(eol - 4, ",ok,", 4));
	}
	free(start);
	free(csv);
	free(text);
	free(h);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

/* A one-kernel config and its source, as NAME.yaml and NAME.cu; the block size's expression given. */
static void small_config(const char *cfg, const char *src, const char *name, const char *block)
{
	char text[512];
	put(src, "extern \"C\" __global__ void k(float *a) { a[0] = 1; }\n");
	snprintf(text, sizeof text,
		 "name: %s\nkernel: {source: %s, entry: k}\narguments: [{name: a, type: float, count: 4, output: true}]\n"
		 "launch: {block: [%s], grid: [1]}\nspace: {bx: [32, 64]}\n", name, strrchr(src, '/') + 1, block);
	put(cfg, text);
}

/* The hash a build compares with: the same as a tuning run records, and it follows the kernel. */
static void test_print_spec_hash_follows_the_kernel(void)
{
	char *cfg = at("s.yaml"), *src = at("s.cu"), *out, *out2;
	small_config(cfg, src, "s", "bx");
	char *argv[] = {"./autotune", "validate", "--print-spec-hash", cfg, NULL};
	CU_ASSERT_EQUAL(run(argv, &out), 0);
	CU_ASSERT_EQUAL(strlen(out), 17);
	CU_ASSERT_EQUAL(strspn(out, "0123456789abcdef"), 16);
	FILE *f = fopen(src, "a");
	fputs("// edited\n", f);
	fclose(f);
	CU_ASSERT_EQUAL(run(argv, &out2), 0);
	CU_ASSERT_STRING_NOT_EQUAL(out, out2);
	free(out);
	free(out2);
	char *bad[] = {"./autotune", "--print-spec-hash", cfg, NULL};
	CU_ASSERT_EQUAL(run(bad, &out), 2);
	free(out);
	/* several configs: one line each, named, and each line's hash is that config's alone */
	char *two[] = {"./autotune", "validate", "--print-spec-hash", cfg, "configs/summatrix.yaml", NULL};
	char *alone[] = {"./autotune", "validate", "--print-spec-hash", "configs/summatrix.yaml", NULL};
	CU_ASSERT_EQUAL(run(argv, &out), 0);
	CU_ASSERT_EQUAL(run(alone, &out2), 0);
	char *both, want[512];
	CU_ASSERT_EQUAL(run(two, &both), 0);
	snprintf(want, sizeof want, "%.16s  %s\n%.16s  configs/summatrix.yaml\n", out, cfg, out2);
	CU_ASSERT_STRING_EQUAL(both, want);
	free(both);
	free(out);
	free(out2);
	free(cfg);
	free(src);
}

/* What a build counts its variant slots from: one line per instance, its constants; none without
 * instances; with several configs each line names its config. */
static void test_print_instances_lists_the_problems(void)
{
	char *cfg = at("i.yaml"), *plain = at("p.yaml"), *src = at("i.cu"), *out;
	small_config(plain, src, "p", "bx");
	put(cfg, "name: i\nkernel: {source: i.cu, entry: k}\nconstants: {n: 4, m: 2}\ninstances: {n: [4, 8], m: [2, 3]}\n"
		 "arguments: [{name: a, type: float, count: n * m, output: true}]\n"
		 "launch: {block: [bx], grid: [1]}\nspace: {bx: [32, 64]}\n");
	char *argv[] = {"./autotune", "validate", "--print-instances", cfg, NULL};
	CU_ASSERT_EQUAL(run(argv, &out), 0);
	CU_ASSERT_STRING_EQUAL(out, "n=4 m=2\nn=4 m=3\nn=8 m=2\nn=8 m=3\n");
	free(out);
	char *none[] = {"./autotune", "validate", "--print-instances", plain, NULL};
	CU_ASSERT_EQUAL(run(none, &out), 0);
	CU_ASSERT_STRING_EQUAL(out, "");
	free(out);
	char *two[] = {"./autotune", "validate", "--print-instances", plain, cfg, NULL}, want[1024];
	CU_ASSERT_EQUAL(run(two, &out), 0);
	snprintf(want, sizeof want, "n=4 m=2  %s\nn=4 m=3  %s\nn=8 m=2  %s\nn=8 m=3  %s\n", cfg, cfg, cfg, cfg);
	CU_ASSERT_STRING_EQUAL(out, want);
	free(out);
	/* one thing printed at a time: both asked is a usage error */
	char *both[] = {"./autotune", "validate", "--print-instances", "--print-spec-hash", cfg, NULL};
	CU_ASSERT_EQUAL(run(both, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "give one"));
	free(out);
	free(cfg);
	free(plain);
	free(src);
}

/* A results file whose config is at PROJ/CFG, the path recorded as CFG, lying at PROJ/CSV: the
 * header is named after the config's name: (not its file name), with no note that it did not load. */
static void config_found_from(const char *proj, const char *cfg, const char *csv)
{
	char *root = at(proj), *cfg_at = xasprintf("%s/%s", root, cfg), *csv_at = xasprintf("%s/%s", root, csv);
	char *h = at("found_tuned.h"), *cmd = xasprintf("mkdir -p \"$(dirname '%s')\" \"$(dirname '%s')\"", cfg_at, csv_at);
	char *mk[] = {"sh", "-c", cmd, NULL}, *out;
	CU_ASSERT_EQUAL_FATAL(run(mk, &out), 0);
	free(out);
	char *src = xasprintf("%s.cu", cfg_at);
	small_config(cfg_at, src, "renamed", "bx");
	FILE *f = fopen(csv_at, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("bx,blockDim.x,time_ms_median,samples,flags,status,message,gpu,gpu_uuid,arch,nvcc_flags,spec_hash,tuned_at,"
	      "config\n", f);
	fprintf(f, "32,32,1.5,20,cold;winner,ok,,G,GPU-1,sm_90,,0123456789abcdef,2026-01-02T03:04:05Z,%s\n", cfg);
	fprintf(f, "64,64,2.5,20,cold,ok,,G,GPU-1,sm_90,,0123456789abcdef,2026-01-02T03:04:05Z,%s\n", cfg);
	fclose(f);
	unlink(h);
	char *argv[] = {"./autotune", "header", csv_at, "-o", h, NULL};
	CU_ASSERT_EQUAL(run(argv, &out), 0);
	CU_ASSERT_PTR_NULL(strstr(out, "cannot load"));
	char *text = read_text(h);
	CU_ASSERT_PTR_NOT_NULL(text);
	CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "#define RENAMED_BX 32\n"));
	free(text);
	free(out);
	free(src);
	free(cmd);
	free(h);
	free(csv_at);
	free(cfg_at);
	free(root);
}

/* A relative config path in the results is relative to where autotune ran, not to where the
 * header is made: it is found above the CSV (a sample copied deeper, as the CMake example
 * builds from) and beside it; one found nowhere is a note naming the recorded path. */
static void test_a_relative_config_is_found_from_the_results(void)
{
	config_found_from("proj", "configs/p.yaml", "results/p.csv");
	config_found_from("deep", "configs/p.yaml", "examples/app/sample/p.csv");
	config_found_from("beside", "q.yaml", "results/q.csv");
	char *csv = at("gone.csv"), *h = at("gone_tuned.h"), *out;
	FILE *f = fopen(csv, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("bx,blockDim.x,time_ms_median,samples,flags,status,message,spec_hash,config\n"
	      "32,32,1.5,20,cold;winner,ok,,0123456789abcdef,configs/nowhere_at_all.yaml\n", f);
	fclose(f);
	char *argv[] = {"./autotune", "header", csv, "-o", h, NULL};
	CU_ASSERT_EQUAL(run(argv, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "note: cannot load configs/nowhere_at_all.yaml: the macros are named after "
					 "its file name (nowhere_at_all)"));
	free(out);
	free(h);
	free(csv);
}

/* validate takes several configs, checks every one, and exits with the worst status. */
static void test_validate_checks_every_config_given(void)
{
	char *cfg = at("v.yaml"), *broken = at("v_broken.yaml"), *src = at("v.cu"), *out;
	small_config(broken, src, "vb", "by"); /* an unknown name in the block */
	small_config(cfg, src, "v", "bx");
	char *argv[] = {"./autotune", "validate", cfg, broken, "configs/transpose.yaml", NULL};
	CU_ASSERT_EQUAL(run(argv, &out), 2);
	char ok[256];
	/* one binary: the block size is launch-only */
	snprintf(ok, sizeof ok, "%s: ok: 2 valid configurations of 2 combinations, 1 distinct binary\n", cfg);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, ok));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "v_broken.yaml:4:18: unknown name 'by'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "configs/transpose.yaml: ok: "));
	free(out);
	char *good[] = {"./autotune", "validate", cfg, "configs/transpose.yaml", NULL};
	CU_ASSERT_EQUAL(run(good, &out), 0);
	free(out);
	free(cfg);
	free(broken);
	free(src);
}

/* The example app's make rules: its tuned header is up to date until the kernel changes, and then
 * make would run autotune. A copy of the spec stands in for the repository's, so the test touches
 * nothing of it. */
static void test_example_app_retunes_only_after_the_kernel_changes(void)
{
	char *root = at("root"), *configs = at("root/configs"), *kernels = at("root/kernels"), *results = at("root/results");
	CU_ASSERT_EQUAL_FATAL(mkdir(root, 0777) | mkdir(configs, 0777) | mkdir(kernels, 0777) | mkdir(results, 0777), 0);
	char *cp[] = {"cp", "configs/summatrix.yaml", configs, NULL}, *cp2[] = {"cp", "kernels/summatrix.cu", kernels, NULL};
	char *cp3[] = {"cp", "examples/summatrix_app/sample/summatrix_tuned.h", "examples/summatrix_app/sample/summatrix.mk",
		       results, NULL};
	char *out;
	CU_ASSERT_EQUAL(run(cp, &out), 0);
	free(out);
	CU_ASSERT_EQUAL(run(cp2, &out), 0);
	free(out);
	sleep(1); /* the tuned files newer than the spec, as after a tuning run, on any file system */
	CU_ASSERT_EQUAL(run(cp3, &out), 0);
	free(out);
	char *rootvar = xasprintf("ROOT=%s", root), *cwd = getcwd(NULL, 0), *autotune = xasprintf("AUTOTUNE=%s/autotune", cwd);
	char *q[] = {"make", "-q", "-C", "examples/summatrix_app", rootvar, autotune, "tuned", NULL};
	char *n[] = {"make", "-n", "-C", "examples/summatrix_app", rootvar, autotune, "tuned", NULL};
	CU_ASSERT_EQUAL(run(q, &out), 0);
	free(out);
	CU_ASSERT_EQUAL(run(n, &out), 0);
	CU_ASSERT_PTR_NULL(strstr(out, "configs/summatrix.yaml"));
	free(out);
	sleep(1);
	char *kernel = at("root/kernels/summatrix.cu");
	char *touch[] = {"touch", kernel, NULL};
	CU_ASSERT_EQUAL(run(touch, &out), 0);
	free(out);
	CU_ASSERT_EQUAL(run(q, &out), 1);
	free(out);
	CU_ASSERT_EQUAL(run(n, &out), 0);
	char *recipe = xasprintf("%s configs/summatrix.yaml", autotune + strlen("AUTOTUNE="));
	if (!strstr(out, recipe))
		fprintf(stderr, "\nmake -n printed:\n%s\n", out);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, recipe));
	free(out);
	free(recipe);
	free(kernel);
	free(rootvar);
	free(cwd);
	free(autotune);
	free(root);
	free(configs);
	free(kernels);
	free(results);
}

/* A name the macros cannot begin with (from -o) is an error that names the fix, not a crash, and
 * writes nothing. */
static void test_a_name_that_cannot_begin_macros_is_refused(void)
{
	char out_path[256];
	snprintf(out_path, sizeof out_path, "%s/2d_tuned.h", test_dir);
	unlink(out_path);
	char *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){"header", "tests/data/summatrix_h100.csv", "-o", out_path, NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "the name '2d' does not start a C identifier: give -o NAME_tuned.h"));
	CU_ASSERT_EQUAL(access(out_path, F_OK), -1);
	free(out);
}

/* `autotune header` long after an interrupted run: the CSV's run column makes the header and
 * fragment say so, and examples/summatrix_app's Makefile warns about it, or refuses it with
 * REQUIRE_COMPLETE=1. */
static void test_an_incomplete_run_is_warned_about_or_refused(void)
{
	char *part = at("part"), *csv = at("part/interrupted.csv"), *header = at("part/summatrix_tuned.h");
	mkdir(part, 0777);
	put_file(csv, "bx,blockDim.x,time_ms_median,samples,flags,status,run\n32,32,1.5,10,cold;winner,ok,interrupted\n"
		      "64,64,,,,not-run,interrupted\n");
	char *out;
	CU_ASSERT_EQUAL(run((char *[]){"./autotune", "header", csv, "-o", header, NULL}, &out), 0);
	free(out);
	char *text = slurp(header);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "#define SUMMATRIX_COMPLETE 0\n#define SUMMATRIX_RUN \"interrupted\"\n"
					    "#define SUMMATRIX_MEASURED 1\n#define SUMMATRIX_CONFIGURATIONS 2\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "1 of 2 configurations measured, interrupted: resume with the same command"));
	free(text);
	char *tuned = xasprintf("TUNED=%s", part);
	char *warn = xasprintf("warning: %s is of an incomplete run (interrupted: 1 of 2 configurations measured)", header);
	CU_ASSERT_EQUAL(run((char *[]){"make", "-s", "-C", "examples/summatrix_app", tuned, "check-complete", NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, warn));
	free(out);
	CU_ASSERT_NOT_EQUAL(run((char *[]){"make", "-s", "-C", "examples/summatrix_app", tuned, "REQUIRE_COMPLETE=1",
					    "check-complete", NULL},
				&out),
			    0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "REQUIRE_COMPLETE refuses it"));
	free(out);
	/* the sample, a complete run's, passes either way */
	CU_ASSERT_EQUAL(run((char *[]){"make", "-s", "-C", "examples/summatrix_app", "TUNED=sample", "REQUIRE_COMPLETE=1",
					"check-complete", NULL},
				&out),
			0);
	free(out);
	free(warn);
	free(tuned);
	free(part);
	free(csv);
	free(header);
}

int add_header_suite(void)
{
	CU_pSuite s = CU_add_suite("header", setup, teardown);
	if (!s)
		return -1;
	CU_add_test(s, "one CSV: the header compiles (C, C++) with the winner", test_one_csv_header_compiles_with_the_winner);
	CU_add_test(s, "an incomplete run is warned about or refused", test_an_incomplete_run_is_warned_about_or_refused);
	CU_add_test(s, "extreme integers compile", test_extreme_integers_compile);
	CU_add_test(s, "a string parameter is a token and a string", test_a_string_parameter_is_a_token_and_a_string);
	CU_add_test(s, "a plan's choices are macros", test_a_plans_choices_are_macros);
	CU_add_test(s, "merged: each target its winner, none the best on average",
		    test_merged_header_selects_by_target_and_defaults_to_best_on_average);
	CU_add_test(s, "mismatched results exit 2 naming the files", test_mismatched_results_exit_2_naming_the_files);
	CU_add_test(s, "older results are named after -o", test_older_results_take_their_name_from_the_output);
	CU_add_test(s, "--print-spec-hash follows the kernel", test_print_spec_hash_follows_the_kernel);
	CU_add_test(s, "--print-instances lists the problems", test_print_instances_lists_the_problems);
	CU_add_test(s, "validate checks every config given", test_validate_checks_every_config_given);
	CU_add_test(s, "a name that cannot begin macros is refused", test_a_name_that_cannot_begin_macros_is_refused);
	CU_add_test(s, "a relative config is found from the results", test_a_relative_config_is_found_from_the_results);
	CU_add_test(s, "the example app re-tunes only after the kernel changes",
		    test_example_app_retunes_only_after_the_kernel_changes);
	return 0;
}
