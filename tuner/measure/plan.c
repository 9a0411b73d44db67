/* plan.c: the measuring stage's decisions, apart from its threads and workers: how long a
 * kernel may run, what a measurement derives, the ranking and the finalists, which configurations
 * share one measurement, when an earlier result is stale, and the reference groups. Pure
 * functions of their arguments (tests/test_plan.c). */
#include "plan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compile_error.h"
#include "config.h"
#include "hash.h"
#include "launch_plan.h"
#include "objective.h"
#include "occupancy.h"
#include "select.h"
#include "banned.h"

/* a hung kernel is killed after measure.timeout plus this multiple of the slowest finished run */
#define KERNEL_TIMEOUT_FACTOR 20.0
/* a sample's clock this far below the maximum is throttled (or the GPU fell idle) */
#define THROTTLE_FRACTION 0.85

double plan_timeout(const config *cfg, double slowest_ms)
{
	return cfg->timeout + cfg->time_cap + (cfg->measure_energy ? ENERGY_WINDOW_MAX_S : 0) +
	       KERNEL_TIMEOUT_FACTOR * (cfg->warmup + 2) * slowest_ms / 1000;
}

void plan_derive(const config *cfg, const value *params, result *r, int max_mhz, double copy_gbps)
{
	if (r->mhz_after > 0 && max_mhz > 0)
		r->throttled = r->mhz_after < THROTTLE_FRACTION * max_mhz || r->mhz_before < THROTTLE_FRACTION * max_mhz;
	double t = result_time(r) * 1e-3;
	value v;
	diags ignore = {0};
	if (t > 0 && cfg->bytes.e && cexpr_eval(cfg, &cfg->bytes, params, &v, &ignore, NULL) == 0) {
		r->gbps = value_as_double(v) / t / 1e9;
		r->pct_of_copy = copy_gbps > 0 ? 100 * r->gbps / copy_gbps : 0;
	}
	if (t > 0 && cfg->flops.e && cexpr_eval(cfg, &cfg->flops, params, &v, &ignore, NULL) == 0)
		r->gflops = value_as_double(v) / t / 1e9;
	diags_free(&ignore);
	objective_apply(cfg, params, r); /* it may use the rates */
}

static int by_time(const void *a, const void *b, void *ctx)
{
	const result *res = ctx;
	double x = result_rank(&res[*(const size_t *)a]), y = result_rank(&res[*(const size_t *)b]);
	return (x > y) - (x < y);
}

/* Indices of the configurations that passed, fastest first; those that share another's
 * measurement stand aside (they follow it at the end). */
size_t *plan_ranked(const result *res, size_t n, size_t *count)
{
	size_t *idx = xcalloc(n, sizeof *idx);
	*count = 0;
	for (size_t i = 0; i < n; i++)
		if (result_passed(&res[i]) && res[i].shares_with < 0)
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

/* The finalists: of the configurations within PLAN_FINAL_WITHIN of the fastest, the `want`
 * fastest, then every build of one of their launch shapes (a register cap apart). Re-timing moves
 * a first-pass median by about 1% at most, so one further behind cannot change places with the
 * fastest and is not worth the rounds. With several GPUs the first-pass times come from GPUs that
 * differ by tenths of a percent, so a build timed on the slower one can miss the cut that its
 * twin, timed on the faster, makes; the selection counts such builds tied, and only finalists are
 * compared with finalists. Returns the ranking with them first, and their number in *k. */
size_t *plan_finalists(const result *res, size_t n, int want, size_t *k)
{
	size_t count, *idx = plan_ranked(res, n, &count);
	size_t near = 0;
	while (near < count && result_rank(&res[idx[near]]) <= result_rank(&res[idx[0]]) * (1 + PLAN_FINAL_WITHIN))
		near++;
	*k = want < 0 ? 0 : (size_t)want < near ? (size_t)want : near;
	size_t top = *k;
	for (size_t j = *k; j < near; j++) {
		int twin = 0;
		for (size_t f = 0; f < top && !twin; f++)
			twin = same_shape(&res[idx[j]], &res[idx[f]]);
		if (twin) {
			size_t t = idx[j];
			memmove(idx + *k + 1, idx + *k, (j - *k) * sizeof *idx);
			idx[(*k)++] = t;
		}
	}
	return idx;
}

int plan_needs_run(const result *r, int retry)
{
	if (r->st == ST_NOT_RUN || ((retry & PLAN_RETRY_NO_ENERGY) && result_passed(r) && !r->have_energy))
		return 1;
	return (retry & PLAN_RETRY_FAILED) && (r->st == ST_CRASHED || r->st == ST_TIMEOUT);
}

/* Two configurations run the same kernel (same code, see compile.c) with the same launch and
 * the same scalar arguments: measuring both would measure one thing twice. */
int plan_same_launch(const config *cfg, const space *sp, const build *b, const result *res, size_t a, size_t c)
{
	const binary *x = &b->bins[b->of_config[a]], *y = &b->bins[b->of_config[c]];
	if (x->failed || y->failed || strcmp(x->code, y->code) || strcmp(x->res.symbol, y->res.symbol) ||
	    memcmp(res[a].block, res[c].block, sizeof res[a].block) ||
	    memcmp(res[a].grid, res[c].grid, sizeof res[a].grid) || res[a].smem != res[c].smem ||
	    !launch_plan_same(cfg, space_config(sp, a), space_config(sp, c), &res[a], &res[c]))
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
long long plan_twin(const config *cfg, const space *sp, const build *b, const result *res, size_t c)
{
	for (size_t a = 0; a < sp->count; a++)
		if (a != c && res[a].shares_with < 0 && res[a].st != ST_NOT_RUN && !res[a].lost_in_flight &&
		    plan_same_launch(cfg, sp, b, res, a, c))
			return (long long)a;
	return -1;
}

void plan_copy_measurement(result *to, const result *from, long long from_index)
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

/* A journaled result stands only for the code it measured: when the binary differs now (a
 * header changed, say), the configuration is measured again. */
void plan_forget_stale(result *r, const binary *bin) { plan_forget_unlike(r, bin, NULL); }

/* The identity covers what the code does not: the inputs it was checked against, say. */
void plan_forget_unlike(result *r, const binary *bin, const char *ident)
{
	if (r->st == ST_NOT_RUN || r->lost_in_flight ||
	    (!strcmp(r->code, bin->code) && !(ident && r->ident[0] && strcmp(r->ident, ident))))
		return;
	free(r->message);
	long long block[3], grid[3], smem = r->smem;
	memcpy(block, r->block, sizeof block);
	memcpy(grid, r->grid, sizeof grid);
	int streams = r->streams, breadth_first = r->breadth_first, connections = r->connections;
	memset(r, 0, sizeof *r);
	memcpy(r->block, block, sizeof block);
	memcpy(r->grid, grid, sizeof grid);
	r->smem = smem;
	r->streams = streams;
	r->breadth_first = breadth_first;
	r->connections = connections;
	r->driver_blocks = -1;
	r->shares_with = -1;
	r->occ_limit = "";
}

static void add_ll(hasher *h, long long v) { hasher_add(h, &v, sizeof v); }

/* An expression's value for c's parameters, kind and all ("none" when it has none or fails). */
static void add_expr(hasher *h, const config *cfg, const cexpr *e, const value *params)
{
	value v;
	diags ignore = {0};
	if (!e->e || cexpr_eval(cfg, e, params, &v, &ignore, NULL)) {
		hasher_add_str(h, "none");
	} else {
		add_ll(h, v.kind);
		if (v.kind == VAL_INT)
			add_ll(h, v.u.i);
		else
			hasher_add(h, &v.u.f, sizeof v.u.f);
	}
	diags_free(&ignore);
}

void plan_identity(const config *cfg, const space *sp, const build *b, const result *res, size_t c, const char *setting,
		   char out[17])
{
	const binary *bin = &b->bins[b->of_config[c]];
	const result *r = &res[c];
	const value *params = space_config(sp, c);
	hasher *h = hasher_new();
	hasher_add_str(h, "autotune identity 1");
	hasher_add_str(h, setting ? setting : "");
	hasher_add_str(h, bin->code);
	hasher_add_str(h, bin->res.symbol);
	for (int i = 0; i < 3; i++) {
		add_ll(h, r->block[i]);
		add_ll(h, r->grid[i]);
	}
	add_ll(h, r->smem);
	add_ll(h, r->streams);
	add_ll(h, r->breadth_first);
	add_ll(h, r->connections);
	for (size_t k = 0; k < cfg->plan.nlaunches; k++) {
		plan_geometry g;
		memset(&g, 0, sizeof g);
		if (launch_plan_geometry(cfg, params, k, &g) == 0)
			for (int i = 0; i < 3; i++) {
				add_ll(h, g.block[i]);
				add_ll(h, g.grid[i]);
			}
		add_ll(h, g.smem);
	}
	for (size_t i = 0; i < cfg->nargs; i++)
		if (!cfg->args[i].is_array)
			add_expr(h, cfg, &cfg->args[i].value, params);
	/* verify.sum may count a part of the output that depends on the parameters */
	add_expr(h, cfg, &cfg->sum_count, params);
	add_expr(h, cfg, &cfg->sum_equals, params);
	/* a verdict is a comparison with the reference's outputs: another reference code, another
	 * verdict. Without a named one the reference is the first to pass, which every other that
	 * passed agrees with; reference groups' are chosen so too, the named one stands for them. */
	if (cfg->has_reference && sp->reference >= 0) {
		const binary *ref = &b->bins[b->of_config[sp->reference]];
		hasher_add_str(h, ref->failed ? "failed" : ref->code);
	}
	if (b->ref_bin >= 0)
		hasher_add_str(h, b->bins[b->ref_bin].code);
	hasher_finish(h, out);
}

/* Reference groups: with verify.reference_per, configurations that differ in those parameters
 * compute different outputs (the divergence seed's kernel variants) and each group is checked
 * against its own reference. group[c] is the first configuration of c's group in space order. */
/* A hash of c's values of the reference_per parameters, equal where value_equal holds: numbers by
 * their double (2 and 2.0 alike), strings by their text. */
static uint64_t ref_per_hash(const config *cfg, const space *sp, size_t c)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t k = 0; k < cfg->nref_per; k++) {
		value v = space_config(sp, c)[cfg->ref_per[k]];
		uint64_t x = 0;
		if (v.kind == VAL_STR)
			for (const char *p = v.u.s; *p; p++)
				x = (x ^ (unsigned char)*p) * 1099511628211ull;
		else {
			double d = value_as_double(v);
			d = d == 0 ? 0 : d; /* -0.0 equals 0.0 */
			memcpy(&x, &d, sizeof x);
			x ^= 0x9e3779b97f4a7c15ull;
		}
		h = (h ^ x) * 1099511628211ull;
		h ^= h >> 29;
	}
	return h;
}

static int same_ref_per(const config *cfg, const space *sp, size_t a, size_t c)
{
	for (size_t k = 0; k < cfg->nref_per; k++)
		if (!value_equal(space_config(sp, a)[cfg->ref_per[k]], space_config(sp, c)[cfg->ref_per[k]]))
			return 0;
	return 1;
}

size_t *plan_reference_groups(const config *cfg, const space *sp)
{
	size_t *group = xcalloc(sp->count ? sp->count : 1, sizeof *group);
	if (!cfg->nref_per)
		return group;
	/* each group's first configuration, found by hash: linear in the space (published specs
	 * have hundreds of thousands of configurations) */
	size_t cap = 16;
	while (cap < 2 * sp->count)
		cap *= 2;
	size_t *lead = xmalloc(cap * sizeof *lead);
	uint64_t *key = xmalloc(cap * sizeof *key);
	for (size_t i = 0; i < cap; i++)
		lead[i] = SIZE_MAX;
	for (size_t c = 0; c < sp->count; c++) {
		uint64_t h = ref_per_hash(cfg, sp, c);
		size_t i = (size_t)h & (cap - 1);
		while (lead[i] != SIZE_MAX && !(key[i] == h && same_ref_per(cfg, sp, lead[i], c)))
			i = (i + 1) & (cap - 1);
		if (lead[i] == SIZE_MAX) {
			lead[i] = c;
			key[i] = h;
		}
		group[c] = lead[i];
	}
	free(lead);
	free(key);
	return group;
}

int plan_final_samples(double sample_ms, int max, double round_ms, int *warmup)
{
	double n = sample_ms > 0 ? round_ms / sample_ms : max;
	/* A sample that fills a round on its own follows another finalist's, which kept the GPU busy
	 * and its clock up: a warm-up launch would only double the round. */
	*warmup = !(sample_ms >= round_ms);
	return n >= max ? max : n <= 1 ? 1 : (int)n;
}

void plan_reference_failed(const config *cfg, const space *sp, const build *b, const result *r, size_t c, diags *d)
{
	const binary *bin = &b->bins[b->of_config[c]];
	char *desc = space_describe(cfg, space_config(sp, c));
	if (bin->failed)
		/* its log, once, is in the summary of compile errors */
		diags_at(d, cfg->path, cfg->reference_at.line, cfg->reference_at.col,
			 "the verify reference (%s) did not compile%s: %s", desc, bin->cached ? " (a failure kept in the cache)" : "",
			 compile_error_line(bin->log));
	else
		diags_add(d, "the verify reference (%s) failed in an earlier run (%s), which the journal keeps: %s measures it again",
			  desc, status_name(r->st),
			  r->st == ST_CRASHED || r->st == ST_TIMEOUT ? "--retry-failed or --fresh" : "--fresh");
	free(desc);
}

void plan_apply_binary(const binary *bin, int cc, result *r)
{
	if (!bin->cached && !bin->killed && bin->seconds > 0)
		r->compile_s = bin->seconds;
	if (bin->failed) {
		if (r->st == ST_NOT_RUN) {
			r->st = ST_COMPILE_ERROR;
			/* the CSV keeps the start of the log without the command line (nvcc's words come
			 * first, not the paths); the whole of it is printed */
			const char *log = bin->log ? bin->log : "", *cmd = strstr(log, "\n$ ");
			const char *after = cmd ? cmd + 1 + strcspn(cmd + 1, "\n") : NULL;
			char *first_lines = cmd ? xasprintf("%.*s%s", (int)(cmd - log + 1), log, *after ? after + 1 : after)
					      : xstrdup(log);
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
	/* a launch the device must refuse costs nothing: it is not made */
	char why[200];
	const char *error = r->st == ST_NOT_RUN ? launch_predict(cc, &in, r->block, r->grid, why, sizeof why) : NULL;
	if (error) {
		/* a block the device refuses has no occupancy, whatever the calculator made of it (a
		 * block.z over 64 came out at 100%) */
		r->occ_blocks = 0;
		r->occupancy = 0;
		r->occ_limit = "launch";
		r->st = ST_LAUNCH_ERROR;
		r->predicted = 1;
		result_set_message(r, xasprintf("%s (known before launching, not launched): %s", error, why));
	}
}
