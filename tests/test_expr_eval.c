/* test_expr_eval.c: evaluating a parsed expression (expr_eval.c): integers as C computes them
 * but checked for overflow, floats where an operand is one, the functions, short-circuit logic,
 * names through the caller's lookup, and each error at the offset of what caused it; a wrong
 * value silently skews a whole tuning run. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "tests.h"

int add_expr_eval_suite(void);

/* Asserts that src parses but fails to evaluate, at `offset`, with a message containing `msg`. */
static void check_eval_error(const char *src, int offset, const char *msg)
{
	expr_error err = {-1, ""};
	expr *e = expr_parse(src, &err);
	if (!e)
		fprintf(stderr, "\n'%s': unexpected parse error at %d: %s\n", src, err.offset, err.msg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	value v;
	int rc = expr_eval(e, table_lookup, NULL, &v, &err);
	expr_free(e);
	if (rc == 0 || err.offset != offset || !strstr(err.msg, msg))
		fprintf(stderr, "\n'%s': got rc %d offset %d msg '%s', want %d '%s'\n", src, rc, err.offset,
			err.msg, offset, msg);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL(err.offset, offset);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, msg));
}

static void test_int_arithmetic_stays_int_and_float_spreads(void)
{
	CU_ASSERT_EQUAL(eval_int("6 * 7"), 42);
	CU_ASSERT_DOUBLE_EQUAL(eval_float("1 + 0.5"), 1.5, 0);
	CU_ASSERT_DOUBLE_EQUAL(eval_float("0.5 * 4"), 2.0, 0);
	CU_ASSERT_DOUBLE_EQUAL(eval_float("7 / 2.0"), 3.5, 0);
	CU_ASSERT_DOUBLE_EQUAL(eval_float("-scale"), -0.5, 0);
	/* Comparisons of floats still give int truth values. */
	CU_ASSERT_EQUAL(eval_int("0.5 < 1"), 1);
	CU_ASSERT_EQUAL(eval_int("2.0 == 2"), 1);
}

static void test_int_division_truncates_towards_zero(void)
{
	CU_ASSERT_EQUAL(eval_int("7 / 2"), 3);
	CU_ASSERT_EQUAL(eval_int("-7 / 2"), -3);
	CU_ASSERT_EQUAL(eval_int("7 / -2"), -3);
	CU_ASSERT_EQUAL(eval_int("7 % 3"), 1);
	CU_ASSERT_EQUAL(eval_int("-7 % 3"), -1);
	CU_ASSERT_EQUAL(eval_int("7 % -3"), 1);
}

/* Python's **, // and % for the T1 import: exact on integers, rounding down (not toward zero). */
static void test_pow_floor_div_and_mod_are_pythons(void)
{
	/* select evaluates only the branch taken: the other divides by zero */
	CU_ASSERT_EQUAL(eval_int("select(1 > 2, 1 / 0, 7)"), 7);
	CU_ASSERT_EQUAL(eval_int("select(2, 5, 1 / 0)"), 5);
	CU_ASSERT_EQUAL(eval_int("pow(2, 10)"), 1024);
	CU_ASSERT_EQUAL(eval_int("pow(-3, 3)"), -27);
	CU_ASSERT_EQUAL(eval_int("pow(7, 0)"), 1);
	CU_ASSERT_EQUAL(eval_int("pow(-1, 1000000000001)"), -1);
	CU_ASSERT_EQUAL(eval_int("pow(1, 1000000000000)"), 1);
	CU_ASSERT_EQUAL(eval_int("pow(0, 5)"), 0);
	check_eval_error("pow(2, 63)", 0, "integer overflow");
	check_eval_error("pow(2, -1)", 7, "exponent of 0 or more");
	CU_ASSERT_EQUAL(eval_int("floor_div(7, 2)"), 3);
	CU_ASSERT_EQUAL(eval_int("floor_div(-7, 2)"), -4);
	CU_ASSERT_EQUAL(eval_int("floor_div(7, -2)"), -4);
	CU_ASSERT_EQUAL(eval_int("mod(-7, 3)"), 2);
	CU_ASSERT_EQUAL(eval_int("mod(7, -3)"), -2);
	CU_ASSERT_EQUAL(eval_int("mod(7, 3)"), 1);
	check_eval_error("mod(7, 0)", 7, "division by zero");
	expr_error err;
	value v;
	expr *e = expr_parse("floor_div(-7.5, 2)", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(expr_eval(e, table_lookup, NULL, &v, &err), 0);
	CU_ASSERT(v.kind == VAL_FLOAT && v.u.f == -4.0);
	expr_free(e);
	e = expr_parse("pow(2, 0.5)", &err);
	CU_ASSERT_EQUAL(expr_eval(e, table_lookup, NULL, &v, &err), 0);
	CU_ASSERT(v.kind == VAL_FLOAT && fabs(v.u.f - sqrt(2.0)) < 1e-15);
	expr_free(e);
}

static void test_shifts_work_on_ints(void)
{
	CU_ASSERT_EQUAL(eval_int("1 << 10"), 1024);
	CU_ASSERT_EQUAL(eval_int("1024 >> 3"), 128);
	check_eval_error("1.0 << 2", 4, "'<<' needs integers");
	check_eval_error("1 << 64", 2, "shift count");
	check_eval_error("1 << 63", 2, "integer overflow");
}

static void test_ceil_div_rounds_towards_positive_infinity(void)
{
	CU_ASSERT_EQUAL(eval_int("ceil_div(16384, 32)"), 512);
	CU_ASSERT_EQUAL(eval_int("ceil_div(10, 3)"), 4);
	CU_ASSERT_EQUAL(eval_int("ceil_div(9, 3)"), 3);
	CU_ASSERT_EQUAL(eval_int("ceil_div(-7, 2)"), -3);
	CU_ASSERT_EQUAL(eval_int("ceil_div(7, -2)"), -3);
	CU_ASSERT_EQUAL(eval_int("ceil_div(-7, -2)"), 4);
	CU_ASSERT_EQUAL(eval_int("ceil_div(0, 5)"), 0);
	CU_ASSERT_EQUAL(eval_int("ceil_div(nx, BLOCK_M)"), 16);
	CU_ASSERT_EQUAL(eval_int("ceil_div(9223372036854775807, 2)"), 4611686018427387904LL);
}

static void test_ceil_div_rejects_zero_divisor_and_floats(void)
{
	check_eval_error("ceil_div(10, zero)", 13, "division by zero");
	check_eval_error("ceil_div(10, 2.5)", 13, "needs integers");
	check_parse_error("ceil_div(10)", 0, "ceil_div() takes 2 arguments, not 1");
	check_parse_error("ceil_div(1, 2, 3)", 0, "ceil_div() takes 2 arguments, not 3");
}

static void test_min_max_take_many_args_and_keep_kind(void)
{
	CU_ASSERT_EQUAL(eval_int("min(5, 3, 9, 1, 7)"), 1);
	CU_ASSERT_EQUAL(eval_int("max(5, 3, 9, 1, 7)"), 9);
	CU_ASSERT_EQUAL(eval_int("min(42)"), 42);
	CU_ASSERT_EQUAL(eval_int("max(-5, -3)"), -3);
	CU_ASSERT_EQUAL(eval_int("max(nx, ny) - min(nx, ny)"), 256);
	CU_ASSERT_DOUBLE_EQUAL(eval_float("min(2, 1.5, 3)"), 1.5, 0);
	/* One float argument makes the result a float even when an int wins. */
	CU_ASSERT_DOUBLE_EQUAL(eval_float("max(4, 1.5)"), 4.0, 0);
	check_parse_error("min()", 0, "min() needs at least 1 argument");
	check_parse_error("max(1, )", 7, "expected a number, name or '(' but found ')'");
}

static void test_abs_of_ints_and_floats(void)
{
	CU_ASSERT_EQUAL(eval_int("abs(-5)"), 5);
	CU_ASSERT_EQUAL(eval_int("abs(5)"), 5);
	CU_ASSERT_DOUBLE_EQUAL(eval_float("abs(-2.5)"), 2.5, 0);
	check_parse_error("abs(1, 2)", 0, "abs() takes 1 argument, not 2");
	check_eval_error("abs(-9223372036854775807 - 1)", 0, "integer overflow");
}

static void test_short_circuit_skips_division_by_zero(void)
{
	CU_ASSERT_EQUAL(eval_int("zero != 0 && 10 / zero > 1"), 0);
	CU_ASSERT_EQUAL(eval_int("zero == 0 || 10 / zero > 1"), 1);
	CU_ASSERT_EQUAL(eval_int("0 && undefined_name"), 0);
	CU_ASSERT_EQUAL(eval_int("1 || undefined_name"), 1);
	/* Without the guard, the division is evaluated and fails. */
	check_eval_error("zero == 0 && 10 / zero > 1", 16, "division by zero");
}

static void test_comparisons_and_logic_give_zero_or_one(void)
{
	CU_ASSERT_EQUAL(eval_int("3 < 4"), 1);
	CU_ASSERT_EQUAL(eval_int("4 < 4"), 0);
	CU_ASSERT_EQUAL(eval_int("4 <= 4"), 1);
	CU_ASSERT_EQUAL(eval_int("5 > 4"), 1);
	CU_ASSERT_EQUAL(eval_int("4 >= 5"), 0);
	CU_ASSERT_EQUAL(eval_int("4 == 4"), 1);
	CU_ASSERT_EQUAL(eval_int("4 != 4"), 0);
	CU_ASSERT_EQUAL(eval_int("7 && 9"), 1);
	CU_ASSERT_EQUAL(eval_int("0 || 9"), 1);
	CU_ASSERT_EQUAL(eval_int("0.5 && 2"), 1);
	CU_ASSERT_EQUAL(eval_int("!7"), 0);
	CU_ASSERT_EQUAL(eval_int("!0.0"), 1);
	CU_ASSERT_EQUAL(eval_int("nx % BLOCK_M == 0 && ny % BLOCK_M == 0"), 1);
}

static void test_lookup_callback_supplies_values(void)
{
	int calls = 0;
	expr_error err;
	expr *e = expr_parse("nx * ny + BLOCK_M", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	value v;
	CU_ASSERT_EQUAL(expr_eval(e, table_lookup, &calls, &v, &err), 0);
	CU_ASSERT_EQUAL(v.kind, VAL_INT);
	CU_ASSERT_EQUAL(v.u.i, 1024 * 768 + 64);
	CU_ASSERT_EQUAL(calls, 3);
	/* A parsed expression evaluates again, asking the callback afresh. */
	CU_ASSERT_EQUAL(expr_eval(e, table_lookup, &calls, &v, &err), 0);
	CU_ASSERT_EQUAL(calls, 6);
	expr_free(e);
	CU_ASSERT_DOUBLE_EQUAL(eval_float("nx * scale"), 512.0, 0);
}

static void test_unknown_name_reports_offset(void)
{
	check_eval_error("nx * ny2", 5, "unknown name 'ny2'");
	check_eval_error("foo", 0, "unknown name 'foo'");
	/* Without a lookup every name is unknown. */
	expr_error err;
	expr *e = expr_parse("1 + nx", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	value v;
	CU_ASSERT_EQUAL(expr_eval(e, NULL, NULL, &v, &err), -1);
	CU_ASSERT_EQUAL(err.offset, 4);
	CU_ASSERT_STRING_EQUAL(err.msg, "unknown name 'nx'");
	expr_free(e);
}

static void test_division_by_zero_reports_operator_offset(void)
{
	check_eval_error("10 / zero", 3, "division by zero");
	check_eval_error("1 + 10 % (nx - 1024)", 7, "modulo by zero");
	check_eval_error("1.5 / 0.0", 4, "division by zero");
	check_eval_error("1.5 % 2", 4, "'%' needs integers");
}

/* T is a string parameter's value ("__half"), n a number. */
static int string_lookup(void *ctx, const char *name, value *out)
{
	(void)ctx;
	if (!strcmp(name, "T"))
		*out = value_str("__half");
	else if (!strcmp(name, "n"))
		*out = value_int(256);
	else
		return -1;
	return 0;
}

/* src with T and n: 0 and the value, or -1 with err. */
static int eval_strings(const char *src, value *v, expr_error *err)
{
	expr *e = expr_parse(src, err);
	if (!e)
		return -2;
	int rc = expr_eval(e, string_lookup, NULL, v, err);
	expr_free(e);
	return rc;
}

/* A string parameter's value equals or differs from a literal in either quotes (and select()
 * picks among strings); anything else on a string, or a string against a number, is an error at
 * the operator, naming the string. */
static void test_strings_compare_with_equality_only(void)
{
	static const struct {
		const char *src;
		long long want;
	} ok[] = {
		{"T == \"__half\"", 1}, {"T != '__half'", 0}, {"T == \"float\"", 0}, {"'a' != \"b\"", 1},
		{"T == \"__half\" && n >= 128", 1}, {"T == 'float' || n == 256", 1}, {"(T == 'float') + 1", 1},
		{"select(n > 1, T, 'float') == '__half'", 1}, {"T == \"\"", 0},
	};
	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
		value v;
		expr_error err = {0, ""};
		int rc = eval_strings(ok[i].src, &v, &err);
		if (rc || v.kind != VAL_INT || v.u.i != ok[i].want)
			fprintf(stderr, "\n  '%s': rc %d, %s\n", ok[i].src, rc, err.msg);
		CU_ASSERT(rc == 0 && v.kind == VAL_INT && v.u.i == ok[i].want);
	}
	value v;
	expr_error err;
	CU_ASSERT_EQUAL(eval_strings("T", &v, &err), 0);
	CU_ASSERT(v.kind == VAL_STR && !strcmp(v.u.s, "__half"));
	char text[32];
	value_format(v, text, sizeof text);
	CU_ASSERT_STRING_EQUAL(text, "__half");
	static const struct {
		const char *src;
		int offset;
		const char *msg;
	} bad[] = {
		{"T + 1", 2, "'+' of the string \"__half\": a string only compares with == and !="},
		{"n * T", 2, "'*' of the string \"__half\""},
		{"T < 'z'", 2, "'<' of the string"},
		{"T == 1", 2, "'==' compares the string \"__half\" with a number"},
		{"2 != T", 2, "'!=' compares the string"},
		{"!T", 0, "'!' of the string"},
		{"-T", 0, "'-' of the string"},
		{"T && 1", 2, "'&&' of the string"},
		{"max(n, T)", 0, "max() of the string"},
		{"ceil_div(T, 2)", 0, "ceil_div() of the string"},
		{"select(T, 1, 2)", 0, "select()'s condition of the string"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		err = (expr_error){-1, ""};
		int rc = eval_strings(bad[i].src, &v, &err);
		if (rc != -1 || err.offset != bad[i].offset || !strstr(err.msg, bad[i].msg))
			fprintf(stderr, "\n  '%s': rc %d at %d: %s\n", bad[i].src, rc, err.offset, err.msg);
		CU_ASSERT(rc == -1 && err.offset == bad[i].offset && strstr(err.msg, bad[i].msg));
	}
	/* a literal left open is a parse error at its quote */
	CU_ASSERT_EQUAL(eval_strings("T == \"float", &v, &err), -2);
	CU_ASSERT_EQUAL(err.offset, 5);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "without its closing"));
}

static void test_integer_overflow_is_an_error(void)
{
	check_eval_error("9223372036854775807 + 1", 20, "integer overflow");
	check_eval_error("-9223372036854775807 - 2", 21, "integer overflow");
	check_eval_error("4611686018427387904 * 2", 20, "integer overflow");
	check_eval_error("-(-9223372036854775807 - 1)", 0, "integer overflow");
	check_eval_error("(-9223372036854775807 - 1) / -1", 27, "integer overflow");
	CU_ASSERT_EQUAL(eval_int("-9223372036854775807 - 1"), -9223372036854775807LL - 1);
	/* The same magnitude as a float is fine. */
	CU_ASSERT_DOUBLE_EQUAL(eval_float("9223372036854775807 + 1.0"), 9223372036854775808.0, 0);
}

int add_expr_eval_suite(void)
{
	CU_pSuite s = CU_add_suite("expr_eval", NULL, NULL);
	if (!s)
		return -1;
	static const struct {
		const char *name;
		CU_TestFunc fn;
	} tests[] = {
#define T(f) {#f, f}
		T(test_int_arithmetic_stays_int_and_float_spreads),
		T(test_int_division_truncates_towards_zero),
		T(test_shifts_work_on_ints),
		T(test_pow_floor_div_and_mod_are_pythons),
		T(test_ceil_div_rounds_towards_positive_infinity),
		T(test_ceil_div_rejects_zero_divisor_and_floats),
		T(test_min_max_take_many_args_and_keep_kind),
		T(test_abs_of_ints_and_floats),
		T(test_short_circuit_skips_division_by_zero),
		T(test_comparisons_and_logic_give_zero_or_one),
		T(test_lookup_callback_supplies_values),
		T(test_unknown_name_reports_offset),
		T(test_division_by_zero_reports_operator_offset),
		T(test_integer_overflow_is_an_error),
		T(test_strings_compare_with_equality_only),
#undef T
	};
	for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
		if (!CU_add_test(s, tests[i].name, tests[i].fn))
			return -1;
	return 0;
}
