/* document.c: YAML and JSON documents read whole, with every syntax error said at its
 * file:line:col, and the checks of a document's keys (unknown ones with the nearest known one,
 * duplicates) that every reader of one wants. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "document.h"
#include "banned.h"

/* Where key checks say their errors, and how many they said. */
typedef struct {
	const char *file;
	diags *d;
	int errors;
} doc_check;

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
			if (*v && !document_json_number(v) && strcmp(v, "true") && strcmp(v, "false") && strcmp(v, "null")) {
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

int document_read(const char *path, const char *syntax, yaml_document_t *doc, diags *d)
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

int document_read_text(const char *path, const char *text, size_t len, const char *syntax, yaml_document_t *doc, diags *d)
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

/* An error at node n, counted: cut at 512 bytes as the config loader cuts its own, so a message
 * reads the same whichever reader says it. */
static void said(doc_check *c, const yaml_node_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void said(doc_check *c, const yaml_node_t *n, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	diags_at(c->d, c->file, (int)n->start_mark.line + 1, (int)n->start_mark.column + 1, "%s", buf);
	c->errors++;
}

const char *document_kind(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE: return "a scalar";
	case YAML_SEQUENCE_NODE: return "a list";
	case YAML_MAPPING_NODE: return "a mapping";
	default: return "nothing";
	}
}

/* The pairs first_of_each_key sorts, by key and then position (qsort has no context). */
static yaml_document_t *keys_doc;
static const yaml_node_pair_t *keys_pairs;
static const char *key_of(size_t i)
{
	const yaml_node_t *k = yaml_document_get_node(keys_doc, keys_pairs[i].key);
	return k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : NULL;
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
static size_t *first_of_each_key(yaml_document_t *doc, const yaml_node_pair_t *pairs, size_t n)
{
	size_t *order = xcalloc(n + 1, sizeof *order), *first = xcalloc(n + 1, sizeof *first);
	for (size_t i = 0; i < n; i++)
		order[i] = first[i] = i;
	keys_doc = doc;
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

/* An unknown key, said with the nearest allowed one, else with all of them. */
static void unknown_key(doc_check *c, const yaml_node_t *k, const char *what, const char *const *allowed)
{
	const char *name = (const char *)k->data.scalar.value;
	const char *best = nearest_name(name, allowed);
	if (best) {
		said(c, k, "unknown key '%s' in %s; did you mean '%s'?", name, what, best);
		return;
	}
	char list[256] = "";
	size_t used = 0;
	for (const char *const *a = allowed; *a && used < sizeof list; a++)
		used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", a == allowed ? "" : ", ", *a);
	said(c, k, "unknown key '%s' in %s (valid keys: %s)", name, what, list);
}

int document_check_keys(yaml_document_t *doc, const char *file, const yaml_node_t *n, const char *what,
			const char *const *allowed, diags *d)
{
	doc_check c = {file, d, 0};
	if (n->type != YAML_MAPPING_NODE) {
		said(&c, n, "%s must be a mapping, not %s", what, document_kind(n));
		return c.errors;
	}
	yaml_node_pair_t *start = n->data.mapping.pairs.start;
	size_t *first = first_of_each_key(doc, start, (size_t)(n->data.mapping.pairs.top - start));
	for (yaml_node_pair_t *p = start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		if (k->type != YAML_SCALAR_NODE) {
			said(&c, k, "keys in %s must be plain names", what);
			continue;
		}
		const char *name = (const char *)k->data.scalar.value;
		size_t was = first[p - start];
		if (was != (size_t)(p - start)) {
			const yaml_node_t *f = yaml_document_get_node(doc, start[was].key);
			said(&c, k, "duplicate key '%s' (first at line %d, column %d)", name, (int)f->start_mark.line + 1,
			     (int)f->start_mark.column + 1);
		}
		int known = !allowed;
		for (const char *const *a = allowed; a && *a && !known; a++)
			known = !strcmp(*a, name);
		if (!known)
			unknown_key(&c, k, what, allowed);
	}
	free(first);
	return c.errors;
}

int document_json_number(const char *s)
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

yaml_node_t *document_get(yaml_document_t *doc, const yaml_node_t *map, const char *key)
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
