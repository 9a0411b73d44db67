/* param_types.h: a C++ kernel's parameter types from its mangled name, checked against the
 * config's arguments (signature.c checks their sizes from the cubin first). */
#ifndef AUTOTUNE_PARAM_TYPES_H
#define AUTOTUNE_PARAM_TYPES_H

#include <stddef.h>

#include "config.h"
#include "elem.h"

/* A parameter: its element type (the pointee's for a pointer; -1 when the name does not say one
 * autotune has: void, a struct of the program's) and how many pointers lead to it. */
typedef struct {
	int elem;
	int pointers;
} param_type;

/* The parameters of the function `symbol` mangles, at most max, into types: their count, or -1
 * when the name is not one whose types this reads (extern "C", a template, a nested name). */
int param_types(const char *symbol, param_type *types, size_t max);
/* Whether an argument of type arg (an array, or a scalar) may be passed as p. */
int param_type_fits(elem_type arg, int is_array, param_type p);
/* The first of the arguments idx[0..n) that the mangled symbol's parameter does not take, said
 * with its place in *at; NULL when all fit or the name says nothing. Caller frees. */
char *param_types_mismatch(const config *cfg, const int *idx, size_t n, const char *entry, const char *symbol, mark *at);

#endif
