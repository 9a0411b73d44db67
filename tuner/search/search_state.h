/* search_state.h: the search's view of the space, shared by its three files: search.c (the other
 * strategies, search_run and search_first), search_model.c (the model strategy, and the guesses
 * that run a search ahead), which search.c calls and which calls nothing of it, and
 * search_plateau.c (how the model's waves leave a plateau), which search_model.c calls. Nothing
 * else includes it. The helpers more than one file uses are inline, so that none calls its way
 * back. */
#ifndef AUTOTUNE_SEARCH_STATE_H
#define AUTOTUNE_SEARCH_STATE_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "diag.h"
#include "random.h"
#include "search.h"

static inline size_t below(unsigned long long *state, size_t n) { return (size_t)random_below(state, n); }

typedef struct {
	unsigned long long code;
	size_t config;
} coded;

/* The search's view of the space: each configuration as value positions, a sorted index from the
 * mixed-radix code of those positions back to the configuration, and what was measured. */
typedef struct {
	const config *cfg;
	const space *sp;
	size_t np;
	size_t *pos;     /* count x np: position of each value in its parameter's list */
	coded *index;    /* sorted by code */
	double *time;    /* NAN: not measured */
	size_t used, budget;
	size_t *order;
	search_eval_fn eval;
	void *ctx;
	unsigned long long rng;
	long long best;
	search_hint_fn hint; /* or NULL */
	/* or NULL; given, the hints reach past what is decided (search_speculate) */
	search_hint_fn commit;
	search_poll_fn poll; /* or NULL; with commit */
	search_peek_fn peek; /* or NULL; with commit */
	search_over_fn over; /* or NULL; asked with over_ctx (a forecast keeps the search's) */
	void *over_ctx;
	char *mark;     /* search_speculate's scratch, all 0 between calls */
	size_t wave, picks; /* the waves' width and surrogate picks, fixed when they begin (0 before) */
	struct surrogate *sur; /* a forecast's stand-in for the GPU, which its waves pick from */
	size_t horizon; /* a forecast stops after this many evaluations (0: the budget decides) */
	int dry;        /* search_first's: nothing is evaluated, what would be is committed */
	size_t *spec;   /* room for the list in flight and SPECULATE more */
	/* the model's first list after the part in flight, as it stands before that part's results:
	 * hinted next, ahead of the guesses (none when nahead is 0) */
	const size_t *ahead;
	size_t nahead;
	/* the model strategy's: its prior's ranking (NULL: none) and the next of it not yet
	 * proposed after the first list; the evaluations since the best last improved */
	const size_t *rank;
	size_t rank_next, stale;
	size_t model_tried, model_good; /* the model's picks measured, and those that did well */
	/* the prior's values (NULL: none), checked against the measurements (search_prior.h); where
	 * the caller asks, how many evaluations had been made when it was set aside */
	const double *prior;
	/* once the first list set the prior's order aside: 0 for each configuration the model chose
	 * (its picks are then no prefix of the order), 1 for the others; the check judges these */
	double *chosen;
	size_t *set_aside;
	const size_t *bin_of; /* per configuration, its binary (NULL: not known) */
	size_t nbins;
	/* the model's descent on a long plateau (search_plateau.c): its centre (-1: none), its last
	 * move (parameter x 2, + 1 up; -1: none), and per configuration 1 where a descent started
	 * or passed, 2 where one tried it as a move, so that the next starts elsewhere (NULL but in
	 * the model strategy) */
	long long climb, climb_dir;
	char *climbed;
} state;

/* How many configurations a hint names beyond the list in flight: more than a machine's cores,
 * so that no compile slot idles for want of a guess. */
enum { SPECULATE = 128 };

static inline int by_code(const void *a, const void *b)
{
	const coded *x = a, *y = b;
	return (x->code > y->code) - (x->code < y->code);
}

static inline unsigned long long code_of(const state *S, const size_t *pos)
{
	unsigned long long code = 0;
	for (size_t i = 0; i < S->np; i++)
		code = code * S->cfg->params[i].nvalues + pos[i];
	return code;
}

/* The configuration with these value positions, or -1 when constraints exclude it. */
static inline long long lookup(const state *S, const size_t *pos)
{
	coded key = {code_of(S, pos), 0};
	coded *hit = bsearch(&key, S->index, S->sp->count, sizeof *S->index, by_code);
	return hit ? (long long)hit->config : -1;
}

static inline int measured(const state *S, size_t c) { return !isnan(S->time[c]); }

/* Tells the caller what is likely to be measured next, most likely first (it may compile ahead). */
static inline void hint(const state *S, const size_t *configs, size_t n)
{
	if (S->hint && n)
		S->hint(S->ctx, configs, n);
}
static inline int budget_left(const state *S)
{
	return !S->dry && S->used < S->budget && S->used < S->sp->count && (!S->horizon || S->used < S->horizon) &&
	       (!S->over || !S->over(S->over_ctx));
}

/* Measures c once; repeated asks return the recorded time without spending budget. */
static inline double measure(state *S, size_t c)
{
	if (measured(S, c))
		return S->time[c];
	S->time[c] = S->eval(S->ctx, c);
	S->order[S->used++] = c;
	if (S->best < 0 || S->time[c] < S->time[S->best])
		S->best = (long long)c;
	return S->time[c];
}

/* A configuration neither measured nor in taken[], drawn as random_unmeasured draws; -1 when none
 * is left. Draws that depend on no result can be made ahead, and so compiled ahead. */
static inline long long random_untaken(state *S, const char *taken)
{
	size_t n = S->sp->count, start = below(&S->rng, n);
	for (size_t k = 0; k < n; k++) {
		size_t c = (start + k * 2654435761u) % n;
		if (!measured(S, c) && !taken[c])
			return (long long)c;
	}
	for (size_t c = 0; c < n; c++)
		if (!measured(S, c) && !taken[c])
			return (long long)c;
	return -1;
}

/* The neighbours of c (those measured too, or not), parameter by parameter, the step down first;
 * returns how many (room: 2 * np). */
static inline size_t neighbours_in_order(const state *S, size_t c, size_t *out, int include_measured)
{
	size_t n = 0, *pos = xcalloc(S->np + 1, sizeof *pos);
	for (size_t i = 0; i < S->np; i++)
		for (int step = -1; step <= 1; step += 2) {
			memcpy(pos, &S->pos[c * S->np], S->np * sizeof *pos);
			if ((step < 0 && pos[i] == 0) || (step > 0 && pos[i] + 1 >= S->cfg->params[i].nvalues))
				continue;
			pos[i] += (size_t)(long)step;
			long long nb = lookup(S, pos);
			if (nb >= 0 && (include_measured || !measured(S, (size_t)nb)))
				out[n++] = (size_t)nb;
		}
	free(pos);
	return n;
}

/* The neighbours of c not measured yet (or all), in random order; returns how many (room: 2 * np). */
static inline size_t neighbours(state *S, size_t c, size_t *out, int include_measured)
{
	size_t n = neighbours_in_order(S, c, out, include_measured);
	for (size_t k = n; k > 1; k--) {
		size_t j = below(&S->rng, k), t = out[k - 1];
		out[k - 1] = out[j];
		out[j] = t;
	}
	return n;
}

/* Appends up to d uniform draws to the wave (taken: those in it, or decided otherwise). */
static inline size_t add_draws(state *S, char *taken, size_t *wave, size_t k, size_t d)
{
	for (long long c; d > 0 && (c = random_untaken(S, taken)) >= 0; d--) {
		taken[c] = 1;
		wave[k++] = (size_t)c;
	}
	return k;
}

/* Whether every configuration is a binary of its own (or the binaries are not known): no run
 * goes without a compile. */
static inline int own_binaries(const state *S) { return !S->bin_of || S->nbins >= S->sp->count; }

/* Per binary, 1 where a configuration measured is in it; NULL where every configuration is a
 * binary of its own. Caller frees. */
static inline char *built_binaries(const state *S)
{
	if (own_binaries(S))
		return NULL;
	char *built = xcalloc(S->nbins + 1, 1);
	for (size_t u = 0; u < S->used; u++)
		built[S->bin_of[S->order[u]]] = 1;
	return built;
}

typedef struct {
	double key;
	size_t config;
} ranked;

static inline int by_key(const void *a, const void *b)
{
	const ranked *x = a, *y = b;
	if (x->key != y->key)
		return (x->key > y->key) - (x->key < y->key);
	return (x->config > y->config) - (x->config < y->config);
}

/* search_model.c */
/* A list decided ahead of any result, measured in order (every strategy's lists: with guess_after,
 * each measurement guesses again what comes after the list). */
void search_measure_in_order(state *S, const size_t *all, size_t nall, int guess_after);
/* What the model's waves would propose after the list in flight (rest), as far as cap, into out;
 * returns how many. */
size_t search_speculate(state *S, const size_t *rest, size_t nrest, size_t *out, size_t cap);
/* The model strategy, ranked by prior. */
void search_run_model(state *S, const double *prior);

/* search_plateau.c */
/* On a plateau, up to cap - k configurations away from the basin the waves circle (centre: the
 * measured, fastest first, m of them), added to the wave; on a long one, some of them measured
 * here, one at a time, and counted in S->stale. Returns the wave's count. */
size_t search_diversify(state *S, char *taken, size_t *wave, size_t k, size_t cap, const ranked *centre, size_t m);

#endif
