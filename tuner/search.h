/* search.h: strategies for spaces too large to measure whole: which configurations to measure,
 * in what order, within a budget of evaluations. A strategy only ever proposes configurations of
 * the space (valid by construction) and never the same one twice. */
#ifndef AUTOTUNE_SEARCH_H
#define AUTOTUNE_SEARCH_H

#include <stddef.h>

#include "compile.h"
#include "config.h"
#include "result.h"
#include "space.h"


/* Measures configuration c: its time in ms, or INFINITY when it failed (compile or launch error,
 * wrong result, crash): failures count against the budget and steer the search away. */
typedef double (*search_eval_fn)(void *ctx, size_t c);

/* Runs strategy s for at most `budget` evaluations with a seeded generator (same seed, same
 * sequence). prior, when not NULL, ranks configurations for the model strategy (lower is more
 * promising). order receives the configurations evaluated, in order (room for budget); returns
 * how many. */
size_t search_run(strategy s, const config *cfg, const space *sp, const double *prior, size_t budget,
		  unsigned long long seed, search_eval_fn eval, void *ctx, size_t *order);

/* What a strategy expects to measure next, most likely first: a caller may compile it ahead. */
typedef void (*search_hint_fn)(void *ctx, const size_t *configs, size_t n);

/* search_run, telling hint (when not NULL) what is likely next: the model's ranked first half,
 * each descent's neighbours, an exhaustive budget's configurations. The sequence is the same. */
size_t search_run_hinted(strategy s, const config *cfg, const space *sp, const double *prior, size_t budget,
			 unsigned long long seed, search_eval_fn eval, search_hint_fn hint, void *ctx, size_t *order);

/* What a search says ahead of measuring, for a caller that compiles ahead; each may be NULL. */
typedef struct {
	search_hint_fn hint;   /* as search_run_hinted's */
	/* the configurations it will evaluate next whatever their results, in this order (the rest of
	 * a list decided ahead, as far as the budget goes): a caller may measure them in any order as
	 * their binaries arrive, and answer eval from what it measured. Given (with hint), hints reach
	 * past that list: the configurations likely after it, ranked by the results so far. */
	search_hint_fn commit;
} search_ahead;

/* search_run_hinted with search_ahead's hints; the sequence is the same. */
size_t search_run_ahead(strategy s, const config *cfg, const space *sp, const double *prior, size_t budget,
			unsigned long long seed, search_eval_fn eval, const search_ahead *ahead, void *ctx, size_t *order);

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
