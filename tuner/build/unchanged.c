/* unchanged.c: compile-time parameters that change nothing. Every configuration of such a
 * parameter compiles to the same code, so the space multiplies identical kernels; the usual
 * cause is a kernel that defines its parameters itself (`#ifndef kernel_tuner` then `#define
 * block_size_x 16`), so that -Dblock_size_x=V never reaches the code. Found from the binaries:
 * builds that differ in the parameter alone and have the same code hash (cubin_code_hash). */
#include "unchanged.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "diag.h"
#include "banned.h"

/* A built binary, ordered by its compile-time values other than `skip`, then its code. */
typedef struct {
	const config *cfg;
	const value *v;
	size_t skip;
	const char *code;
} build_key;

static int value_cmp(value a, value b)
{
	if (a.kind != b.kind)
		return a.kind < b.kind ? -1 : 1;
	if (a.kind == VAL_INT)
		return (a.u.i > b.u.i) - (a.u.i < b.u.i);
	return (a.u.f > b.u.f) - (a.u.f < b.u.f);
}

/* The other compile-time values of x and y, compared. */
static int others_cmp(const build_key *x, const build_key *y)
{
	for (size_t i = 0; i < x->cfg->nparams; i++) {
		const param *p = &x->cfg->params[i];
		int c;
		if (i != x->skip && param_is_compile_time(p) && (c = value_cmp(x->v[i], y->v[i])))
			return c;
	}
	return 0;
}

static int by_others_then_code(const void *a, const void *b)
{
	const build_key *x = a, *y = b;
	int c = others_cmp(x, y);
	return c ? c : strcmp(x->code, y->code);
}

int param_unchanged(const config *cfg, const space *s, const build *b, size_t i)
{
	const param *p = &cfg->params[i];
	if (!(p->is_define || p->is_pragma || p->is_srcdef))
		return 0;
	build_key *keys = xcalloc(b->nbins + 1, sizeof *keys);
	size_t n = 0;
	for (size_t k = 0; k < b->nbins; k++)
		if ((long long)k != b->ref_bin && !b->bins[k].failed && b->bins[k].code[0])
			keys[n++] = (build_key){cfg, space_config(s, b->bins[k].first_config), i, b->bins[k].code};
	qsort(keys, n, sizeof *keys, by_others_then_code);
	/* runs of builds alike in every other compile-time value: distinct builds, so they differ in
	 * this one; sorted by code, a run whose ends agree is all one code */
	int pairs = 0, differs = 0;
	for (size_t start = 0, end; start < n; start = end) {
		for (end = start + 1; end < n && others_cmp(&keys[start], &keys[end]) == 0; end++)
			;
		if (end - start >= 2) {
			pairs = 1;
			differs |= strcmp(keys[start].code, keys[end - 1].code) != 0;
		}
	}
	free(keys);
	return pairs && !differs;
}

/* The line of the source that defines name itself (`#define name`), or 0. */
static int defined_at(const char *source, const char *name)
{
	FILE *f = fopen(source, "r");
	if (!f)
		return 0;
	char *line = NULL;
	size_t cap = 0, len = strlen(name), start, n;
	int at = 0;
	for (int no = 1; !at && getline(&line, &cap, f) > 0; no++)
		if (define_name(line, &start, &n) && n == len && !strncmp(line + start, name, len))
			at = no;
	free(line);
	fclose(f);
	return at;
}

void warn_unchanged_params(const config *cfg, const space *s, const build *b)
{
	for (size_t i = 0; i < cfg->nparams; i++) {
		if (!param_unchanged(cfg, s, b, i))
			continue;
		const param *p = &cfg->params[i];
		fprintf(stderr, "%s:%d:%d: warning: parameter '%s' changes nothing: builds that differ only in it compiled to "
				"identical code, so its values measure the same kernel; ",
			cfg->path, p->at.line, p->at.col, p->name);
		int line = p->is_define ? defined_at(cfg->source, p->name) : 0;
		if (line)
			fprintf(stderr, "%s:%d defines '%s' itself (#ifndef/#define?), so build.defines' -D%s=V does not reach "
					"the code\n",
				cfg->source, line, p->name, p->name);
		else if (p->is_define)
			fprintf(stderr, "the source likely sets it itself (#ifndef %s / #define %s in a header?) or never "
					"uses it, so build.defines' -D%s=V does not reach the code\n",
				p->name, p->name, p->name);
		else if (p->is_srcdef)
			fprintf(stderr, "the kernel's #define %s at %s:%d is replaced with each value, but the code never uses "
					"it where it matters\n",
				p->name, cfg->source, p->is_srcdef);
		else
			fprintf(stderr, "nvcc compiles every value of its #pragma unroll alike\n");
	}
}
