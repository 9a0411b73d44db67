/* summary.c: what a tuning run tells a person on stderr once it is done: the dry run's table, the
 * compile logs, the counts per status, who won and why, and where the results went. */
#include "summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "header.h"
#include "report.h"
#include "banned.h"

void summary_dry_run(const options *o, const config *cfg, const space *sp, const build *b, const result *res)
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
	}
}

void summary_failures(const config *cfg, const space *sp, const build *b)
{
	/* one compile log per failed binary, not per configuration */
	for (size_t i = 0; i < b->nbins; i++)
		if (b->bins[i].failed && !b->bins[i].killed) {
			char *desc = space_describe(cfg, space_config(sp, b->bins[i].first_config));
			fprintf(stderr, "compile-error for %s:\n%s\n", desc, b->bins[i].log);
			free(desc);
		}
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
	size_t stopped_bins = 0, skipped_bins = 0;
	for (size_t i = 0; i < b->nbins; i++) {
		int stopped = b->bins[i].killed;
		skipped_bins += b->bins[i].skipped;
		stopped_bins += stopped && !b->bins[i].skipped;
		failed_bins += b->bins[i].failed && !stopped;
	}
	size_t built = b->nbins - stopped_bins - skipped_bins;
	fprintf(stderr, "%s: %zu valid %s (of %zu %s); %zu %s built in %.1f s (%zu failed; ", cfg->name, sp->count,
		plural(sp->count, "configuration", "configurations"), sp->total, plural(sp->total, "combination", "combinations"),
		built, plural(built, "binary", "binaries"), compile_s, failed_bins);
	if (skipped_bins)
		fprintf(stderr, "%zu not, the search did not need them; ", skipped_bins);
	if (stopped_bins)
		fprintf(stderr, "%zu not, stopped by a signal; ", stopped_bins);
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

/* The last lines of the summary: where the results went. */
void summary_paths(const config *cfg, int header, int report, const options *o)
{
	if (o->dry_run)
		fputs("  dry run: nothing was measured (no GPU timings, no winner)\n", stderr);
	fprintf(stderr, "  results: %s\n", cfg->csv_path);
	if (header) {
		char *mk = header_mk_path(cfg->header_path);
		fprintf(stderr, "  header:  %s (make fragment %s)\n", cfg->header_path, mk);
		free(mk);
	}
	if (report) {
		char *html = report_default_path(cfg->csv_path);
		fprintf(stderr, "  report:  %s\n", html);
		free(html);
	}
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
}

/* One or two lines on why the winner won: its numbers, and who was tied with it and lost. */
void summary_winner(const config *cfg, const space *sp, const result *res, const choice *c, const select_policy *p)
{
	if (c->winner < 0)
		return;
	const result *w = &res[c->winner];
	char *desc = space_describe(cfg, space_config(sp, (size_t)c->winner));
	fprintf(stderr, "  winner: %s: %.4f ms ±%.2f%%%s", desc, result_time(w), 100 * result_noise(w),
		w->final_rounds ? " (finalist, interleaved)" : "");
	print_metrics(w);
	fprintf(stderr, "\n");
	free(desc);
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
			!p->balanced ? "slower median" : si < sw - BALANCE_TIE ? "lower balance"
			: same_shape(&res[i], w) ? "the same launch shape: the winner comes first in the space"
			: "same balance within 0.01, slower median");
		free(other);
		shown++;
	}
	if (c->ntied > shown + 1)
		fprintf(stderr, "    ... and %zu more tied\n", c->ntied - shown - 1);
	if (p->balanced && c->winner != c->fastest)
		fprintf(stderr, "    (the fastest median, %.4f ms, is tied with it (within the noise band, or the same launch shape within "
				"%.2g%%): %s decided)\n",
			result_time(&res[c->fastest]), 100 * SHAPE_TIE,
			same_shape(&res[c->fastest], w) && balance_score(&res[c->fastest], p) >= balance_score(w, p) - BALANCE_TIE
				? "the space's order among builds of one launch shape" : "balance");
}
