/* search.c: exhaustive, random sampling without replacement, iterated local search, simulated
 * annealing, a genetic strategy and a model-guided one, all over the enumerated space. Moves go
 * between configurations that differ in one parameter by one step of its value list, so a
 * neighbour is always a valid configuration or none at all. */
#include "search.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "diag.h"
#include "occupancy.h"
#include "random.h"
#include "banned.h"

static size_t below(unsigned long long *state, size_t n) { return (size_t)random_below(state, n); }
static double uniform(unsigned long long *state) { return random_uniform(state); }

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
	/* or NULL; given, the hints reach past what is decided (speculate) */
	search_hint_fn commit;
	search_poll_fn poll; /* or NULL; with commit */
	search_peek_fn peek; /* or NULL; with commit */
	char *mark;     /* speculate's scratch, all 0 between calls */
	size_t wave, picks; /* the waves' width and surrogate picks, fixed when they begin (0 before) */
	struct surrogate *sur; /* a forecast's stand-in for the GPU, which its waves pick from */
	size_t horizon; /* a forecast stops after this many evaluations (0: the budget decides) */
	int dry;        /* search_first's: nothing is evaluated, what would be is committed */
	size_t *spec;   /* room for the list in flight and SPECULATE more */
} state;

/* How many configurations a hint names beyond the list in flight: more than a machine's cores,
 * so that no compile slot idles for want of a guess. */
enum { SPECULATE = 128 };

/* A forecast runs the search ahead once at most this many results of the list in flight are still
 * to come: before, it would rest mostly on predictions, and each costs a pass over the space. */
enum { FORESEE = 4 };

static int by_code(const void *a, const void *b)
{
	const coded *x = a, *y = b;
	return (x->code > y->code) - (x->code < y->code);
}

static unsigned long long code_of(const state *S, const size_t *pos)
{
	unsigned long long code = 0;
	for (size_t i = 0; i < S->np; i++)
		code = code * S->cfg->params[i].nvalues + pos[i];
	return code;
}

/* The configuration with these value positions, or -1 when constraints exclude it. */
static long long lookup(const state *S, const size_t *pos)
{
	coded key = {code_of(S, pos), 0};
	coded *hit = bsearch(&key, S->index, S->sp->count, sizeof *S->index, by_code);
	return hit ? (long long)hit->config : -1;
}

static void prepare(state *S)
{
	size_t n = S->sp->count;
	S->pos = xcalloc(n * S->np + 1, sizeof *S->pos);
	S->index = xcalloc(n + 1, sizeof *S->index);
	S->time = xcalloc(n + 1, sizeof *S->time);
	for (size_t c = 0; c < n; c++) {
		const value *v = space_config(S->sp, c);
		for (size_t i = 0; i < S->np; i++) {
			const param *p = &S->cfg->params[i];
			for (size_t k = 0; k < p->nvalues; k++)
				if (value_as_double(p->values[k]) == value_as_double(v[i])) {
					S->pos[c * S->np + i] = k;
					break;
				}
		}
		S->index[c] = (coded){code_of(S, &S->pos[c * S->np]), c};
		S->time[c] = NAN;
	}
	qsort(S->index, n, sizeof *S->index, by_code);
}

static int measured(const state *S, size_t c) { return !isnan(S->time[c]); }
static int budget_left(const state *S);
static double measure(state *S, size_t c);
static void hint(const state *S, const size_t *configs, size_t n);
static size_t speculate(state *S, const size_t *rest, size_t nrest, size_t *out, size_t cap);

/* How many of the list in flight the caller has measured ahead of their turn. */
static size_t peeked(const state *S, const size_t *rest, size_t nrest)
{
	size_t k = 0;
	for (size_t i = 0; S->peek && i < nrest; i++)
		k += !isnan(S->peek(S->ctx, rest[i]));
	return k;
}

/* A list decided ahead of any result: committed as far as the budget goes, then measured in
 * order. With a caller that compiles ahead, each measurement re-hints the rest of the list and
 * the likely proposals after it, as the results so far rank them; else the list is hinted once. */
static void measure_in_order(state *S, const size_t *all, size_t nall, int guess_after)
{
	/* those measured already (the start's) and repeats are left out of what is committed */
	size_t *list = xcalloc(nall + 1, sizeof *list), n = 0;
	for (size_t i = 0; i < nall; i++)
		if (!measured(S, all[i]) && !S->mark[all[i]]) {
			S->mark[all[i]] = 1;
			list[n++] = all[i];
		}
	for (size_t i = 0; i < n; i++)
		S->mark[list[i]] = 0;
	size_t left = S->budget - S->used;
	if (S->commit)
		S->commit(S->ctx, list, n < left ? n : left);
	if (!S->commit || !guess_after)
		hint(S, list, n);
	for (size_t i = 0; i < n && budget_left(S); i++) {
		if (S->commit && guess_after) {
			/* while list[i] is not in, the rest of the list arrives: the guesses follow it, made
			 * again each time a result has come in */
			size_t known = SIZE_MAX;
			do {
				size_t now = S->used + peeked(S, list + i, n - i);
				if (now == known)
					continue;
				known = now;
				memcpy(S->spec, list + i, (n - i) * sizeof *list);
				hint(S, S->spec, n - i + speculate(S, list + i, n - i, S->spec + n - i, SPECULATE));
			} while (S->poll && !S->poll(S->ctx, list[i]));
		}
		measure(S, list[i]);
	}
	free(list);
}

/* Tells the caller what is likely to be measured next, most likely first (it may compile ahead). */
static void hint(const state *S, const size_t *configs, size_t n)
{
	if (S->hint && n)
		S->hint(S->ctx, configs, n);
}
static int budget_left(const state *S)
{
	return !S->dry && S->used < S->budget && S->used < S->sp->count && (!S->horizon || S->used < S->horizon);
}

/* Measures c once; repeated asks return the recorded time without spending budget. */
static double measure(state *S, size_t c)
{
	if (measured(S, c))
		return S->time[c];
	S->time[c] = S->eval(S->ctx, c);
	S->order[S->used++] = c;
	if (S->best < 0 || S->time[c] < S->time[S->best])
		S->best = (long long)c;
	return S->time[c];
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

/* A configuration neither measured nor in taken[], drawn as random_unmeasured draws; -1 when none
 * is left. Draws that depend on no result can be made ahead, and so compiled ahead. */
static long long random_untaken(state *S, const char *taken)
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
static size_t neighbours_in_order(const state *S, size_t c, size_t *out, int include_measured)
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
static size_t neighbours(state *S, size_t c, size_t *out, int include_measured)
{
	size_t n = neighbours_in_order(S, c, out, include_measured);
	for (size_t k = n; k > 1; k--) {
		size_t j = below(&S->rng, k), t = out[k - 1];
		out[k - 1] = out[j];
		out[j] = t;
	}
	return n;
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
	measure_in_order(S, seq, k, 0);
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
		hint(S, S->spec, n + (S->commit ? speculate(S, nb, n, S->spec + n, SPECULATE) : 0));
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

typedef struct {
	double key;
	size_t config;
} ranked;

static int by_key(const void *a, const void *b)
{
	const ranked *x = a, *y = b;
	if (x->key != y->key)
		return (x->key > y->key) - (x->key < y->key);
	return (x->config > y->config) - (x->config < y->config);
}

/* A surrogate of the results: a known result as it is; else the mean log time of the results,
 * moved, for each parameter, by how far the mean of those sharing the configuration's value lies
 * from it (shrunk while few share it). Only the ranks matter to the waves. */
typedef struct surrogate {
	double *known; /* per configuration: its result, NAN when none */
	double *pred;  /* per configuration: the predicted log time */
} surrogate;

static double surrogate_eval(void *ctx, size_t c)
{
	const surrogate *g = ctx;
	return isnan(g->known[c]) ? exp(g->pred[c]) : g->known[c];
}

/* The surrogate of what is known: the measured, and the list in flight where peek has it. */
static void surrogate_fit(surrogate *g, const state *S, const size_t *rest, size_t nrest)
{
	size_t n = S->sp->count, np = S->np, nv = 0, nk = 0;
	g->known = xcalloc(n + 1, sizeof *g->known);
	g->pred = xcalloc(n + 1, sizeof *g->pred);
	memcpy(g->known, S->time, n * sizeof *g->known);
	size_t *with = xcalloc(S->used + nrest + 1, sizeof *with), nw = S->used;
	memcpy(with, S->order, S->used * sizeof *with);
	for (size_t i = 0; S->peek && i < nrest; i++) {
		if (measured(S, rest[i]))
			continue;
		g->known[rest[i]] = S->peek(S->ctx, rest[i]);
		if (!isnan(g->known[rest[i]]))
			with[nw++] = rest[i];
	}
	size_t *off = xcalloc(np + 1, sizeof *off);
	for (size_t i = 0; i < np; i++) {
		off[i] = nv;
		nv += S->cfg->params[i].nvalues;
	}
	double *sum = xcalloc(nv + 1, sizeof *sum), all = 0;
	size_t *cnt = xcalloc(nv + 1, sizeof *cnt);
	for (size_t j = 0; j < nw; j++) {
		double t = g->known[with[j]];
		if (isinf(t) || t <= 0)
			continue;
		all += log(t);
		nk++;
		for (size_t i = 0; i < np; i++) {
			sum[off[i] + S->pos[with[j] * np + i]] += log(t);
			cnt[off[i] + S->pos[with[j] * np + i]]++;
		}
	}
	double mean = nk ? all / (double)nk : 0;
	/* per (parameter, value): its shrunk effect */
	for (size_t v = 0; v < nv; v++)
		sum[v] = cnt[v] ? (sum[v] / (double)cnt[v] - mean) * (double)cnt[v] / (double)(cnt[v] + 1) : 0;
	for (size_t c = 0; c < n; c++) {
		double l = mean;
		for (size_t i = 0; i < np; i++)
			l += sum[off[i] + S->pos[c * np + i]];
		g->pred[c] = l;
	}
	free(with);
	free(off);
	free(sum);
	free(cnt);
}

static void surrogate_free(surrogate *g)
{
	free(g->known);
	free(g->pred);
}

/* Adds to the wave (up to cap) the unmeasured, untaken configurations the surrogate predicts
 * fastest: a forecast's (S->sur), else one of the measured. */
static size_t surrogate_picks(state *S, char *taken, size_t *wave, size_t k, size_t cap)
{
	if (k >= cap)
		return k;
	surrogate own, *g = S->sur;
	if (!g)
		surrogate_fit(g = &own, S, NULL, 0);
	size_t want = cap - k, got = 0;
	ranked *top = xcalloc(want + 1, sizeof *top);
	for (size_t c = 0; c < S->sp->count; c++) {
		if (measured(S, c) || taken[c])
			continue;
		ranked r = {g->pred[c], c};
		if (got == want && by_key(&r, &top[got - 1]) >= 0)
			continue;
		size_t at = got < want ? got++ : got - 1;
		while (at > 0 && by_key(&r, &top[at - 1]) < 0) {
			top[at] = top[at - 1];
			at--;
		}
		top[at] = r;
	}
	for (size_t i = 0; i < got; i++) {
		taken[top[i].config] = 1;
		wave[k++] = top[i].config;
	}
	free(top);
	if (g == &own)
		surrogate_free(&own);
	return k;
}

/* The model's second half, in waves decided together so that they compile side by side (a
 * search waits one compile latency per decision, where measuring a variant takes milliseconds):
 * the unmeasured neighbours of the best configuration measured, then of the next best, until the
 * wave is full. A wave is a fifth of what is left of the budget, so that even a small budget walks
 * a few steps. Once a wave can hold a neighbourhood and more (WIDE), a third: its first third is
 * what the surrogate of the results predicts fastest, which moves several parameters at once where
 * a neighbour moves one, so that three rounds reach as far as five (and a search waits on two
 * fewer rounds of compiles). At most WAVE: a constant rather than -j, so that the sequence is the
 * same on every machine. */
enum { WAVE = 16, WIDE = 8 };

static void plan_waves(state *S)
{
	size_t left = S->budget - S->used;
	if (S->wave)
		return; /* a forecast goes on with the search's */
	if (left >= 3 * WIDE) {
		S->wave = (left + 2) / 3 > WAVE ? WAVE : (left + 2) / 3;
		S->picks = (S->wave + 2) / 3;
	} else
		S->wave = left / 5 < 1 ? 1 : left / 5;
}

static void run_waves(state *S)
{
	size_t n = S->sp->count;
	plan_waves(S);
	size_t w = S->wave;
	ranked *centre = xcalloc(S->budget + 1, sizeof *centre);
	size_t *wave = xcalloc(WAVE + 1, sizeof *wave), *nb = xcalloc(2 * S->np + 1, sizeof *nb);
	char *taken = xcalloc(n + 1, 1);
	while (budget_left(S)) {
		size_t m = 0, k = 0;
		for (size_t i = 0; i < S->used; i++)
			if (!isinf(S->time[S->order[i]]))
				centre[m++] = (ranked){S->time[S->order[i]], S->order[i]};
		qsort(centre, m, sizeof *centre, by_key);
		if (S->picks && m)
			k = surrogate_picks(S, taken, wave, k, S->picks);
		for (size_t i = 0; i < m && k < w; i++) {
			size_t nn = neighbours(S, centre[i].config, nb, 0);
			for (size_t j = 0; j < nn && k < w; j++)
				if (!taken[nb[j]]) {
					taken[nb[j]] = 1;
					wave[k++] = nb[j];
				}
		}
		/* every neighbourhood explored: somewhere new; nothing passed yet: a wave of draws */
		long long c;
		while (!k || (!m && k < w)) {
			if ((c = random_untaken(S, taken)) < 0)
				break;
			taken[c] = 1;
			wave[k++] = (size_t)c;
		}
		if (!k)
			break;
		measure_in_order(S, wave, k, 1);
		for (size_t i = 0; i < k; i++)
			taken[wave[i]] = 0;
	}
	free(centre);
	free(wave);
	free(nb);
	free(taken);
}

/* Appends c's unmarked, unmeasured neighbours to out (up to cap), marking them. */
static size_t add_neighbours(state *S, size_t c, size_t *out, size_t k, size_t cap, size_t *nb)
{
	size_t nn = neighbours_in_order(S, c, nb, 0);
	for (size_t j = 0; j < nn && k < cap; j++)
		if (!S->mark[nb[j]]) {
			S->mark[nb[j]] = 1;
			out[k++] = nb[j];
		}
	return k;
}

/* What the waves will measure after the list in flight (rest), were the results still to come as
 * the surrogate predicts them: the search itself run ahead on a copy of its state and generator,
 * for up to two waves (cap at most) beyond rest. Exact, configuration for configuration, as long as
 * the results rank as predicted: while the best stays the best, the next wave is known before the
 * last of the list comes in. Returns how many went to out. */
static size_t forecast(const state *S, const size_t *rest, size_t nrest, size_t *out, size_t cap)
{
	size_t n = S->sp->count, k = 0;
	surrogate g;
	surrogate_fit(&g, S, rest, nrest);
	state F = *S;
	F.eval = surrogate_eval;
	F.ctx = &g;
	F.sur = &g;
	F.hint = F.commit = NULL;
	F.poll = NULL;
	F.peek = NULL;
	F.time = xcalloc(n + 1, sizeof *F.time);
	memcpy(F.time, S->time, n * sizeof *F.time);
	F.order = xcalloc(S->budget + 1, sizeof *F.order);
	memcpy(F.order, S->order, S->used * sizeof *F.order);
	F.mark = xcalloc(n + 1, 1);
	measure_in_order(&F, rest, nrest, 1);
	size_t from = F.used;
	plan_waves(&F);
	F.horizon = from + (cap < 2 * F.wave ? cap : 2 * F.wave); /* two rounds: beyond, guesses diverge */
	run_waves(&F);
	for (size_t i = from; i < F.used; i++)
		out[k++] = F.order[i];
	free(F.time);
	free(F.order);
	free(F.mark);
	surrogate_free(&g);
	return k;
}

/* What the waves would propose after the list in flight (rest), as far as cap: the unmeasured
 * configurations in order of the moves that reach them from a centre, each centre starting as
 * late as its rank among the results (the best measured, or peeked where the caller measured some
 * of the list ahead of its turn, at 0; the next at 1, ...). Those in flight that no result ranks
 * yet start at 1: any may turn out best, and one whose binary takes long would otherwise be the
 * last whose neighbours are guessed. Within a step, the centres' own neighbours come before the
 * moves beyond them, which a wave would reach a round later. Draws nothing from the generator, so
 * that guessing never changes the sequence. Returns how many went to out. */
static size_t speculate(state *S, const size_t *rest, size_t nrest, size_t *out, size_t cap)
{
	ranked *centre = xcalloc(S->used + nrest + 1, sizeof *centre);
	size_t m = 0, *nb = xcalloc(2 * S->np + 1, sizeof *nb);
	size_t *unranked = xcalloc(nrest + 1, sizeof *unranked), nu = 0;
	for (size_t i = 0; i < S->used; i++)
		if (!isinf(S->time[S->order[i]]))
			centre[m++] = (ranked){S->time[S->order[i]], S->order[i]};
	for (size_t i = 0; i < nrest; i++) {
		if (measured(S, rest[i]))
			continue;
		double t = S->peek ? S->peek(S->ctx, rest[i]) : NAN;
		if (isnan(t))
			unranked[nu++] = rest[i];
		else if (!isinf(t))
			centre[m++] = (ranked){t, rest[i]};
	}
	qsort(centre, m, sizeof *centre, by_key);
	for (size_t i = 0; i < nrest; i++)
		S->mark[rest[i]] = 1;
	size_t k = nu <= FORESEE ? forecast(S, rest, nrest, out, cap / 2) : 0, lo = 0, hi = 0;
	for (size_t i = 0; i < k; i++)
		S->mark[out[i]] = 1;
	for (size_t step = 0; k < cap && (step <= m || lo < hi); step++) {
		if (step < m)
			k = add_neighbours(S, centre[step].config, out, k, cap, nb);
		for (size_t i = 0; step == 1 && i < nu; i++)
			k = add_neighbours(S, unranked[i], out, k, cap, nb);
		for (size_t i = lo; i < hi; i++)
			k = add_neighbours(S, out[i], out, k, cap, nb);
		lo = hi;
		hi = k;
	}
	for (size_t i = 0; i < nrest; i++)
		S->mark[rest[i]] = 0;
	for (size_t i = 0; i < k; i++)
		S->mark[out[i]] = 0;
	free(unranked);
	free(nb);
	free(centre);
	return k;
}

size_t *search_order(const double *prior, size_t n)
{
	ranked *rank = xcalloc(n + 1, sizeof *rank);
	size_t *order = xcalloc(n + 1, sizeof *order);
	for (size_t c = 0; c < n; c++)
		rank[c] = (ranked){prior ? prior[c] : 0, c};
	qsort(rank, n, sizeof *rank, by_key);
	for (size_t i = 0; i < n; i++)
		order[i] = rank[i].config;
	free(rank);
	return order;
}

/* Model-guided: half the budget on the configurations the static model ranks best, then waves
 * of neighbours of the best measured ones. */
static void run_model(state *S, const double *prior)
{
	size_t n = S->sp->count, *rank = search_order(prior, n);
	size_t half = S->budget / 2 > 0 ? S->budget / 2 : 1;
	half = half > S->used ? half - S->used : 0; /* the start's count in it */
	/* the first half: the model's best, each followed by a uniform draw, so that a space that the
	 * launch alone does not explain (a kernel variant as a parameter) still gets a fair look;
	 * drawn before anything is measured, so that all of it can be compiled ahead */
	size_t *first = xcalloc(half + 1, sizeof *first), nfirst = 0;
	char *taken = xcalloc(n + 1, 1);
	for (size_t k = 0; k < n && nfirst < half; k++) {
		if (taken[rank[k]] || measured(S, rank[k]))
			continue;
		taken[rank[k]] = 1;
		first[nfirst++] = rank[k];
		long long c;
		if (nfirst < half && (c = random_untaken(S, taken)) >= 0) {
			taken[c] = 1;
			first[nfirst++] = (size_t)c;
		}
	}
	measure_in_order(S, first, nfirst, 1);
	free(taken);
	free(first);
	free(rank);
	run_waves(S);
}

/* The start's configurations of the space, measured first: the best of them, -1 when none. */
static long long measure_start(state *S, const size_t *start, size_t n)
{
	size_t *list = xcalloc(n + 1, sizeof *list), k = 0;
	for (size_t i = 0; i < n; i++)
		if (start[i] < S->sp->count)
			list[k++] = start[i];
	if (k)
		measure_in_order(S, list, k, 0);
	free(list);
	return S->best;
}

static size_t run(const config *cfg, const space *sp, const search_opts *opt, size_t *order, int dry)
{
	size_t budget = opt->budget;
	const double *prior = opt->prior;
	strategy s = opt->strategy;
	state S = {.cfg = cfg, .sp = sp, .np = cfg->nparams, .budget = budget, .order = order, .eval = opt->eval,
		   .ctx = opt->ctx, .rng = opt->seed, .best = -1, .hint = opt->hint};
	if (!sp->count || !budget)
		return 0;
	S.commit = opt->hint ? opt->commit : NULL;
	S.poll = S.commit ? opt->poll : NULL;
	S.peek = S.commit ? opt->peek : NULL;
	prepare(&S);
	S.mark = xcalloc(sp->count + 1, 1);
	S.spec = xcalloc(budget + 2 * S.np + SPECULATE + 1, sizeof *S.spec);
	long long from = measure_start(&S, opt->start, opt->nstart);
	S.dry = dry; /* the start is evaluated first whatever the strategy: it counts as measured */
	switch (s) {
	case STRAT_EXHAUSTIVE: {
		size_t n = budget < sp->count ? budget : sp->count, *all = xcalloc(n + 1, sizeof *all);
		for (size_t c = 0; c < n; c++)
			all[c] = c;
		measure_in_order(&S, all, n, 0);
		free(all);
		break;
	}
	case STRAT_RANDOM: run_random(&S); break;
	case STRAT_LOCAL: run_local(&S, from); break;
	case STRAT_ANNEAL: run_anneal(&S, from); break;
	case STRAT_GENETIC: run_genetic(&S); break;
	case STRAT_MODEL: run_model(&S, prior); break;
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

static void note_first(void *ctx, const size_t *configs, size_t n)
{
	first_list *f = ctx;
	for (size_t i = 0; i < n && f->n < f->cap; i++) {
		size_t j = 0;
		while (j < f->n && f->out[j] != configs[i])
			j++;
		if (j == f->n)
			f->out[f->n++] = configs[i];
	}
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
	double score, threads;
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
		t[c] = (tie){prior[c], threads, c, 0};
	}
	qsort(t, n, sizeof *t, by_granularity);
	for (size_t i = 1; i < n; i++)
		if (t[i - 1].score == t[i].score && t[i - 1].threads == t[i].threads)
			t[i].turn = t[i - 1].turn + 1;
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
