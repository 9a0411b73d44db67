/* search.h: strategies for spaces too large to measure whole: which configurations to measure,
 * in what order, within a budget of evaluations. A strategy only ever proposes configurations of
 * the space (valid by construction) and never the same one twice. */
#ifndef AUTOTUNE_SEARCH_H
#define AUTOTUNE_SEARCH_H

#include <stddef.h>

#include "binary.h"
#include "result.h"
#include "space.h"
#include "strategy.h"

typedef struct config config;

/* Measures configuration c: its time in ms, or INFINITY when it failed (compile or launch error,
 * wrong result, crash): failures count against the budget and steer the search away. */
typedef double (*search_eval_fn)(void *ctx, size_t c);

/* What a strategy expects to measure next, most likely first: a caller may compile it ahead. */
typedef void (*search_hint_fn)(void *ctx, const size_t *configs, size_t n);

/* Whether c's result can be had without waiting; if not, waits a little (measuring what it can
 * meanwhile) and returns 0, so that the search can guess again from what came in. */
typedef int (*search_poll_fn)(void *ctx, size_t c);

/* c's result if the caller already has it (measured ahead of its turn), else NAN: it steers the
 * guesses (hint), never the sequence. */
typedef double (*search_peek_fn)(void *ctx, size_t c);

/* Whether the search is to end now, with what it measured: a signal, a time budget spent. */
typedef int (*search_over_fn)(void *ctx);

/* A search, named at the call: (search_opts){ .strategy = s, .budget = n, .eval = f, ... }. */
typedef struct {
	strategy strategy;
	const double *prior;      /* or NULL; ranks configurations for the model strategy (lower is
				   * more promising) */
	size_t budget;            /* at most this many evaluations */
	unsigned long long seed;  /* same seed, same sequence */
	search_eval_fn eval;
	search_hint_fn hint;      /* or NULL: told what is likely next (the model's ranked first half,
				   * each descent's neighbours, an exhaustive budget's configurations);
				   * the sequence is the same with or without it */
	/* or NULL: the configurations it will evaluate next whatever their results, in this order
	 * (the rest of a list decided ahead, as far as the budget goes): a caller may measure them in
	 * any order as their binaries arrive, and answer eval from what it measured. Given with hint,
	 * hints reach past that list: the configurations likely after it, ranked by the results so far. */
	search_hint_fn commit;
	/* or NULL, with commit: while the search waits for a committed configuration it polls, and
	 * guesses again from the rest of the list as the caller measures it (peek) */
	search_poll_fn poll;
	search_peek_fn peek;
	/* or NULL: configurations evaluated first, in this order, each once and counted in the budget
	 * (a neighbouring problem's winner): the strategy goes on from them, a descent or annealing
	 * from the best of them, the genetic population holding them, the model's waves seeing them
	 * among the measured. Those not of the space are left out. */
	const size_t *start;
	size_t nstart;
	/* or NULL: asked before each evaluation; once it says so, the search proposes, hints and
	 * commits nothing more (on a space of millions, what is left of a budget is seconds of
	 * ranking) */
	search_over_fn over;
	void *ctx;                /* eval's, hint's, commit's, poll's, peek's and over's */
	/* or NULL: receives, for the model strategy, how many evaluations had been made when its
	 * prior was set aside as one that ranks the measurements badly (search_prior.h), 0 when kept */
	size_t *set_aside;
} search_opts;

/* Runs the strategy for at most `budget` evaluations with a seeded generator. order receives the
 * configurations evaluated, in order (room for budget); returns how many. */
size_t search_run(const config *cfg, const space *sp, const search_opts *opt, size_t *order);

/* The configurations the search evaluates first whatever their results (the start, then the model's
 * first half or a random sequence; none for a descent), as far as cap, without evaluating any: a
 * caller can compile them while it prepares. Returns how many. */
size_t search_first(const config *cfg, const space *sp, const search_opts *opt, size_t *out, size_t cap);

/* The model strategy's ranking before anything is compiled (a search compiles only what it
 * measures), one value per configuration: each launch (res: block, grid, shared memory) with its
 * occupancy as the block and shared memory allow on compute capability cc, registers unknown.
 * Live runs and replays rank alike. Caller frees. */
double *search_model_prior(const config *cfg, const space *sp, const result *res, int cc);

/* The configurations 0..n-1 by prior, most promising (lowest) first, ties in space order; NULL
 * prior: space order. Caller frees. */
size_t *search_order(const double *prior, size_t n);

/* The model strategy's prior of a configuration from its binary (NULL: not compiled yet) and
 * launch, lower is more promising (search.c says what it counts). */
double search_static_model(const result *r, const binary *bin);

#endif
