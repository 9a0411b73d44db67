/* scope.h: the expressions a config writes (lib/expr.h parses them), each with its place in the
 * file, and their evaluation in a config's scope: its constants, then a configuration's
 * parameters, or an element's index and lane. config_expr.c evaluates them. */
#ifndef AUTOTUNE_SCOPE_H
#define AUTOTUNE_SCOPE_H

#include "diag.h"
#include "expr.h"

typedef struct {
	int line, col; /* 1-based */
} mark;

/* An expression together with where it was written. */
typedef struct {
	expr *e;
	mark at;
} cexpr;

typedef struct config config;

/* Name lookup for expressions: constants, then the parameter values given (may be NULL). */
typedef struct {
	const config *cfg;
	const value *params;
} scope;
int scope_lookup(void *ctx, const char *name, value *out);

/* Evaluates an expression written in the config; on error adds "file:line:col: msg" to d.
 * what_for, when not NULL, names the configuration the failure concerns. */
int cexpr_eval(const config *cfg, const cexpr *x, const value *params, value *out, diags *d,
	       const char *what_for);

/* Evaluates an element expression (fill: {expr}, verify.expect) for element i, lane lane. */
int element_eval(const config *cfg, const cexpr *x, long long i, int lane, value *out);

#endif
