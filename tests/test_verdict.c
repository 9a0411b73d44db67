/* test_verdict.c: a wrong result's message (lib/verdict.c), as the worker words it from what its
 * compare helper found: the count and share, the pattern of where (only when the counts make it
 * certain), the largest errors and where, NaN and Inf on both sides, and a suspect reference. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "verdict.h"
#include "tests.h"

/* A float output 'out' of n values, every one compared, the reference run's (not given). */
static verdict floats(unsigned long long n, unsigned long long bad, unsigned long long first, unsigned long long last)
{
	return (verdict){.arg = 1, .name = "out", .is_float = 1, .lanes = 1, .n = n, .stride = 1, .bad = bad,
			 .first = first, .last = last, .finite_error = 1, .max_abs = 3.1, .max_rel = 0.02, .argmax = 8191,
			 .got_at = "158.1", .want_at = "155"};
}

static const char *text(const verdict *v)
{
	static char msg[512];
	verdict_text(v, msg, sizeof msg);
	CU_ASSERT_PTR_NULL(strchr(msg, '\n'));
	return msg;
}

static void test_a_few_values_far_apart(void)
{
	verdict v = floats(16777216, 64, 4095, 16777215);
	CU_ASSERT_STRING_EQUAL(text(&v), "argument 2 'out': 64 of 16777216 values differ (0.00038%), indices 4095..16777215, "
					 "max abs error 3.1 at index 8191 (got 158.1, expected 155), max rel error 0.02; "
					 "output: 0 NaN, all finite; reference: 0 NaN, all finite");
}

/* the patterns the counts make certain, and only those */
static void test_patterns(void)
{
	struct {
		unsigned long long bad, first, last;
		const char *where;
	} cases[] = {
		{1024, 0, 1023, "(100%), every value,"},
		{1, 17, 17, "(0.098%), only index 17,"},
		{1023, 1, 1023, "(99.9%), all but index 0,"},
		{1023, 0, 1022, "(99.9%), all but the last index (1023),"},
		{1022, 0, 1023, "(99.8%), indices 0..1023,"},  /* which two matched is not known */
		{64, 960, 1023, "(6.2%), only the last 64 (indices 960..1023),"},
		{32, 0, 31, "(3.1%), only the first 32 (indices 0..31),"},
		{10, 100, 109, "(0.98%), indices 100..109, every one of them,"},
		{10, 100, 209, "(0.98%), indices 100..209,"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		verdict v = floats(1024, cases[i].bad, cases[i].first, cases[i].last);
		const char *msg = text(&v);
		if (!strstr(msg, cases[i].where))
			fprintf(stderr, "\n  case %zu: %s", i, msg);
		CU_ASSERT_PTR_NOT_NULL(strstr(msg, cases[i].where));
	}
	/* a share that would round to 100% or 0% keeps the digits that tell it apart */
	verdict v = floats(16777216, 16777215, 1, 16777215);
	CU_ASSERT_PTR_NOT_NULL(strstr(text(&v), "16777215 of 16777216 values differ (99.99999%), all but index 0,"));
	/* sampled (verify.sample): indices only, of the compared values */
	v = floats(1000, 3, 10, 990);
	v.stride = 10;
	CU_ASSERT_PTR_NOT_NULL(strstr(text(&v), ": 3 of 100 compared values differ (3%), indices 10..990 (1 in 10 compared),"));
	v.bad = 100;
	CU_ASSERT_PTR_NOT_NULL(strstr(text(&v), "(100%), every compared value,"));
}

/* A reference run's output of all zeros or with NaN in it is called suspect; given values are
 * not (they are what the user asked for), but their zeros are still told. */
static void test_a_suspect_reference(void)
{
	verdict v = floats(16777216, 16777215, 1, 16777215);
	v.ref_zero = 16777216;
	v.max_rel = 0;
	const char *msg = text(&v);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "max abs error 3.1 at index 8191 (got 158.1, expected 155); output: 0 NaN, all finite; "
					   "reference: 0 NaN, all finite; the reference looks suspect: all zeros"));
	v.given = 1;
	CU_ASSERT_PTR_NOT_NULL(strstr(text(&v), "; expected values: 0 NaN, all finite, all zeros"));
	CU_ASSERT_PTR_NULL(strstr(text(&v), "suspect"));

	/* an unwritten element in the reference: NaN against a number has no finite error */
	v = floats(1048576, 1, 0, 0);
	v.finite_error = 0;
	v.max_rel = 0;
	v.argmax = -1;
	v.ref_nan = 1;
	v.ref_zero = 3;
	CU_ASSERT_STRING_EQUAL(text(&v), "argument 2 'out': 1 of 1048576 values differ (9.5e-05%), only index 0, no finite "
					 "error (NaN against numbers); output: 0 NaN, all finite; reference: 1 NaN, no Inf, "
					 "3 zeros; the reference looks suspect: NaN in it");
	v.ref_nan = 1048576;
	CU_ASSERT_PTR_NOT_NULL(strstr(text(&v), "; the reference looks suspect: all NaN"));
	v.ref_nan = 0;
	v.ref_inf = 2;
	v.got_nan = 5;
	CU_ASSERT_PTR_NOT_NULL(strstr(text(&v), "; output: 5 NaN, no Inf; reference: 0 NaN, 2 Inf, 3 zeros; the reference looks "
						"suspect: Inf in it"));
}

/* Integers have no NaN or Inf to tell; vectors name the component; an index past 2^32 values is
 * not known, nor is an argument's name when the tuner sent none. */
static void test_integers_vectors_and_what_is_not_known(void)
{
	verdict v = {.arg = 0, .name = "out", .lanes = 1, .n = 1048576, .stride = 1, .bad = 5, .first = 0, .last = 4,
		     .finite_error = 1, .max_abs = 3, .max_rel = 2, .argmax = 2, .got_at = "-1", .want_at = "2",
		     .ref_zero = 349526};
	CU_ASSERT_STRING_EQUAL(text(&v), "argument 1 'out': 5 of 1048576 values differ (0.00048%), only the first 5 (indices "
					 "0..4), max abs error 3 at index 2 (got -1, expected 2), max rel error 2; reference: "
					 "349526 zeros");
	/* no zeros: nothing more to say of an integer reference */
	v.ref_zero = 0;
	const char *msg = text(&v), *end = "max rel error 2";
	CU_ASSERT(strlen(msg) > strlen(end) && !strcmp(msg + strlen(msg) - strlen(end), end));
	v = (verdict){.arg = 0, .is_float = 1, .lanes = 4, .n = 4096, .stride = 1, .bad = 2, .first = 1, .last = 7,
		      .finite_error = 1, .max_abs = 1, .argmax = 7, .got_at = "4", .want_at = "5"};
	CU_ASSERT_PTR_NOT_NULL(strstr(text(&v), "argument 1: 2 of 4096 values differ (0.049%), indices 0 (component y) .. 1 "
						"(component w), max abs error 1 at index 1 (component w) (got 4, expected 5);"));
	v.bad = 1;
	v.first = 7;
	CU_ASSERT_PTR_NOT_NULL(strstr(text(&v), "only index 1 (component w),"));
	v.argmax = -1;
	CU_ASSERT_PTR_NOT_NULL(strstr(text(&v), ", max abs error 1; output:"));
}

int add_verdict_suite(void)
{
	CU_pSuite s = CU_add_suite("verdict", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "a few values far apart", test_a_few_values_far_apart);
	CU_add_test(s, "patterns", test_patterns);
	CU_add_test(s, "a suspect reference", test_a_suspect_reference);
	CU_add_test(s, "integers, vectors, and what is not known", test_integers_vectors_and_what_is_not_known);
	return 0;
}
