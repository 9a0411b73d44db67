/* config_source.c: what the config takes from the kernel source and the entry's name: which
 * parameters `#pragma unroll NAME` uses, which the source #defines itself, and the ${param}
 * placeholders of a templated entry. */
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

/* A parameter that the source #defines itself and that build.defines does not pass: its values
 * never reach the code (under `#ifndef NAME` the default is compiled, else the source's value),
 * while the launch or a constraint still varies with it. Said at the source's line. */
static void warn_defined_in_source(loader *L, const int *line_of)
{
	const config *cfg = L->cfg;
	for (size_t i = 0; i < cfg->nparams; i++) {
		const param *p = &cfg->params[i];
		if (!line_of[i] || p->is_define || p->is_pragma || p->is_entry || p->is_maxreg)
			continue;
		diags_at(&L->cfg->warnings, cfg->source, line_of[i], 1,
			 "warning: the kernel defines '%s' itself, but it is not in build.defines of %s, so the space's "
			 "values of '%s' never reach the code (it compiles with this #define, whatever %s's value); "
			 "add %s to build.defines",
			 p->name, L->file, p->name, p->name, p->name);
	}
}

/* nvcc does not macro-expand `#pragma unroll NAME` (NVRTC does): the compile stage rewrites the
 * pragma in a private copy of the source. Here: which parameters it names (they become
 * compile-time) and whether any rewriting is needed. */
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
	int *defined = xcalloc(cfg->nparams + 1, sizeof *defined), no = 1;
	for (char *line = text, *next; line < text + n; line = next, no++) {
		char *nl = memchr(line, '\n', (size_t)(text + n - line));
		next = nl ? nl + 1 : text + n;
		if (nl)
			*nl = 0;
		if (define_name(line, &start, &len))
			for (size_t i = 0; i < cfg->nparams; i++)
				if (!defined[i] && strlen(cfg->params[i].name) == len && !strncmp(cfg->params[i].name, line + start, len))
					defined[i] = no;
		if (!pragma_unroll_name(line, &start, &len))
			continue;
		for (size_t i = 0; i < cfg->nparams; i++)
			if (strlen(cfg->params[i].name) == len && !strncmp(cfg->params[i].name, line + start, len))
				cfg->params[i].is_pragma = cfg->rewrite_pragmas = 1;
		for (size_t i = 0; i < cfg->nconstants; i++)
			if (strlen(cfg->constants[i].name) == len && !strncmp(cfg->constants[i].name, line + start, len))
				cfg->rewrite_pragmas = 1;
	}
	if (!L->quiet && !L->errors)
		warn_defined_in_source(L, defined);
	free(defined);
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
