/* test_stages.c: the summary's stages line names each stage for what it does, in order, and
 * shows "other" only when the named stages leave 0.05 s or more of the wall unexplained. */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "stages.h"
#include "tests.h"

static char *said(const char *name, size_t ngpus, double all, const double part[STAGE_COUNT])
{
	stderr_begin();
	stages_say(name, ngpus, all, part);
	return stderr_end();
}

static void test_every_stage_named_in_order(void)
{
	const double part[STAGE_COUNT] = {0.2, 0.7, 0.3, 1.1, 0.2, 0.1, 0.1};
	char *out = said("summatrix", 1, 3.0, part);
	const char *want = "summatrix: 3.0 s: 0.2 s starting the GPU, 0.7 s waiting for nvcc, 0.3 s setting up inputs, "
			   "1.1 s measuring, 0.2 s finalists, 0.1 s counters, 0.1 s writing, 0.3 s other; cores ";
	CU_ASSERT_NSTRING_EQUAL(out, want, strlen(want));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "% busy\n"));
	free(out);
}

static void test_other_only_when_something_is_left(void)
{
	const double part[STAGE_COUNT] = {0.5, 0, 0.5, 1, 0, 0, 0};
	char *out = said("big", 2, 2.02, part);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "big: 2.0 s: 0.5 s starting the GPUs, 0.0 s waiting for nvcc, 0.5 s setting up inputs"));
	CU_ASSERT_PTR_NULL(strstr(out, "other"));
	free(out);
}

int add_stages_suite(void)
{
	CU_pSuite s = CU_add_suite("stages", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "every stage named in order", test_every_stage_named_in_order);
	CU_add_test(s, "other only when something is left", test_other_only_when_something_is_left);
	return 0;
}
