/* view.c: one reading of a results CSV shared by `report` and `show`, so that both name the same
 * winner, the same times and the same counts. */
#include "view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "completeness.h"
#include "banned.h"

int view_load(const char *path, view *v, diags *d)
{
	memset(v, 0, sizeof *v);
	v->winner = -1;
	if (table_load(path, &v->t, d))
		return -1;
	v->res = table_results(&v->t);
	v->policy_recorded = table_policy(&v->t, &v->policy);
	v->winner = table_pick_winner(&v->t, v->res, &v->winner_flagged, &v->pick);
	int st = table_col(&v->t, "status");
	for (size_t r = 0; r < v->t.nrows; r++) {
		status s;
		if (status_parse(table_get(&v->t, r, st), &s) == 0)
			v->counts[s]++;
		else
			v->unknown_status++;
	}
	run_extent run;
	table_run(&v->t, &run);
	v->unlisted = run.configurations - v->t.nrows;
	/* what a dry run writes: compiled rows, and those that failed to compile or cannot launch
	 * (known without running), nothing measured */
	v->dry = v->counts[ST_NOT_RUN] &&
		 v->counts[ST_NOT_RUN] + v->counts[ST_COMPILE_ERROR] + v->counts[ST_LAUNCH_ERROR] == v->t.nrows;
	for (size_t r = 0; r < v->t.nrows && v->dry; r++)
		v->dry = strcmp(view_status(v, r), "not-run") || !isnan(view_num(v, r, "registers"));
	return 0;
}

void view_free(view *v)
{
	table_results_free(v->res, v->t.nrows);
	choice_free(&v->pick);
	table_free(&v->t);
	v->res = NULL;
}

int view_passed(const view *v, size_t row)
{
	const result *r = &v->res[row];
	return result_passed(r);
}

double view_rank(const view *v, size_t row) { return view_passed(v, row) ? result_rank(&v->res[row]) : NAN; }

double view_time(const view *v, size_t row) { return view_passed(v, row) ? result_time(&v->res[row]) : NAN; }

double view_noise(const view *v, size_t row)
{
	/* table_results turned the percentages into fractions */
	return view_passed(v, row) ? 100 * result_noise(&v->res[row]) : NAN;
}

double view_num(const view *v, size_t row, const char *column) { return table_num(&v->t, row, table_col(&v->t, column)); }

int view_occupancy_achieved(const view *v, size_t row) { return !isnan(view_num(v, row, "achieved_occupancy_pct")); }

double view_occupancy(const view *v, size_t row)
{
	double a = view_num(v, row, "achieved_occupancy_pct");
	return isnan(a) ? 100 * view_num(v, row, "theoretical_occupancy") : a;
}

const char *view_status(const view *v, size_t row) { return table_field(&v->t, row, "status"); }

double view_dry_occupancy(const view *v, size_t row)
{
	return strcmp(view_status(v, row), "not-run") ? NAN : 100 * view_num(v, row, "theoretical_occupancy");
}

double view_smem(const view *v, size_t row)
{
	double dyn = view_num(v, row, "dynamic_smem_bytes");
	return view_num(v, row, "static_smem_bytes") + (isnan(dyn) ? 0 : dyn);
}

char *view_describe(const view *v, size_t row)
{
	const table *t = &v->t;
	size_t len = 0, cap = 0;
	char *s = NULL;
	grow(&s, &cap, 1, 1);
	s[0] = 0;
	size_t first = 0, end = t->nparams;
	if (end == 0) { /* a file without parameter columns: the block shape is all there is */
		first = t->nparams;
		end = first + 2;
	}
	for (size_t c = first; c < end && c < t->ncols; c++) {
		char *part = xasprintf("%s%s=%s", len ? " " : "", t->names[c], table_get(t, row, (int)c));
		size_t n = strlen(part);
		grow(&s, &cap, len + n + 1, 1);
		memcpy(s + len, part, n + 1);
		len += n;
		free(part);
	}
	return s;
}

char *view_policy(const view *v)
{
	const char *name = policy_names[v->policy.kind];
	if (*v->policy.objective)
		return xasprintf("the %s policy by the objective (%s %s)", name, v->policy.maximize ? "maximize" : "minimize",
				 v->policy.objective);
	return v->policy_recorded ? xasprintf("the %s policy", name)
				  : xasprintf("the default %s policy (the file records none)", name);
}

/* Why the winner of a balanced choice won: the fastest alone, or the best balance among the tied. */
static char *why_balanced(const view *v, const char *source, const char *retimed)
{
	const choice *c = &v->pick;
	const result *w = &v->res[v->winner];
	if (c->ntied <= 1)
		return xasprintf("%sthe fastest%s, and no other configuration is within the noise band (%g standard "
				 "errors)", source, retimed, v->policy.noise_band);
	if (c->winner == c->fastest)
		return xasprintf("%sthe fastest%s; %zu other%s within the noise band had no better balance of "
				 "occupancy and load efficiency (score %.3f)", source, retimed, c->ntied - 1,
				 c->ntied == 2 ? "" : "s", balance_score(w, &v->policy));
	char *fast = view_describe(v, (size_t)c->fastest);
	char *s = xasprintf("%swithin the noise band of the fastest (%s, %.4g ms), and the best balance of "
			    "occupancy and load efficiency among the %zu tied (score %.3f against %.3f)%s",
			    source, fast, result_time(&v->res[c->fastest]), c->ntied,
			    balance_score(w, &v->policy), balance_score(&v->res[c->fastest], &v->policy), retimed);
	free(fast);
	return s;
}

/* Why the winner of a choice by select.objective won: the best value, or the balance among those
 * within its noise band. */
static char *why_objective(const view *v, const char *source, const char *retimed)
{
	const choice *c = &v->pick;
	const result *w = &v->res[v->winner];
	const char *dir = v->policy.maximize ? "maximize" : "minimize";
	if (c->winner == c->fastest)
		return xasprintf("%sthe best by the objective (%s %s): %.6g%s; %zu other%s within its noise band (%g "
				 "standard errors)", source, dir, v->policy.objective, w->objective, retimed, c->ntied - 1,
				 c->ntied == 2 ? "" : "s", v->policy.noise_band);
	char *best = view_describe(v, (size_t)c->fastest);
	char *s = xasprintf("%swithin the noise band of the best by the objective (%s %s: %s, %.6g) with %.6g, and the "
			    "best balance of occupancy and load efficiency among the %zu tied (score %.3f)%s",
			    source, dir, v->policy.objective, best, v->res[c->fastest].objective, w->objective, c->ntied,
			    balance_score(w, &v->policy), retimed);
	free(best);
	return s;
}

/* Where the winner comes from: the file's mark or a choice made again, and by which policy. */
static char *why_source(const view *v)
{
	const char *name = policy_names[v->policy.kind];
	if (v->winner_flagged)
		return v->policy_recorded ? xasprintf("marked the winner in the results file by its run's %s policy; ", name)
					  : xasprintf("marked the winner in the results file (which records no policy: the "
						      "default %s one assumed); ", name);
	return v->policy_recorded ? xasprintf("chosen again from the measurements with the %s policy the file records; ", name)
				  : xasprintf("chosen again from the measurements with the default %s policy; ", name);
}

char *view_why(const view *v)
{
	if (v->winner < 0)
		return NULL;
	const choice *c = &v->pick;
	const result *w = &v->res[v->winner];
	const char *retimed = w->final_rounds ? " (finalists re-timed interleaved)" : "";
	const char *name = policy_names[v->policy.kind];
	if (v->winner_flagged && v->winner != c->winner) {
		char *other = c->winner >= 0 ? view_describe(v, (size_t)c->winner) : xstrdup("none");
		char *s = v->policy_recorded
				  ? xasprintf("marked the winner in the results file by its run's %s policy; that policy "
					      "applied again to the file's figures would pick %s", name, other)
				  : xasprintf("marked the winner in the results file by its run's select policy; the default "
					      "%s policy would pick %s", name, other);
		free(other);
		return s;
	}
	char *source = why_source(v), *s;
	if (*v->policy.objective)
		s = why_objective(v, source, retimed);
	else if (v->policy.kind == POLICY_FASTEST)
		s = xasprintf("%sthe fastest%s: under the fastest policy time alone decides", source, retimed);
	else
		s = why_balanced(v, source, retimed);
	free(source);
	return s;
}

char *view_distinct(const view *v, const char *column)
{
	int col = table_col(&v->t, column);
	char *s = NULL;
	for (size_t r = 0; r < v->t.nrows && col >= 0; r++) {
		const char *x = table_get(&v->t, r, col);
		size_t seen = 0;
		for (size_t q = 0; q < r && !seen; q++)
			seen = !strcmp(table_get(&v->t, q, col), x);
		if (!*x || seen)
			continue;
		char *more = s ? xasprintf("%s, %s", s, x) : xstrdup(x);
		free(s);
		s = more;
	}
	return s;
}

/* qsort's comparator sees no context: the times go along with each index instead. */
typedef struct {
	double time;
	size_t row;
} timed_row;

static int by_time(const void *a, const void *b)
{
	const timed_row *x = a, *y = b;
	int xn = isnan(x->time), yn = isnan(y->time);
	if (xn != yn)
		return xn - yn;
	if (!xn && x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

size_t *view_by_time(const view *v)
{
	size_t n = v->t.nrows;
	timed_row *tr = xcalloc(n + 1, sizeof *tr);
	/* the same order with the sign turned: the highest occupancy first */
	for (size_t r = 0; r < n; r++)
		tr[r] = (timed_row){v->dry ? -view_dry_occupancy(v, r) : view_rank(v, r), r};
	qsort(tr, n, sizeof *tr, by_time);
	size_t *order = xcalloc(n + 1, sizeof *order);
	for (size_t r = 0; r < n; r++)
		order[r] = tr[r].row;
	free(tr);
	return order;
}
