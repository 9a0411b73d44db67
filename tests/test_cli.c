/* test_cli.c: the autotune binary end to end without a GPU: exit codes, messages, and a dry run
 * of configs/summatrix.yaml with the real nvcc. Run from the repository root after `make`. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "tests.h"

/* Runs ./autotune with args; returns the exit status and all output (stdout + stderr). */
static int run(char *const args[], char **output)
{
	char *argv[16] = {"./autotune"};
	int n = 1;
	for (; args[n - 1] && n < 15; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	int st = proc_capture(argv, 120, output);
	if (!*output)
		*output = strdup("");
	return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_help_goes_to_stdout_with_status_0(void)
{
	char *out;
	CU_ASSERT_EQUAL(run((char *[]){"--help", NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "usage: autotune"));
	free(out);
}

static void test_usage_errors_exit_2(void)
{
	char *out;
	CU_ASSERT_EQUAL(run((char *[]){NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "no config file given"));
	free(out);
	CU_ASSERT_EQUAL(run((char *[]){"--jobs", "zero", "x.yaml", NULL}, &out), 2);
	free(out);
}

/* The three acceptance cases: a typo'd key, a bad expression, a syntax error. Each prints
 * exactly file:line:col: message lines and exits 2. */
static void test_config_errors_exit_2_with_positions(void)
{
	const char *base = "kernel: {source: /dev/null, entry: k}\narguments: [{name: a, type: float, count: 4}]\n"
			   "space: {x: [1]}\n";
	struct {
		const char *tail, *want;
	} cases[] = {
		{"launch: {blcok: [x], grid: [1]}\n", ":4:10: unknown key 'blcok' in 'launch'; did you mean 'block'?"},
		{"launch: {block: [x], grid: [\"x +* 2\"]}\n", ":4:33: launch grid: "},
		{"launch: {block: [x], grid: [1]\n", ":5:1: YAML syntax error: "},
	};
	for (size_t i = 0; i < 3; i++) {
		char text[1024];
		snprintf(text, sizeof text, "%s%s", base, cases[i].tail);
		const char *path = write_temp(7, "e.yaml", text);
		char *out;
		CU_ASSERT_EQUAL(run((char *[]){"--dry-run", "--arch", "sm_90", (char *)path, NULL}, &out), 2);
		char want[512];
		snprintf(want, sizeof want, "%s%s", path, cases[i].want);
		if (!strstr(out, want))
			fprintf(stderr, "\n  got: %s  want: %s\n", out, want);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
		/* every line is a positioned message: no stack dumps, no stray noise */
		for (char *line = out; *line;) {
			char *eol = strchr(line, '\n');
			CU_ASSERT(!strncmp(line, path, strlen(path)));
			line = eol ? eol + 1 : line + strlen(line);
		}
		free(out);
		unlink(path);
	}
}

static int count_lines(const char *path, int *ok_rows, int *not_run, int *with_regs)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char line[4096];
	int n = 0;
	*ok_rows = *not_run = *with_regs = 0;
	while (fgets(line, sizeof line, f)) {
		n++;
		if (n == 1)
			continue;
		*not_run += strstr(line, ",not-run,") != NULL;
		/* registers is the 11th column of summatrix's CSV (3 parameters first) */
		char *p = line;
		for (int c = 0; c < 10 && p; c++)
			p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
		*with_regs += p && *p >= '1' && *p <= '9';
	}
	fclose(f);
	return n;
}

static void test_dry_run_of_summatrix_with_real_nvcc(void)
{
	char *out;
	unlink("results/summatrix.csv");
	int rc = run((char *[]){"--dry-run", "--arch", "sm_90", "configs/summatrix.yaml", NULL}, &out);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "153 valid configurations (of 363 combinations); 3 binaries built"));
	/* the per-configuration table names registers and occupancy */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "block_x=256 block_y=1 maxrreg=0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "100.0%"));
	free(out);
	int ok, not_run, with_regs;
	CU_ASSERT_EQUAL(count_lines("results/summatrix.csv", &ok, &not_run, &with_regs), 154);
	CU_ASSERT_EQUAL(not_run, 153);
	CU_ASSERT_EQUAL(with_regs, 153);
	/* a dry run measures nothing, so it leaves no tuned header behind it */
}

/* A worker that fails as it does on a machine without the driver: the dynamic loader names the
 * missing library on stderr and exits 127. */
static const char *no_driver_worker(void)
{
	static char path[160];
	snprintf(path, sizeof path, "%s/autotune-worker", test_dir);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "#!/bin/sh\necho \"$0: error while loading shared libraries: libcuda.so.1: cannot open shared "
		   "object file: No such file or directory\" >&2\nexit 127\n");
	fclose(f);
	chmod(path, 0755);
	return path;
}

/* Without a GPU, one message says what to do first and quotes why no GPU answered; the loader's
 * own line is not printed raw, and no worker log of it is left in results/. */
static void test_dry_run_without_gpu_or_arch_is_a_clear_error(void)
{
	char *out;
	unlink("results/summatrix.worker.log");
	setenv("AUTOTUNE_WORKER", no_driver_worker(), 1);
	int rc = run((char *[]){"--dry-run", "configs/summatrix.yaml", NULL}, &out);
	unsetenv("AUTOTUNE_WORKER");
	CU_ASSERT_EQUAL(rc, 2);
	CU_ASSERT_EQUAL(strncmp(out, "autotune: a dry run with no GPU needs a target: give --arch sm_90", 65), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "libcuda.so.1: cannot open"));
	CU_ASSERT_PTR_NULL(strstr(out, "autotune-worker: error while loading"));
	CU_ASSERT_PTR_NULL(strchr(out, '\n') ? strchr(strchr(out, '\n') + 1, '\n') : NULL); /* one line */
	CU_ASSERT_NOT_EQUAL(access("results/summatrix.worker.log", F_OK), 0);
	free(out);
}

static void test_real_run_without_gpu_exits_2(void)
{
	char *out;
	unlink("results/summatrix.worker.log");
	setenv("AUTOTUNE_WORKER", no_driver_worker(), 1);
	int rc = run((char *[]){"configs/summatrix.yaml", NULL}, &out);
	unsetenv("AUTOTUNE_WORKER");
	CU_ASSERT_EQUAL(rc, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "libcuda.so.1: cannot open"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "--dry-run --arch sm_90"));
	CU_ASSERT_NOT_EQUAL(access("results/summatrix.worker.log", F_OK), 0);
	free(out);
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
		CU_ASSERT_EQUAL(run((char *[]){"validate", (char *)path, NULL}, &out), 0);
		snprintf(want, sizeof want, "%s:3:55: warning: 'acc' is an output with a fill of its own", path);
		if (i < 2) {
			CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
		} else {
			CU_ASSERT_PTR_NULL(strstr(out, "warning"));
		}
		free(out);
	}
}

/* A compile error in some configurations marks them and the run goes on. */
/* A config NAME over a kernel of the given text (in slot 0, its config in slot 1) with the given
 * space and defines; its CSV's path in csv (under the test directory). Returns the config's path. */
static const char *defines_config(const char *name, const char *kernel_text, const char *space, const char *defines,
				  char *csv, size_t csvlen)
{
	char file[64], text[1024];
	snprintf(file, sizeof file, "%s.cu", name);
	const char *kernel = write_temp(0, file, kernel_text);
	snprintf(csv, csvlen, "%s/%s.csv", test_dir, name);
	snprintf(text, sizeof text,
		 "name: %s\nkernel: {source: %s, entry: k}\narguments: [{name: a, type: float, count: 1024, output: true}]\n"
		 "space: %s\nlaunch: {block: [bx], grid: [1]}\nbuild: {defines: %s}\noutput: {csv: %s}\n",
		 name, kernel, space, defines, csv);
	snprintf(file, sizeof file, "%s.yaml", name);
	return write_temp(1, file, text);
}

static void test_compile_error_marks_configurations_and_continues(void)
{
	char csv[128];
	const char *path = defines_config("cerr", "#if V == 2\n#error V=2 is not supported\n#endif\n"
						  "extern \"C\" __global__ void k(float *a) { a[threadIdx.x] = V; }\n",
					  "{V: [1, 2, 3], bx: [32, 64]}", "[V]", csv, sizeof csv);
	char *out;
	CU_ASSERT_EQUAL(run((char *[]){"--dry-run", "--arch", "sm_90", (char *)path, NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "6 valid configurations"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "3 binaries built"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "(1 failed;"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "V=2 is not supported"));
	free(out);
	FILE *f = fopen(csv, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	char line[4096];
	int errors = 0, not_run = 0;
	while (fgets(line, sizeof line, f)) {
		errors += strstr(line, ",compile-error,") != NULL;
		not_run += strstr(line, ",not-run,") != NULL;
	}
	fclose(f);
	CU_ASSERT_EQUAL(errors, 2);
	CU_ASSERT_EQUAL(not_run, 4);
	/* the CSV keeps nvcc's words, not its command line (which would fill the message's room) */
	char *text = read_text(csv);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "V=2 is not supported"));
	CU_ASSERT_PTR_NULL(strstr(text, "\n$ "));
	free(text);
	/* nothing compiles: the dry run fails as a run in which nothing passed, its CSV still written */
	write_temp(0, "cerr.cu", "#error no variant builds\nextern \"C\" __global__ void k(float *a) { a[threadIdx.x] = V; }\n");
	unlink(csv);
	CU_ASSERT_EQUAL(run((char *[]){"--dry-run", "--arch", "sm_90", (char *)path, NULL}, &out), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "(3 failed;"));
	free(out);
	CU_ASSERT_EQUAL(access(csv, F_OK), 0);
	unlink(csv);
	unlink(path);
}

/* Binaries that fail alike are told once, and a compile-time value that never builds is named as
 * the cause, whatever else varies. */
static void test_compile_errors_are_told_once_by_cause(void)
{
	char csv[128];
	const char *path = defines_config("ce", "#if V % 2 == 0\n#error V must be odd, got V\n#endif\n"
						"extern \"C\" __global__ void k(float *a) { a[threadIdx.x] = V * W; }\n",
					  "{V: [1, 2, 3, 4, 5, 6], W: [1, 2], bx: [32, 64]}", "[V, W]", csv, sizeof csv);
	char *out;
	CU_ASSERT_EQUAL(run((char *[]){"--dry-run", "--arch", "sm_90", "--no-cache", (char *)path, NULL}, &out), 0);
	/* 12 binaries, 6 fail alike: one log */
	const char *first = strstr(out, "compile-error for ");
	CU_ASSERT_PTR_NOT_NULL(first);
	CU_ASSERT_PTR_NULL(first ? strstr(first + 1, "compile-error for ") : NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "compile-error for V=2 W=1 bx=32 and 5 more binaries alike:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "every binary with V = 2, 4 or 6 failed to compile (6 of the 6 that failed)"));
	CU_ASSERT_PTR_NULL(strstr(out, "every binary with W"));
	free(out);
	unlink(csv);
	unlink(path);
}

/* Option values are checked before anything slow starts, and in a dry run too, where they were
 * ignored: a run with a worker that cannot start (/bin/false) names the option, not the GPU. */
static void test_option_values_are_checked_first(void)
{
	struct {
		const char *opt, *value, *want;
	} cases[] = {
		{"--strategy", "nope", "unknown strategy 'nope'"},
		{"--budget", "0.5", "a budget is evaluations (N), a fraction of the space (N%) or seconds (Ns), not '0.5'"},
		{"--budget", "1e400", "not '1e400'"},
		{"--budget", "inf", "not 'inf'"},
		{"--devices", "0,,1", "--devices takes GPU numbers separated by commas (0,1), not '0,,1'"},
		{"--devices", "1,1", "--devices names GPU 1 twice"},
	};
	setenv("AUTOTUNE_WORKER", "/bin/false", 1);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		for (int dry = 0; dry < 2; dry++) {
			char *out;
			char *args[] = {dry ? "--dry-run" : "-q", "--arch", "sm_90", (char *)cases[i].opt, (char *)cases[i].value,
					"configs/summatrix.yaml", NULL};
			int rc = run(args, &out);
			if (rc != 2 || !strstr(out, cases[i].want))
				fprintf(stderr, "\n  %s %s%s: exit %d, output: %s  want: %s\n", cases[i].opt, cases[i].value,
					dry ? " (dry run)" : "", rc, out, cases[i].want);
			CU_ASSERT_EQUAL(rc, 2);
			CU_ASSERT_PTR_NOT_NULL(strstr(out, cases[i].want));
			free(out);
		}
	unsetenv("AUTOTUNE_WORKER");
}

int add_cli_suite(void)
{
	CU_pSuite s = CU_add_suite("cli", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "help goes to stdout with status 0", test_help_goes_to_stdout_with_status_0);
	CU_add_test(s, "usage errors exit 2", test_usage_errors_exit_2);
	CU_add_test(s, "config errors exit 2 with positions", test_config_errors_exit_2_with_positions);
	CU_add_test(s, "dry run of summatrix with real nvcc", test_dry_run_of_summatrix_with_real_nvcc);
	CU_add_test(s, "dry run without GPU or arch is a clear error", test_dry_run_without_gpu_or_arch_is_a_clear_error);
	CU_add_test(s, "real run without GPU exits 2", test_real_run_without_gpu_exits_2);
	CU_add_test(s, "compile error marks configurations and continues", test_compile_error_marks_configurations_and_continues);
	CU_add_test(s, "compile errors are told once, by cause", test_compile_errors_are_told_once_by_cause);
	CU_add_test(s, "an output read as input is warned about", test_output_read_as_input_is_warned_about);
	CU_add_test(s, "option values are checked first", test_option_values_are_checked_first);
	return 0;
}

/* Every kind of bad input from the command line: exit status 2, a message that says what is
 * wrong (and where), and no CSV written half-way. A fake worker stands in for the GPU. */
static void test_bad_input_table(void)
{
	const char *kernel = write_temp(2, "bk.cu", "extern \"C\" __global__ void k(float *a) { a[threadIdx.x] = 1; }\n");
	struct {
		const char *what, *yaml_tail, *want, *env, *env_value;
	} cases[] = {
		{"syntax", "launch: {block: [x], grid: [1]\n", ":6:1: YAML syntax error", NULL, NULL},
		{"unknown key", "launch: {block: [x], grid: [1], shared: 4}\n", ":5:33: unknown key 'shared' in 'launch'; did you mean 'shared_mem'?", NULL, NULL},
		{"wrong type", "launch: {block: [x], grid: 1}\n", ":5:28: launch grid must be a list, not a scalar", NULL, NULL},
		{"missing key", "launch: {block: [x]}\n", ":5:9: 'launch' is missing the required key 'grid'", NULL, NULL},
		{"unknown name", "launch: {block: [y], grid: [1]}\n", ":5:18: unknown name 'y' in the launch block", NULL, NULL},
		{"division by zero", "launch: {block: [x], grid: [\"x / 0\"]}\n", ":5:32: division by zero (for x=32)", NULL, NULL},
		{"empty space", "launch: {block: [x], grid: [1]}\nconstraints: [x > 64]\n", "no configuration satisfies the constraints (1 combination tried)", NULL, NULL},
		{"entry not in module", "launch: {block: [x], grid: [1]}\n", "entry point 'kk' not found in the compiled module; it has: k", NULL, NULL},
		{"nvcc not found", "launch: {block: [x], grid: [1]}\n", "nvcc not found", "NVCC", "/nonexistent/nvcc"},
		{"no GPU", "launch: {block: [x], grid: [1]}\n", "--dry-run --arch sm_90", "AUTOTUNE_WORKER", "/bin/false"},
		{"unwritable results", "launch: {block: [x], grid: [1]}\noutput: {csv: /proc/autotune/x.csv}\n", "cannot create the results directory '/proc/autotune'", NULL, NULL},
		{"results path is a directory", "launch: {block: [x], grid: [1]}\noutput: {csv: /tmp}\n", "cannot write '/tmp': it is a directory", NULL, NULL},
		/* a TMPDIR longer than /tmp is used too (a batch system's per-job directory) */
		{"unusable TMPDIR", "launch: {block: [x], grid: [1]}\n", "cannot create a work directory '/nonexistent/scratch/job-12345/autotune-",
		 "TMPDIR", "/nonexistent/scratch/job-12345"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char text[2048];
		snprintf(text, sizeof text,
			 "kernel: {source: %s, entry: %s}\narguments: [{name: a, type: float, count: 64, output: true}]\n"
			 "space: {x: [32]}\nmeasure: {finalists: 0}\n%s", kernel, strstr(cases[i].what, "entry") ? "kk" : "k",
			 cases[i].yaml_tail);
		const char *path = write_temp(3, "bad.yaml", text);
		setenv("AUTOTUNE_WORKER", "build/fake_worker", 1);
		if (cases[i].env)
			setenv(cases[i].env, cases[i].env_value, 1);
		unlink("results/bad.csv");
		char *out;
		int rc = run((char *[]){(char *)path, NULL}, &out);
		if (cases[i].env)
			unsetenv(cases[i].env);
		unsetenv("AUTOTUNE_WORKER");
		if (rc != 2 || !strstr(out, cases[i].want))
			fprintf(stderr, "\n  case '%s': exit %d, output: %s  want: %s\n", cases[i].what, rc, out, cases[i].want);
		CU_ASSERT_EQUAL(rc, 2);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, cases[i].want));
		CU_ASSERT_NOT_EQUAL(access("results/bad.csv", F_OK), 0);
		/* nothing measured: no journal to resume from and no empty worker log left behind */
		char sibling[320];
		const char *base = strrchr(path, '/') + 1;
		snprintf(sibling, sizeof sibling, "results/%.*s.journal", (int)(strlen(base) - 5), base);
		CU_ASSERT_NOT_EQUAL(access(sibling, F_OK), 0);
		snprintf(sibling, sizeof sibling, "results/%.*s.worker.log", (int)(strlen(base) - 5), base);
		CU_ASSERT_NOT_EQUAL(access(sibling, F_OK), 0);
		free(out);
		unlink(path);
	}
	unlink(kernel);
}

/* No shell anywhere: a flag that a shell would run is handed to nvcc as one literal argument. */
static void test_shell_metacharacters_stay_literal(void)
{
	const char *marker = "/tmp/autotune-test-injected";
	unlink(marker);
	const char *kernel = write_temp(2, "sk.cu", "extern \"C\" __global__ void k(float *a) { a[threadIdx.x] = 1; }\n");
	char text[1024], csv[128];
	snprintf(csv, sizeof csv, "%s/inject.csv", test_dir);
	snprintf(text, sizeof text,
		 "name: inject\nkernel: {source: %s, entry: k}\narguments: [{name: a, type: float, count: 64, output: true}]\n"
		 "space: {x: [32]}\nlaunch: {block: [x], grid: [1]}\n"
		 "build: {flags: [\"$(touch %s)\", \"`touch %s`\", \"; touch %s\"]}\n"
		 "output: {csv: %s}\n", kernel, marker, marker, marker, csv);
	const char *path = write_temp(3, "inject.yaml", text);
	char *out;
	int rc = run((char *[]){"--dry-run", "--arch", "sm_90", (char *)path, NULL}, &out);
	CU_ASSERT_EQUAL(rc, 1); /* nvcc rejects the flags: a compile-error, not a shell's run; none compiled */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "$(touch"));
	CU_ASSERT_NOT_EQUAL(access(marker, F_OK), 0);
	free(out);
	unlink(path);
	unlink(kernel);
	unlink(csv);
}

/* Every shipped config and the feature kernels of tests/kernels compile with the real nvcc, with
 * no compile error: the pragma rewriting, the templated entry point, the __constant__ table,
 * entry points named by a parameter. */
static void test_every_config_compiles(void)
{
	const char *configs[] = {"configs/summatrix.yaml", "configs/summatrix1d.yaml", "configs/divergence.yaml",
				 "configs/regpressure.yaml", "configs/transpose.yaml", "configs/reduce.yaml",
				 "configs/reduce_template.yaml", "tests/kernels/unroll.yaml", "tests/kernels/lookup.yaml",
				 "tests/kernels/scaled.yaml", "tests/kernels/features.yaml", "tests/kernels/vectors.yaml",
				 "tests/kernels/expect.yaml", "tests/kernels/refkernel.yaml"};
	for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++) {
		char *out;
		int rc = run((char *[]){"--dry-run", "--arch", "sm_90", (char *)configs[i], NULL}, &out);
		if (rc != 0 || !strstr(out, " failed; ") || strstr(out, "(0 failed;") == NULL)
			fprintf(stderr, "\n  %s: exit %d\n%s\n", configs[i], rc, out);
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, "(0 failed;"));
		CU_ASSERT_PTR_NULL(strstr(out, "compile-error"));
		free(out);
	}
}

/* `#pragma unroll UNROLL`: one binary per value, each from a rewritten copy that still names the
 * original file in messages; 0 drops the pragma. */
static void test_pragma_unroll_parameter_is_rewritten(void)
{
	char *out;
	int rc = run((char *[]){"--dry-run", "--arch", "sm_90", "--cache-dir", "/tmp/autotune-test-pragma",
				"tests/kernels/unroll.yaml", NULL}, &out);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "5 binaries built"));
	free(out);
	char *ls[] = {"sh", "-c", "grep -h 'pragma unroll [0-9]' /tmp/autotune-test-pragma/cubins/src-*.cu | sort | tr '\\n' ' ';"
				  " grep -c '^#line 1 \"tests/kernels/unroll.cu\"' /tmp/autotune-test-pragma/cubins/src-*.cu | grep -c ':1$'",
		      NULL};
	proc_capture(ls, 30, &out);
	/* values 1, 16, 2, 4 appear; 0 left no pragma; all five copies start with the #line */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "#pragma unroll 1 #pragma unroll 16 #pragma unroll 2 #pragma unroll 4 5"));
	free(out);
	char *rm[] = {"rm", "-rf", "/tmp/autotune-test-pragma", NULL};
	proc_capture(rm, 30, &out);
	free(out);
}

int add_cli_bad_input_suite(void)
{
	CU_pSuite s = CU_add_suite("cli-bad-input", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "bad input table: exit 2 and a message", test_bad_input_table);
	CU_add_test(s, "shell metacharacters stay literal", test_shell_metacharacters_stay_literal);
	CU_add_test(s, "every config compiles", test_every_config_compiles);
	CU_add_test(s, "#pragma unroll PARAM is rewritten", test_pragma_unroll_parameter_is_rewritten);
	return 0;
}
