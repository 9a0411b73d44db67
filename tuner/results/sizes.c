/* sizes.c: the instance as a dimension of the report and of `show`. Per instance: its winner, the
 * winner's time, and the loss of running another instance's winner there (its time at this
 * instance over this instance's own winner's). The plot puts each winner's time against the
 * problem size (the product of the instance's constants), both in log scale, labelled with the
 * configuration that won: where the label changes, the best configuration changed with size. */
#include "sizes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "banned.h"

double sizes_cross_time(const view *v, const instance_view *iv, size_t i, size_t j)
{
	if (iv->winner[j] < 0)
		return NAN;
	const table *t = &v->t;
	size_t w = (size_t)iv->winner[j];
	for (size_t r = 0; r < t->nrows; r++) {
		if (instance_of_row(iv, t, r) != (long)i)
			continue;
		size_t p = 0;
		while (p < t->nparams && !strcmp(table_get(t, r, (int)p), table_get(t, w, (int)p)))
			p++;
		if (p == t->nparams)
			return view_time(v, r);
	}
	return NAN;
}

/* "block_x=32 block_y=8" of row r. Caller frees. */
static char *config_text(const table *t, size_t r)
{
	char *out = xstrdup("");
	for (size_t p = 0; p < t->nparams; p++) {
		char *m = xasprintf("%s%s%s=%s", out, p ? " " : "", t->names[p], table_get(t, r, (int)p));
		free(out);
		out = m;
	}
	return out;
}

static double size_of(const instance_view *iv, size_t i)
{
	double s = 1;
	for (size_t k = 0; k < iv->nnames; k++)
		s *= iv->vals[i * iv->nnames + k];
	return s;
}

/* The plot: x log2 of the size, y log of the time; a point and a label per instance with a winner. */
static void plot(FILE *f, const view *v, const instance_view *iv)
{
	double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
	for (size_t i = 0; i < iv->ninst; i++)
		if (iv->winner[i] >= 0) {
			double x = log2(size_of(iv, i)), y = log10(view_time(v, (size_t)iv->winner[i]));
			x0 = fmin(x0, x), x1 = fmax(x1, x), y0 = fmin(y0, y), y1 = fmax(y1, y);
		}
	if (!(x1 >= x0) || !(y1 >= y0) || !isfinite(y0 + y1))
		return;
	double W = 640, H = 300, L = 70, R = 180, T = 20, B = 50;
	double sx = x1 > x0 ? (W - L - R) / (x1 - x0) : 0, sy = y1 > y0 ? (H - T - B) / (y1 - y0) : 0;
	fprintf(f, "<svg id=\"sizes-plot\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n"
		   "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#888\"/>\n"
		   "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#888\"/>\n"
		   "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">problem size (product of the instance's constants, "
		   "log scale)</text>\n<text x=\"14\" y=\"%.0f\" transform=\"rotate(-90 14 %.0f)\" text-anchor=\"middle\">"
		   "winner's time (ms, log scale)</text>\n",
		W, H, W, H, L, H - B, W - R, H - B, L, T, L, H - B, (L + W - R) / 2, H - 12, (T + H - B) / 2,
		(T + H - B) / 2);
	double px = 0, py = 0;
	int first = 1;
	for (size_t i = 0; i < iv->ninst; i++) {
		if (iv->winner[i] < 0)
			continue;
		size_t w = (size_t)iv->winner[i];
		double t = view_time(v, w), x = L + (log2(size_of(iv, i)) - x0) * sx,
		       y = H - B - (log10(t) - y0) * sy - (sy ? 0 : (H - T - B) / 2);
		if (!first)
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#36c\"/>\n", px, py, x, y);
		char *label = instance_view_label(iv, i), *cfg = config_text(&v->t, w);
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#36c\"><title>", x, y);
		html_esc(f, label);
		fprintf(f, ": %.4f ms, ", t);
		html_esc(f, cfg);
		fprintf(f, "</title></circle>\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", x + 6, y - 6);
		html_esc(f, cfg);
		fprintf(f, "</text>\n<text x=\"%.1f\" y=\"%.0f\" font-size=\"11\" text-anchor=\"middle\">", x, H - B + 16);
		html_esc(f, label);
		fputs("</text>\n", f);
		free(label);
		free(cfg);
		px = x, py = y, first = 0;
	}
	fputs("</svg>\n", f);
}

/* The instances of v's results: 0, or -1 for results of one problem (or unreadable ones: the rest
 * of the report and show say so). */
static int instances_of(const view *v, instance_view *iv)
{
	diags quiet = {0};
	int rc = instance_view_of(&v->t, iv, &quiet);
	diags_free(&quiet);
	if (rc == 0 && iv->col < 0)
		instance_view_free(iv);
	return rc || iv->col < 0 ? -1 : 0;
}

int sizes_facts(FILE *f, const view *v)
{
	instance_view iv;
	if (instances_of(v, &iv))
		return 0;
	fprintf(f, "<tr class=\"winner\"><th>winners</th><td>one per problem size, each chosen among its own size's "
		   "configurations alone (the run's %s policy): ", policy_names[v->policy.kind]);
	for (size_t i = 0; i < iv.ninst; i++) {
		char *label = instance_view_label(&iv, i);
		html_esc(f, label);
		free(label);
		if (iv.winner[i] >= 0) {
			char *d = view_describe(v, (size_t)iv.winner[i]);
			fputs(": ", f);
			html_esc(f, d);
			fprintf(f, " (%.4g ms)", view_time(v, (size_t)iv.winner[i]));
			free(d);
		} else
			fputs(": none passed", f);
		fputs(i + 1 < iv.ninst ? "; " : "", f);
	}
	fputs("</td></tr>\n", f);
	instance_view_free(&iv);
	return 1;
}

void sizes_report(FILE *f, const view *v)
{
	instance_view iv;
	if (instances_of(v, &iv))
		return;
	fputs("<section id=\"sizes\"><h2>Problem sizes</h2>\n<p class=\"note\">Each instance's winner against its "
	      "size; where the label changes, the best configuration changed with the size.</p>\n",
	      f);
	plot(f, v, &iv);
	fputs("<table id=\"sizes-loss\"><caption>The time of each instance (row) with another instance's winner "
	      "(column), over its own winner's: what tuning one size only would cost</caption>\n<tr><th>instance</th>"
	      "<th>winner</th><th>ms</th>",
	      f);
	for (size_t j = 0; j < iv.ninst; j++) {
		char *label = instance_view_label(&iv, j);
		fputs("<th>with ", f);
		html_esc(f, label);
		fputs("'s winner</th>", f);
		free(label);
	}
	fputs("</tr>\n", f);
	for (size_t i = 0; i < iv.ninst; i++) {
		char *label = instance_view_label(&iv, i), *cfg = iv.winner[i] >= 0 ? config_text(&v->t, (size_t)iv.winner[i]) : NULL;
		fputs("<tr><td>", f);
		html_esc(f, label);
		fputs("</td><td>", f);
		html_esc(f, cfg ? cfg : "none passed");
		fputs("</td><td>", f);
		html_num(f, "%.4f", iv.winner[i] >= 0 ? view_time(v, (size_t)iv.winner[i]) : NAN);
		fputs("</td>", f);
		double own = iv.winner[i] >= 0 ? view_time(v, (size_t)iv.winner[i]) : NAN;
		for (size_t j = 0; j < iv.ninst; j++) {
			double x = sizes_cross_time(v, &iv, i, j);
			fputs("<td>", f);
			html_num(f, "%+.1f%%", 100 * (x / own - 1));
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
		free(label);
		free(cfg);
	}
	fputs("</table>\n<p class=\"note\">A dash: that winner was not measured at this instance, or failed there "
	      "(a search under a budget measures a part of each).</p>\n</section>\n",
	      f);
	instance_view_free(&iv);
}

void sizes_show(FILE *out, const view *v)
{
	instance_view iv;
	if (instances_of(v, &iv))
		return;
	/* the largest instance: the one tuned for when only one size is */
	size_t big = 0;
	for (size_t i = 1; i < iv.ninst; i++)
		if (size_of(&iv, i) > size_of(&iv, big))
			big = i;
	char *big_label = instance_view_label(&iv, big);
	fprintf(out, "\nper instance: its winner, and its time with %s's winner:\n", big_label);
	for (size_t i = 0; i < iv.ninst; i++) {
		char *label = instance_view_label(&iv, i);
		if (iv.winner[i] < 0) {
			int passed = 0;
			for (size_t r = 0; r < v->t.nrows && !passed; r++)
				passed = instance_of_row(&iv, &v->t, r) == (long)i && view_passed(v, r);
			fprintf(out, "  %s: %s\n", label, passed ? "no winner flagged in the file" : "none passed");
			free(label);
			continue;
		}
		char *cfg = config_text(&v->t, (size_t)iv.winner[i]);
		double own = view_time(v, (size_t)iv.winner[i]), other = sizes_cross_time(v, &iv, i, big);
		fprintf(out, "  %s: %s: %.4f ms", label, cfg, own);
		if (i == big)
			fputs(" (the largest)\n", out);
		else if (isnan(other))
			fputs("; the largest's winner: not measured here\n", out);
		else
			fprintf(out, "; the largest's winner: %.4f ms (%+.1f%%)\n", other, 100 * (other / own - 1));
		free(label);
		free(cfg);
	}
	free(big_label);
	instance_view_free(&iv);
}
