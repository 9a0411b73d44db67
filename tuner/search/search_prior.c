/* search_prior.c: a prior's check against the measurements, and a transfer's prior from another
 * recording's times (search_prior.h). */
#include "search_prior.h"

#include <math.h>
#include <stdlib.h>

#include "diag.h"
#include "banned.h"

typedef struct {
	double other, model;
	size_t config;
} ranked_transfer;

/* Timed first (by time), then lacking, then failed; within each, by the model, then space order. */
static int group(double t) { return isnan(t) ? 1 : isinf(t) ? 2 : 0; }

static int by_transfer(const void *a, const void *b)
{
	const ranked_transfer *x = a, *y = b;
	int gx = group(x->other), gy = group(y->other);
	if (gx != gy)
		return gx < gy ? -1 : 1;
	if (gx == 0 && x->other != y->other)
		return x->other < y->other ? -1 : 1;
	if (x->model != y->model)
		return x->model < y->model ? -1 : 1;
	return (x->config > y->config) - (x->config < y->config);
}

double *search_prior_transfer(const double *other, const double *model, size_t n)
{
	ranked_transfer *r = xcalloc(n + 1, sizeof *r);
	double *prior = xcalloc(n + 1, sizeof *prior);
	for (size_t c = 0; c < n; c++)
		r[c] = (ranked_transfer){other[c], model ? model[c] : 0, c};
	qsort(r, n, sizeof *r, by_transfer);
	/* the rank as the value: a strict order, which the model strategy's ties would otherwise
	 * reorder */
	for (size_t i = 0; i < n; i++)
		prior[r[i].config] = (double)i;
	free(r);
	return prior;
}

double search_prior_agreement(const double *prior, const double *time, const size_t *order, size_t n, double top,
			      size_t *pairs)
{
	long long agree = 0;
	size_t counted = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			double dp = prior[order[i]] - prior[order[j]];
			double ti = time[order[i]], tj = time[order[j]];
			/* the built-in model's ties differ by offsets below 1e-6 (their turns): a tie */
			if (fabs(dp) < 1e-6 || ti == tj || isnan(dp) || isnan(ti) || isnan(tj) ||
			    (prior[order[i]] > top && prior[order[j]] > top))
				continue;
			counted++;
			agree += (dp < 0) == (ti < tj) ? 1 : -1;
		}
	if (pairs)
		*pairs = counted;
	return counted ? (double)agree / (double)counted : 0;
}

static int ascending(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int search_prior_misleads(const double *prior, const double *time, const size_t *order, size_t n, double top)
{
	double best_pick = INFINITY, *others = xcalloc(n + 1, sizeof *others);
	size_t picks = 0, m = 0;
	for (size_t i = 0; i < n; i++) {
		double t = time[order[i]];
		if (isnan(t))
			continue;
		if (prior[order[i]] <= top) {
			picks++;
			best_pick = fmin(best_pick, t);
		} else
			others[m++] = t;
	}
	int misleads = 0;
	if (picks >= 2 && m >= 3) {
		qsort(others, m, sizeof *others, ascending);
		misleads = best_pick > others[m - 1];
	}
	free(others);
	return misleads;
}
