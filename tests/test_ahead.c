/* test_ahead.c: the order of a search's compiles (ahead.c): a waited-for binary first, then the
 * committed ones, the longest predicted first, then the hinted ones in order; a committed binary
 * takes the slot of the latest started guess, never of one waited for; without speculation, the
 * plain pool's bound; and the compile-time model learns which values make compiles long. A live
 * search (the fake worker, the real nvcc) measures the same configurations either way. */
#define _XOPEN_SOURCE 700
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ahead.h"
#include "compile.h"
#include "config.h"
#include "tests.h"

static config cfg;
static space sp;
static build b;

/* 4 x 4 binaries: an unroll factor u and a tile t, both compile-time; a launch-only x */
static int setup(void)
{
	diags d = {0};
	const char *yaml = write_temp(1, "ahead.yaml", "kernel: {source: /dev/null, entry: k}\n"
						       "arguments: [{name: a, type: float, count: 4}]\n"
						       "space: {u: [1, 2, 4, 8], t: [1, 2, 3, 4], x: [32, 64]}\n"
						       "launch: {block: [x], grid: [1]}\nbuild: {defines: [u, t]}\n");
	int rc = config_load(yaml, &cfg, &d) || space_enumerate(&cfg, &sp, &d);
	diags_print(&d);
	diags_free(&d);
	if (rc)
		return -1;
	build_plan(&cfg, &sp, &b);
	return b.nbins == 16 ? 0 : -1;
}

static int teardown(void)
{
	build_free(&b);
	space_free(&sp);
	config_free(&cfg);
	return 0;
}

/* The binary of values u and t. */
static size_t bin_of(long long u, long long t)
{
	for (size_t k = 0; k < b.nbins; k++) {
		const value *v = space_config(&sp, b.bins[k].first_config);
		if (v[0].u.i == u && v[1].u.i == t)
			return k;
	}
	CU_FAIL("no such binary");
	return 0;
}

/* Starts what ahead_next says; returns it (-1: nothing). */
static long long start_next(ahead *a, int *urgent)
{
	long long k = ahead_next(a, urgent);
	if (k >= 0)
		ahead_started(a, (size_t)k);
	return k;
}

static void test_waited_then_committed_then_hinted(void)
{
	ahead *a = ahead_new(&cfg, &sp, &b, 4, 1);
	size_t hint[] = {bin_of(1, 1), bin_of(2, 1), bin_of(4, 1)}, commit[] = {bin_of(8, 4), bin_of(8, 3)};
	int urgent;
	ahead_hint(a, hint, 3);
	ahead_commit(a, commit, 2);
	ahead_want(a, bin_of(2, 2));
	CU_ASSERT_EQUAL(start_next(a, &urgent), (long long)bin_of(2, 2));
	CU_ASSERT(urgent);
	/* nothing built yet: no predictions, the list's order */
	CU_ASSERT_EQUAL(start_next(a, &urgent), (long long)commit[0]);
	CU_ASSERT_EQUAL(start_next(a, &urgent), (long long)commit[1]);
	CU_ASSERT(urgent);
	CU_ASSERT_EQUAL(start_next(a, &urgent), (long long)hint[0]);
	CU_ASSERT_FALSE(urgent);
	CU_ASSERT_EQUAL(start_next(a, &urgent), (long long)hint[1]);
	/* the latest started guess makes room; waited-for and committed ones never do */
	CU_ASSERT_EQUAL(ahead_victim(a), (long long)hint[1]);
	ahead_stopped(a, hint[1]);
	CU_ASSERT_EQUAL(ahead_victim(a), (long long)hint[0]);
	CU_ASSERT_EQUAL(start_next(a, &urgent), (long long)hint[1]); /* stopped: hinted again */
	ahead_done(a, hint[0], 1);
	ahead_done(a, hint[1], 1);
	CU_ASSERT_EQUAL(ahead_victim(a), -1);
	CU_ASSERT(ahead_is_done(a, hint[0]));
	ahead_free(a);
}

static void test_the_longest_committed_goes_first(void)
{
	ahead *a = ahead_new(&cfg, &sp, &b, 16, 1);
	/* compile time doubles with u and does not depend on t */
	for (long long u = 1; u <= 4; u *= 2)
		for (long long t = 1; t <= 2; t++) {
			ahead_started(a, bin_of(u, t));
			ahead_done(a, bin_of(u, t), 0.5 * (double)u);
		}
	CU_ASSERT(ahead_predict(a, bin_of(4, 3)) > 2 * ahead_predict(a, bin_of(1, 3)));
	CU_ASSERT(ahead_predict(a, bin_of(4, 1)) > ahead_predict(a, bin_of(2, 4)));
	CU_ASSERT(fabs(ahead_predict(a, bin_of(2, 3)) / ahead_predict(a, bin_of(2, 4)) - 1) < 0.01);
	CU_ASSERT(ahead_predict_mean(a) > 0.5);
	size_t commit[] = {bin_of(1, 3), bin_of(2, 4), bin_of(4, 3), bin_of(1, 4)};
	ahead_commit(a, commit, 4);
	int urgent;
	CU_ASSERT_EQUAL(start_next(a, &urgent), (long long)bin_of(4, 3));
	CU_ASSERT_EQUAL(start_next(a, &urgent), (long long)bin_of(2, 4));
	ahead_free(a);
}

static void test_without_speculation_the_plain_bound_holds(void)
{
	ahead *a = ahead_new(&cfg, &sp, &b, 2, 0);
	size_t hint[6];
	for (size_t i = 0; i < 6; i++)
		hint[i] = i;
	ahead_commit(a, hint + 4, 2); /* ignored */
	ahead_hint(a, hint, 6);
	int urgent;
	CU_ASSERT_EQUAL(start_next(a, &urgent), 0);
	CU_ASSERT_EQUAL(start_next(a, &urgent), 1);
	CU_ASSERT_EQUAL(start_next(a, &urgent), -1); /* two ahead of none waited for */
	ahead_want(a, 0);
	CU_ASSERT_EQUAL(start_next(a, &urgent), 2);
	CU_ASSERT_EQUAL(ahead_victim(a), 2);
	ahead_free(a);
	setenv("AUTOTUNE_AHEAD", "0", 1);
	CU_ASSERT_FALSE(ahead_enabled());
	unsetenv("AUTOTUNE_AHEAD");
	CU_ASSERT(ahead_enabled());
}

/* in test_dir: runs of the suites at once never share it */
static const char *ahead_dir(void)
{
	static char d[128];
	snprintf(d, sizeof d, "%s/ahead", test_dir);
	return d;
}

/* Field k of the CSV line at line (the fields before it unquoted), as a fresh string. */
static char *field(const char *line, int k)
{
	for (int i = 0; i < k; i++)
		line += strcspn(line, ",\r\n") + (line[strcspn(line, ",\r\n")] == ',');
	return strndup(line, strcspn(line, ",\r\n"));
}

/* Column name's index in the head line of csv, or -1. */
static int column(const char *csv, const char *name)
{
	for (int k = 0; k < 200; k++) {
		char *f = field(csv, k);
		int hit = !strcmp(f, name), end = !*f;
		free(f);
		if (hit)
			return k;
		if (end)
			break;
	}
	return -1;
}

/* The parameters (bx, cap) of the rows of a results CSV whose status is ok, in space order; and in
 * *timed how many of them have nvcc's seconds (each built in the run, with --no-cache). */
static char *measured_rows(const char *csv_path, int *timed)
{
	char *csv = read_text(csv_path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
	int st = column(csv, "status"), cs = column(csv, "compile_s");
	CU_ASSERT_FATAL(st > 0 && cs > 0);
	char *out = xcalloc(strlen(csv) + 1, 1);
	size_t n = 0;
	*timed = 0;
	for (char *line = strchr(csv, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		char *status = field(line + 1, st), *secs = field(line + 1, cs);
		if (!strcmp(status, "ok")) {
			size_t len = strcspn(line + 1, ",") + 1 + strcspn(line + 2 + strcspn(line + 1, ","), ",");
			memcpy(out + n, line + 1, len);
			n += len;
			out[n++] = '|';
			*timed += atof(secs) > 0;
		}
		free(status);
		free(secs);
	}
	free(csv);
	return out;
}

/* A seeded budgeted search of 6 binaries x 4 launches, live: the same configurations measured
 * with and without compiling ahead, each with its compile seconds, and the summary says how busy
 * the cores were. */
static void test_a_live_search_measures_the_same_either_way(void)
{
	char *config = write_capped_config(ahead_dir(), "ah", "{bx: [32, 64, 96, 128], cap: [32, 40, 48, 56, 64, 72]}");
	char csv[256], *rows[2];
	snprintf(csv, sizeof csv, "%s/ah.csv", ahead_dir());
	for (int ahead = 0; ahead < 2; ahead++) {
		setenv("AUTOTUNE_AHEAD", ahead ? "1" : "0", 1);
		char *out;
		CU_ASSERT_EQUAL(run_autotune_on(config, (char *[]){"--fresh", "--no-cache", "-j", "4", "--budget", "10", "--seed",
								     "5", NULL},
						&out),
				0);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, "% busy\n"));
		free(out);
		int timed;
		rows[ahead] = measured_rows(csv, &timed);
		CU_ASSERT_EQUAL(timed, 10);
	}
	unsetenv("AUTOTUNE_AHEAD");
	CU_ASSERT(strlen(rows[0]) > 20);
	CU_ASSERT_STRING_EQUAL(rows[0], rows[1]);
	free(rows[0]);
	free(rows[1]);
}

int add_ahead_suite(void)
{
	CU_pSuite s = CU_add_suite("ahead", setup, teardown);
	if (!s)
		return -1;
	CU_add_test(s, "waited, then committed, then hinted", test_waited_then_committed_then_hinted);
	CU_add_test(s, "the longest committed goes first", test_the_longest_committed_goes_first);
	CU_add_test(s, "without speculation the plain bound holds", test_without_speculation_the_plain_bound_holds);
	CU_add_test(s, "a live search measures the same either way", test_a_live_search_measures_the_same_either_way);
	return 0;
}
