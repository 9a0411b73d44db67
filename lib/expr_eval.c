/* expr_eval.c: evaluates a parsed expression: integers as C computes them but checked for
 * overflow, floats where an operand is one, names through the caller's lookup. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr_tree.h"
#include "banned.h"

typedef struct {
	const expr *e;
	expr_lookup_fn lookup;
	void *ctx;
	expr_error *err;
} evaluator;

static int eval(const evaluator *ev, int n, value *out);

static int overflow(const evaluator *ev, const node *nd)
{
	expr_set_err(ev->err, nd->offset, "integer overflow");
	return -1;
}

static const char *const func_text[] = {[F_MIN] = "min()", [F_MAX] = "max()", [F_CEIL_DIV] = "ceil_div()",
					[F_ABS] = "abs()", [F_POW] = "pow()", [F_FLOOR_DIV] = "floor_div()",
					[F_MOD] = "mod()", [F_SELECT] = "select()'s condition"};

/* A string (a string parameter's value, a literal) where a number is needed: -1 with the error. */
static int no_string(const evaluator *ev, const node *nd, value v)
{
	if (v.kind != VAL_STR)
		return 0;
	const char *what = nd->kind == N_CALL ? func_text[nd->op] : expr_op_text[nd->op];
	expr_set_err(ev->err, nd->offset, "%s%s%s of the string \"%.40s\": a string only compares with == and !=",
		     nd->kind == N_CALL ? "" : "'", what, nd->kind == N_CALL ? "" : "'", v.u.s);
	return -1;
}

/* == and != of two strings, into *out; -1 (said) for a string and a number. */
static int compare_strings(const evaluator *ev, const node *nd, value l, value r, value *out)
{
	if (l.kind != r.kind) {
		expr_set_err(ev->err, nd->offset, "'%s' compares the string \"%.40s\" with a number: a string equals only a string",
			     expr_op_text[nd->op], (l.kind == VAL_STR ? l : r).u.s);
		return -1;
	}
	int same = !strcmp(l.u.s, r.u.s);
	*out = value_int(nd->op == T_EQ ? same : !same);
	return 0;
}

static int need_ints(const evaluator *ev, const node *nd, value l, value r)
{
	if (l.kind == VAL_INT && r.kind == VAL_INT)
		return 0;
	expr_set_err(ev->err, nd->offset, "'%s' needs integers", expr_op_text[nd->op]);
	return -1;
}

/* -1, 0 or 1; exact for two ints, through double otherwise. */
static int compare(value l, value r)
{
	if (l.kind == VAL_INT && r.kind == VAL_INT)
		return (l.u.i > r.u.i) - (l.u.i < r.u.i);
	double a = value_as_double(l), b = value_as_double(r);
	return (a > b) - (a < b);
}

static int eval_shift(const evaluator *ev, const node *nd, long long a, long long b, value *out)
{
	if (b < 0 || b > 63) {
		expr_set_err(ev->err, nd->offset, "shift count %lld is outside 0..63", b);
		return -1;
	}
	if (nd->op == T_SHR) {
		*out = value_int(a >> b);
		return 0;
	}
	/* A left shift is a multiplication by 2^b, checked like one; 2^63 itself does not fit. */
	long long r;
	if (b == 63) {
		if (a != 0 && a != -1)
			return overflow(ev, nd);
		r = a == 0 ? 0 : LLONG_MIN;
	} else if (__builtin_mul_overflow(a, 1LL << b, &r)) {
		return overflow(ev, nd);
	}
	*out = value_int(r);
	return 0;
}

/* ==, !=, <, <=, >, >=: 1 when op is one of them, with the answer in *out. */
static int eval_comparison(int op, value l, value r, value *out)
{
	int ints = l.kind == VAL_INT && r.kind == VAL_INT;
	long long a = l.u.i, b = r.u.i;
	double x = value_as_double(l), y = value_as_double(r);
	int v;
	switch (op) {
	case T_EQ: v = ints ? a == b : x == y; break;
	case T_NE: v = ints ? a != b : x != y; break;
	case T_LT: v = ints ? a < b : x < y; break;
	case T_LE: v = ints ? a <= b : x <= y; break;
	case T_GT: v = ints ? a > b : x > y; break;
	case T_GE: v = ints ? a >= b : x >= y; break;
	default: return 0;
	}
	*out = value_int(v);
	return 1;
}

/* + - * / %: in floating point when an operand is a float, else as C on long long, checked. */
static int eval_arithmetic(const evaluator *ev, const node *nd, value l, value r, value *out)
{
	int ints = l.kind == VAL_INT && r.kind == VAL_INT;
	long long a = l.u.i, b = r.u.i, i = 0;
	double x = value_as_double(l), y = value_as_double(r);
	if ((nd->op == T_SLASH || nd->op == T_PERCENT) && (ints || nd->op == T_PERCENT ? b == 0 : y == 0.0)) {
		if (nd->op == T_PERCENT && need_ints(ev, nd, l, r))
			return -1;
		expr_set_err(ev->err, nd->offset, nd->op == T_SLASH ? "division by zero" : "modulo by zero");
		return -1;
	}
	if (!ints && nd->op != T_PERCENT) {
		*out = value_float(nd->op == T_PLUS ? x + y : nd->op == T_MINUS ? x - y : nd->op == T_STAR ? x * y : x / y);
		return 0;
	}
	switch (nd->op) {
	case T_PLUS:
		if (__builtin_add_overflow(a, b, &i))
			return overflow(ev, nd);
		break;
	case T_MINUS:
		if (__builtin_sub_overflow(a, b, &i))
			return overflow(ev, nd);
		break;
	case T_STAR:
		if (__builtin_mul_overflow(a, b, &i))
			return overflow(ev, nd);
		break;
	case T_SLASH:
		if (a == LLONG_MIN && b == -1)
			return overflow(ev, nd);
		i = a / b;
		break;
	default: /* T_PERCENT */
		if (need_ints(ev, nd, l, r))
			return -1;
		/* LLONG_MIN % -1 is 0 mathematically but traps on x86. */
		i = b == -1 ? 0 : a % b;
		break;
	}
	*out = value_int(i);
	return 0;
}

static int eval_binary(const evaluator *ev, const node *nd, value *out)
{
	value l, r;
	if (eval(ev, nd->a, &l))
		return -1;
	if (nd->op == T_AND || nd->op == T_OR) {
		if (no_string(ev, nd, l))
			return -1;
		int lt = value_truth(l);
		if (nd->op == T_AND ? !lt : lt) {
			*out = value_int(lt);
			return 0;
		}
		if (eval(ev, nd->b, &r) || no_string(ev, nd, r))
			return -1;
		*out = value_int(value_truth(r));
		return 0;
	}
	if (eval(ev, nd->b, &r))
		return -1;
	if ((l.kind == VAL_STR || r.kind == VAL_STR) && (nd->op == T_EQ || nd->op == T_NE))
		return compare_strings(ev, nd, l, r, out);
	if (no_string(ev, nd, l) || no_string(ev, nd, r))
		return -1;
	if (eval_comparison(nd->op, l, r, out))
		return 0;
	switch (nd->op) {
	case T_SHL:
	case T_SHR:
		if (need_ints(ev, nd, l, r))
			return -1;
		return eval_shift(ev, nd, l.u.i, r.u.i, out);
	case T_PLUS:
	case T_MINUS:
	case T_STAR:
	case T_SLASH:
	case T_PERCENT:
		return eval_arithmetic(ev, nd, l, r, out);
	default:
		expr_set_err(ev->err, nd->offset, "internal error: bad operator");
		return -1;
	}
}

static int eval_unary(const evaluator *ev, const node *nd, value *out)
{
	value v;
	if (eval(ev, nd->a, &v) || no_string(ev, nd, v))
		return -1;
	switch (nd->op) {
	case T_NOT:
		*out = value_int(!value_truth(v));
		return 0;
	case T_MINUS:
		if (v.kind == VAL_FLOAT) {
			*out = value_float(-v.u.f);
			return 0;
		}
		if (v.u.i == LLONG_MIN)
			return overflow(ev, nd);
		*out = value_int(-v.u.i);
		return 0;
	default:
		*out = v;
		return 0;
	}
}

/* pow(a, b): integers exactly (a negative exponent is refused: the result would not be one);
 * floor_div and mod of floats as Python's // and %. */
static int eval_pow_or_float(const evaluator *ev, const node *nd, const value *args, const node *const *argn,
			     value *out)
{
	double x = value_as_double(args[0]), y = value_as_double(args[1]);
	if (nd->op != F_POW) {
		if (y == 0.0) {
			expr_set_err(ev->err, argn[1]->offset, nd->op == F_MOD ? "modulo by zero" : "division by zero");
			return -1;
		}
		double q = floor(x / y);
		*out = value_float(nd->op == F_MOD ? x - q * y : q);
		return 0;
	}
	if (args[0].kind == VAL_FLOAT || args[1].kind == VAL_FLOAT) {
		*out = value_float(pow(x, y));
		return 0;
	}
	long long base = args[0].u.i, e = args[1].u.i, r = 1;
	if (e < 0) {
		expr_set_err(ev->err, argn[1]->offset, "pow() of integers needs an exponent of 0 or more");
		return -1;
	}
	if (base >= -1 && base <= 1) /* a huge exponent of these needs no loop */
		r = base == 1 || e == 0 ? 1 : base == 0 ? 0 : e % 2 ? -1 : 1;
	else /* |base| >= 2 overflows within 63 steps */
		for (; e > 0; e--)
			if (__builtin_mul_overflow(r, base, &r))
				return overflow(ev, nd);
	*out = value_int(r);
	return 0;
}

static int eval_call(const evaluator *ev, const node *nd, value *out)
{
	value args[2];
	const node *argn[2];
	int arg = nd->a;
	if (nd->op == F_MIN || nd->op == F_MAX) {
		value best = {VAL_INT, {.i = 0}};
		int all_ints = 1;
		for (int k = 0; arg >= 0; arg = ev->e->nodes[arg].next, k++) {
			value v;
			if (eval(ev, arg, &v) || no_string(ev, nd, v))
				return -1;
			all_ints &= v.kind == VAL_INT;
			int c = compare(v, best);
			if (k == 0 || (nd->op == F_MIN ? c < 0 : c > 0))
				best = v;
		}
		*out = all_ints ? best : value_float(value_as_double(best));
		return 0;
	}
	if (nd->op == F_SELECT) { /* select(c, a, b): a where c holds, else b; only that one evaluated */
		value c;
		if (eval(ev, arg, &c) || no_string(ev, nd, c))
			return -1;
		int chosen = ev->e->nodes[arg].next;
		if (!value_truth(c))
			chosen = ev->e->nodes[chosen].next;
		return eval(ev, chosen, out);
	}
	for (int k = 0; k < nd->b && k < 2; arg = ev->e->nodes[arg].next, k++) {
		argn[k] = &ev->e->nodes[arg];
		if (eval(ev, arg, &args[k]) || no_string(ev, nd, args[k]))
			return -1;
	}
	if (nd->op == F_ABS) {
		value v = args[0];
		if (v.kind == VAL_FLOAT)
			*out = value_float(fabs(v.u.f));
		else if (v.u.i == LLONG_MIN)
			return overflow(ev, nd);
		else
			*out = value_int(v.u.i < 0 ? -v.u.i : v.u.i);
		return 0;
	}
	if (nd->op == F_POW || ((nd->op == F_FLOOR_DIV || nd->op == F_MOD) &&
				(args[0].kind == VAL_FLOAT || args[1].kind == VAL_FLOAT)))
		return eval_pow_or_float(ev, nd, args, argn, out);
	/* ceil_div: the usual (a + b - 1) / b overflows and is wrong for negatives. */
	for (int k = 0; k < 2; k++)
		if (args[k].kind != VAL_INT) {
			expr_set_err(ev->err, argn[k]->offset, "ceil_div() needs integers");
			return -1;
		}
	long long a = args[0].u.i, b = args[1].u.i;
	if (b == 0) {
		expr_set_err(ev->err, argn[1]->offset, "division by zero");
		return -1;
	}
	if (a == LLONG_MIN && b == -1)
		return overflow(ev, nd);
	long long q = a / b, rem = a % b;
	/* C truncates toward zero; ceil_div rounds up, floor_div and mod round down (Python's // and %) */
	if (nd->op == F_CEIL_DIV && rem != 0 && (rem > 0) == (b > 0))
		q++;
	else if (nd->op != F_CEIL_DIV && rem != 0 && (rem > 0) != (b > 0)) {
		q--;
		rem += b;
	}
	*out = value_int(nd->op == F_MOD ? rem : q);
	return 0;
}

static int eval(const evaluator *ev, int n, value *out)
{
	const node *nd = &ev->e->nodes[n];
	switch (nd->kind) {
	case N_INT:
		*out = value_int(nd->v.i);
		return 0;
	case N_FLOAT:
		*out = value_float(nd->v.f);
		return 0;
	case N_STR:
		*out = value_str(expr_name_of(ev->e, nd) + 1);
		return 0;
	case N_NAME: {
		const char *name = expr_name_of(ev->e, nd);
		if (!ev->lookup || ev->lookup(ev->ctx, name, out) != 0) {
			expr_set_err(ev->err, nd->offset, "unknown name '%s'", name);
			return -1;
		}
		return 0;
	}
	case N_UNARY:
		return eval_unary(ev, nd, out);
	case N_BINARY:
		return eval_binary(ev, nd, out);
	case N_CALL:
		return eval_call(ev, nd, out);
	}
	expr_set_err(ev->err, nd->offset, "internal error: bad node");
	return -1;
}

int expr_eval(const expr *e, expr_lookup_fn lookup, void *ctx, value *out, expr_error *err)
{
	if (!e) {
		expr_set_err(err, 0, "no expression");
		return -1;
	}
	evaluator ev = {e, lookup, ctx, err};
	value v;
	if (eval(&ev, e->root, &v))
		return -1;
	if (out)
		*out = v;
	return 0;
}
