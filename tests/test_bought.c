/* test_bought.c: the report's first section, what tuning bought (bought.c): runs tuned here on the
 * fake worker with a select.baseline, one problem and several sizes, whose winner's speedup over the
 * baseline is known from the fake worker's model; and results without a baseline. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests.h"

/* The fake worker (FAKE_SMS=4) takes 1 + 64 / bx + 4 / ceil(n / bx) ms (test_sizes.c). */
static double model(double bx, double n) { return 1 + 64 / bx + 4 / ceil(n / bx); }

/* Tunes bx in {64, 128, 256} on the fake worker with select.baseline bx=64: instances as given
 * ("" for one problem, n=4096); returns the report the run wrote, or NULL. */
static char *bought_report_of(const char *name, const char *instances)
{
	char dir[160], path[256], csv[256], text[2048];
	snprintf(dir, sizeof dir, "%s/bought", test_dir);
	mkdir(dir, 0777);
	snprintf(path, sizeof path, "%s/k.cu", dir);
	put_file(path, "extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; "
		       "if (i < n) a[i] = i; }\n");
	snprintf(csv, sizeof csv, "%s/%s.csv", dir, name);
	snprintf(text, sizeof text,
		 "name: %s\nkernel: {source: k.cu, entry: k}\nconstants: {n: 4096}\n%s"
		 "arguments:\n  - {name: a, type: float, count: n, output: true}\n  - {name: n, type: int32, value: n}\n"
		 "space: {bx: [64, 128, 256]}\nlaunch: {block: [bx], grid: [\"ceil_div(n, bx)\"]}\n"
		 "select: {baseline: {bx: 64}}\n"
		 "measure: {finalists: 0, metrics: none}\noutput: {csv: %s, header: %s/%s_tuned.h}\n",
		 name, instances, csv, dir, name);
	snprintf(path, sizeof path, "%s/%s.yaml", dir, name);
	put_file(path, text);
	fake_worker_reset(dir, name);
	setenv("FAKE_SMS", "4", 1);
	int rc = run_autotune_on(path, (char *[]){"-q", NULL}, NULL);
	unsetenv("FAKE_SMS");
	fake_worker_forget();
	snprintf(path, sizeof path, "%s/%s.html", dir, name);
	return rc == 0 ? slurp(path) : NULL;
}

/* "<td class="num speedup">1.23&times;</td>" of a speedup */
static void speedup_cell(char *buf, size_t n, double x) { snprintf(buf, n, "<td class=\"num speedup\">%.2f&times;</td>", x); }

static void test_one_problem_says_what_tuning_bought(void)
{
	char *html = bought_report_of("one", "");
	CU_ASSERT_PTR_NOT_NULL_FATAL(html);
	char *sec = between(html, "<section id=\"bought\">", "</section>");
	/* first: before the heat map */
	CU_ASSERT(strstr(html, "<section id=\"bought\">") < strstr(html, "<section id=\"heatmap-section\">"));
	/* at n=4096 bx=256 wins; the baseline bx=64 */
	double sp = model(64, 4096) / model(256, 4096);
	char want[128];
	speedup_cell(want, sizeof want, sp);
	CU_ASSERT_PTR_NOT_NULL(strstr(sec, want));
	snprintf(want, sizeof want, "The winner is <strong>%.2f&times;</strong> as fast as the baseline.", sp);
	CU_ASSERT_PTR_NOT_NULL(strstr(sec, want));
	snprintf(want, sizeof want, "<td class=\"num saved\">%.4g ms (", model(64, 4096) - model(256, 4096));
	CU_ASSERT_PTR_NOT_NULL(strstr(sec, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(sec, "<td>bx=256</td>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sec, "<td>bx=64</td>"));
	CU_ASSERT_EQUAL(occurrences(sec, "<td class=\"recipe\"><code>"), 1);
	free(sec);
	free(html);
}

static void test_each_size_has_its_winner_against_the_baseline(void)
{
	char *html = bought_report_of("multi", "instances: [{n: 1024}, {n: 16384}]\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(html);
	char *sec = between(html, "<section id=\"bought\">", "</section>");
	CU_ASSERT_EQUAL(occurrences(sec, "<tr data-instance="), 2);
	/* n=1024 is won by bx=128, n=16384 by bx=256; each against its own baseline row */
	char *row = between(sec, "<tr data-instance=\"n=1024\">", "</tr>"), want[128];
	CU_ASSERT_PTR_NOT_NULL(strstr(row, "<td>bx=128</td>"));
	speedup_cell(want, sizeof want, model(64, 1024) / model(128, 1024));
	CU_ASSERT_PTR_NOT_NULL(strstr(row, want));
	free(row);
	row = between(sec, "<tr data-instance=\"n=16384\">", "</tr>");
	CU_ASSERT_PTR_NOT_NULL(strstr(row, "<td>bx=256</td>"));
	speedup_cell(want, sizeof want, model(64, 16384) / model(256, 16384));
	CU_ASSERT_PTR_NOT_NULL(strstr(row, want));
	free(row);
	CU_ASSERT_PTR_NOT_NULL(strstr(sec, "as fast as the baseline over 2 of the 2 problem sizes."));
	free(sec);
	free(html);
}

/* Results without a flagged baseline (older files, no select.baseline nor verify.reference) say
 * how to get one instead of a speedup. */
static void test_no_baseline_says_how_to_name_one(void)
{
	char *html = report_of(crafted_csv, NULL);
	char *sec = between(html, "<section id=\"bought\">", "</section>");
	CU_ASSERT_PTR_NOT_NULL(strstr(sec, "No baseline to compare with"));
	CU_ASSERT_PTR_NULL(strstr(sec, "speedup\">"));
	free(sec);
	free(html);
}

int add_bought_suite(void)
{
	CU_pSuite s = CU_add_suite("bought", NULL, fake_worker_forget);
	if (!s)
		return -1;
	CU_add_test(s, "one problem says what tuning bought", test_one_problem_says_what_tuning_bought);
	CU_add_test(s, "each size has its winner against the baseline", test_each_size_has_its_winner_against_the_baseline);
	CU_add_test(s, "no baseline says how to name one", test_no_baseline_says_how_to_name_one);
	return 0;
}
