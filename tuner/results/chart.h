/* chart.h: the report's drawing (report.c's only): HTML escaping and numbers, the heat map and
 * the scatter plots, as inline SVG. */
#ifndef AUTOTUNE_CHART_H
#define AUTOTUNE_CHART_H

#include <stdio.h>

#include "diag.h"
#include "view.h"

/* HTML text and attribute values alike: the five characters that can end or open markup. */
void html_esc(FILE *f, const char *s);
/* A number in fmt, or a dash (&ndash;) for NaN: a table cell that says "none", not a blank. */
void html_num(FILE *f, const char *fmt, double x);

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
extern const heat_metric chart_time_metric, chart_dry_metric;
/* The heat map over parameters col[0] x col[1]: each cell the best of its rows. */
void chart_heatmap(FILE *f, const view *v, const int col[2], const heat_metric *m);
/* The heat map's axes: the two parameters that vary most, or those --params names (-1 and d). */
void chart_default_axes(const table *t, int col[2]);
int chart_parse_params(const table *t, const char *spec, int col[2], diags *d);

typedef double (*xvalue)(const view *v, size_t row);
double chart_x_efficiency(const view *v, size_t row);
/* Time against x for every passing row with an x; the count of points drawn. */
size_t chart_scatter(FILE *f, const view *v, const char *id, const char *xtitle, xvalue xv);

#endif
