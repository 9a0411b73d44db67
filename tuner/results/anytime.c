/* anytime.c: the methodology's score of a strategy over a recording (anytime.h says what it
 * computes). The random baseline is the methodology's calculated one, unsmoothed; the strategy's
 * curve is the mean rank of the best found so far, which is what the methodology's isotonic fit
 * over the pooled runs comes to where every run's curve is monotone. */
#include "anytime.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "binary.h"
#include "config.h"
#include "random.h"
#include "replay.h"
#include "banned.h"

/* Points of the time axis. */
enum { RESOLUTION = ANYTIME_POINTS };

static int ascending(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* What an evaluation of c costs when its binary is built already (s). */
static double run_cost(const anytime_space *a, size_t c)
{
	return ANYTIME_OVERHEAD_S + (isinf(a->time[c]) ? 0 : 12 * a->time[c] / 1000);
}

/* Evaluations until random search is expected to have come fraction p of the way from the
 * median to the optimum: the rank i, counted from the worst, of the first configuration at least
 * that good, and i / (N + 1 - i) draws to expect one of them or better. */
static size_t cutoff(const anytime_space *a, double p)
{
	size_t n = a->nvalid;
	double median = n % 2 ? a->asc[n / 2] : (a->asc[n / 2 - 1] + a->asc[n / 2]) / 2;
	double target = a->asc[0] + (median - a->asc[0]) * (1 - p);
	size_t good = 0;
	while (good < n && a->asc[good] <= target)
		good++;
	size_t i = n - good;
	return (size_t)ceil((double)i / (double)(n + 1 - i));
}

double anytime_random(const anytime_space *a, size_t k)
{
	size_t n = a->nvalid;
	if (k < 1)
		k = 1;
	double r = round((double)k * (double)(n + 1) / (double)(k + 1));
	size_t i = r >= (double)(n - 1) ? n - 1 : (size_t)r;
	return a->asc[n - 1 - i]; /* i counts from the worst */
}

/* Random search's expected clock after k = 0..kmax evaluations: k runs at the space's mean, and a
 * compile for each binary it is expected to have hit (a binary of m of the N configurations is
 * missed by k draws without replacement with probability prod (N - m - j) / (N - j), j < k). The
 * methodology charges each evaluation the space's mean; where configurations share binaries (launch
 * geometry), a compile is paid once, as a live run pays it. */
static double *random_clock(const anytime_space *a, size_t kmax)
{
	size_t n = a->sp->count, *size = xcalloc(a->nbins + 1, sizeof *size);
	double *clock = xcalloc(kmax + 2, sizeof *clock), *miss = xcalloc(a->nbins + 1, sizeof *miss), run = 0;
	for (size_t c = 0; c < n; c++) {
		size[a->of_config[c]]++;
		run += run_cost(a, c) / (double)n;
	}
	for (size_t b = 0; b < a->nbins; b++)
		miss[b] = 1;
	for (size_t k = 1; k <= kmax; k++) {
		double built = 0;
		for (size_t b = 0; b < a->nbins; b++) {
			double left = (double)n - (double)(k - 1);
			double m = left > (double)size[b] ? miss[b] * (left - (double)size[b]) / left : 0;
			built += miss[b] - m;
			miss[b] = m;
		}
		clock[k] = clock[k - 1] + run + built * ANYTIME_COMPILE_S;
	}
	free(size);
	free(miss);
	return clock;
}

static void trace(const anytime_space *a, const size_t *seq, size_t n, size_t *best, double *end);
static double axis_time(const anytime_space *a, size_t i);

/* Random search on the time axis: ANYTIME_DRAWS runs without replacement (a fixed generator, so
 * that a score is the same every time), each traced as a strategy's run is and sampled at the
 * axis's points as anytime_score_strategy samples one, the mean rank at each point kept. */
static void random_baseline(anytime_space *a)
{
	size_t n = a->sp->count, *perm = xcalloc(n + 1, sizeof *perm), *best = xcalloc(n + 1, sizeof *best);
	double *end = xcalloc(n + 1, sizeof *end), t1 = axis_time(a, RESOLUTION - 1);
	unsigned long long rng = 46;
	a->base = xcalloc(RESOLUTION, sizeof *a->base);
	for (size_t c = 0; c < n; c++)
		perm[c] = c;
	int *built = xcalloc(a->nbins + 1, sizeof *built); /* r + 1: built in run r */
	for (int r = 0; r < ANYTIME_DRAWS; r++) {
		/* draws until the run's clock passes the axis's end */
		size_t m = 0;
		double clock = 0;
		while (m < n && clock <= t1) {
			size_t j = m + (size_t)random_below(&rng, n - m), t = perm[m];
			perm[m] = perm[j];
			perm[j] = t;
			if (built[a->of_config[perm[m]]] != r + 1) {
				built[a->of_config[perm[m]]] = r + 1;
				clock += ANYTIME_COMPILE_S;
			}
			clock += run_cost(a, perm[m]);
			m++;
		}
		trace(a, perm, m, best, end);
		for (size_t i = 0, k = 0; i < RESOLUTION; i++) {
			while (k < m && end[k] <= axis_time(a, i))
				k++;
			a->base[i] += (double)best[k ? k - 1 : 0] / ANYTIME_DRAWS;
		}
	}
	free(built);
	free(perm);
	free(best);
	free(end);
}

int anytime_open(const config *cfg, const space *sp, const char *csv, anytime_space *a, diags *d)
{
	memset(a, 0, sizeof *a);
	a->cfg = cfg, a->sp = sp, a->csv = csv;
	size_t n = sp->count;
	a->time = xcalloc(n + 1, sizeof *a->time);
	size_t *seq = xcalloc(n + 1, sizeof *seq);
	replay_result r;
	int rc = replay_run(cfg, sp,
			    &(replay_opts){.recording = csv, .strategy = STRAT_EXHAUSTIVE, .budget = 1, .seed = 1, .jobs = 1,
					   .sequence = seq, .times = a->time},
			    &r, d);
	free(seq);
	if (rc)
		return -1;
	a->asc = xcalloc(n + 1, sizeof *a->asc);
	for (size_t c = 0; c < n; c++)
		if (!isinf(a->time[c]))
			a->asc[a->nvalid++] = a->time[c];
	if (a->nvalid < 2) {
		diags_add(d, "%s: fewer than two configurations passed: nothing to score against", csv);
		anytime_close(a);
		return -1;
	}
	qsort(a->asc, a->nvalid, sizeof *a->asc, ascending);
	build b;
	build_plan(cfg, sp, &b);
	a->nbins = b.nbins;
	a->of_config = xcalloc(n + 1, sizeof *a->of_config);
	memcpy(a->of_config, b.of_config, n * sizeof *a->of_config);
	build_free(&b);
	a->evals_start = cutoff(a, 0.01);
	if (a->evals_start < 1)
		a->evals_start = 1;
	a->evals_end = cutoff(a, 0.95);
	if (a->evals_end <= a->evals_start)
		a->evals_end = a->evals_start + 1;
	a->clock = random_clock(a, a->evals_end);
	random_baseline(a);
	return 0;
}

void anytime_close(anytime_space *a)
{
	free(a->time);
	free(a->asc);
	free(a->of_config);
	free(a->clock);
	free(a->base);
	memset(a, 0, sizeof *a);
}

/* The rank (0: the optimum) of t among the passed; the worst rank for a failure. */
static size_t rank_of(const anytime_space *a, double t)
{
	size_t lo = 0, hi = a->nvalid;
	if (isinf(t))
		return a->nvalid - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a->asc[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* One run's best rank so far after each evaluation (best[k]: after k + 1) and when each ended. */
static void trace(const anytime_space *a, const size_t *seq, size_t n, size_t *best, double *end)
{
	char *built = xcalloc(a->nbins + 1, 1);
	double clock = 0;
	size_t b = a->nvalid - 1;
	for (size_t k = 0; k < n; k++) {
		size_t c = seq[k];
		if (!built[a->of_config[c]]) {
			built[a->of_config[c]] = 1;
			clock += ANYTIME_COMPILE_S;
		}
		clock += run_cost(a, c);
		size_t r = rank_of(a, a->time[c]);
		b = r < b ? r : b;
		best[k] = b;
		end[k] = clock;
	}
	free(built);
}

/* The i-th point of the time axis, s. */
static double axis_time(const anytime_space *a, size_t i)
{
	double t0 = a->clock[a->evals_start], t1 = a->clock[a->evals_end];
	return t0 + (t1 - t0) * (double)i / (RESOLUTION - 1);
}

static double at_rank(const anytime_space *a, double rank)
{
	size_t i = (size_t)round(rank);
	return a->asc[i < a->nvalid ? i : a->nvalid - 1];
}

/* The standardised value of a mean rank against random search's best there (random). */
static double standardised(const anytime_space *a, double rank, double random)
{
	double found = at_rank(a, rank), opt = a->asc[0];
	return random > opt ? (random - found) / (random - opt) : (found <= opt ? 1 : 0);
}

int anytime_score_strategy(const anytime_space *a, strategy s, int seeds, anytime_score *out, diags *d)
{
	size_t n = a->sp->count, budget = 10 * a->evals_end < n ? 10 * a->evals_end : n;
	double t1 = a->clock[a->evals_end];
	size_t *seq = xcalloc(budget + 1, sizeof *seq), *best = xcalloc(budget + 1, sizeof *best);
	double *end = xcalloc(budget + 1, sizeof *end), *time = xcalloc(n + 1, sizeof *time);
	size_t nev = a->evals_end - a->evals_start + 1;
	double *at_time = xcalloc(RESOLUTION, sizeof *at_time), *at_eval = xcalloc(nev + 1, sizeof *at_eval);
	int rc = 0;
	unsigned long long from = a->seed_from ? a->seed_from : 1;
	for (int seed = 1; seed <= seeds && rc == 0; seed++) {
		replay_result r;
		replay_opts o = {.recording = a->csv, .prior = a->prior, .strategy = s, .budget = budget, .seed = from + (unsigned long long)seed - 1,
				 .jobs = 1, .sequence = seq, .times = time};
		if ((rc = replay_run(a->cfg, a->sp, &o, &r, d)))
			break;
		trace(a, seq, r.evaluations, best, end);
		/* before the first result, the first (as the methodology's isotonic fit holds its first
		 * point back to the axis's start); past the run's end, its last */
		for (size_t i = 0, k = 0; i < RESOLUTION; i++) {
			double t = axis_time(a, i);
			while (k < r.evaluations && end[k] <= t)
				k++;
			at_time[i] += (double)best[k ? k - 1 : 0] / seeds;
		}
		for (size_t j = 0; j < nev; j++) {
			size_t k = a->evals_start + j < r.evaluations ? a->evals_start + j : r.evaluations;
			at_eval[j] += (double)best[k ? k - 1 : 0] / seeds;
		}
	}
	memset(out, 0, sizeof *out);
	for (size_t i = 0; rc == 0 && i < RESOLUTION; i++)
		out->time_score += standardised(a, at_time[i], at_rank(a, a->base[i])) / RESOLUTION;
	for (size_t j = 0; rc == 0 && j < nev; j++)
		out->eval_score += standardised(a, at_eval[j], anytime_random(a, a->evals_start + j)) / (double)nev;
	out->cutoff_evals = a->evals_end;
	out->cutoff_s = t1;
	out->budget = budget;
	free(seq);
	free(best);
	free(end);
	free(time);
	free(at_time);
	free(at_eval);
	return rc;
}
