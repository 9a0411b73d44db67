/* ahead.c: the order of a search's compiles (ahead.h) and the compile-time model behind it. The
 * model is additive in log seconds: a binary's prediction is the mean log time of those built,
 * plus, for each compile-time parameter, how far the mean of the built binaries with its value
 * lies from that (shrunk towards 0 while few share the value). Unroll and tile factors multiply
 * the code ptxas schedules, so their effects multiply the time: log-additive fits them. */
#include "ahead.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "binary.h"
#include "config.h"
#include "diag.h"
#include "banned.h"

enum { IDLE, RUNNING, DONE };

struct ahead {
	size_t nbins, jobs;
	int speculate;
	/* the model: np compile-time parameters, each binary's value positions (nbins x np), and per
	 * (parameter, value) at off[p] + position: the sum of log seconds and how many */
	size_t np, *pos, *off;
	double *sum, all_sum;
	size_t *cnt, all_n;
	char *state, *wanted, *committed;
	unsigned long long *seq, clock; /* when each running binary started, in starts */
	size_t *want, nwant, want_cap;   /* waited for and not built yet */
	size_t *commit, ncommit, commit_cap;
	size_t *hint, nhint, hint_cap, hint_from;
	size_t waited, ahead; /* without speculation: the bound on hinted starts */
	double mean;          /* ahead_predict_mean's, until another binary is built (NAN: stale) */
};

int ahead_enabled(void)
{
	const char *v = getenv("AUTOTUNE_AHEAD");
	return !(v && !strcmp(v, "0"));
}

/* The model's coordinates: each binary's position in each compile-time parameter's values. */
static void model_init(ahead *a, const config *cfg, const space *sp, const build *b)
{
	size_t *params = xcalloc(cfg->nparams + 1, sizeof *params), nvals = 0;
	for (size_t i = 0; i < cfg->nparams; i++)
		if (param_is_compile_time(&cfg->params[i]))
			params[a->np++] = i;
	a->off = xcalloc(a->np + 1, sizeof *a->off);
	for (size_t p = 0; p < a->np; p++) {
		a->off[p] = nvals;
		nvals += cfg->params[params[p]].nvalues;
	}
	a->sum = xcalloc(nvals + 1, sizeof *a->sum);
	a->cnt = xcalloc(nvals + 1, sizeof *a->cnt);
	a->pos = xcalloc(a->nbins * a->np + 1, sizeof *a->pos);
	for (size_t k = 0; k < a->nbins; k++) {
		const value *v = space_config(sp, b->bins[k].first_config);
		for (size_t p = 0; p < a->np; p++) {
			const param *pr = &cfg->params[params[p]];
			for (size_t j = 0; j < pr->nvalues; j++)
				if (value_equal(pr->values[j], v[params[p]])) {
					a->pos[k * a->np + p] = j;
					break;
				}
		}
	}
	free(params);
}

ahead *ahead_new(const config *cfg, const space *sp, const build *b, size_t jobs, int speculate)
{
	ahead *a = xcalloc(1, sizeof *a);
	size_t nbins = a->nbins = b->nbins;
	a->jobs = jobs ? jobs : 1;
	a->speculate = speculate;
	a->state = xcalloc(nbins + 1, 1);
	a->wanted = xcalloc(nbins + 1, 1);
	a->committed = xcalloc(nbins + 1, 1);
	a->seq = xcalloc(nbins + 1, sizeof *a->seq);
	a->mean = NAN;
	model_init(a, cfg, sp, b);
	return a;
}

void ahead_free(ahead *a)
{
	if (!a)
		return;
	free(a->pos);
	free(a->off);
	free(a->sum);
	free(a->cnt);
	free(a->state);
	free(a->wanted);
	free(a->committed);
	free(a->seq);
	free(a->want);
	free(a->commit);
	free(a->hint);
	free(a);
}

void ahead_want(ahead *a, size_t bin)
{
	if (a->wanted[bin])
		return;
	a->wanted[bin] = 1;
	a->waited++;
	if (a->state[bin] == DONE)
		return;
	grow(&a->want, &a->want_cap, a->nwant + 1, sizeof *a->want);
	a->want[a->nwant++] = bin;
}

void ahead_commit(ahead *a, const size_t *bins, size_t n)
{
	if (!a->speculate)
		return;
	for (size_t i = 0; i < a->ncommit; i++)
		a->committed[a->commit[i]] = 0;
	grow(&a->commit, &a->commit_cap, n + 1, sizeof *a->commit);
	a->ncommit = 0;
	for (size_t i = 0; i < n; i++)
		if (!a->committed[bins[i]]) {
			a->committed[bins[i]] = 1;
			a->commit[a->ncommit++] = bins[i];
		}
}

void ahead_hint(ahead *a, const size_t *bins, size_t n)
{
	grow(&a->hint, &a->hint_cap, n + 1, sizeof *a->hint);
	memcpy(a->hint, bins, n * sizeof *bins);
	a->nhint = n;
	a->hint_from = 0;
}

/* The committed binary not started with the longest predicted compile (ties: the list's order). */
static long long longest_committed(ahead *a)
{
	long long best = -1;
	double longest = -1;
	size_t w = 0;
	for (size_t i = 0; i < a->ncommit; i++) {
		size_t k = a->commit[i];
		if (a->state[k] == DONE)
			continue; /* built: no longer a candidate, the list shrinks as it goes */
		a->commit[w++] = k;
		double t = a->state[k] == IDLE ? ahead_predict(a, k) : -1;
		if (a->state[k] == IDLE && t > longest) {
			longest = t;
			best = (long long)k;
		}
	}
	a->ncommit = w;
	return best;
}

long long ahead_next(ahead *a, int *urgent)
{
	*urgent = 1;
	for (size_t i = 0; i < a->nwant; i++)
		if (a->state[a->want[i]] == IDLE)
			return (long long)a->want[i];
	long long k = longest_committed(a);
	if (k >= 0)
		return k;
	*urgent = 0;
	if (!a->speculate && a->ahead >= a->waited + a->jobs)
		return -1;
	while (a->hint_from < a->nhint && a->state[a->hint[a->hint_from]] != IDLE)
		a->hint_from++;
	return a->hint_from < a->nhint ? (long long)a->hint[a->hint_from] : -1;
}

long long ahead_victim(const ahead *a)
{
	long long v = -1;
	for (size_t k = 0; k < a->nbins; k++)
		if (a->state[k] == RUNNING && !a->wanted[k] && !a->committed[k] && (v < 0 || a->seq[k] > a->seq[v]))
			v = (long long)k;
	return v;
}

void ahead_started(ahead *a, size_t bin)
{
	int was_wanted = a->wanted[bin];
	a->state[bin] = RUNNING;
	a->seq[bin] = ++a->clock;
	a->ahead += !was_wanted && !a->speculate;
}

int ahead_is_done(const ahead *a, size_t bin) { return a->state[bin] == DONE; }

void ahead_stopped(ahead *a, size_t bin)
{
	if (a->state[bin] == RUNNING)
		a->state[bin] = IDLE;
	if (a->hint_from > 0)
		a->hint_from = 0; /* it may be hinted again, behind where the hint had got to */
}

void ahead_done(ahead *a, size_t bin, double seconds)
{
	a->state[bin] = DONE;
	a->committed[bin] = 0;
	size_t w = 0;
	for (size_t i = 0; i < a->nwant; i++)
		if (a->want[i] != bin)
			a->want[w++] = a->want[i];
	a->nwant = w;
	if (seconds <= 0 || !isfinite(seconds))
		return;
	double l = log(seconds);
	a->all_sum += l;
	a->all_n++;
	for (size_t p = 0; p < a->np; p++) {
		size_t at = a->off[p] + a->pos[bin * a->np + p];
		a->sum[at] += l;
		a->cnt[at]++;
	}
	a->mean = NAN;
}

double ahead_predict(const ahead *a, size_t bin)
{
	if (!a->all_n)
		return 0;
	double m = a->all_sum / (double)a->all_n, l = m;
	for (size_t p = 0; p < a->np; p++) {
		size_t at = a->off[p] + a->pos[bin * a->np + p];
		/* n / (n + 1): one binary of a value says little about the value */
		if (a->cnt[at])
			l += (a->sum[at] / (double)a->cnt[at] - m) * (double)a->cnt[at] / (double)(a->cnt[at] + 1);
	}
	return exp(l);
}

size_t ahead_affordable(ahead *a, double seconds)
{
	double mean = ahead_predict_mean(a);
	return mean > 0 ? (size_t)(seconds * (double)a->jobs / mean) + 1 : 0;
}

double ahead_predict_mean(ahead *a)
{
	if (!isnan(a->mean))
		return a->mean;
	double s = 0;
	for (size_t k = 0; k < a->nbins; k++)
		s += ahead_predict(a, k);
	a->mean = a->nbins ? s / (double)a->nbins : 0;
	return a->mean;
}
