/* select.c: the choice of winner. Seed 00 (3.7-3.9) shows that no single metric decides and
 * that the best configuration is rarely the best on any one of them; on a modern GPU the top
 * block shapes of a memory-bound kernel are often within noise of each other. So time decides
 * first, and only among configurations that time cannot tell apart does the balance of occupancy
 * (latency hiding headroom) and load efficiency (bytes wasted per sector) break the tie. */
#include "select.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "stats.h"
#include "banned.h"

double balance_score(const result *r, const select_policy *p)
{
	double occ = r->occupancy, eff = 1.0;
	if (r->have_metrics) {
		if (!isnan(r->metrics[METRIC_ACHIEVED_OCCUPANCY]))
			occ = r->metrics[METRIC_ACHIEVED_OCCUPANCY] / 100;
		if (!isnan(r->metrics[METRIC_GLD_EFFICIENCY]))
			eff = r->metrics[METRIC_GLD_EFFICIENCY] / 100;
	}
	double w = p->w_occupancy + p->w_load_efficiency;
	return w > 0 ? (p->w_occupancy * occ + p->w_load_efficiency * eff) / w : 0;
}

int same_shape(const result *a, const result *b)
{
	if (a->block[0] <= 0)
		return 0;
	for (int d = 0; d < 3; d++)
		if (a->block[d] != b->block[d] || a->grid[d] != b->grid[d])
			return 0;
	/* a plan is part of the launch: its streams, order and connections */
	return a->smem == b->smem && a->streams == b->streams && a->breadth_first == b->breadth_first &&
	       a->connections == b->connections;
}

/* The best balance among the tied; counters differ by tenths of a percent from run to run, so
 * scores within BALANCE_TIE of it are as good. */
static double best_balance(const result *res, const choice *c, const select_policy *p)
{
	double best = -1;
	for (size_t k = 0; k < c->ntied; k++)
		best = fmax(best, balance_score(&res[c->tied[k]], p));
	return best;
}

/* Of the tied with as good a balance, the fastest, the first in the space's order of equal
 * medians: a noise band drawn from one run's samples is narrower than the spread between runs,
 * so being inside it is a coin flip while the order of two shapes still repeats (on an H200,
 * 128x2 trailed 256x1 by 0.04-0.3% in every run BENCHMARKS.md records, and twice fell inside the
 * band). */
static long long quickest(const result *res, const choice *c, const select_policy *p, double best)
{
	long long quick = -1;
	for (size_t k = 0; k < c->ntied; k++) {
		size_t i = c->tied[k];
		if (balance_score(&res[i], p) >= best - BALANCE_TIE &&
		    (quick < 0 || result_rank(&res[i]) < result_rank(&res[quick])))
			quick = (long long)i;
	}
	return quick;
}

/* Whether i may stand for quick: quick itself, or a build of its launch shape with as good a
 * balance within SHAPE_TIE of it; those swap places, so the first of them in the space wins. */
static int shape_sibling(const result *res, const select_policy *p, double best, size_t i, long long quick)
{
	return (long long)i == quick ||
	       (balance_score(&res[i], p) >= best - BALANCE_TIE && same_shape(&res[i], &res[quick]) &&
		result_rank(&res[i]) <= result_rank(&res[quick]) * (1 + SHAPE_TIE));
}

/* A candidate: it passed, and its objective (if any) could be evaluated. */
static int candidate(const result *r) { return result_passed(r) && isfinite(result_rank(r)); }

void select_winner(const result *res, size_t n, const select_policy *p, choice *c)
{
	c->winner = c->fastest = -1;
	c->tied = NULL;
	c->ntied = 0;
	/* the objective's score where there is one: relative to the best, with the time's noise (an
	 * objective is a time scaled by what the configuration does, or its reciprocal) */
	for (size_t i = 0; i < n; i++)
		if (candidate(&res[i]) && (c->fastest < 0 || result_rank(&res[i]) < result_rank(&res[c->fastest])))
			c->fastest = (long long)i;
	if (c->fastest < 0)
		return;
	const result *f = &res[c->fastest];
	size_t cap = 0;
	for (size_t i = 0; i < n; i++) {
		if (!candidate(&res[i]))
			continue;
		/* only configurations timed alike are compared: finalists with finalists */
		if ((res[i].final_rounds > 0) != (f->final_rounds > 0))
			continue;
		if ((long long)i != c->fastest &&
		    !stats_within_noise(result_rank(f), result_noise(f), result_rank(&res[i]), result_noise(&res[i]), p->noise_band) &&
		    !(same_shape(&res[i], f) && result_rank(&res[i]) <= result_rank(f) * (1 + SHAPE_TIE)))
			continue;
		grow(&c->tied, &cap, c->ntied + 1, sizeof *c->tied);
		c->tied[c->ntied++] = i;
	}
	c->winner = c->fastest;
	if (p->kind != POLICY_BALANCED)
		return;
	double best = best_balance(res, c, p);
	long long quick = quickest(res, c, p, best);
	for (size_t k = 0; k < c->ntied; k++)
		if (shape_sibling(res, p, best, c->tied[k], quick)) {
			c->winner = (long long)c->tied[k];
			break;
		}
}

const char *select_why_lost(const result *res, const choice *c, size_t i, const select_policy *p)
{
	long long quick = c->fastest;
	if (p->kind == POLICY_BALANCED) {
		double best = best_balance(res, c, p);
		if (balance_score(&res[i], p) < best - BALANCE_TIE)
			return "lower balance";
		quick = quickest(res, c, p, best);
		if (shape_sibling(res, p, best, i, quick))
			return "the winner's launch shape: the winner comes first in the space";
	}
	/* the fastest eligible is the first of equal medians in the space's order */
	int equal = result_rank(&res[i]) == result_rank(&res[quick]);
	if (*p->objective)
		return equal ? "equal objective: the winner comes first in the space" : "worse objective";
	if (p->kind != POLICY_BALANCED)
		return equal ? "equal median: the winner comes first in the space" : "slower median";
	if (quick != c->winner)
		return equal ? "same balance within 0.01, the fastest's median but later in the space (the winner has the "
			       "fastest's launch shape)"
			     : "same balance within 0.01, slower median than the fastest (the winner has its launch shape)";
	return equal ? "same balance within 0.01, equal median: the winner comes first in the space"
		     : "same balance within 0.01, slower median";
}

void choice_free(choice *c)
{
	free(c->tied);
	c->tied = NULL;
	c->ntied = 0;
}
