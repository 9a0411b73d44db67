/* measure.c: the order in which configurations meet the GPU and how each is sampled. The
 * reference runs first because every other configuration is checked against its outputs;
 * near-ties are settled by re-timing the best few interleaved (A B C A B C ...), so that slow
 * drifts of clock or temperature hit all of them alike. */
#include "measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "occupancy.h"
#include "proc.h"
#include "progress.h"
#include "search.h"
#include "stats.h"
#include "banned.h"

/* a hung kernel is killed after measure.timeout plus this multiple of the slowest finished run */
#define KERNEL_TIMEOUT_FACTOR 20.0
/* finalist rounds, and samples per finalist per round */
#define FINAL_ROUNDS 7
#define FINAL_SAMPLES 5
/* a sample's clock this far below the maximum is throttled (or the GPU fell idle) */
#define THROTTLE_FRACTION 0.85
/* metrics: auto means all up to this many configurations, else the fastest METRICS_AUTO_TOP */
#define METRICS_AUTO_ALL 64
#define METRICS_AUTO_TOP 10

static double kernel_timeout(const config *cfg, double slowest_ms)
{
	return cfg->timeout + cfg->time_cap + KERNEL_TIMEOUT_FACTOR * (cfg->warmup + 2) * slowest_ms / 1000;
}

static void derive(const config *cfg, const value *params, result *r, const measure_opts *o)
{
	if (r->mhz_after > 0 && o->max_mhz > 0)
		r->throttled = r->mhz_after < THROTTLE_FRACTION * o->max_mhz || r->mhz_before < THROTTLE_FRACTION * o->max_mhz;
	double t = result_time(r) * 1e-3;
	value v;
	diags ignore = {0};
	if (t > 0 && cfg->bytes.e && cexpr_eval(cfg, &cfg->bytes, params, &v, &ignore, NULL) == 0) {
		r->gbps = value_as_double(v) / t / 1e9;
		r->pct_of_copy = o->copy_gbps > 0 ? 100 * r->gbps / o->copy_gbps : 0;
	}
	if (t > 0 && cfg->flops.e && cexpr_eval(cfg, &cfg->flops, params, &v, &ignore, NULL) == 0)
		r->gflops = value_as_double(v) / t / 1e9;
	diags_free(&ignore);
}

static int by_time(const void *a, const void *b, void *ctx)
{
	const result *res = ctx;
	double x = result_time(&res[*(const size_t *)a]), y = result_time(&res[*(const size_t *)b]);
	return (x > y) - (x < y);
}

/* Indices of the configurations that passed, fastest first; those that share another's
 * measurement stand aside (they follow it at the end). */
static size_t *ranked(const result *res, size_t n, size_t *count)
{
	size_t *idx = xcalloc(n, sizeof *idx);
	*count = 0;
	for (size_t i = 0; i < n; i++)
		if (res[i].st == ST_OK && res[i].samples > 0 && res[i].shares_with < 0)
			idx[(*count)++] = i;
	/* insertion sort: stable and qsort_r-free; counts are small next to the GPU time */
	for (size_t i = 1; i < *count; i++)
		for (size_t j = i; j > 0 && by_time(&idx[j - 1], &idx[j], (void *)res) > 0; j--) {
			size_t t = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	return idx;
}

/* A journal that cannot be written (disk full) stops being written; the run goes on and the
 * results still reach the CSV. */
static void journal_check(measure_opts *o, int rc)
{
	if (rc && !o->journal_note) {
		o->journal_note = xstrdup("writing the journal failed (disk full?): this run cannot be resumed");
		journal_close(o->journal);
		o->journal = NULL;
	}
}

static int needs_run(const result *r, int retry_failed)
{
	if (r->st == ST_NOT_RUN)
		return 1;
	return retry_failed && (r->st == ST_CRASHED || r->st == ST_TIMEOUT);
}

/* The worker holds one reference's outputs at a time: when another group's (or, on a resumed
 * run, an earlier run's) are needed, that configuration runs again, briefly; its result stands. */
static int refresh_reference(const config *cfg, const space *sp, const build *b, const result *res, size_t ref,
			     runner *rn, diags *d)
{
	result tmp = res[ref];
	tmp.message = NULL;
	sample_plan plan = {0, 1, 1, cfg->time_cap, 1};
	int rc = runner_measure(rn, cfg, space_config(sp, ref), "ref", &b->bins[b->of_config[ref]], &plan, &tmp,
				kernel_timeout(cfg, 0), d);
	if (rc == 0 && tmp.st != ST_OK) {
		diags_add(d, "the verify reference failed when run again to resume: %s%s%s", status_name(tmp.st),
			  tmp.message ? ": " : "", tmp.message ? tmp.message : "");
		rc = 1;
	}
	free(tmp.message);
	return rc;
}

/* Two configurations run the same kernel (same code, see compile.c) with the same launch and
 * the same scalar arguments: measuring both would measure one thing twice. */
static int same_launch(const config *cfg, const space *sp, const build *b, const result *res, size_t a, size_t c)
{
	const binary *x = &b->bins[b->of_config[a]], *y = &b->bins[b->of_config[c]];
	if (x->failed || y->failed || strcmp(x->code, y->code) || strcmp(x->res.symbol, y->res.symbol) ||
	    memcmp(res[a].block, res[c].block, sizeof res[a].block) ||
	    memcmp(res[a].grid, res[c].grid, sizeof res[a].grid) || res[a].smem != res[c].smem)
		return 0;
	for (size_t i = 0; i < cfg->nargs; i++) {
		if (cfg->args[i].is_array)
			continue;
		value va, vc;
		diags ignore = {0};
		int bad = cexpr_eval(cfg, &cfg->args[i].value, space_config(sp, a), &va, &ignore, NULL) ||
			  cexpr_eval(cfg, &cfg->args[i].value, space_config(sp, c), &vc, &ignore, NULL);
		diags_free(&ignore);
		if (bad || value_as_double(va) != value_as_double(vc) || va.kind != vc.kind)
			return 0;
	}
	return 1;
}

/* The measured configuration an identical one can share, or -1. */
static long long twin(const config *cfg, const space *sp, const build *b, const result *res, size_t c)
{
	for (size_t a = 0; a < sp->count; a++)
		if (a != c && res[a].shares_with < 0 && res[a].st != ST_NOT_RUN && !res[a].lost_in_flight &&
		    same_launch(cfg, sp, b, res, a, c))
			return (long long)a;
	return -1;
}

static void copy_measurement(result *to, const result *from, long long from_index)
{
	char *msg = to->message;
	long long block[3], grid[3], smem = to->smem;
	memcpy(block, to->block, sizeof block);
	memcpy(grid, to->grid, sizeof grid);
	double occ = to->occupancy;
	int occ_blocks = to->occ_blocks;
	const char *limit = to->occ_limit;
	*to = *from;
	to->message = from->message ? xstrdup(from->message) : NULL;
	free(msg);
	memcpy(to->block, block, sizeof block);
	memcpy(to->grid, grid, sizeof grid);
	to->smem = smem;
	to->occupancy = occ;
	to->occ_blocks = occ_blocks;
	to->occ_limit = limit;
	to->shares_with = from_index;
}

void measure_apply_binary(const binary *bin, int cc, result *r)
{
	if (bin->failed) {
		if (r->st == ST_NOT_RUN) {
			r->st = ST_COMPILE_ERROR;
			char *first_lines = xstrdup(bin->log ? bin->log : "");
			/* the CSV keeps the start of the log; the whole of it is printed */
			if (strlen(first_lines) > 400)
				first_lines[400] = 0;
			result_set_message(r, first_lines);
		}
		return;
	}
	occupancy_input in = {(int)(r->block[0] * r->block[1] * r->block[2]), bin->res.registers, bin->res.static_smem,
			      (size_t)r->smem, bin->res.barriers};
	occupancy_result occ;
	if (occupancy_compute(cc, &in, &occ) == 0) {
		r->occ_blocks = occ.active_blocks;
		r->occupancy = occ.occupancy;
		r->occ_limit = occ.limit;
	}
}

/* A journaled result stands only for the code it measured: when the binary differs now (a
 * header changed, say), the configuration is measured again. */
static void forget_if_stale(result *r, const binary *bin)
{
	if (r->st == ST_NOT_RUN || r->lost_in_flight || !strcmp(r->code, bin->code))
		return;
	free(r->message);
	long long block[3], grid[3], smem = r->smem;
	memcpy(block, r->block, sizeof block);
	memcpy(grid, r->grid, sizeof grid);
	memset(r, 0, sizeof *r);
	memcpy(r->block, block, sizeof block);
	memcpy(r->grid, grid, sizeof grid);
	r->smem = smem;
	r->driver_blocks = -1;
	r->shares_with = -1;
	r->occ_limit = "";
}

/* verify.kernel: runs the reference kernel on its own geometry as the worker's reference. 0 ok,
 * 1 it failed (reason in d), -1 the worker is gone. */
static int run_reference_kernel(const config *cfg, const space *sp, const build *b, runner *rn, measure_opts *o,
				diags *d)
{
	const binary *bin = &b->bins[b->ref_bin];
	if (o->build && build_wait(o->build, (size_t)b->ref_bin))
		return -1;
	if (bin->failed) {
		diags_at(d, cfg->path, 1, 1, "the reference kernel '%s' did not compile: %s", cfg->ref_entry, bin->log);
		return 1;
	}
	result tmp;
	memset(&tmp, 0, sizeof tmp);
	const cexpr *dims[7] = {&cfg->ref_block[0], &cfg->ref_block[1], &cfg->ref_block[2], &cfg->ref_grid[0],
				&cfg->ref_grid[1], &cfg->ref_grid[2], &cfg->ref_smem};
	long long *out[7] = {&tmp.block[0], &tmp.block[1], &tmp.block[2], &tmp.grid[0], &tmp.grid[1], &tmp.grid[2], &tmp.smem};
	for (int i = 0; i < 7; i++) {
		value v;
		*out[i] = i == 6 ? 0 : 1;
		if (dims[i]->e && cexpr_eval(cfg, dims[i], space_config(sp, 0), &v, d, NULL) == 0 && v.kind == VAL_INT)
			*out[i] = v.u.i;
	}
	sample_plan plan = {0, 1, 1, cfg->time_cap, 1};
	int rc = runner_measure(rn, cfg, space_config(sp, 0), "ref", bin, &plan, &tmp, kernel_timeout(cfg, 0), d);
	if (rc == 0 && tmp.st != ST_OK) {
		diags_add(d, "%s: the reference kernel '%s' failed: %s%s%s", cfg->path, cfg->ref_entry, status_name(tmp.st),
			  tmp.message ? ": " : "", tmp.message ? tmp.message : "");
		rc = 1;
	}
	free(tmp.message);
	return rc;
}

/* Reference groups: with verify.reference_per, configurations that differ in those parameters
 * compute different outputs (the divergence seed's kernel variants) and each group is checked
 * against its own reference. group[c] is the first configuration of c's group in space order. */
static size_t *reference_groups(const config *cfg, const space *sp)
{
	size_t *group = xcalloc(sp->count, sizeof *group);
	for (size_t c = 0; c < sp->count; c++) {
		group[c] = cfg->nref_per ? c : 0;
		for (size_t a = 0; a < c && cfg->nref_per; a++) {
			int same = 1;
			for (size_t k = 0; k < cfg->nref_per && same; k++) {
				size_t p = cfg->ref_per[k];
				same = value_as_double(space_config(sp, a)[p]) == value_as_double(space_config(sp, c)[p]);
			}
			if (same) {
				group[c] = group[a];
				break;
			}
		}
	}
	return group;
}

/* The first pass's state: which reference each group has, which the worker holds. */
typedef struct {
	const config *cfg;
	const space *sp;
	const build *b;
	result *res;
	runner *rn;
	measure_opts *o;
	diags *d;
	progress bar;
	sample_plan plan;
	double slowest;
	size_t *group;
	/* ref[g]: the configuration whose outputs group g is checked against (-1: none passed yet);
	 * loaded: the group whose reference outputs the worker holds */
	long long *ref, loaded, named;
	int ref_kernel;
	size_t done;
	int stopped; /* 1: stop quietly (the reference failed, reported), -1: the worker is gone */
	double deadline; /* a time budget's end (now_seconds), 0: none */
} pass;

/* Visits configuration c: restores or measures it (or shares a twin's measurement). Sets
 * P->stopped when measuring cannot go on. */
static void visit(pass *P, size_t c)
{
	const config *cfg = P->cfg;
	const space *sp = P->sp;
	const build *b = P->b;
	measure_opts *o = P->o;
	diags *d = P->d;
	result *r = &P->res[c];
	const binary *bin = &b->bins[b->of_config[c]];
	size_t g = P->group[c];
	if (o->build && build_wait(o->build, b->of_config[c])) {
		P->stopped = -1;
		return;
	}
	forget_if_stale(r, bin);
	measure_apply_binary(bin, o->cc, r);
	/* an earlier run's passing result can stand as its group's reference */
	if (P->ref[g] < 0 && r->st == ST_OK && !needs_run(r, o->retry_failed))
		P->ref[g] = (long long)c;
	if (!needs_run(r, o->retry_failed) || bin->failed) {
		if ((long long)c == P->named && r->st != ST_OK && r->st != ST_NOT_RUN && !needs_run(r, o->retry_failed)) {
			diags_add(d, "the verify reference failed in an earlier run (%s); use --retry-failed or --fresh",
				  status_name(r->st));
			P->stopped = 1;
			return;
		}
		if (r->st == ST_OK && r->samples > 0) {
			/* a resumed run's earlier results count towards the best so far */
			char *desc = space_describe(cfg, space_config(sp, c));
			progress_best(&P->bar, result_time(r), desc);
			free(desc);
		}
		progress_update(&P->bar, ++P->done, NULL);
		return;
	}
	long long same = twin(cfg, sp, b, P->res, c);
	if (same >= 0 && (long long)c != P->named) {
		copy_measurement(r, &P->res[same], same);
		o->shared++;
		if (o->journal)
			journal_check(o, journal_shared(o->journal, c, (size_t)same));
		progress_update(&P->bar, ++P->done, NULL);
		return;
	}
	const char *role = "ref";
	if (P->ref_kernel && P->loaded < 0) {
		int fr = run_reference_kernel(cfg, sp, b, P->rn, o, d);
		if (fr) {
			P->stopped = fr < 0 ? -1 : 1;
			return;
		}
		P->loaded = (long long)g;
		P->ref[g] = (long long)sp->count; /* a marker: not a configuration */
	}
	if (P->ref_kernel)
		role = "check";
	else if (P->ref[g] >= 0) {
		role = "check";
		if (P->loaded != (long long)g) {
			int fr = refresh_reference(cfg, sp, b, P->res, (size_t)P->ref[g], P->rn, d);
			if (fr) {
				P->stopped = fr < 0 ? -1 : 1;
				return;
			}
			P->loaded = (long long)g;
		}
	}
	if (o->journal)
		journal_check(o, journal_started(o->journal, c));
	if (runner_measure(P->rn, cfg, space_config(sp, c), role, bin, &P->plan, r, kernel_timeout(cfg, P->slowest), d)) {
		P->stopped = -1;
		return;
	}
	o->measured++;
	memcpy(r->code, bin->code, sizeof r->code);
	if (o->journal)
		journal_check(o, journal_finished(o->journal, c, r));
	if (r->st == ST_OK) {
		if (P->ref[g] < 0) {
			P->ref[g] = (long long)c;
			P->loaded = (long long)g;
		}
		if (r->t_max * r->batch > P->slowest)
			P->slowest = r->t_max * r->batch;
	} else if (!strcmp(role, "ref") && (long long)c == P->named) {
		char *desc = space_describe(cfg, space_config(sp, c));
		diags_at(d, cfg->path, cfg->reference_at.line, cfg->reference_at.col,
			 "the verify reference (%s) failed: %s%s%s", desc, status_name(r->st),
			 r->message ? ": " : "", r->message ? r->message : "");
		free(desc);
		P->stopped = 1;
		return;
	}
	/* without a named reference, a candidate that fails hands the role to the next one */
	char *desc = space_describe(cfg, space_config(sp, c));
	if (r->st == ST_OK)
		progress_best(&P->bar, result_time(r), desc);
	progress_update(&P->bar, ++P->done, desc);
	free(desc);
}

/* The search's view of a measurement: the time, or INFINITY for anything that did not pass. */
static double visit_for_search(void *ctx, size_t c)
{
	pass *P = ctx;
	if (P->stopped || *P->o->interrupted || (P->deadline > 0 && now_seconds() > P->deadline))
		return INFINITY; /* the rest of the search costs nothing: nothing more is measured */
	visit(P, c);
	const result *r = &P->res[c];
	return r->st == ST_OK && r->samples > 0 ? result_time(r) : INFINITY;
}

static int first_pass(const config *cfg, const space *sp, const build *b, result *res, runner *rn, measure_opts *o,
		      diags *d)
{
	pass P = {cfg, sp, b, res, rn, o, d, {0}, {cfg->warmup, cfg->min_samples, cfg->max_samples, cfg->time_cap,
						      cfg->noise_target}, 0, NULL, NULL, -1, -1, b->ref_bin >= 0, 0, 0, 0};
	size_t budget = o->budget && o->budget < sp->count ? o->budget : sp->count;
	/* every configuration counts: which ones need measuring shows only as binaries arrive */
	progress_begin(&P.bar, o->progress, "measure", budget);
	for (size_t c = 0; c < sp->count; c++)
		if (res[c].st == ST_OK && res[c].t_max * res[c].batch > P.slowest)
			P.slowest = res[c].t_max * res[c].batch;
	P.group = reference_groups(cfg, sp);
	P.ref = xcalloc(sp->count, sizeof *P.ref);
	for (size_t c = 0; c < sp->count; c++)
		P.ref[c] = -1;
	P.named = cfg->has_reference ? sp->reference : -1;
	/* a named reference goes first */
	if (P.named >= 0)
		visit(&P, (size_t)P.named);
	if (o->seconds > 0)
		P.deadline = now_seconds() + o->seconds;
	if (o->strategy == STRAT_EXHAUSTIVE && budget == sp->count && !o->seconds)
		for (size_t c = 0; c < sp->count && !*o->interrupted && !P.stopped; c++) {
			if ((long long)c != P.named)
				visit(&P, c);
		}
	else if (!P.stopped) {
		/* a search: the strategy proposes, each proposal is measured as it comes */
		size_t *order = xcalloc(budget + 1, sizeof *order);
		search_run(o->strategy, cfg, sp, o->prior, budget, o->seed, visit_for_search, &P, order);
		free(order);
	}
	progress_end(&P.bar);
	free(P.group);
	free(P.ref);
	return P.stopped < 0 ? -1 : 0;
}

/* Re-times the fastest few in rounds, A B C A B C ..., each round a short run of samples. */
static int finalists(const config *cfg, const space *sp, const build *b, result *res, runner *rn, measure_opts *o,
		     diags *d)
{
	size_t n, *idx = ranked(res, sp->count, &n);
	size_t k = (size_t)cfg->finalists < n ? (size_t)cfg->finalists : n;
	/* resumed with nothing new measured: the journaled finalists stand */
	int all_final = 1;
	for (size_t f = 0; f < k; f++)
		all_final &= res[idx[f]].final_rounds > 0;
	if (k < 2 || (all_final && o->measured == 0)) {
		free(idx);
		return 0;
	}
	/* earlier finals were taken against other times: rank on first-pass times again */
	for (size_t i = 0; i < sp->count; i++)
		res[i].final_rounds = 0;
	free(idx);
	idx = ranked(res, sp->count, &n);
	double *rounds = xcalloc(k * FINAL_ROUNDS, sizeof *rounds), scratch[FINAL_ROUNDS];
	sample_plan plan = {1, FINAL_SAMPLES, FINAL_SAMPLES, cfg->time_cap, cfg->noise_target};
	progress bar;
	progress_begin(&bar, o->progress, "final", k * FINAL_ROUNDS);
	int rc = 0;
	size_t got = 0;
	for (size_t round = 0; round < FINAL_ROUNDS && !rc && !*o->interrupted; round++) {
		for (size_t f = 0; f < k && !rc; f++) {
			result tmp = res[idx[f]];
			tmp.message = NULL;
			if (runner_measure(rn, cfg, space_config(sp, idx[f]), "time", &b->bins[b->of_config[idx[f]]], &plan,
					   &tmp, kernel_timeout(cfg, res[idx[f]].t_max * res[idx[f]].batch), d))
				rc = -1;
			free(tmp.message);
			/* a finalist that fails now (it passed before) keeps its first-pass time */
			rounds[f * FINAL_ROUNDS + round] = tmp.st == ST_OK ? tmp.t_median : NAN;
			progress_update(&bar, f + 1 + round * k, NULL);
		}
		got = round + 1;
	}
	progress_end(&bar);
	for (size_t f = 0; f < k && got >= 3; f++) {
		double v[FINAL_ROUNDS];
		size_t m = 0;
		for (size_t round = 0; round < got; round++)
			if (!isnan(rounds[f * FINAL_ROUNDS + round]))
				v[m++] = rounds[f * FINAL_ROUNDS + round];
		if (m < 3)
			continue;
		result *r = &res[idx[f]];
		r->final_rounds = (int)m;
		r->final_noise = stats_noise(v, m, scratch);
		r->final_median = stats_median(v, m);
		if (o->journal)
			journal_check(o, journal_final(o->journal, idx[f], r));
	}
	free(rounds);
	free(idx);
	return rc;
}

static int counters(const config *cfg, const space *sp, const build *b, result *res, runner *rn, measure_opts *o,
		    diags *d)
{
	int mode = cfg->metrics;
	size_t top = (size_t)cfg->metrics_top;
	if (mode == METRICS_AUTO) {
		mode = sp->count <= METRICS_AUTO_ALL ? METRICS_ALL : METRICS_TOP;
		top = METRICS_AUTO_TOP;
	}
	if (mode == METRICS_NONE)
		return 0;
	size_t n, *idx = ranked(res, sp->count, &n);
	if (mode == METRICS_TOP && top < n)
		n = top;
	progress bar;
	progress_begin(&bar, o->progress, "counters", n);
	int rc = 0;
	for (size_t i = 0; i < n && !*o->interrupted; i++) {
		result *r = &res[idx[i]];
		char *why = NULL;
		if (r->have_metrics)
			continue; /* from the journal */
		if (runner_profile(rn, cfg, space_config(sp, idx[i]), &b->bins[b->of_config[idx[i]]], r,
				   kernel_timeout(cfg, r->t_max * r->batch) + 60, &why, d)) {
			rc = -1;
			break;
		}
		if (why) {
			/* one reason is enough: profiling is unavailable or broken for all of them */
			o->counters_note = why;
			break;
		}
		if (o->journal)
			journal_check(o, journal_metrics(o->journal, idx[i], r));
		progress_update(&bar, i + 1, NULL);
	}
	progress_end(&bar);
	free(idx);
	return rc;
}

int measure_space(const config *cfg, const space *sp, const build *b, result *res, runner *rn, measure_opts *o,
		  diags *d)
{
	size_t before = d->n;
	if (first_pass(cfg, sp, b, res, rn, o, d))
		return -1;
	if (d->n > before || *o->interrupted)
		return 0; /* the reference failed: nothing to compare with */
	if (finalists(cfg, sp, b, res, rn, o, d) || counters(cfg, sp, b, res, rn, o, d))
		return -1;
	/* the sharers follow their measured twin's final numbers */
	for (size_t c = 0; c < sp->count; c++)
		if (res[c].shares_with >= 0)
			copy_measurement(&res[c], &res[res[c].shares_with], res[c].shares_with);
	for (size_t c = 0; c < sp->count; c++)
		if (res[c].st == ST_OK)
			derive(cfg, space_config(sp, c), &res[c], o);
	return 0;
}
