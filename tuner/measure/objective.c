/* objective.c: select.objective and metrics: evaluated for a measured configuration. The
 * objective is ranked smaller-better, so a maximised one ranks by its reciprocal: a rate (GFLOP/s,
 * work per second) is then a time again, and the selection's noise band, relative to the best,
 * keeps its meaning. */
#include "objective.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scope.h"
#include "banned.h"

/* Lookup for an objective or metric: the measured names, then the metrics before `upto`, then
 * constants and parameters. `missing` names a measured name that has no value for r. */
typedef struct {
	const config *cfg;
	const value *params;
	const result *r;
	size_t upto;
	const char *missing;
} oscope;

static int eval_in(oscope *s, const cexpr *x, double *out, expr_error *ee);

/* work per launch over the time, in units of 1e9 a second: the CSV's gbps and gflops, which
 * the measuring stage derives only once everything is measured, while a search ranks as it goes */
static double rate(oscope *s, const cexpr *work, double t_ms)
{
	value v;
	diags ignore = {0};
	int rc = work->e && t_ms > 0 ? cexpr_eval(s->cfg, work, s->params, &v, &ignore, NULL) : -1;
	diags_free(&ignore);
	return rc ? NAN : value_as_double(v) / (t_ms * 1e-3) / 1e9;
}

static int measured(oscope *s, const char *name, value *out)
{
	const result *r = s->r;
	double t = result_time(r), v = NAN;
	if (!strcmp(name, "time_ms"))
		v = t;
	else if (!strcmp(name, "time_s"))
		v = t / 1e3;
	else if (!strcmp(name, "gbps"))
		v = rate(s, &s->cfg->bytes, t);
	else if (!strcmp(name, "gflops"))
		v = rate(s, &s->cfg->flops, t);
	else if (!strcmp(name, "joules"))
		v = r->have_energy ? r->joules : NAN;
	else if (!strcmp(name, "watts"))
		v = r->have_energy ? r->watts : NAN;
	else
		return 1; /* not a measured name */
	if (isnan(v)) {
		s->missing = name;
		return -1;
	}
	*out = value_float(v);
	return 0;
}

static int lookup(void *ctx, const char *name, value *out)
{
	oscope *s = ctx;
	int m = measured(s, name, out);
	if (m <= 0)
		return m;
	for (size_t i = 0; i < s->upto; i++)
		if (!strcmp(s->cfg->umetrics[i].name, name)) {
			oscope inner = *s;
			inner.upto = i;
			expr_error ee;
			double v;
			if (eval_in(&inner, &s->cfg->umetrics[i].x, &v, &ee)) {
				s->missing = inner.missing;
				return -1;
			}
			*out = value_float(v);
			return 0;
		}
	scope sc = {s->cfg, s->params};
	return scope_lookup(&sc, name, out);
}

static int eval_in(oscope *s, const cexpr *x, double *out, expr_error *ee)
{
	value v;
	if (!x->e || expr_eval(x->e, lookup, s, &v, ee))
		return -1;
	*out = value_as_double(v);
	return isfinite(*out) ? 0 : -1;
}

void objective_apply(const config *cfg, const value *params, result *r)
{
	r->scored = 0;
	r->objective = r->score = 0;
	if (!cfg->objective.e || !result_passed(r))
		return;
	oscope s = {cfg, params, r, cfg->numetrics, NULL};
	expr_error ee;
	double v;
	/* compared relative to the best, as times are: only a positive value ranks */
	if (eval_in(&s, &cfg->objective, &v, &ee) || v <= 0) {
		r->scored = 2;
		return;
	}
	r->scored = 1;
	r->objective = v;
	r->score = cfg->select.maximize ? 1 / v : v;
}

double objective_per_ms(const config *cfg, const value *params)
{
	if (!cfg->objective.e)
		return 1;
	/* proportional: the score of a launch twice as long is twice the score (no energy: a
	 * reading is not a time) */
	result r = {.st = ST_OK, .samples = 1, .t_median = 1};
	objective_apply(cfg, params, &r);
	double one = r.score;
	int ok = r.scored == 1;
	r.t_median = 2;
	objective_apply(cfg, params, &r);
	ok &= r.scored == 1 && fabs(r.score - 2 * one) <= 1e-9 * r.score;
	return ok ? one : 0;
}

double objective_best_ms(const config *cfg, const value *params, double best_rank)
{
	double per_ms = best_rank > 0 ? objective_per_ms(cfg, params) : 0;
	return per_ms > 0 ? best_rank / per_ms : 0;
}

int objective_metric(const config *cfg, const value *params, const result *r, size_t i, double *out)
{
	if (i >= cfg->numetrics || !result_passed(r))
		return -1;
	oscope s = {cfg, params, r, i, NULL};
	expr_error ee;
	return eval_in(&s, &cfg->umetrics[i].x, out, &ee);
}

void objective_why(const config *cfg, const value *params, const result *r, char *buf, size_t len)
{
	*buf = 0;
	if (r->scored != 2)
		return;
	oscope s = {cfg, params, r, cfg->numetrics, NULL};
	expr_error ee = {0, ""};
	double v = 0;
	int rc = eval_in(&s, &cfg->objective, &v, &ee);
	if (s.missing)
		snprintf(buf, len, "the objective uses %s, which has no value here%s", s.missing,
			 !strcmp(s.missing, "joules") || !strcmp(s.missing, "watts") ? " (no energy measured)" : "");
	else if (rc && *ee.msg)
		snprintf(buf, len, "the objective: %s", ee.msg);
	else if (rc)
		snprintf(buf, len, "the objective is not a finite number");
	else
		snprintf(buf, len, "the objective is %g: only a positive value ranks", v);
}
