/* config_yaml.c: the config loader's view of libyaml's document (lib/document.c reads it): nodes,
 * typed getters that report file:line:col, and key checks counted as the loader's errors. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_load.h"
#include "document.h"
#include "proc.h"
#include "banned.h"

mark ld_mark(const yaml_node_t *n)
{
	mark m = {(int)n->start_mark.line + 1, (int)n->start_mark.column + 1};
	return m;
}

void ld_error(loader *L, mark m, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	diags_at(L->d, L->file, m.line, m.col, "%s", buf);
	L->errors++;
}

yaml_node_t *ld_node(loader *L, int id) { return yaml_document_get_node(L->doc, id); }

const char *ld_kind_name(const yaml_node_t *n) { return document_kind(n); }

const char *ld_scalar(const yaml_node_t *n) { return (const char *)n->data.scalar.value; }

int ld_expect(loader *L, const yaml_node_t *n, yaml_node_type_t t, const char *what)
{
	if (n->type == t)
		return 0;
	const char *want = t == YAML_SCALAR_NODE ? "a scalar" : t == YAML_SEQUENCE_NODE ? "a list" : "a mapping";
	ld_error(L, ld_mark(n), "%s must be %s, not %s", what, want, ld_kind_name(n));
	return -1;
}

static int same_value(value a, value b)
{
	return a.kind == b.kind ? (a.kind == VAL_INT ? a.u.i == b.u.i : a.u.f == b.u.f)
				: value_as_double(a) == value_as_double(b);
}

/* The values ld_check_distinct_values sorts, by their number and then position. */
static const value *sorted_values;
static int value_order(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	double x = value_as_double(sorted_values[i]), y = value_as_double(sorted_values[j]);
	if (isnan(x) || isnan(y)) /* equal to nothing: last, in their order */
		return isnan(x) != isnan(y) ? isnan(x) - isnan(y) : (i > j) - (i < j);
	return x != y ? (x > y) - (x < y) : (i > j) - (i < j);
}

/* A parameter of strings (types, kernel names) lists only strings, each once: a word among
 * numbers is a misspelt constant more often than a string. 1 when p has strings (checked here). */
static int check_string_values(loader *L, const param *p, const yaml_node_item_t *at)
{
	size_t strings = 0, first = 0;
	for (size_t i = 0; i < p->nvalues; i++)
		if (p->values[i].kind == VAL_STR && !strings++)
			first = i;
	if (!strings)
		return 0;
	if (strings < p->nvalues) {
		ld_error(L, ld_mark(ld_node(L, at[first])),
			 "parameter '%s' mixes numbers and strings: '%s' is no number and no constant (a parameter of "
			 "strings, types or kernel names, lists only strings)",
			 p->name, p->values[first].u.s);
		return 1;
	}
	for (size_t j = 1; j < p->nvalues; j++)
		for (size_t i = 0; i < j; i++)
			if (!strcmp(p->values[i].u.s, p->values[j].u.s)) {
				ld_error(L, ld_mark(ld_node(L, at[j])), "parameter '%s' lists the value %s twice (items %zu and %zu)",
					 p->name, p->values[j].u.s, i + 1, j + 1);
				break;
			}
	return 1;
}

/* Sorted, so that equal values are neighbours: a list of 200,000 values is not 200,000 squared
 * comparisons. Values equal as doubles but not as themselves (two integers past 2^53) share a
 * run, which is compared pairwise. */
void ld_check_distinct_values(loader *L, const param *p, const yaml_node_item_t *at)
{
	if (check_string_values(L, p, at))
		return;
	size_t n = p->nvalues, *order = xcalloc(n + 1, sizeof *order), *first = xcalloc(n + 1, sizeof *first);
	for (size_t i = 0; i < n; i++)
		order[i] = first[i] = i;
	sorted_values = p->values;
	qsort(order, n, sizeof *order, value_order);
	for (size_t a = 0, b; a < n; a = b) {
		double x = value_as_double(p->values[order[a]]);
		for (b = a + 1; b < n && value_as_double(p->values[order[b]]) == x; b++)
			for (size_t k = a; k < b; k++)
				if (first[order[b]] == order[b] && same_value(p->values[order[k]], p->values[order[b]]))
					first[order[b]] = first[order[k]];
	}
	for (size_t j = 0; j < n; j++)
		if (first[j] != j) {
			yaml_node_t *item = ld_node(L, at[j]);
			ld_error(L, ld_mark(item), "parameter '%s' lists the value %s twice (items %zu and %zu)", p->name,
				 ld_scalar(item), first[j] + 1, j + 1);
		}
	free(order);
	free(first);
}

/* Reports unknown keys (with the nearest valid one) and duplicate keys, which libyaml accepts
 * silently. Returns -1 if n is not a mapping. */
int ld_check_keys(loader *L, const yaml_node_t *n, const char *what, const char *const *allowed)
{
	if (ld_expect(L, n, YAML_MAPPING_NODE, what))
		return -1;
	L->errors += document_check_keys(L->doc, L->file, n, what, allowed, L->d);
	return 0;
}

yaml_node_t *ld_get(loader *L, const yaml_node_t *map, const char *key) { return document_get(L->doc, map, key); }

yaml_node_t *ld_require(loader *L, const yaml_node_t *map, const char *key, const char *what)
{
	yaml_node_t *v = ld_get(L, map, key);
	if (!v)
		ld_error(L, ld_mark(map), "%s is missing the required key '%s'", what, key);
	return v;
}

char *ld_string(loader *L, const yaml_node_t *n, const char *what)
{
	if (!n || ld_expect(L, n, YAML_SCALAR_NODE, what))
		return NULL;
	if (!*ld_scalar(n)) {
		ld_error(L, ld_mark(n), "%s must not be empty", what);
		return NULL;
	}
	return xstrdup(ld_scalar(n));
}

int ld_is_identifier(const char *s)
{
	if (!(*s == '_' || (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')))
		return 0;
	for (s++; *s; s++)
		if (!(*s == '_' || (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
			return 0;
	return 1;
}

/* Strict number parsing: the whole text, no overflow (libyaml gives every scalar as a string). */
int ld_int(loader *L, const yaml_node_t *n, const char *what, long long lo, long long hi, long long *out)
{
	if (!n || ld_expect(L, n, YAML_SCALAR_NODE, what))
		return -1;
	const char *s = ld_scalar(n);
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 0);
	if (end == s || *end || errno == ERANGE) {
		ld_error(L, ld_mark(n), "%s must be an integer, not '%s'", what, s);
		return -1;
	}
	if (v < lo || v > hi) {
		ld_error(L, ld_mark(n), "%s must be between %lld and %lld, not %lld", what, lo, hi, v);
		return -1;
	}
	*out = v;
	return 0;
}

int ld_double(loader *L, const yaml_node_t *n, const char *what, double *out)
{
	if (!n || ld_expect(L, n, YAML_SCALAR_NODE, what))
		return -1;
	const char *s = ld_scalar(n);
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end || errno == ERANGE || !isfinite(v)) {
		ld_error(L, ld_mark(n), "%s must be a number, not '%s'", what, s);
		return -1;
	}
	*out = v;
	return 0;
}

int ld_bool(loader *L, const yaml_node_t *n, const char *what, int *out)
{
	if (!n || ld_expect(L, n, YAML_SCALAR_NODE, what))
		return -1;
	const char *s = ld_scalar(n);
	if (!strcmp(s, "true") || !strcmp(s, "yes")) {
		*out = 1;
		return 0;
	}
	if (!strcmp(s, "false") || !strcmp(s, "no")) {
		*out = 0;
		return 0;
	}
	ld_error(L, ld_mark(n), "%s must be true or false, not '%s'", what, s);
	return -1;
}

/* Column of byte `offset` of a scalar's text: quoted scalars start one column after the quote. */
mark ld_expr_mark(const yaml_node_t *n, int offset)
{
	mark m = ld_mark(n);
	int quoted = n->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
		     n->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
	m.col += offset + quoted;
	return m;
}

int ld_expr(loader *L, const yaml_node_t *n, const char *what, cexpr *out)
{
	if (!n || ld_expect(L, n, YAML_SCALAR_NODE, what))
		return -1;
	expr_error ee;
	expr *e = expr_parse(ld_scalar(n), &ee);
	if (!e) {
		ld_error(L, ld_expr_mark(n, ee.offset), "%s: %s", what, ee.msg);
		return -1;
	}
	out->e = e;
	out->at = ld_expr_mark(n, 0);
	return 0;
}

/* Parentheses opened minus closed in a plain scalar's text (0 for a quoted one). */
static int open_parens(const yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	int depth = 0;
	for (const char *c = ld_scalar(n); *c; c++)
		depth += (*c == '(') - (*c == ')');
	return depth;
}

/* Inside [ ] a bare comma ends an item, so [ceil_div(n, B)] arrives as "ceil_div(n" and "B)":
 * the first item whose parentheses stay open is joined back to its close, and the message shows
 * the expression to quote. 1 when it found one. */
int ld_comma_cut(loader *L, const yaml_node_t *n, const char *what)
{
	if (n->data.sequence.style != YAML_FLOW_SEQUENCE_STYLE)
		return 0;
	yaml_node_item_t *items = n->data.sequence.items.start, *end = n->data.sequence.items.top;
	for (yaml_node_item_t *it = items; it < end; it++) {
		int depth = open_parens(ld_node(L, *it));
		if (depth <= 0)
			continue;
		char *joined = xstrdup(ld_scalar(ld_node(L, *it)));
		for (yaml_node_item_t *more = it + 1; more < end && depth > 0; more++) {
			const yaml_node_t *m = ld_node(L, *more);
			char *longer = xasprintf("%s, %s", joined, m->type == YAML_SCALAR_NODE ? ld_scalar(m) : "...");
			free(joined);
			joined = longer;
			depth += open_parens(m);
		}
		ld_error(L, ld_mark(ld_node(L, *it)), "%s: inside [ ] a comma ends an item, which cut this expression in two: "
			  "quote it whole, \"%s\"", what, joined);
		free(joined);
		return 1;
	}
	return 0;
}

void ld_dims(loader *L, const yaml_node_t *n, const char *what, cexpr dims[3])
{
	if (!n || ld_expect(L, n, YAML_SEQUENCE_NODE, what) || ld_comma_cut(L, n, what))
		return;
	size_t count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	if (count < 1 || count > 3) {
		ld_error(L, ld_mark(n), "%s takes 1 to 3 expressions (x, y, z), not %zu%s", what, count,
		       n->data.sequence.style == YAML_FLOW_SEQUENCE_STYLE && count > 3
			       ? " (inside [ ] a comma ends an item: quote expressions such as \"min(a, b)\")" : "");
		return;
	}
	for (size_t i = 0; i < count; i++)
		ld_expr(L, ld_node(L, n->data.sequence.items.start[i]), what, &dims[i]);
}

int ld_refuse_shell(loader *L, mark m, const char *what, const char *s, const char *fix)
{
	char *why = proc_shell_refusal(what, s, fix);
	if (!why)
		return 0;
	ld_error(L, m, "%s", why);
	free(why);
	return -1;
}
