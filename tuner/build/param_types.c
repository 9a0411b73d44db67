/* param_types.c: a C++ kernel's parameter types, read from its Itanium-mangled name (the cubin
 * records only their sizes): _Z10axpy_half2P7__half2PKS_S2_6__halfi is (__half2 *, const __half2 *,
 * const __half2 *, __half, int). The functions whose names say their types plainly are read: a
 * plain name, then builtins, pointers, const and volatile, named types (CUDA's __half, float4)
 * and substitutions of them; anything else (a template, a nested name, a function pointer) is
 * not, and nothing is checked. An extern "C" kernel's name says nothing. */
#include "param_types.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "banned.h"

/* Substitution candidates in the order the mangling defines them (S_, S0_, S1_ ...). */
#define MAX_SUBS 64

typedef struct {
	const char *p;
	param_type subs[MAX_SUBS];
	int nsubs, bad;
} reader;

static void add_sub(reader *R, param_type t)
{
	if (R->nsubs < MAX_SUBS)
		R->subs[R->nsubs++] = t;
	else
		R->bad = 1;
}

/* A builtin type's code: its element type, -1 for void (any pointee), -2 when not a builtin. */
static int builtin(char c)
{
	switch (c) {
	case 'v': return -1;
	case 'b': case 'h': return ELEM_UINT8;
	case 'c': case 'a': return ELEM_INT8;
	case 's': return ELEM_INT16;
	case 't': return ELEM_UINT16;
	case 'i': return ELEM_INT32;
	case 'j': return ELEM_UINT32;
	case 'l': case 'x': return ELEM_INT64;
	case 'm': case 'y': return ELEM_UINT64;
	case 'f': return ELEM_FLOAT;
	case 'd': return ELEM_DOUBLE;
	default: return -2;
	}
}

/* <length><identifier>: its element type if it names one (elem.h's names and CUDA's), else -1. */
static int source_name(reader *R)
{
	char *end;
	long len = strtol(R->p, &end, 10);
	if (len <= 0 || len > 200 || (long)strnlen(end, (size_t)len) < len) {
		R->bad = 1;
		return -1;
	}
	char name[204];
	memcpy(name, end, (size_t)len);
	name[len] = 0;
	R->p = end + len;
	elem_type t;
	return elem_parse(name, &t) == 0 ? (int)t : -1;
}

/* One <type> at R->p. */
static param_type read_type(reader *R)
{
	param_type t = {-1, 0};
	char c = *R->p;
	int b = builtin(c);
	if (b != -2) {
		R->p++;
		t.elem = b;
	} else if (!strncmp(R->p, "DF16_", 5) || !strncmp(R->p, "DF16b", 5)) {
		/* _Float16, std::bfloat16_t */
		t.elem = R->p[4] == '_' ? ELEM_HALF : ELEM_BFLOAT16;
		R->p += 5;
	} else if (!strncmp(R->p, "u6__bf16", 8)) {
		t.elem = ELEM_BFLOAT16;
		R->p += 8;
		add_sub(R, t);
	} else if (c == 'P' || c == 'K' || c == 'V' || c == 'r') {
		R->p++;
		t = read_type(R);
		t.pointers += c == 'P';
		add_sub(R, t);
	} else if (isdigit((unsigned char)c)) {
		t.elem = source_name(R);
		add_sub(R, t);
	} else if (c == 'S') {
		/* S_ the first candidate, S<base-36 number>_ those after it (St, Sa: std:: names, not read) */
		const char *q = R->p + 1;
		char *end;
		long k = 0;
		if (*q != '_') {
			if (!isdigit((unsigned char)*q) && !isupper((unsigned char)*q)) {
				R->bad = 1;
				return t;
			}
			k = strtol(q, &end, 36) + 1;
			q = end;
		}
		if (*q != '_' || k >= R->nsubs) {
			R->bad = 1;
			return t;
		}
		R->p = q + 1;
		t = R->subs[k];
	} else
		R->bad = 1;
	return t;
}

int param_types(const char *symbol, param_type *types, size_t max)
{
	reader R = {.p = symbol};
	if (strncmp(R.p, "_Z", 2))
		return -1;
	R.p += 2;
	if (!isdigit((unsigned char)*R.p))
		return -1;
	source_name(&R); /* the function's own name is no substitution candidate */
	if (R.bad || *R.p == 'I') /* a template: its parameters may be its arguments' types */
		return -1;
	size_t n = 0;
	if (!strcmp(R.p, "v")) /* no parameters */
		return 0;
	while (*R.p && *R.p != '.' && n < max && !R.bad)
		types[n++] = read_type(&R);
	return R.bad || (*R.p && *R.p != '.') ? -1 : (int)n;
}

/* Whether a kernel can read the argument's elements as the parameter's: the same size and kind
 * (an int32 array for unsigned * is the same bits; a half2 array for __half * is its halves), or
 * a 16-bit float given for a 16-bit integer (a kernel that takes a half's bits). */
static int compatible(elem_type arg, elem_type param)
{
	elem_type a = elem_base(arg), b = elem_base(param);
	if (elem_size(a) != elem_size(b))
		return 0;
	if (elem_is_float(a) && !elem_is_float(b))
		return elem_size(a) == 2;
	return elem_is_float(a) == elem_is_float(b) && (!elem_is_float(a) || a == b);
}

int param_type_fits(elem_type arg, int is_array, param_type p)
{
	if (p.elem < 0 || p.pointers > 1)
		return 1; /* void *, a type of its own, a pointer to pointers: nothing said */
	if (is_array != (p.pointers == 1))
		return 0;
	return compatible(arg, (elem_type)p.elem) && (is_array || elem_size(arg) == elem_size((elem_type)p.elem));
}

char *param_types_mismatch(const config *cfg, const int *idx, size_t n, const char *entry, const char *symbol, mark *at)
{
	param_type types[64];
	int known = symbol ? param_types(symbol, types, 64) : -1;
	for (size_t k = 0; known >= 0 && k < n && k < (size_t)known; k++) {
		const kernel_arg *a = &cfg->args[idx[k]];
		if (param_type_fits(a->type, a->is_array, types[k]))
			continue;
		*at = a->at;
		const char *t = elem_name(elem_base(a->type)), *p = elem_name((elem_type)types[k].elem);
		return xasprintf("argument '%s' is %s %s, but parameter %zu of kernel '%s' is %s%s (its mangled name %s says "
				 "so): declare '%s' with the type the kernel reads",
				 a->name, a->is_array ? "an array of" : "a scalar", a->is_array ? elem_name(a->type) : t, k + 1,
				 entry, p, types[k].pointers ? " *" : "", symbol, a->name);
	}
	return NULL;
}
