/* test_chart.c: the report's pictures (chart.c): one heat-map cell per pair of the two axes' values,
 * each the best of its rows and the best cell brightest whether lower or higher is better; the
 * axes chosen (the block shape, else what varies and does not follow from the other) or named
 * with --params; scatter points for the passing rows, the winner apart; and HTML escaping. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chart.h"
#include "proc.h"
#include "report.h"
#include "tests.h"

static void test_one_cell_per_parameter_pair(void)
{
	char *html = report_of(crafted_csv, NULL);
	char *map = between(html, "<svg id=\"heatmap\"", "</svg>");
	CU_ASSERT_EQUAL(occurrences(map, "<rect class=\"cell"), 6);
	CU_ASSERT_EQUAL(occurrences(map, "<rect class=\"cell\""), 3);
	CU_ASSERT_EQUAL(occurrences(map, "<rect class=\"cell failed\""), 2);
	CU_ASSERT_EQUAL(occurrences(map, "<rect class=\"cell empty\""), 1);
	/* two rows share (32,1): the cell shows the better of 2.0 and 1.5 */
	CU_ASSERT_PTR_NOT_NULL(strstr(map, "blockDim.x=32, blockDim.y=1: 1.5 ms, the best of 2 passing of 2"));
	CU_ASSERT_PTR_NOT_NULL(strstr(map, "blockDim.x=64, blockDim.y=2: none of 2 passed"));
	CU_ASSERT_PTR_NOT_NULL(strstr(map, "id=\"heatmap-legend\""));
	CU_ASSERT_EQUAL(occurrences(map, "class=\"winner-mark\""), 1);
	free(map);
	free(html);
}

static void test_params_pick_the_axes(void)
{
	char *html = report_of(crafted_csv, "variant,blockDim.x");
	char *map = between(html, "<svg id=\"heatmap\"", "</svg>");
	CU_ASSERT_EQUAL(occurrences(map, "<rect class=\"cell"), 4); /* a, b by 32, 64 */
	/* variant b at 64 only ever failed to compile */
	CU_ASSERT_PTR_NOT_NULL(strstr(map, "variant=b, blockDim.x=64: none of 1 passed"));
	CU_ASSERT_PTR_NOT_NULL(strstr(map, "variant=a, blockDim.x=32: 1.2 ms"));
	free(map);
	free(html);

	const char *in = write_temp(1, "report.csv", crafted_csv), *out = write_temp(2, "report.html", "");
	static const char *const bad[] = {"nope,blockDim.x", "variant", "a,b,c", ",variant"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		diags d = {0};
		CU_ASSERT_EQUAL(report_write(in, out, bad[i], &d), -1);
		CU_ASSERT_EQUAL(d.n, 1);
		if (i == 0 && d.n)
			CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "'nope'"));
		diags_free(&d);
	}
}

/* What f wrote, closed; caller frees. */
static char *drawn(FILE *f, char **buf)
{
	fclose(f);
	return *buf;
}

static void test_html_escaping(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	html_esc(f, "<a href=\"x\" title='y'>Tom & Jerry</a>");
	html_esc(f, NULL); /* nothing */
	fputc('|', f);
	html_num(f, "%.2f", 1.5);
	fputc('|', f);
	html_num(f, "%.2f", NAN);
	char *s = drawn(f, &buf);
	CU_ASSERT_STRING_EQUAL(s, "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;Tom &amp; Jerry&lt;/a&gt;|1.50|&ndash;");
	free(s);
}

static view load(const char *csv)
{
	view v;
	diags d = {0};
	int rc = view_load(write_temp(3, "chart.csv", csv), &v, &d);
	CU_ASSERT_EQUAL(rc, 0);
	diags_free(&d);
	return v;
}

/* The fill of the cell whose tooltip starts with title ("" when none; static storage). */
static const char *fill_of(const char *svg, const char *title)
{
	static char fill[64];
	fill[0] = 0;
	const char *t = strstr(svg, title);
	if (!t)
		return fill;
	const char *rect = t;
	while (rect > svg && strncmp(rect, "<rect", 5))
		rect--;
	const char *at = strstr(rect, "fill=\"");
	if (at && at < t)
		sscanf(at + 6, "%63[^\"]", fill);
	return fill;
}

/* viridis' ends: the best cell brightest, the worst darkest, whichever way is better. */
#define BRIGHTEST "rgb(253,231,37)"
#define DARKEST "rgb(68,1,84)"

static void test_the_best_cell_is_brightest_either_way(void)
{
	view v = load("x,blockDim.x,blockDim.y,theoretical_occupancy,time_ms_median,samples,registers,status\n"
		      "1,32,1,1.0,1.0,10,32,ok\n"
		      "2,32,1,0.5,4.0,10,32,ok\n");
	int col[2] = {table_col(&v.t, "x"), table_col(&v.t, "blockDim.x")};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	chart_heatmap(f, &v, col, &chart_time_metric);
	char *svg = drawn(f, &buf);
	CU_ASSERT_STRING_EQUAL(fill_of(svg, "<title>x=1, blockDim.x=32: 1 ms"), BRIGHTEST);
	CU_ASSERT_STRING_EQUAL(fill_of(svg, "<title>x=2, blockDim.x=32: 4 ms"), DARKEST);
	free(svg);
	view_free(&v);
	/* a dry run colours theoretical occupancy: the highest brightest */
	v = load("x,blockDim.x,theoretical_occupancy,registers,status\n1,32,1.0,32,not-run\n2,32,0.5,32,not-run\n");
	col[0] = table_col(&v.t, "x");
	col[1] = table_col(&v.t, "blockDim.x");
	buf = NULL;
	f = open_memstream(&buf, &len);
	chart_heatmap(f, &v, col, &chart_dry_metric);
	svg = drawn(f, &buf);
	CU_ASSERT_STRING_EQUAL(fill_of(svg, "<title>x=1, blockDim.x=32: 100% theoretical"), BRIGHTEST);
	CU_ASSERT_STRING_EQUAL(fill_of(svg, "<title>x=2, blockDim.x=32: 50% theoretical"), DARKEST);
	free(svg);
	view_free(&v);
}

/* The default axes: without times, the block shape when both sides vary; else the columns that
 * vary, skipping one whose value follows from the first (a BLOCK that is blockDim.x); with times,
 * the two columns that explain most of them. */
static void test_the_default_axes(void)
{
	view v = load("BLOCK,V,W,blockDim.x,blockDim.y,status\n"
		      "32,1,7,32,1,ok\n64,1,7,64,1,ok\n32,2,7,32,1,ok\n64,2,7,64,1,ok\n");
	int col[2];
	chart_default_axes(&v.t, col);
	CU_ASSERT_STRING_EQUAL(v.t.names[col[0]], "blockDim.x");
	CU_ASSERT_STRING_EQUAL(v.t.names[col[1]], "V"); /* not BLOCK (blockDim.x again), not W (constant) */
	view_free(&v);
	v = load("V,blockDim.x,blockDim.y,status\n1,32,1,ok\n1,32,2,ok\n1,64,1,ok\n2,64,2,ok\n");
	chart_default_axes(&v.t, col);
	CU_ASSERT_STRING_EQUAL(v.t.names[col[0]], "blockDim.x");
	CU_ASSERT_STRING_EQUAL(v.t.names[col[1]], "blockDim.y");
	view_free(&v);
	/* with times: the two that explain most of them, whatever the block shape does (here W, then
	 * V; blockDim.x changes little) */
	v = load("V,W,blockDim.x,blockDim.y,status,time_ms_median\n"
		 "1,1,32,1,ok,1.0\n1,2,64,1,ok,4.1\n2,1,32,1,ok,1.5\n2,2,64,1,ok,6.0\n"
		 "1,1,64,1,ok,1.02\n1,2,32,1,ok,4.0\n2,1,64,1,ok,1.52\n2,2,32,1,ok,6.1\n");
	chart_default_axes(&v.t, col);
	CU_ASSERT_STRING_EQUAL(v.t.names[col[0]], "W");
	CU_ASSERT_STRING_EQUAL(v.t.names[col[1]], "V");
	view_free(&v);
	/* one row: still two axes of the file's columns */
	v = load("blockDim.x,status\n32,ok\n");
	chart_default_axes(&v.t, col);
	CU_ASSERT(col[0] >= 0 && col[1] >= 0);
	view_free(&v);
}

/* Scatter points: each passing row with an x, the winner once and apart; none, nothing drawn. */
static void test_scatter_points(void)
{
	view v = load("x,blockDim.x,theoretical_occupancy,time_ms_median,samples,gld_efficiency_pct,flags,status\n"
		      "1,32,1.0,1.0,10,90,winner,ok\n2,64,1.0,2.0,10,,,ok\n3,96,1.0,3.0,10,80,,ok\n4,128,1.0,,,70,,crashed\n");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	size_t n = chart_scatter(f, &v, "s", "load efficiency (%)", chart_x_efficiency);
	char *svg = drawn(f, &buf);
	CU_ASSERT_EQUAL(n, 2); /* x=2 has no efficiency, x=4 did not pass */
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, "<svg id=\"s\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, "class=\"point winner\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, "<title>x=3: 3 ms, 80%</title>"));
	CU_ASSERT_PTR_NULL(strstr(svg, "x=2:"));
	free(svg);
	view_free(&v);
	v = load("x,blockDim.x,time_ms_median,samples,status\n1,32,1.0,10,ok\n");
	buf = NULL;
	f = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL(chart_scatter(f, &v, "s", "load efficiency (%)", chart_x_efficiency), 0);
	svg = drawn(f, &buf);
	CU_ASSERT_STRING_EQUAL(svg, "");
	free(svg);
	view_free(&v);
}

/* Writes a results CSV of n rows (a dry run's: two parameters that vary, the first the block's x,
 * which the axes' choice must find adds nothing; nothing measured) to
 * path, its columns those of tests/data's recording. */
static void write_rows(const char *path, size_t n)
{
	char *rec = read_text("tests/data/summatrix_h100.csv");
	CU_ASSERT_PTR_NOT_NULL_FATAL(rec);
	FILE *f = fopen(path, "w");
	fprintf(f, "%.*s", (int)strcspn(rec, "\n") + 1, rec);
	free(rec);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%zu,%zu,0,%zu,%zu,1,16384,512,1,0,12,0,0,0,0,0,32,0.5000,blocks,32,,,,,,,,,,,,,,,,,,,cold,,not-run,\r\n",
			i % 100 + 1, i / 100 + 1, i % 100 + 1, (size_t)1);
	fclose(f);
}

/* CPU seconds for the report of an n-row file, the least of three. */
static double report_seconds(size_t n)
{
	char csv[128], html[128];
	snprintf(csv, sizeof csv, "%s/rows.csv", test_dir);
	snprintf(html, sizeof html, "%s/rows.html", test_dir);
	write_rows(csv, n);
	double dt = INFINITY;
	for (int k = 0; k < 3; k++) {
		diags d = {0};
		double t0 = cpu_seconds();
		CU_ASSERT_EQUAL(report_write(csv, html, NULL, &d), 0);
		double t = cpu_seconds() - t0;
		dt = t < dt ? t : dt;
		diags_free(&d);
	}
	unlink(csv);
	unlink(html);
	return dt;
}

/* The report takes time linear in rows: four times the rows about four times as long, not
 * sixteen (choosing the axes compared every row with every other: 80,000 rows took 99 s). */
static void test_the_report_is_linear_in_rows(void)
{
	report_seconds(1000); /* warm */
	double small = report_seconds(5000), large = report_seconds(20000);
	if (!(large < 8 * small + 0.05))
		fprintf(stderr, "\n  5000 rows: %.3f s, 20000 rows: %.3f s\n", small, large);
	CU_ASSERT(large < 8 * small + 0.05);
}

int add_chart_suite(void)
{
	CU_pSuite s = CU_add_suite("chart", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "one cell per parameter pair", test_one_cell_per_parameter_pair);
	CU_add_test(s, "--params picks the axes", test_params_pick_the_axes);
	CU_add_test(s, "HTML escaping", test_html_escaping);
	CU_add_test(s, "the best cell is brightest either way", test_the_best_cell_is_brightest_either_way);
	CU_add_test(s, "the default axes", test_the_default_axes);
	CU_add_test(s, "scatter points", test_scatter_points);
	CU_add_test(s, "the report is linear in rows", test_the_report_is_linear_in_rows);
	return 0;
}
