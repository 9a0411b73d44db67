/* test_instances.c: a run over a config's instances (instances.c), on the CPU: tests/fake_worker.c
 * stands in for the GPU worker (with FAKE_SMS its best block size grows with the problem), the
 * real nvcc compiles. One run tunes every instance into one CSV with the instance's constants as
 * columns, builds each distinct binary once, and resumes after kill -9 in the middle of an
 * instance measuring nothing twice; a budgeted search starts from the nearest instance's winner. */
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
 * are bx 128, 256 and 256); `space` replaces that space and `build` adds a build section (or any
 * other keys); `instances` replaces the instances. */
static const char *write_instances_config(const char *name, const char *instances, const char *space,
					  const char *build);

static const char *write_sizes_config(const char *name, const char *space, const char *build)
{
	return write_instances_config(name, NULL, space, build);
}

static const char *write_instances_config(const char *name, const char *instances, const char *space,
					  const char *build)
{
	snprintf(dir, sizeof dir, "%s/inst", test_dir);
	mkdir(dir, 0777);
	char path[256], text[2048];
	snprintf(path, sizeof path, "%s/k.cu", dir);
	put_file(path, "extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; "
		       "if (i < n) a[i] = i; }\n");
	snprintf(config_path, sizeof config_path, "%s/%s.yaml", dir, name);
	snprintf(text, sizeof text,
		 "name: %s\nkernel: {source: k.cu, entry: k}\nconstants: {n: 4096}\ninstances: %s\n"
		 "arguments:\n  - {name: a, type: float, count: n, output: true}\n  - {name: n, type: int32, value: n}\n"
		 "space: %s\n%s\nlaunch: {block: [bx], grid: [\"ceil_div(n, bx)\"]}\n"
		 "measure: {finalists: 0, metrics: none}\noutput: {csv: %s/%s.csv, header: %s/%s_tuned.h}\n",
		 name, instances ? instances : "{n: [1024, 4096, 16384]}", space ? space : "{bx: [32, 64, 128, 256]}", build ? build : "", dir, name, dir, name);
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

/* The first configuration a journal started, -1: none. */
static int first_started(const char *journal)
{
	char *text = read_text(journal), *at = text ? strstr(text, "\nstart ") : NULL;
	int id = at ? atoi(at + 7) : -1;
	free(text);
	return id;
}

/* The configurations a journal started, as bits by id. */
static unsigned started_set(const char *journal)
{
	char *text = read_text(journal);
	unsigned set = 0;
	for (const char *at = text; at && (at = strstr(at, "\nstart ")); at++)
		set |= 1u << (atoi(at + 7) & 31);
	free(text);
	return set;
}

/* The search space of the seeding tests: bx is the configuration's index in it. */
static const int seed_bx[] = {32, 64, 128, 256, 512, 1024};
#define SEED_SPACE "{bx: [32, 64, 128, 256, 512, 1024]}"

static void test_a_search_starts_from_the_nearest_instances_winner(void)
{
	/* the third instance (2048) is nearest the first (1024), not the second, in log scale */
	write_instances_config("seeded", "{n: [1024, 16384, 2048]}", SEED_SPACE, "search: {strategy: local, budget: 3}");
	char *out, csv[256], j2[256], j3[256], want[160];
	CU_ASSERT_EQUAL(run_autotune_on(config_path, NULL, &out), 0);
	snprintf(csv, sizeof csv, "%s/seeded.csv", dir);
	snprintf(j2, sizeof j2, "%s/seeded.n-16384.journal", dir);
	snprintf(j3, sizeof j3, "%s/seeded.n-2048.journal", dir);
	int w1 = winner_bx(csv, 1), first2 = first_started(j2), first3 = first_started(j3);
	CU_ASSERT(w1 > 0);
	/* each search measured its neighbour's winner first */
	CU_ASSERT_FATAL(first2 >= 0 && first2 < 6 && first3 >= 0 && first3 < 6);
	CU_ASSERT_EQUAL(seed_bx[first2], w1);
	CU_ASSERT_EQUAL(seed_bx[first3], w1);
	CU_ASSERT_EQUAL(count_in(j2, "start "), 3); /* the seed counts in the budget */
	snprintf(want, sizeof want, "instance 2 (n=16384): search seeded from instance 1's winner, bx=%d\n", w1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
	snprintf(want, sizeof want, "instance 3 (n=2048): search seeded from instance 1's winner, bx=%d\n", w1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
	/* and the summary says so per instance */
	snprintf(want, sizeof want, "ms; search seeded from instance 1's winner, bx=%d\n", w1);
	CU_ASSERT_EQUAL(occurrences(out, want), 2);
	CU_ASSERT_PTR_NULL(strstr(out, "instance 1 (n=1024): search"));
	free(out);
	/* not compiling ahead, each instance measures the same configurations */
	write_instances_config("seeded0", "{n: [1024, 16384, 2048]}", SEED_SPACE, "search: {strategy: local, budget: 3}");
	setenv("AUTOTUNE_AHEAD", "0", 1);
	CU_ASSERT_EQUAL(run_autotune_on(config_path, NULL, &out), 0);
	unsetenv("AUTOTUNE_AHEAD");
	free(out);
	static const char *const n[] = {"1024", "16384", "2048"};
	for (int i = 0; i < 3; i++) {
		char a[256], b[256];
		snprintf(a, sizeof a, "%s/seeded.n-%s.journal", dir, n[i]);
		snprintf(b, sizeof b, "%s/seeded0.n-%s.journal", dir, n[i]);
		CU_ASSERT_EQUAL(started_set(a), started_set(b));
		CU_ASSERT_NOT_EQUAL(started_set(a), 0);
	}
	/* measuring everything, nothing is seeded */
	write_instances_config("everything", "{n: [1024, 16384]}", SEED_SPACE, NULL);
	CU_ASSERT_EQUAL(run_autotune_on(config_path, NULL, &out), 0);
	CU_ASSERT_PTR_NULL(strstr(out, "seeded from"));
	free(out);
}

static void test_a_winner_not_in_the_next_space_seeds_nothing(void)
{
	/* the first instance measures its whole space (bx 512 wins at n=16384); at n=1024 the
	 * constraint leaves bx 32 and 64 */
	write_instances_config("unmapped", "{n: [16384, 1024]}", SEED_SPACE,
			       "constraints: [bx * 16 <= n]\nsearch: {strategy: anneal, budget: 100%}");
	char *out, csv[256], j2[256];
	CU_ASSERT_EQUAL(run_autotune_on(config_path, NULL, &out), 0);
	snprintf(csv, sizeof csv, "%s/unmapped.csv", dir);
	snprintf(j2, sizeof j2, "%s/unmapped.n-1024.journal", dir);
	CU_ASSERT_EQUAL(winner_bx(csv, 1), 512);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(out, "instance 2 (n=1024): search not seeded: instance 1's winner, bx=512, is not in this instance's space\n"));
	CU_ASSERT_EQUAL(count_in(j2, "done "), 2);
	CU_ASSERT_EQUAL(winner_bx(csv, 2), 64);
	free(out);
}

static void test_kill_9_in_a_seeded_search_resumes_measuring_nothing_twice(void)
{
	write_instances_config("reseeded", "{n: [1024, 16384]}", SEED_SPACE, "search: {strategy: local, budget: 4}");
	char j1[256], j2[256], csv[256];
	snprintf(j1, sizeof j1, "%s/reseeded.n-1024.journal", dir);
	snprintf(j2, sizeof j2, "%s/reseeded.n-16384.journal", dir);
	snprintf(csv, sizeof csv, "%s/reseeded.csv", dir);
	setenv("FAKE_SLEEP_MS", "150", 1);
	char *argv[] = {"./autotune", "-q", config_path, NULL};
	CU_ASSERT_EQUAL_FATAL(kill_when_journaled(argv, j2, 2), 0);
	unsetenv("FAKE_SLEEP_MS");
	int done2 = count_in(j2, "done "), first2 = first_started(j2);
	CU_ASSERT(done2 >= 2 && done2 < 4);
	char *out;
	CU_ASSERT_EQUAL(run_autotune_on(config_path, NULL, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "search seeded from instance 1's winner"));
	free(out);
	/* the first instance's winner seeds the resumed search as it did the killed one */
	CU_ASSERT_FATAL(first2 >= 0 && first2 < 6);
	CU_ASSERT_EQUAL(seed_bx[first2], winner_bx(csv, 1));
	CU_ASSERT_EQUAL(count_in(j1, "start "), 4);
	CU_ASSERT_EQUAL(count_in(j2, "start "), 4);
	CU_ASSERT_FALSE(started_twice(j1));
	CU_ASSERT_FALSE(started_twice(j2));
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
	CU_add_test(s, "a search starts from the nearest instance's winner",
		    test_a_search_starts_from_the_nearest_instances_winner);
	CU_add_test(s, "a winner not in the next space seeds nothing", test_a_winner_not_in_the_next_space_seeds_nothing);
	CU_add_test(s, "kill -9 in a seeded search resumes measuring nothing twice",
		    test_kill_9_in_a_seeded_search_resumes_measuring_nothing_twice);
	CU_add_test(s, "shards and replays of instances are refused", test_shards_and_replays_of_instances_are_refused);
	return 0;
}
