/* import_py.c: a recursive-descent reader of the Python subset T1 specs write, producing
 * autotune's expression text. Each construct has one exact translation or is refused:
 *   a < b <= c       (a < b && b <= c)        chains compare each operand once, as Python does
 *   not x            !(x)                     and/or: && ||
 *   x in [a, b]      (x == a || x == b)       not in: !(...)
 *   a ** b           pow(a, b)                right-associative, binds tighter than unary minus
 *   a // b, a % b    floor_div(a, b), mod(a, b)   rounding down, not toward zero
 *   a / b            (1.0 * a / b)            true division
 *   x if c else y    select(c, x, y)          only the branch taken is evaluated
 *   True, False      1, 0
 *   max(P), min(P)   the largest, smallest value of tuning parameter P
 *   ProblemSize[i]   the spec's problem size i */
#include "import_py.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "banned.h"

/* The work of a translation is bounded by its input: nesting (parentheses, brackets, calls, unary
 * operators, 'not', 'if' ... 'else') past PY_MAX_NEST is refused before the stack runs out; an
 * expression past PY_MAX_TEXT bytes is refused; and a translation past PY_OUT_RATIO times its
 * input, which only chains and 'in' nested in each other's repeated operands reach (each level
 * doubles them), is refused as it grows, never cut short. */
#define PY_MAX_NEST 100
#define PY_MAX_TEXT (64 * 1024)
#define PY_MAX_VALUES_TEXT (16 * 1024 * 1024)
#define PY_OUT_RATIO 64

typedef enum { K_END, K_NUM, K_NAME, K_OP } kind;

typedef struct {
	kind k;
	int at, len; /* in the source */
} token;

typedef struct {
	const char *src;
	token *t;
	size_t n, i;
	const py_env *env;
	py_error *err;
	int failed, nest;
	size_t max_out; /* the longest translation of this source */
} reader;

static const char *const ops[] = {"**", "//", "<<", ">>", "<=", ">=", "==", "!=", "+", "-", "*", "/", "%",
				  "<",  ">",  "(",  ")",  "[",  "]",  ",",  "~", "&", "|", "^", ".", ":"};

static int fail(reader *R, int at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(reader *R, int at, const char *fmt, ...)
{
	if (!R->failed) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(R->err->msg, sizeof R->err->msg, fmt, ap);
		va_end(ap);
		R->err->at = at;
	}
	R->failed = 1;
	return -1;
}

static int tokenize(reader *R)
{
	size_t cap = 0;
	const char *s = R->src;
	for (int i = 0;;) {
		while (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')
			i++;
		grow(&R->t, &cap, R->n + 1, sizeof *R->t);
		token *t = &R->t[R->n++];
		*t = (token){K_END, i, 0};
		if (!s[i])
			return 0;
		if (isdigit((unsigned char)s[i]) || (s[i] == '.' && isdigit((unsigned char)s[i + 1]))) {
			int j = i;
			while (isalnum((unsigned char)s[j]) || s[j] == '.' || s[j] == '_' ||
			       ((s[j] == '+' || s[j] == '-') && (s[j - 1] == 'e' || s[j - 1] == 'E') && !(s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X'))))
				j++;
			*t = (token){K_NUM, i, j - i};
			i = j;
		} else if (isalpha((unsigned char)s[i]) || s[i] == '_') {
			int j = i;
			while (isalnum((unsigned char)s[j]) || s[j] == '_')
				j++;
			*t = (token){K_NAME, i, j - i};
			i = j;
		} else {
			size_t k;
			for (k = 0; k < sizeof ops / sizeof *ops; k++)
				if (!strncmp(s + i, ops[k], strlen(ops[k])))
					break;
			if (k == sizeof ops / sizeof *ops && (s[i] == '\'' || s[i] == '"'))
				return fail(R, i, "a string: autotune's parameters and expressions are numbers");
			unsigned cp;
			int n = k == sizeof ops / sizeof *ops ? utf8_char(s + i, &cp) : 0;
			if (k == sizeof ops / sizeof *ops && (n == 0 || cp < 0x20 || cp == 0x7f))
				return fail(R, i, "'\\x%02x' is not part of the Python that autotune translates", (unsigned char)s[i]);
			if (k == sizeof ops / sizeof *ops)
				return fail(R, i, "'%.*s' is not part of the Python that autotune translates", n, s + i);
			*t = (token){K_OP, i, (int)strlen(ops[k])};
			i += t->len;
		}
	}
}

static const token *peek(const reader *R) { return &R->t[R->i]; }
static int is(const reader *R, const char *text)
{
	const token *t = peek(R);
	return t->k != K_END && t->k != K_NUM && (int)strlen(text) == t->len && !strncmp(R->src + t->at, text, (size_t)t->len);
}
static int accept(reader *R, const char *text)
{
	if (!is(R, text))
		return 0;
	R->i++;
	return 1;
}
static int expect(reader *R, const char *text)
{
	if (accept(R, text))
		return 0;
	const token *t = peek(R);
	return t->k == K_END ? fail(R, t->at, "expected '%s' but the expression ended", text)
			     : fail(R, t->at, "expected '%s' but found '%.*s'", text, t->len, R->src + t->at);
}

static char *test(reader *R);

/* One level deeper: -1, said at the current token, past PY_MAX_NEST. */
static int deeper(reader *R)
{
	if (++R->nest <= PY_MAX_NEST)
		return 0;
	R->nest--;
	return fail(R, peek(R)->at, "nested more than %d levels deep (parentheses, brackets, calls, unary operators, "
				    "'not', 'if'): write it flatter",
		    PY_MAX_NEST);
}

/* fn(R) one level deeper. */
static char *nested(reader *R, char *(*fn)(reader *))
{
	if (deeper(R))
		return NULL;
	char *s = fn(R);
	R->nest--;
	return s;
}

/* Whether n more bytes of translation fit; else said, at the current token. */
static int fits(reader *R, size_t n)
{
	if (n <= R->max_out)
		return 1;
	fail(R, peek(R)->at, "the translation grows past %zu bytes (%d times the expression): a comparison chain or "
			     "'in' repeats an operand's text, and these are nested in such operands; write it with 'and'",
	     R->max_out, PY_OUT_RATIO);
	return 0;
}

/* "(a OP b)" and the like: takes ownership of the parts. */
static char *joined(reader *R, const char *fmt, char *a, char *b)
{
	char *s = a && b && fits(R, strlen(fmt) + strlen(a) + strlen(b)) ? xasprintf(fmt, a, b) : NULL;
	free(a);
	free(b);
	return s;
}

/* A Python number as autotune reads it: underscores dropped, hex and octal in decimal. */
static char *number(reader *R, const token *t)
{
	char buf[64];
	int n = 0;
	for (int k = 0; k < t->len && n < (int)sizeof buf - 1; k++)
		if (R->src[t->at + k] != '_')
			buf[n++] = R->src[t->at + k];
	buf[n] = 0;
	char *end;
	errno = 0;
	if (!strpbrk(buf, ".eE") || (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))) {
		int base = buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X') ? 16 : buf[0] == '0' && (buf[1] == 'o' || buf[1] == 'O') ? 8 : buf[0] == '0' && (buf[1] == 'b' || buf[1] == 'B') ? 2 : 10;
		long long v = strtoll(buf + (base == 10 ? 0 : 2), &end, base);
		if (*end || errno)
			return fail(R, t->at, "'%.*s' is not an integer autotune can hold", t->len, R->src + t->at), NULL;
		return xasprintf("%lld", v);
	}
	strtod(buf, &end);
	if (*end || errno)
		return fail(R, t->at, "'%.*s' is not a number", t->len, R->src + t->at), NULL;
	return xstrdup(buf);
}

/* max(P) or min(P) of a tuning parameter P: its largest or smallest value. */
static char *extreme(reader *R, const token *fn, const token *arg)
{
	size_t n = 0;
	char name[128];
	snprintf(name, sizeof name, "%.*s", arg->len, R->src + arg->at);
	const value *v = R->env && R->env->param_values ? R->env->param_values(R->env->ctx, name, &n) : NULL;
	if (!v || !n)
		return fail(R, arg->at, "%.*s(%s) of one argument needs a tuning parameter", fn->len, R->src + fn->at, name), NULL;
	int want_max = R->src[fn->at + 1] == 'a';
	value best = v[0];
	for (size_t k = 1; k < n; k++)
		if (want_max ? value_as_double(v[k]) > value_as_double(best) : value_as_double(v[k]) < value_as_double(best))
			best = v[k];
	char text[64];
	value_format(best, text, sizeof text);
	return xstrdup(text);
}

/* A left-associative run, a OP b OP c ..., built in time linear in its text: each operator's
 * opening goes before a (the last one first: kept reversed, turned at the end) and its middle, b
 * and its closing after; appending to a copy of the whole at each step was quadratic. */
typedef struct {
	char *pre, *post;
	size_t npre, npost, cpre, cpost;
} run;

static void put(char **buf, size_t *n, size_t *cap, const char *s, size_t len, int reversed)
{
	grow(buf, cap, *n + len + 1, 1);
	for (size_t k = 0; k < len; k++)
		(*buf)[*n + k] = reversed ? s[len - 1 - k] : s[k];
	*n += len;
	(*buf)[*n] = 0;
}

/* open a, then mid b close, onto the run (which takes b); -1 when b is NULL or too long. */
static int run_add(reader *R, run *r, size_t alen, const char *open, const char *mid, char *b, const char *close)
{
	if (!b || !fits(R, r->npre + r->npost + alen + strlen(open) + strlen(mid) + strlen(b) + strlen(close))) {
		free(b);
		return -1;
	}
	put(&r->pre, &r->npre, &r->cpre, open, strlen(open), 1);
	put(&r->post, &r->npost, &r->cpost, mid, strlen(mid), 0);
	put(&r->post, &r->npost, &r->cpost, b, strlen(b), 0);
	put(&r->post, &r->npost, &r->cpost, close, strlen(close), 0);
	free(b);
	return 0;
}

/* The run's text around a (both freed); NULL after a failure. */
static char *run_end(reader *R, run *r, char *a)
{
	char *s = NULL;
	if (a && !R->failed) {
		for (size_t i = 0; i < r->npre / 2; i++) {
			char c = r->pre[i];
			r->pre[i] = r->pre[r->npre - 1 - i];
			r->pre[r->npre - 1 - i] = c;
		}
		s = xasprintf("%.*s%s%.*s", (int)r->npre, r->pre ? r->pre : "", a, (int)r->npost, r->post ? r->post : "");
	}
	free(r->pre);
	free(r->post);
	free(a);
	return s;
}

/* A call: min, max and abs as they are; the rest has no translation. */
static char *call(reader *R, const token *fn)
{
	char name[32];
	snprintf(name, sizeof name, "%.*s", fn->len < 31 ? fn->len : 31, R->src + fn->at);
	if (strcmp(name, "min") && strcmp(name, "max") && strcmp(name, "abs"))
		return fail(R, fn->at, "the function '%.*s' has no translation (min, max and abs have)", fn->len,
			    R->src + fn->at), NULL;
	if (strcmp(name, "abs") && peek(R)->k == K_NAME && R->t[R->i + 1].k == K_OP && R->src[R->t[R->i + 1].at] == ')') {
		const token *arg = peek(R);
		R->i += 2;
		return extreme(R, fn, arg);
	}
	char *head = xasprintf("%s(", name);
	run r = {0};
	for (int first = 1; !accept(R, ")"); first = 0) {
		if (!first && expect(R, ","))
			break;
		if (run_add(R, &r, strlen(head), "", first ? "" : ", ", nested(R, test), ""))
			break;
	}
	if (!R->failed)
		run_add(R, &r, strlen(head), "", ")", xstrdup(""), "");
	return run_end(R, &r, head);
}

static char *atom(reader *R)
{
	const token *t = peek(R);
	if (t->k == K_NUM) {
		R->i++;
		return number(R, t);
	}
	if (t->k == K_NAME) {
		R->i++;
		static const char *const refused[] = {"and", "or", "not", "in", "is", "if", "else", "for", "lambda", "None"};
		for (size_t k = 0; k < sizeof refused / sizeof *refused; k++)
			if ((int)strlen(refused[k]) == t->len && !strncmp(R->src + t->at, refused[k], (size_t)t->len))
				return fail(R, t->at, "'%s' cannot stand here", refused[k]), NULL;
		if (t->len == 4 && !strncmp(R->src + t->at, "True", 4))
			return xstrdup("1");
		if (t->len == 5 && !strncmp(R->src + t->at, "False", 5))
			return xstrdup("0");
		if (accept(R, "("))
			return call(R, t);
		if (is(R, "[")) {
			const char *ps = NULL;
			R->i++;
			const token *k = peek(R);
			long idx = k->k == K_NUM ? strtol(R->src + k->at, NULL, 10) : -1;
			if (t->len == 11 && !strncmp(R->src + t->at, "ProblemSize", 11) && k->k == K_NUM && R->env &&
			    R->env->problem_size)
				ps = R->env->problem_size(R->env->ctx, idx);
			if (!ps)
				return fail(R, t->at, "'%.*s[...]' has no translation (ProblemSize[0..2] has, with a ProblemSize)",
					    t->len, R->src + t->at), NULL;
			R->i++;
			if (expect(R, "]"))
				return NULL;
			return xasprintf("(%s)", ps);
		}
		if (is(R, "."))
			return fail(R, t->at, "'%.*s.' (an attribute) has no translation", t->len, R->src + t->at), NULL;
		return xasprintf("%.*s", t->len, R->src + t->at);
	}
	if (accept(R, "(")) {
		char *e = nested(R, test);
		if (!e)
			return NULL;
		if (is(R, ","))
			return free(e), fail(R, peek(R)->at, "a tuple is translated only after 'in'"), NULL;
		if (expect(R, ")"))
			return free(e), NULL;
		return joined(R, "(%s)%s", e, xstrdup(""));
	}
	if (t->k == K_END)
		return fail(R, t->at, "the expression ended where a value was expected"), NULL;
	return fail(R, t->at, "expected a value but found '%.*s'", t->len, R->src + t->at), NULL;
}

static char *factor(reader *R);

/* a ** b: right-associative, and its right side may carry a sign (2 ** -1) */
static char *power(reader *R)
{
	char *a = atom(R);
	if (a && accept(R, "**"))
		return joined(R, "pow(%s, %s)", a, nested(R, factor));
	return a;
}

static char *factor(reader *R)
{
	int at = peek(R)->at;
	if (accept(R, "-"))
		return joined(R, "(-%s)%s", nested(R, factor), xstrdup(""));
	if (accept(R, "+"))
		return nested(R, factor);
	if (accept(R, "~"))
		return fail(R, at, "'~' has no translation"), NULL;
	return power(R);
}

/* Binary operators of one precedence, left-associative: their Python text, and the opening and
 * middle of their translation (each closes with ')'). */
typedef struct {
	const char *py, *open, *mid;
} binop;

static const binop products[] = {{"*", "(", " * "}, {"//", "floor_div(", ", "}, {"%", "mod(", ", "},
				 {"/", "(1.0 * ", " / "}, {NULL, NULL, NULL}};
static const binop sums[] = {{"+", "(", " + "}, {"-", "(", " - "}, {NULL, NULL, NULL}};
static const binop shifts[] = {{"<<", "(", " << "}, {">>", "(", " >> "}, {NULL, NULL, NULL}};
static const binop ands[] = {{"and", "(", " && "}, {NULL, NULL, NULL}};
static const binop ors[] = {{"or", "(", " || "}, {NULL, NULL, NULL}};

/* operand (op operand)* for the operators ops. */
static char *left_run(reader *R, char *(*operand)(reader *), const binop *ops)
{
	char *a = operand(R);
	run r = {0};
	size_t alen = a ? strlen(a) : 0;
	while (a && !R->failed) {
		const binop *op = ops;
		while (op->py && !accept(R, op->py))
			op++;
		if (!op->py || run_add(R, &r, alen, op->open, op->mid, operand(R), ")"))
			break;
	}
	return run_end(R, &r, a);
}

static char *term(reader *R) { return left_run(R, factor, products); }
static char *arith(reader *R) { return left_run(R, term, sums); }

static char *shift(reader *R)
{
	char *a = left_run(R, arith, shifts);
	if (a && (is(R, "&") || is(R, "|") || is(R, "^")))
		return free(a), fail(R, peek(R)->at, "bitwise '%c' has no translation", R->src[peek(R)->at]), NULL;
	return a;
}

/* x in [a, b] or (a, b): one equality per item. */
static char *membership(reader *R, const char *x, int negated)
{
	int list_at = peek(R)->at;
	const char *close = accept(R, "[") ? "]" : accept(R, "(") ? ")" : NULL;
	if (!close)
		return fail(R, peek(R)->at, "'in' is translated only before a list or tuple literal"), NULL;
	run r = {0};
	int any = 0;
	for (int first = 1; !accept(R, close); first = 0) {
		if (!first && expect(R, ","))
			break;
		if (!first && accept(R, close))
			break; /* a trailing comma */
		char *item = nested(R, shift);
		if (!item || run_add(R, &r, 0, "", first ? "(" : " || (", joined(R, "%s == %s)", xstrdup(x), item), ""))
			break;
		any = 1;
	}
	if (!R->failed && !any)
		fail(R, list_at, "'in' an empty list is always false: write the condition out");
	char *out = run_end(R, &r, xstrdup(""));
	if (!out)
		return NULL;
	return negated ? joined(R, "!(%s)%s", out, xstrdup("")) : joined(R, "(%s)%s", out, xstrdup(""));
}

static const char *const comparisons[] = {"<", ">", "==", ">=", "<=", "!="};

/* a < b < c: each link once, joined by &&, the middle operands' text repeated (they are pure) */
static char *comparison(reader *R)
{
	char *left = shift(R), *out = NULL; /* out: the first link, the others in r after it */
	run r = {0};
	size_t outlen = 0;
	for (;;) {
		if (!left)
			break;
		if (is(R, "in") || (is(R, "not") && R->t[R->i + 1].len == 2 && !strncmp(R->src + R->t[R->i + 1].at, "in", 2))) {
			int negated = accept(R, "not");
			R->i++;
			char *m = membership(R, left, negated);
			free(left);
			if (m && !out)
				out = m;
			else if (m)
				run_add(R, &r, outlen, "", " && ", m, "");
			if (!R->failed && (is(R, "in") || is(R, "not")))
				fail(R, peek(R)->at, "a chain that continues after 'in' has no translation");
			return run_end(R, &r, out);
		}
		if (is(R, "is")) {
			free(left);
			fail(R, peek(R)->at, "'is' has no translation");
			return run_end(R, &r, out);
		}
		const char *op = NULL;
		for (size_t k = 0; k < sizeof comparisons / sizeof *comparisons; k++)
			if (is(R, comparisons[k]))
				op = comparisons[k];
		if (!op)
			break;
		R->i++;
		char *right = shift(R);
		char *link = right && fits(R, strlen(left) + strlen(right) + 8) ? xasprintf("(%s %s %s)", left, op, right) : NULL;
		free(left);
		if (!link || (out && run_add(R, &r, outlen, "", " && ", link, ""))) {
			free(right);
			if (!out)
				free(link);
			return run_end(R, &r, out);
		}
		if (!out) {
			out = link;
			outlen = strlen(link);
		}
		left = right;
	}
	if (!out)
		return left;
	free(left);
	char *all = run_end(R, &r, out);
	return all ? joined(R, "(%s)%s", all, xstrdup("")) : NULL;
}

static char *not_test(reader *R)
{
	if (accept(R, "not"))
		return joined(R, "!(%s)%s", nested(R, not_test), xstrdup(""));
	return comparison(R);
}

static char *and_test(reader *R) { return left_run(R, not_test, ands); }
static char *or_test(reader *R) { return left_run(R, and_test, ors); }

/* x if c else y: select(c, x, y), which evaluates only the branch taken, as Python does */
static char *test(reader *R)
{
	char *a = or_test(R);
	if (!a || !accept(R, "if"))
		return a;
	char *c = or_test(R);
	if (!c || expect(R, "else"))
		return free(a), free(c), NULL;
	char *b = nested(R, test);
	return b ? joined(R, "select(%s, %s)", c, joined(R, "%s, %s", a, b)) : (free(a), free(c), NULL);
}

/* The reader of src, tokenized; refused past max bytes. */
static void reader_init(reader *R, const char *src, const py_env *env, py_error *err, size_t max)
{
	*R = (reader){.src = src ? src : "", .env = env, .err = err};
	err->msg[0] = 0;
	err->at = 0;
	size_t len = strlen(R->src);
	R->max_out = PY_OUT_RATIO * len + 4096;
	if (len > max) {
		fail(R, 0, "%zu bytes: more than the %zu an expression may have", len, max);
		return;
	}
	tokenize(R);
}

char *py_translate(const char *src, const py_env *env, py_error *err)
{
	reader R;
	reader_init(&R, src, env, err, PY_MAX_TEXT);
	char *out = R.failed ? NULL : test(&R);
	if (out && peek(&R)->k != K_END) {
		fail(&R, peek(&R)->at, "unexpected '%.*s' after the expression", peek(&R)->len, R.src + peek(&R)->at);
		free(out);
		out = NULL;
	}
	free(R.t);
	return R.failed ? (free(out), NULL) : out;
}

/* ---- value lists ---- */

#define MAX_VALUES 1000000

typedef struct {
	const char *name; /* the comprehension's variable */
	value v;
} binding;

static int bound(void *ctx, const char *name, value *out)
{
	const binding *b = ctx;
	if (!b || strcmp(name, b->name))
		return -1;
	*out = b->v;
	return 0;
}

/* The text of a Python expression from token `from` to the current one, evaluated with b. */
static int evaluate(reader *R, char *text, int at, const binding *b, value *out)
{
	expr_error ee;
	expr *e = text ? expr_parse(text, &ee) : NULL;
	int rc = e ? expr_eval(e, bound, (void *)b, out, &ee) : -1;
	if (text && rc)
		fail(R, at, "%s", ee.msg);
	expr_free(e);
	free(text);
	return rc;
}

typedef struct {
	value *v;
	size_t n, cap;
} values;

static int push(reader *R, values *out, value v, int at)
{
	if (out->n >= MAX_VALUES)
		return fail(R, at, "more than %d values", MAX_VALUES);
	grow(&out->v, &out->cap, out->n + 1, sizeof *out->v);
	out->v[out->n++] = v;
	return 0;
}

/* range(...) or list(range(...)), list([...]), or a list literal: its values into out. */
static int iterable(reader *R, values *out)
{
	int at = peek(R)->at;
	if (accept(R, "list")) {
		if (expect(R, "(") || deeper(R))
			return -1;
		int rc = iterable(R, out);
		R->nest--;
		return rc ? rc : expect(R, ")");
	}
	if (accept(R, "range")) {
		long long arg[3];
		int n = 0;
		if (expect(R, "("))
			return -1;
		for (;;) {
			value v;
			int vat = peek(R)->at;
			if (n == 3)
				return fail(R, vat, "range() takes 1 to 3 integers");
			if (evaluate(R, nested(R, test), vat, NULL, &v))
				return -1;
			if (v.kind != VAL_INT)
				return fail(R, vat, "range() takes integers");
			arg[n++] = v.u.i;
			if (accept(R, ")"))
				break;
			if (expect(R, ","))
				return -1;
		}
		long long start = n > 1 ? arg[0] : 0, stop = n > 1 ? arg[1] : arg[0], step = n > 2 ? arg[2] : 1;
		if (step == 0)
			return fail(R, at, "range() with a step of 0");
		for (long long x = start; step > 0 ? x < stop : x > stop;)
			if (push(R, out, value_int(x), at) || __builtin_add_overflow(x, step, &x))
				break;
		return R->failed ? -1 : 0;
	}
	if (!accept(R, "["))
		return fail(R, at, "Values must be a list, range(...), list(...) or a list comprehension");
	for (int first = 1; !accept(R, "]"); first = 0) {
		if (!first && (expect(R, ",") || accept(R, "]")))
			break;
		value v;
		int vat = peek(R)->at;
		if (evaluate(R, nested(R, test), vat, NULL, &v) || push(R, out, v, vat))
			return -1;
	}
	return R->failed ? -1 : 0;
}

/* Whether the bracket at token i holds a `for` at its own depth: a comprehension. */
static int is_comprehension(const reader *R)
{
	int depth = 0;
	for (size_t k = R->i; k < R->n && R->t[k].k != K_END; k++) {
		const char *s = R->src + R->t[k].at;
		if (R->t[k].k == K_OP && (*s == '[' || *s == '('))
			depth++;
		else if (R->t[k].k == K_OP && (*s == ']' || *s == ')') && --depth == 0)
			return 0;
		else if (depth == 1 && R->t[k].k == K_NAME && R->t[k].len == 3 && !strncmp(s, "for", 3))
			return 1;
	}
	return 0;
}

/* [ELEM for NAME in ITERABLE if COND]: ELEM and COND translated once, evaluated per item. */
static int comprehension(reader *R, values *out)
{
	R->i++; /* [ */
	int elem_at = peek(R)->at;
	char *elem = nested(R, test), *cond = NULL;
	int cond_at = 0;
	const token *var = NULL;
	values items = {0};
	if (elem && !expect(R, "for") && (var = peek(R))->k == K_NAME && (R->i++, !expect(R, "in")) &&
	    !iterable(R, &items) && accept(R, "if"))
		cond_at = peek(R)->at, cond = nested(R, test);
	if (!R->failed && (!var || var->k != K_NAME))
		fail(R, var ? var->at : elem_at, "a comprehension's variable must be a name");
	if (!R->failed)
		expect(R, "]");
	char name[128];
	snprintf(name, sizeof name, "%.*s", var ? var->len : 0, var ? R->src + var->at : "");
	for (size_t k = 0; !R->failed && k < items.n; k++) {
		binding b = {name, items.v[k]};
		value keep = value_int(1), v;
		if (cond && evaluate(R, xstrdup(cond), cond_at, &b, &keep))
			break;
		if (value_truth(keep) && (evaluate(R, xstrdup(elem), elem_at, &b, &v) || push(R, out, v, elem_at)))
			break;
	}
	free(items.v);
	free(elem);
	free(cond);
	return R->failed ? -1 : 0;
}

int py_values(const char *src, value **vals, size_t *n, py_error *err)
{
	reader R;
	reader_init(&R, src, NULL, err, PY_MAX_VALUES_TEXT);
	values out = {0};
	/* lists joined by +, as Python concatenates them ([1, 2] + list(range(32, 1025, 32))) */
	for (int more = !R.failed; more && !R.failed; more = accept(&R, "+")) {
		if (is(&R, "[") && is_comprehension(&R))
			comprehension(&R, &out);
		else
			iterable(&R, &out);
	}
	if (!R.failed && peek(&R)->k != K_END)
		fail(&R, peek(&R)->at, "unexpected '%.*s' after the list", peek(&R)->len, R.src + peek(&R)->at);
	if (!R.failed && out.n == 0)
		fail(&R, 0, "the list is empty");
	free(R.t);
	if (R.failed) {
		free(out.v);
		return -1;
	}
	*vals = out.v;
	*n = out.n;
	return 0;
}
