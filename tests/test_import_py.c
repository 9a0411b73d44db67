/* test_import_py.c: Python expressions of T1 specs translated into autotune's language mean what
 * Python means (checked by evaluating both sides on values where C and Python differ), value
 * lists come out as Python lists them, and what has no exact translation is refused at its
 * offset. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_py.h"
#include "tests.h"

/* a, b and c as given, for evaluating a translation */
static long long A, B, C;
static int abc(void *ctx, const char *name, value *out)
{
	(void)ctx;
	if (name[1])
		return -1;
	*out = value_int(name[0] == 'a' ? A : name[0] == 'b' ? B : name[0] == 'c' ? C : 0);
	return name[0] >= 'a' && name[0] <= 'c' ? 0 : -1;
}

/* The translation of python evaluated at a, b, c. */
static value at(const char *python, long long a, long long b, long long c)
{
	py_error pe;
	char *text = py_translate(python, NULL, &pe);
	if (!text)
		fprintf(stderr, "\n  '%s': refused: %s\n", python, pe.msg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	expr_error ee;
	expr *e = expr_parse(text, &ee);
	if (!e)
		fprintf(stderr, "\n  '%s' -> '%s' does not parse: %s\n", python, text, ee.msg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	A = a, B = b, C = c;
	value v = value_int(-999);
	CU_ASSERT_EQUAL(expr_eval(e, abc, NULL, &v, &ee), 0);
	expr_free(e);
	free(text);
	return v;
}

static long long iat(const char *python, long long a, long long b, long long c) { return at(python, a, b, c).u.i; }

/* Each line's value is what Python 3 gives (worked out by hand from the language's rules). */
static void test_translations_mean_what_python_means(void)
{
	/* chains compare each link: C would compare (1 < 5) with 3 */
	CU_ASSERT_EQUAL(iat("1 < a < 3", 5, 0, 0), 0);
	CU_ASSERT_EQUAL(iat("1 < a < 3", 2, 0, 0), 1);
	CU_ASSERT_EQUAL(iat("32 <= a * b <= 1024", 64, 32, 0), 0);
	CU_ASSERT_EQUAL(iat("a == b == c", 2, 2, 2), 1);
	CU_ASSERT_EQUAL(iat("a == b == c", 2, 2, 1), 0);
	/* not binds looser than comparison, and looser than and's operands */
	CU_ASSERT_EQUAL(iat("not a > 2 or b", 3, 0, 0), 0);
	CU_ASSERT_EQUAL(iat("not a > 2 and b == 1", 1, 1, 0), 1);
	/* x if c else y: only the branch taken is evaluated (the other divides by zero); it binds
	 * looser than or, and nests to the right (KTT's CoulombSum3d generator) */
	CU_ASSERT_EQUAL(iat("a // b if b != 0 else -1", 7, 0, 0), -1);
	CU_ASSERT_EQUAL(iat("a // b if b != 0 else -1", 7, 2, 0), 3);
	CU_ASSERT_EQUAL(iat("a if b or c else 5", 1, 0, 0), 5);
	CU_ASSERT_EQUAL(iat("1 if a < 3 else 2 if a < 5 else 3", 4, 0, 0), 2);
	CU_ASSERT_EQUAL(iat("(a // 4) * 10 if a % 4 < 3 else a % 4", 7, 0, 0), 3);
	/* floor division and modulo round down */
	CU_ASSERT_EQUAL(iat("a // b", -7, 2, 0), -4);
	CU_ASSERT_EQUAL(iat("a % b", -7, 3, 0), 2);
	CU_ASSERT_EQUAL(iat("a % b", 7, -3, 0), -2);
	/* ** binds tighter than unary minus on its left, right to left */
	CU_ASSERT_EQUAL(iat("-2 ** 2", 0, 0, 0), -4);
	CU_ASSERT_EQUAL(iat("2 ** 3 ** 2", 0, 0, 0), 512);
	CU_ASSERT_EQUAL(iat("a ** b", 3, 4, 0), 81);
	/* true division is a float */
	value v = at("a / b", 7, 2, 0);
	CU_ASSERT(v.kind == VAL_FLOAT && v.u.f == 3.5);
	/* membership */
	CU_ASSERT_EQUAL(iat("a in [1, 2, 4]", 4, 0, 0), 1);
	CU_ASSERT_EQUAL(iat("a in (1, 2, 4,)", 3, 0, 0), 0);
	CU_ASSERT_EQUAL(iat("a not in [1, 2]", 3, 0, 0), 1);
	CU_ASSERT_EQUAL(iat("b < a in [4, 8]", 8, 2, 0), 1);
	CU_ASSERT_EQUAL(iat("b < a in [4, 8]", 8, 9, 0), 0);
	/* precedence of the arithmetic, shifts and literals */
	CU_ASSERT_EQUAL(iat("a + b * c", 1, 2, 3), 7);
	CU_ASSERT_EQUAL(iat("a << 1 < b", 2, 5, 0), 1);
	CU_ASSERT_EQUAL(iat("1_024 + 0x10 + True", 0, 0, 0), 1041);
	CU_ASSERT_EQUAL(iat("min(a, b) + max(a, b, c) + abs(-c)", 1, 2, 3), 7);
}

static void refused(const char *python, int offset, const char *msg)
{
	py_error e;
	char *text = py_translate(python, NULL, &e);
	if (text || e.at != offset || !strstr(e.msg, msg))
		fprintf(stderr, "\n  '%s': got '%s' at %d: %s\n", python, text ? text : "(refused)", e.at, e.msg);
	CU_ASSERT_PTR_NULL(text);
	CU_ASSERT_EQUAL(e.at, offset);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, msg));
	free(text);
}

static void test_what_has_no_translation_is_refused_at_its_offset(void)
{
	refused("a if b", 6, "expected 'else' but the expression ended");
	refused("a & b", 2, "bitwise '&'");
	refused("a is b", 2, "'is'");
	refused("len(a)", 0, "the function 'len' has no translation");
	/* a character outside the language is quoted whole, a byte that starts none as \\x */
	refused("a \u2265 1", 2, "'\u2265' is not part of the Python that autotune translates");
	refused("a > 1 and \U0001F600", 10, "'\U0001F600' is not part");
	refused("a \xe2\x89 1", 2, "'\\xe2' is not part");
	refused("math.ceil(a)", 0, "'math.' (an attribute)");
	refused("a in range(4)", 5, "before a list or tuple literal");
	refused("a in []", 5, "an empty list is always false");
	refused("'x' == a", 0, "a string");
	refused("a < ", 4, "ended where a value was expected");
	refused("(a, b)", 2, "a tuple");
	refused("x[0]", 0, "ProblemSize[0..2] has");
	refused("max(a)", 4, "needs a tuning parameter");
}

/* max(P) and ProblemSize[i] come from the spec: the environment supplies them. */
static const value sizes[] = {{VAL_INT, {.i = 16}}, {VAL_INT, {.i = 256}}, {VAL_INT, {.i = 64}}};
static const value *bs_values(void *ctx, const char *name, size_t *n)
{
	(void)ctx;
	*n = 3;
	return strcmp(name, "bs") ? NULL : sizes;
}
static const char *ps(void *ctx, long i)
{
	(void)ctx;
	return i == 1 ? "n * 2" : NULL;
}

static void test_parameter_extremes_and_problem_sizes_come_from_the_spec(void)
{
	py_env env = {bs_values, ps, NULL};
	py_error e;
	char *t = py_translate("max(bs) * ProblemSize[1] + min(bs)", &env, &e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_STRING_EQUAL(t, "((256 * (n * 2)) + 16)");
	free(t);
	CU_ASSERT_PTR_NULL(t = py_translate("ProblemSize[2]", &env, &e));
	free(t);
}

/* The values as Python lists them. */
static void values_are(const char *python, const char *want)
{
	value *v = NULL;
	size_t n = 0;
	py_error e;
	char got[512] = "";
	if (py_values(python, &v, &n, &e) == 0)
		for (size_t k = 0, len = 0; k < n && len < sizeof got - 32; k++) {
			char one[32];
			value_format(v[k], one, sizeof one);
			len += (size_t)snprintf(got + len, sizeof got - len, "%s%s", k ? " " : "", one);
		}
	else
		snprintf(got, sizeof got, "error at %d: %s", e.at, e.msg);
	if (strcmp(got, want))
		fprintf(stderr, "\n  '%s': got '%s', want '%s'\n", python, got, want);
	CU_ASSERT_STRING_EQUAL(got, want);
	free(v);
}

static void test_value_lists_are_pythons(void)
{
	values_are("[1, 2, 4]", "1 2 4");
	values_are("[True, False]", "1 0");
	values_are("[0.5, 1e-3]", "0.5 0.001");
	values_are("range(4)", "0 1 2 3");
	values_are("list(range(32, 129, 32))", "32 64 96 128");
	values_are("range(10, 0, -3)", "10 7 4 1");
	values_are("[2**i for i in range(6)]", "1 2 4 8 16 32");
	values_are("[x for x in range(1, 65) if 64 % x == 0 and x >= 4]", "4 8 16 32 64");
	values_are("[i * 32 for i in [1, 3]]", "32 96");
	values_are("[2 ** -1]", "error at 1: pow() of integers needs an exponent of 0 or more");
	values_are("range(4, 4)", "error at 0: the list is empty");
	values_are("range(1, 2, 0)", "error at 0: range() with a step of 0");
	values_are("['a', 'b']", "error at 1: a string: autotune's parameters and expressions are numbers");
	values_are("np.arange(4)", "error at 0: Values must be a list, range(...), list(...) or a list comprehension");
	/* lists joined by +, as BAT's hotspot and pnpoly write them */
	values_are("[x for x in range(3)] + [7]", "0 1 2 7");
	values_are("[1] + [2*i for i in range(1,4)] + list(range(32, 97, 32))", "1 2 4 6 32 64 96");
	values_are("[1, 2] +", "error at 8: Values must be a list, range(...), list(...) or a list comprehension");
	values_are("[1, 2] - [1]", "error at 7: unexpected '-' after the list");
}

/* n copies of a, then mid, then n copies of b (caller frees). */
static char *wrapped(const char *a, size_t n, const char *mid, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), lm = strlen(mid);
	char *s = malloc(n * (la + lb) + lm + 1), *p = s;
	for (size_t k = 0; k < n; k++, p += la)
		memcpy(p, a, la);
	memcpy(p, mid, lm);
	p += lm;
	for (size_t k = 0; k < n; k++, p += lb)
		memcpy(p, b, lb);
	*p = 0;
	return s;
}

/* python refused with msg in the message, by py_translate (values 0) or py_values (1). */
static void refused_with(const char *python, int values, const char *msg)
{
	py_error e;
	value *v = NULL;
	size_t n;
	char *text = values ? NULL : py_translate(python, NULL, &e);
	int rc = values ? py_values(python, &v, &n, &e) : text ? 0 : -1;
	if (!rc || !strstr(e.msg, msg))
		fprintf(stderr, "\n  '%.60s...': %s, want '%s'\n", python, rc ? e.msg : "translated", msg);
	CU_ASSERT(rc && strstr(e.msg, msg));
	free(text);
	free(v);
}

/* Work bounded by the input: comparison chains nested in each other's middle operand (each level
 * doubled the translation: 24 levels took 2.2 GB, 26 came out as "()"), nesting 30,000 deep (a
 * crash), an expression past its size: each refused at its place; a long flat one translated
 * within PY_OUT_RATIO (64) times its size. */
static void test_nesting_and_growth_are_bounded(void)
{
	static const size_t depths[] = {12, 24, 26, 40};
	for (size_t i = 0; i < sizeof depths / sizeof *depths; i++) {
		char *chain = wrapped("a < (", depths[i], "a", ") < 9");
		refused_with(chain, 0, "the translation grows past");
		free(chain);
	}
	value v = at("a < (b < c < 9) < 9", 0, 2, 3); /* a chain in a chain's middle: still exact */
	CU_ASSERT(v.kind == VAL_INT && v.u.i == 1);
	struct {
		const char *open, *close;
	} deep[] = {{"(", ")"}, {"-", ""}, {"not ", ""}, {"+", ""}, {"abs(", ")"}, {"2 ** ", ""}, {"a if b else ", ""},
		    {"a in [1, abs(", ")]"}};
	for (size_t i = 0; i < sizeof deep / sizeof *deep; i++) {
		char *text = wrapped(deep[i].open, 3000, "1", deep[i].close);
		refused_with(text, 0, "nested more than 100 levels deep");
		free(text);
	}
	char *list = wrapped("(", 30000, "1", ")"), *vals = malloc(strlen(list) + 3);
	sprintf(vals, "[%s]", list);
	refused_with(vals, 1, "nested more than 100 levels deep");
	free(vals);
	free(list);
	list = wrapped("list(", 30000, "[1]", ")");
	refused_with(list, 1, "nested more than 100 levels deep");
	free(list);
	/* 99 levels are translated, exactly */
	char *ok = wrapped("(", 99, "a + 1", ")");
	v = at(ok, 41, 0, 0);
	CU_ASSERT(v.kind == VAL_INT && v.u.i == 42);
	free(ok);
	/* past 64 KiB: refused; 40 KB flat: translated, no more than 64 times as long */
	char *big = wrapped("a + ", 20000, "a", "");
	refused_with(big, 0, "bytes: more than the 65536 an expression may have");
	free(big);
	/* long flat runs of each kind: translated whole (each step appended, not the whole copied) */
	static const char *const runs[][3] = {{"", "a + ", "a"}, {"", "a < ", "a"}, {"", "a and ", "a"},
					      {"max(", "a, ", "a)"}, {"a in [", "1, ", "1]"}};
	for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
		char *body = wrapped(runs[i][1], 8000, runs[i][2], ""), *src = malloc(strlen(runs[i][0]) + strlen(body) + 1);
		sprintf(src, "%s%s", runs[i][0], body);
		py_error e;
		char *text = py_translate(src, NULL, &e);
		if (!text)
			fprintf(stderr, "\n  '%.40s...': %s\n", src, e.msg);
		CU_ASSERT(text && strlen(text) <= 64 * strlen(src));
		free(text);
		free(src);
		free(body);
	}
}

int add_import_py_suite(void)
{
	CU_pSuite s = CU_add_suite("import_py", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "translations mean what Python means", test_translations_mean_what_python_means);
	CU_add_test(s, "what has no translation is refused at its offset", test_what_has_no_translation_is_refused_at_its_offset);
	CU_add_test(s, "parameter extremes and problem sizes come from the spec",
		    test_parameter_extremes_and_problem_sizes_come_from_the_spec);
	CU_add_test(s, "value lists are Python's", test_value_lists_are_pythons);
	CU_add_test(s, "nesting and growth are bounded", test_nesting_and_growth_are_bounded);
	return 0;
}
