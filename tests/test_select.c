/* test_select.c: the selection policy on recorded summatrix measurements (H100). */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "select.h"
#include "tests.h"

/* Three block shapes measured on the H100 (median ms, noise) with their counters. */
static void recorded(result r[4])
{
	memset(r, 0, 4 * sizeof *r);
	/* 256x1: fastest by a hair, full occupancy achieved 80%, load efficiency 100% */
	r[0] = (result){.st = ST_OK, .samples = 20, .t_median = 1.1632, .noise = 0.0008, .occupancy = 1.0};
	/* 128x2: 0.05% slower, within noise; achieved 88% */
	r[1] = (result){.st = ST_OK, .samples = 20, .t_median = 1.1638, .noise = 0.0008, .occupancy = 1.0};
	/* 16x16: clearly slower, poor load efficiency */
	r[2] = (result){.st = ST_OK, .samples = 20, .t_median = 1.50, .noise = 0.0008, .occupancy = 1.0};
	/* wrong-result but "faster": must never win */
	r[3] = (result){.st = ST_WRONG_RESULT, .samples = 0, .t_median = 0.5, .occupancy = 1.0};
	double m0[] = {80, 100, 1e12, 90, 100}, m1[] = {88, 100, 1e12, 90, 100}, m2[] = {95, 50, 2e12, 70, 100};
	memcpy(r[0].metrics, m0, sizeof m0);
	memcpy(r[1].metrics, m1, sizeof m1);
	memcpy(r[2].metrics, m2, sizeof m2);
	r[0].have_metrics = r[1].have_metrics = r[2].have_metrics = 1;
}

static const select_policy balanced = {.kind = POLICY_BALANCED, .w_occupancy = 1, .w_load_efficiency = 1, .noise_band = 2},
			   fastest = {.kind = POLICY_FASTEST, .w_occupancy = 1, .w_load_efficiency = 1, .noise_band = 2};

static void test_fastest_policy_takes_the_smallest_median(void)
{
	result r[4];
	choice c;
	recorded(r);
	select_winner(r, 4, &fastest, &c);
	CU_ASSERT_EQUAL(c.winner, 0);
	CU_ASSERT_EQUAL(c.fastest, 0);
	choice_free(&c);
}

static void test_balanced_breaks_a_tie_within_noise_by_occupancy(void)
{
	result r[4];
	choice c;
	recorded(r);
	select_winner(r, 4, &balanced, &c);
	/* 128x2 is within the noise band of 256x1 and achieves more occupancy */
	CU_ASSERT_EQUAL(c.winner, 1);
	CU_ASSERT_EQUAL(c.fastest, 0);
	CU_ASSERT_EQUAL(c.ntied, 2);
	choice_free(&c);
}

/* 256x1 (grid 64) and 128x2 (grid 128) summatrix, of 256 threads each. */
static void set_shape(result *r, long long block_x, long long grid_x)
{
	r->block[0] = block_x;
	r->block[1] = 256 / block_x;
	r->block[2] = r->grid[1] = r->grid[2] = 1;
	r->grid[0] = grid_x;
}

/* Recorded on two H200s: 256x1 with register cap 0 and with cap 32, the same time within noise,
 * achieved occupancy 74.67% and 74.64% on one run, 74.60% and 74.64% on the next. */
static void test_balance_within_noise_builds_of_one_shape_go_to_the_first_in_the_space(void)
{
	result r[2];
	memset(r, 0, sizeof r);
	r[0] = (result){.st = ST_OK, .samples = 20, .t_median = 0.93840, .noise = 0.0005, .occupancy = 1.0};
	r[1] = (result){.st = ST_OK, .samples = 20, .t_median = 0.93818, .noise = 0.0005, .occupancy = 1.0};
	set_shape(&r[0], 256, 64);
	set_shape(&r[1], 256, 64);
	double runs[2][2] = {{74.67, 74.64}, {74.60, 74.64}};
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < 2; i++) {
			double m[] = {runs[k][i], 100, 1e12, 90, 100};
			memcpy(r[i].metrics, m, sizeof m);
			r[i].have_metrics = 1;
		}
		choice c;
		select_winner(r, 2, &balanced, &c);
		CU_ASSERT_EQUAL(c.fastest, 1);
		CU_ASSERT_EQUAL(c.winner, 0); /* both runs: not the coin flip of 0.07 points */
		choice_free(&c);
	}
	/* a real difference in balance still decides */
	r[1].metrics[METRIC_ACHIEVED_OCCUPANCY] = 80;
	choice c;
	select_winner(r, 2, &balanced, &c);
	CU_ASSERT_EQUAL(c.winner, 1);
	choice_free(&c);
}

/* One H200 run of the last bench: 128x2 with register cap 32 (earlier in the space) came within
 * 0.04% of 256x1 with cap 0, inside both noise bands (±0.02%), balance within 0.01; in the other
 * runs it trailed by 0.06-0.3%, outside. Which shape is faster repeats between runs where falling
 * inside the band does not, so the faster wins rather than the first in the space. */
static void test_balance_within_noise_two_shapes_go_to_the_faster(void)
{
	result r[2];
	memset(r, 0, sizeof r);
	double t[2] = {0.9536, 0.9532}, occ[2] = {74.3, 74.6};
	for (int i = 0; i < 2; i++) {
		r[i] = (result){.st = ST_OK, .samples = 20, .t_median = t[i], .occupancy = 1.0,
				.final_rounds = 7, .final_median = t[i], .final_noise = 0.0002};
		double m[] = {occ[i], 100, 1e12, 90, 100};
		memcpy(r[i].metrics, m, sizeof m);
		r[i].have_metrics = 1;
	}
	set_shape(&r[0], 128, 128);
	set_shape(&r[1], 256, 64);
	choice c;
	select_winner(r, 2, &balanced, &c);
	CU_ASSERT_EQUAL(c.ntied, 2);
	CU_ASSERT_EQUAL(c.winner, 1);
	choice_free(&c);
	/* the other way round, 128x2 wins: the order of the times decides, not the shape */
	r[0].final_median = 0.9530;
	select_winner(r, 2, &balanced, &c);
	CU_ASSERT_EQUAL(c.ntied, 2);
	CU_ASSERT_EQUAL(c.winner, 0);
	choice_free(&c);
	/* and more balance still beats a faster median inside the band */
	r[0].final_median = 0.9536;
	r[0].metrics[METRIC_ACHIEVED_OCCUPANCY] = 80;
	select_winner(r, 2, &balanced, &c);
	CU_ASSERT_EQUAL(c.winner, 0);
	choice_free(&c);
}

/* Two summatrix runs on an H200 (finalist medians, noise, achieved occupancy): 256x1 with register
 * cap 0 and cap 32, then 128x2. Cap 32 came out 0.13% ahead in one run and 0.01% behind in the
 * other, with a noise of 0.005-0.02%; 128x2 trailed in both. */
static void test_builds_of_one_launch_shape_swap_places_a_tie(void)
{
	double runs[2][3][3] = {{{0.953152, 0.000071, 74.59}, {0.951936, 0.000142, 74.93}, {0.953504, 0.000118, 74.19}},
				{{0.951936, 0.000047, 74.88}, {0.951840, 0.000047, 74.63}, {0.953664, 0.000189, 74.18}}};
	long long shape[3][2] = {{256, 64}, {256, 64}, {128, 128}}; /* block.x, grid.x */
	for (int k = 0; k < 2; k++) {
		result r[3];
		memset(r, 0, sizeof r);
		for (int i = 0; i < 3; i++) {
			r[i] = (result){.st = ST_OK, .samples = 20, .t_median = runs[k][i][0], .occupancy = 1.0,
					.final_rounds = 7, .final_median = runs[k][i][0], .final_noise = runs[k][i][1]};
			set_shape(&r[i], shape[i][0], shape[i][1]);
			double m[] = {runs[k][i][2], 100, 1e12, 90, 100};
			memcpy(r[i].metrics, m, sizeof m);
			r[i].have_metrics = 1;
		}
		choice c;
		select_winner(r, 3, &balanced, &c);
		CU_ASSERT_EQUAL(c.fastest, 1);
		CU_ASSERT_EQUAL(c.winner, 0); /* the first of the two builds, both runs */
		CU_ASSERT_EQUAL(c.ntied, 2);  /* 128x2 is another shape, outside the noise */
		choice_free(&c);
		/* beyond SHAPE_TIE the faster build wins */
		r[0].final_median = r[1].final_median * 1.003;
		select_winner(r, 3, &balanced, &c);
		CU_ASSERT_EQUAL(c.winner, 1);
		choice_free(&c);
	}
}

/* Plans of one first launch that differ in streams, order or connections are other launches, not
 * builds of one: the faster wins even within SHAPE_TIE, as two shapes of one noise band do. */
static void test_a_plan_is_part_of_the_launch_shape(void)
{
	result a, b;
	memset(&a, 0, sizeof a);
	set_shape(&a, 32, 4);
	a.streams = 8;
	a.connections = 32;
	b = a;
	CU_ASSERT(same_shape(&a, &b));
	b.breadth_first = 1;
	CU_ASSERT(!same_shape(&a, &b));
	b = a;
	b.connections = 8;
	CU_ASSERT(!same_shape(&a, &b));
	b = a;
	b.streams = 16;
	CU_ASSERT(!same_shape(&a, &b));
	/* 8 connections (second in the space) 0.1% faster than 32: time decides */
	result r[2];
	for (int i = 0; i < 2; i++) {
		r[i] = (result){.st = ST_OK, .samples = 20, .t_median = i ? 1.000 : 1.001, .noise = 0.0001, .occupancy = 1.0,
				.streams = 8, .connections = i ? 8 : 32};
		set_shape(&r[i], 32, 4);
	}
	choice c;
	select_winner(r, 2, &balanced, &c);
	CU_ASSERT_EQUAL(c.winner, 1);
	choice_free(&c);
}

static void test_balanced_never_trades_real_time_for_balance(void)
{
	result r[4];
	choice c;
	recorded(r);
	/* 16x16 has the best achieved occupancy but is 29% slower: outside the band */
	r[1].t_median = 1.20;
	select_winner(r, 4, &balanced, &c);
	CU_ASSERT_EQUAL(c.winner, 0);
	CU_ASSERT_EQUAL(c.ntied, 1);
	choice_free(&c);
}

static void test_without_counters_theoretical_occupancy_decides(void)
{
	result r[4];
	choice c;
	recorded(r);
	for (int i = 0; i < 3; i++)
		r[i].have_metrics = 0;
	r[0].occupancy = 0.5;
	select_winner(r, 4, &balanced, &c);
	CU_ASSERT_EQUAL(c.winner, 1);
	CU_ASSERT_DOUBLE_EQUAL(balance_score(&r[0], &balanced), 0.75, 1e-12);
	choice_free(&c);
}

static void test_finalist_times_replace_first_pass_times(void)
{
	result r[4];
	choice c;
	recorded(r);
	/* interleaved re-timing found 128x2 clearly faster */
	r[0].final_rounds = r[1].final_rounds = 5;
	r[0].final_median = 1.170;
	r[0].final_noise = 0.0005;
	r[1].final_median = 1.160;
	r[1].final_noise = 0.0005;
	select_winner(r, 4, &fastest, &c);
	CU_ASSERT_EQUAL(c.winner, 1);
	choice_free(&c);
}

static void test_nothing_passed(void)
{
	result r[4];
	choice c;
	recorded(r);
	for (int i = 0; i < 3; i++)
		r[i].st = ST_CRASHED;
	select_winner(r, 4, &balanced, &c);
	CU_ASSERT_EQUAL(c.winner, -1);
	CU_ASSERT_EQUAL(c.ntied, 0);
	choice_free(&c);
}

/* Three runs of 1 ms, one launch shape each unless set, all balance 1 unless lowered. */
static void three(result r[3])
{
	memset(r, 0, 3 * sizeof *r);
	for (int i = 0; i < 3; i++) {
		r[i] = (result){.st = ST_OK, .samples = 20, .t_median = 1.0320, .noise = 0.001, .occupancy = 1.0};
		set_shape(&r[i], i == 1 ? 128 : 256, i == 1 ? 128 : 64 + i);
	}
}

/* Why tied configuration i lost, as select_winner decided, and the winner. */
static const char *why(const result *r, size_t n, const select_policy *p, size_t i, long long *winner)
{
	choice c;
	select_winner(r, n, p, &c);
	*winner = c.winner;
	const char *s = (long long)i == c.winner ? "(the winner)" : select_why_lost(r, &c, i, p);
	choice_free(&c);
	return s;
}

/* The reason a tied configuration lost names what decided: equal medians are not "slower", the
 * space's order decides them; a slower median, a lower balance and the winner's launch shape
 * are each said as such. */
static void test_why_a_tied_configuration_lost(void)
{
	result r[3];
	long long w;
	three(r);
	CU_ASSERT_STRING_EQUAL(why(r, 3, &fastest, 1, &w), "equal median: the winner comes first in the space");
	CU_ASSERT_EQUAL(w, 0);
	CU_ASSERT_STRING_EQUAL(why(r, 3, &balanced, 1, &w),
			       "same balance within 0.01, equal median: the winner comes first in the space");
	CU_ASSERT_EQUAL(w, 0);
	r[1].t_median = 1.0321;
	CU_ASSERT_STRING_EQUAL(why(r, 3, &fastest, 1, &w), "slower median");
	CU_ASSERT_STRING_EQUAL(why(r, 3, &balanced, 1, &w), "same balance within 0.01, slower median");
	r[1].occupancy = 0.9;
	CU_ASSERT_STRING_EQUAL(why(r, 3, &balanced, 1, &w), "lower balance");
	/* 0 and 2 are builds of one launch shape (grid 64 both): the first in the space wins */
	three(r);
	set_shape(&r[2], 256, 64);
	r[2].t_median = 1.0319;
	CU_ASSERT_STRING_EQUAL(why(r, 3, &balanced, 2, &w),
			       "the winner's launch shape: the winner comes first in the space");
	CU_ASSERT_EQUAL(w, 0);
	/* 2 is the fastest, 0 wins as its build earlier in the space: 1 lost to 2's time */
	CU_ASSERT_STRING_EQUAL(why(r, 3, &balanced, 1, &w),
			       "same balance within 0.01, slower median than the fastest (the winner has its launch shape)");
	/* 1 the fastest, 0 its build earlier in the space, 2 another shape as fast as 1 but after it */
	three(r);
	set_shape(&r[1], 256, 64);
	r[1].t_median = r[2].t_median = 1.0319;
	CU_ASSERT_STRING_EQUAL(why(r, 3, &balanced, 2, &w), "same balance within 0.01, the fastest's median but later in "
							    "the space (the winner has the fastest's launch shape)");
	CU_ASSERT_EQUAL(w, 0);
}

int add_select_suite(void)
{
	CU_pSuite s = CU_add_suite("select", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "fastest policy takes the smallest median", test_fastest_policy_takes_the_smallest_median);
	CU_add_test(s, "builds of one launch shape that swap places are a tie", test_builds_of_one_launch_shape_swap_places_a_tie);
	CU_add_test(s, "balanced breaks a tie within noise by occupancy", test_balanced_breaks_a_tie_within_noise_by_occupancy);
	CU_add_test(s, "balance within noise: builds of one shape go to the first in the space",
		    test_balance_within_noise_builds_of_one_shape_go_to_the_first_in_the_space);
	CU_add_test(s, "balance within noise: of two shapes the faster wins", test_balance_within_noise_two_shapes_go_to_the_faster);
	CU_add_test(s, "balanced never trades real time for balance", test_balanced_never_trades_real_time_for_balance);
	CU_add_test(s, "without counters theoretical occupancy decides", test_without_counters_theoretical_occupancy_decides);
	CU_add_test(s, "finalist times replace first-pass times", test_finalist_times_replace_first_pass_times);
	CU_add_test(s, "why a tied configuration lost", test_why_a_tied_configuration_lost);
	CU_add_test(s, "nothing passed", test_nothing_passed);
	CU_add_test(s, "a plan is part of the launch shape", test_a_plan_is_part_of_the_launch_shape);
	return 0;
}
