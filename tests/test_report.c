/* test_report.c: the HTML report of a crafted results file (report.c): the winner marked, the
 * table of the fastest, failures grouped, a dry run's binaries, and nothing from the CSV able to
 * open markup. (The pictures themselves, heat map and scatter plots: test_chart.c.) */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "tests.h"

static void test_winner_is_marked_in_both_scatters(void)
{
	char *html = report_of(crafted_csv, NULL);
	const char *ids[] = {"<svg id=\"scatter-occupancy\"", "<svg id=\"scatter-efficiency\""};
	for (int i = 0; i < 2; i++) {
		char *svg = between(html, ids[i], "</svg>");
		CU_ASSERT_EQUAL(occurrences(svg, "class=\"point\""), 3);
		CU_ASSERT_EQUAL(occurrences(svg, "class=\"point winner\""), 1);
		CU_ASSERT_PTR_NOT_NULL(strstr(svg, "class=\"winner-label\""));
		CU_ASSERT_PTR_NOT_NULL(strstr(svg, "winner: variant=a: 1 ms"));
		free(svg);
	}
	char *top = between(html, "<table id=\"top\"", "</table>");
	CU_ASSERT_EQUAL(occurrences(top, "<tr"), 1 + 4); /* the header and the four that passed */
	CU_ASSERT_EQUAL(occurrences(top, "<tr class=\"winner\""), 1);
	/* the fastest first */
	CU_ASSERT(strstr(top, "<td class=\"num\">1</td>") < strstr(top, "<td class=\"num\">1.2</td>"));
	free(top);
	free(html);
}

static void test_csv_text_is_escaped(void)
{
	char *html = report_of(crafted_csv, NULL);
	CU_ASSERT_PTR_NULL(strstr(html, "<script"));
	CU_ASSERT_PTR_NULL(strstr(html, "<b>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "error: x &amp; y"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "H100 &lt;b&gt;"));
	/* self-contained: nothing to fetch */
	CU_ASSERT_PTR_NULL(strstr(html, "url(http"));
	CU_ASSERT_PTR_NULL(strstr(html, "https://"));
	CU_ASSERT_PTR_NULL(strstr(html, "src="));
	CU_ASSERT_PTR_NULL(strstr(html, "<link"));
	free(html);
}

static void test_failures_grouped_with_counts(void)
{
	char *html = report_of(crafted_csv, NULL);
	char *fail = between(html, "<section id=\"failures\"", "</section>");
	CU_ASSERT_PTR_NOT_NULL(strstr(fail, "data-status=\"compile-error\"><h3>compile-error <span class=\"count\">2</span>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(fail, "data-status=\"crashed\"><h3>crashed <span class=\"count\">1</span>"));
	CU_ASSERT_PTR_NULL(strstr(fail, "data-status=\"ok\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(fail, "line one\nline two"));
	char *facts = between(html, "<section id=\"facts\"", "</section>");
	CU_ASSERT_PTR_NOT_NULL(strstr(facts, "7: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(facts, ">4 ok<"));
	CU_ASSERT_PTR_NOT_NULL(strstr(facts, ">2 compile-error<"));
	CU_ASSERT_PTR_NOT_NULL(strstr(facts, "marked the winner in the results file"));
	free(facts);
	free(fail);
	free(html);
}

static void test_older_file_without_counters_or_flags(void)
{
	/* no flags, no counters, no provenance: the default policy picks the winner */
	char *html = report_of("p,blockDim.x,blockDim.y,theoretical_occupancy,time_ms_median,samples,noise_pct,status\n"
			       "1,128,1,1.0,3.0,10,0.1,ok\n"
			       "2,256,1,1.0,2.0,10,0.1,ok\n"
			       "3,512,1,0.5,2.5,10,0.1,ok\n",
			       NULL);
	CU_ASSERT_PTR_NULL(strstr(html, "id=\"scatter-efficiency\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "id=\"no-counters\""));
	char *occ = between(html, "<svg id=\"scatter-occupancy\"", "</svg>");
	CU_ASSERT_EQUAL(occurrences(occ, "class=\"point winner\""), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(occ, "winner: p=2"));
	free(occ);
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "not recorded"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "default balanced policy"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "None: every configuration ran and passed"));
	/* blockDim.y does not vary: the heat map falls back to the parameter's axis */
	char *map = between(html, "<svg id=\"heatmap\"", "</svg>");
	CU_ASSERT_EQUAL(occurrences(map, "<rect class=\"cell"), 3);
	free(map);
	free(html);
}

/* A dry run's report: theoretical occupancy where times would be, the binaries' table, and
 * compile errors as its only failures. */
static void test_dry_run_reports_the_binaries(void)
{
	char *html = report_of("variant,blockDim.x,blockDim.y,dynamic_smem_bytes,registers,spill_store_bytes,spill_load_bytes,static_smem_bytes,"
			       "active_blocks_per_sm,theoretical_occupancy,occupancy_limit,flags,status,message\n"
			       "a,32,1,4096,40,0,0,1024,16,0.5,registers,,not-run,\n"
			       "b,32,1,0,32,8,8,1024,32,1.0,blocks,,not-run,\n"
			       "a,64,1,0,,,,,,,,,compile-error,\"ptxas error: too much shared data\"\n"
			       "b,64,1,0,32,0,0,0,16,1.0,blocks,,not-run,\n", NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "A dry run</strong>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "<h2>Theoretical occupancy by blockDim.x and variant</h2>"));
	/* the cell (b, 64) is coloured by its one compiled row; (a, 64) compiled none */
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "blockDim.x=64, variant=b: 100% theoretical occupancy, the highest of 1 that can run of 1"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "blockDim.x=64, variant=a: none of 1 can run"));
	CU_ASSERT_PTR_NULL(strstr(html, "none passed"));
	char *top = between(html, "<table id=\"top\">", "</table>");
	CU_ASSERT_EQUAL(occurrences(top, "<tr><td>"), 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(top, "<td class=\"num\">5120</td>")); /* a, 32: 1024 static + 4096 dynamic */
	CU_ASSERT_PTR_NOT_NULL(strstr(top, "<td>registers</td>"));
	free(top);
	char *fail = between(html, "<section id=\"failures\">", "</section>");
	CU_ASSERT_PTR_NOT_NULL(strstr(fail, "data-status=\"compile-error\""));
	CU_ASSERT_PTR_NULL(strstr(fail, "data-status=\"not-run\""));
	free(fail);
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "none: a dry run compiles and measures nothing"));
	free(html);
	/* a dry run's empty GPU columns are no older file's missing ones */
	html = report_of("variant,blockDim.x,registers,theoretical_occupancy,flags,status,message,gpu,gpu_uuid\n"
			 "a,32,40,0.5,,not-run,,,\n", NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "<tr><th>GPU</th><td><span class=\"note\">none (a dry run measures nothing)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "<tr><th>tuned at</th><td><span class=\"note\">not recorded (an older results file)"));
	free(html);
}

/* A plan's results: the concurrency of the fastest configuration per streams and order x
 * connections, after the scatter plots; a column where several streams ran one after another
 * stays near 1. A parameter named like a plan column does not stand in for it. */
static void test_a_plans_concurrency_table(void)
{
	char *html = report_of(
		"S,concurrency,blockDim.x,time_ms_median,samples,plan_streams,plan_order,plan_connections,serial_ms,"
		"concurrency,flags,status\n"
		"1,9,32,4,10,1,depth-first,1,4,1.000,cold,ok\n"
		"4,9,32,16,10,4,depth-first,1,16,1.000,cold,ok\n"
		"4,9,64,15,10,4,depth-first,1,15,1.000,cold,ok\n"
		"4,9,32,4.2,10,4,breadth-first,1,16,3.810,cold;winner,ok\n"
		"4,9,32,0,0,4,depth-first,8,,,,wrong-result\n",
		NULL);
	char *table = between(html, "<table id=\"concurrency-table\">", "</table>");
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "<section id=\"scatter\">"));
	CU_ASSERT(strstr(html, "<section id=\"scatter\">") < strstr(html, "<section id=\"concurrency\">"));
	/* the columns: depth-first before breadth-first; none for a combination where nothing passed */
	CU_ASSERT_PTR_NOT_NULL(strstr(table, "<th>streams</th><th>depth-first, 1 connection</th><th>breadth-first, 1 "
					     "connection</th></tr>"));
	/* 4 streams depth-first: the faster of 16 and 15 ms */
	CU_ASSERT_PTR_NOT_NULL(strstr(table, "<tr><th>4</th><td class=\"num\">1.00 (15 ms)</td><td class=\"num\">3.81 "
					     "(4.2 ms)</td></tr>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(table, "<tr><th>1</th><td class=\"num\">1.00 (4 ms)</td><td class=\"num\">&ndash;</td>"));
	free(table);
	/* the top table's concurrency is the plan's, not the parameter's */
	table = between(html, "<table id=\"top\">", "</table>");
	CU_ASSERT_PTR_NOT_NULL(strstr(table, "<th>concurrency</th><th>status</th>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(table, ">3.81<"));
	free(table);
	free(html);
	/* results without a plan have no such table */
	html = report_of(crafted_csv, NULL);
	CU_ASSERT_PTR_NULL(strstr(html, "concurrency"));
	free(html);
}

/* The fastest configurations with what their binaries say: registers, spills (stored and loaded)
 * and what limits their occupancy; a file without those columns shows dashes, not zeros. */
static void test_top_table_gives_registers_spills_and_limiter(void)
{
	char *html = report_of("bx,blockDim.x,registers,spill_store_bytes,spill_load_bytes,theoretical_occupancy,occupancy_limit,"
			       "time_ms_median,samples,noise_pct,flags,status\n"
			       "32,32,40,8,4,0.5,registers,2.0,10,0.1,cold,ok\n"
			       "64,64,24,0,0,1.0,warps,1.0,10,0.1,cold;winner,ok\n",
			       NULL);
	char *top = between(html, "<table id=\"top\">", "</table>");
	CU_ASSERT_PTR_NOT_NULL(strstr(top, "<th>registers</th><th>spills (bytes)</th><th>occupancy (%)</th><th>limited by</th>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(top, "<td class=\"num\">40</td><td class=\"num\">12</td><td class=\"num theoretical\">50.0</td>"
					   "<td>registers</td>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(top, "<td class=\"num\">24</td><td class=\"num\">0</td><td class=\"num theoretical\">100.0</td>"
					   "<td>warps</td>"));
	free(top);
	free(html);
	html = report_of(crafted_csv, NULL);
	top = between(html, "<table id=\"top\">", "</table>");
	CU_ASSERT_PTR_NOT_NULL(strstr(top, "<td class=\"num\">0.50</td><td class=\"num\">&ndash;</td><td class=\"num\">&ndash;</td>"));
	free(top);
	free(html);
}

static void test_default_path_and_unwritable_output(void)
{
	char *p = report_default_path("results/summatrix.csv");
	CU_ASSERT_STRING_EQUAL(p, "results/summatrix.html");
	free(p);
	p = report_default_path("odd.name");
	CU_ASSERT_STRING_EQUAL(p, "odd.name.html");
	free(p);
	diags d = {0};
	const char *in = write_temp(1, "report.csv", crafted_csv);
	CU_ASSERT_EQUAL(report_write(in, "/nonexistent/dir/r.html", NULL, &d), -1);
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "/nonexistent/dir/r.html"));
	diags_free(&d);
}

int add_report_suite(void)
{
	CU_pSuite s = CU_add_suite("report", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "a dry run reports the binaries", test_dry_run_reports_the_binaries);
	CU_add_test(s, "winner is marked in both scatters", test_winner_is_marked_in_both_scatters);
	CU_add_test(s, "CSV text is escaped", test_csv_text_is_escaped);
	CU_add_test(s, "failures grouped with counts", test_failures_grouped_with_counts);
	CU_add_test(s, "older file without counters or flags", test_older_file_without_counters_or_flags);
	CU_add_test(s, "default path and unwritable output", test_default_path_and_unwritable_output);
	CU_add_test(s, "a plan's concurrency table", test_a_plans_concurrency_table);
	CU_add_test(s, "top table gives registers, spills and limiter", test_top_table_gives_registers_spills_and_limiter);
	return 0;
}
