/* test_launch_plan.c: a plan per configuration (launch_plan.c): its streams, order and
 * connections from the parameters, each launch's geometry (its own or the default), values out of
 * range said with the configuration, which configurations run the same plan, and the worker's
 * list of a launch's arguments. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "launch_plan.h"
#include "space.h"
#include "tests.h"

static const char *const text =
	"name: lp\n"
	"kernel: {source: /dev/null}\n"
	"constants: {n: 1024}\n"
	"arguments:\n"
	"  - {name: out, type: float, count: n, output: true}\n"
	"  - {name: k, type: int32, value: S}\n"
	"space: {S: [1, 4], B: [32, 64], C: [1, 8]}\n"
	"launch: {block: [B], grid: [\"n / B\"]}\n"
	"plan:\n"
	"  streams: S\n"
	"  order: C > 1\n"
	"  connections: C\n"
	"  launches:\n"
	"    - {entry: k1, args: []}\n"
	"    - {entry: k2, args: [k, out], block: [64, 2], grid: [B], shared_mem: B * 4}\n";

static config cfg;
static space sp;
static result res[8];

static int setup(void)
{
	diags d = {0};
	const char *path = write_temp(3, "lp.yaml", text);
	int rc = config_load(path, &cfg, &d) || space_enumerate(&cfg, &sp, &d) || space_eval_geometry(&cfg, &sp, res, &d);
	diags_print(&d);
	diags_free(&d);
	return rc || sp.count != 8 ? -1 : 0;
}

static int teardown(void)
{
	space_free(&sp);
	config_free(&cfg);
	return 0;
}

/* The configuration S, B, C (the space's order: S outermost). */
static size_t config_of(int s, int b, int c) { return (s == 4) * 4 + (b == 64) * 2 + (c == 8); }

static void test_each_configuration_gets_its_plan(void)
{
	for (int s = 1; s <= 4; s += 3)
		for (int b = 32; b <= 64; b += 32)
			for (int c = 1; c <= 8; c += 7) {
				const result *r = &res[config_of(s, b, c)];
				CU_ASSERT_EQUAL(r->streams, s);
				CU_ASSERT_EQUAL(r->connections, c);
				CU_ASSERT_EQUAL(r->breadth_first, c > 1);
				/* the row's launch is the first launch, which takes the default geometry */
				CU_ASSERT(r->block[0] == b && r->block[1] == 1 && r->grid[0] == 1024 / b && r->smem == 0);
			}
	/* the second launch's own geometry, of the parameters */
	plan_geometry g;
	CU_ASSERT_EQUAL_FATAL(launch_plan_geometry(&cfg, space_config(&sp, config_of(4, 64, 8)), 1, &g), 0);
	CU_ASSERT(g.block[0] == 64 && g.block[1] == 2 && g.block[2] == 1);
	CU_ASSERT(g.grid[0] == 64 && g.grid[1] == 1 && g.smem == 256);
	CU_ASSERT_EQUAL(launch_plan_geometry(&cfg, space_config(&sp, 0), 2, &g), -1); /* there is no third */
}

static void test_the_same_plan_is_told_apart(void)
{
	const value *a = space_config(&sp, config_of(4, 32, 1)), *b = space_config(&sp, config_of(4, 32, 8)),
		    *c = space_config(&sp, config_of(4, 64, 1));
	CU_ASSERT(launch_plan_same(&cfg, a, a, &res[config_of(4, 32, 1)], &res[config_of(4, 32, 1)]));
	/* other connections and order */
	CU_ASSERT(!launch_plan_same(&cfg, a, b, &res[config_of(4, 32, 1)], &res[config_of(4, 32, 8)]));
	/* another geometry of the second launch (its grid is B) */
	result same = res[config_of(4, 32, 1)];
	CU_ASSERT(!launch_plan_same(&cfg, a, c, &same, &same));
	/* and whatever else is equal, other streams */
	result more = same;
	more.streams = 2;
	CU_ASSERT(!launch_plan_same(&cfg, a, a, &same, &more));
}

static void test_arguments_and_orders_as_the_worker_reads_them(void)
{
	char *none = launch_plan_args(&cfg.plan.launches[0]), *two = launch_plan_args(&cfg.plan.launches[1]);
	CU_ASSERT_STRING_EQUAL(none, "-");
	CU_ASSERT_STRING_EQUAL(two, "1,0");
	free(none);
	free(two);
	CU_ASSERT_STRING_EQUAL(launch_plan_order(0), "depth-first");
	CU_ASSERT_STRING_EQUAL(launch_plan_order(1), "breadth-first");
}

/* A value that only some configurations put out of range is an error with that configuration. */
static void test_values_out_of_range_name_the_configuration(void)
{
	static const struct {
		const char *from, *to, *message;
	} cases[] = {
		{"  streams: S\n", "  streams: S * 300\n", ":10:12: plan streams must be an integer from 1 to 1024, but is 1200 (for S=4 B=32 C=1)"},
		{"  connections: C\n", "  connections: C * 5\n", ":12:16: plan connections must be an integer from 1 to 32, but is 40 (for S=1 B=32 C=8)"},
		{"  order: C > 1\n", "  order: C\n", ":11:10: plan order must be an integer from 0 to 1, but is 8 (for S=1 B=32 C=8)"},
		{"grid: [B]", "grid: [B - 32]", ":15:58: plan launch grid must be an integer from 1 to 4294967295, but is 0 (for S=1 B=32 C=1)"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char changed[2048];
		const char *at = strstr(text, cases[i].from);
		CU_ASSERT_PTR_NOT_NULL_FATAL(at);
		snprintf(changed, sizeof changed, "%.*s%s%s", (int)(at - text), text, cases[i].to, at + strlen(cases[i].from));
		config c;
		space s;
		diags d = {0};
		CU_ASSERT_EQUAL_FATAL(config_load(write_temp(4, "lp2.yaml", changed), &c, &d), 0);
		CU_ASSERT_EQUAL_FATAL(space_enumerate(&c, &s, &d), 0);
		result *r = calloc(s.count, sizeof *r);
		CU_ASSERT_EQUAL(space_eval_geometry(&c, &s, r, &d), -1);
		CU_ASSERT_EQUAL_FATAL(d.n, 1);
		if (!strstr(d.msgs[0], cases[i].message))
			fprintf(stderr, "\n  got: %s\n want: ...%s\n", d.msgs[0], cases[i].message);
		CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], cases[i].message));
		free(r);
		space_free(&s);
		config_free(&c);
		diags_free(&d);
	}
}

/* Without a plan nothing changes: the plan's fields stay 0. */
static void test_no_plan_no_values(void)
{
	config c;
	char *first;
	CU_ASSERT_EQUAL_FATAL(config_load_text(config_good, &c, &first), 0);
	free(first);
	result r;
	memset(&r, 0x5A, sizeof r);
	value v = value_int(32);
	CU_ASSERT_EQUAL(launch_plan_eval(&c, &v, &r, NULL), 0);
	CU_ASSERT(r.streams == 0 && r.connections == 0 && r.breadth_first == 0);
	config_free(&c);
}

int add_launch_plan_suite(void)
{
	CU_pSuite s = CU_add_suite("launch_plan", setup, teardown);
	if (!s)
		return -1;
	CU_add_test(s, "each configuration gets its plan", test_each_configuration_gets_its_plan);
	CU_add_test(s, "the same plan is told apart", test_the_same_plan_is_told_apart);
	CU_add_test(s, "arguments and orders as the worker reads them", test_arguments_and_orders_as_the_worker_reads_them);
	CU_add_test(s, "values out of range name the configuration", test_values_out_of_range_name_the_configuration);
	CU_add_test(s, "no plan, no values", test_no_plan_no_values);
	return CU_get_error() == CUE_SUCCESS ? 0 : -1;
}
