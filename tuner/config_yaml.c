/* config_yaml.c: the config loader's view of libyaml's document: nodes, typed getters that
 * report file:line:col, and key checks with a did-you-mean for unknown keys. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_load.h"
#include "banned.h"

/* The line and column (1-based, in characters of UTF-8, where the text is) of byte offset in f;
 * returns the byte there. */
static int offset_position(FILE *f, size_t offset, int *line, int *col)
{
	*line = *col = 1;
	rewind(f);
	for (size_t i = 0; i < offset; i++) {
		int c = getc(f);
		if (c == EOF)
			break;
		if (c == '\n') {
			++*line;
			*col = 1;
		} else if ((c & 0xC0) != 0x80) /* not a continuation byte */
			++*col;
	}
	return getc(f);
}

/* Flow collections nested deeper than this are refused before libyaml sees them: its parser
 * takes time quadratic in the depth (200 KB of brackets took 33 s), and no config or spec needs
 * more than a handful. */
#define MAX_FLOW_DEPTH 64

/* A config or spec is a few kilobytes; long value lists stay far below this. */
#define MAX_DOCUMENT_BYTES (64ul << 20)

/* Whether f opens more than MAX_FLOW_DEPTH brackets and braces at once (outside quotes and
 * comments), and where the first one too many is. */
static int too_deep(FILE *f, int *line, int *col)
{
	int depth = 0, c, prev = '\n', quote = 0;
	*line = *col = 1;
	while ((c = getc(f)) != EOF) {
		if (quote) {
			if (c == '\\' && quote == '"')
				c = getc(f) == '\n' ? '\n' : ' ';
			else if (c == quote)
				quote = 0;
		} else if (c == '#' && (prev == ' ' || prev == '\t' || prev == '\n')) {
			while ((c = getc(f)) != EOF && c != '\n')
				;
		} else if (c == '"' || c == '\'') {
			quote = c;
		} else if (c == '[' || c == '{') {
			if (++depth > MAX_FLOW_DEPTH) {
				rewind(f);
				return 1;
			}
		} else if ((c == ']' || c == '}') && depth > 0)
			depth--;
		if (c == '\n') {
			++*line;
			*col = 1;
		} else if ((c & 0xC0) != 0x80)
			++*col;
		prev = c;
	}
	rewind(f);
	return 0;
}

/* A scalar with a NUL in it ("\0" in a double-quoted string) would be cut there wherever it is
 * used as C text (a name, a path): refused wherever it is, key or value. */
static int has_nul(const char *path, const char *syntax, yaml_document_t *doc, diags *d)
{
	for (yaml_node_t *n = doc->nodes.start; n < doc->nodes.top; n++)
		if (n->type == YAML_SCALAR_NODE && memchr(n->data.scalar.value, 0, n->data.scalar.length)) {
			diags_at(d, path, (int)n->start_mark.line + 1, (int)n->start_mark.column + 1,
				 "%s: a NUL character (\\0) in a string: not allowed", syntax);
			return 1;
		}
	return 0;
}

/* What libyaml reads in a file that should be JSON but is not (T4 and Kernel Tuner files): its
 * own syntax (anchors and aliases, tags, indented blocks, bare words) or another encoding than
 * UTF-8. Read as YAML, an alias would repeat a result and a bare word pass for a string. 1 with
 * the first said in d; f is rewound. A syntax error is left to the loader, which says it. */
static int not_json(const char *path, FILE *f, diags *d)
{
	yaml_parser_t parser;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, f);
	yaml_event_t e;
	const char *why = NULL;
	char word[160];
	yaml_mark_t at = {0};
	while (!why && yaml_parser_parse(&parser, &e)) {
		yaml_event_type_t t = e.type;
		at = e.start_mark;
		const yaml_char_t *anchor = t == YAML_SCALAR_EVENT		? e.data.scalar.anchor
					    : t == YAML_SEQUENCE_START_EVENT ? e.data.sequence_start.anchor
					    : t == YAML_MAPPING_START_EVENT  ? e.data.mapping_start.anchor
									     : NULL;
		const yaml_char_t *tag = t == YAML_SCALAR_EVENT		? e.data.scalar.tag
					 : t == YAML_SEQUENCE_START_EVENT ? e.data.sequence_start.tag
					 : t == YAML_MAPPING_START_EVENT  ? e.data.mapping_start.tag
									  : NULL;
		if (t == YAML_STREAM_START_EVENT && e.data.stream_start.encoding != YAML_UTF8_ENCODING)
			why = "the file is UTF-16 (it starts with that byte order mark): JSON files must be UTF-8";
		else if (t == YAML_ALIAS_EVENT || anchor)
			why = "a YAML anchor or alias (& or *): not JSON";
		else if (tag)
			why = "a YAML tag (!): not JSON";
		else if ((t == YAML_SEQUENCE_START_EVENT && e.data.sequence_start.style == YAML_BLOCK_SEQUENCE_STYLE) ||
			 (t == YAML_MAPPING_START_EVENT && e.data.mapping_start.style == YAML_BLOCK_MAPPING_STYLE))
			why = "YAML's indented lists or mappings: not JSON (which has [ ] and { })";
		else if (t == YAML_SCALAR_EVENT && e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
			const char *v = (const char *)e.data.scalar.value;
			/* an empty one stands where a value is missing: the loader's syntax error says so */
			if (*v && !config_json_number(v) && strcmp(v, "true") && strcmp(v, "false") && strcmp(v, "null")) {
				snprintf(word, sizeof word, "'%.80s' is not JSON (a \"string\", a number, true, false or null)", v);
				why = word;
			}
		}
		int end = t == YAML_STREAM_END_EVENT;
		yaml_event_delete(&e);
		if (end)
			break;
	}
	yaml_parser_delete(&parser);
	rewind(f);
	if (why)
		diags_at(d, path, (int)at.line + 1, (int)at.column + 1, "JSON syntax error: %s", why);
	return why != NULL;
}

/* The document of f, which holds the file path names (or text that stands for it). */
static int read_document(const char *path, FILE *f, const char *syntax, yaml_document_t *doc, diags *d)
{
	int line, col;
	if (too_deep(f, &line, &col)) {
		diags_at(d, path, line, col, "%s syntax error: lists and mappings nested more than %d deep", syntax,
			 MAX_FLOW_DEPTH);
		return -1;
	}
	if (!strcmp(syntax, "JSON") && not_json(path, f, d))
		return -1;
	yaml_parser_t parser;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, f);
	int rc = 0;
	if (!yaml_parser_load(&parser, doc) && parser.error == YAML_READER_ERROR) {
		/* the reader says where in bytes, not in lines: a file that is not UTF-8 (Latin-1) */
		int line, col, byte = offset_position(f, parser.problem_offset, &line, &col);
		diags_at(d, path, line, col, "%s syntax error: %s (byte 0x%02X): the file must be UTF-8", syntax,
			 parser.problem ? parser.problem : "unreadable text", (unsigned)byte & 0xFF);
		rc = -1;
	} else if (parser.error != YAML_NO_ERROR) {
		const yaml_mark_t *m = parser.problem ? &parser.problem_mark : &parser.context_mark;
		diags_at(d, path, (int)m->line + 1, (int)m->column + 1, "%s syntax error: %s%s%s", syntax,
			 parser.problem ? parser.problem : "unknown problem", parser.context ? " " : "",
			 parser.context ? parser.context : "");
		rc = -1;
	} else {
		/* a second document would be silently dropped: said where it starts */
		yaml_document_t next;
		if (yaml_parser_load(&parser, &next)) {
			if (yaml_document_get_root_node(&next)) {
				diags_at(d, path, (int)next.start_mark.line + 1, (int)next.start_mark.column + 1,
					 "%s syntax error: a second document: the file must hold one", syntax);
				rc = -1;
			}
			yaml_document_delete(&next);
		} else {
			/* text after the document that starts none (a second JSON object, say) */
			const yaml_mark_t *m = parser.problem ? &parser.problem_mark : &parser.context_mark;
			diags_at(d, path, (int)m->line + 1, (int)m->column + 1, "%s syntax error: text after the document: %s",
				 syntax, parser.problem ? parser.problem : "unknown problem");
			rc = -1;
		}
		if (!rc && has_nul(path, syntax, doc, d))
			rc = -1;
		if (rc)
			yaml_document_delete(doc);
	}
	yaml_parser_delete(&parser);
	return rc;
}

int config_read_document(const char *path, const char *syntax, yaml_document_t *doc, diags *d)
{
	/* read whole first: a pipe cannot be rewound, and a device may never end */
	size_t len;
	char *text = read_input(path, MAX_DOCUMENT_BYTES, syntax[0] == 'J' ? "a T1 spec" : "a config", &len, d);
	if (!text)
		return -1;
	/* an empty file is an empty document, which the loader names as such */
	FILE *f = len ? fmemopen(text, len, "r") : fopen("/dev/null", "r");
	int rc = f ? read_document(path, f, syntax, doc, d) : -1;
	if (!f)
		diags_add(d, "%s: cannot read: %s", path, strerror(errno));
	else
		fclose(f);
	free(text);
	return rc;
}

int config_read_text(const char *path, const char *text, size_t len, const char *syntax, yaml_document_t *doc, diags *d)
{
	FILE *f = len ? fmemopen((void *)text, len, "r") : NULL;
	if (!f) {
		diags_at(d, path, 1, 1, "%s syntax error: %s", syntax, len ? strerror(errno) : "the text is empty");
		return -1;
	}
	int rc = read_document(path, f, syntax, doc, d);
	fclose(f);
	return rc;
}

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

const char *ld_kind_name(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE: return "a scalar";
	case YAML_SEQUENCE_NODE: return "a list";
	case YAML_MAPPING_NODE: return "a mapping";
	default: return "nothing";
	}
}

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

/* Sorted, so that equal values are neighbours: a list of 200,000 values is not 200,000 squared
 * comparisons. Values equal as doubles but not as themselves (two integers past 2^53) share a
 * run, which is compared pairwise. */
void ld_check_distinct_values(loader *L, const param *p, const yaml_node_item_t *at)
{
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

/* The pairs first_of_each_key sorts, by key and then position (qsort has no context). */
static loader *keys_loader;
static const yaml_node_pair_t *keys_pairs;
static const char *key_of(size_t i)
{
	const yaml_node_t *k = ld_node(keys_loader, keys_pairs[i].key);
	return k->type == YAML_SCALAR_NODE ? ld_scalar(k) : NULL;
}
static int key_order(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const char *x = key_of(i), *y = key_of(j);
	int c = !x || !y ? (x != NULL) - (y != NULL) : strcmp(x, y);
	return c ? c : (i > j) - (i < j);
}

/* Per pair, the first pair of the same key (itself when it is the first, or has no name): by
 * sorting, so that a mapping of 200,000 constants is not 200,000 squared comparisons. Caller
 * frees. */
static size_t *first_of_each_key(loader *L, const yaml_node_pair_t *pairs, size_t n)
{
	size_t *order = xcalloc(n + 1, sizeof *order), *first = xcalloc(n + 1, sizeof *first);
	for (size_t i = 0; i < n; i++)
		order[i] = first[i] = i;
	keys_loader = L;
	keys_pairs = pairs;
	qsort(order, n, sizeof *order, key_order);
	for (size_t k = 1; k < n; k++) {
		const char *a = key_of(order[k - 1]), *b = key_of(order[k]);
		if (a && b && !strcmp(a, b))
			first[order[k]] = first[order[k - 1]];
	}
	free(order);
	return first;
}

/* Reports unknown keys (with the nearest valid one) and duplicate keys, which libyaml accepts
 * silently. Returns -1 if n is not a mapping. */
int ld_check_keys(loader *L, const yaml_node_t *n, const char *what, const char *const *allowed)
{
	if (ld_expect(L, n, YAML_MAPPING_NODE, what))
		return -1;
	yaml_node_pair_t *start = n->data.mapping.pairs.start;
	size_t *first = first_of_each_key(L, start, (size_t)(n->data.mapping.pairs.top - start));
	for (yaml_node_pair_t *p = start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = ld_node(L, p->key);
		if (k->type != YAML_SCALAR_NODE) {
			ld_error(L, ld_mark(k), "keys in %s must be plain names", what);
			continue;
		}
		size_t was = first[p - start];
		if (was != (size_t)(p - start)) {
			mark m = ld_mark(ld_node(L, start[was].key));
			ld_error(L, ld_mark(k), "duplicate key '%s' (first at line %d, column %d)", ld_scalar(k), m.line, m.col);
		}
		if (!allowed)
			continue;
		int known = 0;
		for (const char *const *a = allowed; *a && !known; a++)
			known = !strcmp(*a, ld_scalar(k));
		if (known)
			continue;
		const char *best = nearest_name(ld_scalar(k), allowed);
		if (best)
			ld_error(L, ld_mark(k), "unknown key '%s' in %s; did you mean '%s'?", ld_scalar(k), what, best);
		else {
			char list[256] = "";
			size_t used = 0;
			for (const char *const *a = allowed; *a && used < sizeof list; a++)
				used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", a == allowed ? "" : ", ", *a);
			ld_error(L, ld_mark(k), "unknown key '%s' in %s (valid keys: %s)", ld_scalar(k), what, list);
		}
	}
	free(first);
	return 0;
}

int config_json_number(const char *s)
{
	s += *s == '-';
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (isdigit((unsigned char)*s))
			s++;
	else
		return 0;
	if (*s == '.') {
		if (!isdigit((unsigned char)*++s))
			return 0;
		while (isdigit((unsigned char)*s))
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		s += s[1] == '+' || s[1] == '-';
		if (!isdigit((unsigned char)*++s))
			return 0;
		while (isdigit((unsigned char)*s))
			s++;
	}
	return !*s;
}

int config_check_keys(yaml_document_t *doc, const char *file, const yaml_node_t *n, const char *what,
		      const char *const *allowed, diags *d)
{
	loader L = {.file = file, .doc = doc, .d = d};
	ld_check_keys(&L, n, what, allowed);
	return L.errors;
}

yaml_node_t *config_map_get(yaml_document_t *doc, const yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		if (k->type == YAML_SCALAR_NODE && !strcmp((const char *)k->data.scalar.value, key))
			return yaml_document_get_node(doc, p->value);
	}
	return NULL;
}

yaml_node_t *ld_get(loader *L, const yaml_node_t *map, const char *key) { return config_map_get(L->doc, map, key); }

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
