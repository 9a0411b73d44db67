/* test_pool.c: the compile pool as the lanes share it (pool.c). Without a builder (everything
 * was built before measuring: a cache, a dry build), every binary is in: nothing waits, and a
 * search's schedule measures what it asks for at once. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdlib.h>

#include "pool.h"
#include "schedule.h"
#include "tests.h"

static void test_without_a_builder_every_binary_is_in(void)
{
	lane_pool p;
	lane_pool_init(&p, NULL);
	for (size_t bin = 0; bin < 4; bin++)
		CU_ASSERT_TRUE(lane_pool_ops.done(&p, bin));
	CU_ASSERT_EQUAL(lane_pool_wait(&p, 3), 0);
	lane_pool_hint(&p, (const size_t[]){0, 0, 1}, 2, (const size_t[]){2, 0}, 2);
	CU_ASSERT_DOUBLE_EQUAL(p.wait_s, 0, 0);
	lane_pool_destroy(&p);
}

static size_t measured[8], nmeasured;

static void count_measure(void *ctx, size_t c, int ahead)
{
	(void)ctx;
	(void)ahead;
	measured[nmeasured++ % 8] = c;
}

static double time_of(void *ctx, size_t c) { return (void)ctx, 2.0 * (double)c; }

/* A search's evaluation goes straight to its lane: no step of waiting, one measurement each. */
static void test_a_search_on_a_built_pool_never_waits(void)
{
	lane_pool p;
	lane_pool_init(&p, NULL);
	const size_t of_config[4] = {0, 0, 1, 1};
	schedule S = {.of_config = of_config, .nbins = 2, .lane = {count_measure, time_of, NULL}, .pool = lane_pool_ops,
		      .pool_ctx = &p};
	nmeasured = 0;
	CU_ASSERT_DOUBLE_EQUAL(schedule_eval(&S, 3), 6.0, 0);
	CU_ASSERT_DOUBLE_EQUAL(schedule_eval(&S, 1), 2.0, 0);
	CU_ASSERT_EQUAL_FATAL(nmeasured, 2);
	CU_ASSERT_EQUAL(measured[0], 3);
	CU_ASSERT_EQUAL(measured[1], 1);
	CU_ASSERT_DOUBLE_EQUAL(p.wait_s, 0, 0);
	schedule_free(&S);
	lane_pool_destroy(&p);
}

int add_pool_suite(void)
{
	CU_pSuite s = CU_add_suite("pool", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "without a builder every binary is in", test_without_a_builder_every_binary_is_in);
	CU_add_test(s, "a search on a built pool never waits", test_a_search_on_a_built_pool_never_waits);
	return 0;
}
