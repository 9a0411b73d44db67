/* config_source.c: what the config takes from the kernel source and the entry's name: which
 * parameters `#pragma unroll NAME` uses, which the source #defines itself (replaced in a rewritten
 * copy, or refused with why), and the ${param} placeholders of a templated entry. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_load.h"
#include "mangle.h"
#include "banned.h"

int pragma_unroll_name(const char *line, size_t *start, size_t *len)
{
	const char *p = line;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p++ != '#')
		return 0;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "pragma", 6) || (p[6] != ' ' && p[6] != '\t'))
		return 0;
	p += 6;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "unroll", 6) || (p[6] != ' ' && p[6] != '\t' && p[6] != '('))
		return 0;
	p += 6;
	/* `unroll NAME` or `unroll(NAME)`, `unroll (NAME * 2)`: the name is replaced where it stands */
	while (*p == ' ' || *p == '\t' || *p == '(')
		p++;
	const char *q = p;
	if (!(*q == '_' || (*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z')))
		return 0; /* a number, or nothing: nvcc handles it */
	while (*q == '_' || (*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9'))
		q++;
	*start = (size_t)(p - line);
	*len = (size_t)(q - p);
	return 1;
}

int define_name(const char *line, size_t *start, size_t *len)
{
	const char *p = line + strspn(line, " \t");
	if (*p++ != '#')
		return 0;
	p += strspn(p, " \t");
	if (strncmp(p, "define", 6) || !strchr(" \t", p[6]) || !p[6])
		return 0;
	p += 6 + strspn(p + 6, " \t");
	const char *q = p;
	if (!(*q == '_' || (*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z')))
		return 0;
	while (*q == '_' || (*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9'))
		q++;
	*start = (size_t)(p - line);
	*len = (size_t)(q - p);
	return 1;
}

/* The #if nesting around a line, as far as a parameter's #define cares: an include guard
 * (`#ifndef G` whose next directive is `#define G`) and `#ifndef NAME` around NAME's own define
 * are no obstacle; any other condition means the define may not be the one that compiles. */
#define COND_MAX 64
typedef struct {
	char ifndef[COND_MAX][64]; /* `#ifndef NAME`'s NAME; "" for any other condition or branch */
	int guard[COND_MAX];       /* an include guard: no condition at all */
	int depth;                 /* may pass COND_MAX: the levels past it count as conditions */
	int opened;                /* the last directive was a #ifndef: a guard's #define may follow */
} cond_stack;

static int is_name_char(char ch)
{
	return ch == '_' || (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
}

/* line's directive word ("define", "ifndef", ...) into word, its argument's start in *rest; 0
 * when line is no directive. */
static int directive(const char *line, char word[16], const char **rest)
{
	const char *p = line + strspn(line, " \t");
	if (*p++ != '#')
		return 0;
	p += strspn(p, " \t");
	size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz");
	if (!n || n >= 16)
		return 0;
	memcpy(word, p, n);
	word[n] = 0;
	*rest = p + n + strspn(p + n, " \t");
	return 1;
}

static void cond_track(cond_stack *c, const char *word, const char *rest)
{
	int opened = c->opened, top = c->depth - 1;
	c->opened = 0;
	if (!strncmp(word, "if", 2)) {
		if (c->depth < COND_MAX) {
			size_t n = strspn(rest, "_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789");
			int named = !strcmp(word, "ifndef") && n < sizeof c->ifndef[0];
			snprintf(c->ifndef[c->depth], sizeof c->ifndef[0], "%.*s", named ? (int)n : 0, rest);
			c->guard[c->depth] = 0;
			c->opened = named;
		}
		c->depth++;
	} else if (!strncmp(word, "el", 2) && top >= 0 && top < COND_MAX) {
		c->ifndef[top][0] = 0; /* another branch: conditional whatever the first was */
		c->guard[top] = 0;
	} else if (!strcmp(word, "endif") && c->depth > 0)
		c->depth--;
	else if (!strcmp(word, "define") && opened && top >= 0 && top < COND_MAX) {
		size_t n = strlen(c->ifndef[top]);
		c->guard[top] = n && !strncmp(rest, c->ifndef[top], n) && !is_name_char(rest[n]);
	}
}

/* Why the #define of name in line, under conditions c, cannot be rewritten; NULL when it can. */
static const char *define_refusal(const cond_stack *c, const char *name, const char *line, size_t end)
{
	const char *after = line + end;
	size_t len = strlen(line);
	while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	if (*after == '(')
		return "a function-like macro, not a value";
	if (len && line[len - 1] == '\\')
		return "continued on the next line";
	if (strspn(after, " \t\r") == strlen(after) || !strncmp(after + strspn(after, " \t"), "//", 2) ||
	    !strncmp(after + strspn(after, " \t"), "/*", 2))
		return "without a value (a flag, not a number to replace)";
	for (int k = 0; k < c->depth; k++)
		if (k >= COND_MAX || (!c->guard[k] && strcmp(c->ifndef[k], name)))
			return "inside #if branches that autotune cannot resolve (which one compiles depends on the "
			       "preprocessor)";
	return NULL;
}

/* What the scan found of a parameter's #defines in the source. */
typedef struct {
	int line, second; /* the first and the second define's lines, or 0 */
	const char *refused;
} define_seen;

/* Each parameter the source #defines that build.defines does not pass: replaced in the rewritten
 * copy by its value (is_srcdef, a note at the line), or refused with why. */
static void settle_defines(loader *L, const define_seen *seen)
{
	config *cfg = L->cfg;
	for (size_t i = 0; i < cfg->nparams; i++) {
		param *p = &cfg->params[i];
		const define_seen *s = &seen[i];
		if (!s->line || p->is_define || p->is_maxreg)
			continue;
		if (s->second || s->refused) {
			char twice[160];
			snprintf(twice, sizeof twice, "the kernel defines it twice (lines %d and %d): which one compiles "
				 "depends on the preprocessor", s->line, s->second);
			diags_at(L->d, cfg->source, s->second ? s->second : s->line, 1,
				 "parameter '%s' of %s cannot replace this #define of '%s': %s; pass it as -D%s instead "
				 "(#ifndef %s around the #define, %s in build.defines)",
				 p->name, L->file, p->name, s->second ? twice : s->refused, p->name, p->name, p->name);
			L->errors++;
			continue;
		}
		p->is_srcdef = s->line;
		cfg->rewrite_pragmas = 1;
		if (!L->quiet)
			diags_at(&cfg->warnings, cfg->source, s->line, 1,
				 "note: parameter '%s' of %s replaces this #define: each configuration compiles a copy of "
				 "the kernel with '#define %s VALUE', and the tuned header's recipe ships the winner's copy",
				 p->name, L->file, p->name);
	}
}

/* A #define of a parameter at line no: the first one's line and whether it can be rewritten, or
 * the second one's line. */
static void note_define(const config *cfg, const cond_stack *c, define_seen *seen, const char *line,
			size_t start, size_t len, int no)
{
	for (size_t i = 0; i < cfg->nparams; i++) {
		if (strlen(cfg->params[i].name) != len || strncmp(cfg->params[i].name, line + start, len))
			continue;
		if (!seen[i].line) {
			seen[i].line = no;
			seen[i].refused = define_refusal(c, cfg->params[i].name, line, start + len);
		} else if (!seen[i].second)
			seen[i].second = no;
	}
}

int source_define_put(const config *cfg, const value *vals, const char *line, FILE *out)
{
	size_t start, len;
	if (!define_name(line, &start, &len))
		return 0;
	for (size_t i = 0; i < cfg->nparams; i++)
		if (cfg->params[i].is_srcdef && strlen(cfg->params[i].name) == len &&
		    !strncmp(cfg->params[i].name, line + start, len)) {
			char text[64];
			value_format(vals[i], text, sizeof text);
			/* the directive as written up to the name; the value ends the line, which stays one line */
			fprintf(out, "%.*s %s\n", (int)(start + len), line, text);
			return 1;
		}
	return 0;
}

/* A string parameter where only numbers make sense: a register cap or a `#pragma unroll` factor;
 * as a define, each value is a -D argument that must not reach a shell. */
static void check_string_roles(loader *L)
{
	for (size_t i = 0; i < L->cfg->nparams; i++) {
		const param *p = &L->cfg->params[i];
		if (!param_is_string(p))
			continue;
		if (p->is_maxreg || p->is_pragma)
			ld_error(L, p->at, "parameter '%s' lists strings ('%s'), but %s takes a number", p->name, p->values[0].u.s,
				 p->is_maxreg ? "build.maxrregcount" : "a `#pragma unroll`");
		for (size_t k = 0; p->is_define && k < p->nvalues; k++) {
			char *flag = xasprintf("-D%s=%s", p->name, p->values[k].u.s);
			int bad = ld_refuse_shell(L, p->at, "a build.defines value", flag,
						  "give the type through a #define of the kernel (which the parameter replaces) "
						  "or the entry's ${}");
			free(flag);
			if (bad)
				break;
		}
	}
}

/* nvcc does not macro-expand `#pragma unroll NAME` (NVRTC does), and a hard-coded `#define NAME
 * 16` ignores -DNAME: the compile stage rewrites both in a private copy of the source. Here: which
 * parameters they name (they become compile-time) and whether any rewriting is needed. */
void ld_scan_pragmas(loader *L)
{
	config *cfg = L->cfg;
	FILE *f = L->source_ok ? fopen(cfg->source, "rb") : NULL;
	if (!f)
		return;
	/* read whole, counting bytes, since a "line" may never end (/dev/zero) */
	size_t n = 0, got, cap = 1 << 16;
	char *text = xmalloc(cap + 1);
	/* one byte past the limit tells a source over it */
	while ((got = fread(text + n, 1, cap - n, f)) && (n += got) <= MAX_SOURCE_BYTES)
		if (n == cap)
			text = xrealloc(text, (cap = cap * 2 > MAX_SOURCE_BYTES ? MAX_SOURCE_BYTES + 1 : cap * 2) + 1);
	fclose(f);
	text[n] = 0;
	if (n > MAX_SOURCE_BYTES) {
		ld_error(L, cfg->source_at, "kernel source '%s' is over %lu MiB: not a CUDA source file", cfg->source,
		       MAX_SOURCE_BYTES >> 20);
		free(text);
		return;
	}
	size_t start, len;
	define_seen *seen = xcalloc(cfg->nparams + 1, sizeof *seen);
	cond_stack conds = {0};
	int no = 1;
	for (char *line = text, *next; line < text + n; line = next, no++) {
		char *nl = memchr(line, '\n', (size_t)(text + n - line));
		next = nl ? nl + 1 : text + n;
		if (nl)
			*nl = 0;
		char word[16];
		const char *rest;
		if (directive(line, word, &rest)) {
			if (!strcmp(word, "define") && define_name(line, &start, &len))
				note_define(cfg, &conds, seen, line, start, len, no);
			cond_track(&conds, word, rest);
		}
		if (!pragma_unroll_name(line, &start, &len))
			continue;
		for (size_t i = 0; i < cfg->nparams; i++)
			if (strlen(cfg->params[i].name) == len && !strncmp(cfg->params[i].name, line + start, len))
				cfg->params[i].is_pragma = cfg->rewrite_pragmas = 1;
		for (size_t i = 0; i < cfg->nconstants; i++)
			if (strlen(cfg->constants[i].name) == len && !strncmp(cfg->constants[i].name, line + start, len))
				cfg->rewrite_pragmas = 1;
	}
	settle_defines(L, seen);
	free(seen);
	check_string_roles(L);
	free(text);
}

/* The characters a string value may hold: a type (`unsigned int`, `const float*`,
 * `cuda::std::complex<float>`) or a name; no comma (the CSV's separator), quote or anything a C
 * line could end or continue with. */
#define STRING_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:<>*& "

int ld_string_value(loader *L, const yaml_node_t *n, value *out)
{
	if (n->type != YAML_SCALAR_NODE)
		return 0;
	const char *t = ld_scalar(n);
	size_t len = strlen(t);
	/* "float" or 'float' inside the YAML scalar: a string literal, meant as one */
	if (len >= 2 && (t[0] == '"' || t[0] == '\'') && t[len - 1] == t[0]) {
		t++;
		len -= 2;
	} else if (ld_is_identifier(t)) {
		for (size_t i = 0; i < L->cfg->nconstants; i++)
			if (!strcmp(L->cfg->constants[i].name, t))
				return 0;
		for (size_t i = 0; i < L->nfailed; i++)
			if (!strcmp(L->failed[i], t))
				return 0;
	} else {
		expr_error err;
		expr *e = expr_parse(t, &err);
		expr_free(e);
		int starts = t[0] == '_' || t[0] == ':' || (t[0] >= 'a' && t[0] <= 'z') || (t[0] >= 'A' && t[0] <= 'Z');
		if (e || strspn(t, STRING_CHARS) != len || !starts)
			return 0; /* an expression, or neither: said as an expression's error */
	}
	if (!len || strspn(t, STRING_CHARS) < len || t[0] == ' ' || t[len - 1] == ' ') {
		ld_error(L, ld_mark(n), "string value '%s' may hold only letters, digits, '_', ':', '<', '>', '*', '&' and "
			 "inner spaces (a type or a kernel's name)", ld_scalar(n));
		return -1;
	}
	char *text = xmalloc(len + 1);
	memcpy(text, t, len);
	text[len] = 0;
	*out = value_str(text);
	return 1;
}

double param_value_key(const param *p, const char *text, value v)
{
	if (!param_is_string(p))
		return text ? strtod(text, NULL) : value_as_double(v);
	for (size_t k = 0; k < p->nvalues; k++)
		if (!strcmp(p->values[k].u.s, text ? text : v.kind == VAL_STR ? v.u.s : ""))
			return (double)k;
	return -1;
}

void ld_named_string(loader *L, const param *p, const yaml_node_t *n, const char *what, value *out)
{
	value v;
	if (ld_string_value(L, n, &v) <= 0) {
		if (n->type == YAML_SCALAR_NODE)
			ld_error(L, ld_mark(n), "%s gives '%s' for parameter '%s', whose values are strings", what, ld_scalar(n),
				 p->name);
		else
			ld_expect(L, n, YAML_SCALAR_NODE, what);
		return;
	}
	double k = param_value_key(p, v.u.s, v);
	if (k >= 0)
		*out = p->values[(size_t)k];
	else {
		char *list = xstrdup("");
		for (size_t i = 0; i < p->nvalues; i++) {
			char *m = xasprintf("%s%s%s", list, i ? ", " : "", p->values[i].u.s);
			free(list);
			list = m;
		}
		ld_error(L, ld_mark(n), "%s gives '%s' for parameter '%s', which is not one of its values (%s)", what, v.u.s,
			 p->name, list);
		free(list);
	}
	free((char *)v.u.s);
}

/* A filled entry: a C identifier, or a template-id (`k<__half, 256>`, `ns::k<float*>`) whose
 * instance the compile stage takes by address in the copy, so its text must be a name and
 * arguments only. */
static int entry_ok(const char *s)
{
	if (ld_is_identifier(s))
		return 1;
	const char *lt = strchr(s, '<');
	if (!mangle_is_template_id(s) || strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:") !=
					       (size_t)(lt - s) || (*s >= '0' && *s <= '9') || *s == ':')
		return 0;
	int depth = 0;
	for (const char *p = lt; *p; p++) {
		if (!strchr(STRING_CHARS ",+-.", *p) || (depth += *p == '<' ? 1 : *p == '>' ? -1 : 0) < 0 ||
		    (!depth && p[1]))
			return 0;
	}
	return depth == 0;
}

/* entry with parameter k's placeholder filled with value v and every other one with its
 * parameter's first string, or 0 for numbers. Caller frees. */
static char *entry_with(const config *cfg, size_t k, value v)
{
	value *vals = xcalloc(cfg->nparams + 1, sizeof *vals);
	for (size_t i = 0; i < cfg->nparams; i++) {
		const param *p = &cfg->params[i];
		vals[i] = i == k ? v : p->nvalues && p->values[0].kind == VAL_STR ? p->values[0] : value_int(0);
	}
	char *e = config_entry(cfg, vals);
	free(vals);
	return e;
}

/* "mathKernel${variant}", "k<${T}, ${BLOCK}>": each placeholder names a parameter, which becomes
 * compile-time (one binary per value, each with its own entry point). Filled with each value, the
 * entry must be a C identifier (numbers: whole, from 0; strings: names) or a template-id, whose
 * instance the rewritten copy takes by address so that nvcc compiles it. */
void ld_check_entry(loader *L)
{
	config *cfg = L->cfg;
	if (!cfg->entry || (!strstr(cfg->entry, "${") && !strchr(cfg->entry, '<')))
		return;
	for (const char *p = cfg->entry; (p = strstr(p, "${")); p += 2) {
		const char *end = strchr(p, '}');
		if (!end) {
			ld_error(L, cfg->entry_at, "kernel entry '%s': '${' without '}'", cfg->entry);
			return;
		}
		int found = 0;
		for (size_t i = 0; i < cfg->nparams; i++)
			if (strlen(cfg->params[i].name) == (size_t)(end - p - 2) && !strncmp(cfg->params[i].name, p + 2, (size_t)(end - p - 2))) {
				cfg->params[i].is_entry = 1;
				found = 1;
			}
		if (!found) {
			ld_error(L, cfg->entry_at, "kernel entry '%s': '%.*s' is not a parameter of the space", cfg->entry,
			       (int)(end - p - 2), p + 2);
			return;
		}
	}
	int templated = mangle_is_template_id(cfg->entry);
	char *first = entry_with(cfg, cfg->nparams, value_int(0));
	if (!entry_ok(first) || mangle_is_template_id(first) != templated) {
		ld_error(L, cfg->entry_at, "kernel entry '%s' does not make a C identifier%s", cfg->entry,
			 strchr(cfg->entry, '<') ? " or a template-id (name<arguments>)" : "");
		free(first);
		return;
	}
	free(first);
	cfg->rewrite_pragmas |= templated;
	for (size_t i = 0; i < cfg->nparams; i++)
		for (size_t v = 0; cfg->params[i].is_entry && v < cfg->params[i].nvalues; v++) {
			value x = cfg->params[i].values[v];
			char *e = entry_with(cfg, i, x), text[64];
			int ok = entry_ok(e) && (templated || x.kind != VAL_INT || x.u.i >= 0) && x.kind != VAL_FLOAT;
			free(e);
			if (ok)
				continue;
			value_format(x, text, sizeof text);
			ld_error(L, cfg->entry_at, "kernel entry '%s' does not make a C identifier%s for %s = %s", cfg->entry,
				 templated ? " or a template-id" : "", cfg->params[i].name, text);
			break;
		}
}

/* The instance a template-id entry names, taken by address after the source so that nvcc
 * compiles it (a template is compiled only where used): written to out for the copy. */
void source_entry_put(const config *cfg, const value *vals, FILE *out)
{
	if (!cfg->entry || !mangle_is_template_id(cfg->entry))
		return;
	char *e = config_entry(cfg, vals);
	fprintf(out, "\nstatic void *const autotune_tuned_instance_ __attribute__((unused)) = (void *)&%s;\n", e);
	free(e);
}

char *config_entry(const config *cfg, const value *params)
{
	size_t cap = strlen(cfg->entry) + 64, len = 0;
	char *out = xmalloc(cap);
	for (const char *p = cfg->entry; *p;) {
		const char *end = p[0] == '$' && p[1] == '{' ? strchr(p, '}') : NULL;
		char piece[128];
		size_t n = 1;
		piece[0] = *p;
		piece[1] = 0;
		if (end) {
			for (size_t i = 0; i < cfg->nparams; i++)
				if (strlen(cfg->params[i].name) == (size_t)(end - p - 2) &&
				    !strncmp(cfg->params[i].name, p + 2, (size_t)(end - p - 2)))
					value_format(params[i], piece, sizeof piece);
			n = strlen(piece);
			p = end + 1;
		} else
			p++;
		grow(&out, &cap, len + n + 1, 1);
		memcpy(out + len, piece, n);
		len += n;
	}
	out[len] = 0;
	return out;
}
