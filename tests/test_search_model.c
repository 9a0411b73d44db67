/* test_search_model.c: the model strategy's guesses on a synthetic space: while the search waits
 * for the last result of a list, what it hints holds the whole of the next list (its waves run
 * ahead on a surrogate of the results); on a recorded space whose configurations share binaries,
 * its first list's cheap draws and model picks. test_search.c holds what every strategy, the
 * model's too, must do. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compile.h"
#include "config.h"
#include "search.h"
#include "tests.h"

static config cfg;
static space sp;

/* tests.h's bowl over the space */
static double bowl(void *ctx, size_t c)
{
	(void)ctx;
	return search_bowl(&sp, c);
}

static int setup(void) { return search_bowl_space("search_model.yaml", &cfg, &sp); }

static int teardown(void)
{
	space_free(&sp);
	config_free(&cfg);
	return 0;
}

/* A caller that has measured everything committed but the configuration the search waits for,
 * with the true times: each committed list after the first is checked against the guesses made
 * just before it, when only one result was still to come. */
static struct {
	char committed[4096], waiting[4096];
	size_t hint[4096], nhint, lists, covered, proposed;
} guess;

static void remember_hint(void *ctx, const size_t *configs, size_t n)
{
	(void)ctx;
	guess.nhint = n < 4096 ? n : 4096;
	memcpy(guess.hint, configs, guess.nhint * sizeof *configs);
}

static void check_commit(void *ctx, const size_t *configs, size_t n)
{
	(void)ctx;
	for (size_t i = 0; guess.lists && i < n; i++) {
		int found = 0;
		for (size_t j = 0; j < guess.nhint && !found; j++)
			found = guess.hint[j] == configs[i];
		guess.covered += found;
		guess.proposed++;
	}
	guess.lists++;
	for (size_t i = 0; i < n; i++)
		guess.committed[configs[i]] = 1;
}

static int poll_twice(void *ctx, size_t c)
{
	(void)ctx;
	return guess.waiting[c]++ >= 1;
}

static double peek_all_but_waited(void *ctx, size_t c)
{
	return guess.committed[c] && !guess.waiting[c] ? bowl(ctx, c) : NAN;
}

/* While the search waits for the last of a list, with the rest of it in, its guesses hold the
 * whole of the next list: a wave is decided before it is asked for, so its binaries can be built
 * while the last one of the list before it compiles. */
static void test_the_next_wave_is_guessed_before_it_is_decided(void)
{
	CU_ASSERT_FATAL(sp.count <= sizeof guess.committed);
	for (unsigned long long seed = 1; seed <= 5; seed++) {
		memset(&guess, 0, sizeof guess);
		size_t *order = calloc(sp.count, sizeof *order);
		search_run(&cfg, &sp, &(search_opts){.strategy = STRAT_MODEL, .budget = sp.count / 10, .seed = seed,
				.eval = bowl, .hint = remember_hint, .commit = check_commit, .poll = poll_twice,
				.peek = peek_all_but_waited}, order);
		CU_ASSERT(guess.lists >= 3);
		if (guess.covered != guess.proposed)
			fprintf(stderr, "\n  seed %llu: %zu of %zu proposals guessed\n", seed, guess.covered, guess.proposed);
		CU_ASSERT_EQUAL(guess.covered, guess.proposed);
		free(order);
	}
}

/* A prior with one score for the whole space (one level) and its ties in order, either the bowl's
 * own or its reverse (FIR's case: the model's first pick its slowest). */
static double *ordered_prior(int reverse)
{
	double *prior = calloc(sp.count, sizeof *prior);
	for (size_t c = 0; c < sp.count; c++) {
		double b = bowl(NULL, c);
		prior[c] = isinf(b) ? 1e-7 : (reverse ? 50 - b : b) * 1e-9;
	}
	return prior;
}

/* The first list (a draw, then a pick, four times: one binary, no cheap draws) measured a step at
 * a time: its picks follow the prior's order while they hold up, and once one is three times
 * slower than every draw before it, the next are drawn from the prior's best score (here all of
 * the space), not taken in the order that misled. */
static void test_a_misleading_order_is_set_aside_at_once(void)
{
	size_t order[100];
	for (int reverse = 0; reverse <= 1; reverse++) {
		double *prior = ordered_prior(reverse);
		size_t *rank = search_order(prior, sp.count);
		int misled = 0, wrong = 0;
		for (unsigned long long seed = 1; seed <= 20; seed++) {
			size_t n = search_run(&cfg, &sp, &(search_opts){.strategy = STRAT_MODEL, .prior = prior, .budget = 100,
					.seed = seed, .eval = bowl}, order);
			CU_ASSERT_FATAL(n == 100);
			CU_ASSERT_EQUAL(order[1], rank[0]); /* the first pick follows the order */
			int set_aside = bowl(NULL, order[1]) > 3 * bowl(NULL, order[0]);
			misled += set_aside;
			/* the second pick: the order's next unless the first misled */
			wrong += set_aside == (order[3] == rank[1]);
		}
		if (getenv("VERBOSE"))
			fprintf(stderr, "\n  reverse %d: misled in %d of 20 seeds", reverse, misled);
		/* the bowl's order: the optimum first, never set aside; reversed: the slowest first, set
		 * aside unless the first draw was a third as slow */
		CU_ASSERT_EQUAL(wrong, 0);
		if (reverse) {
			CU_ASSERT(misled >= 5);
		} else {
			CU_ASSERT_EQUAL(misled, 0);
		}
		free(rank);
		free(prior);
	}
}

/* Whatever the first pick's result, the steps of the first list after it were hinted before they
 * were committed (both ways the list may go on), so that a caller builds them ahead. */
static void test_the_first_list_is_hinted_either_way(void)
{
	for (int reverse = 0; reverse <= 1; reverse++) {
		double *prior = ordered_prior(reverse);
		for (unsigned long long seed = 1; seed <= 5; seed++) {
			memset(&guess, 0, sizeof guess);
			size_t order[64];
			search_run(&cfg, &sp, &(search_opts){.strategy = STRAT_MODEL, .prior = prior, .budget = 16, .seed = seed,
					.eval = bowl, .hint = remember_hint, .commit = check_commit, .poll = poll_twice,
					.peek = peek_all_but_waited}, order);
			CU_ASSERT(guess.lists >= 4); /* four steps of a draw and a pick */
			CU_ASSERT_EQUAL(guess.covered, guess.proposed);
		}
		free(prior);
	}
}

/* A space of bench/spaces or configs/ with its binaries (the build plan): the tests of what the
 * model does where configurations share binaries. */
typedef struct {
	config c;
	space s;
	build b;
} planned;

static int open_planned(const char *yaml, planned *p)
{
	diags d = {0};
	int rc = config_load(yaml, &p->c, &d) || space_enumerate(&p->c, &p->s, &d);
	diags_print(&d);
	diags_free(&d);
	if (!rc)
		build_plan(&p->c, &p->s, &p->b);
	return rc ? -1 : 0;
}

static void close_planned(planned *p)
{
	build_free(&p->b);
	space_free(&p->s);
	config_free(&p->c);
}

/* On the blur space (two binaries: TILE), the first list decided before any result: each binary
 * that comes new to it is followed by 4 configurations of the binaries it has (a run each, where
 * the next binary is a compile), so that the first 5 share the first's binary; then the model's
 * best. Without the cheap draws the second would be the model's best, of either binary. */
static void test_cheap_draws_follow_a_new_binary(void)
{
	planned p;
	CU_ASSERT_EQUAL_FATAL(open_planned("bench/spaces/blur.yaml", &p), 0);
	CU_ASSERT_EQUAL(p.b.nbins, 2);
	double *prior = calloc(p.s.count, sizeof *prior);
	for (size_t k = 0; k < p.s.count; k++)
		prior[k] = (double)k;
	size_t first[64];
	for (unsigned long long seed = 1; seed <= 10; seed++) {
		size_t n = search_first(&p.c, &p.s, &(search_opts){.strategy = STRAT_MODEL, .prior = prior, .budget = 200,
				.seed = seed, .eval = bowl}, first, 64);
		CU_ASSERT_FATAL(n >= 8 && n <= 16);
		for (size_t k = 1; k < 5; k++)
			CU_ASSERT_EQUAL(p.b.of_config[first[k]], p.b.of_config[first[0]]);
		int model = 0, binaries = 0;
		for (size_t k = 0; k < n; k++)
			model += first[k] == 0;
		for (size_t k = 1; k < n; k++)
			binaries += p.b.of_config[first[k]] != p.b.of_config[first[0]];
		CU_ASSERT_EQUAL(model, 1); /* the prior's best is in the list */
		CU_ASSERT(binaries > 0);   /* and the other binary too */
	}
	free(prior);
	close_planned(&p);
}

/* On the blur space with a prior of one score (its ties in space order, in which TILE, the
 * binary, alternates), the first list decided before any result: its model picks come from the
 * binaries the list has, so that where its uniform draws all fall in one binary, the whole list
 * does (no compile for a guess that the model cannot tell from the others); in space order, its
 * picks would bring in the second binary in every seed. */
static void test_model_picks_stay_in_the_binaries_built(void)
{
	planned p;
	CU_ASSERT_EQUAL_FATAL(open_planned("bench/spaces/blur.yaml", &p), 0);
	double *prior = calloc(p.s.count, sizeof *prior);
	for (size_t k = 0; k < p.s.count; k++)
		prior[k] = 1e-9 * (double)k;
	int alternate = 0, one = 0;
	for (size_t k = 1; k < 8; k++)
		alternate += p.b.of_config[k] != p.b.of_config[k - 1];
	CU_ASSERT(alternate >= 4);
	size_t first[64];
	for (unsigned long long seed = 1; seed <= 20; seed++) {
		size_t n = search_first(&p.c, &p.s, &(search_opts){.strategy = STRAT_MODEL, .prior = prior, .budget = 200,
				.seed = seed, .eval = bowl}, first, 64);
		CU_ASSERT_FATAL(n >= 8);
		int binaries = 0;
		for (size_t k = 1; k < n; k++)
			binaries += p.b.of_config[first[k]] != p.b.of_config[first[0]];
		one += binaries == 0;
	}
	CU_ASSERT(one >= 2);
	free(prior);
	close_planned(&p);
}

/* A budget of one is the model's first pick, and one of two or three still holds it: what a user
 * asks of a run that short is the model's best guess, not a draw and a neighbour of it. */
static void test_a_short_budget_holds_the_models_first_pick(void)
{
	double *prior = ordered_prior(0);
	size_t *rank = search_order(prior, sp.count), order[8];
	for (size_t budget = 1; budget <= 3; budget++)
		for (unsigned long long seed = 1; seed <= 10; seed++) {
			size_t n = search_run(&cfg, &sp, &(search_opts){.strategy = STRAT_MODEL, .prior = prior, .budget = budget,
					.seed = seed, .eval = bowl}, order);
			CU_ASSERT_EQUAL_FATAL(n, budget);
			int held = 0;
			for (size_t i = 0; i < n; i++)
				held += order[i] == rank[0];
			CU_ASSERT_EQUAL(held, 1);
		}
	free(rank);
	free(prior);
}

/* A run of more than three evaluations over a sliver of the space (16 of 448) draws its picks
 * from the model's best score from the first (here the bowl's whole space ties, as FIR's and
 * stencil's do under the model): the order's first is measured in few seeds. A run that covers a
 * twentieth (23) takes the order's first as its first pick, and so does a sliver under a prior of
 * one configuration a score (a transfer's). */
static void test_a_sliver_draws_its_picks_from_the_best_score(void)
{
	double *prior = ordered_prior(0), *distinct = calloc(sp.count, sizeof *distinct);
	for (size_t c = 0; c < sp.count; c++)
		distinct[c] = (double)((c * 5) % sp.count); /* 5 is prime to 448: one configuration a score */
	size_t *rank = search_order(prior, sp.count), *own = search_order(distinct, sp.count), order[32];
	int drawn = 0;
	CU_ASSERT_FATAL(sp.count > 20 * 16 && sp.count <= 20 * 23);
	for (unsigned long long seed = 1; seed <= 20; seed++) {
		size_t n = search_run(&cfg, &sp, &(search_opts){.strategy = STRAT_MODEL, .prior = prior, .budget = 16,
				.seed = seed, .eval = bowl}, order);
		CU_ASSERT_EQUAL_FATAL(n, 16);
		int first = 0;
		for (size_t i = 0; i < n; i++)
			first += order[i] == rank[0];
		drawn += !first;
		search_run(&cfg, &sp, &(search_opts){.strategy = STRAT_MODEL, .prior = prior, .budget = 23, .seed = seed,
				.eval = bowl}, order);
		CU_ASSERT_EQUAL(order[1], rank[0]);
		search_run(&cfg, &sp, &(search_opts){.strategy = STRAT_MODEL, .prior = distinct, .budget = 16, .seed = seed,
				.eval = bowl}, order);
		CU_ASSERT_EQUAL(order[1], own[0]);
	}
	CU_ASSERT(drawn >= 18);
	free(own);
	free(rank);
	free(distinct);
	free(prior);
}

/* Whether b is a neighbour of a in the bowl's space: one parameter one step apart (x and y are
 * powers of two, z counts). */
static int bowl_neighbours(size_t a, size_t b)
{
	const value *u = space_config(&sp, a), *v = space_config(&sp, b);
	double d = fabs(log2((double)u[0].u.i) - log2((double)v[0].u.i)) + fabs(log2((double)u[1].u.i) - log2((double)v[1].u.i)) +
		   fabs((double)(u[2].u.i - v[2].u.i));
	return d == 1;
}

/* Of order[from..n), those that are no neighbour of any configuration measured before them. */
static int not_moves(const size_t *order, size_t from, size_t n)
{
	int apart = 0;
	for (size_t i = from; i < n; i++) {
		int near = 0;
		for (size_t j = 0; j < i && !near; j++)
			near = bowl_neighbours(order[j], order[i]);
		apart += !near;
	}
	return apart;
}

/* After the first list (8: four draws, four picks), a short run over a sliver of the space (16 of
 * 448) alternates uniform draws with the moves (four of the eight, each a neighbour of what was
 * measured before it a time in five at most); one that covers a twentieth of the space or more
 * (23 of 448) takes only the neighbours of its best. */
static void test_a_short_run_draws_between_its_moves(void)
{
	double *prior = ordered_prior(0);
	size_t order[32];
	int sliver = 0, covered = 0;
	CU_ASSERT_FATAL(sp.count > 20 * 16 && sp.count <= 20 * 23);
	for (unsigned long long seed = 1; seed <= 10; seed++) {
		size_t n = search_run(&cfg, &sp, &(search_opts){.strategy = STRAT_MODEL, .prior = prior, .budget = 16,
				.seed = seed, .eval = bowl}, order);
		CU_ASSERT_EQUAL_FATAL(n, 16);
		sliver += not_moves(order, 8, n);
		n = search_run(&cfg, &sp, &(search_opts){.strategy = STRAT_MODEL, .prior = prior, .budget = 23, .seed = seed,
				.eval = bowl}, order);
		CU_ASSERT_EQUAL_FATAL(n, 23);
		covered += not_moves(order, 8, n);
	}
	if (getenv("VERBOSE"))
		fprintf(stderr, "\n  apart from every earlier configuration: %d of 80 (16 of 448), %d of 150 (23)", sliver, covered);
	CU_ASSERT(sliver >= 20);
	CU_ASSERT_EQUAL(covered, 0);
	free(prior);
}

/* The transpose_big space (12 binaries: TILE and PAD compile in, ROWS and extra_smem are the
 * launch) under a landscape where only the launch matters: a bowl in ROWS and extra_smem, the
 * compiled parameters a hundredth at most. */
static double launch_bowl(void *ctx, size_t c)
{
	const value *v = space_config(ctx, c);
	double rows = log2((double)v[1].u.i) - 2, smem = (double)v[3].u.i / 4096 - 12;
	return 1 + rows * rows + smem * smem / 50 + 0.002 * (log2((double)v[0].u.i) + (double)v[2].u.i);
}

/* Where configurations share binaries, a wave's neighbours in the binaries built come before those
 * that need a compile (at most two new binaries a wave): where the launch is all that matters, the
 * first 45 of a run of 150 build 56 binaries over ten seeds (86 taking the neighbours as they
 * come; the 12 are all built by the end either way). */
static void test_waves_keep_to_the_binaries_built(void)
{
	planned p;
	CU_ASSERT_EQUAL_FATAL(open_planned("bench/spaces/transpose_big.yaml", &p), 0);
	CU_ASSERT_FATAL(p.b.nbins == 12);
	size_t order[150], most = 0, total = 0;
	char *seen = calloc(p.b.nbins, 1);
	for (unsigned long long seed = 1; seed <= 10; seed++) {
		size_t n = search_run(&p.c, &p.s, &(search_opts){.strategy = STRAT_MODEL, .budget = 150, .seed = seed,
				.eval = launch_bowl, .ctx = &p.s}, order);
		CU_ASSERT_EQUAL_FATAL(n, 150);
		size_t bins = 0;
		memset(seen, 0, p.b.nbins);
		for (size_t i = 0; i < 45; i++)
			if (!seen[p.b.of_config[order[i]]]++)
				bins++;
		most = bins > most ? bins : most;
		total += bins;
	}
	if (getenv("VERBOSE"))
		fprintf(stderr, "\n  binaries of the first 45: %zu over ten seeds, at most %zu", total, most);
	CU_ASSERT(total <= 70);
	free(seen);
	close_planned(&p);
}

int add_search_model_suite(void)
{
	CU_pSuite s = CU_add_suite("search_model", setup, teardown);
	if (!s)
		return -1;
	CU_add_test(s, "the next wave is guessed before it is decided", test_the_next_wave_is_guessed_before_it_is_decided);
	CU_add_test(s, "cheap draws follow a new binary", test_cheap_draws_follow_a_new_binary);
	CU_add_test(s, "model picks stay in the binaries built", test_model_picks_stay_in_the_binaries_built);
	CU_add_test(s, "a misleading order is set aside at once", test_a_misleading_order_is_set_aside_at_once);
	CU_add_test(s, "the first list is hinted either way", test_the_first_list_is_hinted_either_way);
	CU_add_test(s, "a short budget holds the model's first pick", test_a_short_budget_holds_the_models_first_pick);
	CU_add_test(s, "a short run draws between its moves", test_a_short_run_draws_between_its_moves);
	CU_add_test(s, "a sliver draws its picks from the best score", test_a_sliver_draws_its_picks_from_the_best_score);
	CU_add_test(s, "waves keep to the binaries built", test_waves_keep_to_the_binaries_built);
	return 0;
}
