/* test_config_expr.c: the names a config's expressions may use (config_expr.c), checked once at
 * load where they are written: constants in order, parameters where a value may vary per
 * configuration, i and lane in element expressions; and their evaluation for a configuration or
 * an element, an error naming the configuration it concerns. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "space.h"
#include "tests.h"

static void test_unknown_name_in_expression_points_at_name(void)
{
	/* the quote is column 10, so the expression starts at 11 and m is at column 20 */
	config_expect_error(config_with_line(14, "  grid: [\"ceil_div(m, bx)\"]"), 14, 20, "unknown name 'm' in the launch grid");
}

static void test_array_count_may_not_use_parameters(void)
{
	config_expect_error(config_with_line(8, "  - {name: a, type: float, count: n * bx}"), 8, 39,
		     "an array's count may use constants only, but 'bx' is a parameter");
}

static void test_division_by_zero_in_constant(void)
{
	config_expect_error(config_with_line(6, "  n: 4 / 0"), 6, 8, "division by zero");
}

/* A constant may use the constants before it, not those after it; parameter values may use
 * constants. */
static void test_constants_see_the_constants_before_them(void)
{
	config cfg;
	char *first;
	CU_ASSERT_EQUAL_FATAL(config_load_text(config_with_line(6, "  n: 1 << 10\n  m: n * 2 + 1"), &cfg, &first), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.nconstants, 2);
	CU_ASSERT_EQUAL(cfg.constants[1].v.u.i, 2 * 1024 + 1);
	config_free(&cfg);
	config_expect_error(config_with_line(6, "  m: k * 2\n  k: 3\n  n: 1 << 10"), 6, 6, "unknown name 'k' in constant 'm'");
	/* 1024 / 16 = 64 among bx's values */
	CU_ASSERT_EQUAL_FATAL(config_load_text(config_with_line(11, "  bx: [32, n / 16]"), &cfg, &first), 0);
	CU_ASSERT_EQUAL(cfg.params[0].values[1].u.i, 64);
	config_free(&cfg);
}

/* config_good with constants for line 6 and the first array's count and fill; static storage. */
static const char *with_constants(const char *constants, const char *array)
{
	static char text[2048];
	char *base = config_with_line(6, constants), *at = strstr(base, "  - {name: a, type: float, count: n}\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	snprintf(text, sizeof text, "%.*s%s\n%s", (int)(at - base), base, array,
		 at + strlen("  - {name: a, type: float, count: n}\n"));
	return text;
}

/* A constant whose definition failed is said once, where it is: its uses (a count, a value, the
 * grid, a fill expression, a constant after it) are no further errors, while other names still are. */
static void test_a_failed_constant_is_said_once(void)
{
	config cfg;
	char *first;
	const char *fill = "  - {name: a, type: float, count: m, fill: {expr: \"i * n\"}}";
	CU_ASSERT_EQUAL(config_load_text(with_constants("  n: 1 << 64\n  m: n * 2", fill), &cfg, &first), 1);
	CU_ASSERT_PTR_NOT_NULL(first && strstr(first, ":6:8: shift count 64 is outside 0..63"));
	free(first);
	CU_ASSERT_EQUAL(config_load_text(with_constants("  n: 1 << 64\n  m: n + zz", fill), &cfg, &first), 2); /* and zz */
	free(first);
	/* m never defined: its uses are errors */
	CU_ASSERT_EQUAL(config_load_text(with_constants("  n: 1 << 10", fill), &cfg, &first), 1);
	CU_ASSERT_PTR_NOT_NULL(first && strstr(first, "unknown name 'm' in an array's count"));
	free(first);
}

/* Element expressions use i, lane and constants; any other name is refused at its column. */
static void test_element_expressions_use_i_lane_and_constants(void)
{
	config_expect_error(config_with_line(8, "  - {name: a, type: float, count: n, fill: {expr: \"i * 2 + j\"}}"), 8, 60,
			    "unknown name 'j' in fill expr (it may use i, lane and constants)");
	config_expect_error(config_with_line(8, "  - {name: a, type: float, count: n, fill: {expr: \"i * bx\"}}"), 8, 56,
			    "unknown name 'bx' in fill expr (it may use i, lane and constants)");
	config cfg;
	char *first;
	CU_ASSERT_EQUAL_FATAL(
		config_load_text(config_with_line(8, "  - {name: a, type: float, count: n, fill: {expr: \"i * n + lane\"}}"), &cfg, &first),
		0);
	value v;
	CU_ASSERT_EQUAL(element_eval(&cfg, &cfg.args[0].fill_expr, 5, 1, &v), 0);
	CU_ASSERT(v.kind == VAL_INT && v.u.i == 5 * 1024 + 1);
	CU_ASSERT_EQUAL(element_eval(&cfg, &cfg.args[0].fill_expr, 0, 0, &v), 0);
	CU_ASSERT(v.kind == VAL_INT && v.u.i == 0);
	config_free(&cfg);
}

/* A launch expression evaluated for each configuration: the value, or the error at its column
 * with the configuration it failed for. */
static void test_an_evaluation_names_its_configuration(void)
{
	config cfg;
	space sp;
	char *first;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(config_load_text(config_with_line(14, "  grid: [\"n / (bx - 32)\"]"), &cfg, &first), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	value v;
	CU_ASSERT_EQUAL(cexpr_eval(&cfg, &cfg.grid[0], space_config(&sp, 1), &v, &d, "bx=64"), 0); /* bx = 64 */
	CU_ASSERT_EQUAL(v.u.i, 1024 / 32);
	CU_ASSERT_EQUAL(d.n, 0);
	CU_ASSERT_EQUAL(cexpr_eval(&cfg, &cfg.grid[0], space_config(&sp, 0), &v, &d, "bx=32"), -1);
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	char want[300];
	snprintf(want, sizeof want, "%s:14:13: division by zero (for bx=32)", cfg.path);
	CU_ASSERT_STRING_EQUAL(d.msgs[0], want);
	diags_free(&d);
	space_free(&sp);
	config_free(&cfg);
}

/* Names resolve to constants first, then to the parameter values given; without values a
 * parameter is unknown. */
static void test_names_resolve_to_constants_then_parameters(void)
{
	config cfg;
	space sp;
	char *first;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(config_load_text(config_good, &cfg, &first), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	value v;
	scope none = {&cfg, NULL}, third = {&cfg, space_config(&sp, 2)};
	CU_ASSERT_EQUAL(scope_lookup(&none, "n", &v), 0);
	CU_ASSERT_EQUAL(v.u.i, 1024);
	CU_ASSERT_EQUAL(scope_lookup(&none, "bx", &v), -1);
	CU_ASSERT_EQUAL(scope_lookup(&third, "bx", &v), 0);
	CU_ASSERT_EQUAL(v.u.i, 128);
	CU_ASSERT_EQUAL(scope_lookup(&third, "by", &v), -1);
	space_free(&sp);
	config_free(&cfg);
	diags_free(&d);
}

int add_config_expr_suite(void)
{
	CU_pSuite s = CU_add_suite("config_expr", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "unknown name points at the name", test_unknown_name_in_expression_points_at_name);
	CU_add_test(s, "array count may not use parameters", test_array_count_may_not_use_parameters);
	CU_add_test(s, "division by zero in a constant", test_division_by_zero_in_constant);
	CU_add_test(s, "constants see the constants before them", test_constants_see_the_constants_before_them);
	CU_add_test(s, "element expressions use i, lane and constants", test_element_expressions_use_i_lane_and_constants);
	CU_add_test(s, "a failed constant is said once", test_a_failed_constant_is_said_once);
	CU_add_test(s, "an evaluation names its configuration", test_an_evaluation_names_its_configuration);
	CU_add_test(s, "names resolve to constants, then parameters", test_names_resolve_to_constants_then_parameters);
	return 0;
}
