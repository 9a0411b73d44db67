/* bought.c: the report's answer to "what did tuning buy?". A run flags the baseline row of each
 * instance in the CSV (output.c), so the report needs the results file alone. A baseline that did
 * not pass, or was not measured (a search), is said as such rather than left out silently. */
#include "bought.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "cli.h"
#include "selector.h"
#include "banned.h"

/* The row flagged baseline in instance i (-1: any row of a file of one problem); -1 when none. */
static long long baseline_row(const view *v, const instance_view *iv, long i)
{
	const table *t = &v->t;
	for (size_t r = 0; r < t->nrows; r++)
		if ((i < 0 || instance_of_row(iv, t, r) == i) && view_passed(v, r) &&
		    strstr(table_field(t, r, "flags"), "baseline"))
			return (long long)r;
	return -1;
}

static void config_cell(FILE *f, const view *v, long long r)
{
	char *d = view_describe(v, (size_t)r);
	fputs("<td>", f);
	html_esc(f, d);
	fputs("</td><td class=\"num\">", f);
	html_num(f, "%.4g", view_time(v, (size_t)r));
	fputs("</td>", f);
	free(d);
}

/* One problem's row: the winner, the baseline, the speedup and time saved, the winner's resources
 * and recipe. Returns the speedup, NAN when there is none to give. */
static double bought_row(FILE *f, const view *v, long long w, long long b, const char *label)
{
	double speedup = NAN;
	fputs("<tr", f);
	if (label) {
		fputs(" data-instance=\"", f);
		html_esc(f, label);
		fputs("\"><th>", f);
		html_esc(f, label);
		fputs("</th>", f);
	} else
		fputc('>', f);
	if (w < 0) {
		fputs("<td colspan=\"10\" class=\"note\">no configuration passed</td></tr>\n", f);
		return NAN;
	}
	config_cell(f, v, w);
	if (b < 0)
		fputs("<td colspan=\"4\" class=\"note\">no baseline measured and passed</td>", f);
	else {
		/* by select.objective where the run had one: a launch that does more may take longer */
		double tw = view_time(v, (size_t)w), tb = view_time(v, (size_t)b);
		speedup = view_rank(v, (size_t)b) / view_rank(v, (size_t)w);
		config_cell(f, v, b);
		fputs("<td class=\"num speedup\">", f);
		html_num(f, "%.2f", speedup);
		fputs("&times;</td><td class=\"num saved\">", f);
		html_num(f, "%.4g", tb - tw);
		fputs(" ms (", f);
		html_num(f, "%.1f", 100 * (tb - tw) / tb);
		fputs("%)</td>", f);
	}
	const char *lim = table_field(&v->t, (size_t)w, "occupancy_limit");
	fputs("<td class=\"num\">", f);
	html_num(f, "%.0f", view_num(v, (size_t)w, "registers"));
	fputs("</td><td class=\"num\">", f);
	html_num(f, "%.0f", view_num(v, (size_t)w, "spill_store_bytes") + view_num(v, (size_t)w, "spill_load_bytes"));
	fputs("</td><td class=\"num\">", f);
	html_num(f, "%.1f", view_occupancy(v, (size_t)w));
	fputs("</td><td>", f);
	html_esc(f, lim);
	if (table_col(&v->t, "nvcc_flags") < 0)
		fputs("</td><td class=\"recipe\"><span class=\"note\">not recorded (an older results file)</span></td></tr>\n", f);
	else {
		fputs("</td><td class=\"recipe\"><code>", f);
		html_esc(f, table_field(&v->t, (size_t)w, "nvcc_flags"));
		fputs("</code></td></tr>\n", f);
	}
	return speedup;
}

void bought_report(FILE *f, const view *v)
{
	instance_view iv = {.col = -1};
	diags d = {0};
	if (instance_view_of(&v->t, &iv, &d))
		iv.col = -1; /* the sizes section says what is wrong with the instances */
	diags_free(&d);
	size_t n = iv.col >= 0 ? iv.ninst : 1, with = 0;
	double lo = INFINITY, hi = -INFINITY;
	char *rows = NULL;
	size_t len = 0;
	FILE *body = open_memstream(&rows, &len);
	if (!body) {
		fputs("autotune: out of memory\n", stderr);
		exit(EXIT_ENV);
	}
	for (size_t i = 0; i < n; i++) {
		long inst = iv.col >= 0 ? (long)i : -1;
		char *label = iv.col >= 0 ? instance_view_label(&iv, i) : NULL;
		long long w = iv.col >= 0 ? iv.winner[i] : v->winner;
		double s = bought_row(body, v, w, baseline_row(v, &iv, inst), label);
		if (!isnan(s)) {
			with++;
			lo = fmin(lo, s);
			hi = fmax(hi, s);
		}
		free(label);
	}
	fclose(body);

	fputs("<section id=\"bought\"><h2>What tuning bought</h2>\n<p class=\"bought-lead\" id=\"bought-lead\">", f);
	if (!with)
		fputs("No baseline to compare with: name the configuration you ship with <code>select.baseline</code> "
		      "(else the named <code>verify.reference</code> is the baseline) and tune again.", f);
	else {
		fputs("The winner is <strong>", f);
		html_num(f, "%.2f", lo);
		if (hi > lo) {
			fputs("&times;&ndash;", f);
			html_num(f, "%.2f", hi);
		}
		if (*v->policy.objective) {
			fprintf(f, "&times;</strong> as good as the baseline by the objective (%s ",
				v->policy.maximize ? "maximize" : "minimize");
			html_esc(f, v->policy.objective);
			fputs(n > 1 ? ")" : ").", f);
		} else
			fprintf(f, "&times;</strong> as fast as the baseline%s", n > 1 ? "" : ".");
		if (n > 1)
			fprintf(f, " over %zu of the %zu problem sizes.", with, n);
	}
	fputs("</p>\n<table id=\"bought-table\"><thead><tr>", f);
	if (iv.col >= 0)
		fputs("<th>problem size</th>", f);
	fputs(*v->policy.objective ? "<th>winner</th><th>time (ms)</th><th>baseline</th><th>time (ms)</th><th>gain by the "
				     "objective</th><th>saved per launch</th>"
				   : "<th>winner</th><th>time (ms)</th><th>baseline</th><th>time (ms)</th><th>speedup</th>"
				     "<th>saved per launch</th>",
	      f);
	fputs("<th>registers</th><th>spills (bytes)</th><th>occupancy (%)</th>"
	      "<th>limited by</th><th>recipe (NAME_NVCC_FLAGS)</th></tr></thead>\n<tbody>\n", f);
	fputs(rows, f);
	fputs("</tbody></table>\n<p class=\"note\">The baseline: the configuration <code>select.baseline</code> names, "
	      "else the named <code>verify.reference</code>. The recipe: the flags the winner was compiled with, "
	      "as the tuned header's NAME_NVCC_FLAGS.</p>\n</section>\n",
	      f);
	free(rows);
	instance_view_free(&iv);
}
