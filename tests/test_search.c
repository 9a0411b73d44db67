/* test_search.c: every strategy's invariants on a synthetic space: only configurations of the
 * space, never one twice, within the budget, the same sequence for the same seed; and that the
 * guided ones find a smooth function's optimum with a fraction of the evaluations; a start given
 * (search_opts.start) is evaluated first, once, and the descents go on from it. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "proc.h"
#include "search.h"
#include "tests.h"

static config cfg;
static space sp;
static int evaluations;

/* tests.h's bowl over the space */
static double bowl(void *ctx, size_t c)
{
	(void)ctx;
	evaluations++;
	return search_bowl(&sp, c);
}

static int setup(void) { return search_bowl_space("search.yaml", &cfg, &sp); }

static int teardown(void)
{
	space_free(&sp);
	config_free(&cfg);
	return 0;
}

static void test_invariants_of_every_strategy(void)
{
	size_t budget = sp.count / 10;
	size_t *order = calloc(sp.count, sizeof *order), *again = calloc(sp.count, sizeof *again);
	char *seen = calloc(sp.count, 1);
	for (int s = 0; s < STRAT_COUNT_; s++) {
		evaluations = 0;
		size_t n = search_run(&cfg, &sp, &(search_opts){.strategy = (strategy)s,
				.budget = budget, .seed = 42, .eval = bowl}, order);
		CU_ASSERT(n <= budget);
		CU_ASSERT_EQUAL(n, budget); /* the space is larger than the budget: all of it is used */
		CU_ASSERT_EQUAL((size_t)evaluations, n);
		memset(seen, 0, sp.count);
		for (size_t k = 0; k < n; k++) {
			CU_ASSERT_FATAL(order[k] < sp.count);
			CU_ASSERT_EQUAL(seen[order[k]], 0); /* never twice */
			seen[order[k]] = 1;
		}
		size_t m = search_run(&cfg, &sp, &(search_opts){.strategy = (strategy)s,
				.budget = budget, .seed = 42, .eval = bowl}, again);
		CU_ASSERT_EQUAL(m, n);
		CU_ASSERT(memcmp(order, again, n * sizeof *order) == 0); /* same seed, same sequence */
	}
	/* exhaustive is the space's order; a budget larger than the space stops at its size */
	size_t n = search_run(&cfg, &sp, &(search_opts){.strategy = STRAT_EXHAUSTIVE,
			.budget = sp.count + 10, .seed = 1, .eval = bowl}, order);
	CU_ASSERT_EQUAL(n, sp.count);
	for (size_t k = 0; k < n; k++)
		CU_ASSERT_EQUAL(order[k], k);
	/* another seed, another random sample */
	search_run(&cfg, &sp, &(search_opts){.strategy = STRAT_RANDOM,
			.budget = budget, .seed = 1, .eval = bowl}, order);
	search_run(&cfg, &sp, &(search_opts){.strategy = STRAT_RANDOM,
			.budget = budget, .seed = 2, .eval = bowl}, again);
	CU_ASSERT(memcmp(order, again, budget * sizeof *order) != 0);
	free(order);
	free(again);
	free(seen);
}

static double best_of(const size_t *order, size_t n)
{
	double best = INFINITY;
	for (size_t k = 0; k < n; k++)
		best = fmin(best, bowl(NULL, order[k]));
	return best;
}

static void test_guided_strategies_find_a_smooth_optimum(void)
{
	size_t budget = sp.count / 10;
	size_t *order = calloc(sp.count, sizeof *order);
	double *prior = calloc(sp.count, sizeof *prior);
	/* a crude model: it knows only that x = 16 is best */
	for (size_t c = 0; c < sp.count; c++)
		prior[c] = fabs(log2((double)space_config(&sp, c)[0].u.i) - 4);
	strategy guided[] = {STRAT_LOCAL, STRAT_ANNEAL, STRAT_MODEL};
	for (size_t g = 0; g < 3; g++) {
		int hits = 0;
		for (unsigned long long seed = 1; seed <= 10; seed++) {
			size_t n = search_run(&cfg, &sp, &(search_opts){.strategy = guided[g], .prior = prior,
					.budget = budget, .seed = seed, .eval = bowl}, order);
			hits += best_of(order, n) == 1.0;
		}
		/* a bowl has one basin: descent finds its bottom from almost any start */
		CU_ASSERT(hits >= 8);
	}
	/* a perfect model's optimum is measured second, after one uniform draw (a model that is wrong
	 * on this GPU does not decide the first result, which stands alone while the next compiles) */
	for (size_t c = 0; c < sp.count; c++)
		prior[c] = bowl(NULL, c);
	search_run(&cfg, &sp, &(search_opts){.strategy = STRAT_MODEL, .prior = prior,
			.budget = 5, .seed = 1, .eval = bowl}, order);
	CU_ASSERT_DOUBLE_EQUAL(bowl(NULL, order[1]), 1.0, 0);
	free(order);
	free(prior);
}

/* Whether configurations a and b differ in one parameter by one step of its value list. */
static int one_step_apart(size_t a, size_t b)
{
	const value *va = space_config(&sp, a), *vb = space_config(&sp, b);
	int steps = 0;
	for (size_t i = 0; i < cfg.nparams; i++) {
		const param *p = &cfg.params[i];
		long ka = -1, kb = -1;
		for (size_t k = 0; k < p->nvalues; k++) {
			if (value_as_double(p->values[k]) == value_as_double(va[i]))
				ka = (long)k;
			if (value_as_double(p->values[k]) == value_as_double(vb[i]))
				kb = (long)k;
		}
		steps += ka == kb ? 0 : labs(ka - kb) == 1 ? 1 : 2;
	}
	return steps == 1;
}

static void ignore_hint(void *ctx, const size_t *configs, size_t n)
{
	(void)ctx;
	(void)configs;
	(void)n;
}

static void test_every_strategy_evaluates_the_start_first_and_once(void)
{
	size_t budget = sp.count / 10;
	size_t *order = calloc(sp.count, sizeof *order), *again = calloc(sp.count, sizeof *again);
	char *seen = calloc(sp.count, 1);
	/* the start: two configurations far from the bowl's bottom, given twice, and one not of the
	 * space (left out) */
	size_t a = sp.count / 3, b = sp.count - 1, start[] = {a, b, a, sp.count + 5};
	for (int s = 0; s < STRAT_COUNT_; s++) {
		evaluations = 0;
		search_opts so = {.strategy = (strategy)s, .budget = budget, .seed = 7, .eval = bowl, .start = start, .nstart = 4};
		size_t n = search_run(&cfg, &sp, &so, order);
		CU_ASSERT_EQUAL(n, budget);
		CU_ASSERT_EQUAL((size_t)evaluations, n);
		CU_ASSERT_EQUAL(order[0], a);
		CU_ASSERT_EQUAL(order[1], b);
		memset(seen, 0, sp.count);
		for (size_t k = 0; k < n; k++) {
			CU_ASSERT_FATAL(order[k] < sp.count);
			CU_ASSERT_EQUAL(seen[order[k]], 0);
			seen[order[k]] = 1;
		}
		CU_ASSERT_EQUAL(search_run(&cfg, &sp, &so, again), n);
		CU_ASSERT(memcmp(order, again, n * sizeof *order) == 0);
		/* told what comes (as a caller that compiles ahead is), the same sequence */
		search_opts told = so;
		told.hint = told.commit = ignore_hint;
		CU_ASSERT_EQUAL(search_run(&cfg, &sp, &told, again), n);
		CU_ASSERT(memcmp(order, again, n * sizeof *order) == 0);
		/* a descent and annealing go on from the better of the start, not from a random draw */
		size_t from = bowl(NULL, a) <= bowl(NULL, b) ? a : b;
		if (s == STRAT_LOCAL || s == STRAT_ANNEAL)
			CU_ASSERT(one_step_apart(order[2], from));
		/* a budget the start uses up: the start alone */
		so.budget = 1;
		CU_ASSERT_EQUAL(search_run(&cfg, &sp, &so, order), 1);
		CU_ASSERT_EQUAL(order[0], a);
	}
	free(order);
	free(again);
	free(seen);
}

/* A caller that measures committed configurations ahead of their turn: each polled configuration
 * comes in on its third poll, and the rest of the committed list is peeked as it would have been
 * measured meanwhile. */
static struct {
	unsigned char polls[4096];
	char committed[4096];
	size_t hints, polled;
} early;

static void note_hint(void *ctx, const size_t *configs, size_t n)
{
	(void)ctx;
	(void)configs;
	early.hints += n > 0;
}

static void note_commit(void *ctx, const size_t *configs, size_t n)
{
	(void)ctx;
	for (size_t i = 0; i < n; i++)
		early.committed[configs[i]] = 1;
}

static int slow_poll(void *ctx, size_t c)
{
	(void)ctx;
	early.polled++;
	return ++early.polls[c] >= 3;
}

static double peek_committed(void *ctx, size_t c)
{
	(void)ctx;
	return early.committed[c] && early.polls[c] == 0 ? 1.0 + (double)(c % 7) : NAN;
}

/* Polling and peeking steer the guesses, never the sequence: every strategy proposes the same
 * configurations with them as without, and a search that waits guesses again as it polls. */
static void test_polling_and_peeking_never_change_the_sequence(void)
{
	CU_ASSERT_FATAL(sp.count <= sizeof early.polls);
	size_t budget = sp.count / 10;
	size_t *order = calloc(sp.count, sizeof *order), *again = calloc(sp.count, sizeof *again);
	for (int s = 0; s < STRAT_COUNT_; s++) {
		search_opts so = {.strategy = (strategy)s, .budget = budget, .seed = 3, .eval = bowl,
				  .hint = note_hint, .commit = note_commit};
		memset(&early, 0, sizeof early);
		size_t n = search_run(&cfg, &sp, &so, order), hints = early.hints;
		so.poll = slow_poll;
		so.peek = peek_committed;
		memset(&early, 0, sizeof early);
		CU_ASSERT_EQUAL(search_run(&cfg, &sp, &so, again), n);
		CU_ASSERT(memcmp(order, again, n * sizeof *order) == 0);
		if (s == STRAT_MODEL) {
			CU_ASSERT(early.polled >= 2 * budget / 2); /* the waves' and the first half's */
			CU_ASSERT(early.hints > hints);            /* guessed again while waiting */
		}
	}
	free(order);
	free(again);
}

/* What a search evaluates first whatever the results is known before any result, and without
 * evaluating anything: the model's first half, a random sequence, the start before them. */
static void test_the_first_proposals_are_known_before_any_result(void)
{
	size_t budget = sp.count / 10, start[] = {7, 11};
	size_t *order = calloc(sp.count, sizeof *order), *first = calloc(sp.count, sizeof *first);
	for (int s = 0; s < STRAT_COUNT_; s++) {
		for (size_t ns = 0; ns <= 2; ns += 2) {
			search_opts so = {.strategy = (strategy)s, .budget = budget, .seed = 5, .eval = bowl,
					  .start = start, .nstart = ns};
			int before = evaluations;
			size_t nf = search_first(&cfg, &sp, &so, first, budget);
			CU_ASSERT_EQUAL(evaluations, before);
			size_t n = search_run(&cfg, &sp, &so, order);
			CU_ASSERT(nf <= n);
			CU_ASSERT(memcmp(first, order, nf * sizeof *first) == 0);
			/* those decided ahead: the model's first list (half the budget, at most 8) and a random
			 * sequence */
			if (s == STRAT_MODEL)
				CU_ASSERT(nf >= (budget / 2 < 8 ? budget / 2 : 8));
			if (s == STRAT_RANDOM)
				CU_ASSERT_EQUAL(nf, n);
			CU_ASSERT(nf >= ns);
		}
	}
	free(order);
	free(first);
}

int add_search_suite(void)
{
	CU_pSuite s = CU_add_suite("search", setup, teardown);
	if (!s)
		return -1;
	CU_add_test(s, "invariants of every strategy", test_invariants_of_every_strategy);
	CU_add_test(s, "guided strategies find a smooth optimum", test_guided_strategies_find_a_smooth_optimum);
	CU_add_test(s, "polling and peeking never change the sequence", test_polling_and_peeking_never_change_the_sequence);
	CU_add_test(s, "the first proposals are known before any result", test_the_first_proposals_are_known_before_any_result);
	CU_add_test(s, "every strategy evaluates the start first and once",
		    test_every_strategy_evaluates_the_start_first_and_once);
	return 0;
}
