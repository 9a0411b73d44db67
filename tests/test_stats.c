/* test_stats.c: median, noise, the stopping rule and the noise band, on recorded samples. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <string.h>

#include "stats.h"
#include "tests.h"

/* 20 event-timed samples of sumMatrix 256x1 on the H100 (ms), one of them preempted. */
static const double recorded[20] = {1.1655, 1.1630, 1.1673, 1.1648, 1.1661, 1.1652, 1.1639, 1.1667, 1.1650, 1.1644,
				    1.1658, 1.1646, 1.1662, 1.1641, 1.1653, 1.1657, 1.1649, 1.1660, 1.1643, 1.4020};

static void test_median_odd_even_and_empty(void)
{
	double a[] = {3, 1, 2}, b[] = {4, 1, 3, 2}, scratch[4];
	CU_ASSERT_DOUBLE_EQUAL(stats_median(a, 3), 2, 0);
	CU_ASSERT_DOUBLE_EQUAL(stats_median(b, 4), 2.5, 0);
	CU_ASSERT_DOUBLE_EQUAL(stats_median(b, 0), 0, 0);
	double c[] = {1, 2, 3, 4, 100};
	CU_ASSERT_DOUBLE_EQUAL(stats_mad(c, 5, scratch), 1, 0);
}

static void test_noise_ignores_one_outlier(void)
{
	double v[20], scratch[20];
	memcpy(v, recorded, sizeof v);
	double noise = stats_noise(v, 20, scratch);
	/* MAD of the recorded samples is 0.0008 ms: 1.2533 * 1.4826 * 0.0008 / sqrt(20) / 1.1652 */
	CU_ASSERT_DOUBLE_EQUAL(noise, 1.2533 * 1.4826 * 0.0008 / sqrt(20.0) / 1.16525, 2e-5);
	CU_ASSERT(noise < 0.001);
	/* a standard deviation would have been dominated by the 1.4020 outlier */
	double mean = 0, var = 0;
	for (int i = 0; i < 20; i++)
		mean += recorded[i] / 20;
	for (int i = 0; i < 20; i++)
		var += (recorded[i] - mean) * (recorded[i] - mean) / 19;
	CU_ASSERT(sqrt(var) / sqrt(20.0) / mean > 10 * noise);
}

static void test_noise_needs_two_samples(void)
{
	double v[1] = {1.0}, s[1];
	CU_ASSERT_DOUBLE_EQUAL(stats_noise(v, 1, s), 0, 0);
}

static void test_stopping_rule(void)
{
	stop_rule r = {0.01, 10, 1000, 2.0, 0, 0};
	CU_ASSERT(!stats_should_stop(&r, 5, 0.0, 0.1, 1.0));   /* below the minimum, even if quiet */
	CU_ASSERT(stats_should_stop(&r, 10, 0.005, 0.1, 1.0)); /* minimum reached and quiet */
	CU_ASSERT(!stats_should_stop(&r, 50, 0.02, 0.5, 1.0)); /* noisy, time left */
	CU_ASSERT(stats_should_stop(&r, 50, 0.02, 2.0, 1.0));  /* noisy, out of time */
	CU_ASSERT(stats_should_stop(&r, 1000, 0.5, 0.1, 1.0)); /* maximum */
	CU_ASSERT(!stats_should_stop(&r, 5, 0.5, 0.1, 9.0));   /* no race: slow is no reason */
	/* raced out: from the first sample past the bound, and never after the minimum, so that a
	 * raced result is one of fewer samples than the minimum */
	r.race_ms = 1.3;
	CU_ASSERT(!stats_should_stop(&r, 0, 0.5, 0.1, 9.0));
	CU_ASSERT(stats_should_stop(&r, 1, 0.5, 0.1, 1.31));
	CU_ASSERT(!stats_should_stop(&r, 1, 0.5, 0.1, 1.29));
	CU_ASSERT(!stats_should_stop(&r, 11, 0.5, 0.1, 9.0));
	/* the tighter bound from the third sample on, and not before */
	r.near_ms = 1.05;
	CU_ASSERT(!stats_should_stop(&r, RACE_AFTER - 1, 0.5, 0.1, 1.06));
	CU_ASSERT(stats_should_stop(&r, RACE_AFTER, 0.5, 0.1, 1.06));
	CU_ASSERT(!stats_should_stop(&r, RACE_AFTER, 0.5, 0.1, 1.04));
	CU_ASSERT(!stats_should_stop(&r, 10, 0.5, 0.1, 1.2));
	CU_ASSERT(stats_raced(RACE_AFTER, 10, "") && !stats_raced(10, 10, NULL) && !stats_raced(0, 10, NULL));
	/* fewer samples than the minimum because the cap stopped them is not a race */
	CU_ASSERT(!stats_raced(4, 10, STATS_CAPPED " after 4 of min_samples 10"));
	CU_ASSERT(stats_raced(4, 10, "unverified"));
}

/* The time cap holds below the minimum too, from the first sample: a slow kernel with a large
 * min_samples stops at the cap instead of sampling on until the run's deadline. */
static void test_the_time_cap_holds_below_the_minimum(void)
{
	stop_rule r = {0.01, 1000, 1000, 30.0, 0, 0};
	CU_ASSERT(!stats_should_stop(&r, 0, 0.0, 31.0, 1.0)); /* not before one sample */
	CU_ASSERT(!stats_should_stop(&r, 5, 0.5, 29.9, 1.0));
	CU_ASSERT(stats_should_stop(&r, 5, 0.5, 30.0, 1.0));
	CU_ASSERT(stats_should_stop(&r, 999, 0.0, 30.5, 1.0));
	CU_ASSERT(!stats_raced_out(&r, 5, 1.0)); /* no race was asked */
}

static void test_noise_band(void)
{
	/* 0.1% noise each: the band is 2 * sqrt(2) * 0.1% = 0.28% */
	CU_ASSERT(stats_within_noise(1.000, 0.001, 1.0025, 0.001, 2));
	CU_ASSERT(!stats_within_noise(1.000, 0.001, 1.0030, 0.001, 2));
	CU_ASSERT(!stats_within_noise(1.000, 0.0, 1.0001, 0.0, 2));
}

int add_stats_suite(void)
{
	CU_pSuite s = CU_add_suite("stats", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "median odd, even and empty", test_median_odd_even_and_empty);
	CU_add_test(s, "noise ignores one outlier", test_noise_ignores_one_outlier);
	CU_add_test(s, "noise needs two samples", test_noise_needs_two_samples);
	CU_add_test(s, "stopping rule", test_stopping_rule);
	CU_add_test(s, "the time cap holds below the minimum", test_the_time_cap_holds_below_the_minimum);
	CU_add_test(s, "noise band", test_noise_band);
	return 0;
}
