/* test_inputs.c: what a run reads (inputs.c), and that no command writes over it: a tuning run's
 * outputs, `autotune header -o` and `autotune report -o` are refused on the config, the kernel,
 * a header it includes, a data file, the host reference, the journal, or a file autotune did not
 * write; what autotune wrote is replaced. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "config.h"
#include "diag.h"
#include "inputs.h"
#include "proc.h"
#include "tests.h"

#define DIR "scratch/inputs"

/* DIR/c/k.yaml: a kernel that includes a header beside it, which includes one from build.include
 * (and a system header, which is no input); a data file; a host reference. `output` is the
 * output mapping's contents. */
static const char *project(const char *output)
{
	char *out;
	proc_capture((char *[]){"rm", "-rf", DIR, NULL}, 30, &out);
	free(out);
	mkdir(DIR, 0755);
	mkdir(DIR "/c", 0755);
	mkdir(DIR "/k", 0755);
	mkdir(DIR "/inc", 0755);
	put_file(DIR "/k/k.cu", "#include <stdint.h>\n  #  include \"common.h\"\n#include \"missing.h\"\n"
				"extern \"C\" __global__ void k(float *out, const float *in, int n)\n"
				"{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = SCALE * in[i]; }\n");
	put_file(DIR "/k/common.h", "#include \"deep.h\"\n#include \"common.h\"\n");
	put_file(DIR "/inc/deep.h", "#define SCALE 2.0f\n");
	put_file(DIR "/k/ref.c", "void k(float *out, const float *in, int n) { for (int i = 0; i < n; i++) out[i] = 2 * in[i]; }\n");
	put_file(DIR "/c/in.bin", "0123456789abcdef0123456789abcdef");
	char *text = xasprintf("name: k\n"
			       "kernel: {source: ../k/k.cu, entry: k}\n"
			       "arguments:\n"
			       "  - {name: out, type: float, count: 8, output: true}\n"
			       "  - {name: in, type: float, count: 8, fill: {file: in.bin}}\n"
			       "  - {name: n, type: int32, value: 8}\n"
			       "space: {bx: [32, 64]}\n"
			       "launch: {block: [bx], grid: [1]}\n"
			       "build: {include: [../inc]}\n"
			       "verify: {host: {source: ../k/ref.c, function: k}}\n"
			       "output: {%s}\n",
			       output);
	put_file(DIR "/c/k.yaml", text);
	free(text);
	return DIR "/c/k.yaml";
}

static void test_a_run_reads_these(void)
{
	config cfg;
	char *first = NULL;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(config_load(project("csv: " DIR "/r/k.csv"), &cfg, &d), 0);
	(void)first;
	inputs in;
	inputs_of(&cfg, &in);
	static const struct {
		const char *path, *what;
	} want[] = {
		{DIR "/c/k.yaml", "the config"},
		{DIR "/k/k.cu", "the kernel source"},
		{DIR "/k/common.h", "a header the kernel includes"},
		{DIR "/inc/deep.h", "a header the kernel includes"},
		{DIR "/c/in.bin", "a data file"},
		{DIR "/k/ref.c", "the host reference (verify.host)"},
	};
	CU_ASSERT_EQUAL(in.n, sizeof want / sizeof *want); /* common.h once, though it includes itself */
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		const input_file *f = inputs_find(&in, want[i].path);
		CU_ASSERT_PTR_NOT_NULL(f);
		if (f)
			CU_ASSERT_STRING_EQUAL(f->what, want[i].what);
	}
	CU_ASSERT_PTR_NULL(inputs_find(&in, DIR "/k/missing.h"));
	CU_ASSERT_PTR_NULL(inputs_find(&in, DIR "/r/k.csv"));
	inputs_free(&in);
	config_free(&cfg);
	diags_free(&d);
}

/* ./autotune argv...: its exit status, its output in *out (caller frees). */
static int run(char **argv, char **out)
{
	int st = proc_capture(argv, 120, out);
	return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A tuning run's outputs: each input refused before anything is built, by what it is. */
static void test_a_run_writes_over_no_input(void)
{
	static const struct {
		const char *output, *says;
	} cases[] = {
		{"csv: " DIR "/k/ref.c", "output.csv '" DIR "/k/ref.c' is the host reference (verify.host)"},
		{"header: " DIR "/k/common.h", "output.header '" DIR "/k/common.h' is a header the kernel includes"},
		{"header: " DIR "/inc/deep.h", "output.header '" DIR "/inc/deep.h' is a header the kernel includes"},
		{"csv: " DIR "/c/in.bin", "output.csv '" DIR "/c/in.bin' is a data file"},
		{"csv: " DIR "/k/k.cu", "output.csv '" DIR "/k/k.cu' is the kernel source"},
		{"csv: " DIR "/notes.txt", "a file autotune did not write is there"},
		{"header: " DIR "/notes.txt", "a file autotune did not write is there"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *cfg = project(cases[i].output);
		put_file(DIR "/notes.txt", "a user's own notes\n");
		char *before = read_text(DIR "/k/common.h"), *out;
		/* a real run: a dry run writes files of its own (NAME.dry-run.csv) */
		int rc = run((char *[]){"./autotune", "--arch", "sm_90", (char *)cfg, NULL}, &out);
		CU_ASSERT_EQUAL(rc, 2);
		if (!strstr(out, cases[i].says))
			fprintf(stderr, "\n  case %zu: %s\n", i, out);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, cases[i].says));
		char *after = read_text(DIR "/k/common.h"), *notes = read_text(DIR "/notes.txt");
		CU_ASSERT_STRING_EQUAL(after, before);
		CU_ASSERT_STRING_EQUAL(notes, "a user's own notes\n");
		free(before);
		free(after);
		free(notes);
		free(out);
	}
}

/* A results CSV of the project's config, with a winner. */
static const char *results_csv(void)
{
	put_file(DIR "/k.csv", "bx,blockDim.x,time_ms_median,samples,flags,status,message,gpu,gpu_uuid,arch,nvcc_flags,"
			       "spec_hash,tuned_at,config\n"
			       "32,32,1.5,20,winner,ok,,NVIDIA H100,GPU-1,sm_90,,0123456789abcdef,2026-11-24T00:00:00Z," DIR
			       "/c/k.yaml\n"
			       "64,64,1.7,20,,ok,,NVIDIA H100,GPU-1,sm_90,,0123456789abcdef,2026-11-24T00:00:00Z," DIR
			       "/c/k.yaml\n");
	return DIR "/k.csv";
}

/* `autotune header -o` and `autotune report -o`: refused on the config's inputs and its journal
 * and on a file autotune did not write, which are left as they were; an earlier header or report
 * is replaced. */
static void test_header_and_report_write_over_no_input(void)
{
	const char *targets[] = {DIR "/c/k.yaml", DIR "/k/k.cu", DIR "/k/common.h", DIR "/k/ref.c",
				 DIR "/r/k.journal", DIR "/notes.txt"};
	const char *cmds[] = {"header", "report"};
	for (size_t c = 0; c < 2; c++)
		for (size_t i = 0; i < sizeof targets / sizeof *targets; i++) {
			project("csv: " DIR "/r/k.csv");
			mkdir(DIR "/r", 0755);
			put_file(DIR "/r/k.journal", "autotune-journal 1 key\n");
			put_file(DIR "/notes.txt", "a user's own notes\n");
			char *before = read_text(targets[i]), *out;
			int rc = run((char *[]){"./autotune", (char *)cmds[c], (char *)results_csv(), "-o", (char *)targets[i],
						NULL},
				     &out);
			CU_ASSERT_NOT_EQUAL(rc, 0);
			CU_ASSERT_PTR_NOT_NULL(strstr(out, "cannot write"));
			char *after = read_text(targets[i]);
			CU_ASSERT_PTR_NOT_NULL_FATAL(after);
			CU_ASSERT_STRING_EQUAL(after, before);
			if (strcmp(after, before))
				fprintf(stderr, "\n  %s -o %s: %s\n", cmds[c], targets[i], out);
			free(before);
			free(after);
			free(out);
		}
	/* what autotune wrote, it writes again */
	for (size_t c = 0; c < 2; c++) {
		char *out;
		const char *to = c ? DIR "/k.html" : DIR "/k_tuned.h";
		CU_ASSERT_EQUAL(run((char *[]){"./autotune", (char *)cmds[c], (char *)results_csv(), "-o", (char *)to, NULL}, &out), 0);
		free(out);
		CU_ASSERT_EQUAL(run((char *[]){"./autotune", (char *)cmds[c], (char *)results_csv(), "-o", (char *)to, NULL}, &out), 0);
		free(out);
	}
}

int add_inputs_suite(void)
{
	CU_pSuite s = CU_add_suite("inputs", NULL, NULL);
	return !s || !CU_add_test(s, "a run reads the config, kernel, headers, data and host reference", test_a_run_reads_these) ||
	       !CU_add_test(s, "a run writes over no input", test_a_run_writes_over_no_input) ||
	       !CU_add_test(s, "header and report write over no input", test_header_and_report_write_over_no_input);
}
