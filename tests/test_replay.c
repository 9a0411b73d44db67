/* test_replay.c: a search against a recorded run (replay.c): each "measurement" is the CSV's time
 * of that configuration, so strategies are tested and compared without a GPU. The recording is a
 * real H100 run of configs/summatrix.yaml (tests/data); what a replay should find is computed here
 * from that file, not written down. */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "proc.h"
#include "replay.h"
#include "table.h"
#include "tests.h"

#define RECORDING "tests/data/summatrix_h100.csv"

static config cfg;
static space sp;

static int setup(void)
{
	diags d = {0};
	int rc = config_load("configs/summatrix.yaml", &cfg, &d) || space_enumerate(&cfg, &sp, &d);
	diags_print(&d);
	diags_free(&d);
	return rc ? -1 : 0;
}

static int teardown(void)
{
	space_free(&sp);
	config_free(&cfg);
	return 0;
}

/* The recorded time of configuration c (the finalists' median where re-timed), INFINITY when it
 * did not pass or is not in the file; read with the results reader, apart from replay.c's own. */
static double recorded(const table *t, size_t c)
{
	const value *v = space_config(&sp, c);
	for (size_t r = 0; r < t->nrows; r++) {
		int same = 1;
		for (size_t p = 0; p < cfg.nparams && same; p++)
			same = table_num(t, r, table_col(t, cfg.params[p].name)) == value_as_double(v[p]);
		if (!same)
			continue;
		if (strcmp(table_field(t, r, "status"), "ok"))
			return INFINITY;
		double fin = table_num(t, r, table_col(t, "final_ms_median"));
		return isnan(fin) ? table_num(t, r, table_col(t, "time_ms_median")) : fin;
	}
	return INFINITY;
}

/* Exhaustive over the whole space: every configuration once, and the best found is the
 * recording's optimum, at the configuration that holds it. */
static void test_exhaustive_finds_the_recordings_optimum(void)
{
	table t;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(table_load(RECORDING, &t, &d), 0);
	double best = INFINITY;
	long long at = -1;
	for (size_t c = 0; c < sp.count; c++)
		if (recorded(&t, c) < best) {
			best = recorded(&t, c);
			at = (long long)c;
		}
	CU_ASSERT_FATAL(at >= 0);
	char out[128];
	snprintf(out, sizeof out, "%s/replay.csv", test_dir);
	replay_result r;
	CU_ASSERT_EQUAL_FATAL(replay_run(&cfg, &sp, &(replay_opts){.recording = RECORDING, .strategy = STRAT_EXHAUSTIVE,
					 .budget = sp.count, .seed = 1, .jobs = 4, .out = out}, &r, &d), 0);
	CU_ASSERT_EQUAL(r.evaluations, sp.count);
	CU_ASSERT_DOUBLE_EQUAL(r.optimum, best, 0);
	CU_ASSERT_DOUBLE_EQUAL(r.best_found, best, 0);
	CU_ASSERT_EQUAL(r.best_config, at);
	CU_ASSERT_EQUAL(count_in(out, "\n"), 1 + (int)sp.count);
	unlink(out);
	table_free(&t);
	diags_free(&d);
}

/* Every strategy within a budget: exactly the budget evaluated, the best found no better than the
 * optimum and the recorded time of the configuration it names, and each step of the sequence
 * the recorded time of the configuration it names (empty where that one failed). */
static void test_every_strategy_sees_the_recorded_times(void)
{
	table t;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(table_load(RECORDING, &t, &d), 0);
	char out[128];
	snprintf(out, sizeof out, "%s/replay.csv", test_dir);
	for (int s = 0; s < STRAT_COUNT_; s++) {
		replay_result r;
		CU_ASSERT_EQUAL_FATAL(replay_run(&cfg, &sp, &(replay_opts){.recording = RECORDING, .strategy = (strategy)s,
						 .budget = 16, .seed = 3, .jobs = 4, .out = out}, &r, &d), 0);
		CU_ASSERT_EQUAL(r.evaluations, 16);
		CU_ASSERT(r.best_found >= r.optimum);
		CU_ASSERT(r.best_config >= 0);
		if (r.best_config >= 0)
			CU_ASSERT_DOUBLE_EQUAL(recorded(&t, (size_t)r.best_config), r.best_found, 0);
		/* step,block_x,block_y,maxrreg,time_ms */
		FILE *f = fopen(out, "r");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		char line[256];
		int steps = 0, agree = 0;
		CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));
		CU_ASSERT_EQUAL(strcmp(line, "step,block_x,block_y,maxrreg,time_ms\r\n"), 0);
		while (fgets(line, sizeof line, f)) {
			long long step, x, y, m;
			char tail[64] = "";
			if (sscanf(line, "%lld,%lld,%lld,%lld,%63[^\r\n]", &step, &x, &y, &m, tail) < 4)
				continue;
			steps++;
			for (size_t c = 0; c < sp.count; c++) {
				const value *v = space_config(&sp, c);
				if (v[0].u.i != x || v[1].u.i != y || v[2].u.i != m)
					continue;
				double want = recorded(&t, c);
				agree += isinf(want) ? !*tail : *tail && fabs(strtod(tail, NULL) - want) <= 1e-5 * want;
			}
		}
		fclose(f);
		CU_ASSERT_EQUAL(steps, 16);
		CU_ASSERT_EQUAL(agree, 16);
	}
	unlink(out);
	table_free(&t);
	diags_free(&d);
}

/* A recording of another config, one without times, or none at all: refused, the reason given. */
static void test_a_recording_that_does_not_fit_is_refused(void)
{
	static const struct {
		const char *csv, *why;
	} bad[] = {
		{"tests/data/reduce_h100.csv", "no column for parameter 'block_x': not a run of this config"},
		{NULL, "no status or time_ms_median column"},
		{"/nonexistent/run.csv", "cannot read the recorded run '/nonexistent/run.csv'"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		const char *csv = bad[i].csv ? bad[i].csv : write_temp(0, "untimed.csv", "block_x,block_y,maxrreg,status\r\n32,1,0,ok\r\n");
		replay_result r;
		diags d = {0};
		CU_ASSERT_EQUAL(replay_run(&cfg, &sp, &(replay_opts){.recording = csv, .strategy = STRAT_RANDOM,
						 .budget = 10, .seed = 1, .jobs = 4, .out = NULL}, &r, &d), -1);
		CU_ASSERT_EQUAL_FATAL(d.n, 1);
		CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], bad[i].why));
		diags_free(&d);
	}
}

/* A small recording by hand: a failure and an absent configuration count as failed measurements,
 * and a re-timed finalist's median decides over its first-pass time. */
static void test_failures_and_gaps_count_as_failed(void)
{
	config c;
	space s;
	diags d = {0};
	const char *yaml = write_temp(1, "small.yaml", "kernel: {source: /dev/null, entry: k}\narguments: [{name: a, type: float, count: 4}]\n"
						       "space: {x: [32, 64, 96, 128]}\nlaunch: {block: [x], grid: [1]}\n");
	CU_ASSERT_EQUAL_FATAL(config_load(yaml, &c, &d), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&c, &s, &d), 0);
	const char *csv = write_temp(2, "small.csv", "x,time_ms_median,final_ms_median,status\r\n"
						   "32,5.0,,ok\r\n64,0.5,,crashed\r\n96,2.0,1.5,ok\r\n");
	char out[128];
	snprintf(out, sizeof out, "%s/small.replay.csv", test_dir);
	replay_result r;
	CU_ASSERT_EQUAL_FATAL(replay_run(&c, &s, &(replay_opts){.recording = csv, .strategy = STRAT_EXHAUSTIVE,
					 .budget = 4, .seed = 1, .jobs = 4, .out = out}, &r, &d), 0);
	CU_ASSERT_EQUAL(r.evaluations, 4);
	CU_ASSERT_DOUBLE_EQUAL(r.optimum, 1.5, 0);
	CU_ASSERT_DOUBLE_EQUAL(r.best_found, 1.5, 0);
	CU_ASSERT_EQUAL(r.best_config, 2);
	char *seq = read_text(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(seq);
	CU_ASSERT_PTR_NOT_NULL(strstr(seq, ",32,5\r\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(seq, ",64,\r\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(seq, ",96,1.5\r\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(seq, ",128,\r\n"));
	free(seq);
	/* nothing passed: no best at all */
	csv = write_temp(2, "small.csv", "x,time_ms_median,status\r\n32,5.0,crashed\r\n");
	CU_ASSERT_EQUAL(replay_run(&c, &s, &(replay_opts){.recording = csv, .strategy = STRAT_EXHAUSTIVE,
					 .budget = 4, .seed = 1, .jobs = 4, .out = NULL}, &r, &d), 0);
	CU_ASSERT(isinf(r.optimum) && isinf(r.best_found));
	CU_ASSERT_EQUAL(r.best_config, -1);
	unlink(out);
	space_free(&s);
	config_free(&c);
	diags_free(&d);
}

/* A recording where nothing passed: exit 1 and said so, not a ratio of two infinities. */
static void test_nothing_passed_is_said(void)
{
	const char *yaml = write_temp(1, "failed.yaml", "kernel: {source: /dev/null, entry: k}\n"
						       "arguments: [{name: a, type: float, count: 4, output: true}]\n"
						       "space: {x: [32, 64]}\nlaunch: {block: [x], grid: [1]}\n"
						       "output: {csv: scratch/replay-failed/failed.csv}\n");
	const char *csv = write_temp(2, "failed.csv", "x,time_ms_median,status\r\n32,5.0,crashed\r\n64,1,timeout\r\n");
	char *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){"--replay", (char *)csv, (char *)yaml, NULL}, &out), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "2 evaluations of 2 configurations; none passed, nor did any configuration of"));
	CU_ASSERT_PTR_NULL(strstr(out, "nan"));
	free(out);
	char *rm[] = {"rm", "-rf", "scratch/replay-failed", NULL};
	proc_capture(rm, 30, &out);
	free(out);
}

/* --replay that cannot write its sequence says why, exits 2, and leaves no empty file behind
 * (in test_dir: runs of the suites at once never share it). */
static void test_a_replay_that_cannot_write_says_why(void)
{
	char dir[128], yaml[160], rec[160], out_csv[160], seq[160], config[512], why[256];
	snprintf(dir, sizeof dir, "%s/replay-full", test_dir);
	snprintf(yaml, sizeof yaml, "%s/r.yaml", dir);
	snprintf(rec, sizeof rec, "%s/rec.csv", dir);
	snprintf(out_csv, sizeof out_csv, "%s/r.csv", dir);
	snprintf(seq, sizeof seq, "%s/r.replay.csv", dir);
	snprintf(why, sizeof why, "cannot write '%s': File too large", seq);
	snprintf(config, sizeof config,
		 "kernel: {source: /dev/null, entry: k}\n"
		 "arguments: [{name: a, type: float, count: 4, output: true}]\n"
		 "space: {x: [32, 64]}\nlaunch: {block: [x], grid: [1]}\n"
		 "output: {csv: %s}\n",
		 out_csv);
	remove_dir(dir);
	mkdir(dir, 0777);
	put_file(yaml, config);
	put_file(rec, "x,time_ms_median,status\r\n32,5.0,ok\r\n64,1,ok\r\n");
	char *args[] = {"--replay", rec, yaml, NULL}, *out;
	CU_ASSERT_EQUAL(run_autotune_limited(args, 0, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, why));
	free(out);
	CU_ASSERT_EQUAL(access(seq, F_OK), -1);
	CU_ASSERT_EQUAL(run_autotune(args, &out), 0);
	free(out);
	CU_ASSERT_EQUAL(count_in(seq, "\n"), 3);
	remove_dir(dir);
}

/* The pool tests' space: 8 configurations, each a binary of its own. */
static int load_pool(config *c, space *s, diags *d)
{
	const char *yaml = write_temp(1, "pool.yaml", "kernel: {source: /dev/null, entry: k}\narguments: [{name: a, type: float, count: 4}]\n"
						      "space: {x: [32, 64, 96, 128, 160, 192, 224, 256]}\nlaunch: {block: [x], grid: [1]}\n"
						      "build: {defines: [x]}\n");
	return config_load(yaml, c, d) || space_enumerate(c, s, d) ? -1 : 0;
}

/* The simulated compile pool: each binary takes one latency on one of `jobs` slots. Exhaustive
 * over 8 binaries takes 8 latencies on one slot and about one on 8 (all hinted at once); a random
 * search builds only what it draws; and no search waits less than one latency per binary on
 * one slot. */
static void test_compiles_are_simulated_on_a_pool(void)
{
	config c;
	space s;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(load_pool(&c, &s, &d), 0);
	const char *csv = write_temp(2, "pool.csv", "x,time_ms_median,status\r\n32,8,ok\r\n64,7,ok\r\n96,6,ok\r\n128,5,ok\r\n"
						  "160,4,ok\r\n192,3,ok\r\n224,2,ok\r\n256,1,ok\r\n");
	replay_result one, eight;
	CU_ASSERT_EQUAL_FATAL(replay_run(&c, &s, &(replay_opts){.recording = csv, .strategy = STRAT_EXHAUSTIVE,
					 .budget = 8, .seed = 1, .jobs = 1, .out = NULL}, &one, &d), 0);
	CU_ASSERT_EQUAL_FATAL(replay_run(&c, &s, &(replay_opts){.recording = csv, .strategy = STRAT_EXHAUSTIVE,
					 .budget = 8, .seed = 1, .jobs = 8, .out = NULL}, &eight, &d), 0);
	CU_ASSERT_EQUAL(one.built, 8);
	CU_ASSERT_EQUAL(eight.built, 8);
	CU_ASSERT(one.compile_latencies >= 8);
	CU_ASSERT(eight.compile_latencies >= 1 && eight.compile_latencies < 1.5);
	CU_ASSERT_EQUAL_FATAL(replay_run(&c, &s, &(replay_opts){.recording = csv, .strategy = STRAT_RANDOM,
					 .budget = 3, .seed = 1, .jobs = 8, .out = NULL}, &eight, &d), 0);
	CU_ASSERT_EQUAL(eight.built, 3);
	CU_ASSERT(eight.compile_latencies < 1.5);
	for (int st = 0; st < STRAT_COUNT_; st++) {
		CU_ASSERT_EQUAL_FATAL(replay_run(&c, &s, &(replay_opts){.recording = csv, .strategy = (strategy)st,
						 .budget = 5, .seed = 2, .jobs = 1, .out = NULL}, &one, &d), 0);
		CU_ASSERT(one.built >= one.evaluations);
		CU_ASSERT(one.compile_latencies >= (double)one.evaluations); /* each waited for in turn */
	}
	space_free(&s);
	config_free(&c);
	diags_free(&d);
}

/* With the recording's compile seconds the simulated pool runs in seconds: exhaustive over 8
 * binaries on 8 slots ends with the longest compile (5 s), on one slot after their sum (12 s);
 * a recording missing one binary's seconds falls back to latencies, and says so. */
static void test_recorded_compile_seconds_drive_the_pool(void)
{
	config c;
	space s;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(load_pool(&c, &s, &d), 0);
	const char *csv = write_temp(2, "secs.csv", "x,compile_s,time_ms_median,status\r\n32,1,8,ok\r\n64,1,7,ok\r\n96,1,6,ok\r\n"
						  "128,1,5,ok\r\n160,1,4,ok\r\n192,1,3,ok\r\n224,1,2,ok\r\n256,5,1,ok\r\n");
	replay_result one, eight;
	CU_ASSERT_EQUAL_FATAL(replay_run(&c, &s, &(replay_opts){.recording = csv, .strategy = STRAT_EXHAUSTIVE,
					 .budget = 8, .seed = 1, .jobs = 1, .out = NULL}, &one, &d), 0);
	CU_ASSERT_EQUAL_FATAL(replay_run(&c, &s, &(replay_opts){.recording = csv, .strategy = STRAT_EXHAUSTIVE,
					 .budget = 8, .seed = 1, .jobs = 8, .out = NULL}, &eight, &d), 0);
	CU_ASSERT(one.seconds && eight.seconds);
	CU_ASSERT(one.compile_latencies >= 12 && one.compile_latencies < 12.5);
	CU_ASSERT(eight.compile_latencies >= 5 && eight.compile_latencies < 5.5);
	const char *gap = write_temp(3, "gap.csv", "x,compile_s,time_ms_median,status\r\n32,1,8,ok\r\n64,,7,ok\r\n96,1,6,ok\r\n"
						  "128,1,5,ok\r\n160,1,4,ok\r\n192,1,3,ok\r\n224,1,2,ok\r\n256,5,1,ok\r\n");
	CU_ASSERT_EQUAL_FATAL(replay_run(&c, &s, &(replay_opts){.recording = gap, .strategy = STRAT_EXHAUSTIVE,
					 .budget = 8, .seed = 1, .jobs = 1, .out = NULL}, &one, &d), 0);
	CU_ASSERT(!one.seconds);
	CU_ASSERT(one.compile_latencies >= 8 && one.compile_latencies < 8.5);
	space_free(&s);
	config_free(&c);
	diags_free(&d);
}


/* A recording added to tests/data is held to the default's bar too: it must be in test_recordings
 * (or, the source of a transfer, in test_transfers, its twin in test_recordings). */
static void test_every_recording_is_replayed(void)
{
	DIR *dir = opendir("tests/data");
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	int n = 0;
	for (struct dirent *e; (e = readdir(dir));) {
		size_t len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 4, ".csv"))
			continue;
		char path[300];
		snprintf(path, sizeof path, "tests/data/%s", e->d_name);
		int listed = 0;
		for (size_t i = 0; i < TEST_RECORDINGS; i++)
			listed |= !strcmp(test_recordings[i][1], path);
		for (size_t i = 0; i < TEST_TRANSFERS; i++)
			listed |= !strcmp(test_transfers[i][1], path);
		if (!listed)
			fprintf(stderr, "\n  %s is not in tests.c's test_recordings (or test_transfers): add it with its config\n", path);
		CU_ASSERT(listed);
		n++;
	}
	closedir(dir);
	CU_ASSERT(n >= 6);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The default strategy at a tenth of each recorded space (tests/data: three seed kernels and the
 * compile-bound convolution, GEMM and stencil), 30 seeds each: at the 90th percentile it ends
 * within 5% of the recording's optimum; compiling ahead, it finds the same in no more wall time
 * on average than the plain pool (AUTOTUNE_AHEAD=0), building only what its idle slots could. */
static void test_the_default_holds_on_every_recording(void)
{
	enum { SEEDS = 30 };
	for (size_t i = 0; i < TEST_RECORDINGS; i++) {
		config c;
		space s;
		diags d = {0};
		CU_ASSERT_EQUAL_FATAL(config_load(test_recordings[i][0], &c, &d), 0);
		CU_ASSERT_EQUAL_FATAL(space_enumerate(&c, &s, &d), 0);
		size_t budget = (s.count + 9) / 10;
		double ratio[SEEDS], wall = 0, plain_wall = 0;
		for (int seed = 0; seed < SEEDS; seed++) {
			replay_result r, plain;
			CU_ASSERT_EQUAL_FATAL(replay_run(&c, &s, &(replay_opts){.recording = test_recordings[i][1], .strategy = STRAT_MODEL,
							 .budget = budget, .seed = (unsigned long long)seed + 1, .jobs = 16, .out = NULL}, &r, &d), 0);
			setenv("AUTOTUNE_AHEAD", "0", 1);
			CU_ASSERT_EQUAL_FATAL(replay_run(&c, &s, &(replay_opts){.recording = test_recordings[i][1], .strategy = STRAT_MODEL,
							 .budget = budget, .seed = (unsigned long long)seed + 1, .jobs = 16, .out = NULL}, &plain, &d), 0);
			unsetenv("AUTOTUNE_AHEAD");
			CU_ASSERT_EQUAL(r.evaluations, budget);
			CU_ASSERT_EQUAL(r.best_config, plain.best_config);
			CU_ASSERT(plain.built <= 2 * plain.evaluations);
			CU_ASSERT(r.built <= r.evaluations + 16 * (size_t)ceil(r.compile_latencies));
			wall += r.compile_latencies;
			plain_wall += plain.compile_latencies;
			ratio[seed] = r.best_found / r.optimum;
		}
		CU_ASSERT(wall <= plain_wall * 1.001);
		qsort(ratio, SEEDS, sizeof *ratio, by_value);
		double p90 = ratio[(SEEDS * 9 + 9) / 10 - 1];
		if (p90 > 1.05)
			fprintf(stderr, "\n  %s: found/optimum %.4f at the 90th percentile\n", test_recordings[i][0], p90);
		CU_ASSERT(p90 <= 1.05);
		space_free(&s);
		config_free(&c);
		diags_free(&d);
	}
}

/* At 5% of summatrix (8 of 153, three binaries) the cheap draws from built binaries once took the
 * model picks' places: some runs measured draws only and their worst tenth fell to 0.937 of the
 * optimum, where the model's picks alone gave 1.000. The methodology's bar: 0.95. */
static void test_cheap_draws_leave_the_model_picks_their_place(void)
{
	enum { SEEDS = 30 };
	config c;
	space s;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(config_load("configs/summatrix.yaml", &c, &d), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&c, &s, &d), 0);
	size_t budget = (size_t)ceil(0.05 * (double)s.count);
	double ratio[SEEDS];
	for (int seed = 0; seed < SEEDS; seed++) {
		replay_result r;
		CU_ASSERT_EQUAL_FATAL(replay_run(&c, &s, &(replay_opts){.recording = RECORDING, .strategy = STRAT_MODEL,
						 .budget = budget, .seed = (unsigned long long)seed + 1, .jobs = 1}, &r, &d), 0);
		CU_ASSERT_EQUAL(r.evaluations, budget);
		ratio[seed] = r.optimum / r.best_found;
	}
	qsort(ratio, SEEDS, sizeof *ratio, by_value);
	CU_ASSERT(ratio[(SEEDS - 1) / 10] >= 0.95);
	space_free(&s);
	config_free(&c);
	diags_free(&d);
}

/* At 5% of GEMM (559 of 11,164) 3 of 30 runs once stopped at 0.934 of the optimum, in a basin six
 * parameters from it, which neither the children of the best nor its ridge moves leave: a plateau
 * restarts from the best configuration measured in another basin. The bar: the methodology's 0.95
 * for the worst tenth. */
static void test_a_plateau_leaves_a_distant_basin(void)
{
	enum { SEEDS = 30 };
	config c;
	space s;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(config_load("configs/gemm.yaml", &c, &d), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&c, &s, &d), 0);
	size_t budget = (size_t)ceil(0.05 * (double)s.count);
	double ratio[SEEDS];
	for (int seed = 0; seed < SEEDS; seed++) {
		replay_result r;
		CU_ASSERT_EQUAL_FATAL(replay_run(&c, &s, &(replay_opts){.recording = "tests/data/gemm_h100.csv",
						 .strategy = STRAT_MODEL, .budget = budget, .seed = (unsigned long long)seed + 1,
						 .jobs = 1}, &r, &d), 0);
		ratio[seed] = r.optimum / r.best_found;
	}
	qsort(ratio, SEEDS, sizeof *ratio, by_value);
	if (ratio[(SEEDS - 1) / 10] < 0.95)
		fprintf(stderr, "\n  GEMM at 5%%: worst tenth %.3f of the optimum\n", ratio[(SEEDS - 1) / 10]);
	CU_ASSERT(ratio[(SEEDS - 1) / 10] >= 0.95);
	space_free(&s);
	config_free(&c);
	diags_free(&d);
}

/* --replay against a recorded H100 run of configs/summatrix.yaml (tests/data): no GPU, no nvcc;
 * the budget is kept, the same seed gives the same sequence, every strategy beats nothing. */
static void test_replay_of_a_recorded_run(void)
{
	static const char *const strategies[] = {"exhaustive", "random", "local", "anneal", "genetic", "model"};
	for (size_t i = 0; i < 6; i++) {
		char *first = NULL;
		for (int round = 0; round < 2; round++) {
			char *argv[] = {"./autotune", "--replay", "tests/data/summatrix_h100.csv", "--strategy", (char *)strategies[i],
					"--budget", "10%", "--seed", "7", "configs/summatrix.yaml", NULL};
			char *out;
			int st = proc_capture(argv, 60, &out);
			CU_ASSERT(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
			CU_ASSERT_PTR_NOT_NULL(strstr(out, ": 16 evaluations of 153 configurations; best found "));
			free(out);
			char *seq = read_text("results/summatrix.replay.csv");
			CU_ASSERT_PTR_NOT_NULL_FATAL(seq);
			int lines = 0;
			for (char *p = seq; (p = strchr(p, '\n')); p++)
				lines++;
			CU_ASSERT_EQUAL(lines, 17); /* header + 16 evaluations */
			/* every proposal a configuration of the space, none twice: the rows' parameter parts
			 * ("step,bx,by,cap," minus the step) are distinct and each names a valid shape */
			char *rows[17] = {0};
			int nrows = 0;
			for (char *line = strchr(seq, '\n') + 1; *line && nrows < 17; nrows++) {
				char *eol = strchr(line, '\n');
				rows[nrows] = strndup(strchr(line, ',') + 1, (size_t)(eol - strchr(line, ',')));
				*strrchr(rows[nrows], ',') = 0; /* drop the time */
				long x = strtol(rows[nrows], NULL, 10), y = strtol(strchr(rows[nrows], ',') + 1, NULL, 10);
				CU_ASSERT(x * y >= 32 && x * y <= 1024);
				for (int q = 0; q < nrows; q++)
					CU_ASSERT_STRING_NOT_EQUAL(rows[q], rows[nrows]);
				line = eol + 1;
			}
			for (int q = 0; q < nrows; q++)
				free(rows[q]);
			if (round == 0)
				first = seq;
			else {
				CU_ASSERT_STRING_EQUAL(first, seq);
				free(seq);
			}
		}
		free(first);
	}
	unlink("results/summatrix.replay.csv");
}

/* configs/summatrix.yaml in test_dir with `extra` appended, its results there too; its path. */
static const char *summatrix_with(const char *extra)
{
	char *text = read_text("configs/summatrix.yaml"), cwd[4096];
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
	char *src = strstr(text, "../kernels/");
	CU_ASSERT_PTR_NOT_NULL_FATAL(src);
	char *yaml = xasprintf("%.*s%s/kernels/%s\noutput: {csv: %s/summatrix.csv}\n%s", (int)(src - text), text, cwd,
			       src + strlen("../kernels/"), test_dir, extra);
	const char *path = write_temp(3, "summatrix.yaml", yaml);
	free(yaml);
	free(text);
	return path;
}

/* A seeded replay of the compile-bound convolution (tests/data) measures the same sequence, byte
 * for byte, whether the simulated pool compiles ahead or not (AUTOTUNE_AHEAD=0), while the pool's
 * wall time differs: guessing never changes what a search measures. */
static void test_compiling_ahead_never_changes_the_sequence(void)
{
	char *text = read_text("configs/convolution.yaml"), cwd[4096];
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
	char *src = strstr(text, "../kernels/");
	CU_ASSERT_PTR_NOT_NULL_FATAL(src);
	char *yaml = xasprintf("%.*s%s/kernels/%s\noutput: {csv: %s/convolution.csv}\n", (int)(src - text), text, cwd,
			       src + strlen("../kernels/"), test_dir);
	const char *path = write_temp(4, "convolution.yaml", yaml);
	char *seq[2], *said[2];
	for (int ahead = 0; ahead < 2; ahead++) {
		setenv("AUTOTUNE_AHEAD", ahead ? "1" : "0", 1);
		char *argv[] = {"./autotune", "--replay", "tests/data/convolution_h100.csv", "--budget", "5%", "--seed", "11",
				"-j", "16", (char *)path, NULL};
		int st = proc_capture(argv, 60, &said[ahead]);
		CU_ASSERT(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
		char *out = xasprintf("%s/convolution.replay.csv", test_dir);
		seq[ahead] = read_text(out);
		CU_ASSERT_PTR_NOT_NULL_FATAL(seq[ahead]);
		unlink(out);
		free(out);
	}
	unsetenv("AUTOTUNE_AHEAD");
	CU_ASSERT(strlen(seq[0]) > 1000);
	CU_ASSERT_STRING_EQUAL(seq[0], seq[1]);
	/* the pools did differ: more binaries, built ahead */
	CU_ASSERT_PTR_NOT_NULL_FATAL(strstr(said[0], "compiles: "));
	CU_ASSERT_PTR_NOT_NULL_FATAL(strstr(said[1], "compiles: "));
	CU_ASSERT(strtol(strstr(said[1], "compiles: ") + 10, NULL, 10) > strtol(strstr(said[0], "compiles: ") + 10, NULL, 10));
	for (int i = 0; i < 2; i++) {
		free(seq[i]);
		free(said[i]);
	}
	free(yaml);
	free(text);
}

/* A replay searches as the same command would live (docs/config.md): --strategy, else
 * search.strategy, else model with a budget and exhaustive without; --seed, else search.seed. */
static void test_a_replay_picks_the_strategy_a_run_would(void)
{
	static const struct {
		const char *extra, *option, *value, *said;
	} cases[] = {
		{"", NULL, NULL, "replay: exhaustive, seed 0: 153 evaluations of 153"},
		{"", "--budget", "10%", "replay: model, seed 0: 16 evaluations"},
		{"", "--strategy", "random", "replay: random, seed 0: 153 evaluations"},
		{"search: {strategy: anneal, seed: 5}\n", NULL, NULL, "replay: anneal, seed 5: 153 evaluations"},
		{"search: {budget: 20, seed: 5}\n", NULL, NULL, "replay: model, seed 5: 20 evaluations"},
		{"search: {strategy: anneal, seed: 5}\n", "--strategy", "local", "replay: local, seed 5:"},
		{"search: {strategy: anneal, seed: 5}\n", "--seed", "9", "replay: anneal, seed 9:"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *argv[] = {"./autotune", "--replay", RECORDING, (char *)summatrix_with(cases[i].extra),
				(char *)cases[i].option, (char *)cases[i].value, NULL};
		char *out;
		int st = proc_capture(argv, 60, &out);
		CU_ASSERT(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
		if (!strstr(out, cases[i].said))
			fprintf(stderr, "\n  case %zu: said '%s', want '%s'\n", i, out, cases[i].said);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, cases[i].said));
		free(out);
	}
}

int add_replay_suite(void)
{
	CU_pSuite s = CU_add_suite("replay", setup, teardown);
	if (!s)
		return -1;
	CU_add_test(s, "nothing passed is said", test_nothing_passed_is_said);
	CU_add_test(s, "a replay that cannot write says why", test_a_replay_that_cannot_write_says_why);
	CU_add_test(s, "exhaustive finds the recording's optimum", test_exhaustive_finds_the_recordings_optimum);
	CU_add_test(s, "every strategy sees the recorded times", test_every_strategy_sees_the_recorded_times);
	CU_add_test(s, "a recording that does not fit is refused", test_a_recording_that_does_not_fit_is_refused);
	CU_add_test(s, "failures and gaps count as failed", test_failures_and_gaps_count_as_failed);
	CU_add_test(s, "compiles are simulated on a pool", test_compiles_are_simulated_on_a_pool);
	CU_add_test(s, "recorded compile seconds drive the pool", test_recorded_compile_seconds_drive_the_pool);
	CU_add_test(s, "the default holds on every recording", test_the_default_holds_on_every_recording);
	CU_add_test(s, "cheap draws leave the model picks their place", test_cheap_draws_leave_the_model_picks_their_place);
	CU_add_test(s, "a plateau leaves a distant basin", test_a_plateau_leaves_a_distant_basin);
	CU_add_test(s, "every recording is replayed", test_every_recording_is_replayed);
	CU_add_test(s, "replay of a recorded run (the binary)", test_replay_of_a_recorded_run);
	CU_add_test(s, "a replay picks the strategy a run would", test_a_replay_picks_the_strategy_a_run_would);
	CU_add_test(s, "compiling ahead never changes the sequence", test_compiling_ahead_never_changes_the_sequence);
	return 0;
}
