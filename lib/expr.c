/* expr.c: the parser of the expression language of config files, so sizes, grids and
 * constraints can be written as formulas over constants and tuning parameters. The tree it
 * builds (expr_tree.h) is evaluated by expr_eval.c. */
#include "expr.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr_tree.h"
#include "banned.h"

/* Bounds both parser recursion and tree height, so hostile input cannot overflow the stack
 * of the parser, the evaluator or anything else that walks the tree. */
#define EXPR_MAX_DEPTH 200

/* How much of a long token an error message quotes. */
#define QUOTE_MAX 40

const char *const expr_op_text[] = {
	[T_OR] = "||", [T_AND] = "&&", [T_EQ] = "==", [T_NE] = "!=", [T_LT] = "<",
	[T_LE] = "<=", [T_GT] = ">", [T_GE] = ">=", [T_SHL] = "<<", [T_SHR] = ">>",
	[T_PLUS] = "+", [T_MINUS] = "-", [T_STAR] = "*", [T_SLASH] = "/", [T_PERCENT] = "%",
	[T_NOT] = "!", [T_LPAREN] = "(", [T_RPAREN] = ")", [T_COMMA] = ",",
};

static const struct {
	const char *name;
	int min_args, max_args; /* max_args < 0: no upper bound */
} funcs[] = {
	[F_MIN] = {"min", 1, -1},
	[F_MAX] = {"max", 1, -1},
	[F_CEIL_DIV] = {"ceil_div", 2, 2},
	[F_ABS] = {"abs", 1, 1},
	[F_POW] = {"pow", 2, 2},
	[F_FLOOR_DIV] = {"floor_div", 2, 2},
	[F_MOD] = {"mod", 2, 2},
	[F_SELECT] = {"select", 3, 3},
};
#define NFUNCS ((int)(sizeof funcs / sizeof funcs[0]))

void expr_set_err(expr_error *err, int offset, const char *fmt, ...)
{
	if (!err)
		return;
	err->offset = offset;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
}

int utf8_char(const char *s, unsigned *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned c = u[0];
	int n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
	*cp = n == 1 ? c : c & (0x7F >> n);
	for (int i = 1; i < n; i++) {
		if ((u[i] & 0xC0) != 0x80)
			return 0;
		*cp = *cp << 6 | (u[i] & 0x3F);
	}
	if ((c == 0xE0 && u[1] < 0xA0) || (c == 0xED && u[1] >= 0xA0) || (c == 0xF0 && u[1] < 0x90) ||
	    (c == 0xF4 && u[1] >= 0x90))
		return 0;
	return n;
}

double value_as_double(value v)
{
	return v.kind == VAL_INT ? (double)v.u.i : v.kind == VAL_STR ? NAN : v.u.f;
}

int value_equal(value a, value b)
{
	if (a.kind == VAL_STR || b.kind == VAL_STR)
		return a.kind == b.kind && !strcmp(a.u.s, b.u.s);
	if (a.kind == VAL_INT && b.kind == VAL_INT)
		return a.u.i == b.u.i;
	return value_as_double(a) == value_as_double(b);
}

int value_truth(value v)
{
	return v.kind == VAL_INT ? v.u.i != 0 : v.kind == VAL_STR ? *v.u.s != 0 : v.u.f != 0.0;
}

void value_format(value v, char *buf, size_t len)
{
	if (!buf || len == 0)
		return;
	if (v.kind == VAL_STR) {
		snprintf(buf, len, "%s", v.u.s);
		return;
	}
	if (v.kind == VAL_INT) {
		snprintf(buf, len, "%lld", v.u.i);
		return;
	}
	double f = v.u.f;
	char tmp[64];
	if (isnan(f)) {
		snprintf(tmp, sizeof tmp, "nan");
	} else if (isinf(f)) {
		snprintf(tmp, sizeof tmp, "%s", f < 0 ? "-inf" : "inf");
	} else {
		for (int prec = 1; prec <= 17; prec++) {
			snprintf(tmp, sizeof tmp, "%.*g", prec, f);
			if (strtod(tmp, NULL) == f)
				break;
		}
		/* "%g" drops the point from whole numbers; a float must still read as a float. */
		if (!strpbrk(tmp, ".e")) {
			size_t n = strlen(tmp);
			memcpy(tmp + n, ".0", 3);
		}
	}
	snprintf(buf, len, "%s", tmp);
}

/* ---------------------------------------------------------------- lexer */

typedef struct {
	tok_kind kind;
	int offset, len;
	union {
		long long i;
		double f;
	} v;
} token;

typedef struct {
	const char *src;
	char *names;
	int pos;
	token tok;
	node *nodes;
	int nnodes, cap;
	int depth;
	expr_error *err;
} parser;

static int is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_ident_char(char c)
{
	return is_ident_start(c) || is_digit(c);
}

static int hex_digit(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "number '12'", "name 'foo'", "'+'": what the parser found where it wanted something else. */
static void describe(const parser *p, const token *t, char *buf, size_t len)
{
	const char *s = p->src + t->offset;
	int n = t->len > QUOTE_MAX ? QUOTE_MAX : t->len;
	const char *more = t->len > QUOTE_MAX ? "..." : "";
	switch (t->kind) {
	case T_END:
		snprintf(buf, len, "end of expression");
		break;
	case T_INT:
	case T_FLOAT:
		snprintf(buf, len, "number '%.*s%s'", n, s, more);
		break;
	case T_NAME:
		snprintf(buf, len, "name '%.*s%s'", n, s, more);
		break;
	case T_STR:
		snprintf(buf, len, "string %.*s%s", n, s, more);
		break;
	default:
		snprintf(buf, len, "'%s'", expr_op_text[t->kind]);
		break;
	}
}

static int lex_number(parser *p, int start)
{
	const char *s = p->src;
	int i = start;
	int bad = 0;
	int is_float = 0;
	long long val = 0;
	if (s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		i += 2;
		int ndigits = 0;
		for (int d; (d = hex_digit(s[i])) >= 0; i++, ndigits++)
			if (__builtin_mul_overflow(val, 16, &val) || __builtin_add_overflow(val, d, &val))
				bad = 2;
		if (ndigits == 0)
			bad = 1;
	} else {
		for (; is_digit(s[i]); i++)
			if (__builtin_mul_overflow(val, 10, &val) || __builtin_add_overflow(val, s[i] - '0', &val))
				bad = 2;
		if (s[i] == '.') {
			is_float = 1;
			for (i++; is_digit(s[i]); i++)
				;
		}
		if (s[i] == 'e' || s[i] == 'E') {
			is_float = 1;
			i++;
			if (s[i] == '+' || s[i] == '-')
				i++;
			if (!is_digit(s[i]))
				bad = 1;
			for (; is_digit(s[i]); i++)
				;
		}
	}
	/* "12abc" or "1.2.3" would otherwise split into tokens and give a puzzling message later. */
	if (is_ident_char(s[i]) || s[i] == '.') {
		bad = 1;
		while (is_ident_char(s[i]) || s[i] == '.')
			i++;
	}
	int len = i - start;
	int n = len > QUOTE_MAX ? QUOTE_MAX : len;
	const char *more = len > QUOTE_MAX ? "..." : "";
	if (bad == 1) {
		expr_set_err(p->err, start, "malformed number '%.*s%s'", n, s + start, more);
		return -1;
	}
	p->tok.offset = start;
	p->tok.len = len;
	if (is_float) {
		char *end;
		double f = strtod(s + start, &end);
		if (end != s + start + len) {
			expr_set_err(p->err, start, "malformed number '%.*s%s'", n, s + start, more);
			return -1;
		}
		if (isinf(f)) {
			expr_set_err(p->err, start, "number '%.*s%s' is too large", n, s + start, more);
			return -1;
		}
		p->tok.kind = T_FLOAT;
		p->tok.v.f = f;
	} else {
		if (bad == 2) {
			expr_set_err(p->err, start, "integer '%.*s%s' does not fit in 64 bits", n, s + start, more);
			return -1;
		}
		p->tok.kind = T_INT;
		p->tok.v.i = val;
	}
	p->pos = i;
	return 0;
}

/* A string literal, "float" or 'float': its text ends at the same quote, on one line. */
static int lex_string(parser *p, int i)
{
	const char *s = p->src;
	char q = s[i];
	int j = i + 1;
	while (s[j] && s[j] != q && s[j] != '\n')
		j++;
	if (s[j] != q) {
		expr_set_err(p->err, i, "string %c%.*s without its closing %c", q, j - i - 1 > QUOTE_MAX ? QUOTE_MAX : j - i - 1,
			     s + i + 1, q);
		return -1;
	}
	p->tok.kind = T_STR;
	p->tok.len = j + 1 - i;
	p->names[j] = 0; /* the copy's text from i + 1 is the string */
	p->pos = j + 1;
	return 0;
}

/* The character at i starts no token: said whole (a multi-byte one as itself, a byte that starts
 * none or a control as \\x), with the operator it may stand for. */
static void unexpected(parser *p, int i)
{
	const char *s = p->src + i;
	const char *hint = *s == '=' ? " (did you mean '=='?)" : *s == '&' ? " (did you mean '&&'?)"
			 : *s == '|' ? " (did you mean '||'?)" : "";
	unsigned cp;
	int n = utf8_char(s, &cp);
	if (n > 1)
		expr_set_err(p->err, i, "unexpected character '%.*s'", n, s);
	else if (n == 0 || cp < 0x20 || cp == 0x7f)
		expr_set_err(p->err, i, "unexpected character '\\x%02x'", (unsigned char)*s);
	else
		expr_set_err(p->err, i, "unexpected character '%c'%s", *s, hint);
}

/* Reads the next token into p->tok; -1 with the error set on a character that starts none. */
static int next(parser *p)
{
	const char *s = p->src;
	int i = p->pos;
	while (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')
		i++;
	p->tok.offset = i;
	p->tok.len = 1;
	char c = s[i];
	if (c == 0) {
		p->tok.kind = T_END;
		p->tok.len = 0;
		p->pos = i;
		return 0;
	}
	if (is_digit(c) || (c == '.' && is_digit(s[i + 1])))
		return lex_number(p, i);
	if (c == '"' || c == '\'')
		return lex_string(p, i);
	if (is_ident_start(c)) {
		int j = i;
		while (is_ident_char(s[j]))
			j++;
		p->tok.kind = T_NAME;
		p->tok.len = j - i;
		p->names[j] = 0;
		p->pos = j;
		return 0;
	}
	char c2 = s[i + 1];
	tok_kind k;
	int len = 2;
	if (c == '|' && c2 == '|')
		k = T_OR;
	else if (c == '&' && c2 == '&')
		k = T_AND;
	else if (c == '=' && c2 == '=')
		k = T_EQ;
	else if (c == '!' && c2 == '=')
		k = T_NE;
	else if (c == '<' && c2 == '=')
		k = T_LE;
	else if (c == '>' && c2 == '=')
		k = T_GE;
	else if (c == '<' && c2 == '<')
		k = T_SHL;
	else if (c == '>' && c2 == '>')
		k = T_SHR;
	else {
		len = 1;
		switch (c) {
		case '<': k = T_LT; break;
		case '>': k = T_GT; break;
		case '+': k = T_PLUS; break;
		case '-': k = T_MINUS; break;
		case '*': k = T_STAR; break;
		case '/': k = T_SLASH; break;
		case '%': k = T_PERCENT; break;
		case '!': k = T_NOT; break;
		case '(': k = T_LPAREN; break;
		case ')': k = T_RPAREN; break;
		case ',': k = T_COMMA; break;
		default:
			unexpected(p, i);
			return -1;
		}
	}
	p->tok.kind = k;
	p->tok.len = len;
	p->pos = i + len;
	return 0;
}

/* ---------------------------------------------------------------- parser */

static int too_deep(parser *p, int offset)
{
	expr_set_err(p->err, offset, "expression nested too deeply (more than %d levels)", EXPR_MAX_DEPTH);
	return -1;
}

static int height_of(const parser *p, int n)
{
	return n < 0 ? 0 : p->nodes[n].height;
}

/* Returns the new node's index, or -1 with the error set. */
static int add_node(parser *p, node_kind kind, int op, int offset, int a, int b)
{
	int h = height_of(p, a);
	if (kind != N_CALL && height_of(p, b) > h)
		h = height_of(p, b);
	if (h + 1 > EXPR_MAX_DEPTH)
		return too_deep(p, offset);
	if (p->nnodes == p->cap) {
		int cap = p->cap ? p->cap * 2 : 16;
		node *nodes = realloc(p->nodes, (size_t)cap * sizeof *nodes);
		if (!nodes) {
			expr_set_err(p->err, offset, "out of memory");
			return -1;
		}
		p->nodes = nodes;
		p->cap = cap;
	}
	node *nd = &p->nodes[p->nnodes];
	memset(nd, 0, sizeof *nd);
	nd->kind = kind;
	nd->op = op;
	nd->offset = offset;
	nd->a = a;
	nd->b = b;
	nd->next = -1;
	nd->height = h + 1;
	return p->nnodes++;
}

static int parse_expr(parser *p);

static int expected(parser *p, const char *what)
{
	char found[80];
	describe(p, &p->tok, found, sizeof found);
	expr_set_err(p->err, p->tok.offset, "expected %s but found %s", what, found);
	return -1;
}

static int find_func(const char *name, int len)
{
	for (int f = 0; f < NFUNCS; f++)
		if ((int)strlen(funcs[f].name) == len && !memcmp(funcs[f].name, name, (size_t)len))
			return f;
	return -1;
}

/* Arity is checked here rather than at evaluation, so a config is rejected when it loads. */
static int parse_call(parser *p, token name)
{
	int f = find_func(p->src + name.offset, name.len);
	if (f < 0) {
		int n = name.len > QUOTE_MAX ? QUOTE_MAX : name.len;
		expr_set_err(p->err, name.offset, "unknown function '%.*s%s' (known: min, max, ceil_div, abs, pow, floor_div, mod, select)", n,
			p->src + name.offset, name.len > QUOTE_MAX ? "..." : "");
		return -1;
	}
	if (next(p)) /* past '(' */
		return -1;
	int first = -1, last = -1, nargs = 0, height = 0;
	if (p->tok.kind != T_RPAREN) {
		for (;;) {
			int arg = parse_expr(p);
			if (arg < 0)
				return -1;
			if (last < 0)
				first = arg;
			else
				p->nodes[last].next = arg;
			last = arg;
			nargs++;
			if (p->nodes[arg].height > height)
				height = p->nodes[arg].height;
			if (p->tok.kind == T_RPAREN)
				break;
			if (p->tok.kind != T_COMMA)
				return expected(p, "',' or ')'");
			if (next(p))
				return -1;
		}
	}
	if (nargs < funcs[f].min_args || (funcs[f].max_args >= 0 && nargs > funcs[f].max_args)) {
		const char *fn = funcs[f].name;
		if (funcs[f].max_args < 0)
			expr_set_err(p->err, name.offset, "%s() needs at least %d argument%s", fn, funcs[f].min_args,
				funcs[f].min_args == 1 ? "" : "s");
		else
			expr_set_err(p->err, name.offset, "%s() takes %d argument%s, not %d", fn, funcs[f].max_args,
				funcs[f].max_args == 1 ? "" : "s", nargs);
		return -1;
	}
	if (next(p)) /* past ')' */
		return -1;
	if (height + 1 > EXPR_MAX_DEPTH)
		return too_deep(p, name.offset);
	int n = add_node(p, N_CALL, f, name.offset, first, nargs);
	if (n >= 0)
		p->nodes[n].height = height + 1;
	return n;
}

static int parse_primary(parser *p)
{
	token t = p->tok;
	int n;
	switch (t.kind) {
	case T_INT:
		n = add_node(p, N_INT, 0, t.offset, -1, -1);
		if (n < 0)
			return -1;
		p->nodes[n].v.i = t.v.i;
		return next(p) ? -1 : n;
	case T_FLOAT:
		n = add_node(p, N_FLOAT, 0, t.offset, -1, -1);
		if (n < 0)
			return -1;
		p->nodes[n].v.f = t.v.f;
		return next(p) ? -1 : n;
	case T_STR:
		n = add_node(p, N_STR, 0, t.offset, -1, -1);
		return n < 0 || next(p) ? -1 : n;
	case T_NAME:
		if (next(p))
			return -1;
		if (p->tok.kind == T_LPAREN)
			return parse_call(p, t);
		return add_node(p, N_NAME, 0, t.offset, -1, -1);
	case T_LPAREN:
		if (next(p))
			return -1;
		n = parse_expr(p);
		if (n < 0)
			return -1;
		if (p->tok.kind != T_RPAREN)
			return expected(p, "')'");
		return next(p) ? -1 : n;
	default:
		return expected(p, "a number, name or '('");
	}
}

static int parse_unary(parser *p)
{
	token t = p->tok;
	if (t.kind != T_MINUS && t.kind != T_PLUS && t.kind != T_NOT)
		return parse_primary(p);
	if (++p->depth > EXPR_MAX_DEPTH)
		return too_deep(p, t.offset);
	if (next(p))
		return -1;
	int operand = parse_unary(p);
	p->depth--;
	if (operand < 0)
		return -1;
	return add_node(p, N_UNARY, (int)t.kind, t.offset, operand, -1);
}

/* Binary operators by precedence, loosest first; every level is left-associative. */
static const tok_kind levels[][5] = {
	{T_OR},
	{T_AND},
	{T_EQ, T_NE},
	{T_LT, T_LE, T_GT, T_GE},
	{T_SHL, T_SHR},
	{T_PLUS, T_MINUS},
	{T_STAR, T_SLASH, T_PERCENT},
};
#define NLEVELS ((int)(sizeof levels / sizeof levels[0]))

static int at_level(tok_kind k, int level)
{
	for (int i = 0; i < 5 && levels[level][i] != T_END; i++)
		if (levels[level][i] == k)
			return 1;
	return 0;
}

static int parse_binary(parser *p, int level)
{
	if (level == NLEVELS)
		return parse_unary(p);
	int left = parse_binary(p, level + 1);
	while (left >= 0 && at_level(p->tok.kind, level)) {
		token op = p->tok;
		if (next(p))
			return -1;
		int right = parse_binary(p, level + 1);
		if (right < 0)
			return -1;
		left = add_node(p, N_BINARY, (int)op.kind, op.offset, left, right);
	}
	return left;
}

static int parse_expr(parser *p)
{
	if (++p->depth > EXPR_MAX_DEPTH)
		return too_deep(p, p->tok.offset);
	int n = parse_binary(p, 0);
	p->depth--;
	return n;
}

expr *expr_parse(const char *src, expr_error *err)
{
	if (!src)
		src = "";
	size_t len = strlen(src);
	if (len > INT_MAX / 2) {
		expr_set_err(err, 0, "expression too long");
		return NULL;
	}
	expr *e = malloc(sizeof *e + 2 * (len + 1));
	if (!e) {
		expr_set_err(err, 0, "out of memory");
		return NULL;
	}
	memcpy(e->text, src, len + 1);
	memcpy(e->text + len + 1, src, len + 1);
	e->len = len;
	e->nodes = NULL;
	e->nnodes = 0;
	e->root = -1;

	parser p = {0};
	p.src = e->text;
	p.names = e->text + len + 1;
	p.err = err;
	int root = -1;
	if (next(&p) == 0) {
		if (p.tok.kind == T_END) {
			expr_set_err(err, 0, "empty expression");
		} else {
			root = parse_expr(&p);
			if (root >= 0 && p.tok.kind != T_END)
				root = expected(&p, "an operator or end of expression");
		}
	}
	if (root < 0) {
		free(p.nodes);
		free(e);
		return NULL;
	}
	e->nodes = p.nodes;
	e->nnodes = p.nnodes;
	e->root = root;
	return e;
}

void expr_free(expr *e)
{
	if (!e)
		return;
	free(e->nodes);
	free(e);
}

const char *expr_source(const expr *e)
{
	return e ? e->text : NULL;
}

const char *expr_name_of(const expr *e, const node *nd)
{
	return e->text + e->len + 1 + nd->offset;
}

/* Name nodes are created as the parser meets them, so array order is source order. */
int expr_foreach_name(const expr *e, expr_name_fn fn, void *ctx)
{
	if (!e)
		return 0;
	for (int i = 0; i < e->nnodes; i++) {
		const node *nd = &e->nodes[i];
		if (nd->kind != N_NAME)
			continue;
		int r = fn(ctx, expr_name_of(e, nd), nd->offset);
		if (r)
			return r;
	}
	return 0;
}

