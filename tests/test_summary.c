/* test_summary.c: a run's closing words on stderr (summary.c): a compile log told once per kind
 * of error (numbers and command lines aside) with the compile-time value to blame, the counts per
 * status, why the winner won, where the outputs went, and a dry run's table. The functions run on
 * a config, space and build made here, with failures and results set by hand; one test runs the
 * binary with the real nvcc. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compile.h"
#include "config.h"
#include "proc.h"
#include "summary.h"
#include "tests.h"

/* Binaries that fail alike are told once, and a compile-time value that never builds is named as
 * the cause, whatever else varies. */
static void test_compile_errors_are_told_once_by_cause(void)
{
	char csv[128];
	const char *path = defines_config("ce", "#if V % 2 == 0\n#error V must be odd, got V\n#endif\n"
						"extern \"C\" __global__ void k(float *a) { a[threadIdx.x] = V * W; }\n",
					  "{V: [1, 2, 3, 4, 5, 6], W: [1, 2], bx: [32, 64]}", "[V, W]", csv, sizeof csv);
	char *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){"--dry-run", "--arch", "sm_90", "--no-cache", (char *)path, NULL}, &out), 0);
	/* 12 binaries, 6 fail alike: one log */
	const char *first = strstr(out, "compile-error for ");
	CU_ASSERT_PTR_NOT_NULL(first);
	CU_ASSERT_PTR_NULL(first ? strstr(first + 1, "compile-error for ") : NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "compile-error for V=2 W=1 bx=32 and 5 more binaries alike:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "every binary with V = 2, 4 or 6 failed to compile (6 of the 6 that failed)"));
	CU_ASSERT_PTR_NULL(strstr(out, "every binary with W"));
	free(out);
	unlink(csv);
	unlink(path);
}


/* A config of 3 x 2 configurations, V a define (one binary per value) and bx the block; its
 * space, binaries (none built) and results (geometry only). */
typedef struct {
	config cfg;
	space sp;
	build b;
	result res[6];
} fixture;

static void fixture_make(fixture *f)
{
	const char *kernel = write_temp(4, "sum.cu", "extern \"C\" __global__ void k(float *a) { a[threadIdx.x] = V; }\n");
	char text[512];
	snprintf(text, sizeof text,
		 "name: tiny\nkernel: {source: %s, entry: k}\narguments: [{name: a, type: float, count: 64, output: true}]\n"
		 "space: {V: [1, 2, 3], bx: [32, 64]}\nlaunch: {block: [bx], grid: [1]}\nbuild: {defines: [V]}\n"
		 "output: {csv: out/tiny.csv, header: out/tiny_tuned.h}\n",
		 kernel);
	diags d = {0};
	memset(f, 0, sizeof *f);
	CU_ASSERT_EQUAL_FATAL(config_load(write_temp(5, "sum.yaml", text), &f->cfg, &d), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&f->cfg, &f->sp, &d), 0);
	CU_ASSERT_EQUAL_FATAL(f->sp.count, 6);
	CU_ASSERT_EQUAL_FATAL(space_eval_geometry(&f->cfg, &f->sp, f->res, &d), 0);
	diags_free(&d);
	build_plan(&f->cfg, &f->sp, &f->b);
	CU_ASSERT_EQUAL_FATAL(f->b.nbins, 3);
	for (size_t c = 0; c < 6; c++)
		f->res[c].shares_with = -1;
}

static void fixture_free(fixture *f)
{
	build_free(&f->b); /* the logs set by hand too */
	space_free(&f->sp);
	config_free(&f->cfg);
}

static void fail(binary *bin, const char *log)
{
	bin->failed = 1;
	bin->log = strdup(log);
}

/* The two binaries with V = 2 and 3 fail alike (their logs differ in the command line and in
 * numbers only): one log, and V named as the cause; bx, which builds nothing, is not. */
static void test_alike_failures_are_told_once_with_their_cause(void)
{
	fixture f;
	fixture_make(&f);
	fail(&f.b.bins[1], "$ nvcc -DV=2 -o b1.cubin k.cu\nk.cu(1): error: V=2 does not fit in 0x1f bytes\n");
	fail(&f.b.bins[2], "$ nvcc -DV=3 -o b2.cubin k.cu\nk.cu(1): error: V=3 does not fit in 0x2a bytes\n");
	stderr_begin();
	summary_failures(&f.cfg, &f.sp, &f.b);
	char *out = stderr_end();
	CU_ASSERT_EQUAL(occurrences(out, "compile-error for "), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "compile-error for V=2 bx=32 and 1 more binaries alike:\n$ nvcc -DV=2"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "  every binary with V = 2 or 3 failed to compile (2 of the 2 that failed)\n"));
	CU_ASSERT_PTR_NULL(strstr(out, "every binary with bx"));
	free(out);
	/* another kind of error is told apart; each value whose binaries all failed is still named */
	free(f.b.bins[2].log);
	f.b.bins[2].log = strdup("k.cu(1): fatal: cannot open include file\n");
	stderr_begin();
	summary_failures(&f.cfg, &f.sp, &f.b);
	out = stderr_end();
	CU_ASSERT_EQUAL(occurrences(out, "compile-error for "), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "compile-error for V=2 bx=32:\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "compile-error for V=3 bx=32:\nk.cu(1): fatal"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "  every binary with V = 2 or 3 failed to compile (2 of the 2 that failed)\n"));
	free(out);
	fixture_free(&f);
}

/* When nothing built, no value is more to blame than another; a binary stopped by a signal
 * (its log is the signal's doing) is not told. */
static void test_no_cause_is_named_when_nothing_built(void)
{
	fixture f;
	fixture_make(&f);
	for (size_t i = 0; i < 3; i++)
		fail(&f.b.bins[i], "k.cu(1): error: no such type\n");
	stderr_begin();
	summary_failures(&f.cfg, &f.sp, &f.b);
	char *out = stderr_end();
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "compile-error for V=1 bx=32 and 2 more binaries alike"));
	CU_ASSERT_PTR_NULL(strstr(out, "every binary with"));
	free(out);
	free(f.b.bins[0].log);
	f.b.bins[0].log = strdup("nvcc: killed by signal 15\n");
	f.b.bins[0].killed = 1;
	stderr_begin();
	summary_failures(&f.cfg, &f.sp, &f.b);
	out = stderr_end();
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "compile-error for V=2 bx=32 and 1 more binaries alike"));
	CU_ASSERT_PTR_NULL(strstr(out, "signal"));
	/* nor when the only one that was not tried is one a search did not need */
	CU_ASSERT_PTR_NULL(strstr(out, "every binary with"));
	free(out);
	f.b.bins[0].skipped = 1;
	stderr_begin();
	summary_failures(&f.cfg, &f.sp, &f.b);
	out = stderr_end();
	CU_ASSERT_PTR_NULL(strstr(out, "every binary with"));
	free(out);
	fixture_free(&f);
}

/* The first binaries failed alike and the rest were held back (compile.c): the error once, its
 * likely fix, how much was not compiled and not run, and, when it came from the cache, so. */
static void test_a_build_held_back_says_so_once(void)
{
	fixture f;
	fixture_make(&f);
	fail(&f.b.bins[0], "$ nvcc -DV=1 k.cu\nk.cu(2): error: identifier \"TILE\" is undefined\n");
	fail(&f.b.bins[1], "$ nvcc -DV=2 k.cu\n/tmp/x/k.cu(2): error: identifier \"TILE\" is undefined\n");
	fail(&f.b.bins[2], "not compiled: the first 2 binaries all failed with the same error (--keep-going compiles the rest)");
	f.b.bins[2].killed = f.b.bins[2].held = 1;
	f.b.held_after = 2;
	f.b.nvcc_runs = 2;
	stderr_begin();
	summary_failures(&f.cfg, &f.sp, &f.b);
	summary_counts(&f.cfg, &f.sp, &f.b, f.res, 1.0, 1);
	char *out = stderr_end();
	CU_ASSERT_EQUAL(occurrences(out, "identifier \"TILE\" is undefined"), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "compile-error for V=1 bx=32 and 1 more binaries alike:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "  likely fix: the kernel uses TILE, which neither "));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "  compiling stopped: the first 2 binaries all failed with this error and none "
					   "compiled; the other 1 binary was not compiled, its 2 configurations not run "
					   "(--keep-going compiles them all)\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "2 binaries built in 1.0 s (2 failed; 1 not, the first 2 having failed alike; 2 nvcc runs"));
	CU_ASSERT_PTR_NULL(strstr(out, "from the cache:"));
	CU_ASSERT_PTR_NULL(strstr(out, "every binary with"));
	free(out);
	f.b.bins[0].cached = f.b.bins[1].cached = 1;
	stderr_begin();
	summary_failures(&f.cfg, &f.sp, &f.b);
	out = stderr_end();
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "  (from the cache: these compiles failed with the same source, headers, flags and nvcc before; "
					   "--fresh compiles them again)\n"));
	free(out);
	fixture_free(&f);
}

/* The space, the binaries (failed, and those a search never needed, apart) and, of a run, the
 * count per status; a launch known to fail is counted apart from what ran. */
static void test_counts_per_status(void)
{
	fixture f;
	fixture_make(&f);
	fail(&f.b.bins[1], "error\n");
	f.b.bins[2].killed = f.b.bins[2].skipped = 1;
	f.b.nvcc_runs = 1;
	f.b.cache_hits = 1;
	static const status st[6] = {ST_OK, ST_CRASHED, ST_COMPILE_ERROR, ST_COMPILE_ERROR, ST_NOT_RUN, ST_NOT_RUN};
	for (size_t c = 0; c < 6; c++)
		f.res[c].st = st[c];
	f.res[1].shares_with = 0;
	f.res[0].throttled = 1;
	stderr_begin();
	summary_counts(&f.cfg, &f.sp, &f.b, f.res, 2.25, 0);
	char *out = stderr_end();
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "tiny: 6 valid configurations (of 6 combinations); 2 binaries built in 2.2 s "
					   "(1 failed; 1 not, the search did not need them; 1 nvcc run, 1 from the cache)\n"));
	/* what ran, then the count of every status */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "  ran 2: 2 not-run 1 ok 2 compile-error 1 crashed; 1 shared an identical binary's measurement; 1 measured "
					   "with the SM clock below 85% of its maximum (flagged)\n"));
	CU_ASSERT_PTR_NULL(strstr(out, "not launched"));
	free(out);
	/* a launch-error known beforehand is not among what ran; a dry run has no "ran" line */
	f.res[0].st = ST_LAUNCH_ERROR;
	f.res[0].predicted = 1;
	stderr_begin();
	summary_counts(&f.cfg, &f.sp, &f.b, f.res, 2.25, 0);
	char *run = stderr_end();
	stderr_begin();
	summary_counts(&f.cfg, &f.sp, &f.b, f.res, 2.25, 1);
	char *dry = stderr_end();
	CU_ASSERT_PTR_NOT_NULL(strstr(run, "  ran 1: 2 not-run 2 compile-error 1 crashed;"));
	CU_ASSERT_PTR_NOT_NULL(strstr(run, "  1 not launched: the GPU's limits refuse it (launch-error, the CSV says why)\n"));
	CU_ASSERT_PTR_NULL(strstr(dry, "ran "));
	CU_ASSERT_PTR_NOT_NULL(strstr(dry, "1 not launched"));
	free(run);
	free(dry);
	fixture_free(&f);
}

/* The winner's line: the finalists' time when they were re-timed, its rates and counters; none
 * when nothing passed. */
static void test_the_winners_numbers(void)
{
	fixture f;
	fixture_make(&f);
	result *w = &f.res[3]; /* V=2 bx=64 */
	w->st = ST_OK;
	w->samples = 10;
	w->t_median = 1.2;
	w->noise = 0.01;
	w->final_rounds = 7;
	w->final_median = 1.1;
	w->final_noise = 0.002;
	w->gbps = 120;
	w->pct_of_copy = 40;
	w->have_metrics = 1;
	w->metrics[METRIC_ACHIEVED_OCCUPANCY] = 61;
	w->metrics[METRIC_GLD_EFFICIENCY] = NAN;
	select_policy p = config_select_defaults();
	choice c;
	select_winner(f.res, 6, &p, &c);
	CU_ASSERT_EQUAL_FATAL(c.winner, 3);
	stderr_begin();
	summary_winner(&f.cfg, &f.sp, f.res, &c, &p);
	char *out = stderr_end();
	CU_ASSERT_STRING_EQUAL(out, "  winner: V=2 bx=64: 1.1000 ms ±0.20% (finalist, interleaved), 120 GB/s = 40% of copy, "
				    "achieved occupancy 61%, load efficiency n/a (no global loads)\n");
	free(out);
	choice_free(&c);
	/* without counters: theoretical occupancy; without final rounds: the first pass's time */
	w->have_metrics = 0;
	w->final_rounds = 0;
	w->gbps = w->pct_of_copy = 0;
	w->occupancy = 0.5;
	select_winner(f.res, 6, &p, &c);
	stderr_begin();
	summary_winner(&f.cfg, &f.sp, f.res, &c, &p);
	out = stderr_end();
	CU_ASSERT_STRING_EQUAL(out, "  winner: V=2 bx=64: 1.2000 ms ±1.00%, theoretical occupancy 50%\n");
	free(out);
	choice_free(&c);
	/* a plan's: its streams, order and connections, and how far it overlapped */
	for (int i = 0; i < 6; i++) {
		f.res[i].streams = 8;
		f.res[i].connections = 1;
	}
	w->breadth_first = 1;
	w->serial_ms = 6;
	select_winner(f.res, 6, &p, &c);
	stderr_begin();
	summary_winner(&f.cfg, &f.sp, f.res, &c, &p);
	out = stderr_end();
	CU_ASSERT_STRING_EQUAL(out, "  winner: V=2 bx=64: 1.2000 ms ±1.00%, theoretical occupancy 50%; 8 streams breadth-first on 1 "
				    "connection, concurrency 5.00\n");
	free(out);
	choice_free(&c);
	w->st = ST_CRASHED;
	select_winner(f.res, 6, &p, &c);
	CU_ASSERT_EQUAL(c.winner, -1);
	stderr_begin();
	summary_winner(&f.cfg, &f.sp, f.res, &c, &p);
	out = stderr_end();
	CU_ASSERT_STRING_EQUAL(out, "");
	free(out);
	choice_free(&c);
	fixture_free(&f);
}

/* Where the outputs went, ending the screen: the make fragment beside the header, the report
 * beside the CSV, the T4 file when one was written, and what a dry run or a shard leaves to do. */
static void test_where_the_outputs_went(void)
{
	fixture f;
	fixture_make(&f);
	options o;
	memset(&o, 0, sizeof o);
	stderr_begin();
	summary_paths(&f.cfg, 1, 1, "out/tiny.t4.json", &o);
	char *out = stderr_end();
	CU_ASSERT_STRING_EQUAL(out, "  results: out/tiny.csv\n  header:  out/tiny_tuned.h (make fragment out/tiny.mk)\n"
				    "  report:  out/tiny.html\n  T4:      out/tiny.t4.json\n");
	free(out);
	o.dry_run = 1;
	o.shard = 1;
	o.nshards = 4;
	stderr_begin();
	summary_paths(&f.cfg, 0, 0, NULL, &o);
	out = stderr_end();
	char want[512];
	snprintf(want, sizeof want, "  dry run: nothing was measured (no GPU timings, no winner)\n  results: out/tiny.csv\n"
		 "  shard 1 of 4: join the shards' CSVs with `autotune merge %s CSV...`\n", f.cfg.path);
	CU_ASSERT_STRING_EQUAL(out, want);
	free(out);
	fixture_free(&f);
}

/* A dry run's table: a row per configuration, a failed binary's resources as "-"; quiet: none. */
static void test_a_dry_runs_table(void)
{
	fixture f;
	fixture_make(&f);
	fail(&f.b.bins[1], "error\n");
	f.b.bins[0].res.registers = 40;
	f.b.bins[0].res.spill_stores = 8;
	f.b.bins[0].res.spill_loads = 4;
	f.b.bins[0].res.static_smem = 1024;
	f.res[0].smem = 2048;
	f.res[0].occupancy = 0.5;
	f.res[2].st = f.res[3].st = ST_COMPILE_ERROR;
	options o;
	memset(&o, 0, sizeof o);
	stderr_begin();
	summary_dry_run(&o, &f.cfg, &f.sp, &f.b, f.res, 90);
	char *out = stderr_end();
	CU_ASSERT_EQUAL(occurrences(out, "\n"), 1 + 6);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "V=1 bx=32                                   40     12   3072     50.0%  not-run\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "V=2 bx=32                                    -      -      -         -  compile-error\n"));
	free(out);
	o.quiet = 1;
	stderr_begin();
	summary_dry_run(&o, &f.cfg, &f.sp, &f.b, f.res, 90);
	out = stderr_end();
	CU_ASSERT_STRING_EQUAL(out, "");
	free(out);
	fixture_free(&f);
}

int add_summary_suite(void)
{
	CU_pSuite s = CU_add_suite("summary", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "alike failures are told once with their cause", test_alike_failures_are_told_once_with_their_cause);
	CU_add_test(s, "no cause is named when nothing built", test_no_cause_is_named_when_nothing_built);
	CU_add_test(s, "a build held back says so once", test_a_build_held_back_says_so_once);
	CU_add_test(s, "counts per status", test_counts_per_status);
	CU_add_test(s, "the winner's numbers", test_the_winners_numbers);
	CU_add_test(s, "where the outputs went", test_where_the_outputs_went);
	CU_add_test(s, "a dry run's table", test_a_dry_runs_table);
	CU_add_test(s, "compile errors are told once, by cause (nvcc)", test_compile_errors_are_told_once_by_cause);
	return 0;
}
