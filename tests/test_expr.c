/* test_expr.c: the expression language's parsing (expr.c): precedence, literals, syntax errors at
 * their exact offsets, names in source order, values formatted to parse back; since config errors
 * are reported by offset. (Evaluation: test_expr_eval.c.) */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "tests.h"

int add_expr_suite(void);

static void test_multiplication_binds_tighter_than_addition(void)
{
	CU_ASSERT_EQUAL(eval_int("1 + 2 * 3"), 7);
	CU_ASSERT_EQUAL(eval_int("(1 + 2) * 3"), 9);
	CU_ASSERT_EQUAL(eval_int("2 * 3 + 1"), 7);
	CU_ASSERT_EQUAL(eval_int("10 - 4 - 3"), 3);
	CU_ASSERT_EQUAL(eval_int("100 / 10 / 5"), 2);
	CU_ASSERT_EQUAL(eval_int("1 << 2 + 1"), 8);
	CU_ASSERT_EQUAL(eval_int("1 + 1 == 2 && 3 < 4 || 0"), 1);
	CU_ASSERT_EQUAL(eval_int("-2 * -3"), 6);
	CU_ASSERT_EQUAL(eval_int("!0 + 1"), 2);
	CU_ASSERT_EQUAL(eval_int("((((7))))"), 7);
}

static void test_literal_forms_decimal_hex_and_float(void)
{
	CU_ASSERT_EQUAL(eval_int("123"), 123);
	CU_ASSERT_EQUAL(eval_int("0x1F"), 31);
	CU_ASSERT_EQUAL(eval_int("0xff"), 255);
	CU_ASSERT_EQUAL(eval_int("9223372036854775807"), 9223372036854775807LL);
	CU_ASSERT_DOUBLE_EQUAL(eval_float("1.5"), 1.5, 0);
	CU_ASSERT_DOUBLE_EQUAL(eval_float(".5"), 0.5, 0);
	CU_ASSERT_DOUBLE_EQUAL(eval_float("1e6"), 1e6, 0);
	CU_ASSERT_DOUBLE_EQUAL(eval_float("2.5e-3"), 2.5e-3, 0);
	CU_ASSERT_DOUBLE_EQUAL(eval_float("3."), 3.0, 0);
	CU_ASSERT_DOUBLE_EQUAL(eval_float("1E+2"), 100.0, 0);
}

static void test_syntax_errors_report_exact_offset(void)
{
	check_parse_error("(1 + 2", 6, "expected ')' but found end of expression");
	check_parse_error("1 +", 3, "expected a number, name or '(' but found end of expression");
	check_parse_error("3 $ 4", 2, "unexpected character '$'");
	check_parse_error("1 2", 2, "found number '2'");
	check_parse_error("nx ny", 3, "found name 'ny'");
	check_parse_error("min(1 2)", 6, "expected ',' or ')' but found number '2'");
	check_parse_error("1 = 2", 2, "did you mean '=='");
	check_parse_error("1 & 2", 2, "did you mean '&&'");
	check_parse_error("(1))", 3, "found ')'");
	check_parse_error("* 2", 0, "expected a number, name or '(' but found '*'");
}

static void test_empty_expression_is_an_error(void)
{
	check_parse_error("", 0, "empty expression");
	check_parse_error("   ", 0, "empty expression");
}

static void test_malformed_numbers_are_rejected(void)
{
	check_parse_error("1 + 12abc", 4, "malformed number '12abc'");
	check_parse_error("1.2.3", 0, "malformed number");
	check_parse_error("1e", 0, "malformed number");
	check_parse_error("0x", 0, "malformed number");
	check_parse_error("1e999", 0, "too large");
}

static void test_integer_literal_overflow_is_parse_error(void)
{
	check_parse_error("1 + 9223372036854775808", 4, "does not fit in 64 bits");
	check_parse_error("0x10000000000000000", 0, "does not fit in 64 bits");
}

static void test_unknown_function_lists_known_ones(void)
{
	check_parse_error("1 + floor(2)", 4, "unknown function 'floor' (known: min, max, ceil_div, abs, pow, floor_div, mod, select)");
}

static void test_deep_nesting_is_rejected_not_crashing(void)
{
	enum { N = 100000 };
	char *s = malloc(2 * N + 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	memset(s, '(', N);
	s[N] = '1';
	memset(s + N + 1, ')', N);
	s[2 * N + 1] = 0;
	expr_error err;
	expr *e = expr_parse(s, &err);
	CU_ASSERT_PTR_NULL(e);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nested too deeply"));
	memset(s, '-', N);
	s[N] = '1';
	s[N + 1] = 0;
	e = expr_parse(s, &err);
	CU_ASSERT_PTR_NULL(e);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nested too deeply"));
	/* A long left-leaning chain is as deep a tree as nested parentheses. */
	for (int i = 0; i < N; i++) {
		s[2 * i] = '1';
		s[2 * i + 1] = '+';
	}
	s[2 * N - 1] = 0;
	e = expr_parse(s, &err);
	CU_ASSERT_PTR_NULL(e);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nested too deeply"));
	free(s);
	/* Realistic nesting is well inside the limit. */
	CU_ASSERT_EQUAL(eval_int("((((((((((((((((((((1))))))))))))))))))))"), 1);
	CU_ASSERT_EQUAL(eval_int("- - - - 1"), 1);
}

static void check_format(value v, const char *want)
{
	char buf[64];
	value_format(v, buf, sizeof buf);
	if (strcmp(buf, want))
		fprintf(stderr, "\nvalue_format gave '%s', want '%s'\n", buf, want);
	CU_ASSERT_STRING_EQUAL(buf, want);
}

static void test_value_format_marks_floats_and_is_shortest(void)
{
	check_format(value_int(256), "256");
	check_format(value_int(-3), "-3");
	check_format(value_int(-9223372036854775807LL - 1), "-9223372036854775808");
	check_format(value_float(2.0), "2.0");
	check_format(value_float(0.5), "0.5");
	check_format(value_float(1e-06), "1e-06");
	check_format(value_float(0.1), "0.1");
	check_format(value_float(1.0 / 3.0), "0.3333333333333333");
	check_format(value_float(-0.0), "-0.0");
	check_format(value_float(INFINITY), "inf");
	check_format(value_float(-INFINITY), "-inf");
	check_format(value_float(NAN), "nan");
	char small[4];
	value_format(value_int(123456), small, sizeof small);
	CU_ASSERT_STRING_EQUAL(small, "123");
}

/* Formatting then parsing must give back the identical value and kind. */
static void test_value_format_round_trips_through_parser(void)
{
	const value vals[] = {
		value_int(0), value_int(42), value_int(9223372036854775807LL), value_float(2.0),
		value_float(0.5), value_float(1e-06), value_float(0.1), value_float(1.0 / 3.0),
		value_float(6.02214076e23), value_float(1e16), value_float(123456.789), value_float(5e-324),
	};
	for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
		char buf[64];
		value_format(vals[i], buf, sizeof buf);
		value back;
		expr_error err;
		int rc = expr_run(buf, &back, &err);
		if (rc)
			fprintf(stderr, "\n'%s' does not parse: %s\n", buf, err.msg);
		CU_ASSERT_EQUAL_FATAL(rc, 0);
		CU_ASSERT_EQUAL(back.kind, vals[i].kind);
		if (vals[i].kind == VAL_INT) {
			CU_ASSERT_EQUAL(back.u.i, vals[i].u.i);
		} else {
			CU_ASSERT(memcmp(&back.u.f, &vals[i].u.f, sizeof(double)) == 0);
		}
	}
}

typedef struct {
	int n;
	char names[8][16];
	int offsets[8];
	int stop_after;
} name_log;

static int log_name(void *ctx, const char *name, int offset)
{
	name_log *l = ctx;
	snprintf(l->names[l->n], sizeof l->names[0], "%s", name);
	l->offsets[l->n] = offset;
	l->n++;
	return l->n == l->stop_after ? 99 : 0;
}

static void test_foreach_name_visits_names_in_source_order(void)
{
	expr_error err;
	expr *e = expr_parse("max(a, bb) * ceil_div(c, a) + -dd", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	name_log l = {0};
	CU_ASSERT_EQUAL(expr_foreach_name(e, log_name, &l), 0);
	CU_ASSERT_EQUAL_FATAL(l.n, 5);
	const char *want[] = {"a", "bb", "c", "a", "dd"};
	const int off[] = {4, 7, 22, 25, 31};
	for (int i = 0; i < 5; i++) {
		CU_ASSERT_STRING_EQUAL(l.names[i], want[i]);
		CU_ASSERT_EQUAL(l.offsets[i], off[i]);
	}
	/* A non-zero return stops the walk and comes back. */
	name_log stop = {0};
	stop.stop_after = 2;
	CU_ASSERT_EQUAL(expr_foreach_name(e, log_name, &stop), 99);
	CU_ASSERT_EQUAL(stop.n, 2);
	expr_free(e);
}

static void test_foreach_name_skips_function_names_and_literals(void)
{
	expr_error err;
	expr *e = expr_parse("min(1, 2.5) + abs(3)", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	name_log l = {0};
	CU_ASSERT_EQUAL(expr_foreach_name(e, log_name, &l), 0);
	CU_ASSERT_EQUAL(l.n, 0);
	expr_free(e);
}

static void test_source_is_an_owned_copy(void)
{
	char buf[] = "nx + 1";
	expr_error err;
	expr *e = expr_parse(buf, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	memset(buf, 'x', sizeof buf - 1);
	CU_ASSERT_STRING_EQUAL(expr_source(e), "nx + 1");
	CU_ASSERT_PTR_NOT_EQUAL(expr_source(e), buf);
	value v;
	CU_ASSERT_EQUAL(expr_eval(e, table_lookup, NULL, &v, &err), 0);
	CU_ASSERT_EQUAL(v.u.i, 1025);
	expr_free(e);
	expr_free(NULL);
}

static void test_value_helpers(void)
{
	CU_ASSERT_DOUBLE_EQUAL(value_as_double(value_int(3)), 3.0, 0);
	CU_ASSERT_DOUBLE_EQUAL(value_as_double(value_float(2.5)), 2.5, 0);
	CU_ASSERT_EQUAL(value_truth(value_int(0)), 0);
	CU_ASSERT_NOT_EQUAL(value_truth(value_int(-1)), 0);
	CU_ASSERT_EQUAL(value_truth(value_float(0.0)), 0);
	CU_ASSERT_NOT_EQUAL(value_truth(value_float(0.25)), 0);
}

/* A character outside the language is quoted whole: a multi-byte UTF-8 one as itself, never its
 * first byte; a byte that starts no character (invalid, truncated, overlong, a surrogate) as \\x. */
static void test_unexpected_characters_are_quoted_whole(void)
{
	check_parse_error("a \u2265 1", 2, "unexpected character '\u2265'");
	check_parse_error("1 + \u00e9", 4, "unexpected character '\u00e9'");
	check_parse_error("1 \U0001F600", 2, "unexpected character '\U0001F600'");
	check_parse_error("1 \xff", 2, "unexpected character '\\xff'");
	check_parse_error("1 \xe2\x89", 2, "unexpected character '\\xe2'");
	check_parse_error("1 \xe0\x80\x80", 2, "unexpected character '\\xe0'");
	check_parse_error("1 \xed\xa0\x80", 2, "unexpected character '\\xed'");
	check_parse_error("1 \xf4\x90\x80\x80", 2, "unexpected character '\\xf4'");
	check_parse_error("1 \x01", 2, "unexpected character '\\x01'");
	unsigned cp;
	CU_ASSERT(utf8_char("a", &cp) == 1 && cp == 'a');
	CU_ASSERT(utf8_char("\u00e9", &cp) == 2 && cp == 0xE9);
	CU_ASSERT(utf8_char("\u2265", &cp) == 3 && cp == 0x2265);
	CU_ASSERT(utf8_char("\U0010FFFF", &cp) == 4 && cp == 0x10FFFF);
	CU_ASSERT_EQUAL(utf8_char("\xc0\x80", &cp), 0); /* overlong NUL */
	CU_ASSERT_EQUAL(utf8_char("\xf5\x80\x80\x80", &cp), 0);
	CU_ASSERT_EQUAL(utf8_char("\xe2", &cp), 0);
}

int add_expr_suite(void)
{
	CU_pSuite s = CU_add_suite("expr", NULL, NULL);
	if (!s)
		return -1;
	static const struct {
		const char *name;
		CU_TestFunc fn;
	} tests[] = {
#define T(f) {#f, f}
		T(test_multiplication_binds_tighter_than_addition),
		T(test_literal_forms_decimal_hex_and_float),
		T(test_syntax_errors_report_exact_offset),
		T(test_unexpected_characters_are_quoted_whole),
		T(test_empty_expression_is_an_error),
		T(test_malformed_numbers_are_rejected),
		T(test_integer_literal_overflow_is_parse_error),
		T(test_unknown_function_lists_known_ones),
		T(test_deep_nesting_is_rejected_not_crashing),
		T(test_value_format_marks_floats_and_is_shortest),
		T(test_value_format_round_trips_through_parser),
		T(test_foreach_name_visits_names_in_source_order),
		T(test_foreach_name_skips_function_names_and_literals),
		T(test_source_is_an_owned_copy),
		T(test_value_helpers),
#undef T
	};
	for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
		if (!CU_add_test(s, tests[i].name, tests[i].fn))
			return -1;
	return 0;
}
