/* test_sizes.c: the instance as a dimension of `show` and the report (sizes.c), on results tuned
 * here on the fake worker with FAKE_SMS=4: a configuration takes 1 + 64 / bx + 4 / grid ms, so the
 * loss of one instance's winner at another is known from that model. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sizes.h"
#include "tests.h"

static char csv[192];

/* The fake worker's time of bx at n. */
static double model(double bx, double n) { return 1 + 64 / bx + 4 / ceil(n / bx); }

static int tuned(void)
{
	static int done = -1;
	if (done >= 0)
		return done;
	char dir[128], path[256], text[2048];
	snprintf(dir, sizeof dir, "%s/sizes", test_dir);
	mkdir(dir, 0777);
	snprintf(path, sizeof path, "%s/k.cu", dir);
	put_file(path, "extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; "
		       "if (i < n) a[i] = i; }\n");
	snprintf(csv, sizeof csv, "%s/sz.csv", dir);
	snprintf(text, sizeof text,
		 "name: sz\nkernel: {source: k.cu, entry: k}\nconstants: {n: 4096}\ninstances: [{n: 1024}, {n: 16384}]\n"
		 "arguments:\n  - {name: a, type: float, count: n, output: true}\n  - {name: n, type: int32, value: n}\n"
		 "space: {bx: [64, 128, 256]}\nlaunch: {block: [bx], grid: [\"ceil_div(n, bx)\"]}\n"
		 "measure: {finalists: 0, metrics: none}\noutput: {csv: %s, header: %s/sz_tuned.h}\n",
		 csv, dir);
	snprintf(path, sizeof path, "%s/sz.yaml", dir);
	put_file(path, text);
	setenv("AUTOTUNE_WORKER", "build/fake_worker", 1);
	setenv("FAKE_SMS", "4", 1);
	done = run_autotune_on(path, (char *[]){"-q", NULL}, NULL) == 0;
	unsetenv("FAKE_SMS");
	fake_worker_forget();
	return done;
}

static void test_show_gives_each_instance_and_the_cost_of_the_largest_winner(void)
{
	CU_ASSERT_FATAL(tuned());
	char *out;
	CU_ASSERT_EQUAL_FATAL(run_autotune((char *[]){"show", csv, NULL}, &out), 0);
	/* n=1024 is won by bx=128; the largest's (bx=256) costs it this much */
	char want[128];
	double own = model(128, 1024), other = model(256, 1024);
	snprintf(want, sizeof want, "n=1024: bx=128: %.4f ms; the largest's winner: %.4f ms (%+.1f%%)", own, other,
		 100 * (other / own - 1));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "n=16384: bx=256:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "(the largest)"));
	free(out);
}

static void test_the_report_plots_the_winners_against_the_size(void)
{
	CU_ASSERT_FATAL(tuned());
	char path[256];
	snprintf(path, sizeof path, "%.*s.html", (int)(strlen(csv) - 4), csv);
	char *html = slurp(path); /* the run's own report */
	CU_ASSERT_PTR_NOT_NULL_FATAL(html);
	char *plot = between(html, "<svg id=\"sizes-plot\"", "</svg>");
	/* a point per instance, labelled with its winner */
	CU_ASSERT_EQUAL(occurrences(plot, "<circle"), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(plot, ">bx=128</text>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(plot, ">bx=256</text>"));
	free(plot);
	char *loss = between(html, "<table id=\"sizes-loss\"", "</table>"), cell[32];
	double x = model(128, 16384) / model(256, 16384) - 1;
	snprintf(cell, sizeof cell, "<td>%+.1f%%</td>", 100 * x);
	CU_ASSERT_PTR_NOT_NULL(strstr(loss, cell));
	free(loss);
	free(html);
}

/* The report's facts name each size's winner, never one winner with a "why" that weighs one
 * size's rows against another's (it said the policy "would pick" another size's winner). */
static void test_the_reports_facts_give_each_sizes_winner(void)
{
	CU_ASSERT_FATAL(tuned());
	char path[256];
	snprintf(path, sizeof path, "%.*s.html", (int)(strlen(csv) - 4), csv);
	char *html = slurp(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(html);
	char *facts = between(html, "<tr class=\"winner\"><th>winners</th>", "</tr>"), want[96];
	CU_ASSERT_PTR_NOT_NULL_FATAL(facts);
	CU_ASSERT_PTR_NOT_NULL(strstr(facts, "one per problem size, each chosen among its own size's configurations"));
	snprintf(want, sizeof want, "n=1024: bx=128 (%.4g ms)", model(128, 1024));
	CU_ASSERT_PTR_NOT_NULL(strstr(facts, want));
	snprintf(want, sizeof want, "n=16384: bx=256 (%.4g ms)", model(256, 16384));
	CU_ASSERT_PTR_NOT_NULL(strstr(facts, want));
	CU_ASSERT_PTR_NULL(strstr(html, "would pick"));
	free(facts);
	free(html);
}

int add_sizes_suite(void)
{
	CU_pSuite s = CU_add_suite("sizes", NULL, fake_worker_forget);
	if (!s)
		return -1;
	CU_add_test(s, "show gives each instance and the cost of the largest winner",
		    test_show_gives_each_instance_and_the_cost_of_the_largest_winner);
	CU_add_test(s, "the report plots the winners against the size", test_the_report_plots_the_winners_against_the_size);
	CU_add_test(s, "the report's facts give each size's winner", test_the_reports_facts_give_each_sizes_winner);
	return 0;
}
