/* report.c: `autotune report`: one HTML file that stands alone (inline SVG and CSS, no script, no
 * fetch) so it can be mailed, attached to CI or opened offline: heat map, scatter plots, the top
 * configurations, failures by status and the run's facts. Everything from the CSV is escaped. */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bought.h"
#include "chart.h"
#include "sizes.h"
#include "completeness.h"
#include "inputs.h"
#include "run_names.h"
#include "view.h"
#include "banned.h"

enum { TOP_ROWS = 10, FAILURES_LISTED = 100 };

/* ---- tables ---- */

static void param_headers(FILE *f, const table *t)
{
	size_t end = t->nparams ? t->nparams : 2;
	for (size_t c = 0; c < end && c < t->ncols; c++) {
		fputs("<th>", f);
		html_esc(f, t->names[c]);
		fputs("</th>", f);
	}
}

static void param_cells(FILE *f, const table *t, size_t r)
{
	size_t end = t->nparams ? t->nparams : 2;
	for (size_t c = 0; c < end && c < t->ncols; c++) {
		fputs("<td>", f);
		html_esc(f, table_get(t, r, (int)c));
		fputs("</td>", f);
	}
}

/* A plan's column (output.h's) as a number, whatever the parameters are called; NAN when none. */
static double plan_num(const view *v, size_t row, const char *column)
{
	return table_num(&v->t, row, table_fixed_col(&v->t, column));
}

/* The columns of energy, the config's metrics and the objective (those between watts and
 * objective are the metrics): [*first, *end) of the table's, none when the file has no energy
 * reading, metric or objective; *energy when some row has energy. */
static void score_columns(const view *v, int *first, int *end, int *energy)
{
	const table *t = &v->t;
	int j = table_fixed_col(t, "joules_per_launch"), o = table_fixed_col(t, "objective");
	*first = *end = 0;
	*energy = 0;
	for (size_t r = 0; j >= 0 && r < t->nrows; r++)
		*energy |= *table_get(t, r, j) != 0;
	if (j < 0 || o < j)
		return;
	*first = *energy ? j : j + 2;
	*end = *v->policy.objective ? o + 1 : o;
}

static void score_headers(FILE *f, const view *v)
{
	int first, end, energy;
	score_columns(v, &first, &end, &energy);
	for (int c = first; c < end; c++) {
		fputs("<th>", f);
		html_esc(f, v->t.names[c]);
		fputs("</th>", f);
	}
}

static void score_cells(FILE *f, const view *v, size_t r)
{
	int first, end, energy;
	score_columns(v, &first, &end, &energy);
	for (int c = first; c < end; c++) {
		fputs("<td class=\"num\">", f);
		html_num(f, "%.4g", table_num(&v->t, r, c));
		fputs("</td>", f);
	}
}

static void top_table(FILE *f, const view *v, const size_t *order)
{
	const table *t = &v->t;
	int plan = table_fixed_col(t, "concurrency") >= 0;
	fputs("<table id=\"top\"><thead><tr><th>#</th>", f);
	param_headers(f, t);
	fputs("<th>time (ms)</th><th>noise (%)</th><th>registers</th><th>spills (bytes)</th><th>occupancy (%)</th>"
	      "<th>limited by</th><th>load efficiency (%)</th><th>GB/s</th>", f);
	score_headers(f, v);
	fputs(plan ? "<th>concurrency</th><th>status</th></tr></thead>\n<tbody>\n" : "<th>status</th></tr></thead>\n<tbody>\n", f);
	for (size_t i = 0; i < t->nrows && i < TOP_ROWS && view_passed(v, order[i]); i++) {
		size_t r = order[i];
		int win = (long long)r == v->winner;
		fprintf(f, "<tr%s><td>%zu%s</td>", win ? " class=\"winner\"" : "", i + 1, win ? " &#9733;" : "");
		param_cells(f, t, r);
		fputs("<td class=\"num\">", f);
		html_num(f, "%.4g", view_time(v, r));
		fputs("</td><td class=\"num\">", f);
		html_num(f, "%.2f", view_noise(v, r));
		fputs("</td><td class=\"num\">", f);
		html_num(f, "%.0f", view_num(v, r, "registers"));
		fputs("</td><td class=\"num\">", f);
		html_num(f, "%.0f", view_num(v, r, "spill_store_bytes") + view_num(v, r, "spill_load_bytes"));
		fprintf(f, "</td><td class=\"num%s\">", view_occupancy_achieved(v, r) ? "" : " theoretical");
		html_num(f, "%.1f", view_occupancy(v, r));
		fputs("</td><td>", f);
		html_esc(f, table_field(t, r, "occupancy_limit"));
		fputs("</td><td class=\"num\">", f);
		html_num(f, "%.1f", view_num(v, r, "gld_efficiency_pct"));
		fputs("</td><td class=\"num\">", f);
		html_num(f, "%.1f", view_num(v, r, "gbps"));
		if (plan) {
			fputs("</td><td class=\"num\">", f);
			html_num(f, "%.2f", plan_num(v, r, "concurrency"));
		}
		fputs("</td>", f);
		score_cells(f, v, r);
		fputs("<td>", f);
		html_esc(f, view_status(v, r));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

static void failure_group(FILE *f, const view *v, const char *name, size_t count, int known, status st)
{
	const table *t = &v->t;
	fputs("<div class=\"failure-group\" data-status=\"", f);
	html_esc(f, name);
	fputs("\"><h3>", f);
	html_esc(f, name);
	fprintf(f, " <span class=\"count\">%zu</span></h3>\n<table class=\"failures\"><thead><tr>", count);
	param_headers(f, t);
	fputs("<th>message</th></tr></thead><tbody>\n", f);
	size_t listed = 0;
	for (size_t r = 0; r < t->nrows && listed < FAILURES_LISTED; r++) {
		status s;
		int k = status_parse(view_status(v, r), &s) == 0;
		if (k != known || (known && s != st))
			continue;
		fputs("<tr>", f);
		param_cells(f, t, r);
		fputs("<td class=\"message\">", f);
		html_esc(f, table_field(t, r, "message"));
		fputs("</td></tr>\n", f);
		listed++;
	}
	fputs("</tbody></table>\n", f);
	if (count > listed)
		fprintf(f, "<p class=\"note\">&hellip; and %zu more.</p>\n", count - listed);
	fputs("</div>\n", f);
}

/* A fact from the file: absent from an older file's columns, or empty (a dry run has no GPU's). */
static void fact(FILE *f, const view *v, const char *label, const char *column, const char *value)
{
	fprintf(f, "<tr><th>%s</th><td>", label);
	if (value)
		html_esc(f, value);
	else if (column && table_col(&v->t, column) >= 0)
		fprintf(f, "<span class=\"note\">none%s</span>", v->dry ? " (a dry run measures nothing)" : "");
	else
		fputs("<span class=\"note\">not recorded (an older results file)</span>", f);
	fputs("</td></tr>\n", f);
}

/* A run that did not measure its whole space, said where a reader starts (the lead) and among the
 * facts: "2 of 52 configurations measured, interrupted: resume with the same command". */
static void run_extent_note(FILE *f, const view *v, int lead)
{
	run_extent r;
	table_run(&v->t, &r);
	char *note = v->dry ? NULL : run_note(&r);
	if (lead && note) {
		fputs("<p class=\"incomplete\" id=\"incomplete\"><strong>Incomplete</strong>: ", f);
		html_esc(f, note);
		fputs(".</p>\n", f);
	} else if (!lead && !v->dry) {
		fputs("<tr><th>run</th><td>", f);
		if (note)
			html_esc(f, note);
		else
			fprintf(f, "complete: every one of the %zu configurations measured", r.configurations);
		fputs("</td></tr>\n", f);
	}
	free(note);
}

static void facts(FILE *f, const view *v)
{
	static const char *const cols[][2] = {{"gpu", "GPU"}, {"gpu_uuid", "GPU UUID"}, {"arch", "architecture"},
					      {"tuned_at", "tuned at"}, {"config", "config"}, {"spec_hash", "spec hash"}};
	fputs("<section id=\"facts\"><h2>Run</h2>\n<table class=\"facts\">\n", f);
	fact(f, v, "results file", NULL, v->t.path);
	for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
		char *x = view_distinct(v, cols[i][0]);
		fact(f, v, cols[i][1], cols[i][0], x);
		free(x);
	}
	fprintf(f, "<tr><th>configurations</th><td>%zu: ", v->t.nrows + v->unlisted);
	const char *sep = "";
	if (v->unlisted) {
		fprintf(f, "<span class=\"status-count\" data-status=\"unlisted\">%zu not run, not listed</span>", v->unlisted);
		sep = ", ";
	}
	for (int s = 0; s < ST_COUNT_; s++)
		if (v->counts[s]) {
			fprintf(f, "%s<span class=\"status-count\" data-status=\"%s\">%zu %s</span>", sep, status_name((status)s),
				v->counts[s], status_name((status)s));
			sep = ", ";
		}
	if (v->unknown_status)
		fprintf(f, "%s%zu of unknown status", sep, v->unknown_status);
	fputs("</td></tr>\n", f);
	run_extent_note(f, v, 0);
	if (sizes_facts(f, v)) {
	} else if (v->winner >= 0) {
		size_t w = (size_t)v->winner;
		char *d = view_describe(v, w), *why = view_why(v);
		fputs("<tr class=\"winner\"><th>winner</th><td>", f);
		html_esc(f, d);
		fprintf(f, ": %.4g ms &plusmn;%.2f%%", view_time(v, w), view_noise(v, w));
		if (v->res[w].scored == 1)
			fprintf(f, ", objective %.6g", v->res[w].objective);
		fputs("</td></tr>\n<tr><th>why</th><td>", f);
		html_esc(f, why);
		fputs("</td></tr>\n", f);
		free(d);
		free(why);
	} else
		fprintf(f, "<tr><th>winner</th><td>none: %s</td></tr>\n",
			v->dry ? "a dry run compiles and measures nothing" : "no configuration passed");
	fputs("</table></section>\n", f);
}

static const char style[] =
	"body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:24px auto;max-width:1220px;"
	"padding:0 16px;color:#1d1d1f;background:#fff}\n"
	"h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;"
	"padding-bottom:4px}h3{font-size:14px;margin:14px 0 6px}\n"
	"p.lead,p.note,.note{color:#555;font-size:13px}\n"
	"table{border-collapse:collapse;font-size:13px}th,td{padding:3px 9px;border-bottom:1px solid #e5e5e5;"
	"text-align:left;vertical-align:top}thead th{background:#f2f2f4}\n"
	"td.num{text-align:right;font-variant-numeric:tabular-nums}td.theoretical{font-style:italic;color:#666}\n"
	"tr.winner td{background:#fff1c2;font-weight:600}\n"
	"table.facts th{width:150px;color:#555;font-weight:500}\n"
	"td.message{font-family:ui-monospace,Menlo,Consolas,monospace;white-space:pre-wrap;max-width:640px;"
	"font-size:12px}\n"
	".plots{display:flex;flex-wrap:wrap;gap:24px}.plots figure{margin:0}figcaption{font-size:13px;"
	"color:#444;margin-bottom:4px}\n"
	"svg text{font-size:11px;fill:#333}svg .axis-title{font-size:12px;fill:#111}svg .cell-label{font-size:10px;"
	"text-anchor:middle;fill:#111}svg .cell-label.dark{fill:#fff}\n"
	"svg .grid{stroke:#e6e6e6}svg .point{fill:#3b6fb6;fill-opacity:.55;stroke:#1f4f8f;stroke-width:.6}\n"
	"svg .point.winner{fill:#e4002b;fill-opacity:1;stroke:#000;stroke-width:1.5}\n"
	"svg .winner-label{font-size:12px;font-weight:700;fill:#b00020;paint-order:stroke;stroke:#fff;"
	"stroke-width:3px}\n"
	"svg .winner-mark{fill:none;stroke:#e4002b;stroke-width:2.5}\n"
	"svg rect.cell:hover{stroke:#000;stroke-width:1.5}\n"
	".count{background:#e8e8ec;border-radius:9px;padding:0 8px;font-weight:500}\n"
	"p.incomplete{background:#fff4e5;border-left:4px solid #e08a00;padding:8px 12px;font-size:14px}\n"
	"p.bought-lead{font-size:16px}td.speedup{font-weight:700}td.recipe code{font-size:11px}\n";

static void run_sections(FILE *f, const view *v);
static void dry_sections(FILE *f, const view *v);

static char *render(const view *v, const int col[2])
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		fputs("autotune: out of memory\n", stderr);
		exit(EXIT_ENV);
	}
	const table *t = &v->t;
	const char *base = strrchr(t->path, '/') ? strrchr(t->path, '/') + 1 : t->path;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n" REPORT_SIGNATURE, f);
	html_esc(f, base);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head><body>\n<h1>autotune report: ", style);
	html_esc(f, base);
	fputs("</h1>\n<p class=\"lead\">", f);
	char *gpu = view_distinct(v, "gpu");
	fprintf(f, "%zu configurations", t->nrows);
	if (v->unlisted)
		fprintf(f, " listed of %zu (the other %zu were not run)", t->nrows + v->unlisted, v->unlisted);
	if (gpu) {
		fputs(" on ", f);
		html_esc(f, gpu);
	}
	free(gpu);
	if (v->dry)
		fputs(". <strong>A dry run</strong>: every variant was compiled and nothing was measured, so this report "
		      "shows what the binaries say (registers, spills, shared memory, theoretical occupancy). Hover over a "
		      "cell for its configuration.</p>\n",
		      f);
	else
		fputs(". Times are medians of event-timed samples (the finalists' interleaved re-timing where there was "
		      "one). Hover over a cell or point for its configuration.</p>\n",
		      f);

	run_extent_note(f, v, 1);
	if (!v->dry)
		bought_report(f, v);
	fprintf(f, "<section id=\"heatmap-section\"><h2>%s by ", v->dry ? "Theoretical occupancy" : "Time");
	html_esc(f, t->names[col[0]]);
	fputs(" and ", f);
	html_esc(f, t->names[col[1]]);
	fprintf(f, "</h2>\n<p class=\"note\">Each cell shows the %s of the configurations that share it; the other "
		   "parameters vary within a cell.</p>\n",
		v->dry ? "highest theoretical occupancy" : "best (smallest) time");
	chart_heatmap(f, v, col, v->dry ? &chart_dry_metric : &chart_time_metric);
	fputs("</section>\n", f);
	if (v->dry)
		dry_sections(f, v);
	else
		run_sections(f, v);

	fputs("<section id=\"failures\"><h2>Failures</h2>\n", f);
	size_t failed = v->unknown_status;
	for (int s = 0; s < ST_COUNT_; s++)
		if (s != ST_OK && v->counts[s] && !(v->dry && s == ST_NOT_RUN)) {
			failure_group(f, v, status_name((status)s), v->counts[s], 1, (status)s);
			failed += v->counts[s];
		}
	if (v->unknown_status)
		failure_group(f, v, "unknown status", v->unknown_status, 0, ST_OK);
	if (!failed)
		fprintf(f, "<p class=\"note\">None: every configuration %s.</p>\n", v->dry ? "compiled" : "ran and passed");
	fputs("</section>\n", f);

	facts(f, v);
	fputs("<p class=\"note\">Written by autotune report from the results file alone.</p>\n</body></html>\n", f);
	if (fclose(f)) {
		fputs("autotune: out of memory\n", stderr);
		exit(EXIT_ENV);
	}
	return buf;
}

/* Index of x in the sorted distinct values vals[0..*n), added when new. */
static size_t distinct_index(double *vals, size_t *n, double x)
{
	size_t i = 0;
	while (i < *n && vals[i] < x)
		i++;
	if (i == *n || vals[i] != x) {
		memmove(vals + i + 1, vals + i, (*n - i) * sizeof *vals);
		vals[i] = x;
		++*n;
	}
	return i;
}

/* The cell of the concurrency table that row r belongs to: its streams (rows of the table) and
 * its order and connections (columns: depth-first first), as values to sort by. */
static void concurrency_keys(const view *v, size_t r, double *streams, double *column)
{
	*streams = plan_num(v, r, "plan_streams");
	int breadth = !strcmp(table_get(&v->t, r, table_fixed_col(&v->t, "plan_order")), "breadth-first");
	*column = breadth * 1000.0 + plan_num(v, r, "plan_connections");
}

/* Long: one table, read in two passes (the axes, then the cells), is clearer whole.
 * A plan's results: per streams (rows) and order x connections (columns), the achieved
 * concurrency of the fastest configuration there and its time. False dependencies show as
 * concurrency near 1 where there are several streams. */
static void concurrency_section(FILE *f, const view *v)
{
	const table *t = &v->t;
	size_t n = t->nrows, ns = 0, nc = 0;
	double *srow = xcalloc(n + 1, sizeof *srow), *ccol = xcalloc(n + 1, sizeof *ccol);
	for (size_t r = 0; r < n; r++) {
		double a, b;
		concurrency_keys(v, r, &a, &b);
		if (view_passed(v, r) && !isnan(a) && !isnan(b)) {
			distinct_index(srow, &ns, a);
			distinct_index(ccol, &nc, b);
		}
	}
	long long *best = xcalloc(ns * nc + 1, sizeof *best);
	for (size_t i = 0; i < ns * nc; i++)
		best[i] = -1;
	for (size_t r = 0; r < n; r++) {
		double a, b;
		concurrency_keys(v, r, &a, &b);
		if (!view_passed(v, r) || isnan(a) || isnan(b))
			continue;
		long long *cell = &best[distinct_index(srow, &ns, a) * nc + distinct_index(ccol, &nc, b)];
		if (*cell < 0 || view_time(v, r) < view_time(v, (size_t)*cell))
			*cell = (long long)r;
	}
	fputs("<section id=\"concurrency\"><h2>Concurrency by streams, order and connections</h2>\n<p class=\"note\">"
	      "Each cell: the achieved concurrency (the plan's launches timed one at a time, over the plan's time) of the "
	      "fastest configuration with those streams, dispatch order and CUDA_DEVICE_MAX_CONNECTIONS, and its time in "
	      "ms. Near 1 with several streams: the streams ran one after another.</p>\n"
	      "<table id=\"concurrency-table\"><thead><tr><th>streams</th>", f);
	for (size_t c = 0; c < nc; c++)
		fprintf(f, "<th>%s, %.0f connection%s</th>", ccol[c] >= 1000 ? "breadth-first" : "depth-first",
			fmod(ccol[c], 1000), fmod(ccol[c], 1000) == 1 ? "" : "s");
	fputs("</tr></thead>\n<tbody>\n", f);
	for (size_t i = 0; i < ns; i++) {
		fprintf(f, "<tr><th>%.0f</th>", srow[i]);
		for (size_t c = 0; c < nc; c++) {
			long long r = best[i * nc + c];
			fputs("<td class=\"num\">", f);
			if (r >= 0) {
				html_num(f, "%.2f", plan_num(v, (size_t)r, "concurrency"));
				fputs(" (", f);
				html_num(f, "%.4g", view_time(v, (size_t)r));
				fputs(" ms)", f);
			} else
				fputs("&ndash;", f);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n</section>\n", f);
	free(best);
	free(srow);
	free(ccol);
}

/* A run's plots of time against occupancy and load efficiency, and its fastest configurations. */
static void run_sections(FILE *f, const view *v)
{
	sizes_report(f, v); /* results of several instances: the winners against the size */
	fputs("<section id=\"scatter\"><h2>Time against occupancy and load efficiency</h2>\n<div class=\"plots\">\n"
	      "<figure><figcaption>Occupancy: achieved where counters were read, else theoretical</figcaption>\n",
	      f);
	if (!chart_scatter(f, v, "scatter-occupancy", "occupancy (%)", view_occupancy))
		fputs("<p class=\"note\">No configuration passed: nothing to plot.</p>\n", f);
	fputs("</figure>\n<figure><figcaption>Global load efficiency (hardware counters)</figcaption>\n", f);
	size_t ne = chart_scatter(f, v, "scatter-efficiency", "global load efficiency (%)", chart_x_efficiency);
	if (!ne)
		fputs("<p class=\"note\" id=\"no-counters\">No hardware counters in these results (run with "
		      "<code>--metrics</code> on a GPU that allows them): load efficiency is unknown.</p>\n",
		      f);
	else if (v->winner >= 0 && isnan(chart_x_efficiency(v, (size_t)v->winner)))
		fputs("<p class=\"note\">The winner has no counters, so it is not on this plot.</p>\n", f);
	fputs("</figure>\n</div></section>\n", f);
	if (table_fixed_col(&v->t, "concurrency") >= 0)
		concurrency_section(f, v);

	size_t *order = view_by_time(v);
	if (*v->policy.objective) {
		fprintf(f, "<section id=\"top-section\"><h2>The %d best configurations by the objective (%s ", TOP_ROWS,
			v->policy.maximize ? "maximize" : "minimize");
		html_esc(f, v->policy.objective);
		fputs(")</h2>\n", f);
	} else
		fprintf(f, "<section id=\"top-section\"><h2>The %d fastest configurations</h2>\n", TOP_ROWS);
	top_table(f, v, order);
	fputs("<p class=\"note\">&#9733; marks the winner. Occupancy in italics is theoretical (no counters "
	      "read).</p>\n</section>\n",
	      f);
	free(order);
}

/* A dry run's table: the compiled configurations by theoretical occupancy, with what limits it. */
static void dry_sections(FILE *f, const view *v)
{
	const table *t = &v->t;
	size_t *order = view_by_time(v);
	fprintf(f, "<section id=\"top-section\"><h2>The %d configurations of highest theoretical occupancy</h2>\n"
		   "<table id=\"top\"><thead><tr><th>#</th>", TOP_ROWS);
	param_headers(f, t);
	fputs("<th>registers</th><th>spills (bytes)</th><th>shared memory (bytes)</th><th>blocks per SM</th>"
	      "<th>theoretical occupancy (%)</th><th>limited by</th></tr></thead>\n<tbody>\n", f);
	for (size_t i = 0; i < t->nrows && i < TOP_ROWS && !isnan(view_dry_occupancy(v, order[i])); i++) {
		size_t r = order[i];
		fprintf(f, "<tr><td>%zu</td>", i + 1);
		param_cells(f, t, r);
		fputs("<td class=\"num\">", f);
		html_num(f, "%.0f", view_num(v, r, "registers"));
		fputs("</td><td class=\"num\">", f);
		html_num(f, "%.0f", view_num(v, r, "spill_store_bytes") + view_num(v, r, "spill_load_bytes"));
		fputs("</td><td class=\"num\">", f);
		html_num(f, "%.0f", view_smem(v, r));
		fputs("</td><td class=\"num\">", f);
		html_num(f, "%.0f", view_num(v, r, "active_blocks_per_sm"));
		fputs("</td><td class=\"num theoretical\">", f);
		html_num(f, "%.1f", view_dry_occupancy(v, r));
		fputs("</td><td>", f);
		html_esc(f, table_field(t, r, "occupancy_limit"));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n<p class=\"note\">Shared memory per block: static (ptxas) and dynamic (the launch) "
	      "together. Spills: bytes stored and loaded. Tune on a GPU to time them.</p>\n</section>\n",
	      f);
	free(order);
}

char *report_default_path(const char *csv_path) { return run_name(csv_path, RUN_FILE_REPORT); }

int report_write(const char *csv_path, const char *html_path, const char *params, diags *d)
{
	view v;
	if (view_load(csv_path, &v, d))
		return -1;
	int col[2] = {-1, -1};
	if (params ? chart_parse_params(&v.t, params, col, d) : (chart_default_axes(&v.t, col), 0)) {
		view_free(&v);
		return -1;
	}
	char *page = render(&v, col);
	char *path = html_path ? xstrdup(html_path) : report_default_path(csv_path);
	int rc = -1;
	if (same_file(path, csv_path))
		diags_add(d, "cannot write the report to '%s': it is the results CSV it reports on", path);
	else if (!inputs_check_output(v.t.nrows ? table_field(&v.t, 0, "config") : NULL, path, "the report",
				      REPORT_SIGNATURE, d))
		rc = write_output(path, page, strlen(page), d);
	free(path);
	free(page);
	view_free(&v);
	return rc;
}

int cmd_report(const options *o)
{
	diags d = {0};
	int rc = report_write(o->inputs[0], o->output, o->params, &d);
	diags_print(&d);
	diags_free(&d);
	if (rc)
		return EXIT_USAGE;
	if (!o->quiet) {
		char *path = o->output ? xstrdup(o->output) : report_default_path(o->inputs[0]);
		fprintf(stderr, "autotune report: wrote %s\n", path);
		free(path);
	}
	return EXIT_WINNER;
}
