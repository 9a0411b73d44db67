/* test_finish.c: the measuring stage's finish (finish.c), through the autotune binary with
 * tests/fake_worker.c as the GPU and the real nvcc: the fastest few are re-timed interleaved
 * (A B C A B C ...) and their finalists' median decides; fewer than two finalists re-time nothing;
 * a resumed run keeps its finalists unless something new was measured; the counters of the
 * fastest are taken in one session, and by default only where they can change the winner. The
 * fake worker times bx as 1 ms + bx / PER_MS ms, so the fastest are the smallest blocks. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "measure_pass.h"
#include "proc.h"
#include "table.h"
#include "tests.h"

#define DIR "scratch/finish"
#define CONFIG DIR "/fin.yaml"
#define CSV DIR "/fin.csv"
#define RUNS DIR "/runs.log"
#define NCONFIGS 10

/* A space of bx = 32, 64, ..., 320 with `measure` as its measure section; no earlier results.
 * Each takes 1 + bx / PER_MS ms: all within the finalists' margin of the fastest. */
#define PER_MS 10000
static void write_config(const char *measure)
{
	mkdir(DIR, 0777);
	FILE *f = fopen(DIR "/k.cu", "w");
	fputs("extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = i; }\n", f);
	fclose(f);
	f = fopen(CONFIG, "w");
	fprintf(f, "name: fin\nkernel: {source: k.cu, entry: k}\narguments:\n"
		   "  - {name: a, type: float, count: 4096, output: true}\n  - {name: n, type: int32, value: 4096}\n"
		   "space: {bx: {start: 32, stop: 320, step: 32}}\nlaunch: {block: [bx], grid: [\"ceil_div(4096, bx)\"]}\n"
		   "measure: {%s}\noutput: {csv: " CSV ", header: " DIR "/fin_tuned.h}\n",
		measure);
	fclose(f);
	unlink(CSV);
	unlink(DIR "/fin.journal");
	unlink(RUNS);
	fake_worker_forget();
	setenv("AUTOTUNE_WORKER", "build/fake_worker", 1);
	setenv("FAKE_LOG", RUNS, 1);
	setenv("FAKE_PER_MS", "10000", 1);
}

static int autotune(const char *extra)
{
	char *argv[] = {"./autotune", "-q", (char *)(extra ? extra : CONFIG), extra ? CONFIG : NULL, NULL};
	char *out = NULL;
	int st = proc_capture(argv, 120, &out);
	if (!(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0))
		fprintf(stderr, "\n  autotune: %s\n", out ? out : "");
	free(out);
	return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The bx of each "run BX time" line of the log, in order; how many. */
static int time_runs(int *bx, int max)
{
	FILE *f = fopen(RUNS, "r");
	char line[128];
	int n = 0, b, end;
	while (f && fgets(line, sizeof line, f))
		if ((end = 0, sscanf(line, "run %d time %n", &b, &end)) == 1 && end > 0 && n < max)
			bx[n++] = b;
	if (f)
		fclose(f);
	return n;
}

/* The CSV's field in the row of bx (static storage). */
static const char *field(const char *column, int bx)
{
	static char value[64];
	table t;
	diags d = {0};
	value[0] = 0;
	if (table_load(CSV, &t, &d) == 0) {
		for (size_t r = 0; r < t.nrows; r++)
			if (atoi(table_field(&t, r, "bx")) == bx)
				snprintf(value, sizeof value, "%s", table_field(&t, r, column));
		table_free(&t);
	}
	diags_free(&d);
	return value;
}

/* The three fastest, re-timed in rounds A B C A B C ..., each FINAL_ROUNDS times; only they have
 * final rounds and the finalist flag. */
static void test_the_fastest_are_retimed_interleaved(void)
{
	write_config("finalists: 3, metrics: none");
	CU_ASSERT_EQUAL_FATAL(autotune(NULL), 0);
	int bx[64];
	int n = time_runs(bx, 64);
	CU_ASSERT_EQUAL(n, 3 * FINAL_ROUNDS);
	int interleaved = 1;
	for (int i = 0; i < n; i++)
		interleaved &= bx[i] == 32 * (i % 3 + 1);
	CU_ASSERT(interleaved);
	for (int b = 32; b <= 32 * NCONFIGS; b += 32) {
		int finalist = b <= 96;
		char rounds[16];
		snprintf(rounds, sizeof rounds, "%d", FINAL_ROUNDS);
		CU_ASSERT_STRING_EQUAL(field("final_rounds", b), finalist ? rounds : "");
		CU_ASSERT_EQUAL(strstr(field("flags", b), "finalist") != NULL, finalist);
	}
}

/* When the first pass runs slow (the fake's slow GPU times first-pass runs 2% longer, finalist
 * rounds not), the finalists' own median is recorded and decides. */
static void test_the_finalists_median_decides(void)
{
	write_config("finalists: 2, metrics: none");
	setenv("FAKE_SLOW_GPU", "0", 1);
	CU_ASSERT_EQUAL_FATAL(autotune(NULL), 0);
	for (int b = 32; b <= 64; b += 32) {
		double t = 1.0 + (double)b / PER_MS;
		CU_ASSERT_DOUBLE_EQUAL(atof(field("time_ms_median", b)), 1.02 * t, 1e-4);
		CU_ASSERT_DOUBLE_EQUAL(atof(field("final_ms_median", b)), t, 1e-4);
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(field("flags", 32), "winner"));
	/* the header gives the winner's time: the finalists' median, not the slower first pass */
	char *h = read_text(DIR "/fin_tuned.h"), want[64];
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_PTR_NOT_NULL(strstr(h, "#define FIN_BX 32\n"));
	snprintf(want, sizeof want, "#define FIN_TIME_MS %f\n", 1.0 + 32.0 / PER_MS);
	CU_ASSERT_PTR_NOT_NULL(strstr(h, want));
	free(h);
}

/* One finalist or none: nothing to compare, nothing re-timed. */
static void test_fewer_than_two_finalists_retime_nothing(void)
{
	const char *measures[] = {"finalists: 0, metrics: none", "finalists: 1, metrics: none"};
	for (int i = 0; i < 2; i++) {
		write_config(measures[i]);
		CU_ASSERT_EQUAL_FATAL(autotune(NULL), 0);
		int bx[8];
		CU_ASSERT_EQUAL(time_runs(bx, 8), 0);
		CU_ASSERT_STRING_EQUAL(field("final_rounds", 32), "");
		CU_ASSERT_PTR_NULL(strstr(field("flags", 32), "finalist"));
	}
}

/* Resumed with nothing new measured, the journaled finalists stand; once something new was
 * measured (a crashed one retried), the finalists are ranked and re-timed again. */
static void test_a_resumed_run_retimes_only_after_new_measurements(void)
{
	write_config("finalists: 3, metrics: none");
	setenv("FAKE_CRASH_BX", "64", 1);
	CU_ASSERT_EQUAL_FATAL(autotune(NULL), 0);
	int bx[64];
	CU_ASSERT_EQUAL(time_runs(bx, 64), 3 * FINAL_ROUNDS);
	CU_ASSERT_EQUAL(bx[1], 96); /* 64 crashed: 32, 96, 128 */
	unsetenv("FAKE_CRASH_BX");
	unlink(RUNS);
	CU_ASSERT_EQUAL_FATAL(autotune(NULL), 0);
	CU_ASSERT_EQUAL(time_runs(bx, 64), 0);
	CU_ASSERT_STRING_NOT_EQUAL(field("final_rounds", 128), "");
	unlink(RUNS);
	CU_ASSERT_EQUAL_FATAL(autotune("--retry-failed"), 0);
	CU_ASSERT_EQUAL(time_runs(bx, 64), 3 * FINAL_ROUNDS);
	CU_ASSERT(bx[0] == 32 && bx[1] == 64 && bx[2] == 96);
	CU_ASSERT_STRING_EQUAL(field("final_rounds", 128), ""); /* no longer among them */
	CU_ASSERT_STRING_EQUAL(field("status", 64), "ok");
}

/* metrics: top:2 profiles the two fastest in one session, after the finalists: their rows have
 * counters (the fake's achieved occupancy is bx / 10), the others none. */
static void test_the_counters_of_the_fastest(void)
{
	write_config("finalists: 3, metrics: \"top:2\"");
	setenv("FAKE_METRICS", "1", 1);
	CU_ASSERT_EQUAL_FATAL(autotune(NULL), 0);
	CU_ASSERT_EQUAL(count_in(RUNS, "profiles "), 1);
	CU_ASSERT_EQUAL(count_in(RUNS, "profiles 2 0"), 1);
	CU_ASSERT_DOUBLE_EQUAL(atof(field("achieved_occupancy_pct", 32)), 3.2, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(atof(field("achieved_occupancy_pct", 64)), 6.4, 1e-9);
	/* top:K reads every counter of the CSV */
	CU_ASSERT_EQUAL(count_in(RUNS, "counters 0 all"), 1);
	CU_ASSERT_DOUBLE_EQUAL(atof(field("dram_pct", 32)), 50, 1e-9);
	for (int b = 96; b <= 32 * NCONFIGS; b += 32)
		CU_ASSERT_STRING_EQUAL(field("achieved_occupancy_pct", b), "");
	/* the session came after the last finalist round */
	FILE *f = fopen(RUNS, "r");
	char line[128];
	int last_time = 0, session = 0;
	for (int at = 1; f && fgets(line, sizeof line, f); at++) {
		if (strstr(line, " time "))
			last_time = at;
		if (!strncmp(line, "profiles ", 9))
			session = at;
	}
	if (f)
		fclose(f);
	CU_ASSERT(session > last_time && last_time > 0);
}

/* Two builds of each block (a define apart, so both are measured) take the same time: the
 * fastest two are tied and only the balance can choose between them. By default (auto) they
 * alone get counters, in one session; with policy fastest, or no tie, nobody does. */
static void test_by_default_counters_go_where_they_decide(void)
{
	write_config("finalists: 3");
	put_file(DIR "/kv.cu", "extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n + V) a[i] = i; }\n");
	const char *base = "name: fin\nkernel: {source: kv.cu, entry: k}\narguments:\n"
			   "  - {name: a, type: float, count: 4096, output: true}\n  - {name: n, type: int32, value: 4096}\n"
			   "launch: {block: [bx], grid: [\"ceil_div(4096, bx)\"]}\nbuild: {defines: [V]}\n"
			   "output: {csv: " CSV ", header: " DIR "/fin_tuned.h}\n";
	const char *cases[] = {"space: {bx: [32, 64, 96], V: [0, 1]}\n",
			       "space: {bx: [32, 64, 96], V: [0, 1]}\nselect: {policy: fastest}\n",
			       "space: {bx: [32, 64, 96], V: [0]}\n"};
	setenv("FAKE_METRICS", "1", 1);
	setenv("FAKE_PER_MS", "1000", 1); /* only the twins tie */
	for (int i = 0; i < 3; i++) {
		char text[1024];
		snprintf(text, sizeof text, "%s%s", base, cases[i]);
		put_file(CONFIG, text);
		unlink(CSV);
		unlink(DIR "/fin.journal");
		unlink(RUNS);
		CU_ASSERT_EQUAL_FATAL(autotune(NULL), 0);
		CU_ASSERT_EQUAL(count_in(RUNS, "profiles "), i == 0);
		CU_ASSERT_EQUAL(count_in(RUNS, "profiles 2 0"), i == 0);
		for (int b = 32; b <= 96; b += 32)
			CU_ASSERT_EQUAL(field("achieved_occupancy_pct", b)[0] != 0, i == 0 && b == 32);
		/* and only the counters the balance weighs: one pass fewer */
		CU_ASSERT_EQUAL(count_in(RUNS, "counters 0 decide"), 1);
		CU_ASSERT_EQUAL(count_in(RUNS, "counters 0 all"), 0);
		CU_ASSERT_STRING_EQUAL(field("dram_pct", 32), "");
		CU_ASSERT_STRING_EQUAL(field("gld_throughput_gbps", 32), "");
	}
	unsetenv("FAKE_METRICS");
}

int add_finish_suite(void)
{
	CU_pSuite s = CU_add_suite("finish", NULL, fake_worker_forget);
	if (!s)
		return -1;
	CU_add_test(s, "the fastest are re-timed interleaved", test_the_fastest_are_retimed_interleaved);
	CU_add_test(s, "the finalists' median decides", test_the_finalists_median_decides);
	CU_add_test(s, "fewer than two finalists re-time nothing", test_fewer_than_two_finalists_retime_nothing);
	CU_add_test(s, "by default counters go where they decide", test_by_default_counters_go_where_they_decide);
	CU_add_test(s, "a resumed run re-times only after new measurements", test_a_resumed_run_retimes_only_after_new_measurements);
	CU_add_test(s, "the counters of the fastest", test_the_counters_of_the_fastest);
	return 0;
}
