/* test_run_files.c: a run's outputs are checked before anything is measured, and what a killed
 * run left of them is removed only when its process is gone. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "run_files.h"
#include "tests.h"

/* test_dir/rf.yaml over test_dir/k.cu with its results at csv (relative to test_dir) */
static int load_with_csv(const char *csv, config *cfg)
{
	char path[256], kernel[256], text[1024];
	snprintf(kernel, sizeof kernel, "%s/k.cu", test_dir);
	put_file(kernel, "extern \"C\" __global__ void k(float *a) { a[0] = 1; }\n");
	snprintf(text, sizeof text,
		 "name: rf\nkernel: {source: k.cu, entry: k}\narguments: [{name: a, type: float, count: 4, output: true}]\n"
		 "space: {x: [32, 64]}\nlaunch: {block: [x], grid: [1]}\noutput: {csv: %s/%s}\n",
		 test_dir, csv);
	snprintf(path, sizeof path, "%s/rf.yaml", test_dir);
	put_file(path, text);
	diags d = {0};
	int rc = config_load(path, cfg, &d);
	diags_free(&d);
	return rc;
}

static void test_an_output_over_an_input_is_refused(void)
{
	config cfg;
	options o;
	memset(&o, 0, sizeof o);
	CU_ASSERT_EQUAL_FATAL(load_with_csv("k.cu", &cfg), 0);
	diags d = {0};
	CU_ASSERT_EQUAL(run_check_outputs(&cfg, &o, &d), -1);
	CU_ASSERT(d.n == 1 && strstr(d.msgs[0], "output.csv '") && strstr(d.msgs[0], "k.cu' is "));
	diags_free(&d);
	config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(load_with_csv("out/rf.csv", &cfg), 0);
	CU_ASSERT_EQUAL(run_check_outputs(&cfg, &o, &d), 0);
	CU_ASSERT_EQUAL(d.n, 0);
	diags_free(&d);
	config_free(&cfg);
}

static void test_a_killed_writers_leftovers_go_a_live_ones_stay(void)
{
	config cfg;
	options o;
	memset(&o, 0, sizeof o);
	CU_ASSERT_EQUAL_FATAL(load_with_csv("rf.csv", &cfg), 0);
	pid_t gone = fork();
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	char dead[300], live[300];
	snprintf(dead, sizeof dead, "%s.tmp.%d", cfg.csv_path, (int)gone);
	snprintf(live, sizeof live, "%s.tmp.%d", cfg.csv_path, (int)getpid());
	put_file(dead, "half a CSV");
	put_file(live, "being written");
	run_reclaim_outputs(&cfg, &o);
	CU_ASSERT_EQUAL(access(dead, F_OK), -1);
	CU_ASSERT_EQUAL(access(live, F_OK), 0);
	unlink(live);
	config_free(&cfg);
}

int add_run_files_suite(void)
{
	CU_pSuite s = CU_add_suite("run_files", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "an output over an input is refused", test_an_output_over_an_input_is_refused);
	CU_add_test(s, "a killed writer's leftovers go, a live one's stay", test_a_killed_writers_leftovers_go_a_live_ones_stay);
	return 0;
}
