/* test_wrong_split.c: when a run's wrong-results follow its parameters (wrong_split.c): the
 * smallest set of parameters the ok configurations share and every wrong-result differs in, said
 * with the fix. On a config and space made here, with the statuses set by hand. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "tests.h"
#include "wrong_split.h"

/* A config of 3 x 2 configurations, V a define and bx the block, its space and results. */
typedef struct {
	config cfg;
	space sp;
	result res[6];
} fixture;

static void fixture_make(fixture *f)
{
	const char *kernel = write_temp(4, "split.cu", "extern \"C\" __global__ void k(float *a) { a[threadIdx.x] = V; }\n");
	char text[512];
	snprintf(text, sizeof text,
		 "name: split\nkernel: {source: %s, entry: k}\narguments: [{name: a, type: float, count: 64, output: true}]\n"
		 "space: {V: [1, 2, 3], bx: [32, 64]}\nlaunch: {block: [bx], grid: [1]}\nbuild: {defines: [V]}\n",
		 kernel);
	diags d = {0};
	memset(f, 0, sizeof *f);
	CU_ASSERT_EQUAL_FATAL(config_load(write_temp(5, "split.yaml", text), &f->cfg, &d), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&f->cfg, &f->sp, &d), 0);
	CU_ASSERT_EQUAL_FATAL(f->sp.count, 6);
	diags_free(&d);
}

static void fixture_free(fixture *f)
{
	space_free(&f->sp);
	config_free(&f->cfg);
}

/* Wrong-results that are exactly the configurations of other values of one parameter (BAT's
 * nbody: USE_SOA=1 reads other arrays) name it and the fix; mixed ones, one ok configuration or a
 * reference per group name nothing. */
static void test_wrong_results_that_follow_a_parameter_name_it(void)
{
	fixture f;
	fixture_make(&f);
	/* V is the first parameter: V=1 ok, V=2 wrong, V=3 not run */
	for (size_t c = 0; c < 6; c++) {
		char v[16];
		value_format(space_config(&f.sp, c)[0], v, sizeof v);
		f.res[c].st = !strcmp(v, "1") ? ST_OK : !strcmp(v, "2") ? ST_WRONG_RESULT : ST_NOT_RUN;
	}
	size_t set[3], n = 0;
	CU_ASSERT_EQUAL(wrong_split(&f.cfg, &f.sp, f.res, set, &n), 1);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(set[0], 0);
	stderr_begin();
	summary_wrong_split(&f.cfg, &f.sp, f.res);
	char *out = stderr_end();
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "  the 2 wrong-results are exactly the configurations whose V differs from the "
					   "reference's (V=1), and the 2 with that value are all ok: if it changes what the "
					   "kernel computes or reads, each value needs a reference of its own: verify: "
					   "{reference_per: [V]}\n"));
	free(out);
	/* with a reference per group already, nothing to say */
	f.cfg.nref_per = 1;
	CU_ASSERT_EQUAL(wrong_split(&f.cfg, &f.sp, f.res, set, &n), 0);
	f.cfg.nref_per = 0;
	/* one wrong-result among V=1: V no longer splits, and bx does not either */
	for (size_t c = 0; c < 6; c++)
		if (f.res[c].st == ST_OK) {
			f.res[c].st = ST_WRONG_RESULT;
			break;
		}
	CU_ASSERT_EQUAL(wrong_split(&f.cfg, &f.sp, f.res, set, &n), 0);
	stderr_begin();
	summary_wrong_split(&f.cfg, &f.sp, f.res);
	out = stderr_end();
	CU_ASSERT_STRING_EQUAL(out, "");
	free(out);
	fixture_free(&f);
}

int add_wrong_split_suite(void)
{
	CU_pSuite s = CU_add_suite("wrong_split", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "wrong-results that follow a parameter name it", test_wrong_results_that_follow_a_parameter_name_it);
	return 0;
}
