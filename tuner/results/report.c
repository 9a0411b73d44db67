/* report.c: `autotune report`: one HTML file that stands alone (inline SVG and CSS, no script, no
 * fetch) so it can be mailed, attached to CI or opened offline: heat map, scatter plots, the top
 * configurations, failures by status and the run's facts. Everything from the CSV is escaped. */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"
#include "banned.h"

enum { TOP_ROWS = 10, FAILURES_LISTED = 100 };

/* HTML text and attribute values alike: the five characters that can end or open markup. */
static void esc(FILE *f, const char *s)
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

static void num(FILE *f, const char *fmt, double x)
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
	scale s = {lo, hi, 0, p0, p1};
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

static void axis_build(const table *t, int col, axis *a)
{
	size_t cap = 0;
	memset(a, 0, sizeof *a);
	a->numeric = 1;
	for (size_t r = 0; r < t->nrows; r++) {
		const char *x = table_get(t, r, col);
		size_t i = 0;
		while (i < a->n && strcmp(a->vals[i], x))
			i++;
		if (i < a->n)
			continue;
		grow(&a->vals, &cap, a->n + 1, sizeof *a->vals);
		a->vals[a->n++] = xstrdup(x);
		a->numeric &= !isnan(table_num(t, r, col));
	}
	numeric_axis = a->numeric;
	if (a->n)
		qsort(a->vals, a->n, sizeof *a->vals, axis_cmp);
}

static size_t axis_index(const axis *a, const char *x)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->vals[i], x))
			return i;
	return 0;
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

/* Whether b's value follows from a's in every row: then the pair only ever fills a diagonal. */
static int determined_by(const table *t, int a, int b)
{
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t q = 0; q < r; q++)
			if (!strcmp(table_get(t, r, a), table_get(t, q, a)) && strcmp(table_get(t, r, b), table_get(t, q, b)))
				return 0;
	return 1;
}

/* The block shape when both of its sides vary; else the first columns that vary and do not
 * follow from the one already chosen (a BLOCK parameter that is blockDim.x adds nothing). */
static void default_axes(const table *t, int col[2])
{
	int cand[260], nc = 0;
	cand[nc++] = table_col(t, "blockDim.x");
	cand[nc++] = table_col(t, "blockDim.y");
	for (size_t p = 0; p < t->nparams && nc < 258; p++)
		cand[nc++] = (int)p;
	cand[nc++] = table_col(t, "blockDim.z");
	int n = 0;
	for (int i = 0; i < nc && n < 2; i++) {
		if (cand[i] < 0 || !varies(t, cand[i]) || (n == 1 && determined_by(t, col[0], cand[i])))
			continue;
		col[n++] = cand[i];
	}
	/* fewer than two vary: a single row (or cell) still says something */
	for (int i = 0; i < nc && n < 2; i++)
		if (cand[i] >= 0 && (n == 0 || cand[i] != col[0]))
			col[n++] = cand[i];
	if (n < 2) /* a file with blockDim.x alone: one axis twice is still a picture */
		col[1] = col[0];
}

static int parse_params(const table *t, const char *spec, int col[2], diags *d)
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

/* What the heat map colours: a run's times (the smallest best) or, of a dry run, theoretical
 * occupancy (the highest best): the best value brightest either way. */
typedef struct {
	double (*value)(const view *v, size_t row); /* NAN: none (the row failed, or did not compile) */
	int higher_better, allow_log;
	const char *legend;  /* what the colour scale measures */
	const char *title;   /* a cell's tooltip: its value, how many rows had one, of how many */
	const char *none;    /* a cell whose rows have no value */
	const char *none_title; /* its tooltip, with the count */
} heat_metric;

static const heat_metric time_metric = {view_time, 0, 1, "time (ms)", "%.4g ms, the best of %zu passing of %zu (",
					"none passed", "none of %zu passed"};
static const heat_metric dry_metric = {view_dry_occupancy, 1, 0, "theoretical occupancy (%)",
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
	esc(f, t->names[col[0]]);
	fputs(" and ", f);
	esc(f, t->names[col[1]]);
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
	esc(f, t->names[col[0]]);
	fputc('=', f);
	esc(f, gr->ax.n ? gr->ax.vals[xi] : "");
	fputs(", ", f);
	esc(f, t->names[col[1]]);
	fputc('=', f);
	esc(f, gr->ay.n ? gr->ay.vals[yi] : "");
	if (c->best >= 0) {
		char *d = view_describe(v, (size_t)c->best);
		fputs(": ", f);
		fprintf(f, m->title, c->time, c->passed, c->rows);
		esc(f, d);
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
		esc(f, gr->ay.vals[yi]);
		fputs("</text>\n", f);
	}
	for (size_t xi = 0; xi < gr->ax.n; xi += gr->every) {
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", ml + cs * (double)xi + cs / 2,
			mt + gr->gh + 14);
		esc(f, gr->ax.vals[xi]);
		fputs("</text>\n", f);
	}
	fprintf(f, "<text class=\"axis-title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", ml + gr->gw / 2,
		mt + gr->gh + 32);
	esc(f, t->names[col[0]]);
	fprintf(f, "</text>\n<text class=\"axis-title\" transform=\"translate(14 %.1f) rotate(-90)\" "
		   "text-anchor=\"middle\">",
		mt + gr->gh / 2);
	esc(f, t->names[col[1]]);
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
static void heatmap(FILE *f, const view *v, const int col[2], const heat_metric *m)
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

typedef double (*xvalue)(const view *v, size_t row);

static double x_efficiency(const view *v, size_t row) { return view_num(v, row, "gld_efficiency_pct"); }

/* Time against x for every passing row with an x; the count of points drawn. */
static size_t scatter(FILE *f, const view *v, const char *id, const char *xtitle, xvalue xv)
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
	scale sx = {0, xmax, 0, ml, W - mr}, sy = scale_for(lo, hi, 1, H - mb, mt);
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
		esc(f, d);
		fprintf(f, ": %.4g ms, %.3g%%</title></circle>\n", tm, x);
		free(d);
	}
	if (!isnan(wx)) {
		char *d = view_describe(v, (size_t)v->winner);
		fprintf(f, "<circle class=\"point winner\" cx=\"%.1f\" cy=\"%.1f\" r=\"7\"><title>winner: ", wx, wy);
		esc(f, d);
		fprintf(f, ": %.4g ms, %.3g%%</title></circle>\n", view_time(v, (size_t)v->winner), xv(v, (size_t)v->winner));
		/* the label beside the point, turned inward near the edges */
		int left = wx > W / 2;
		fprintf(f, "<text class=\"winner-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">winner: ", wx + (left ? -11 : 11),
			wy < mt + 20 ? wy + 18 : wy - 10, left ? "end" : "start");
		esc(f, d);
		fputs("</text>\n", f);
		free(d);
	}
	fputs("</svg>\n", f);
	return n;
}

/* ---- tables ---- */

static void param_headers(FILE *f, const table *t)
{
	size_t end = t->nparams ? t->nparams : 2;
	for (size_t c = 0; c < end && c < t->ncols; c++) {
		fputs("<th>", f);
		esc(f, t->names[c]);
		fputs("</th>", f);
	}
}

static void param_cells(FILE *f, const table *t, size_t r)
{
	size_t end = t->nparams ? t->nparams : 2;
	for (size_t c = 0; c < end && c < t->ncols; c++) {
		fputs("<td>", f);
		esc(f, table_get(t, r, (int)c));
		fputs("</td>", f);
	}
}

static void top_table(FILE *f, const view *v, const size_t *order)
{
	const table *t = &v->t;
	fputs("<table id=\"top\"><thead><tr><th>#</th>", f);
	param_headers(f, t);
	fputs("<th>time (ms)</th><th>noise (%)</th><th>occupancy (%)</th><th>load efficiency (%)</th>"
	      "<th>GB/s</th><th>status</th></tr></thead>\n<tbody>\n", f);
	for (size_t i = 0; i < t->nrows && i < TOP_ROWS && view_passed(v, order[i]); i++) {
		size_t r = order[i];
		int win = (long long)r == v->winner;
		fprintf(f, "<tr%s><td>%zu%s</td>", win ? " class=\"winner\"" : "", i + 1, win ? " &#9733;" : "");
		param_cells(f, t, r);
		fputs("<td class=\"num\">", f);
		num(f, "%.4g", view_time(v, r));
		fputs("</td><td class=\"num\">", f);
		num(f, "%.2f", view_noise(v, r));
		fprintf(f, "</td><td class=\"num%s\">", view_occupancy_achieved(v, r) ? "" : " theoretical");
		num(f, "%.1f", view_occupancy(v, r));
		fputs("</td><td class=\"num\">", f);
		num(f, "%.1f", view_num(v, r, "gld_efficiency_pct"));
		fputs("</td><td class=\"num\">", f);
		num(f, "%.1f", view_num(v, r, "gbps"));
		fputs("</td><td>", f);
		esc(f, view_status(v, r));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

static void failure_group(FILE *f, const view *v, const char *name, size_t count, int known, status st)
{
	const table *t = &v->t;
	fputs("<div class=\"failure-group\" data-status=\"", f);
	esc(f, name);
	fputs("\"><h3>", f);
	esc(f, name);
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
		esc(f, table_field(t, r, "message"));
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
		esc(f, value);
	else if (column && table_col(&v->t, column) >= 0)
		fprintf(f, "<span class=\"note\">none%s</span>", v->dry ? " (a dry run measures nothing)" : "");
	else
		fputs("<span class=\"note\">not recorded (an older results file)</span>", f);
	fputs("</td></tr>\n", f);
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
	fprintf(f, "<tr><th>configurations</th><td>%zu: ", v->t.nrows);
	const char *sep = "";
	for (int s = 0; s < ST_COUNT_; s++)
		if (v->counts[s]) {
			fprintf(f, "%s<span class=\"status-count\" data-status=\"%s\">%zu %s</span>", sep, status_name((status)s),
				v->counts[s], status_name((status)s));
			sep = ", ";
		}
	if (v->unknown_status)
		fprintf(f, "%s%zu of unknown status", sep, v->unknown_status);
	fputs("</td></tr>\n", f);
	if (v->winner >= 0) {
		size_t w = (size_t)v->winner;
		char *d = view_describe(v, w), *why = view_why(v);
		fputs("<tr class=\"winner\"><th>winner</th><td>", f);
		esc(f, d);
		fprintf(f, ": %.4g ms &plusmn;%.2f%%</td></tr>\n<tr><th>why</th><td>", view_time(v, w), view_noise(v, w));
		esc(f, why);
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
	".count{background:#e8e8ec;border-radius:9px;padding:0 8px;font-weight:500}\n";

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
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>autotune report: ", f);
	esc(f, base);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head><body>\n<h1>autotune report: ", style);
	esc(f, base);
	fputs("</h1>\n<p class=\"lead\">", f);
	char *gpu = view_distinct(v, "gpu");
	fprintf(f, "%zu configurations", t->nrows);
	if (gpu) {
		fputs(" on ", f);
		esc(f, gpu);
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

	fprintf(f, "<section id=\"heatmap-section\"><h2>%s by ", v->dry ? "Theoretical occupancy" : "Time");
	esc(f, t->names[col[0]]);
	fputs(" and ", f);
	esc(f, t->names[col[1]]);
	fprintf(f, "</h2>\n<p class=\"note\">Each cell shows the %s of the configurations that share it; the other "
		   "parameters vary within a cell.</p>\n",
		v->dry ? "highest theoretical occupancy" : "best (smallest) time");
	heatmap(f, v, col, v->dry ? &dry_metric : &time_metric);
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

/* A run's plots of time against occupancy and load efficiency, and its fastest configurations. */
static void run_sections(FILE *f, const view *v)
{
	fputs("<section id=\"scatter\"><h2>Time against occupancy and load efficiency</h2>\n<div class=\"plots\">\n"
	      "<figure><figcaption>Occupancy: achieved where counters were read, else theoretical</figcaption>\n",
	      f);
	if (!scatter(f, v, "scatter-occupancy", "occupancy (%)", view_occupancy))
		fputs("<p class=\"note\">No configuration passed: nothing to plot.</p>\n", f);
	fputs("</figure>\n<figure><figcaption>Global load efficiency (hardware counters)</figcaption>\n", f);
	size_t ne = scatter(f, v, "scatter-efficiency", "global load efficiency (%)", x_efficiency);
	if (!ne)
		fputs("<p class=\"note\" id=\"no-counters\">No hardware counters in these results (run with "
		      "<code>--metrics</code> on a GPU that allows them): load efficiency is unknown.</p>\n",
		      f);
	else if (v->winner >= 0 && isnan(x_efficiency(v, (size_t)v->winner)))
		fputs("<p class=\"note\">The winner has no counters, so it is not on this plot.</p>\n", f);
	fputs("</figure>\n</div></section>\n", f);

	size_t *order = view_by_time(v);
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
		num(f, "%.0f", view_num(v, r, "registers"));
		fputs("</td><td class=\"num\">", f);
		num(f, "%.0f", view_num(v, r, "spill_store_bytes") + view_num(v, r, "spill_load_bytes"));
		fputs("</td><td class=\"num\">", f);
		num(f, "%.0f", view_smem(v, r));
		fputs("</td><td class=\"num\">", f);
		num(f, "%.0f", view_num(v, r, "active_blocks_per_sm"));
		fputs("</td><td class=\"num theoretical\">", f);
		num(f, "%.1f", view_dry_occupancy(v, r));
		fputs("</td><td>", f);
		esc(f, table_field(t, r, "occupancy_limit"));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n<p class=\"note\">Shared memory per block: static (ptxas) and dynamic (the launch) "
	      "together. Spills: bytes stored and loaded. Tune on a GPU to time them.</p>\n</section>\n",
	      f);
	free(order);
}

char *report_default_path(const char *csv_path)
{
	size_t n = strlen(csv_path);
	if (n > 4 && !strcmp(csv_path + n - 4, ".csv"))
		return xasprintf("%.*s.html", (int)(n - 4), csv_path);
	return xasprintf("%s.html", csv_path);
}

int report_write(const char *csv_path, const char *html_path, const char *params, diags *d)
{
	view v;
	if (view_load(csv_path, &v, d))
		return -1;
	int col[2] = {-1, -1};
	if (params ? parse_params(&v.t, params, col, d) : (default_axes(&v.t, col), 0)) {
		view_free(&v);
		return -1;
	}
	char *page = render(&v, col);
	char *path = html_path ? xstrdup(html_path) : report_default_path(csv_path);
	int rc = write_atomically(path, page, strlen(page));
	if (rc)
		diags_add(d, "cannot write '%s': %s", path, strerror(errno));
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
