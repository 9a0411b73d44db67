/* import_py.h: the Python of T1 specs (restrictions, sizes, value lists) in autotune's expression
 * language, translated exactly or refused with the offset of what is not translated. */
#ifndef AUTOTUNE_IMPORT_PY_H
#define AUTOTUNE_IMPORT_PY_H

#include <stddef.h>

#include "expr.h"

typedef struct {
	/* a tuning parameter's values (NULL when `name` is none): max(NAME) and min(NAME) over them */
	const value *(*param_values)(void *ctx, const char *name, size_t *n);
	/* ProblemSize[i] in autotune's language (NULL when there is none) */
	const char *(*problem_size)(void *ctx, long i);
	void *ctx;
} py_env;

/* Why a translation failed: a message and the byte offset in the Python source. */
typedef struct {
	char msg[200];
	int at;
} py_error;

/* The autotune expression of a Python expression; NULL with *err when something in it has no
 * exact translation. The caller frees it. env may be NULL. */
char *py_translate(const char *src, const py_env *env, py_error *err);
/* The values of a Python list: a list literal, range(...), list(...) of either, or a list
 * comprehension over one, with an optional if. 0, or -1 with *err. *vals is the caller's. */
int py_values(const char *src, value **vals, size_t *n, py_error *err);

#endif
