/* test_summary.c: a run's closing words on stderr (summary.c): compile logs told once per kind of
 * error, with the compile-time value to blame. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "summary.h"
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

int add_summary_suite(void)
{
	CU_pSuite s = CU_add_suite("summary", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "compile errors are told once, by cause (nvcc)", test_compile_errors_are_told_once_by_cause);
	return 0;
}
