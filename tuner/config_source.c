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
	free(text);
}

/* "mathKernel${variant}": each placeholder names a parameter, which becomes compile-time (one
 * binary per value, each with its own entry point); filled with any of its values (whole numbers
 * from 0: digits), the name must make an identifier. */
void ld_check_entry(loader *L)
{
	config *cfg = L->cfg;
	if (!cfg->entry || !strstr(cfg->entry, "${"))
		return;
	char plain[512];
	size_t used = 0;
	for (const char *p = cfg->entry; *p && used < sizeof plain - 2;) {
		if (p[0] != '$' || p[1] != '{') {
			plain[used++] = *p++;
			continue;
		}
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
		if (!found)
			ld_error(L, cfg->entry_at, "kernel entry '%s': '%.*s' is not a parameter of the space", cfg->entry,
			       (int)(end - p - 2), p + 2);
		plain[used++] = '0'; /* a value's digits */
		p = end + 1;
	}
	plain[used] = 0;
	if (!ld_is_identifier(plain)) {
		ld_error(L, cfg->entry_at, "kernel entry '%s' does not make a C identifier", cfg->entry);
		return;
	}
	for (size_t i = 0; i < cfg->nparams; i++)
		for (size_t v = 0; cfg->params[i].is_entry && v < cfg->params[i].nvalues; v++) {
			value x = cfg->params[i].values[v];
			char text[64];
			if (x.kind == VAL_INT && x.u.i >= 0)
				continue;
			value_format(x, text, sizeof text);
			ld_error(L, cfg->entry_at, "kernel entry '%s' does not make a C identifier for %s = %s", cfg->entry,
			       cfg->params[i].name, text);
			break;
		}
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
