/* replay.c: a recorded run (a results CSV, or a T4 or Kernel Tuner cache file, t4.h) as the
 * oracle of a search. Rows are matched to the space's configurations by their parameter values; a
 * configuration the recording lacks, or one that did not pass, counts as a failed measurement. */
#include "replay.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ahead.h"
#include "binary.h"
#include "config.h"
#include "occupancy.h"
#include "output.h"
#include "schedule.h"
#include "search_prior.h"
#include "space.h"
#include "t4.h"
#include "table.h"
#include "banned.h"

/* The recorded times, and compile.c's on-demand pool on a simulated clock: every binary takes
 * its recorded compile seconds where the recording has them (compile_s), else one unit (one
 * compile's latency), on one of `jobs` slots, started in ahead.h's order (as the live
 * pool starts them); the search's lane and this pool meet in schedule.c, as a live search's
 * worker and compile pool do (committed configurations measured as their binaries arrive). The clock at the end is how many compile
 * latencies the search's wall time comes to. */
typedef struct {
	const double *time;
	const size_t *of_config;
	const double *seconds;   /* per binary: its recorded compile time (NULL: one unit each) */
	size_t jobs;
	double now;
	double *finish;          /* per binary: when built; < 0 not started */
	size_t *running, nrun;   /* started, not yet finished */
	ahead *plan;
	size_t built;
} oracle;

/* A measurement's cost on the simulated clock, in compile latencies (about 5 ms against 0.7 s
 * for a GEMM variant on the H100 box). */
#define SIM_MEASURE 0.01

static int sim_built(const oracle *o, size_t k) { return o->finish[k] >= 0 && o->finish[k] <= o->now; }

/* Retires what has finished by now, then fills the free slots in ahead.h's order, an urgent
 * binary taking the slot of the latest started guess. */
static void sim_fill(oracle *o)
{
	for (size_t i = 0; i < o->nrun;)
		if (sim_built(o, o->running[i])) {
			ahead_done(o->plan, o->running[i], o->seconds ? o->seconds[o->running[i]] : 1);
			o->running[i] = o->running[--o->nrun];
		} else
			i++;
	int urgent;
	long long k, v;
	while ((k = ahead_next(o->plan, &urgent)) >= 0) {
		if (o->nrun >= o->jobs) {
			if (!urgent || (v = ahead_victim(o->plan)) < 0)
				break;
			for (size_t i = 0; i < o->nrun; i++)
				if (o->running[i] == (size_t)v)
					o->running[i] = o->running[--o->nrun];
			o->finish[v] = -1;
			ahead_stopped(o->plan, (size_t)v);
		}
		o->finish[k] = o->now + (o->seconds ? o->seconds[k] : 1);
		o->running[o->nrun++] = (size_t)k;
		ahead_started(o->plan, (size_t)k);
		o->built++;
	}
}

/* The clock moves to the next compile's end. */
static void sim_advance(oracle *o)
{
	double next = INFINITY;
	for (size_t i = 0; i < o->nrun; i++)
		next = fmin(next, o->finish[o->running[i]]);
	o->now = next;
	sim_fill(o);
}

/* The recording as the search's lane: a measurement costs SIM_MEASURE on the clock. */
static void sim_measure(void *ctx, size_t c, int ahead)
{
	(void)c, (void)ahead;
	((oracle *)ctx)->now += SIM_MEASURE;
}

static double sim_time(void *ctx, size_t c) { return ((oracle *)ctx)->time[c]; }

/* The simulated pool: waiting for a binary moves it to the front of ahead.h's order. */
static void sim_want(void *ctx, size_t k)
{
	oracle *o = ctx;
	ahead_want(o->plan, k);
	sim_fill(o);
}

static int sim_done(void *ctx, size_t k) { return sim_built(ctx, k); }

/* A step of waiting: the clock moves to the next compile's end. */
static int sim_wait(void *ctx, size_t k)
{
	(void)k;
	sim_advance(ctx);
	return 0;
}

static void sim_collect(void *ctx) { sim_fill(ctx); }

static void sim_hint(void *ctx, const size_t *bins, size_t n)
{
	oracle *o = ctx;
	ahead_hint(o->plan, bins, n);
	sim_fill(o);
}

static void sim_commit(void *ctx, const size_t *bins, size_t n)
{
	oracle *o = ctx;
	ahead_commit(o->plan, bins, n);
	sim_fill(o);
}

/* A recorded row into time[]: the configuration whose parameters are row[] gets its time t when
 * it passed, else INFINITY; returns it, or -1 when it is not in sp. Rows are in space order when the recording is this config's, so the
 * search for a row starts after the last row's configuration (*next). */
static long long place(const config *cfg, const space *sp, const double *row, int ok, double t, size_t *next,
		       double *time)
{
	for (size_t k = 0; k < sp->count; k++) {
		size_t c = (*next + k) % sp->count;
		const value *v = space_config(sp, c);
		int same = 1;
		for (size_t p = 0; p < cfg->nparams && same; p++)
			same = row[p] == param_value_key(&cfg->params[p], NULL, v[p]);
		if (!same)
			continue;
		*next = c + 1;
		time[c] = ok && t > 0 ? t : INFINITY;
		return (long long)c;
	}
	return -1;
}

/* The time the recording decided on: the interleaved finalist median where there is one. */
static double decided(const char *final, const char *median)
{
	return *final ? strtod(final, NULL) : strtod(median, NULL);
}

/* Each configuration's recorded time into time[] (left INFINITY where it failed or is absent) and
 * its compile seconds into csec[] (left NAN where the recording has none),
 * from a results CSV, or a T4 or cache file (t4.h reads it as the CSV's columns); both are read
 * by the bounded readers of table.c and t4.c, so a file that never ends is refused, not waited
 * for. */
static int read_recording(const config *cfg, const space *sp, const char *path, double *time, double *csec, diags *d)
{
	diags quiet = {0};
	int json = results_is_json(path, &quiet);
	if (json < 0) {
		diags_add(d, "cannot read the recorded run '%s': %s", path, quiet.n ? quiet.msgs[0] : "unreadable");
		diags_free(&quiet);
		return -1;
	}
	diags_free(&quiet);
	table t;
	diags why = {0};
	if (json > 0 ? t4_load(path, cfg, sp, &t, &why) : table_read(path, 0, &t, &why)) {
		diags_add(d, "cannot read the recorded run '%s': %s", path, why.n ? why.msgs[0] : "unreadable");
		diags_free(&why);
		return -1;
	}
	int *col = xcalloc(cfg->nparams + 1, sizeof *col), rc = 0;
	for (size_t p = 0; p < cfg->nparams && rc == 0; p++) {
		/* the parameters lead an autotune CSV; another tool's recording may have them anywhere */
		col[p] = -1;
		for (size_t i = 0; i < (t.nparams ? t.nparams : t.ncols) && col[p] < 0; i++)
			if (!strcmp(t.names[i], cfg->params[p].name))
				col[p] = (int)i;
		if (col[p] < 0) {
			diags_add(d, "%s: no column for parameter '%s': not a run of this config", path, cfg->params[p].name);
			rc = -1;
		}
	}
	int st = table_fixed_col(&t, "status"), med = table_fixed_col(&t, "time_ms_median"),
	    fin = table_fixed_col(&t, "final_ms_median"), cs = table_fixed_col(&t, "compile_s");
	if (rc == 0 && (st < 0 || med < 0)) {
		diags_add(d, "%s: no status or time_ms_median column", path);
		rc = -1;
	}
	double *row = xcalloc(cfg->nparams + 1, sizeof *row);
	size_t next = 0;
	for (size_t r = 0; rc == 0 && sp->count && r < t.nrows; r++) {
		for (size_t p = 0; p < cfg->nparams; p++)
			row[p] = param_value_key(&cfg->params[p], table_get(&t, r, col[p]), value_int(0));
		long long c = place(cfg, sp, row, !strcmp(table_get(&t, r, st), "ok"),
				    decided(table_get(&t, r, fin), table_get(&t, r, med)), &next, time);
		const char *s = cs >= 0 ? table_get(&t, r, cs) : "";
		if (c >= 0 && *s)
			csec[c] = strtod(s, NULL);
	}
	free(row);
	free(col);
	table_free(&t);
	return rc;
}

/* The search's sequence, one row per evaluation with the time it found (empty: failed). */
static int write_sequence(const config *cfg, const space *sp, const char *out_path, const size_t *order, size_t n,
			  const double *time, diags *d)
{
	char *tmp;
	FILE *out = output_open(out_path, &tmp, d);
	if (!out)
		return -1;
	fputs("step,", out);
	for (size_t p = 0; p < cfg->nparams; p++)
		fprintf(out, "%s,", cfg->params[p].name);
	fputs("time_ms\r\n", out);
	for (size_t k = 0; k < n; k++) {
		size_t c = order[k];
		fprintf(out, "%zu,", k + 1);
		for (size_t p = 0; p < cfg->nparams; p++) {
			char v[64];
			value_format(space_config(sp, c)[p], v, sizeof v);
			fprintf(out, "%s,", v);
		}
		if (isinf(time[c]))
			fputs("\r\n", out);
		else
			fprintf(out, "%.6g\r\n", time[c]);
	}
	return output_commit(out, tmp, out_path, d);
}

/* Per binary of b, its recorded compile seconds (the first of its configurations' that has one),
 * or NULL when the recording has none for some binary: a simulation in seconds needs them all. */
static double *binary_seconds(const build *b, const double *csec, size_t nconfigs)
{
	double *s = xcalloc(b->nbins + 1, sizeof *s);
	for (size_t k = 0; k < b->nbins; k++)
		s[k] = NAN;
	for (size_t c = 0; c < nconfigs; c++)
		if (isnan(s[b->of_config[c]]) && !isnan(csec[c]) && csec[c] > 0)
			s[b->of_config[c]] = csec[c];
	for (size_t k = 0; k < b->nbins; k++)
		if (isnan(s[k])) {
			free(s);
			return NULL;
		}
	return s;
}

double *replay_prior(const config *cfg, const space *sp, const char *path, const double *model, diags *d)
{
	double *other = xcalloc(sp->count + 1, sizeof *other), *csec = xcalloc(sp->count + 1, sizeof *csec);
	for (size_t c = 0; c < sp->count; c++)
		other[c] = csec[c] = NAN; /* NAN: not in the recording (another size's space) */
	size_t timed = 0;
	double *prior = NULL;
	if (read_recording(cfg, sp, path, other, csec, d) == 0) {
		for (size_t c = 0; c < sp->count; c++)
			timed += !isnan(other[c]) && !isinf(other[c]);
		if (timed)
			prior = search_prior_transfer(other, model, sp->count);
		else
			diags_add(d, "%s: times none of the %zu configurations of this space: no prior", path, sp->count);
	}
	free(other);
	free(csec);
	return prior;
}

/* The model strategy's prior: as a live run ranks, before compiling, by each launch alone (for
 * the config's target, else sm_90, the GPUs the recordings come from), or the caller's in its
 * place, or a transfer's. NULL with the reason in d. */
static double *ranking(const config *cfg, const space *sp, const replay_opts *opt, diags *d)
{
	result *geometry = xcalloc(sp->count + 1, sizeof *geometry);
	int cc = cfg->arch ? arch_parse(cfg->arch) : 90;
	double *prior = space_eval_geometry(cfg, sp, geometry, d) == 0 ? search_model_prior(cfg, sp, geometry, cc > 0 ? cc : 90)
									  : NULL;
	free(geometry);
	if (prior && opt->model)
		memcpy(prior, opt->model, sp->count * sizeof *prior);
	if (prior && opt->prior) {
		double *transfer = replay_prior(cfg, sp, opt->prior, prior, d);
		free(prior);
		prior = transfer;
	}
	return prior;
}

int replay_run(const config *cfg, const space *sp, const replay_opts *opt, replay_result *r, diags *d)
{
	const char *csv_path = opt->recording, *out_path = opt->out;
	strategy s = opt->strategy;
	size_t budget = opt->budget;
	unsigned long long seed = opt->seed;
	int jobs = opt->jobs;
	double *time = xcalloc(sp->count + 1, sizeof *time);
	double *csec = xcalloc(sp->count + 1, sizeof *csec);
	for (size_t c = 0; c < sp->count; c++) {
		time[c] = INFINITY;
		csec[c] = NAN;
	}
	int rc = read_recording(cfg, sp, csv_path, time, csec, d);
	double *prior = rc == 0 ? ranking(cfg, sp, opt, d) : NULL;
	if (rc == 0 && prior) {
		size_t *order = xcalloc(budget + 1, sizeof *order);
		build b;
		build_plan(cfg, sp, &b);
		oracle o = {.time = time, .of_config = b.of_config, .jobs = jobs > 0 ? (size_t)jobs : 1};
		double *seconds = binary_seconds(&b, csec, sp->count);
		o.seconds = seconds;
		r->seconds = seconds != NULL;
		o.finish = xcalloc(b.nbins + 1, sizeof *o.finish);
		for (size_t k = 0; k < b.nbins; k++)
			o.finish[k] = -1;
		o.running = xcalloc(o.jobs + 1, sizeof *o.running);
		int speculate = ahead_enabled();
		r->prior_set_aside = 0;
		o.plan = ahead_new(cfg, sp, &b, o.jobs, speculate);
		/* the same schedule as a live search's, with the recording as its lane */
		schedule S = {.of_config = b.of_config, .nbins = b.nbins, .lane = {sim_measure, sim_time, NULL}, .lane_ctx = &o,
			      .pool = {sim_want, sim_done, sim_wait, sim_collect, sim_hint, sim_commit}, .pool_ctx = &o,
			      .early = speculate ? xcalloc(sp->count + 1, 1) : NULL};
		r->evaluations = search_run(cfg, sp, &(search_opts){.strategy = s, .prior = prior, .budget = budget, .seed = seed,
			.eval = schedule_eval, .hint = schedule_hint, .commit = speculate ? schedule_commit : NULL,
			.poll = schedule_poll, .peek = schedule_peek, .ctx = &S, .set_aside = &r->prior_set_aside}, order);
		r->compile_latencies = o.now;
		r->built = o.built;
		free(o.finish);
		free(o.running);
		free(S.early);
		schedule_free(&S);
		ahead_free(o.plan);
		free(seconds);
		build_free(&b);
		r->best_found = r->optimum = INFINITY;
		r->best_config = -1;
		for (size_t c = 0; c < sp->count; c++)
			r->optimum = fmin(r->optimum, time[c]);
		for (size_t k = 0; k < r->evaluations; k++)
			if (time[order[k]] < r->best_found) {
				r->best_found = time[order[k]];
				r->best_config = (long long)order[k];
			}
		if (opt->sequence)
			memcpy(opt->sequence, order, r->evaluations * sizeof *order);
		if (opt->times)
			memcpy(opt->times, time, sp->count * sizeof *time);
		if (out_path)
			rc = write_sequence(cfg, sp, out_path, order, r->evaluations, time, d);
		free(order);
	} else
		rc = -1;
	free(time);
	free(csec);
	free(prior);
	return rc;
}
