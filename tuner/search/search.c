/* search.c: exhaustive, random sampling without replacement, iterated local search, simulated
 * annealing and a genetic strategy, all over the enumerated space; search_run and search_first,
 * which run them and the model-guided one (search_model.c); the model's static prior. Moves go
 * between configurations that differ in one parameter by one step of its value list, so a
 * neighbour is always a valid configuration or none at all. */
#include "search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "binary.h"
#include "config.h"
#include "diag.h"
#include "occupancy.h"
#include "random.h"
#include "search_state.h"
#include "banned.h"

static double uniform(unsigned long long *state) { return random_uniform(state); }

/* A parameter's value and its position in the list: the lists sorted by value, so that a
 * configuration's positions are found by bisection (a list may hold thousands of values, and a
 * space millions of configurations). */
typedef struct {
	double v;
	size_t k;
} placed;

static int by_value(const void *a, const void *b)
{
	const placed *x = a, *y = b;
	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return (x->k > y->k) - (x->k < y->k);
}

/* The first position of v in the sorted list (0 when it is none, as a walk that found none left). */
static size_t position(const placed *list, size_t n, double v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (list[mid].v < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && list[lo].v == v ? list[lo].k : 0;
}

static void prepare(state *S)
{
	size_t n = S->sp->count;
	S->pos = xcalloc(n * S->np + 1, sizeof *S->pos);
	S->index = xcalloc(n + 1, sizeof *S->index);
	S->time = xcalloc(n + 1, sizeof *S->time);
	placed **sorted = xcalloc(S->np + 1, sizeof *sorted);
	for (size_t i = 0; i < S->np; i++) {
		const param *p = &S->cfg->params[i];
		sorted[i] = xcalloc(p->nvalues + 1, sizeof **sorted);
		for (size_t k = 0; k < p->nvalues; k++)
			sorted[i][k] = (placed){param_value_key(p, NULL, p->values[k]), k};
		qsort(sorted[i], p->nvalues, sizeof **sorted, by_value);
	}
	for (size_t c = 0; c < n; c++) {
		const value *v = space_config(S->sp, c);
		for (size_t i = 0; i < S->np; i++)
			S->pos[c * S->np + i] = position(sorted[i], S->cfg->params[i].nvalues,
							 param_value_key(&S->cfg->params[i], NULL, v[i]));
		S->index[c] = (coded){code_of(S, &S->pos[c * S->np]), c};
		S->time[c] = NAN;
	}
	for (size_t i = 0; i < S->np; i++)
		free(sorted[i]);
	free(sorted);
	qsort(S->index, n, sizeof *S->index, by_code);
}

/* A configuration not measured yet, uniformly; -1 when none is left. */
static long long random_unmeasured(state *S)
{
	size_t n = S->sp->count, start = below(&S->rng, n);
	for (size_t k = 0; k < n; k++) {
		size_t c = (start + k * 2654435761u) % n; /* a fixed stride visits all when n is prime to it */
		if (!measured(S, c))
			return (long long)c;
	}
	for (size_t c = 0; c < n; c++)
		if (!measured(S, c))
			return (long long)c;
	return -1;
}

/* Without replacement: no draw depends on a result, so the whole sequence is drawn first and
 * hinted (the same sequence as drawing each after the last was measured). */
static void run_random(state *S)
{
	size_t n = S->sp->count, left = S->budget - S->used, want = left < n - S->used ? left : n - S->used, k = 0;
	size_t *seq = xcalloc(want + 1, sizeof *seq);
	char *taken = xcalloc(n + 1, 1);
	long long c;
	while (k < want && (c = random_untaken(S, taken)) >= 0) {
		taken[c] = 1;
		seq[k++] = (size_t)c;
	}
	search_measure_in_order(S, seq, k, 0);
	free(taken);
	free(seq);
}

/* Iterated local search: first-improvement descent from a start; at a local optimum, restart
 * from a random configuration. */
static void local_from(state *S, size_t start)
{
	size_t *nb = xcalloc(2 * S->np + 1, sizeof *nb);
	size_t cur = start;
	double t = measure(S, cur);
	while (budget_left(S)) {
		size_t n = neighbours(S, cur, nb, 0), k;
		/* first improvement: the neighbours are measured in this order, and the first that
		 * improves is the next centre */
		memcpy(S->spec, nb, n * sizeof *nb);
		hint(S, S->spec, n + (S->commit ? search_speculate(S, nb, n, S->spec + n, SPECULATE) : 0));
		int moved = 0;
		for (k = 0; k < n && budget_left(S); k++)
			if (measure(S, nb[k]) < t) {
				cur = nb[k];
				t = S->time[cur];
				moved = 1;
				break;
			}
		if (!moved)
			break;
	}
	free(nb);
}

static void run_local(state *S, long long from)
{
	long long c;
	if (from >= 0)
		local_from(S, (size_t)from);
	while (budget_left(S) && (c = random_unmeasured(S)) >= 0)
		local_from(S, (size_t)c);
}

/* Simulated annealing over neighbours: a worse move of relative cost d is taken with probability
 * exp(-d / T), T falling geometrically; no unmeasured neighbour left: a random jump. */
static void run_anneal(state *S, long long from)
{
	size_t *nb = xcalloc(2 * S->np + 1, sizeof *nb);
	long long c = from >= 0 ? from : random_unmeasured(S);
	if (c < 0) {
		free(nb);
		return;
	}
	size_t cur = (size_t)c;
	double t = measure(S, cur), T = 0.2;
	while (budget_left(S)) {
		size_t n = neighbours(S, cur, nb, 0);
		size_t next;
		if (n == 0) {
			if ((c = random_unmeasured(S)) < 0)
				break;
			next = (size_t)c;
		} else
			next = nb[0];
		double tn = measure(S, next);
		double d = isinf(t) ? -1 : isinf(tn) ? INFINITY : tn / t - 1;
		if (d < 0 || uniform(&S->rng) < exp(-d / T)) {
			cur = next;
			t = tn;
		}
		T *= 0.97;
	}
	free(nb);
}

/* A small genetic strategy: a population of the best measured so far; children take each
 * parameter's position from one of two tournament-chosen parents; a child the constraints exclude,
 * or one already measured, is mutated to a neighbour, else replaced by a random configuration. */
static void run_genetic(state *S)
{
	enum { POP = 8 };
	size_t pop[POP], npop = 0;
	long long c;
	for (size_t i = 0; i < S->used && npop < POP; i++)
		pop[npop++] = S->order[i];
	while (npop < POP && budget_left(S) && (c = random_unmeasured(S)) >= 0) {
		measure(S, (size_t)c);
		pop[npop++] = (size_t)c;
	}
	size_t *child = xcalloc(S->np + 1, sizeof *child), *nb = xcalloc(2 * S->np + 1, sizeof *nb);
	while (budget_left(S) && npop >= 2) {
		size_t a = pop[below(&S->rng, npop)], b = pop[below(&S->rng, npop)];
		size_t a2 = pop[below(&S->rng, npop)], b2 = pop[below(&S->rng, npop)];
		if (S->time[a2] < S->time[a])
			a = a2;
		if (S->time[b2] < S->time[b])
			b = b2;
		for (size_t i = 0; i < S->np; i++)
			child[i] = S->pos[(uniform(&S->rng) < 0.5 ? a : b) * S->np + i];
		long long k = lookup(S, child);
		if (k >= 0 && measured(S, (size_t)k)) {
			size_t n = neighbours(S, (size_t)k, nb, 0);
			k = n ? (long long)nb[0] : -1;
		}
		if (k < 0 && (k = random_unmeasured(S)) < 0)
			break;
		double t = measure(S, (size_t)k);
		/* replace the worst member when the child is better */
		size_t worst = 0;
		for (size_t i = 1; i < npop; i++)
			if (!(S->time[pop[i]] <= S->time[pop[worst]]))
				worst = i;
		if (t < S->time[pop[worst]] || isinf(S->time[pop[worst]]))
			pop[worst] = (size_t)k;
	}
	free(child);
	free(nb);
}

/* The start's configurations of the space, measured first: the best of them, -1 when none. */
static long long measure_start(state *S, const size_t *start, size_t n)
{
	size_t *list = xcalloc(n + 1, sizeof *list), k = 0;
	for (size_t i = 0; i < n; i++)
		if (start[i] < S->sp->count)
			list[k++] = start[i];
	if (k)
		search_measure_in_order(S, list, k, 0);
	free(list);
	return S->best;
}

static size_t run(const config *cfg, const space *sp, const search_opts *opt, size_t *order, int dry)
{
	size_t budget = opt->budget;
	const double *prior = opt->prior;
	strategy s = opt->strategy;
	state S = {.cfg = cfg, .sp = sp, .np = cfg->nparams, .budget = budget, .order = order, .eval = opt->eval,
		   .ctx = opt->ctx, .rng = opt->seed, .best = -1, .climb = -1, .climb_dir = -1, .hint = opt->hint, .set_aside = opt->set_aside};
	if (!sp->count || !budget || (opt->over && opt->over(opt->ctx)))
		return 0;
	S.commit = opt->hint ? opt->commit : NULL;
	S.poll = S.commit ? opt->poll : NULL;
	S.peek = S.commit ? opt->peek : NULL;
	S.over = opt->over;
	S.over_ctx = opt->ctx;
	prepare(&S);
	S.mark = xcalloc(sp->count + 1, 1);
	/* twice the budget: the model's first list hints two ways it may go on (search_run_model) */
	S.spec = xcalloc(2 * budget + 2 * S.np + SPECULATE + 1, sizeof *S.spec);
	long long from = measure_start(&S, opt->start, opt->nstart);
	S.dry = dry; /* the start is evaluated first whatever the strategy: it counts as measured */
	switch (s) {
	case STRAT_EXHAUSTIVE: {
		size_t n = budget < sp->count ? budget : sp->count, *all = xcalloc(n + 1, sizeof *all);
		for (size_t c = 0; c < n; c++)
			all[c] = c;
		search_measure_in_order(&S, all, n, 0);
		free(all);
		break;
	}
	case STRAT_RANDOM: run_random(&S); break;
	case STRAT_LOCAL: run_local(&S, from); break;
	case STRAT_ANNEAL: run_anneal(&S, from); break;
	case STRAT_GENETIC: run_genetic(&S); break;
	case STRAT_MODEL: {
		build b;
		build_plan(cfg, sp, &b);
		S.bin_of = b.of_config;
		S.nbins = b.nbins;
		search_run_model(&S, prior);
		build_free(&b);
		break;
	}
	default: break;
	}
	free(S.pos);
	free(S.index);
	free(S.time);
	free(S.mark);
	free(S.spec);
	return S.used;
}

size_t search_run(const config *cfg, const space *sp, const search_opts *opt, size_t *order)
{
	return run(cfg, sp, opt, order, 0);
}

typedef struct {
	size_t *out, n, cap;
} first_list;

/* The start is measured before anything else is committed, and a list leaves out what was
 * measured: the lists never overlap, so appending is enough (the test of search_first holds it). */
static void note_first(void *ctx, const size_t *configs, size_t n)
{
	first_list *f = ctx;
	for (size_t i = 0; i < n && f->n < f->cap; i++)
		f->out[f->n++] = configs[i];
}

static void no_hint(void *ctx, const size_t *configs, size_t n)
{
	(void)ctx, (void)configs, (void)n;
}

static double not_evaluated(void *ctx, size_t c)
{
	(void)ctx, (void)c;
	return INFINITY;
}

size_t search_first(const config *cfg, const space *sp, const search_opts *opt, size_t *out, size_t cap)
{
	first_list f = {out, 0, cap};
	search_opts o = *opt;
	o.eval = not_evaluated;
	o.hint = no_hint;
	o.commit = note_first;
	o.poll = NULL;
	o.peek = NULL;
	o.over = NULL;
	o.ctx = &f;
	size_t *order = xcalloc(opt->budget + 1, sizeof *order);
	run(cfg, sp, &o, order, 1);
	free(order);
	return f.n;
}

/* A cheap static model, lower is more promising: occupancy not reached, a block.x that splits
 * 32-byte sectors (fewer than 32 threads across: 12.5% load efficiency at block.x = 1 in the
 * sumMatrix block-shape experiments), block sizes that are not a multiple of the warp, register
 * spills; a binary that failed or a launch known to fail last. Without a binary (bin NULL: not
 * compiled yet), what the launch alone says. */
double search_static_model(const result *r, const binary *bin)
{
	double score = 1 - r->occupancy;
	long long threads = r->block[0] * r->block[1] * r->block[2];
	if (r->block[0] < 32)
		score += 1 - (double)r->block[0] / 32;
	if (threads % 32)
		score += 0.5;
	if (bin && (bin->res.spill_stores || bin->res.spill_loads))
		score += 1;
	return (bin && bin->failed) || r->predicted ? 10 : score;
}

/* A configuration in the model's ties: its score, the threads it launches (its granularity: a
 * space's configurations share one problem, so fewer threads means more work per thread), and its
 * turn among those of the same score and granularity. */
typedef struct {
	double score, threads, spread;
	size_t config, turn;
} tie;

static int by_granularity(const void *a, const void *b)
{
	const tie *x = a, *y = b;
	if (x->score != y->score)
		return x->score < y->score ? -1 : 1;
	if (x->threads != y->threads)
		return x->threads < y->threads ? -1 : 1;
	return (x->config > y->config) - (x->config < y->config);
}

static int by_turn(const void *a, const void *b)
{
	const tie *x = a, *y = b;
	if (x->score != y->score || x->turn == y->turn)
		return by_granularity(a, b);
	return x->turn < y->turn ? -1 : 1;
}

static int by_spread(const void *a, const void *b)
{
	const tie *x = a, *y = b;
	return (x->spread > y->spread) - (x->spread < y->spread);
}

/* Within a score and granularity, the turns go in spread order: the first in the space's order,
 * then each j-th at j times the golden ratio, modulo 1, so that the early turns are scattered over
 * the group (its parameters) rather than the first values of its first parameters, which the
 * model could not tell apart from the rest (a maxrreg or tile variant of one launch, taken three
 * times in a row in the sumMatrix space). */
static void spread_turns(tie *t, size_t n)
{
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && t[j].score == t[i].score && t[j].threads == t[i].threads; j++)
			;
		for (size_t k = i; k < j; k++)
			t[k].spread = fmod((double)t[k].turn * 0.6180339887498949, 1);
		qsort(t + i, j - i, sizeof *t, by_spread);
		for (size_t k = i; k < j; k++)
			t[k].turn = k - i;
	}
}

/* The launch alone cannot tell how much work per thread pays (a reduction's unrolled variants, a
 * convolution's output tiles): configurations of one score take turns by granularity, fewest
 * threads first, so that the model's first picks see every granularity early rather than only
 * the first in space order. The turns become offsets far below any difference the model makes. */
static void break_ties(double *prior, const space *sp, const result *res)
{
	size_t n = sp->count;
	tie *t = xcalloc(n + 1, sizeof *t);
	for (size_t c = 0; c < n; c++) {
		const result *r = &res[c];
		double threads = (double)(r->block[0] * r->block[1] * r->block[2]) * (double)(r->grid[0] * r->grid[1] * r->grid[2]);
		t[c] = (tie){prior[c], threads, 0, c, 0};
	}
	qsort(t, n, sizeof *t, by_granularity);
	for (size_t i = 1; i < n; i++)
		if (t[i - 1].score == t[i].score && t[i - 1].threads == t[i].threads)
			t[i].turn = t[i - 1].turn + 1;
	spread_turns(t, n);
	qsort(t, n, sizeof *t, by_turn);
	for (size_t i = 0; i < n; i++)
		prior[t[i].config] += 1e-7 * (double)i / (double)n;
	free(t);
}

double *search_model_prior(const config *cfg, const space *sp, const result *res, int cc)
{
	(void)cfg;
	double *prior = xcalloc(sp->count + 1, sizeof *prior);
	for (size_t c = 0; c < sp->count; c++) {
		result r = res[c];
		occupancy_input in = {(int)(r.block[0] * r.block[1] * r.block[2]), 0, 0, (size_t)r.smem, 0};
		occupancy_result occ;
		r.occupancy = occupancy_compute(cc, &in, &occ) == 0 ? occ.occupancy : 0;
		prior[c] = search_static_model(&r, NULL);
	}
	break_ties(prior, sp, res);
	return prior;
}
