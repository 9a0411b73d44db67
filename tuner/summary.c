/* summary.c: what a tuning run tells a person on stderr once it is done: the dry run's table, the
 * compile logs, the counts per status, who won and why, and where the results went. */
#include "summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile_error.h"
#include "config.h"
#include "header.h"
#include "launch_plan.h"
#include "objective.h"
#include "occupancy.h"
#include "report.h"
#include "banned.h"

/* A plan's launches after the first (the configuration's own line): each entry's resources and
 * its occupancy on its own launch. */
static void dry_run_plan(const config *cfg, const value *params, const binary *bin, int cc)
{
	for (size_t k = 1; k < bin->nplan; k++) {
		const kernel_resources *kr = &bin->plan_res[k];
		plan_geometry g;
		occupancy_result occ = {0, 0, ""};
		char *what = xasprintf("  + %s", cfg->plan.launches[k].entry);
		if (launch_plan_geometry(cfg, params, k, &g) == 0) {
			occupancy_input in = {(int)(g.block[0] * g.block[1] * g.block[2]), kr->registers, kr->static_smem,
					      (size_t)g.smem, kr->barriers};
			if (occupancy_compute(cc, &in, &occ))
				occ.occupancy = NAN;
		}
		fprintf(stderr, "%-40s %5d %6d %6lld %8.1f%%\n", what, kr->registers, kr->spill_stores + kr->spill_loads,
			(long long)kr->static_smem + g.smem, 100 * occ.occupancy);
		free(what);
	}
}

void summary_dry_run(const options *o, const config *cfg, const space *sp, const build *b, const result *res, int cc)
{
	if (o->quiet)
		return;
	/* smem: per block, static (ptxas) and dynamic (the launch's) together, as the occupancy counts it */
	fprintf(stderr, "%-40s %5s %6s %6s %9s  %s\n", "configuration", "regs", "spills", "smem", "occupancy", "status");
	for (size_t c = 0; c < sp->count; c++) {
		const binary *bin = &b->bins[b->of_config[c]];
		char *desc = space_describe(cfg, space_config(sp, c));
		if (bin->failed)
			fprintf(stderr, "%-40s %5s %6s %6s %9s  %s\n", desc, "-", "-", "-", "-", status_name(res[c].st));
		else
			fprintf(stderr, "%-40s %5d %6d %6lld %8.1f%%  %s\n", desc, bin->res.registers,
				bin->res.spill_stores + bin->res.spill_loads, (long long)bin->res.static_smem + res[c].smem,
				100 * res[c].occupancy, status_name(res[c].st));
		free(desc);
		if (!bin->failed)
			dry_run_plan(cfg, space_config(sp, c), bin, cc);
	}
}

/* The compile-time values that no binary built with, while others built: the cause to name once,
 * one line per parameter ("every binary with V = 8, 16 or 24 failed to compile"). */
static void failing_values(const config *cfg, const space *sp, const build *b, size_t failed, size_t tried)
{
	if (failed == tried)
		return; /* nothing built: no value is to blame more than another */
	for (size_t p = 0; p < cfg->nparams; p++) {
		if (!param_is_compile_time(&cfg->params[p]))
			continue;
		char *list = NULL;
		size_t blamed = 0;
		for (size_t v = 0; v < cfg->params[p].nvalues; v++) {
			char want[64], got[64];
			value_format(cfg->params[p].values[v], want, sizeof want);
			size_t with = 0, bad = 0;
			for (size_t i = 0; i < b->nbins; i++) {
				if (b->bins[i].killed)
					continue;
				value_format(space_config(sp, b->bins[i].first_config)[p], got, sizeof got);
				if (!strcmp(got, want)) {
					with++;
					bad += b->bins[i].failed;
				}
			}
			if (!with || bad < with)
				continue;
			char *more = list ? xasprintf("%s, %s", list, want) : xstrdup(want);
			free(list);
			list = more;
			blamed += bad;
		}
		if (list) {
			/* "8, 16, 24" -> "8, 16 or 24" */
			char *last = strrchr(list, ',');
			if (last)
				fprintf(stderr, "  every binary with %s = %.*s or%s failed to compile (%zu of the %zu that failed)\n",
					cfg->params[p].name, (int)(last - list), list, last + 1, blamed, failed);
			else
				fprintf(stderr, "  every binary with %s = %s failed to compile (%zu of the %zu that failed)\n",
					cfg->params[p].name, list, blamed, failed);
		}
		free(list);
	}
}

/* Of the binaries that failed alike with binary first (kind), how many came from the cache:
 * said, since only --fresh compiles them again. */
static void from_cache(const build *b, char **kind, size_t first, size_t alike)
{
	size_t cached = 0;
	for (size_t j = first; j < b->nbins; j++)
		cached += kind[j] && b->bins[j].cached && !strcmp(kind[j], kind[first]);
	if (cached == alike)
		fprintf(stderr, "  (from the cache: %s with the same source, headers, flags and nvcc before; --fresh "
				"compiles %s again)\n", alike == 1 ? "this compile failed" : "these compiles failed",
			alike == 1 ? "it" : "them");
	else if (cached)
		fprintf(stderr, "  (%zu of them from the cache: they failed alike before; --fresh compiles them again)\n", cached);
}

/* The binaries held back after the first all failed alike (compile.c), and their configurations:
 * not run, which the run's results say as well. */
static void held_back(const space *sp, const build *b)
{
	size_t bins = 0, configs = 0;
	for (size_t i = 0; i < b->nbins; i++)
		bins += b->bins[i].held;
	for (size_t c = 0; c < sp->count; c++)
		configs += b->bins[b->of_config[c]].held;
	fprintf(stderr, "  compiling stopped: the first %zu binaries all failed with this error and none compiled; the "
			"other %zu %s not compiled, %s %zu %s not run (--keep-going compiles them all)\n",
		b->held_after, bins, plural(bins, "binary was", "binaries were"), plural(bins, "its", "their"), configs,
		plural(configs, "configuration", "configurations"));
}

void summary_failures(const config *cfg, const space *sp, const build *b)
{
	/* each kind of error once, with how many binaries it stopped, not once per binary */
	size_t failed = 0, tried = 0;
	char **kind = xcalloc(b->nbins + 1, sizeof *kind);
	for (size_t i = 0; i < b->nbins; i++) {
		tried += !b->bins[i].killed;
		if (b->bins[i].failed && !b->bins[i].killed) {
			kind[i] = compile_error_kind(b->bins[i].log);
			failed++;
		}
	}
	for (size_t i = 0; i < b->nbins; i++) {
		if (!kind[i])
			continue;
		size_t alike = 0;
		for (size_t j = 0; j < i && !alike; j++)
			alike = kind[j] && !strcmp(kind[j], kind[i]);
		if (alike)
			continue; /* told with the first of its kind */
		for (size_t j = i; j < b->nbins; j++)
			alike += kind[j] && !strcmp(kind[j], kind[i]);
		char *desc = space_describe(cfg, space_config(sp, b->bins[i].first_config));
		if (alike > 1)
			fprintf(stderr, "compile-error for %s and %zu more binaries alike:\n%s\n", desc, alike - 1,
				b->bins[i].log);
		else
			fprintf(stderr, "compile-error for %s:\n%s\n", desc, b->bins[i].log);
		free(desc);
		char *fix = compile_error_fix(cfg, b->bins[i].log);
		if (fix)
			fprintf(stderr, "  likely fix: %s\n", fix);
		free(fix);
		from_cache(b, kind, i, alike);
	}
	if (b->held_after)
		held_back(sp, b);
	if (failed > 1)
		failing_values(cfg, sp, b, failed, tried);
	for (size_t i = 0; i < b->nbins; i++)
		free(kind[i]);
	free(kind);
}

void summary_counts(const config *cfg, const space *sp, const build *b, const result *res, double compile_s,
			  int dry)
{
	size_t counts[ST_COUNT_] = {0}, failed_bins = 0, throttled = 0, predicted = 0;
	for (size_t c = 0; c < sp->count; c++) {
		/* a launch known to fail was not made: counted apart from what ran */
		if (res[c].predicted)
			predicted++;
		else
			counts[res[c].st]++;
		throttled += res[c].throttled;
	}
	size_t stopped_bins = 0, skipped_bins = 0, held_bins = 0;
	for (size_t i = 0; i < b->nbins; i++) {
		int stopped = b->bins[i].killed;
		skipped_bins += b->bins[i].skipped;
		held_bins += b->bins[i].held;
		stopped_bins += stopped && !b->bins[i].skipped && !b->bins[i].held;
		failed_bins += b->bins[i].failed && !stopped;
	}
	size_t built = b->nbins - stopped_bins - skipped_bins - held_bins;
	if (sp->sampled)
		fprintf(stderr, "%s: %s%llu valid configurations, searched in a uniform sample of %zu", cfg->name,
			sp->valid_over ? "over " : "", sp->valid,
			sp->count);
	else
		fprintf(stderr, "%s: %zu valid %s", cfg->name, sp->count, plural(sp->count, "configuration", "configurations"));
	fprintf(stderr, " (of %zu %s); %zu %s built in %.1f s (%zu failed; ", sp->total,
		plural(sp->total, "combination", "combinations"), built, plural(built, "binary", "binaries"), compile_s,
		failed_bins);
	if (skipped_bins)
		fprintf(stderr, "%zu not, the search did not need them; ", skipped_bins);
	if (stopped_bins)
		fprintf(stderr, "%zu not, stopped by a signal; ", stopped_bins);
	if (held_bins)
		fprintf(stderr, "%zu not, the first %zu having failed alike; ", held_bins, b->held_after);
	fprintf(stderr, "%zu nvcc %s, %zu from the cache)\n", b->nvcc_runs, plural(b->nvcc_runs, "run", "runs"), b->cache_hits);
	if (!dry) {
		fprintf(stderr, "  ran %zu:", sp->count - counts[ST_NOT_RUN] - counts[ST_COMPILE_ERROR] - predicted);
		for (int s = 0; s < ST_COUNT_; s++)
			if (counts[s])
				fprintf(stderr, " %zu %s", counts[s], status_name((status)s));
		size_t shared = 0;
		for (size_t c = 0; c < sp->count; c++)
			shared += res[c].shares_with >= 0;
		if (shared)
			fprintf(stderr, "; %zu shared an identical binary's measurement", shared);
		if (throttled)
			fprintf(stderr, "; %zu measured with the SM clock below 85%% of its maximum (flagged)", throttled);
		fputc('\n', stderr);
	}
	if (predicted)
		fprintf(stderr, "  %zu not launched: the GPU's limits refuse %s (launch-error, the CSV says why)\n", predicted,
			predicted == 1 ? "it" : "them");
}

void summary_reference(const char *note)
{
	for (const char *p = note; p && *p; p += strcspn(p, "\n"), p += *p == '\n')
		fprintf(stderr, "  %.*s\n", (int)strcspn(p, "\n"), p);
}

void summary_run(const run_extent *run)
{
	char *note = strcmp(run->state, RUN_DRY) ? run_note(run) : NULL;
	if (note)
		fprintf(stderr, "  incomplete: %s\n", note);
	free(note);
}

/* The last lines of the summary: where the results went. */
void summary_paths(const config *cfg, int header, int report, const char *t4, const options *o)
{
	if (o->dry_run)
		fputs("  dry run: nothing was measured (no GPU timings, no winner)\n", stderr);
	fprintf(stderr, "  results: %s\n", cfg->csv_path);
	if (header) {
		char *mk = header_mk_path(cfg->header_path);
		fprintf(stderr, "  header:  %s (make fragment %s)\n", cfg->header_path, mk);
		free(mk);
	}
	for (size_t i = 0; header && i < cfg->nparams; i++)
		if (cfg->params[i].is_srcdef)
			fprintf(stderr, "  #define: %s of %s:%d replaced with the winner's value in the kernel copy the header's "
					"recipe builds\n",
				cfg->params[i].name, cfg->source, cfg->params[i].is_srcdef);
	if (report) {
		char *html = report_default_path(cfg->csv_path);
		fprintf(stderr, "  report:  %s\n", html);
		free(html);
	}
	if (t4)
		fprintf(stderr, "  T4:      %s\n", t4);
	if (o->nshards)
		fprintf(stderr, "  shard %d of %d: join the shards' CSVs with `autotune merge %s CSV...`\n", o->shard,
			o->nshards, cfg->path);
}

static void print_metrics(const result *r)
{
	if (r->gbps > 0)
		fprintf(stderr, ", %.0f GB/s", r->gbps);
	if (r->pct_of_copy > 0)
		fprintf(stderr, " = %.0f%% of copy", r->pct_of_copy);
	if (r->have_metrics) {
		fprintf(stderr, ", achieved occupancy %.0f%%", r->metrics[METRIC_ACHIEVED_OCCUPANCY]);
		/* a kernel without global loads has no load efficiency (0/0), as in the CSV */
		if (isnan(r->metrics[METRIC_GLD_EFFICIENCY]))
			fputs(", load efficiency n/a (no global loads)", stderr);
		else
			fprintf(stderr, ", load efficiency %.0f%%", r->metrics[METRIC_GLD_EFFICIENCY]);
	} else
		fprintf(stderr, ", theoretical occupancy %.0f%%", 100 * r->occupancy);
	if (r->streams)
		fprintf(stderr, "; %d stream%s %s on %d connection%s", r->streams, r->streams == 1 ? "" : "s",
			r->breadth_first ? "breadth-first" : "depth-first", r->connections, r->connections == 1 ? "" : "s");
	if (result_concurrency(r) > 0)
		fprintf(stderr, ", concurrency %.2f", result_concurrency(r));
	if (r->have_energy)
		fprintf(stderr, ", %.4g J per launch at %.0f W", r->joules, r->watts);
}

/* Those that passed but that select.objective could not rank (no energy, a value <= 0): how
 * many, and why for the first. */
static void summary_unranked(const config *cfg, const space *sp, const result *res)
{
	size_t unranked = 0, first = 0;
	for (size_t i = 0; i < sp->count; i++)
		if (result_passed(&res[i]) && res[i].scored == 2 && !unranked++)
			first = i;
	if (unranked) {
		char why[240];
		objective_why(cfg, space_config(sp, first), &res[first], why, sizeof why);
		fprintf(stderr, "    %zu configuration%s that passed cannot win: %s\n", unranked, unranked == 1 ? "" : "s", why);
	}
}

/* With select.objective: the winner's value, and the shortest launch where the objective chose
 * another. */
static void summary_objective(const config *cfg, const space *sp, const result *res, const choice *c,
			      const select_policy *p)
{
	const result *w = &res[c->winner];
	fprintf(stderr, "    by the objective (%s %s): %.6g", p->maximize ? "maximize" : "minimize", p->objective,
		w->objective);
	long long quick = -1;
	for (size_t i = 0; i < sp->count; i++)
		if (result_passed(&res[i]) && (quick < 0 || result_time(&res[i]) < result_time(&res[quick])))
			quick = (long long)i;
	if (quick >= 0 && quick != c->winner) {
		char *desc = space_describe(cfg, space_config(sp, (size_t)quick));
		fprintf(stderr, "; the shortest launch, %s (%.4f ms), ", desc, result_time(&res[quick]));
		if (res[quick].scored == 1)
			fprintf(stderr, "scores %.6g", res[quick].objective);
		else
			fputs("has no value", stderr);
		free(desc);
	}
	fputc('\n', stderr);
	summary_unranked(cfg, sp, res);
}

/* One or two lines on why the winner won: its numbers, and who was tied with it and lost. */
void summary_winner(const config *cfg, const space *sp, const result *res, const choice *c, const select_policy *p)
{
	if (c->winner < 0 && *p->objective)
		summary_unranked(cfg, sp, res);
	if (c->winner < 0)
		return;
	const result *w = &res[c->winner];
	char *desc = space_describe(cfg, space_config(sp, (size_t)c->winner));
	fprintf(stderr, "  winner: %s: %.4f ms ±%.2f%%%s", desc, result_time(w), 100 * result_noise(w),
		w->final_rounds ? " (finalist, interleaved)" : "");
	print_metrics(w);
	fprintf(stderr, "\n");
	free(desc);
	if (*p->objective)
		summary_objective(cfg, sp, res, c, p);
	size_t shown = 0;
	for (size_t k = 0; k < c->ntied && shown < 3; k++) {
		size_t i = c->tied[k];
		if ((long long)i == c->winner)
			continue;
		char *other = space_describe(cfg, space_config(sp, i));
		double si = balance_score(&res[i], p), sw = balance_score(w, p);
		fprintf(stderr, "    tied (noise band, or launch shape within %.2g%%): %s (%.4f ms ±%.2f%%, balance %.3f vs %.3f): %s\n",
			100 * SHAPE_TIE, other,
			result_time(&res[i]), 100 * result_noise(&res[i]), si, sw,
			select_why_lost(res, c, i, p));
		free(other);
		shown++;
	}
	if (c->ntied > shown + 1)
		fprintf(stderr, "    ... and %zu more tied\n", c->ntied - shown - 1);
	if (p->kind == POLICY_BALANCED && c->winner != c->fastest)
		fprintf(stderr, "    (the fastest median, %.4f ms, is tied with it (within the noise band, or the same launch shape within "
				"%.2g%%): %s decided)\n",
			result_time(&res[c->fastest]), 100 * SHAPE_TIE,
			same_shape(&res[c->fastest], w) && balance_score(&res[c->fastest], p) >= balance_score(w, p) - BALANCE_TIE
				? "the space's order among builds of one launch shape" : "balance");
}
