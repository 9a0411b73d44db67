/* test_plan.c: the measuring stage's decisions without a GPU or threads: the ranking, the
 * finalists and their twins by launch shape, what still needs a run, the kill deadline, the
 * reference groups, and how a shared or stale result keeps its own launch. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "config.h"
#include "plan.h"
#include "tests.h"

/* A passing configuration of block bx x 1 and median t ms. */
static result passed(long long bx, double t)
{
	result r;
	memset(&r, 0, sizeof r);
	r.block[0] = bx;
	r.block[1] = r.block[2] = r.grid[0] = r.grid[1] = r.grid[2] = 1;
	r.st = ST_OK;
	r.samples = 10;
	r.t_median = t;
	r.shares_with = -1;
	return r;
}

static void test_ranking_is_by_time_passing_only_ties_in_order(void)
{
	result res[6] = {passed(32, 2.0), passed(64, 1.0), passed(128, 2.0), passed(256, 0.5), passed(512, 1.5),
			 passed(1024, 0.1)};
	res[4].st = ST_WRONG_RESULT; /* failed: not ranked */
	res[5].shares_with = 1;      /* measured as configuration 1's twin: stands aside */
	size_t n, *idx = plan_ranked(res, 6, &n);
	CU_ASSERT_EQUAL_FATAL(n, 4);
	size_t want[4] = {3, 1, 0, 2}; /* 0.5, 1.0, then 2.0 twice in index order */
	for (size_t i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(idx[i], want[i]);
	free(idx);
	/* the finalists' interleaved median decides where there is one */
	res[2].final_rounds = 7;
	res[2].final_median = 0.2;
	idx = plan_ranked(res, 6, &n);
	CU_ASSERT_EQUAL(idx[0], 2);
	free(idx);
}

/* Of those within PLAN_FINAL_WITHIN of the fastest, the fastest `want`, then every build of one
 * of their launch shapes within it too. */
static void test_finalists_take_their_launch_shapes_along(void)
{
	double near = 1 + PLAN_FINAL_WITHIN;
	result res[6] = {passed(256, 1.0),  passed(128, 1.01), passed(64, 1.5),
			 passed(256, 1.03), passed(32, 1.02),  passed(128, near + 0.01)};
	size_t k, *idx = plan_finalists(res, 6, 2, &k);
	CU_ASSERT_EQUAL(k, 3);
	CU_ASSERT_EQUAL(idx[0], 0);
	CU_ASSERT_EQUAL(idx[1], 1);
	CU_ASSERT_EQUAL(idx[2], 3); /* 256 x 1 again: a register cap apart, say */
	CU_ASSERT_EQUAL(idx[3], 4);
	CU_ASSERT_EQUAL(idx[4], 5); /* 128 x 1 again, but too far behind to change places */
	CU_ASSERT_EQUAL(idx[5], 2);
	free(idx);
	/* none wanted: no finalists, the ranking as it is */
	idx = plan_finalists(res, 6, 0, &k);
	CU_ASSERT_EQUAL(k, 0);
	CU_ASSERT_EQUAL(idx[0], 0);
	free(idx);
	/* more wanted than passed: all of those near the fastest */
	idx = plan_finalists(res, 6, 9, &k);
	CU_ASSERT_EQUAL(k, 4);
	free(idx);
	/* the second within the margin, or not */
	result two[2] = {passed(256, 1.0), passed(128, near - 0.001)};
	idx = plan_finalists(two, 2, 3, &k);
	CU_ASSERT_EQUAL(k, 2);
	free(idx);
	two[1].t_median = near + 0.001;
	idx = plan_finalists(two, 2, 3, &k);
	CU_ASSERT_EQUAL(k, 1);
	free(idx);
}

static void test_what_still_needs_a_run(void)
{
	result r = passed(32, 1.0);
	CU_ASSERT_FALSE(plan_needs_run(&r, 1));
	r.st = ST_NOT_RUN;
	CU_ASSERT_TRUE(plan_needs_run(&r, 0));
	status again[] = {ST_CRASHED, ST_TIMEOUT}, final[] = {ST_WRONG_RESULT, ST_COMPILE_ERROR, ST_LAUNCH_ERROR};
	for (size_t i = 0; i < 2; i++) {
		r.st = again[i];
		CU_ASSERT_FALSE(plan_needs_run(&r, 0));
		CU_ASSERT_TRUE(plan_needs_run(&r, 1)); /* --retry-failed */
	}
	for (size_t i = 0; i < 3; i++) {
		r.st = final[i];
		CU_ASSERT_FALSE(plan_needs_run(&r, 1));
	}
}

static void test_the_kill_deadline_grows_with_the_slowest(void)
{
	config cfg;
	memset(&cfg, 0, sizeof cfg);
	cfg.timeout = 20;
	cfg.time_cap = 2;
	cfg.warmup = 3;
	CU_ASSERT_DOUBLE_EQUAL(plan_timeout(&cfg, 0), 22, 1e-12);
	/* 20 x (3 warm-up + 2) launches of the slowest, 1 s each */
	CU_ASSERT_DOUBLE_EQUAL(plan_timeout(&cfg, 1000), 122, 1e-9);
}

/* A shared measurement is the twin's times, but the configuration's own launch and occupancy;
 * a stale one is forgotten but for the launch. */
static void test_shared_and_stale_results_keep_their_launch(void)
{
	result from = passed(256, 0.7), to = passed(512, 0);
	to.st = ST_NOT_RUN;
	to.occupancy = 0.5;
	from.message = strdup("from the twin");
	plan_copy_measurement(&to, &from, 4);
	CU_ASSERT_EQUAL(to.st, ST_OK);
	CU_ASSERT_DOUBLE_EQUAL(to.t_median, 0.7, 0);
	CU_ASSERT_EQUAL(to.block[0], 512);
	CU_ASSERT_DOUBLE_EQUAL(to.occupancy, 0.5, 0);
	CU_ASSERT_EQUAL(to.shares_with, 4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(to.message);
	CU_ASSERT(to.message != from.message && !strcmp(to.message, "from the twin"));
	binary bin;
	memset(&bin, 0, sizeof bin);
	strcpy(bin.code, "aaaaaaaaaaaaaaaa");
	strcpy(to.code, "aaaaaaaaaaaaaaaa");
	plan_forget_stale(&to, &bin);
	CU_ASSERT_EQUAL(to.st, ST_OK); /* the same code: it stands */
	strcpy(bin.code, "bbbbbbbbbbbbbbbb");
	plan_forget_stale(&to, &bin);
	CU_ASSERT_EQUAL(to.st, ST_NOT_RUN);
	CU_ASSERT_EQUAL(to.block[0], 512);
	CU_ASSERT_EQUAL(to.shares_with, -1);
	CU_ASSERT_PTR_NULL(to.message);
	free(from.message);
}

/* A plan's configurations of one binary and one first launch are twins only when they run the
 * same plan: streams, order, connections (the scalars and the other launches' geometry alike);
 * a plan's result forgotten as stale keeps its plan with its launch. */
static void test_plans_are_twins_only_when_the_same(void)
{
	const char *text = "kernel: {source: /dev/null}\narguments: [{name: a, type: float, count: 4, output: true}]\n"
			   "space: {S: [1, 2], C: [1, 8], G: [1, 2]}\nlaunch: {block: [32], grid: [1]}\n"
			   "plan: {streams: S, connections: C, launches: [k1, {entry: k2, grid: [G]}]}\n";
	config cfg;
	space sp;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(config_load(write_temp(1, "tw.yaml", text), &cfg, &d), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	result res[8];
	memset(res, 0, sizeof res);
	CU_ASSERT_EQUAL_FATAL(space_eval_geometry(&cfg, &sp, res, &d), 0);
	build b;
	build_plan(&cfg, &sp, &b);
	strcpy(b.bins[0].code, "aaaaaaaaaaaaaaaa");
	b.bins[0].res.symbol = strdup("k1");
	b.bins[0].cubin = strdup("x.cubin");
	/* S, C, G: 0 is (1, 1, 1); 1 differs in G (the second launch's grid), 2 in C, 4 in S */
	CU_ASSERT(plan_same_launch(&cfg, &sp, &b, res, 0, 0));
	CU_ASSERT(!plan_same_launch(&cfg, &sp, &b, res, 0, 1));
	CU_ASSERT(!plan_same_launch(&cfg, &sp, &b, res, 0, 2));
	CU_ASSERT(!plan_same_launch(&cfg, &sp, &b, res, 0, 4));
	res[7].st = ST_OK;
	res[7].samples = 10;
	CU_ASSERT_EQUAL(plan_twin(&cfg, &sp, &b, res, 7), -1);
	/* stale: measured other code, forgotten; its plan stays with its launch */
	strcpy(res[7].code, "bbbbbbbbbbbbbbbb");
	plan_forget_stale(&res[7], &b.bins[0]);
	CU_ASSERT_EQUAL(res[7].st, ST_NOT_RUN);
	CU_ASSERT(res[7].streams == 2 && res[7].connections == 8);
	build_free(&b);
	space_free(&sp);
	config_free(&cfg);
	diags_free(&d);
}

/* The configuration of these values of (bx, U, s, D), or -1. */
static long long config_of(const space *sp, long long bx, long long u, long long sv, long long dv)
{
	for (size_t c = 0; c < sp->count; c++) {
		const value *v = space_config(sp, c);
		if (v[0].u.i == bx && v[1].u.i == u && v[2].u.i == sv && v[3].u.i == dv)
			return (long long)c;
	}
	return -1;
}

/* A measurement's identity is what decides it: the code, the launch, the scalar arguments, the
 * named reference's code and the run's setting; not a parameter that reaches none of them, nor
 * the configuration's index. */
static void test_an_identity_is_what_decides_a_measurement(void)
{
	const char *kernel = write_temp(0, "id.cu", "extern \"C\" __global__ void k(float *a, int s) { a[0] = s; }\n");
	char text[1024];
	snprintf(text, sizeof text,
		 "kernel: {source: %s, entry: k}\narguments: [{name: a, type: float, count: 4, output: true},"
		 " {name: s, type: int32, value: sv}]\n"
		 "space: {bx: [32, 64], U: [1, 2], sv: [1, 2], D: [1, 2]}\nbuild: {defines: [D]}\n"
		 "launch: {block: [bx], grid: [1]}\nverify: {reference: {bx: 32, U: 1, sv: 1, D: 2}}\nconstraints: [\"U > 0\"]\n",
		 kernel);
	config cfg;
	space sp;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(config_load(write_temp(1, "id.yaml", text), &cfg, &d), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	result *res = calloc(sp.count, sizeof *res);
	CU_ASSERT_EQUAL_FATAL(space_eval_geometry(&cfg, &sp, res, &d), 0);
	build b;
	build_plan(&cfg, &sp, &b);
	CU_ASSERT_EQUAL_FATAL(b.nbins, 2);
	for (size_t k = 0; k < b.nbins; k++) {
		snprintf(b.bins[k].code, sizeof b.bins[k].code, "%016zx", k + 1);
		b.bins[k].res.symbol = strdup("k");
	}
	long long a = config_of(&sp, 32, 1, 1, 1), u = config_of(&sp, 32, 2, 1, 1), bx = config_of(&sp, 64, 1, 1, 1),
		  sv = config_of(&sp, 32, 1, 2, 1), dv = config_of(&sp, 32, 1, 1, 2);
	CU_ASSERT_FATAL(a >= 0 && u >= 0 && bx >= 0 && sv >= 0 && dv >= 0);
	char id[5][17], again[17];
	long long which[5] = {a, u, bx, sv, dv};
	for (int i = 0; i < 5; i++)
		plan_identity(&cfg, &sp, &b, res, (size_t)which[i], "setting", id[i]);
	CU_ASSERT_EQUAL(strlen(id[0]), 16);
	CU_ASSERT_STRING_EQUAL(id[0], id[1]);     /* U reaches only a constraint */
	CU_ASSERT_STRING_NOT_EQUAL(id[0], id[2]); /* another block */
	CU_ASSERT_STRING_NOT_EQUAL(id[0], id[3]); /* another scalar argument */
	CU_ASSERT_STRING_NOT_EQUAL(id[0], id[4]); /* another binary */
	plan_identity(&cfg, &sp, &b, res, (size_t)a, "another setting", again);
	CU_ASSERT_STRING_NOT_EQUAL(id[0], again);
	/* the named reference (D=2) compiled to other code: what a checks against is another */
	strcpy(b.bins[b.of_config[dv]].code, "00000000000000ff");
	plan_identity(&cfg, &sp, &b, res, (size_t)a, "setting", again);
	CU_ASSERT_STRING_NOT_EQUAL(id[0], again);
	/* a result of another identity is stale, even of the same code */
	strcpy(b.bins[b.of_config[dv]].code, "0000000000000002");
	res[a].st = ST_OK;
	res[a].samples = 1;
	strcpy(res[a].code, b.bins[b.of_config[a]].code);
	strcpy(res[a].ident, id[0]);
	plan_forget_unlike(&res[a], &b.bins[b.of_config[a]], id[0]);
	CU_ASSERT_EQUAL(res[a].st, ST_OK);
	plan_forget_unlike(&res[a], &b.bins[b.of_config[a]], again);
	CU_ASSERT_EQUAL(res[a].st, ST_NOT_RUN);
	for (size_t c = 0; c < sp.count; c++)
		free(res[c].message);
	free(res);
	build_free(&b);
	space_free(&sp);
	config_free(&cfg);
	diags_free(&d);
}

/* Loads a config of a one-line kernel with `rest` (its space, launch and verify) and checks its
 * reference groups against the definition: a configuration's group is the first in space order
 * alike in every verify.reference_per parameter (value_equal). The number of groups; the
 * configurations' in *count. */
static size_t groups_as_defined(const char *rest, size_t *count)
{
	const char *kernel = write_temp(0, "rg.cu", "extern \"C\" __global__ void k(float *a) { a[0] = 1; }\n");
	char text[1024];
	snprintf(text, sizeof text,
		 "kernel: {source: %s, entry: k}\narguments: [{name: a, type: float, count: 4, output: true}]\n%s", kernel,
		 rest);
	const char *path = write_temp(1, "rg.yaml", text);
	config cfg;
	space sp;
	diags d = {0};
	*count = 0;
	CU_ASSERT_EQUAL_FATAL(config_load(path, &cfg, &d), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	size_t *group = plan_reference_groups(&cfg, &sp), groups = 0;
	for (size_t c = 0; c < sp.count; c++) {
		size_t first = 0;
		for (;; first++) {
			int same = 1;
			for (size_t k = 0; k < cfg.nref_per; k++)
				same = same && value_equal(space_config(&sp, first)[cfg.ref_per[k]], space_config(&sp, c)[cfg.ref_per[k]]);
			if (same)
				break;
		}
		CU_ASSERT_EQUAL(group[c], first);
		groups += group[c] == c;
	}
	*count = sp.count;
	free(group);
	space_free(&sp);
	config_free(&cfg);
	diags_free(&d);
	return groups;
}

/* verify.reference_per: configurations alike in those parameters share a reference group, named
 * by its first configuration in space order. */
static void test_reference_groups_follow_reference_per(void)
{
	size_t count;
	CU_ASSERT_EQUAL(groups_as_defined("space: {variant: [1, 2], bx: [32, 64, 128]}\nlaunch: {block: [bx], grid: [1]}\n"
					  "constraints: [variant > 0]\nverify: {reference_per: [variant]}\n",
					  &count),
			2);
	CU_ASSERT_EQUAL(count, 6);
}

/* Several reference_per parameters of every kind (ints, floats, strings), found by hash: the
 * groups are still the definition's. */
static void test_reference_groups_of_mixed_kinds(void)
{
	size_t count;
	CU_ASSERT_EQUAL(groups_as_defined("space: {bx: {start: 1, stop: 40}, V: [3, 1, 2], F: [0.5, 1, 2.5], S: [x, \"y\"]}\n"
					  "launch: {block: [bx], grid: [1]}\nbuild: {defines: [V, F, S]}\n"
					  "verify: {reference_per: [S, F, V]}\n",
					  &count),
			3 * 3 * 2);
	CU_ASSERT_EQUAL(count, 40 * 3 * 3 * 2);
}

/* Short kernels: `max` samples a round after a warm-up launch; longer ones as many as fill about
 * round_ms; one that fills a round alone: that one sample, and no warm-up to double it. */
static void test_a_finalist_round_is_about_the_same_length(void)
{
	int warm = -1;
	CU_ASSERT_EQUAL(plan_final_samples(0.02, 5, 5.0, &warm), 5);
	CU_ASSERT_EQUAL(warm, 1);
	CU_ASSERT_EQUAL(plan_final_samples(2.0, 5, 5.0, &warm), 2);
	CU_ASSERT_EQUAL(warm, 1);
	CU_ASSERT_EQUAL(plan_final_samples(4.99, 5, 5.0, &warm), 1);
	CU_ASSERT_EQUAL(warm, 1);
	CU_ASSERT_EQUAL(plan_final_samples(5.0, 5, 5.0, &warm), 1);
	CU_ASSERT_EQUAL(warm, 0);
	CU_ASSERT_EQUAL(plan_final_samples(7.25, 5, 5.0, &warm), 1);
	CU_ASSERT_EQUAL(warm, 0);
	/* a time not known: the most samples, warmed up */
	CU_ASSERT_EQUAL(plan_final_samples(0, 5, 5.0, &warm), 5);
	CU_ASSERT_EQUAL(warm, 1);
}

int add_plan_suite(void)
{
	CU_pSuite s = CU_add_suite("plan", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "a finalist round is about the same length for every kernel", test_a_finalist_round_is_about_the_same_length);
	CU_add_test(s, "ranking is by time, passing only, ties in order", test_ranking_is_by_time_passing_only_ties_in_order);
	CU_add_test(s, "finalists take their launch shapes along", test_finalists_take_their_launch_shapes_along);
	CU_add_test(s, "what still needs a run", test_what_still_needs_a_run);
	CU_add_test(s, "the kill deadline grows with the slowest", test_the_kill_deadline_grows_with_the_slowest);
	CU_add_test(s, "shared and stale results keep their launch", test_shared_and_stale_results_keep_their_launch);
	CU_add_test(s, "plans are twins only when the same", test_plans_are_twins_only_when_the_same);
	CU_add_test(s, "reference groups follow reference_per", test_reference_groups_follow_reference_per);
	CU_add_test(s, "reference groups of mixed kinds", test_reference_groups_of_mixed_kinds);
	CU_add_test(s, "an identity is what decides a measurement", test_an_identity_is_what_decides_a_measurement);
	return CU_get_error() == CUE_SUCCESS ? 0 : -1;
}
