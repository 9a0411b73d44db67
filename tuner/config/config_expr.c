/* config_expr.c: expressions of a config: the names they may use, checked once at load, and
 * their evaluation (scope.h) for a configuration (constants, then parameters) or an element. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_load.h"
#include "banned.h"

/* Expressions are checked for unknown names once, at load, against constants and (where
 * allowed) parameters, so a typo is reported before anything runs. */
typedef struct {
	loader *L;
	const cexpr *x;
	int allow_params;
	const char *what;
	int bad; /* a name reported, or a failed constant */
} name_check;

typedef struct {
	loader *L;
	const cexpr *x;
	const char *what;
} element_check;

void ld_constant_failed(loader *L, const char *name)
{
	L->failed = xrealloc(L->failed, (L->nfailed + 1) * sizeof *L->failed);
	L->failed[L->nfailed++] = xstrdup(name);
}

static int failed_constant(const loader *L, const char *name)
{
	for (size_t i = 0; i < L->nfailed; i++)
		if (!strcmp(L->failed[i], name))
			return 1;
	return 0;
}

typedef struct {
	const config *cfg;
	long long il[2];
} element_scope;

int scope_lookup(void *ctx, const char *name, value *out)
{
	const scope *s = ctx;
	for (size_t i = 0; i < s->cfg->nconstants; i++)
		if (!strcmp(s->cfg->constants[i].name, name)) {
			*out = s->cfg->constants[i].v;
			return 0;
		}
	if (s->params)
		for (size_t i = 0; i < s->cfg->nparams; i++)
			if (!strcmp(s->cfg->params[i].name, name)) {
				*out = s->params[i];
				return 0;
			}
	return -1;
}

int cexpr_eval(const config *cfg, const cexpr *x, const value *params, value *out, diags *d, const char *what_for)
{
	scope s = {cfg, params};
	expr_error ee;
	int rc = expr_eval(x->e, scope_lookup, &s, out, &ee);
	if (rc == 0 && out->kind != VAL_STR)
		return 0;
	if (rc == 0) { /* a string parameter's value compares (T == "float"); it is no size or count */
		snprintf(ee.msg, sizeof ee.msg, "'%.60s' is the string \"%.40s\", where a number is needed",
			 expr_source(x->e), out->u.s);
		ee.offset = 0;
	}
	if (what_for)
		diags_at(d, cfg->path, x->at.line, x->at.col + ee.offset, "%s (for %s)", ee.msg, what_for);
	else
		diags_at(d, cfg->path, x->at.line, x->at.col + ee.offset, "%s", ee.msg);
	return -1;
}

static int check_name(void *ctx, const char *name, int offset)
{
	name_check *c = ctx;
	config *cfg = c->L->cfg;
	for (size_t i = 0; i < cfg->nconstants; i++)
		if (!strcmp(cfg->constants[i].name, name))
			return 0;
	for (size_t i = 0; i < cfg->nparams; i++)
		if (!strcmp(cfg->params[i].name, name)) {
			if (c->allow_params)
				return 0;
			mark m = {c->x->at.line, c->x->at.col + offset};
			ld_error(c->L, m, "%s may use constants only, but '%s' is a parameter", c->what, name);
			c->bad = 1;
			return 0;
		}
	c->bad = 1;
	if (failed_constant(c->L, name))
		return 0;
	mark m = {c->x->at.line, c->x->at.col + offset};
	ld_error(c->L, m, "unknown name '%s' in %s", name, c->what);
	return 0;
}

int ld_check_names(loader *L, const cexpr *x, int allow_params, const char *what)
{
	if (!x->e)
		return 0;
	name_check c = {.L = L, .x = x, .allow_params = allow_params, .what = what};
	expr_foreach_name(x->e, check_name, &c);
	return c.bad ? -1 : 0;
}

/* Evaluates an expression that may use constants only, at load time. */
int ld_eval_const(loader *L, const cexpr *x, const char *what, value *out)
{
	if (ld_check_names(L, x, 0, what))
		return -1;
	if (cexpr_eval(L->cfg, x, NULL, out, L->d, NULL)) {
		L->errors++;
		return -1;
	}
	return 0;
}

/* Element expressions may use the element index i, the vector lane and constants. */
static int element_lookup(void *ctx, const char *name, value *out)
{
	const long long *il = ctx;
	if (!strcmp(name, "i")) {
		*out = value_int(il[0]);
		return 0;
	}
	if (!strcmp(name, "lane")) {
		*out = value_int(il[1]);
		return 0;
	}
	return -1;
}

static int check_element_name(void *ctx, const char *name, int offset)
{
	element_check *c = ctx;
	if (!strcmp(name, "i") || !strcmp(name, "lane"))
		return 0;
	for (size_t k = 0; k < c->L->cfg->nconstants; k++)
		if (!strcmp(c->L->cfg->constants[k].name, name))
			return 0;
	if (failed_constant(c->L, name))
		return 0;
	mark m = {c->x->at.line, c->x->at.col + offset};
	ld_error(c->L, m, "unknown name '%s' in %s (it may use i, lane and constants)", name, c->what);
	return 0;
}

void ld_check_element_names(loader *L, const cexpr *x, const char *what)
{
	element_check c = {L, x, what};
	expr_foreach_name(x->e, check_element_name, &c);
}

static int element_scope_lookup(void *ctx, const char *name, value *out)
{
	element_scope *s = ctx;
	if (element_lookup(s->il, name, out) == 0)
		return 0;
	scope sc = {s->cfg, NULL};
	return scope_lookup(&sc, name, out);
}

int element_eval(const config *cfg, const cexpr *x, long long i, int lane, value *out)
{
	element_scope s = {cfg, {i, lane}};
	expr_error ee;
	return expr_eval(x->e, element_scope_lookup, &s, out, &ee) || out->kind == VAL_STR ? -1 : 0;
}
