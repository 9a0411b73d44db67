/* test_spec_files.c: a run keeps the list of the files its spec hash covers beside its results,
 * and `validate` says when the results are stale and which file made them so. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "tests.h"

#define DIR "scratch/spec"

/* DIR/k.cu includes local.h, which includes nested.h; DIR/h.yaml tunes it. */
static char *write_project(void)
{
	mkdir(DIR, 0777);
	put_file(DIR "/k.cu", "#include \"local.h\"\nextern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * "
			      "blockDim.x + threadIdx.x; if (i < n) a[i] = EPS; }\n");
	put_file(DIR "/local.h", "#define EPS 1e-6f\n#include \"nested.h\"\n");
	put_file(DIR "/nested.h", "// nested\n");
	put_file(DIR "/unrelated.h", "// beside the kernel, included by nothing\n");
	return write_named_config(DIR, "h", "k.cu", "space: {bx: [32, 64]}\nmeasure: {finalists: 0, metrics: none}");
}

/* validate's output (stdout and stderr) for config. */
static char *validate(char *config)
{
	char *out = NULL;
	char *argv[] = {"validate", config, NULL};
	CU_ASSERT_EQUAL(run_autotune(argv, &out), 0);
	return out;
}

/* A run keeps the list of its spec's files beside the CSV; validate is quiet while they are
 * unchanged, and names the header that made the results stale once one is edited. */
static void test_validate_names_the_file_that_made_results_stale(void)
{
	char *config = write_project();
	fake_worker_reset(DIR, "h");
	unlink(DIR "/h.csv.spec");
	char *out;
	char *run[] = {"--cache-dir", DIR "/cache", config, NULL};
	int rc = run_autotune(run, &out);
	if (rc)
		fprintf(stderr, "\n  the run: %s", out);
	CU_ASSERT_PTR_NULL(strstr(out, "does not cover")); /* every header included by name */
	free(out);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	char *list = read_text(DIR "/h.csv.spec");
	CU_ASSERT_PTR_NOT_NULL_FATAL(list);
	CU_ASSERT_PTR_NOT_NULL(strstr(list, " nested.h\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(list, " local.h\n"));
	CU_ASSERT_PTR_NULL(strstr(list, "unrelated.h"));
	free(list);

	out = validate(config);
	CU_ASSERT_PTR_NULL(strstr(out, "stale"));
	free(out);

	put_file(DIR "/nested.h", "// nested, edited\n");
	out = validate(config);
	char *want = xasprintf("the results in %s/h.csv are stale", DIR);
	if (!strstr(out, want) || !strstr(out, DIR "/nested.h changed"))
		fprintf(stderr, "\n  validate said: %s", out);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, DIR "/nested.h changed"));
	CU_ASSERT_PTR_NULL(strstr(out, "local.h"));
	free(out);
	/* and `autotune header` of those results, which warns */
	char *header[] = {"header", DIR "/h.csv", "-o", DIR "/again_tuned.h", NULL};
	CU_ASSERT_EQUAL(run_autotune(header, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, DIR "/nested.h changed"));
	free(out);

	/* results of before the list: stale all the same, said without a name */
	unlink(DIR "/h.csv.spec");
	out = validate(config);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "do not list which file"));
	free(out);
	free(want);
	/* a file of the user's at the list's name is not replaced */
	put_file(DIR "/h.csv.spec", "my notes\n");
	CU_ASSERT_EQUAL(run_autotune(run, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, DIR "/h.csv.spec is not a list autotune wrote"));
	free(out);
	list = read_text(DIR "/h.csv.spec");
	CU_ASSERT_STRING_EQUAL(list ? list : "", "my notes\n");
	free(list);
}

/* Instances: each is a run of its own, whose part is joined into the config's CSV; the list is
 * kept beside the joined CSV (the parts' go with them), for the spec of them all. */
static void test_instances_keep_one_list(void)
{
	write_project();
	char *config = write_named_config(DIR, "hi", "k.cu",
					  "constants: {m: 1}\ninstances: {m: [1, 2]}\nspace: {bx: [32, 64]}\n"
					  "measure: {finalists: 0, metrics: none}");
	fake_worker_reset(DIR, "hi");
	char *out;
	char *run[] = {"--cache-dir", DIR "/cache", config, NULL};
	int rc = run_autotune(run, &out);
	if (rc)
		fprintf(stderr, "\n  the run: %s", out);
	free(out);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(access(DIR "/hi.csv.spec", R_OK), 0);
	CU_ASSERT_NOT_EQUAL(access(DIR "/hi.m-1.csv.spec", F_OK), 0);
	CU_ASSERT_NOT_EQUAL(access(DIR "/hi.m-2.csv.spec", F_OK), 0);
	out = validate(config);
	CU_ASSERT_PTR_NULL(strstr(out, "stale"));
	free(out);
	put_file(DIR "/local.h", "#define EPS 1e-3f\n#include \"nested.h\"\n");
	out = validate(config);
	if (!strstr(out, DIR "/local.h changed"))
		fprintf(stderr, "\n  validate said: %s", out);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, DIR "/local.h changed"));
	free(out);
}

/* A header named through a macro is not found without preprocessing: the run says that nvcc read
 * it and the spec hash does not cover it. */
static void test_an_include_it_cannot_follow_is_said(void)
{
	write_project();
	put_file(DIR "/m.cu", "#define HEADER \"local.h\"\n#include HEADER\nextern \"C\" __global__ void k(float *a, int n) "
			      "{ if (threadIdx.x < n) a[threadIdx.x] = EPS; }\n");
	char *config = write_named_config(DIR, "m", "m.cu", "space: {bx: [32, 64]}\nmeasure: {finalists: 0, metrics: none}");
	fake_worker_reset(DIR, "m");
	char *out;
	char *run[] = {"--cache-dir", DIR "/cache", config, NULL};
	CU_ASSERT_EQUAL(run_autotune(run, &out), 0);
	char *want = xasprintf("/%s/local.h, which the spec hash does not cover", DIR);
	if (!strstr(out, want) || !strstr(out, "/nested.h, which"))
		fprintf(stderr, "\n  the run said: %s", out);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "/nested.h, which"));
	CU_ASSERT_EQUAL(occurrences(out, want), 1);
	free(want);
	free(out);
}

int add_spec_files_suite(void)
{
	CU_pSuite s = CU_add_suite("spec_files", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "validate names the file that made results stale", test_validate_names_the_file_that_made_results_stale);
	CU_add_test(s, "instances keep one list", test_instances_keep_one_list);
	CU_add_test(s, "an include it cannot follow is said", test_an_include_it_cannot_follow_is_said);
	return 0;
}
