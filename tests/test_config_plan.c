/* test_config_plan.c: the plan section (config_plan.c): its launches with their entries,
 * arguments and geometry, the streams, order and connections, what it means for kernel.entry,
 * the launch section and the counters, and every way it can be wrong, each said at its line and
 * column. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "space.h"
#include "tests.h"

/* A plan of two launches: the first takes the defaults, the second gives its own. */
static const char *const plan_good =
	"name: pl\n"                                                          /* 1 */
	"kernel: {source: /dev/null}\n"                                       /* 2 */
	"constants: {n: 1024}\n"                                              /* 3 */
	"arguments:\n"                                                        /* 4 */
	"  - {name: out, type: float, count: n, output: true}\n"              /* 5 */
	"  - {name: k, type: int32, value: S}\n"                              /* 6 */
	"  - {name: c, type: float, count: 4, constant: true}\n"              /* 7 */
	"space: {S: [1, 2], B: [32, 64], C: [1, 8]}\n"                        /* 8 */
	"launch: {block: [B], grid: [\"n / B\"]}\n"                           /* 9 */
	"plan:\n"                                                             /* 10 */
	"  streams: S\n"                                                      /* 11 */
	"  order: breadth-first\n"                                            /* 12 */
	"  connections: C\n"                                                  /* 13 */
	"  launches:\n"                                                       /* 14 */
	"    - k1\n"                                                          /* 15 */
	"    - {entry: k2, args: [k, out], block: [64], grid: [2], shared_mem: 128}\n"; /* 16 */

/* plan_good with line `line` replaced (NULL: removed) and `more` appended (static storage). */
static const char *with_line(int line, const char *replacement, const char *more)
{
	static char buf[4096];
	const char *p = plan_good;
	size_t used = 0;
	for (int l = 1; *p; l++) {
		const char *eol = strchr(p, '\n');
		size_t n = (size_t)(eol - p) + 1;
		if (l != line)
			used += (size_t)snprintf(buf + used, sizeof buf - used, "%.*s", (int)n, p);
		else if (replacement)
			used += (size_t)snprintf(buf + used, sizeof buf - used, "%s\n", replacement);
		p += n;
	}
	snprintf(buf + used, sizeof buf - used, "%s", more ? more : "");
	return buf;
}

/* The 1-based column where needle starts in line. */
static int col_of(const char *line, const char *needle)
{
	const char *at = strstr(line, needle);
	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	return (int)(at - line) + 1;
}

/* Replacing line `line` with `text` gives message at needle's column of it. */
static void expect(int line, const char *text, const char *needle, const char *message)
{
	config_expect_error(with_line(line, text, NULL), line, col_of(text, needle), message);
}

/* The same for a replacement of line `line` and all that follows it. */
static void expect_last(int line, const char *text, const char *needle, const char *message)
{
	char head[4096];
	const char *p = plan_good;
	for (int l = 1; l < line; l++)
		p = strchr(p, '\n') + 1;
	snprintf(head, sizeof head, "%.*s%s\n", (int)(p - plan_good), plan_good, text);
	config_expect_error(head, line, col_of(text, needle), message);
}

static void test_a_plan_loads(void)
{
	config cfg;
	char *first;
	CU_ASSERT_EQUAL_FATAL(config_load_text(plan_good, &cfg, &first), 0);
	free(first);
	const launch_plan_cfg *p = &cfg.plan;
	CU_ASSERT_EQUAL_FATAL(p->nlaunches, 2);
	/* kernel.entry is the first launch's: it names the binary's resources */
	CU_ASSERT_STRING_EQUAL(cfg.entry, "k1");
	CU_ASSERT_STRING_EQUAL(p->launches[0].entry, "k1");
	CU_ASSERT_STRING_EQUAL(p->launches[1].entry, "k2");
	/* without args, every argument that is passed (not the __constant__ c), in order */
	CU_ASSERT_EQUAL_FATAL(p->launches[0].nargs, 2);
	CU_ASSERT(p->launches[0].args[0] == 0 && p->launches[0].args[1] == 1);
	CU_ASSERT_EQUAL_FATAL(p->launches[1].nargs, 2);
	CU_ASSERT(p->launches[1].args[0] == 1 && p->launches[1].args[1] == 0);
	CU_ASSERT(!p->launches[0].has_block && !p->launches[0].has_grid && !p->launches[0].has_smem);
	CU_ASSERT(p->launches[1].has_block && p->launches[1].has_grid && p->launches[1].has_smem);
	CU_ASSERT_EQUAL(p->order_word, 1);
	CU_ASSERT_PTR_NULL(p->order.e);
	CU_ASSERT_PTR_NOT_NULL(p->streams.e);
	CU_ASSERT_PTR_NOT_NULL(p->connections.e);
	CU_ASSERT_EQUAL(p->at.line, 11);
	/* counters are per kernel: a plan has none */
	CU_ASSERT_EQUAL(cfg.metrics, METRICS_NONE);
	config_free(&cfg);
	/* an order of the parameters */
	CU_ASSERT_EQUAL_FATAL(config_load_text(with_line(12, "  order: C > 1", NULL), &cfg, &first), 0);
	free(first);
	CU_ASSERT_PTR_NOT_NULL(cfg.plan.order.e);
	config_free(&cfg);
}

/* Without plan.connections, the worker gets what a program started from the same environment
 * would: CUDA_DEVICE_MAX_CONNECTIONS when it is a valid count, else CUDA's 8. */
static void test_connections_default_to_the_environment(void)
{
	const char *was = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
	char *saved = was ? strdup(was) : NULL;
	const char *const values[][2] = {{"4", "4"}, {"32", "32"}, {"33", "8"}, {"zero", "8"}, {NULL, "8"}};
	for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
		if (values[i][0])
			setenv("CUDA_DEVICE_MAX_CONNECTIONS", values[i][0], 1);
		else
			unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
		config cfg;
		char *first;
		CU_ASSERT_EQUAL_FATAL(config_load_text(with_line(13, NULL, "constraints: [C > 0]\n"), &cfg, &first), 0);
		free(first);
		CU_ASSERT_PTR_NULL(cfg.plan.connections.e);
		CU_ASSERT_EQUAL(cfg.plan.default_connections, atoi(values[i][1]));
		config_free(&cfg);
	}
	if (saved)
		setenv("CUDA_DEVICE_MAX_CONNECTIONS", saved, 1);
	else
		unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
	free(saved);
}

/* Without a launch section the first launch's geometry is the default, and the row's. */
static void test_the_first_launch_can_give_the_geometry(void)
{
	config cfg;
	char *first;
	CU_ASSERT_EQUAL_FATAL(config_load_text(with_line(9, NULL, NULL), &cfg, &first), 1);
	CU_ASSERT_PTR_NOT_NULL(first && strstr(first, ":14:7: without a launch section, the plan's first launch gives the "
						     "default geometry: it needs block and grid"));
	free(first);
	char copy[4096];
	snprintf(copy, sizeof copy, "%s", with_line(15, "    - {entry: k1, block: [B, 2], grid: [\"n / B\"]}", NULL));
	/* line 9 (launch) removed from the text with its own first launch */
	char *launch = strstr(copy, "launch: {block");
	memmove(launch, strchr(launch, '\n') + 1, strlen(strchr(launch, '\n') + 1) + 1);
	CU_ASSERT_EQUAL_FATAL(config_load_text(copy, &cfg, &first), 0);
	free(first);
	space sp;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	result *res = calloc(sp.count, sizeof *res);
	CU_ASSERT_EQUAL_FATAL(space_eval_geometry(&cfg, &sp, res, &d), 0);
	/* S=1 B=32 C=1 first: block 32 x 2, grid 1024 / 32 */
	CU_ASSERT(res[0].block[0] == 32 && res[0].block[1] == 2 && res[0].grid[0] == 32);
	free(res);
	space_free(&sp);
	diags_free(&d);
	config_free(&cfg);
}

/* Each problem at its place. */
static void test_plan_errors_name_their_place(void)
{
	expect(2, "kernel: {source: /dev/null, entry: k}", "k}", "with a plan, each launch names its entry: drop kernel.entry");
	expect(11, "  streams: 0", "0", "plan streams must be an integer from 1 to 1024, not 0");
	expect(11, "  streams: 1 << 11", "1 <<", "plan streams must be an integer from 1 to 1024, not 2048");
	expect(11, "  streams: S2", "S2", "unknown name 'S2' in plan streams");
	expect(13, "  connections: 33", "33", "plan connections must be an integer from 1 to 32, not 33");
	expect(13, "  connections: 0.5", "0.5", "plan connections must be an integer from 1 to 32, not 0.5");
	expect(12, "  order: depth-frist", "depth-frist",
	       "plan order must be depth-first, breadth-first or an expression (0: depth-first, 1: breadth-first), not "
	       "'depth-frist'");
	expect(12, "  order: 2", "2", "plan order must be an integer from 0 to 1, not 2");
	expect_last(14, "  launches: []", "[]", "plan launches takes 1 to 64 launches, not 0");
	expect_last(14, "  launches: k1", "k1", "plan launches must be a list, not a scalar");
	expect(15, "    - 1k", "1k", "plan launch entry '1k' is not a C identifier");
	expect(15, "    - {entry: k1, argz: [k]}", "argz", "unknown key 'argz' in plan launch; did you mean 'args'?");
	expect(15, "    - {args: [k]}", "{args", "plan launch is missing the required key 'entry'");
	expect(15, "    - {entry: k1, args: [k, nope]}", "nope", "plan launch argument 'nope' is not one of the config's arguments");
	expect(15, "    - {entry: k1, args: [c]}", "c]", "plan launch argument 'c' goes to __constant__ memory: it is not passed");
	expect(15, "    - {entry: k1, grid: [\"n / Q\"]}", "Q\"", "unknown name 'Q' in a plan launch's grid");
	expect_last(10, "plan: {streamz: 2, launches: [k1]}", "streamz", "unknown key 'streamz' in 'plan'; did you mean 'streams'?");
	expect_last(10, "plan: {streams: 2}", "{streams", "'plan' is missing the required key 'launches'");
	/* a plan of several kernels has no counters to give */
	const char *text = with_line(0, NULL, "measure: {metrics: all}\n");
	config_expect_error(text, 17, col_of("measure: {metrics: all}", "all"),
			    "a plan's launches are not profiled (counters are per kernel): measure.metrics can only be none");
	config cfg;
	char *first;
	CU_ASSERT_EQUAL(config_load_text(with_line(0, NULL, "measure: {metrics: none}\n"), &cfg, &first), 0);
	free(first);
	config_free(&cfg);
	/* without a plan, kernel.entry and launch stay required */
	const char *plain = "kernel: {source: /dev/null}\narguments: [{name: n, type: int32, value: 1}]\nspace: {x: [1]}\n"
			    "launch: {block: [1], grid: [1]}\n";
	config_expect_error(plain, 1, 9, "'kernel' is missing the required key 'entry'");
}

int add_config_plan_suite(void)
{
	CU_pSuite s = CU_add_suite("config_plan", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "a plan loads", test_a_plan_loads);
	CU_add_test(s, "connections default to the environment", test_connections_default_to_the_environment);
	CU_add_test(s, "the first launch can give the geometry", test_the_first_launch_can_give_the_geometry);
	CU_add_test(s, "plan errors name their place", test_plan_errors_name_their_place);
	return CU_get_error() == CUE_SUCCESS ? 0 : -1;
}
