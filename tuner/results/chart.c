/* chart.c: the report's pictures, drawn as inline SVG: scales with ticks, a colour ramp, the heat
 * map over two parameters and the scatter plots of time against occupancy and load efficiency. */
#include "chart.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

/* HTML text and attribute values alike: the five characters that can end or open markup. */
void html_esc(FILE *f, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
}

void html_num(FILE *f, const char *fmt, double x)
{
	if (isnan(x))
		fputs("&ndash;", f);
	else
		fprintf(f, fmt, x);
}

/* ---- scales and colours ---- */

typedef struct {
	double lo, hi; /* the domain */
	int log;
	double p0, p1; /* the pixels lo and hi map to */
} scale;

static scale scale_for(double lo, double hi, int allow_log, double p0, double p1)
{
	scale s = {.lo = lo, .hi = hi, .p0 = p0, .p1 = p1};
	/* a log axis once the times spread over more than 3x, so the fast cluster is not flattened */
	if (allow_log && lo > 0 && hi / lo > 3) {
		s.log = 1;
		s.lo = lo / 1.08;
		s.hi = hi * 1.08;
	} else if (hi > lo) {
		double pad = (hi - lo) * 0.05;
		s.lo = lo - pad < 0 && lo >= 0 ? 0 : lo - pad;
		s.hi = hi + pad;
	} else {
		s.lo = lo - (lo ? fabs(lo) * 0.1 : 1);
		s.hi = hi + (hi ? fabs(hi) * 0.1 : 1);
	}
	return s;
}

/* The value's place in [0, 1] of the domain. */
static double scale_frac(const scale *s, double x)
{
	if (s->log)
		return (log(x) - log(s->lo)) / (log(s->hi) - log(s->lo));
	return (x - s->lo) / (s->hi - s->lo);
}

static double scale_px(const scale *s, double x) { return s->p0 + (s->p1 - s->p0) * scale_frac(s, x); }

/* Tick values: 1-2-5 steps on a linear axis, 1-2-5 per decade on a log one (every integer
 * mantissa when that gives too few). Returns the count, at most max. */
static int ticks(const scale *s, double *out, int max)
{
	int n = 0;
	if (s->log) {
		static const double m125[] = {1, 2, 5}, m1_9[] = {1, 1.5, 2, 3, 4, 5, 6, 7, 8, 9};
		for (int pass = 0; pass < 2; pass++) {
			const double *m = pass ? m1_9 : m125;
			int nm = pass ? 10 : 3;
			n = 0;
			for (int k = (int)floor(log10(s->lo)); k <= (int)ceil(log10(s->hi)) && n < max; k++)
				for (int i = 0; i < nm && n < max; i++) {
					double v = m[i] * pow(10, k);
					if (v >= s->lo && v <= s->hi)
						out[n++] = v;
				}
			if (n >= 3)
				break;
		}
		return n;
	}
	double raw = (s->hi - s->lo) / 5, mag = pow(10, floor(log10(raw))), step = mag;
	if (raw / mag > 5)
		step = 10 * mag;
	else if (raw / mag > 2)
		step = 5 * mag;
	else if (raw / mag > 1)
		step = 2 * mag;
	for (double v = ceil(s->lo / step) * step; v <= s->hi + step * 1e-9 && n < max; v += step)
		out[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	return n;
}

/* viridis, sampled: perceptually even and readable by the colour blind */
static void colour_at(double f, int rgb[3])
{
	static const int stops[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
	f = f < 0 ? 0 : f > 1 ? 1 : f;
	double x = f * 4;
	int i = (int)x < 4 ? (int)x : 3;
	double u = x - i;
	for (int c = 0; c < 3; c++)
		rgb[c] = (int)lround(stops[i][c] + u * (stops[i + 1][c] - stops[i][c]));
}

/* ---- the heat map ---- */

typedef struct {
	char **vals;
	size_t n;
	int numeric;
} axis;

static int numeric_axis;
static int axis_cmp(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	if (numeric_axis) {
		double u = strtod(x, NULL), v = strtod(y, NULL);
		if (u != v)
			return u < v ? -1 : 1;
	}
	return strcmp(x, y);
}

/* A number as table_num reads one: all of the string. */
static int is_number(const char *s)
{
	char *end;
	strtod(s, &end);
	return end != s && !*end;
}

static int str_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The column's distinct values in axis order: sorted, then deduplicated, so that a file of a
 * million rows costs n log n, not rows times values. */
static void axis_build(const table *t, int col, axis *a)
{
	memset(a, 0, sizeof *a);
	a->numeric = 1;
	const char **all = xcalloc(t->nrows + 1, sizeof *all);
	for (size_t r = 0; r < t->nrows; r++)
		all[r] = table_get(t, r, col);
	qsort(all, t->nrows, sizeof *all, str_cmp);
	a->vals = xcalloc(t->nrows + 1, sizeof *a->vals);
	for (size_t r = 0; r < t->nrows; r++) {
		if (a->n && !strcmp(a->vals[a->n - 1], all[r]))
			continue;
		a->vals[a->n++] = xstrdup(all[r]);
		a->numeric &= is_number(all[r]);
	}
	free(all);
	numeric_axis = a->numeric;
	if (a->n)
		qsort(a->vals, a->n, sizeof *a->vals, axis_cmp);
}

static size_t axis_index(const axis *a, const char *x)
{
	numeric_axis = a->numeric;
	char *const *at = a->n ? bsearch(&x, a->vals, a->n, sizeof *a->vals, axis_cmp) : NULL;
	return at ? (size_t)(at - a->vals) : 0;
}

static void axis_free(axis *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->vals[i]);
	free(a->vals);
}

static int varies(const table *t, int col)
{
	for (size_t r = 1; r < t->nrows; r++)
		if (strcmp(table_get(t, r, col), table_get(t, 0, col)))
			return 1;
	return 0;
}

/* The columns determined_by compares rows on (qsort has no context argument). */
static const table *pair_table;
static int pair_a, pair_b;
static int pair_cmp(const void *x, const void *y)
{
	size_t r = *(const size_t *)x, q = *(const size_t *)y;
	int c = strcmp(table_get(pair_table, r, pair_a), table_get(pair_table, q, pair_a));
	return c ? c : strcmp(table_get(pair_table, r, pair_b), table_get(pair_table, q, pair_b));
}

/* Whether b's value follows from a's in every row: then the pair only ever fills a diagonal.
 * Rows sorted by (a, b): b follows from a when neighbours of one a agree on b. */
static int determined_by(const table *t, int a, int b)
{
	size_t *rows = xcalloc(t->nrows + 1, sizeof *rows);
	for (size_t r = 0; r < t->nrows; r++)
		rows[r] = r;
	pair_table = t;
	pair_a = a;
	pair_b = b;
	qsort(rows, t->nrows, sizeof *rows, pair_cmp);
	int follows = 1;
	for (size_t k = 1; k < t->nrows && follows; k++)
		follows = strcmp(table_get(t, rows[k], a), table_get(t, rows[k - 1], a)) ||
			  !strcmp(table_get(t, rows[k], b), table_get(t, rows[k - 1], b));
	free(rows);
	return follows;
}

/* The share of the variance of log(time) over the passing rows that column c's values explain
 * (between-group over total sum of squares); -1 when the rows say nothing (a dry run, fewer than
 * three timed rows, all times equal). */
static double explained(const table *t, int c)
{
	int st = table_col(t, "status"), tm = table_col(t, "time_ms_median");
	size_t *rows = xcalloc(t->nrows + 1, sizeof *rows), n = 0;
	double sum = 0, total = 0, between = 0;
	for (size_t r = 0; st >= 0 && tm >= 0 && r < t->nrows; r++) {
		double ms = strtod(table_get(t, r, tm), NULL);
		if (!strcmp(table_get(t, r, st), "ok") && ms > 0) {
			rows[n++] = r;
			sum += log(ms);
		}
	}
	double mean = n ? sum / (double)n : 0;
	for (size_t k = 0; k < n; k++) {
		double x = log(strtod(table_get(t, rows[k], tm), NULL)) - mean;
		total += x * x;
	}
	/* rows grouped by c's value: sorted on it (pair_cmp with c twice) */
	pair_table = t;
	pair_a = pair_b = c;
	qsort(rows, n, sizeof *rows, pair_cmp);
	for (size_t k = 0, end; k < n; k = end) {
		double g = 0;
		for (end = k; end < n && !strcmp(table_get(t, rows[end], c), table_get(t, rows[k], c)); end++)
			g += log(strtod(table_get(t, rows[end], tm), NULL));
		g /= (double)(end - k);
		between += (double)(end - k) * (g - mean) * (g - mean);
	}
	free(rows);
	return n >= 3 && total > 0 ? between / total : -1;
}

/* The two columns that explain most of the time's variance (the user's parameters and the block
 * shape), the second not following from the first; without times to tell (a dry run), the block
 * shape when both of its sides vary; else the first columns that vary and do not follow from the
 * one already chosen (a BLOCK parameter that is blockDim.x adds nothing). */
void chart_default_axes(const table *t, int col[2])
{
	int cand[260], nc = 0;
	cand[nc++] = table_col(t, "blockDim.x");
	cand[nc++] = table_col(t, "blockDim.y");
	for (size_t p = 0; p < t->nparams && nc < 258; p++)
		cand[nc++] = (int)p;
	cand[nc++] = table_col(t, "blockDim.z");
	int order[260];
	memcpy(order, cand, sizeof cand);
	/* ranked by what they explain, ties (and a file without times) in the order above */
	double share[260];
	for (int i = 0; i < nc; i++)
		share[i] = cand[i] >= 0 && varies(t, cand[i]) ? explained(t, cand[i]) : -1;
	for (int i = 1; i < nc; i++)
		for (int j = i; j > 0 && share[j] > share[j - 1]; j--) {
			double s = share[j];
			int c = cand[j];
			share[j] = share[j - 1], cand[j] = cand[j - 1];
			share[j - 1] = s, cand[j - 1] = c;
		}
	int n = 0;
	for (int i = 0; i < nc && n < 2; i++) {
		if (cand[i] < 0 || !varies(t, cand[i]) || (n == 1 && determined_by(t, col[0], cand[i])))
			continue;
		col[n++] = cand[i];
	}
	/* fewer than two vary: a single row (or cell) still says something, in the order above */
	for (int i = 0; i < nc && n < 2; i++)
		if (order[i] >= 0 && (n == 0 || order[i] != col[0]))
			col[n++] = order[i];
	if (n < 2) /* a file with blockDim.x alone: one axis twice is still a picture */
		col[1] = col[0];
}

int chart_parse_params(const table *t, const char *spec, int col[2], diags *d)
{
	const char *comma = strchr(spec, ',');
	if (!comma || strchr(comma + 1, ',') || comma == spec || !comma[1]) {
		diags_add(d, "autotune report: --params wants two column names as X,Y, not '%s'", spec);
		return -1;
	}
	char *name[2] = {xasprintf("%.*s", (int)(comma - spec), spec), xstrdup(comma + 1)};
	int rc = 0;
	for (int i = 0; i < 2; i++)
		if ((col[i] = table_col(t, name[i])) < 0) {
			char *list = xstrdup("");
			for (size_t c = 0; c < t->nparams + 3 && c < t->ncols; c++) {
				char *more = xasprintf("%s%s%s", list, c ? ", " : "", t->names[c]);
				free(list);
				list = more;
			}
			diags_add(d, "autotune report: --params: %s has no column '%s'; its parameters and block shape: %s",
				  t->path, name[i], list);
			free(list);
			rc = -1;
		}
	free(name[0]);
	free(name[1]);
	return rc;
}

/* One cell of the grid: the best passing row of those that fall in it. */
typedef struct {
	size_t rows, passed;
	long long best;
	double time;
} cell;


const heat_metric chart_time_metric = {view_time, 0, 1, "time (ms)", "%.4g ms, the best of %zu passing of %zu (",
					"none passed", "none of %zu passed"};
const heat_metric chart_dry_metric = {view_dry_occupancy, 1, 0, "theoretical occupancy (%)",
				       "%.3g%% theoretical occupancy, the highest of %zu that can run of %zu (",
				       "none can run", "none of %zu can run"};

static void fill_rgb(FILE *f, const scale *s, const heat_metric *m, double t, int *dark)
{
	int rgb[3];
	colour_at(m->higher_better ? scale_frac(s, t) : 1 - scale_frac(s, t), rgb); /* the best brightest */
	fprintf(f, "rgb(%d,%d,%d)", rgb[0], rgb[1], rgb[2]);
	*dark = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2] < 140;
}

/* The heat map's cells and where they go on the page. */
typedef struct {
	axis ax, ay;
	size_t nx, ny; /* the cells across and up: at least one each */
	cell *g;       /* row yi, column xi at g[yi * nx + xi] */
	double lo, hi; /* the span of the cells' best values; lo is INFINITY when no cell has one */
	double cs;     /* a cell's side */
	double ml, mt; /* the margins left (room for the y labels) and top */
	double gw, gh; /* the grid's width and height */
	size_t every;  /* an x label on every k-th column */
} grid;

/* Every row into its cell, each cell keeping its best, and the span of those bests. */
static void grid_fill(grid *gr, const view *v, const int col[2], const heat_metric *m)
{
	const table *t = &v->t;
	axis_build(t, col[0], &gr->ax);
	axis_build(t, col[1], &gr->ay);
	size_t nx = gr->ax.n ? gr->ax.n : 1, ny = gr->ay.n ? gr->ay.n : 1;
	cell *g = xcalloc(nx * ny, sizeof *g);
	for (size_t i = 0; i < nx * ny; i++)
		g[i].best = -1;
	for (size_t r = 0; r < t->nrows; r++) {
		size_t xi = axis_index(&gr->ax, table_get(t, r, col[0])), yi = axis_index(&gr->ay, table_get(t, r, col[1]));
		cell *c = &g[yi * nx + xi];
		c->rows++;
		double tm = m->value(v, r);
		if (isnan(tm))
			continue;
		c->passed++;
		if (c->best < 0 || (m->higher_better ? tm > c->time : tm < c->time)) {
			c->best = (long long)r;
			c->time = tm;
		}
	}
	/* the colours span what the cells show (their best), not every row's time */
	double lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < nx * ny; i++)
		if (g[i].best >= 0) {
			lo = g[i].time < lo ? g[i].time : lo;
			hi = g[i].time > hi ? g[i].time : hi;
		}
	gr->nx = nx;
	gr->ny = ny;
	gr->g = g;
	gr->lo = lo;
	gr->hi = hi;
}

static void grid_layout(grid *gr)
{
	/* cells big enough to be read, the grid no wider than the page */
	double cs = fmin(600.0 / (double)gr->nx, 440.0 / (double)gr->ny);
	cs = floor(fmax(12, fmin(56, cs)));
	size_t ylab = 1, xlab = 1;
	for (size_t i = 0; i < gr->ay.n; i++)
		ylab = strlen(gr->ay.vals[i]) > ylab ? strlen(gr->ay.vals[i]) : ylab;
	for (size_t i = 0; i < gr->ax.n; i++)
		xlab = strlen(gr->ax.vals[i]) > xlab ? strlen(gr->ax.vals[i]) : xlab;
	gr->cs = cs;
	gr->ml = 44 + 7.0 * (double)(ylab < 16 ? ylab : 16);
	gr->mt = 12;
	gr->gw = cs * (double)gr->nx;
	gr->gh = cs * (double)gr->ny;
	/* label every k-th column when the labels would collide */
	size_t every = (size_t)ceil((7.0 * (double)xlab + 6) / cs);
	gr->every = every ? every : 1;
}

/* The svg element's opening and what the cells and legend refer to: the hatch of a cell whose
 * rows failed, the gradient of the colour scale. */
static void heat_open(FILE *f, const table *t, const int col[2], const heat_metric *m, const grid *gr)
{
	double W = fmax(gr->ml + gr->gw + 20, 520), H = gr->mt + gr->gh + 110;
	fprintf(f, "<svg id=\"heatmap\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		   "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"best %s per ",
		W, H, W, H, m->legend);
	html_esc(f, t->names[col[0]]);
	fputs(" and ", f);
	html_esc(f, t->names[col[1]]);
	fputs("\">\n<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
	      "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#f3d6d6\"/>"
	      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#c0392b\" stroke-width=\"2\"/></pattern>"
	      "<linearGradient id=\"scale\" x1=\"0\" x2=\"1\" y1=\"0\" y2=\"0\">",
	      f);
	for (int i = 0; i <= 8; i++) {
		int rgb[3];
		colour_at(m->higher_better ? i / 8.0 : 1 - i / 8.0, rgb);
		fprintf(f, "<stop offset=\"%.3f\" stop-color=\"rgb(%d,%d,%d)\"/>", i / 8.0, rgb[0], rgb[1], rgb[2]);
	}
	fputs("</linearGradient></defs>\n", f);
}

/* A cell's tooltip: where it is, then its best value and configuration or why it has none. */
static void cell_title(FILE *f, const view *v, const int col[2], const heat_metric *m, const grid *gr, const cell *c,
		       size_t xi, size_t yi)
{
	const table *t = &v->t;
	html_esc(f, t->names[col[0]]);
	fputc('=', f);
	html_esc(f, gr->ax.n ? gr->ax.vals[xi] : "");
	fputs(", ", f);
	html_esc(f, t->names[col[1]]);
	fputc('=', f);
	html_esc(f, gr->ay.n ? gr->ay.vals[yi] : "");
	if (c->best >= 0) {
		char *d = view_describe(v, (size_t)c->best);
		fputs(": ", f);
		fprintf(f, m->title, c->time, c->passed, c->rows);
		html_esc(f, d);
		fputc(')', f);
		free(d);
	} else if (c->rows) {
		fputs(": ", f);
		fprintf(f, m->none_title, c->rows);
	} else
		fputs(": not in the results", f);
}

/* One cell: its colour or why it has none, its tooltip, its value when there is room, the winner's mark. */
static void heat_cell(FILE *f, const view *v, const int col[2], const heat_metric *m, const grid *gr, const scale *s,
		      size_t xi, size_t yi)
{
	const cell *c = &gr->g[yi * gr->nx + xi];
	double cs = gr->cs;
	/* the smallest y at the bottom, as on any plot */
	double x = gr->ml + cs * (double)xi, y = gr->mt + cs * (double)(gr->ny - 1 - yi);
	int dark = 0;
	if (c->best >= 0) {
		fprintf(f, "<rect class=\"cell\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"",
			x, y, cs - 1, cs - 1);
		fill_rgb(f, s, m, c->time, &dark);
		fputs("\"><title>", f);
	} else
		fprintf(f, "<rect class=\"cell %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"%s><title>",
			c->rows ? "failed" : "empty", x, y, cs - 1, cs - 1,
			c->rows ? " fill=\"url(#hatch)\"" : " fill=\"#fff\" stroke=\"#ddd\"");
	cell_title(f, v, col, m, gr, c, xi, yi);
	fputs("</title></rect>\n", f);
	if (c->best >= 0 && cs >= 34)
		fprintf(f, "<text class=\"cell-label%s\" x=\"%.1f\" y=\"%.1f\">%.3g</text>\n", dark ? " dark" : "",
			x + (cs - 1) / 2, y + (cs - 1) / 2 + 3.5, c->time);
	if (c->best >= 0 && c->best == v->winner)
		fprintf(f, "<rect class=\"winner-mark\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
			x + 1.5, y + 1.5, cs - 4, cs - 4);
}

/* The values along both axes and the two columns' names. */
static void heat_axes(FILE *f, const table *t, const int col[2], const grid *gr)
{
	double cs = gr->cs, ml = gr->ml, mt = gr->mt;
	for (size_t yi = 0; yi < gr->ay.n; yi++) {
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", ml - 6,
			mt + cs * (double)(gr->ny - 1 - yi) + cs / 2 + 3.5);
		html_esc(f, gr->ay.vals[yi]);
		fputs("</text>\n", f);
	}
	for (size_t xi = 0; xi < gr->ax.n; xi += gr->every) {
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", ml + cs * (double)xi + cs / 2,
			mt + gr->gh + 14);
		html_esc(f, gr->ax.vals[xi]);
		fputs("</text>\n", f);
	}
	fprintf(f, "<text class=\"axis-title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", ml + gr->gw / 2,
		mt + gr->gh + 32);
	html_esc(f, t->names[col[0]]);
	fprintf(f, "</text>\n<text class=\"axis-title\" transform=\"translate(14 %.1f) rotate(-90)\" "
		   "text-anchor=\"middle\">",
		mt + gr->gh / 2);
	html_esc(f, t->names[col[1]]);
	fputs("</text>\n", f);
}

/* The legend: the colour scale, then what the two kinds of blank cell mean and the winner's mark. */
static void heat_legend(FILE *f, const heat_metric *m, const grid *gr, const scale *s)
{
	double ml = gr->ml, ly = gr->mt + gr->gh + 52;
	fprintf(f, "<g id=\"heatmap-legend\"><text class=\"tick\" x=\"%.1f\" y=\"%.1f\">%s%s, best per cell</text>\n",
		ml, ly, m->legend, s->log ? ", log scale" : "");
	if (isfinite(gr->lo)) {
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"240\" height=\"12\" fill=\"url(#scale)\"/>\n", ml, ly + 6);
		scale ls = *s;
		ls.p0 = ml;
		ls.p1 = ml + 240;
		double tv[12];
		int nt = ticks(&ls, tv, 12);
		if (nt < 2) {
			tv[0] = s->lo;
			tv[1] = s->hi;
			nt = 2;
		}
		double last = -1e9;
		for (int i = 0; i < nt; i++) {
			double x = scale_px(&ls, tv[i]);
			if (x - last < 26) /* labels that would touch: every other one is enough */
				continue;
			last = x;
			fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>"
				   "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.3g</text>\n",
				x, x, ly + 18, ly + 22, x, ly + 34, tv[i]);
		}
	} else
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">no configuration: %s</text>\n", ml, ly + 18, m->none);
	double sx = ml + 270;
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"url(#hatch)\"/>"
		   "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">%s</text>\n"
		   "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"#fff\" stroke=\"#bbb\"/>"
		   "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">not in the results</text>\n"
		   "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"none\" stroke=\"#e4002b\" stroke-width=\"2.5\"/>"
		   "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">winner</text></g>\n",
		sx, ly + 6, sx + 16, ly + 16, m->none, sx, ly + 24, sx + 16, ly + 34, sx + 110, ly + 6, sx + 126, ly + 16);
}

/* The best value per pair of the two columns' values, as a grid of coloured cells. */
void chart_heatmap(FILE *f, const view *v, const int col[2], const heat_metric *m)
{
	grid gr;
	grid_fill(&gr, v, col, m);
	grid_layout(&gr);
	heat_open(f, &v->t, col, m, &gr);
	scale s = scale_for(gr.lo, gr.hi, m->allow_log, 0, 1);
	if (isfinite(gr.lo)) { /* the colour scale spans exactly the measured times */
		s.lo = gr.lo;
		s.hi = gr.hi > gr.lo ? gr.hi : gr.lo * 1.0001 + 1e-12;
	}
	for (size_t yi = 0; yi < gr.ny; yi++)
		for (size_t xi = 0; xi < gr.nx; xi++)
			heat_cell(f, v, col, m, &gr, &s, xi, yi);
	heat_axes(f, &v->t, col, &gr);
	heat_legend(f, m, &gr, &s);
	fputs("</svg>\n", f);
	free(gr.g);
	axis_free(&gr.ax);
	axis_free(&gr.ay);
}

/* ---- scatter plots ---- */


double chart_x_efficiency(const view *v, size_t row) { return view_num(v, row, "gld_efficiency_pct"); }

/* Time against x for every passing row with an x; the count of points drawn. */
size_t chart_scatter(FILE *f, const view *v, const char *id, const char *xtitle, xvalue xv)
{
	const table *t = &v->t;
	double W = 580, H = 400, ml = 64, mr = 18, mt = 16, mb = 50;
	double lo = INFINITY, hi = -INFINITY, xmax = 100;
	size_t n = 0;
	for (size_t r = 0; r < t->nrows; r++) {
		double tm = view_time(v, r), x = xv(v, r);
		if (isnan(tm) || isnan(x))
			continue;
		n++;
		lo = tm < lo ? tm : lo;
		hi = tm > hi ? tm : hi;
		xmax = x > xmax ? x : xmax;
	}
	if (!n)
		return 0;
	scale sx = {.lo = 0, .hi = xmax, .p0 = ml, .p1 = W - mr}, sy = scale_for(lo, hi, 1, H - mb, mt);
	fprintf(f, "<svg id=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		   "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"time against %s\">\n",
		id, W, H, W, H, xtitle);
	fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"#fafafa\" stroke=\"#ccc\"/>\n", ml, mt,
		W - ml - mr, H - mt - mb);
	double tv[24];
	int nt = ticks(&sy, tv, 24);
	for (int i = 0; i < nt; i++) {
		double y = scale_px(&sy, tv[i]);
		fprintf(f, "<line class=\"grid\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			   "<text class=\"tick\" x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.3g</text>\n",
			ml, W - mr, y, y, ml - 5, y + 3.5, tv[i]);
	}
	nt = ticks(&sx, tv, 24);
	for (int i = 0; i < nt; i++) {
		double x = scale_px(&sx, tv[i]);
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\"/>"
			   "<text class=\"tick\" x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.3g</text>\n",
			x, x, mt, H - mb, x, H - mb + 15, tv[i]);
	}
	fprintf(f, "<text class=\"axis-title\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n", (ml + W - mr) / 2,
		H - 14, xtitle);
	fprintf(f, "<text class=\"axis-title\" transform=\"translate(16 %.0f) rotate(-90)\" text-anchor=\"middle\">"
		   "time (ms)%s</text>\n",
		(mt + H - mb) / 2, sy.log ? ", log scale" : "");
	double wx = NAN, wy = NAN;
	for (size_t r = 0; r < t->nrows; r++) {
		double tm = view_time(v, r), x = xv(v, r);
		if (isnan(tm) || isnan(x))
			continue;
		double cx = scale_px(&sx, x), cy = scale_px(&sy, tm);
		if ((long long)r == v->winner) { /* drawn last, on top */
			wx = cx;
			wy = cy;
			continue;
		}
		char *d = view_describe(v, r);
		fprintf(f, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"><title>", cx, cy);
		html_esc(f, d);
		fprintf(f, ": %.4g ms, %.3g%%</title></circle>\n", tm, x);
		free(d);
	}
	if (!isnan(wx)) {
		char *d = view_describe(v, (size_t)v->winner);
		fprintf(f, "<circle class=\"point winner\" cx=\"%.1f\" cy=\"%.1f\" r=\"7\"><title>winner: ", wx, wy);
		html_esc(f, d);
		fprintf(f, ": %.4g ms, %.3g%%</title></circle>\n", view_time(v, (size_t)v->winner), xv(v, (size_t)v->winner));
		/* the label beside the point, turned inward near the edges */
		int left = wx > W / 2;
		fprintf(f, "<text class=\"winner-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">winner: ", wx + (left ? -11 : 11),
			wy < mt + 20 ? wy + 18 : wy - 10, left ? "end" : "start");
		html_esc(f, d);
		fputs("</text>\n", f);
		free(d);
	}
	fputs("</svg>\n", f);
	return n;
}

