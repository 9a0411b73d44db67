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

const char *const policy_names[] = {"balanced", "fastest", NULL};

/* The shortest of %.15g and %.17g that reads back as v: 2 stays "2", 0.1 stays "0.1". */
static int exact(char *buf, size_t len, double v)
{
	int n = snprintf(buf, len, "%.15g", v);
	return strtod(buf, NULL) == v ? n : snprintf(buf, len, "%.17g", v);
}

void select_policy_text(const select_policy *p, char buf[POLICY_TEXT_MAX])
{
	char k[32], o[32], e[32];
	exact(k, sizeof k, p->noise_band);
	exact(o, sizeof o, p->w_occupancy);
	exact(e, sizeof e, p->w_load_efficiency);
	int n = snprintf(buf, POLICY_TEXT_MAX, "%s;noise_band=%s;occupancy=%s;load_efficiency=%s", policy_names[p->kind], k, o, e);
	if (*p->objective && n > 0 && n < POLICY_TEXT_MAX)
		snprintf(buf + n, POLICY_TEXT_MAX - (size_t)n, ";%s=%s", p->maximize ? "maximize" : "minimize", p->objective);
}

/* ";minimize=EXPR" or ";maximize=EXPR" to the end: 0 with p's objective set, -1 when at holds
 * neither (or the expression does not fit). */
static int objective_field(const char *at, select_policy *p)
{
	static const char *const dir[] = {";minimize=", ";maximize="};
	for (int k = 0; k < 2; k++) {
		size_t n = strlen(dir[k]);
		if (!strncmp(at, dir[k], n) && at[n] && strlen(at + n) < OBJECTIVE_TEXT_MAX) {
			snprintf(p->objective, sizeof p->objective, "%s", at + n);
			p->maximize = k;
			return 0;
		}
	}
	return -1;
}

/* "NAME=" and a finite, non-negative number up to the next ';' or the end: 0 with *v and *at
 * past it. */
static int field(const char **at, const char *name, double *v)
{
	size_t n = strlen(name);
	if (**at != ';' || strncmp(*at + 1, name, n) || (*at)[n + 1] != '=')
		return -1;
	const char *s = *at + n + 2;
	char *end;
	*v = strtod(s, &end);
	if (end == s || (*end && *end != ';') || !isfinite(*v) || *v < 0)
		return -1;
	*at = end;
	return 0;
}

int select_policy_parse(const char *text, select_policy *p)
{
	select_policy q;
	memset(&q, 0, sizeof q);
	size_t n = strcspn(text, ";");
	int kind = -1;
	for (int i = 0; policy_names[i]; i++)
		if (strlen(policy_names[i]) == n && !strncmp(text, policy_names[i], n))
			kind = i;
	const char *at = text + n;
	if (kind < 0 || field(&at, "noise_band", &q.noise_band) || field(&at, "occupancy", &q.w_occupancy) ||
	    field(&at, "load_efficiency", &q.w_load_efficiency) || (*at && objective_field(at, &q)))
		return -1;
	q.kind = (policy_kind)kind;
	*p = q;
	return 0;
}
