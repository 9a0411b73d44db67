/* test_gpu_guess.c: the architecture guessed from NVML (a stand-in library, tests/fake_nvml.c)
 * holds only when every GPU shares it; a run that guesses starts nvcc before the worker has opened
 * the GPU, and a wrong guess changes nothing in the results, only the compiles begin again. */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpu_guess.h"
#include "tests.h"

#define DIR "scratch/gpu_guess"
#define FAKE_NVML "build/fakenvml/libnvidia-ml.so.1"

static int guess_with(const char *lib, const char *ccs)
{
	setenv("AUTOTUNE_NVML", lib, 1);
	setenv("FAKE_NVML_CC", ccs, 1);
	int cc = gpu_guess_cc();
	unsetenv("AUTOTUNE_NVML");
	unsetenv("FAKE_NVML_CC");
	return cc;
}

static void test_one_architecture_or_none(void)
{
	CU_ASSERT_EQUAL(guess_with(FAKE_NVML, "90"), 90);
	CU_ASSERT_EQUAL(guess_with(FAKE_NVML, "86,86,86"), 86);
	/* which CUDA ordinal is which NVML index is not known: mixed GPUs give no guess */
	CU_ASSERT_EQUAL(guess_with(FAKE_NVML, "90,80"), -1);
	CU_ASSERT_EQUAL(guess_with(FAKE_NVML, ""), -1);
	CU_ASSERT_EQUAL(guess_with(DIR "/no-such-libnvidia-ml.so.1", "90"), -1);
	setenv("FAKE_NVML_FAIL", "init", 1);
	CU_ASSERT_EQUAL(guess_with(FAKE_NVML, "90"), -1);
	unsetenv("FAKE_NVML_FAIL");
}

/* A stand-in worker's GPU is not this machine's: without AUTOTUNE_NVML, no guess at all. */
static void test_no_guess_for_a_stand_in_worker(void)
{
	const char *was = getenv("AUTOTUNE_WORKER");
	char *keep = was ? strdup(was) : NULL;
	setenv("AUTOTUNE_WORKER", "build/fake_worker", 1);
	unsetenv("AUTOTUNE_NVML");
	CU_ASSERT_EQUAL(gpu_guess_cc(), -1);
	if (keep)
		setenv("AUTOTUNE_WORKER", keep, 1);
	else
		unsetenv("AUTOTUNE_WORKER");
	free(keep);
}

/* The fake worker's GPU is an sm_90. Runs `name` (a fresh config each time) with NVML saying ccs
 * (NULL: no NVML); its trace in *out, its CSV's text returned (caller frees both). */
static char *run_guessing(const char *name, const char *ccs, char **out)
{
	char *cfg = write_named_config(DIR, name, "k.cu", "space: {bx: [32, 64, 96, 128], V: [1, 2, 3]}\n"
							  "build: {defines: [V]}\nmeasure: {finalists: 0, metrics: none}");
	fake_worker_reset(DIR, name);
	setenv("AUTOTUNE_TRACE", "1", 1);
	if (ccs) {
		setenv("AUTOTUNE_NVML", FAKE_NVML, 1);
		setenv("FAKE_NVML_CC", ccs, 1);
	}
	CU_ASSERT_EQUAL(run_autotune_on(cfg, (char *[]){"--no-cache", "-j", "2", NULL}, out), 0);
	unsetenv("AUTOTUNE_TRACE");
	unsetenv("AUTOTUNE_NVML");
	unsetenv("FAKE_NVML_CC");
	char csv[256];
	snprintf(csv, sizeof csv, DIR "/%s.csv", name);
	return read_text(csv);
}

/* What a CSV says of the measurements: each row up to its arch column, without compile_s (the
 * run's own clock), the spec's hash, the date and paths that follow (static storage). */
static const char *rows(const char *csv)
{
	static char kept[2][8192];
	static int turn;
	char *out = kept[turn ^= 1], *o = out;
	int col = 0, skip = -1, last = -1;
	for (const char *p = csv; p && *p && o < out + sizeof kept[0] - 2; p++) {
		if (p == csv || p[-1] == '\n')
			col = 0;
		if (skip < 0 && !strncmp(p, "compile_s,", 10))
			skip = col;
		if (last < 0 && !strncmp(p, ",arch,", 6))
			last = col + 1;
		if (*p == '\n' || (col != skip && (last < 0 || col <= last)))
			*o++ = *p;
		col += *p == ',';
	}
	*o = 0;
	return out;
}

static void test_nvcc_starts_before_the_gpu_is_open(void)
{
	mkdir(DIR, 0777);
	put_file(DIR "/k.cu", "extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + "
			      "threadIdx.x; if (i < n) a[i] = V; }\n");
	char *plain_out, *right_out, *wrong_out;
	char *plain = run_guessing("plain", NULL, &plain_out);
	char *right = run_guessing("right", "90", &right_out);
	char *wrong = run_guessing("wrong", "80", &wrong_out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(plain_out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(right_out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(wrong_out);
	/* without NVML the compiles wait for the GPU's answer; with it they start first */
	const char *open = strstr(plain_out, ": GPU 0 open"), *nvcc = strstr(plain_out, ": nvcc start");
	CU_ASSERT(open && nvcc && open < nvcc);
	CU_ASSERT_PTR_NULL(strstr(plain_out, "NVML says"));
	open = strstr(right_out, ": GPU 0 open");
	nvcc = strstr(right_out, ": nvcc start");
	CU_ASSERT(strstr(right_out, ": NVML says sm_90") && open && nvcc && nvcc < open);
	CU_ASSERT_PTR_NULL(strstr(right_out, "begun again"));
	CU_ASSERT_PTR_NOT_NULL(strstr(wrong_out, ": the GPU is sm_90, not sm_80: compiles begun again"));
	/* the same measurements, whatever was guessed */
	CU_ASSERT_PTR_NOT_NULL_FATAL(plain);
	CU_ASSERT_PTR_NOT_NULL(strstr(rows(plain), "\n32,1,32,1,1,128,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(rows(plain), ",sm_90,\n"));
	CU_ASSERT_STRING_EQUAL(rows(plain), rows(right));
	CU_ASSERT_STRING_EQUAL(rows(plain), rows(wrong));
	/* the tuned header names the GPU's architecture, not the wrong guess */
	char *header = read_text(DIR "/wrong_tuned.h");
	CU_ASSERT(header && strstr(header, "sm_90") && !strstr(header, "sm_80"));
	free(header);
	free(plain);
	free(right);
	free(wrong);
	free(plain_out);
	free(right_out);
	free(wrong_out);
	remove_dir(DIR);
}

int add_gpu_guess_suite(void)
{
	CU_pSuite s = CU_add_suite("gpu_guess", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "one architecture or none", test_one_architecture_or_none);
	CU_add_test(s, "no guess for a stand-in worker", test_no_guess_for_a_stand_in_worker);
	CU_add_test(s, "nvcc starts before the GPU is open", test_nvcc_starts_before_the_gpu_is_open);
	return 0;
}
