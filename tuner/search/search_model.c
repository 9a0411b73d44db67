/* search_model.c: the model-guided strategy, the static model's best first and then waves of
 * neighbours and a surrogate's picks (on a plateau, search_plateau.c's moves), and the guesses
 * that tell a caller which compiles come next: one idea, as the guesses are the waves run ahead
 * on the surrogate (forecast). Every strategy's lists are measured here
 * (search_measure_in_order), since each measurement guesses again. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "search_prior.h"
#include "search_state.h"
#include "banned.h"

/* A forecast runs the search ahead once at most this many results of the list in flight are still
 * to come: before, it would rest mostly on predictions, and each costs a pass over the space. */
enum { FORESEE = 4 };

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
void search_measure_in_order(state *S, const size_t *all, size_t nall, int guess_after)
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
	if ((!S->commit || !guess_after) && !S->nahead)
		hint(S, list, n);
	else if (!S->commit || !guess_after) {
		memcpy(S->spec, list, n * sizeof *list);
		memcpy(S->spec + n, S->ahead, S->nahead * sizeof *list);
		hint(S, S->spec, n + S->nahead);
	}
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
				size_t h = n - i + S->nahead;
				memcpy(S->spec, list + i, (n - i) * sizeof *list);
				memcpy(S->spec + n - i, S->ahead, S->nahead * sizeof *list);
				hint(S, S->spec, h + search_speculate(S, list + i, n - i, S->spec + h, SPECULATE));
			} while (S->poll && !S->poll(S->ctx, list[i]));
		}
		measure(S, list[i]);
	}
	free(list);
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
enum { WAVE = 16, WIDE = 8, GROW = 4, SLIVER = 20 };

/* Whether the run covers less than a twentieth of the space: too little for a few of its picks or
 * moves to be made up for by the rest (run_waves' draws, short_run). */
static int over_a_sliver(const state *S) { return S->budget * SLIVER < S->sp->count; }

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

static int by_time(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The prior's track record: each of the model's picks, once measured, counts as good when it beats
 * the median of all measured so far (a bar that rises as the search refines). */
static void credit(state *S, const size_t *picks, size_t n)
{
	double *t = xcalloc(S->used + 1, sizeof *t);
	size_t m = 0;
	for (size_t i = 0; i < S->used; i++)
		if (!isinf(S->time[S->order[i]]))
			t[m++] = S->time[S->order[i]];
	qsort(t, m, sizeof *t, by_time);
	for (size_t i = 0; i < n; i++)
		if (measured(S, picks[i])) {
			S->model_tried++;
			S->model_good += m && S->time[picks[i]] <= t[m / 2];
		}
	free(t);
}

/* The model's share of a wave of w: half of it times the prior's success rate (Laplace's: one
 * good and one bad assumed), rounded down, so that a prior the results contradict drops out of the
 * waves and one that keeps finding good configurations keeps its place. */
static size_t model_picks(state *S, char *taken, size_t *wave, size_t k, size_t w)
{
	if (!S->rank || w < 4)
		return k;
	double p = (double)(S->model_good + 1) / (double)(S->model_tried + 2);
	size_t want = (size_t)(p * (double)w / 2), n = S->sp->count;
	while (want && k < w && S->rank_next < n) {
		size_t c = S->rank[S->rank_next++];
		if (measured(S, c) || taken[c])
			continue;
		taken[c] = 1;
		wave[k++] = c;
		want--;
		if (S->chosen)
			S->chosen[c] = 0;
	}
	return k;
}

/* A plateau: no configuration better by GAIN in the last STALE evaluations, or a third of the
 * run so far when that is more (search_diversify leaves it). */
enum { STALE = 16 };
/* A best that improves by less than this does not end a plateau: a broad basin's floor has
 * near-ties (0.1% apart on transpose_big), and stepping over them kept a run from ever
 * diversifying there. */
#define GAIN 0.01

/* The prior checked against everything measured so far (the first list's draws too, which it did
 * not choose), on the pairs with one of its picks so far (those it ranks as far as rank_next): once
 * it ranks them no better than a prior that knows nothing, it is set aside for
 * the rest of the run: the waves take no more of its picks. Checked while the
 * run is young (CHECKED evaluations): later, its share of the waves follows its picks' record
 * (credit), and the pairs grow as the square of the evaluations. */
enum { CHECKED = 48 };

static void check_prior(state *S)
{
	if (!S->rank || !S->prior || !S->rank_next || S->used > CHECKED)
		return;
	if (S->chosen ? !search_prior_misleads(S->chosen, S->time, S->order, S->used, 0)
		      : !search_prior_misleads(S->prior, S->time, S->order, S->used, S->prior[S->rank[S->rank_next - 1]]))
		return;
	S->rank = NULL;
	if (S->set_aside && !S->sur)
		*S->set_aside = S->used;
}

/* Whether configurations share binaries: more than one binary, fewer than configurations. */
static int binaries_shared(const state *S) { return !own_binaries(S) && S->nbins >= 2; }

/* Where configurations share binaries, a compile costs about a hundred runs (0.7 s against
 * milliseconds): a wave takes the neighbours in binaries built (or in the wave) first, then those
 * that need one, one configuration of at most NEWBINS new binaries (on the time axis: gs_axpy
 * 0.44 -> 0.49, transpose_big 0.89 -> 0.90, histogram 0.27 -> 0.29). */
enum { NEWBINS = 2 };

/* The wave's neighbours of the centres, best first, as far as w. */
static size_t add_moves(state *S, char *taken, size_t *wave, size_t k, size_t w, const ranked *centre, size_t m, size_t *nb)
{
	char *built = binaries_shared(S) ? built_binaries(S) : NULL;
	size_t fresh = 0;
	for (size_t u = 0; built && u < k; u++)
		built[S->bin_of[wave[u]]] = 1;
	for (int pass = 0; pass < (built ? 2 : 1); pass++)
		for (size_t i = 0; i < m && k < w; i++) {
			size_t nn = neighbours(S, centre[i].config, nb, 0);
			for (size_t j = 0; j < nn && k < w; j++) {
				if (taken[nb[j]] || (built && (built[S->bin_of[nb[j]]] != !pass || (pass && fresh >= NEWBINS))))
					continue;
				if (pass) {
					fresh++;
					built[S->bin_of[nb[j]]] = 1;
				}
				taken[nb[j]] = 1;
				wave[k++] = nb[j];
			}
		}
	free(built);
	return k;
}

static void run_waves(state *S)
{
	size_t n = S->sp->count;
	plan_waves(S);
	ranked *centre = xcalloc(S->budget + 1, sizeof *centre);
	size_t *wave = xcalloc(WAVE + 1, sizeof *wave), *nb = xcalloc(2 * S->np + 1, sizeof *nb);
	char *taken = xcalloc(n + 1, 1);
	while (budget_left(S)) {
		/* early waves are narrow, so that each decision sees the last results: a run is good at
		 * every moment only if it refines from its first results on */
		size_t m = 0, k = 0, w = S->used / 2 > S->wave ? S->wave : S->used / 2 < GROW ? GROW : S->used / 2;
		w = w < S->wave ? w : S->wave;
		for (size_t i = 0; i < S->used; i++)
			if (!isinf(S->time[S->order[i]]))
				centre[m++] = (ranked){S->time[S->order[i]], S->order[i]};
		qsort(centre, m, sizeof *centre, by_key);
		double before = S->best >= 0 ? S->time[S->best] : INFINITY;
		k = model_picks(S, taken, wave, k, w);
		size_t by_model = k;
		if (S->stale >= STALE && S->stale >= S->used / 3)
			k = search_diversify(S, taken, wave, k, S->stale >= S->used / 2 ? w : k + (w + 1) / 2, centre, m);
		/* a short run (too short for the surrogate's picks) over a sliver of a large space
		 * alternates a uniform draw with the neighbours: from a best that is itself one of a few
		 * draws, a neighbour is rarely better than a draw (FIR at 7 evaluations, convolution at
		 * 22: medians 0.69 and 0.73 of the optimum where random search expects 0.83 and 0.78).
		 * Where the run covers a twentieth of the space or more, the best's neighbours are the
		 * better bet (reduce at 8 of 40 under a scrambled prior: 0.97 with draws, 1.00 without) */
		if (!S->picks && m && over_a_sliver(S))
			k = add_draws(S, taken, wave, k, (w - k + (S->used & 1)) / 2);
		if (S->picks && m)
			k = surrogate_picks(S, taken, wave, k, k + (w + 2) / 3 < w ? k + (w + 2) / 3 : w);
		k = add_moves(S, taken, wave, k, w, centre, m, nb);
		/* nothing passed yet: a wave of draws; every neighbourhood explored: somewhere new */
		if (!m)
			k = add_draws(S, taken, wave, k, w - k);
		if (!k)
			k = add_draws(S, taken, wave, k, 1);
		if (!k)
			break;
		search_measure_in_order(S, wave, k, 1);
		credit(S, wave, by_model);
		check_prior(S);
		S->stale = S->best >= 0 && S->time[S->best] < before * (1 - GAIN) ? 0 : S->stale + k;
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
	F.nahead = 0;
	if (S->climbed) {
		F.climbed = xcalloc(n + 1, 1);
		memcpy(F.climbed, S->climbed, n);
	}
	if (S->chosen) {
		F.chosen = xcalloc(n + 1, sizeof *F.chosen);
		memcpy(F.chosen, S->chosen, n * sizeof *F.chosen);
	}
	F.poll = NULL;
	F.peek = NULL;
	F.time = xcalloc(n + 1, sizeof *F.time);
	memcpy(F.time, S->time, n * sizeof *F.time);
	F.order = xcalloc(S->budget + 1, sizeof *F.order);
	memcpy(F.order, S->order, S->used * sizeof *F.order);
	F.mark = xcalloc(n + 1, 1);
	search_measure_in_order(&F, rest, nrest, 1);
	size_t from = F.used;
	plan_waves(&F);
	F.horizon = from + (cap < 2 * F.wave ? cap : 2 * F.wave); /* two rounds: beyond, guesses diverge */
	run_waves(&F);
	for (size_t i = from; i < F.used; i++)
		out[k++] = F.order[i];
	free(F.time);
	free(F.order);
	free(F.mark);
	if (S->chosen)
		free(F.chosen);
	if (S->climbed)
		free(F.climbed);
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
size_t search_speculate(state *S, const size_t *rest, size_t nrest, size_t *out, size_t cap)
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

/* Model-guided, good at every moment of a run whatever its budget: a short first list of the
 * configurations the static model ranks best, then waves that refine around the best measured,
 * take the model's next picks only as far as its ranking agrees with the results (prior_fit), and
 * leave a plateau by recombining the best (diversify). The first list is at most PROBE (half the
 * budget below that): longer, the best so far would be only as good as the static ranking for
 * most of a run. */
enum { PROBE = 8 };

/* Where configurations share binaries (launch geometry as parameters), a draw from a binary the
 * first list builds already costs a run, milliseconds, where one more binary costs a compile
 * (0.7 s): after each configuration that brings a binary new to the list, up to CHEAP uniform
 * draws among the configurations of the binaries it has (drawn as random_untaken draws, the first
 * of up to 64 that falls in one), as far as cap. None where every configuration is a binary,
 * nor where all are one: nothing waits on a compile there. */
enum { CHEAP = 4 };

static size_t cheap_draws(state *S, char *taken, char *bin, size_t *first, size_t nfirst, size_t c, size_t cap)
{
	if (!binaries_shared(S) || bin[S->bin_of[c]])
		return nfirst;
	bin[S->bin_of[c]] = 1;
	for (size_t d = 0, tries = 0; d < CHEAP && nfirst < cap && tries < 64; tries++) {
		long long e = random_untaken(S, taken);
		if (e < 0)
			break;
		if (!bin[S->bin_of[e]])
			continue;
		taken[e] = 1;
		first[nfirst++] = (size_t)e;
		d++;
	}
	return nfirst;
}

/* Where binaries are shared, a compile costs as much as a hundred runs (0.7 s against
 * milliseconds), and the prior's order within its best score is a guess (on the histogram space
 * its first picks are the other binary's global atomics, among the slowest 5%, compiled while the
 * first binary's configurations wait): the first list's next model pick is the first in the
 * prior's order, within its best score, whose binary the list has already (bin), moved to rank[k];
 * none there: rank[k] as it is. */
#define LEVEL 1e-6

static void pick_built(const state *S, size_t *rank, size_t k, const char *bin, const double *prior)
{
	size_t n = S->sp->count;
	if (!prior || !binaries_shared(S) || bin[S->bin_of[rank[k]]])
		return;
	for (size_t j = k + 1; j < n && prior[rank[j]] < prior[rank[k]] + LEVEL; j++)
		if (bin[S->bin_of[rank[j]]] && !measured(S, rank[j])) {
			size_t c = rank[j];
			memmove(rank + k + 1, rank + k, (j - k) * sizeof *rank);
			rank[k] = c;
			return;
		}
}

/* The first list in steps, each a uniform draw, then a model pick, each followed by its cheap
 * draws, measured a step at a time. The model's picks follow the prior's order until one of them
 * is slower than every draw measured before it; from then on they are uniform draws among the
 * open configurations of the score of the order's next (its level). The order within a score is
 * a guess the launch alone cannot check: its first pick ranks at the 0.65, 0.05, 0.18, 0.21, 0.93,
 * 1.00, 0.86, 1.00, 0.63 and 0.98 quantile of the ten recordings of bench/anytime.sh, where a
 * draw from the level averages 0.24-0.53; on FIR (every configuration its own binary, an axis of
 * 9 evaluations) it is 77 times the optimum and among the longest compiles. The waves go on in
 * the order from where the ranked picks stopped (on convolution its fifth pick holds the
 * optimum's basin). Once the order is set aside, every pick (ranked or drawn) counts in the
 * prior's check (S->chosen), so that two picks slower than every other still set the prior aside
 * (a reversed transfer, whose levels are one configuration each). */
typedef struct {
	size_t half, cap, nmain, n, npicks, k;
	size_t *list, *picks;
	char *taken, *bin, *drawn; /* drawn: per configuration, a draw of the list */
	int level, drew; /* drew: a pick was drawn from a level */
	int pick_only;   /* a run of one evaluation: the model's first pick, no draw */
	long long last; /* the last step's ranked pick, -1: none */
} probe;

static int probe_full(const probe *P) { return P->nmain >= P->half || (P->n >= P->half && P->npicks >= 2); }

/* Appends c and the cheap draws after it; those are draws, and c too unless it is a pick. */
static void probe_add(state *S, probe *P, size_t c, int pick)
{
	size_t from = P->n + (size_t)pick;
	P->taken[c] = 1;
	P->list[P->n++] = c;
	P->nmain++;
	if (pick)
		P->picks[P->npicks++] = c;
	P->n = cheap_draws(S, P->taken, P->bin, P->list, P->n, c, P->cap - (P->half - P->nmain));
	for (size_t i = from; i < P->n; i++)
		P->drawn[P->list[i]] = 1;
}

/* At a level: a uniform draw among the open configurations of the score of the order's first
 * open one, -1 when none is left; where binaries are shared, from those the list has built if one
 * of 64 tries falls there (a compile costs a hundred runs: pick_built), else any of 64 more. */
static long long level_pick(state *S, const probe *P, const size_t *rank, const double *prior)
{
	size_t n = S->sp->count, i0 = P->k, j;
	while (i0 < n && (P->taken[rank[i0]] || measured(S, rank[i0])))
		i0++;
	if (i0 >= n)
		return -1;
	for (j = i0; j < n && prior[rank[j]] < prior[rank[i0]] + LEVEL; j++)
		;
	int shared = binaries_shared(S);
	for (int tries = 0; tries < 128; tries++) {
		size_t c = rank[i0 + below(&S->rng, j - i0)];
		if (!P->taken[c] && !measured(S, c) && (!shared || tries >= 64 || P->bin[S->bin_of[c]]))
			return (long long)c;
	}
	return (long long)rank[i0];
}

/* How many configurations share the score of the order's k-th (a transfer's: one each). */
static size_t level_width(const state *S, const size_t *rank, const double *prior, size_t k)
{
	size_t n = S->sp->count, j = k;
	while (j < n && prior[rank[j]] < prior[rank[k]] + LEVEL)
		j++;
	return j - k;
}

/* One step onto the list: a draw, then a model pick (the order's: the cursor k moves as the list
 * once decided at once moved it); returns how many it added, 0 when the list is complete. */
static size_t probe_step(state *S, probe *P, size_t *rank, const double *prior)
{
	size_t n = S->sp->count, from = P->n;
	P->last = -1;
	while (!probe_full(P) && P->k < n) {
		long long c = P->pick_only ? -1 : random_untaken(S, P->taken);
		if (c >= 0)
			probe_add(S, P, (size_t)c, 0);
		int drawn = P->level && level_width(S, rank, prior, P->k) > 1; /* this step's pick */
		if (probe_full(P)) {
			P->k += !drawn;
			break;
		}
		if (drawn) {
			if ((c = level_pick(S, P, rank, prior)) >= 0) {
				P->drew = 1;
				probe_add(S, P, (size_t)c, 1);
			}
			break;
		}
		pick_built(S, rank, P->k, P->bin, prior);
		size_t k = P->k++;
		if (P->taken[rank[k]] || measured(S, rank[k]))
			continue;
		P->last = (long long)rank[k];
		probe_add(S, P, rank[k], 1);
		break;
	}
	return P->n - from;
}

/* The step's ranked pick, once measured, against the draws measured so far: MISLEAD times slower
 * than all of them, the order is set aside for the rest of the list. Merely slower than one draw
 * is what a pick at the draws' median is half the time: on convolution, whose order's later picks
 * hold the optimum's basin, that bar cost 0.92 -> 0.84 (10 seeds), at twice the slowest draw
 * histogram 0.29 -> 0.26; FIR's first pick is 77 times the optimum. */
#define MISLEAD 3.0
static void probe_check(const state *S, probe *P)
{
	if (P->level || P->last < 0 || !measured(S, (size_t)P->last))
		return;
	double slowest = -INFINITY;
	for (size_t i = 0; i < S->used; i++)
		if (P->drawn[S->order[i]])
			slowest = fmax(slowest, S->time[S->order[i]]);
	P->level = slowest > -INFINITY && !(S->time[P->last] <= MISLEAD * slowest);
}

/* What the list adds after its steps so far, its picks at a level or not: the steps run on copies
 * of the generator, the cursor, the order and the marks, so that a caller can build them while the
 * first are measured (exact: no step draws on a result). Into out (room: cap); returns how many. */
static size_t probe_ahead(state *S, const probe *P, const size_t *rank, const double *prior, int level, size_t *out)
{
	size_t n = S->sp->count;
	unsigned long long rng = S->rng;
	probe F = *P;
	size_t *r = xcalloc(n + 1, sizeof *r);
	memcpy(r, rank, n * sizeof *r);
	F.list = xcalloc(P->cap + 1, sizeof *F.list);
	F.picks = xcalloc(P->cap + 1, sizeof *F.picks);
	F.taken = xcalloc(n + 1, 1);
	F.drawn = xcalloc(n + 1, 1);
	F.bin = xcalloc(S->nbins + 1, 1);
	memcpy(F.list, P->list, P->n * sizeof *F.list);
	memcpy(F.taken, P->taken, n);
	memcpy(F.bin, P->bin, S->nbins);
	F.level = level;
	while (probe_step(S, &F, r, prior))
		;
	size_t k = F.n - P->n;
	memcpy(out, F.list + P->n, k * sizeof *out);
	free(F.list);
	free(F.picks);
	free(F.taken);
	free(F.drawn);
	free(F.bin);
	free(r);
	S->rng = rng;
	return k;
}

/* After the first list: where its order was set aside, the check judges what the model chose. */
static void probe_done(state *S, const probe *P, size_t *rank, const double *prior)
{
	S->rank = prior ? rank : NULL;
	S->prior = prior;
	S->rank_next = P->k;
	if (!prior)
		return;
	if (P->drew) {
		size_t n = S->sp->count;
		S->chosen = xcalloc(n + 1, sizeof *S->chosen);
		for (size_t c = 0; c < n; c++)
			S->chosen[c] = 1;
		for (size_t i = 0; i < P->npicks; i++)
			S->chosen[P->picks[i]] = 0;
	}
	credit(S, P->picks, P->npicks);
	check_prior(S);
}

/* Whether the first list draws its picks from the model's best score from the first, not only
 * once the order misleads (probe_check): in a run of more than three evaluations over a sliver
 * of the space (over_a_sliver). Such a run holds a few picks and cannot make up for one that
 * misses, and the order within a score is a guess (its first pick lies in the slower 40% of the
 * space on seven of the ten recordings: probe's comment); a pick that misses costs the run the
 * chance a draw keeps. On convolution at 1% the order's picks are 0.728 and 0.61 of the optimum,
 * below random search's expected 0.754 whatever the seed; drawn, the median over 150 seeds is
 * 0.756, and at 2% 0.779 against 0.776. Longer runs take the order: its later picks are what they
 * refine (convolution's fifth holds its optimum's basin). A transfer's order has one configuration
 * a score: taken as it is. */
static int short_run(const state *S, const double *prior)
{
	return prior && S->budget > 3 && over_a_sliver(S);
}

/* The model strategy: the first list a step at a time, then the waves. */
void search_run_model(state *S, const double *prior)
{
	size_t n = S->sp->count, *rank = search_order(prior, n);
	S->climbed = xcalloc(n + 1, 1);
	size_t half = S->budget / 2 > 0 ? S->budget / 2 : 1;
	half = half < PROBE ? half : PROBE;
	/* a run of two or three evaluations still holds a model pick, and a run of one is the pick:
	 * what a user asks of a budget that small is the model's best guess (on reduce at 2 of 40, a
	 * draw and its neighbour left the worst tenth of seeds at 0.24 of the optimum; the pick is 0.99) */
	half = half < 2 && S->budget >= 2 ? 2 : half;
	half = half > S->used ? half - S->used : 0; /* the start's count in it */
	/* the model's best, each after a uniform draw, so that a space that the launch alone does
	 * not explain (a kernel variant as a parameter) still gets a fair look and the prior is
	 * checked against configurations it did not choose. A draw first: a run's first result stands
	 * alone until the next binary is built (0.7 s against milliseconds per run), and the model's
	 * first pick was among the slowest 5% on the histogram space (3.7 ms against 0.015), where a
	 * draw is the median on average. Where binaries are shared, cheap draws follow each new
	 * binary (cheap_draws) on top of them, at most as many again: they never take a draw's or a
	 * model pick's place (in their place, a short run at 5% of summatrix could have no model
	 * pick). The list ends once it is half long with two model picks in it: more draws and picks
	 * there would only delay the refinement, and each can cost a compile. Each step is committed
	 * once the one before it is measured (probe_check), the rest of the list hinted both ways it
	 * may go on, so that all of it can be compiled ahead as when it was decided at once. In a
	 * short run over a sliver of the space, the picks are drawn from the best score from the first
	 * (short_run) */
	probe P = {.half = half, .cap = 2 * half, .pick_only = prior && S->budget == S->used + 1, .level = short_run(S, prior)};
	P.list = xcalloc(P.cap + 1, sizeof *P.list);
	P.picks = xcalloc(P.cap + 1, sizeof *P.picks);
	P.taken = xcalloc(n + 1, 1);
	P.drawn = xcalloc(n + 1, 1);
	P.bin = xcalloc(S->nbins + 1, 1);
	size_t *ahead = xcalloc(2 * P.cap + 1, sizeof *ahead);
	for (size_t from = 0, k; (S->dry || budget_left(S)) && (k = probe_step(S, &P, rank, prior)); from += k) {
		/* the list as it goes on, then as it would if this step set the order aside */
		S->nahead = S->hint ? probe_ahead(S, &P, rank, prior, P.level, ahead) : 0;
		if (S->hint && prior && !P.level && P.last >= 0)
			S->nahead += probe_ahead(S, &P, rank, prior, 1, ahead + S->nahead);
		S->ahead = ahead;
		search_measure_in_order(S, P.list + from, k, 1);
		if (prior)
			probe_check(S, &P);
	}
	S->nahead = 0;
	S->ahead = NULL;
	probe_done(S, &P, rank, prior);
	free(ahead);
	free(P.list);
	free(P.picks);
	free(P.taken);
	free(P.drawn);
	free(P.bin);
	run_waves(S);
	free(S->chosen);
	S->chosen = NULL;
	free(S->climbed);
	S->climbed = NULL;
	free(rank);
}
