/* test_reference.c: the measuring stage's reference (reference.c), on the CPU with the fake worker
 * (tests/fake_worker.c, FAKE_ODD_BX: configurations whose outputs differ from the others') and the
 * fake nvcc: without a named reference, the first configuration to pass is confirmed by another
 * binary or outvoted by two that agree; the summary names the reference and how it was chosen, and
 * warns when most of the space differs from a reference no one named. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests.h"

#define DIR "scratch/reference"

/* The vote's space: six configurations, each its own binary (bx is a define the kernel uses), so
 * that each can stand for another's outputs or against them; `verify` is more of the config. */
static char *vote_config(const char *name, const char *verify)
{
	char text[512];
	mkdir(DIR, 0777);
	put_file(DIR "/vote.cu", "extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; "
				 "if (i < n) a[i] = i + 0 * bx; }\n");
	snprintf(text, sizeof text, "space: {bx: [32, 64, 96, 128, 160, 192]}\nbuild: {defines: [bx]}\n"
				    "measure: {finalists: 0, metrics: none}\n%s", verify);
	char *config = write_named_config(DIR, name, "vote.cu", text);
	fake_worker_reset(DIR, name);
	return config;
}

/* The blockDim.x of the k-th run in the fake worker's log (0: the first), or -1. */
static int nth_run(int k)
{
	char *log = read_text(DIR "/runs.log");
	const char *p = log;
	int bx = -1;
	for (int i = 0; p && (p = strstr(p, "run ")) && i <= k; i++, p++)
		if (i == k)
			bx = atoi(p + 4);
	free(log);
	return bx;
}

/* The status of the row of blockDim.x bx in the CSV: whether it reads ",STATUS,". */
static int row_has(const char *csv, int bx, const char *text)
{
	char *all = read_text(csv), start[32];
	snprintf(start, sizeof start, "\n%d,", bx);
	const char *row = all ? strstr(all, start) : NULL;
	int has = 0;
	if (row) {
		const char *end = strchr(row + 1, '\n');
		const char *at = strstr(row + 1, text);
		has = at && (!end || at < end);
	}
	free(all);
	return has;
}

/* Without a named reference the first configuration to pass is the reference once another binary
 * agrees with it; when the next two binaries differ from it but agree with each other, they
 * outvote it; when no two of the three agree, the first stays and the summary says the reference
 * may be the odd one out. The summary names the reference and how it was chosen. */
static void test_the_reference_is_chosen_by_vote(void)
{
	char *config = vote_config("vote", ""), *out, expect[256];
	CU_ASSERT_EQUAL_FATAL(run_autotune_on(config, NULL, &out), 0);
	int a = nth_run(0), b = nth_run(1), c = nth_run(2);
	CU_ASSERT(a > 0 && b > 0 && c > 0 && a != b && b != c && a != c);
	snprintf(expect, sizeof expect, "reference: bx=%d, the first to pass, confirmed by bx=%d (another binary", a, b);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, expect));
	CU_ASSERT_PTR_NULL(strstr(out, "odd one out"));
	CU_ASSERT_EQUAL(count_in(DIR "/vote.csv", ",ok,"), 6);
	free(out);

	/* the first is the odd one: outvoted, a wrong result that says how */
	char odd[32];
	snprintf(odd, sizeof odd, "%d", a);
	vote_config("vote", "");
	setenv("FAKE_ODD_BX", odd, 1);
	CU_ASSERT_EQUAL(run_autotune_on(config, (char *[]){"--fresh", NULL}, &out), 0);
	snprintf(expect, sizeof expect, "reference: bx=%d, by vote: it and bx=%d (other binaries) agree, while bx=%d, the first to pass, differs from both",
		 b, c, a);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, expect));
	CU_ASSERT_PTR_NULL(strstr(out, "odd one out"));
	CU_ASSERT_EQUAL(count_in(DIR "/vote.csv", ",ok,"), 5);
	CU_ASSERT(row_has(DIR "/vote.csv", a, "wrong-result,\"argument 1 'a': 4096 of 4096 values differ (100%), every value"));
	snprintf(expect, sizeof expect, "winner: bx=%d:", a);
	CU_ASSERT_PTR_NULL(strstr(out, expect));
	free(out);

	/* the first and the second are odd, each its own way: no two of the three agree, the first
	 * stays, and most of the space differs from it */
	snprintf(odd, sizeof odd, "%d,%d", a, b);
	vote_config("vote", "");
	setenv("FAKE_ODD_BX", odd, 1);
	CU_ASSERT_EQUAL(run_autotune_on(config, (char *[]){"--fresh", NULL}, &out), 0);
	snprintf(expect, sizeof expect, "reference: bx=%d, the first to pass; bx=%d and bx=%d (other binaries) differ from it and "
		 "from each other: no two of the first three agree", a, b, c);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, expect));
	snprintf(expect, sizeof expect, "warning: 5 of the 6 configurations that ran differ from the reference bx=%d, which no one "
		 "named: the reference may be the odd one out", a);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, expect));
	CU_ASSERT_EQUAL(count_in(DIR "/vote.csv", ",ok,"), 1);
	CU_ASSERT(row_has(DIR "/vote.csv", a, ",ok,"));
	free(out);
}

/* When the run that would decide the vote fails (the second configuration crashes as the
 * reference), the first stays, the second keeps its verdict against it, and the summary says the
 * vote was undecided, not that the three disagree. */
static void test_a_vote_that_cannot_be_held_is_undecided(void)
{
	char *config = vote_config("vote", ""), *out, expect[320], odd[32], crash[32];
	CU_ASSERT_EQUAL_FATAL(run_autotune_on(config, (char *[]){"-q", NULL}, NULL), 0);
	int a = nth_run(0), b = nth_run(1), c = nth_run(2);
	snprintf(odd, sizeof odd, "%d", a);
	snprintf(crash, sizeof crash, "%d", b);
	vote_config("vote", "");
	setenv("FAKE_ODD_BX", odd, 1);
	setenv("FAKE_CRASH_REF_BX", crash, 1);
	CU_ASSERT_EQUAL(run_autotune_on(config, (char *[]){"--fresh", NULL}, &out), 0);
	snprintf(expect, sizeof expect, "reference: bx=%d, the first to pass; bx=%d and bx=%d (other binaries) differ from it, "
		 "and the runs that would tell whether they agree did not pass (not a wrong result): undecided", a, b, c);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, expect));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "the reference may be the odd one out"));
	CU_ASSERT(row_has(DIR "/vote.csv", b, ",wrong-result,"));
	CU_ASSERT(row_has(DIR "/vote.csv", a, ",ok,"));
	CU_ASSERT_EQUAL(count_in(DIR "/vote.csv", ",crashed,"), 0);
	free(out);
}

/* A vote on several GPUs: the others wait for the vote's lane, and the outvoted first is the one
 * wrong result. A named reference is not put to a vote: the summary names it, and says nothing of
 * an odd one out however many differ from it. */
static void test_a_vote_on_several_gpus_and_a_named_reference(void)
{
	char *config = vote_config("vote", ""), *out, expect[256], odd[32];
	CU_ASSERT_EQUAL_FATAL(run_autotune_on(config, (char *[]){"-q", NULL}, NULL), 0);
	int a = nth_run(0);
	snprintf(odd, sizeof odd, "%d", a);
	vote_config("vote", "");
	setenv("FAKE_GPUS", "3", 1);
	setenv("FAKE_SLEEP_MS", "20", 1);
	setenv("FAKE_ODD_BX", odd, 1);
	CU_ASSERT_EQUAL(run_autotune_on(config, (char *[]){"--fresh", NULL}, &out), 0);
	snprintf(expect, sizeof expect, "agree, while bx=%d, the first to pass, differs from both", a);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, expect));
	CU_ASSERT_EQUAL(count_in(DIR "/vote.csv", ",ok,"), 5);
	CU_ASSERT(row_has(DIR "/vote.csv", a, ",wrong-result,"));
	free(out);
	unsetenv("FAKE_GPUS");
	unsetenv("FAKE_SLEEP_MS");

	char verify[64];
	snprintf(verify, sizeof verify, "verify: {reference: {bx: %d}}\n", a);
	config = vote_config("named", verify);
	setenv("FAKE_ODD_BX", odd, 1);
	CU_ASSERT_EQUAL(run_autotune_on(config, NULL, &out), 0);
	snprintf(expect, sizeof expect, "reference: bx=%d, named in verify.reference", a);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, expect));
	CU_ASSERT_PTR_NULL(strstr(out, "odd one out"));
	CU_ASSERT_EQUAL(count_in(DIR "/named.csv", ",wrong-result,"), 5);
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", "run "), 6); /* nothing run twice */
	free(out);
}

/* Outputs whose values are given have no reference configuration to name or to doubt. */
static void test_given_values_leave_no_reference_to_name(void)
{
	char *config = vote_config("given", "verify: {expect: {a: i}}\n"), *out;
	CU_ASSERT_EQUAL(run_autotune_on(config, NULL, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "ran 6: 6 ok"));
	CU_ASSERT_PTR_NULL(strstr(out, "reference:"));
	free(out);
}

int add_reference_suite(void)
{
	CU_pSuite s = CU_add_suite("reference", NULL, fake_worker_forget);
	if (!s)
		return -1;
	CU_add_test(s, "the reference is chosen by vote", test_the_reference_is_chosen_by_vote);
	CU_add_test(s, "a vote on several GPUs, and a named reference", test_a_vote_on_several_gpus_and_a_named_reference);
	CU_add_test(s, "a vote that cannot be held is undecided", test_a_vote_that_cannot_be_held_is_undecided);
	CU_add_test(s, "given values leave no reference to name", test_given_values_leave_no_reference_to_name);
	return 0;
}
