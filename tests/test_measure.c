/* test_measure.c: the measuring stage (measure.c), on the CPU: tests/fake_worker.c stands in for
 * the GPU worker (AUTOTUNE_WORKER), the real nvcc compiles. What is measured and what is not: a
 * run killed with SIGKILL loses nothing it finished and resumes with only what was missing; a
 * crashing or hanging "kernel" costs one configuration; identical binaries are measured once; a
 * launch the device must refuse is not made; a search measures its budget and compiles only what
 * it proposes. (How a run stops on SIGINT and SIGTERM: test_tune.c.) */
#include <CUnit/CUnit.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compile.h"
#include "config.h"
#include "plan.h"
#include "proc.h"
#include "search.h"
#include "space.h"
#include "stats.h"
#include "table.h"
#include "tests.h"

#define NCONFIGS 20
#define DIR "scratch/measure"

/* The config written last (write_space_config, write_named_config). */
static char *config_path;

static void test_kill_9_then_resume_loses_nothing(void)
{
	config_path = write_space_config(DIR, "resume", NULL);
	fake_worker_reset(DIR, "resume");
	setenv("FAKE_SLEEP_MS", "150", 1);
	char *argv[] = {"./autotune", "-q", config_path, NULL};
	/* a few configurations journaled, then the tuner and its worker are killed */
	CU_ASSERT_EQUAL_FATAL(kill_when_journaled(argv, DIR "/resume.journal", 5), 0);
	int done_before = count_in(DIR "/resume.journal", "done ");
	/* in flight: journaled as started, not done (the worker's own log of the run may not be
	 * written yet when the kill lands just after the start) */
	int in_flight = count_in(DIR "/resume.journal", "start ") - done_before;
	CU_ASSERT(done_before >= 5 && done_before < NCONFIGS);
	CU_ASSERT(in_flight == 0 || in_flight == 1);

	unsetenv("FAKE_SLEEP_MS");
	unlink(DIR "/runs.log");
	char *out;
	int rc = run_autotune_on(config_path, (char *[]){NULL}, &out);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "resuming:"));
	free(out);
	CU_ASSERT(each_row_once(DIR "/resume.csv", NCONFIGS));
	/* the configuration in flight at the kill is crashed, not retried; the rest measured once */
	int crashed = count_in(DIR "/resume.csv", ",crashed,");
	CU_ASSERT_EQUAL(crashed, in_flight);
	CU_ASSERT_EQUAL(count_in(DIR "/resume.csv", "an earlier run"), in_flight);
	CU_ASSERT_EQUAL(count_in(DIR "/resume.csv", ",ok,"), NCONFIGS - in_flight);
	/* second run: one untimed refresh of the reference, then only what was missing */
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", "run "), 1 + NCONFIGS - done_before - in_flight);

	/* --retry-failed measures the crashed one again; nothing else */
	unlink(DIR "/runs.log");
	rc = run_autotune_on(config_path, (char *[]){"--retry-failed", NULL}, &out);
	free(out);
	CU_ASSERT_EQUAL(rc, 0);
	/* (a kill between two configurations leaves none in flight: then nothing runs, not even the
	 * reference's refresh) */
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", "run "), in_flight ? 1 + in_flight : -1);
	CU_ASSERT_EQUAL(count_in(DIR "/resume.csv", ",ok,"), NCONFIGS);
	CU_ASSERT(each_row_once(DIR "/resume.csv", NCONFIGS));
}

static void test_fresh_and_changed_inputs_measure_everything_again(void)
{
	config_path = write_space_config(DIR, "resume", NULL);
	fake_worker_reset(DIR, "resume");
	char *out;
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){"-q", NULL}, &out), 0);
	free(out);
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", "run "), NCONFIGS);
	/* the same command again: everything is reused (one reference refresh only) */
	unlink(DIR "/runs.log");
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){"-q", NULL}, &out), 0);
	free(out);
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", "run "), -1); /* the worker never ran a kernel */
	/* --fresh ignores the journal */
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){"-q", "--fresh", NULL}, &out), 0);
	free(out);
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", "run "), NCONFIGS);
	/* a comment in the kernel changes the key, not the code: nothing again (test_reuse.c) */
	unlink(DIR "/runs.log");
	FILE *f = fopen(DIR "/k.cu", "a");
	fputs("// edited\n", f);
	fclose(f);
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "changed since the last run"));
	free(out);
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", "run "), -1);
	/* an edit of the code: everything again */
	put_file(DIR "/k.cu", "extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + "
			      "threadIdx.x; if (i < n) a[i] = 2 * i; }\n");
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "changed since the last run"));
	free(out);
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", "run "), NCONFIGS);
}

static void test_crash_and_hang_cost_one_configuration_each(void)
{
	config_path = write_space_config(DIR, "resume", ", timeout: 1");
	fake_worker_reset(DIR, "resume");
	setenv("FAKE_CRASH_BX", "96", 1);
	setenv("FAKE_HANG_BX", "160", 1);
	char *out;
	double t0 = now_seconds();
	int rc = run_autotune_on(config_path, (char *[]){NULL}, &out);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT(now_seconds() - t0 < 30);
	free(out);
	CU_ASSERT(each_row_once(DIR "/resume.csv", NCONFIGS));
	CU_ASSERT_EQUAL(count_in(DIR "/resume.csv", ",crashed,"), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/resume.csv", "killed by signal 11"), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/resume.csv", ",timeout,"), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/resume.csv", ",ok,"), NCONFIGS - 2);
}

/* Register caps above what the kernel needs give the same code: measured once, shared. */
static void test_identical_binaries_are_measured_once(void)
{
	config_path = write_capped_config(DIR, "shared", "{bx: [32, 64], cap: [0, 64, 128]}");
	char *out;
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){"-q", NULL}, &out), 0);
	free(out);
	/* 6 configurations, 3 binaries, 1 kernel: two block sizes measured, four rows shared */
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", "run "), 2);
	CU_ASSERT_EQUAL(count_in(DIR "/shared.csv", ",ok,"), 6);
	CU_ASSERT_EQUAL(count_in(DIR "/shared.csv", ",bx=32 cap=0,ok,"), 2);
	CU_ASSERT_EQUAL(count_in(DIR "/shared.csv", ",bx=64 cap=0,ok,"), 2);
	unlink(DIR "/shared.csv");
	unlink(DIR "/shared.journal");
	unlink(DIR "/shared_tuned.h");
	unlink(DIR "/shared.yaml");
}

/* A launch the device must refuse is known from the binary and its limits: marked launch-error
 * without a launch, and the rest of the space runs as before. */
static void test_impossible_launches_are_not_made(void)
{
	mkdir(DIR, 0777);
	put_file(DIR "/k.cu", "extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = i; }\n");
	config_path = write_named_config(DIR, "impossible", "k.cu",
					 "space: {bx: [64, 2048, 128]}\nmeasure: {finalists: 0, metrics: none}");
	fake_worker_reset(DIR, "impossible");
	char *out;
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){"-q", "--arch", "sm_90", NULL}, &out), 0);
	free(out);
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", "run 2048 "), 0);
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", "run "), 2);
	CU_ASSERT_EQUAL(count_in(DIR "/impossible.csv", ",ok,"), 2);
	CU_ASSERT_EQUAL(count_in(DIR "/impossible.csv",
				 ",launch-error,\"CUDA_ERROR_INVALID_VALUE (known before launching, not launched): block.x of 2048"),
			1);
	/* and has no occupancy: a block.z over 64 came out at 100% */
	char text[512];
	snprintf(text, sizeof text,
		 "kernel: {source: k.cu, entry: k}\narguments: [{name: a, type: float, count: 256, output: true},"
		 " {name: n, type: int32, value: 256}]\nspace: {z: [2, 128]}\nlaunch: {block: [1, 1, z], grid: [1]}\n"
		 "output: {csv: %s/deep.csv}\n", DIR);
	put_file(DIR "/deep.yaml", text);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"--dry-run", "-q", "--arch", "sm_90", DIR "/deep.yaml", NULL}, &out), 0);
	free(out);
	CU_ASSERT_EQUAL(count_in(DIR "/deep.dry-run.csv", ",0,0.0000,launch,"), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/deep.dry-run.csv", "block.z of 128: the device allows 64"), 1);
	unlink(DIR "/impossible.csv");
	unlink(DIR "/impossible.journal");
	unlink(DIR "/impossible_tuned.h");
	unlink(DIR "/impossible.yaml");
}

/* A header that only some binaries include: editing it re-measures exactly those. */
static void test_edited_header_remeasures_only_what_includes_it(void)
{
	mkdir(DIR, 0777);
	put_file(DIR "/h.h", "#define OFFSET 1\n");
	put_file(DIR "/kh.cu", "#if V == 2\n#include \"h.h\"\n#else\n#define OFFSET 0\n#endif\n"
			  "extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = i + OFFSET * V; }\n");
	config_path = write_named_config(DIR, "hdr", "kh.cu",
					 "space: {V: [1, 2], bx: [32, 64, 128]}\nbuild: {defines: [V]}\n"
					 "measure: {finalists: 0, metrics: none}");
	fake_worker_reset(DIR, "hdr");
	char *out;
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){"-q", NULL}, &out), 0);
	free(out);
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", "run "), 6);
	/* V=1's reference is refreshed once; the three V=2 configurations run again */
	unlink(DIR "/runs.log");
	put_file(DIR "/h.h", "#define OFFSET 2\n");
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){"-q", NULL}, &out), 0);
	free(out);
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", "run "), 1 + 3);
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", " ref "), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/hdr.csv", ",ok,"), 6);
	unlink(DIR "/hdr.csv");
	unlink(DIR "/hdr.journal");
	unlink(DIR "/hdr_tuned.h");
}

/* Each row's block size and whether it was measured, in the CSV's order, as one string. */
static char *measured_rows(void)
{
	FILE *f = fopen(DIR "/resume.csv", "r");
	char *rows = calloc(1, 4096), line[2048];
	if (!f)
		return rows;
	fgets(line, sizeof line, f);
	while (fgets(line, sizeof line, f)) {
		size_t n = strlen(rows);
		snprintf(rows + n, 4096 - n, "%d:%s ", atoi(line), strstr(line, ",ok,") ? "ok" : "-");
	}
	fclose(f);
	return rows;
}

/* A budgeted search killed with SIGKILL mid-way and resumed (--retry-failed takes back the one in
 * flight) measures exactly what the same search measures uninterrupted: the journal's results
 * steer the resumed search as the live ones did. */
static void test_kill_9_in_a_search_then_resume_repeats_it(void)
{
	config_path = write_space_config(DIR, "resume", NULL);
	char *opts[] = {"-q", "--strategy", "model", "--budget", "60%", "--seed", "4", NULL};
	fake_worker_reset(DIR, "resume");
	char *out;
	CU_ASSERT_EQUAL_FATAL(run_autotune_on(config_path, opts, &out), 0);
	free(out);
	char *whole = measured_rows();
	CU_ASSERT_EQUAL(count_in(DIR "/resume.csv", ",ok,"), 12);

	fake_worker_reset(DIR, "resume");
	setenv("FAKE_SLEEP_MS", "150", 1);
	char *argv[] = {"./autotune", "-q", "--strategy", "model", "--budget", "60%", "--seed", "4", config_path, NULL};
	CU_ASSERT_EQUAL_FATAL(kill_when_journaled(argv, DIR "/resume.journal", 4), 0);
	int done_before = count_in(DIR "/resume.journal", "done ");
	CU_ASSERT(done_before >= 4 && done_before < 12);
	unsetenv("FAKE_SLEEP_MS");
	char *again[] = {"-q", "--retry-failed", "--strategy", "model", "--budget", "60%", "--seed", "4", NULL};
	CU_ASSERT_EQUAL(run_autotune_on(config_path, again, &out), 0);
	free(out);
	char *resumed = measured_rows();
	CU_ASSERT_STRING_EQUAL(resumed, whole);
	/* the one in flight was measured again: its row no longer speaks of the crash */
	CU_ASSERT_EQUAL(count_in(DIR "/resume.csv", "an earlier run"), 0);
	free(resumed);
	free(whole);
}

/* Racing: a configuration whose first samples are slower than measure.race x the fastest median
 * measured before it stops at RACE_AFTER samples, flagged raced; the others, the winner and the
 * times are what a run without racing measures. Which were measured before which is the fake
 * worker's log of runs (bx each, in order). */
static void test_racing_stops_only_the_losers(void)
{
	table off, on;
	diags d = {0};
	char *out;
	config_path = write_space_config(DIR, "race", ", race: 0");
	fake_worker_reset(DIR, "race");
	CU_ASSERT_EQUAL_FATAL(run_autotune_on(config_path, (char *[]){"-q", NULL}, &out), 0);
	free(out);
	CU_ASSERT_EQUAL_FATAL(table_load(DIR "/race.csv", &off, &d), 0);
	config_path = write_space_config(DIR, "race", NULL);
	fake_worker_reset(DIR, "race");
	CU_ASSERT_EQUAL_FATAL(run_autotune_on(config_path, (char *[]){"-q", NULL}, &out), 0);
	free(out);
	CU_ASSERT_EQUAL_FATAL(table_load(DIR "/race.csv", &on, &d), 0);
	CU_ASSERT_EQUAL_FATAL(on.nrows, off.nrows);
	int tmin = table_col(&off, "time_ms_min"), tmed = table_col(&off, "time_ms_median"), n = table_col(&on, "samples");
	int bx = table_col(&off, "bx");
	/* the order of measuring, and from it whether each row should have been raced */
	char *slow = calloc(off.nrows + 1, 1);
	FILE *f = fopen(DIR "/runs.log", "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	double best = INFINITY;
	long long x;
	size_t *want_n = calloc(off.nrows + 1, sizeof *want_n);
	while (fscanf(f, "run %lld %*s %*d\n", &x) == 1)
		for (size_t r = 0; r < off.nrows; r++)
			if (table_num(&off, r, bx) == (double)x) {
				/* the bounds the tuner owes the worker: the best so far x race, and x the
				 * finalists' margin */
				stop_rule rule = {0, 10, 10, 1e9, isinf(best) ? 0 : 1.3 * best,
						  isinf(best) ? 0 : (1 + PLAN_FINAL_WITHIN) * best};
				while (!stats_should_stop(&rule, want_n[r], 0, 0, want_n[r] ? table_num(&off, r, tmin) : 1e300))
					want_n[r]++;
				slow[r] = want_n[r] < 10;
				if (!slow[r])
					best = fmin(best, table_num(&off, r, tmed));
			}
	fclose(f);
	int expected = 0, raced = 0;
	for (size_t r = 0; r < off.nrows; r++) {
		int flagged = strstr(table_field(&on, r, "flags"), "raced") != NULL;
		expected += slow[r];
		raced += flagged;
		CU_ASSERT_EQUAL(flagged, slow[r]);
		CU_ASSERT_PTR_NULL(strstr(table_field(&off, r, "flags"), "raced"));
		CU_ASSERT_EQUAL(table_num(&on, r, n), (double)want_n[r]);
		CU_ASSERT_STRING_EQUAL(table_field(&on, r, "status"), "ok");
		/* the ranking by time is the same (the fake times do not depend on the samples) */
		CU_ASSERT_DOUBLE_EQUAL(table_num(&on, r, tmed), table_num(&off, r, tmed), 0);
	}
	CU_ASSERT(expected > 0 && expected < (int)off.nrows);
	CU_ASSERT_EQUAL(raced, expected);
	CU_ASSERT_EQUAL(table_winner(&on), table_winner(&off));
	free(slow);
	free(want_n);
	table_free(&off);
	table_free(&on);
	diags_free(&d);
}

/* How many rows of CSV stopped raced at exactly n samples. */
static int raced_at(const char *csv, int n)
{
	table t;
	diags d = {0};
	int got = 0;
	if (table_load(csv, &t, &d) == 0) {
		int col = table_col(&t, "samples");
		for (size_t r = 0; r < t.nrows; r++)
			got += strstr(table_field(&t, r, "flags"), "raced") && table_num(&t, r, col) == n;
		table_free(&t);
	}
	diags_free(&d);
	return got;
}

/* A search steers by the times it measured, so only the clear losers race out there, on their
 * first sample; the near ones (within measure.race but too slow to be finalists) are measured in
 * full. The whole space measured races those out too, at RACE_AFTER samples. */
static void test_a_search_races_only_the_clear_losers(void)
{
	config_path = write_space_config(DIR, "srace", NULL);
	char *out;
	fake_worker_reset(DIR, "srace");
	CU_ASSERT_EQUAL_FATAL(run_autotune_on(config_path, (char *[]){"-q", NULL}, &out), 0);
	free(out);
	CU_ASSERT(raced_at(DIR "/srace.csv", RACE_AFTER) > 0);
	CU_ASSERT(raced_at(DIR "/srace.csv", 1) > 0);
	fake_worker_reset(DIR, "srace");
	unlink(DIR "/srace.journal");
	unlink(DIR "/srace.csv");
	char *opts[] = {"-q", "--strategy", "random", "--budget", "80%", "--seed", "3", NULL};
	CU_ASSERT_EQUAL_FATAL(run_autotune_on(config_path, opts, &out), 0);
	free(out);
	CU_ASSERT_EQUAL(raced_at(DIR "/srace.csv", RACE_AFTER), 0);
	CU_ASSERT(raced_at(DIR "/srace.csv", 1) > 0);
}

/* An exhaustive run measures the configurations the model ranks best first (the fake worker's
 * log of runs, in order, against the model's ranking of the same space on its sm_90). */
static void test_exhaustive_measures_the_promising_first(void)
{
	config_path = write_space_config(DIR, "order", NULL);
	fake_worker_reset(DIR, "order");
	char *out;
	CU_ASSERT_EQUAL_FATAL(run_autotune_on(config_path, (char *[]){"-q", NULL}, &out), 0);
	free(out);
	config cfg;
	space sp;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(config_load(config_path, &cfg, &d), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	result *res = calloc(sp.count, sizeof *res);
	CU_ASSERT_EQUAL_FATAL(space_eval_geometry(&cfg, &sp, res, &d), 0);
	double *prior = search_model_prior(&cfg, &sp, res, 90), last = -INFINITY;
	FILE *f = fopen(DIR "/runs.log", "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	long long x;
	int runs = 0, in_order = 0, space_order = 1;
	long long prev = 0;
	while (fscanf(f, "run %lld %*s %*d\n", &x) == 1) {
		for (size_t c = 0; c < sp.count; c++)
			if (res[c].block[0] == x) {
				in_order += prior[c] >= last;
				last = prior[c];
			}
		space_order &= x > prev;
		prev = x;
		runs++;
	}
	fclose(f);
	CU_ASSERT_EQUAL(runs, (int)sp.count);
	CU_ASSERT_EQUAL(in_order, runs);
	CU_ASSERT_FALSE(space_order); /* the model's order here is not the space's */
	free(prior);
	free(res);
	space_free(&sp);
	config_free(&cfg);
	diags_free(&d);
}

/* Two runs of the same results at once: the second refuses at once, naming the first's pid, and
 * the first ends as if alone, its lock file gone with it. */
static void test_a_second_run_of_the_same_results_is_refused(void)
{
	config_path = write_space_config(DIR, "twice", NULL);
	fake_worker_reset(DIR, "twice");
	setenv("FAKE_SLEEP_MS", "100", 1);
	proc first;
	char *argv[] = {"./autotune", "-q", config_path, NULL};
	CU_ASSERT_EQUAL_FATAL(proc_start(&first, argv, PROC_STDOUT | PROC_MERGE_STDERR), 0);
	double t0 = now_seconds();
	while (count_in(DIR "/twice.journal", "done ") < 2 && now_seconds() - t0 < 30)
		nap();
	char *out, want[96];
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){"-q", NULL}, &out), 2);
	snprintf(want, sizeof want, "another autotune run (pid %ld) is measuring into these results", (long)first.pid);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
	free(out);
	int timed_out;
	int st = proc_finish(&first, 60, &timed_out);
	unsetenv("FAKE_SLEEP_MS");
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CU_ASSERT(each_row_once(DIR "/twice.csv", NCONFIGS));
	CU_ASSERT_EQUAL(count_in(DIR "/twice.csv", ",ok,"), NCONFIGS);
	CU_ASSERT_EQUAL(access(DIR "/twice.journal.lock", F_OK), -1);
}

/* A search measures its budget and no more; the rest stays not run; the same seed repeats it. */
static void test_search_measures_its_budget(void)
{
	static const char *const strategies[] = {"random", "local", "anneal", "genetic", "model"};
	config_path = write_space_config(DIR, "resume", NULL);
	for (size_t i = 0; i < 5; i++) {
		char *first = NULL;
		for (int round = 0; round < 2; round++) {
			fake_worker_reset(DIR, "resume");
			char *out;
			CU_ASSERT_EQUAL(run_autotune_on(config_path,
							(char *[]){"-q", "--strategy", (char *)strategies[i], "--budget", "25%",
								   "--seed", "9", NULL},
							&out),
					0);
			free(out);
			CU_ASSERT_EQUAL(count_in(DIR "/runs.log", "run "), 5); /* 25% of 20 */
			CU_ASSERT_EQUAL(count_in(DIR "/resume.csv", ",ok,"), 5);
			/* the rest counted, not listed: only the binary's first configuration, when not
			 * measured, has a row (its registers) */
			CU_ASSERT(count_in(DIR "/resume.csv", ",not-run,") <= 1);
			CU_ASSERT_EQUAL(count_in(DIR "/resume.csv", ",20\r"), 5 + count_in(DIR "/resume.csv", ",not-run,"));
			FILE *f = fopen(DIR "/runs.log", "r");
			char *log = calloc(1, 4096);
			size_t n = fread(log, 1, 4095, f);
			log[n] = 0;
			fclose(f);
			if (round == 0)
				first = log;
			else {
				CU_ASSERT_STRING_EQUAL(first, log);
				free(log);
			}
		}
		free(first);
	}
}

/* A live search accounts for each of the 40 binaries, built or not needed, and leaves the rest
 * not run, not compile errors. How many it builds ahead depends on how long nvcc and the worker
 * take meanwhile (a busy machine builds more while it waits), so it is not asserted here: the
 * exact bound, twice what it waits for plus one per job, is test_schedule's "a search compiles
 * only what it needs", on the replay's clock with the same schedule and pool policy. */
static void test_a_live_search_accounts_for_every_binary(void)
{
	static const char *const strategies[] = {"random", "local", "anneal", "genetic", "model", "exhaustive"};
	mkdir(DIR, 0777);
	put_file(DIR "/kv.cu", "extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; "
			  "if (i < n) a[i] = i * V; }\n");
	config_path = write_named_config(DIR, "ondemand", "kv.cu",
					 "space: {V: {start: 1, stop: 40}, bx: [32, 64]}\nbuild: {defines: [V]}\n"
					 "verify: {reference: {V: 1, bx: 32}}\nmeasure: {finalists: 0, metrics: none}");
	for (size_t i = 0; i < sizeof strategies / sizeof strategies[0]; i++) {
		fake_worker_reset(DIR, "ondemand");
		char *out;
		CU_ASSERT_EQUAL(run_autotune_on(config_path,
						(char *[]){"--no-cache", "-j", "2", "--arch", "sm_90", "--strategy",
							   (char *)strategies[i], "--budget", "6", "--seed", "3", NULL},
						&out),
				0);
		int built = 0, skipped = 0, runs = 0;
		const char *line = strstr(out, "ondemand: 80 valid configurations");
		CU_ASSERT_PTR_NOT_NULL(line);
		if (line)
			sscanf(line, "ondemand: 80 valid configurations (of 80 combinations); %d binaries built in %*f s "
				     "(0 failed; %d not, the search did not need them; %d nvcc runs", &built, &skipped, &runs);
		if (!(runs >= 3 && built + skipped == 40))
			fprintf(stderr, "\n  %s: %d built, %d skipped, %d nvcc runs: %s\n", strategies[i], built, skipped, runs, out);
		CU_ASSERT(runs >= 3);
		CU_ASSERT_EQUAL(built + skipped, 40);
		CU_ASSERT_EQUAL(count_in(DIR "/ondemand.csv", ",compile-error,"), 0);
		CU_ASSERT(count_in(DIR "/ondemand.csv", ",ok,") >= 6);
		free(out);
	}
	unlink(DIR "/ondemand.csv");
	unlink(DIR "/ondemand.journal");
	unlink(DIR "/ondemand_tuned.h");
	unlink(DIR "/ondemand.yaml");
}

/* A search's first proposals depend on no result: they compile beside the reference's binary, so
 * that more than the reference's nvcc has started when measuring begins. */
static void test_the_first_proposals_compile_beside_the_reference(void)
{
	mkdir(DIR, 0777);
	put_file(DIR "/kf.cu", "extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; "
			  "if (i < n) a[i] = i * V; }\n");
	config_path = write_named_config(DIR, "first", "kf.cu",
					 "space: {V: {start: 1, stop: 40}, bx: [32, 64]}\nbuild: {defines: [V]}\n"
					 "verify: {reference: {V: 1, bx: 32}}\nmeasure: {finalists: 0, metrics: none}");
	static const char *const strategies[] = {"model", "random"};
	for (size_t i = 0; i < 2; i++) {
		fake_worker_reset(DIR, "first");
		setenv("AUTOTUNE_TRACE", "1", 1);
		char *out;
		CU_ASSERT_EQUAL(run_autotune_on(config_path,
						(char *[]){"--no-cache", "-j", "4", "--arch", "sm_90", "--strategy",
							   (char *)strategies[i], "--budget", "12", "--seed", "3", NULL},
						&out),
				0);
		unsetenv("AUTOTUNE_TRACE");
		const char *measuring = out ? strstr(out, ": measuring\n") : NULL;
		CU_ASSERT_PTR_NOT_NULL_FATAL(measuring);
		int before = 0;
		for (const char *p = out; (p = strstr(p, ": nvcc start ")) && p < measuring; p++)
			before++;
		/* the reference and at least two proposals: 4 slots, 12 distinct binaries proposed */
		CU_ASSERT(before >= 3);
		free(out);
	}
	unlink(DIR "/first.csv");
	unlink(DIR "/first.journal");
	unlink(DIR "/first_tuned.h");
	unlink(DIR "/first.yaml");
}

/* configs/streams.yaml in DIR, its kernel found from there, its outputs in DIR. */
static char *copy_streams_config(void)
{
	char cwd[4096], *text = read_text("configs/streams.yaml");
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
	char *at = strstr(text, "../kernels/streams.cu");
	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	char *copy = xasprintf("%.*s%s/kernels/streams.cu%s\noutput: {csv: " DIR "/streams.csv, header: " DIR "/streams_tuned.h}\n",
			       (int)(at - text), text, cwd, at + strlen("../kernels/streams.cu"));
	mkdir(DIR, 0777);
	put_file(DIR "/streams.yaml", copy);
	free(copy);
	free(text);
	return DIR "/streams.yaml";
}

/* The concurrency column of every row of csv, in order (caller frees). */
static double *concurrencies(const char *csv, size_t *n)
{
	table t;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(table_load(csv, &t, &d), 0);
	double *c = calloc(t.nrows + 1, sizeof *c);
	int col = table_col(&t, "concurrency");
	for (size_t r = 0; r < t.nrows; r++)
		c[r] = table_num(&t, r, col);
	*n = t.nrows;
	table_free(&t);
	return c;
}

/* configs/streams.yaml on the fake worker, which times a plan as the seed predicts: every
 * configuration passes with its concurrency; each runs on a worker of its connections, the first
 * pass one worker after the other (three workers in all); the journal keeps the concurrency for
 * a resumed run, and the header has the plan's choices. */
static void test_the_streams_config_runs_each_plan_on_its_workers(void)
{
	char *path = copy_streams_config();
	fake_worker_reset(DIR, "streams");
	char *out;
	CU_ASSERT_EQUAL_FATAL(run_autotune_on(path, (char *[]){"-q", NULL}, &out), 0);
	free(out);
	table t;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(table_load(DIR "/streams.csv", &t, &d), 0);
	CU_ASSERT_EQUAL(t.nrows, 60);
	int st = table_col(&t, "status"), ns = table_col(&t, "nstreams"), bf = table_col(&t, "breadth_first"),
	    cn = table_col(&t, "connections"), cc = table_col(&t, "concurrency"), pc = table_col(&t, "plan_connections");
	for (size_t r = 0; r < t.nrows; r++) {
		double streams = table_num(&t, r, ns), conns = table_num(&t, r, cn);
		double want = table_num(&t, r, bf) == 1 || streams <= conns ? streams : conns;
		CU_ASSERT_STRING_EQUAL(table_get(&t, r, st), "ok");
		CU_ASSERT_DOUBLE_EQUAL(table_num(&t, r, cc), want, 1e-3);
		CU_ASSERT_DOUBLE_EQUAL(table_num(&t, r, pc), conns, 0);
	}
	table_free(&t);
	/* the plans as the workers saw them: connections and pid, then the run's role */
	FILE *f = fopen(DIR "/runs.log", "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	char line[512], role[16];
	long conns = 0, pid, pids[8] = {0}, last = 0;
	int npids = 0, ordered = 1, plans = 0;
	while (fgets(line, sizeof line, f)) {
		if (sscanf(line, "plan %*d %*s %*d %ld %ld", &conns, &pid) == 2) {
			int seen = 0;
			for (int i = 0; i < npids; i++)
				seen |= pids[i] == pid;
			if (!seen && npids < 8)
				pids[npids++] = pid;
			plans++;
		} else if (sscanf(line, "run %*d %15s", role) == 1 && strcmp(role, "time")) {
			/* the first pass: one worker after the other */
			ordered &= conns >= last;
			last = conns;
		}
	}
	fclose(f);
	CU_ASSERT(ordered);
	CU_ASSERT_EQUAL(npids, 3);
	CU_ASSERT(plans >= 60);
	/* every result of a plan is journaled with its connections and serial time */
	CU_ASSERT_EQUAL(count_in(DIR "/streams.journal", "plan "), count_in(DIR "/streams.journal", "done "));
	char *header = read_text(DIR "/streams_tuned.h");
	CU_ASSERT_PTR_NOT_NULL(header && strstr(header, "#define STREAMS_PLAN_CONNECTIONS "));
	free(header);
	/* resumed: nothing measured again, the same concurrency from the journal */
	size_t n1, n2;
	double *before = concurrencies(DIR "/streams.csv", &n1);
	unlink(DIR "/runs.log");
	CU_ASSERT_EQUAL(run_autotune_on(path, (char *[]){NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "resuming: 60 configurations"));
	free(out);
	CU_ASSERT(count_in(DIR "/runs.log", "run ") <= 0); /* -1: no log at all, nothing ran */
	double *after = concurrencies(DIR "/streams.csv", &n2);
	CU_ASSERT_EQUAL_FATAL(n1, n2);
	for (size_t r = 0; r < n1; r++)
		CU_ASSERT_DOUBLE_EQUAL(after[r], before[r], 1e-9);
	free(before);
	free(after);
	diags_free(&d);
}

/* A kernel slow to return (the fake worker pretends each sample takes FAKE_SAMPLE_MS) under a
 * min_samples far above what time_cap leaves room for: sampling stops at the cap, every
 * configuration is measured (not a timeout), its message says the cap stopped it, and it is not
 * flagged raced although it has fewer samples than the minimum. */
static void test_the_time_cap_stops_sampling_below_the_minimum(void)
{
	table t;
	diags d = {0};
	char *out;
	config_path = write_space_config(DIR, "capped", ", min_samples: 1000, max_samples: 1000, time_cap: 0.5, race: 0");
	fake_worker_reset(DIR, "capped");
	setenv("FAKE_SAMPLE_MS", "100", 1);
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){"-q", NULL}, &out), 0);
	free(out);
	CU_ASSERT_EQUAL_FATAL(table_load(DIR "/capped.csv", &t, &d), 0);
	int st = table_col(&t, "status"), n = table_col(&t, "samples"), msg = table_col(&t, "message"),
	    flags = table_col(&t, "flags");
	CU_ASSERT_EQUAL(t.nrows, 20);
	for (size_t r = 0; r < t.nrows; r++) {
		CU_ASSERT_STRING_EQUAL(table_get(&t, r, st), "ok");
		CU_ASSERT(table_num(&t, r, n) == 5);
		CU_ASSERT_STRING_EQUAL(table_get(&t, r, msg), "time_cap reached after 0.5 s: 5 of min_samples 1000 samples");
		CU_ASSERT_PTR_NULL(strstr(table_get(&t, r, flags), "raced"));
	}
	table_free(&t);
	diags_free(&d);
	unsetenv("FAKE_SAMPLE_MS");
}

int add_measure_suite(void)
{
	CU_pSuite s = CU_add_suite("measure", NULL, fake_worker_forget);
	if (!s)
		return -1;
	CU_add_test(s, "kill -9 then resume loses nothing", test_kill_9_then_resume_loses_nothing);
	CU_add_test(s, "racing stops only the losers", test_racing_stops_only_the_losers);
	CU_add_test(s, "the time cap stops sampling below the minimum", test_the_time_cap_stops_sampling_below_the_minimum);
	CU_add_test(s, "a second run of the same results is refused", test_a_second_run_of_the_same_results_is_refused);
	CU_add_test(s, "a search races only the clear losers", test_a_search_races_only_the_clear_losers);
	CU_add_test(s, "exhaustive measures the promising first", test_exhaustive_measures_the_promising_first);
	CU_add_test(s, "impossible launches are not made", test_impossible_launches_are_not_made);
	CU_add_test(s, "--fresh and changed inputs measure everything again", test_fresh_and_changed_inputs_measure_everything_again);
	CU_add_test(s, "crash and hang cost one configuration each", test_crash_and_hang_cost_one_configuration_each);
	CU_add_test(s, "identical binaries are measured once", test_identical_binaries_are_measured_once);
	CU_add_test(s, "an edited header re-measures only what includes it", test_edited_header_remeasures_only_what_includes_it);
	CU_add_test(s, "a search measures its budget", test_search_measures_its_budget);
	CU_add_test(s, "kill -9 in a search, then resume, repeats it", test_kill_9_in_a_search_then_resume_repeats_it);
	CU_add_test(s, "a live search accounts for every binary", test_a_live_search_accounts_for_every_binary);
	CU_add_test(s, "the first proposals compile beside the reference", test_the_first_proposals_compile_beside_the_reference);
	CU_add_test(s, "the streams config runs each plan on its workers", test_the_streams_config_runs_each_plan_on_its_workers);
	return 0;
}

