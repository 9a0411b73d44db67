/* test_select_policy.c: the selection policy as a results file records it (select_policy.h),
 * written and read back. */
#include <CUnit/CUnit.h>
#include <stdio.h>

#include "select_policy.h"
#include "tests.h"

static const select_policy balanced = {.kind = POLICY_BALANCED, .w_occupancy = 1, .w_load_efficiency = 1, .noise_band = 2},
			   fastest = {.kind = POLICY_FASTEST, .w_occupancy = 1, .w_load_efficiency = 1, .noise_band = 2};

/* The policy as a results file records it reads back the same, odd weights exactly; what is not
 * one (an unknown word, a field missing, out of order or negative, text after it) is refused and
 * leaves the policy as it was. */
static void test_a_policy_reads_back_from_its_text(void)
{
	char text[POLICY_TEXT_MAX];
	select_policy p = {.kind = POLICY_FASTEST, .w_occupancy = 0.1, .w_load_efficiency = 3, .noise_band = 2.5}, q;
	select_policy_text(&p, text);
	CU_ASSERT_STRING_EQUAL(text, "fastest;noise_band=2.5;occupancy=0.1;load_efficiency=3");
	CU_ASSERT_EQUAL_FATAL(select_policy_parse(text, &q), 0);
	CU_ASSERT(q.kind == p.kind && q.w_occupancy == p.w_occupancy && q.w_load_efficiency == p.w_load_efficiency &&
		  q.noise_band == p.noise_band);
	p = balanced;
	p.w_occupancy = 1.0 / 3;
	select_policy_text(&p, text);
	CU_ASSERT_EQUAL_FATAL(select_policy_parse(text, &q), 0);
	CU_ASSERT(q.kind == POLICY_BALANCED && q.w_occupancy == 1.0 / 3);
	static const char *const bad[] = {"", "quickest;noise_band=2;occupancy=1;load_efficiency=1", "balanced",
					  "balanced;noise_band=2;occupancy=1", "balanced;occupancy=1;noise_band=2;load_efficiency=1",
					  "balanced;noise_band=-2;occupancy=1;load_efficiency=1",
					  "balanced;noise_band=2;occupancy=1;load_efficiency=1;x", "balanced;noise_band=nan;occupancy=1;load_efficiency=1",
					  "balanced ;noise_band=2;occupancy=1;load_efficiency=1"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		q = fastest;
		if (select_policy_parse(bad[i], &q) != -1)
			fprintf(stderr, "\n  policy '%s' was taken\n", bad[i]);
		CU_ASSERT(q.kind == POLICY_FASTEST && q.noise_band == 2);
	}
}

/* select.policy's words, in policy_kind's order, NULL-ended: what the loader's key table offers. */
static void test_the_policy_words_follow_the_kinds(void)
{
	CU_ASSERT_STRING_EQUAL(policy_names[POLICY_BALANCED], "balanced");
	CU_ASSERT_STRING_EQUAL(policy_names[POLICY_FASTEST], "fastest");
	CU_ASSERT_PTR_NULL(policy_names[POLICY_FASTEST + 1]);
}

int add_select_policy_suite(void)
{
	CU_pSuite s = CU_add_suite("select_policy", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "a policy reads back from its text", test_a_policy_reads_back_from_its_text);
	CU_add_test(s, "the policy words follow the kinds", test_the_policy_words_follow_the_kinds);
	return CU_get_error() == CUE_SUCCESS ? 0 : -1;
}
