/* test_measure_search.c: a live search's executor (measure_search.c) with an in-process lane: the
 * pass's visit is a fake that records each visit, under the pass's lock, and passes it with a
 * time of its own; the pool has every binary. Nothing runs a worker, nvcc or a clock. */
#include <CUnit/CUnit.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compile.h"
#include "config.h"
#include "measure_pass.h"
#include "space.h"
#include "tests.h"

typedef struct {
	size_t visits[64], nvisits;
	int unlocked; /* a visit found the pass's lock free: it was not held */
	int other_lane;
	size_t stop_after; /* the run stops (a worker gone) after this many visits (0: never) */
} fake_lane;

static fake_lane F;

static int fake_visit(pass *P, lane *L, size_t c)
{
	if (pthread_mutex_trylock(&P->lock) == 0) {
		F.unlocked = 1;
		pthread_mutex_unlock(&P->lock);
	}
	F.other_lane |= L != &P->lanes[0];
	F.visits[F.nvisits++ % 64] = c;
	P->res[c].st = ST_OK;
	P->res[c].samples = 1;
	P->res[c].t_median = 1 + (double)((c * 7) % 16);
	if (F.stop_after && F.nvisits >= F.stop_after)
		P->stopped = -1;
	return 0;
}

/* Runs pass_search over a space of 32 (V 1..16, bx 32 or 64) with `budget` evaluations. */
static void search_with(const char *strategy_name, size_t budget, size_t stop_after)
{
	config cfg;
	space sp;
	build b;
	diags d = {0};
	const char *yaml = write_temp(1, "search.yaml", "kernel: {source: /dev/null, entry: k}\n"
							"arguments: [{name: a, type: float, count: 4}]\n"
							"space: {V: {start: 1, stop: 16}, bx: [32, 64]}\n"
							"launch: {block: [bx], grid: [1]}\nbuild: {defines: [V]}\n");
	CU_ASSERT_EQUAL_FATAL(config_load(yaml, &cfg, &d) || space_enumerate(&cfg, &sp, &d), 0);
	build_plan(&cfg, &sp, &b);
	static volatile sig_atomic_t no_signal;
	measure_opts o = {.interrupted = &no_signal, .budget = budget, .seed = 3};
	CU_ASSERT_EQUAL_FATAL(strategy_parse(strategy_name, &o.strategy), 0);
	result *res = calloc(sp.count, sizeof *res);
	lane lanes[2];
	pass P = {.cfg = &cfg, .sp = &sp, .b = &b, .res = res, .o = &o, .d = &d, .lanes = lanes, .nlanes = 2,
		  .visit = fake_visit};
	lanes[0] = (lane){.gpu = 0, .loaded = -1, .P = &P};
	lanes[1] = (lane){.gpu = 1, .loaded = -1, .P = &P};
	pthread_mutex_init(&P.lock, NULL);
	lane_pool_init(&P.pool, NULL);
	memset(&F, 0, sizeof F);
	F.stop_after = stop_after;
	pass_search(&P, budget);
	lane_pool_destroy(&P.pool);
	pthread_mutex_destroy(&P.lock);
	free(res);
	build_free(&b);
	space_free(&sp);
	config_free(&cfg);
	diags_free(&d);
	unlink(yaml);
}

/* Each proposal is visited once, on the first lane, under the pass's lock, and the search takes
 * its whole budget: as many visits as evaluations, whatever the strategy. */
static void test_a_search_visits_its_budget_on_the_first_lane(void)
{
	static const char *const strategies[] = {"random", "local", "anneal", "genetic", "model"};
	for (size_t i = 0; i < sizeof strategies / sizeof *strategies; i++) {
		search_with(strategies[i], 6, 0);
		CU_ASSERT_EQUAL(F.nvisits, 6);
		for (size_t a = 0; a < F.nvisits; a++)
			for (size_t k = a + 1; k < F.nvisits; k++)
				CU_ASSERT_NOT_EQUAL(F.visits[a], F.visits[k]);
		CU_ASSERT_FALSE(F.unlocked);
		CU_ASSERT_FALSE(F.other_lane);
	}
}

/* A run that stops (a worker gone) ends the search at the next proposal: nothing more is
 * visited. */
static void test_a_stopped_run_ends_the_search(void)
{
	search_with("random", 10, 3);
	CU_ASSERT_EQUAL(F.nvisits, 3);
}

int add_measure_search_suite(void)
{
	CU_pSuite s = CU_add_suite("measure_search", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "a search visits its budget on the first lane", test_a_search_visits_its_budget_on_the_first_lane);
	CU_add_test(s, "a stopped run ends the search", test_a_stopped_run_ends_the_search);
	return 0;
}
