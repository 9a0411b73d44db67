/* test_instances.c: a run over a config's instances (instances.c), on the CPU: tests/fake_worker.c
 * stands in for the GPU worker (with FAKE_SMS its best block size grows with the problem), the
 * real nvcc compiles. One run tunes every instance into one CSV with the instance's constants as
 * columns, builds each distinct binary once, and resumes after kill -9 in the middle of an
 * instance measuring nothing twice. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "instances.h"
#include "table.h"
#include "tests.h"

static char dir[128], config_path[192];

/* dir/NAME.yaml: k(a, n) over bx 32..256 for n of 1024, 4096 and 16384 (FAKE_SMS=4: the winners
 * are bx 128, 256 and 256); `space` replaces that space and `build` adds a build section. */
static const char *write_sizes_config(const char *name, const char *space, const char *build)
{
	snprintf(dir, sizeof dir, "%s/inst", test_dir);
	mkdir(dir, 0777);
	char path[256], text[2048];
	snprintf(path, sizeof path, "%s/k.cu", dir);
	put_file(path, "extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; "
		       "if (i < n) a[i] = i; }\n");
	snprintf(config_path, sizeof config_path, "%s/%s.yaml", dir, name);
	snprintf(text, sizeof text,
		 "name: %s\nkernel: {source: k.cu, entry: k}\nconstants: {n: 4096}\ninstances: {n: [1024, 4096, 16384]}\n"
		 "arguments:\n  - {name: a, type: float, count: n, output: true}\n  - {name: n, type: int32, value: n}\n"
		 "space: %s\n%s\nlaunch: {block: [bx], grid: [\"ceil_div(n, bx)\"]}\n"
		 "measure: {finalists: 0, metrics: none}\noutput: {csv: %s/%s.csv, header: %s/%s_tuned.h}\n",
		 name, space ? space : "{bx: [32, 64, 128, 256]}", build ? build : "", dir, name, dir, name);
	put_file(config_path, text);
	static const char *const old[] = {".csv", "_tuned.h", ".n-1024.journal", ".n-4096.journal", ".n-16384.journal"};
	for (size_t i = 0; i < sizeof old / sizeof *old; i++) {
		snprintf(path, sizeof path, "%s/%s%s", dir, name, old[i]);
		unlink(path);
	}
	setenv("AUTOTUNE_WORKER", "build/fake_worker", 1);
	setenv("FAKE_SMS", "4", 1);
	return config_path;
}

/* The winning row's bx of instance `inst` (1-based) in csv, or -1. */
static int winner_bx(const char *csv, int inst)
{
	table t;
	diags d = {0};
	int bx = -1;
	if (table_load(csv, &t, &d) == 0) {
		int ic = table_col(&t, INSTANCE_COLUMN);
		for (size_t r = 0; r < t.nrows; r++)
			if (atoi(table_get(&t, r, ic)) == inst && strstr(table_field(&t, r, "flags"), "winner"))
				bx = atoi(table_field(&t, r, "bx"));
		table_free(&t);
	}
	diags_free(&d);
	return bx;
}

static void test_one_run_tunes_every_instance_into_one_csv(void)
{
	write_sizes_config("sizes", NULL, NULL);
	char *out, csv[256], part[256];
	CU_ASSERT_EQUAL(run_autotune_on(config_path, NULL, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "instance 2 of 3: n=4096"));
	/* one kernel whatever n is: built once, the later instances take it from the cache */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "1 distinct binary built for 3 instances"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "n=1024: bx=128:"));
	free(out);
	snprintf(csv, sizeof csv, "%s/sizes.csv", dir);
	table t;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(table_load(csv, &t, &d), 0);
	CU_ASSERT_EQUAL(t.nrows, 12);
	CU_ASSERT_EQUAL(t.nparams, 1); /* the instance's columns come last: not parameters */
	int ic = table_col(&t, INSTANCE_COLUMN), nc = table_col(&t, "n");
	CU_ASSERT_EQUAL(nc, ic + 1);
	CU_ASSERT_EQUAL((size_t)nc, t.ncols - 1);
	CU_ASSERT_STRING_EQUAL(table_get(&t, 11, nc), "16384");
	CU_ASSERT_STRING_EQUAL(table_get(&t, 11, ic), "3");
	table_free(&t);
	CU_ASSERT_EQUAL(winner_bx(csv, 1), 128);
	CU_ASSERT_EQUAL(winner_bx(csv, 2), 256);
	CU_ASSERT_EQUAL(winner_bx(csv, 3), 256);
	/* the parts are joined and gone; each instance keeps its journal */
	snprintf(part, sizeof part, "%s/sizes.n-4096.csv", dir);
	CU_ASSERT_NOT_EQUAL(access(part, F_OK), 0);
	snprintf(part, sizeof part, "%s/sizes.n-4096.journal", dir);
	CU_ASSERT_EQUAL(count_in(part, "done "), 4);
}

/* Whether any configuration was started twice in a journal. */
static int started_twice(const char *journal)
{
	char *text = read_text(journal);
	int twice = 0;
	for (int id = 0; text && id < 16 && !twice; id++) {
		char needle[32];
		snprintf(needle, sizeof needle, "\nstart %d\n", id);
		twice = occurrences(text, needle) > 1;
	}
	free(text);
	return twice;
}

static void test_kill_9_in_the_second_instance_resumes_measuring_nothing_twice(void)
{
	write_sizes_config("resumed", NULL, NULL);
	char j1[256], j2[256], j3[256], csv[256];
	snprintf(j1, sizeof j1, "%s/resumed.n-1024.journal", dir);
	snprintf(j2, sizeof j2, "%s/resumed.n-4096.journal", dir);
	snprintf(j3, sizeof j3, "%s/resumed.n-16384.journal", dir);
	snprintf(csv, sizeof csv, "%s/resumed.csv", dir);
	setenv("FAKE_SLEEP_MS", "150", 1);
	char *argv[] = {"./autotune", "-q", config_path, NULL};
	CU_ASSERT_EQUAL_FATAL(kill_when_journaled(argv, j2, 2), 0);
	unsetenv("FAKE_SLEEP_MS");
	CU_ASSERT_EQUAL(count_in(j1, "done "), 4);
	int done2 = count_in(j2, "done ");
	CU_ASSERT(done2 >= 2 && done2 < 4);
	CU_ASSERT_EQUAL(count_in(j3, "done "), -1); /* never started */
	char *out;
	CU_ASSERT_EQUAL(run_autotune_on(config_path, NULL, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "resuming: 4 configurations measured before"));
	free(out);
	/* the first instance measured nothing again, the second only what was missing */
	CU_ASSERT_EQUAL(count_in(j1, "start "), 4);
	CU_ASSERT_FALSE(started_twice(j1));
	CU_ASSERT_FALSE(started_twice(j2));
	CU_ASSERT_EQUAL(count_in(j3, "done "), 4);
	CU_ASSERT_EQUAL(count_in(csv, ",ok,") + count_in(csv, ",crashed,"), 12);
	CU_ASSERT_EQUAL(winner_bx(csv, 3), 256);
}

static void test_shards_and_replays_of_instances_are_refused(void)
{
	write_sizes_config("refused", NULL, NULL);
	char *out;
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){"--shard", "0/2", NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "--shard with instances: is not supported"));
	free(out);
}

static int forget(void)
{
	unsetenv("FAKE_SMS");
	return fake_worker_forget();
}

int add_instances_suite(void)
{
	CU_pSuite s = CU_add_suite("instances", NULL, forget);
	if (!s)
		return -1;
	CU_add_test(s, "one run tunes every instance into one csv", test_one_run_tunes_every_instance_into_one_csv);
	CU_add_test(s, "kill -9 in the second instance resumes measuring nothing twice",
		    test_kill_9_in_the_second_instance_resumes_measuring_nothing_twice);
	CU_add_test(s, "shards and replays of instances are refused", test_shards_and_replays_of_instances_are_refused);
	return 0;
}
