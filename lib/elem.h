/* elem.h: element types of kernel arguments, shared by the config loader and the worker. CUDA's
 * vector types (float2, int4, double3 ...) are arrays of their base type to everything that
 * fills, compares or sums them: only their size and lane count differ. */
#ifndef AUTOTUNE_ELEM_H
#define AUTOTUNE_ELEM_H

#include <stddef.h>
#include <string.h>

#include "expr.h"
#include "half.h"

typedef enum {
	ELEM_INT8, ELEM_INT16, ELEM_INT32, ELEM_INT64,
	ELEM_UINT8, ELEM_UINT16, ELEM_UINT32, ELEM_UINT64,
	ELEM_FLOAT, ELEM_DOUBLE,
	/* vector types */
	ELEM_INT2, ELEM_INT3, ELEM_INT4, ELEM_UINT2, ELEM_UINT3, ELEM_UINT4,
	ELEM_FLOAT2, ELEM_FLOAT3, ELEM_FLOAT4, ELEM_DOUBLE2, ELEM_DOUBLE3, ELEM_DOUBLE4,
	/* 16-bit floats (half.h) and their pairs */
	ELEM_HALF, ELEM_BFLOAT16, ELEM_HALF2, ELEM_BFLOAT162,
	ELEM_COUNT_
} elem_type;

static const struct {
	const char *name;
	size_t size;   /* bytes of one element: a whole vector */
	int is_float;
	elem_type base;
	int lanes;
} elem_info[ELEM_COUNT_] = {
	[ELEM_INT8] = {"int8", 1, 0, ELEM_INT8, 1},         [ELEM_INT16] = {"int16", 2, 0, ELEM_INT16, 1},
	[ELEM_INT32] = {"int32", 4, 0, ELEM_INT32, 1},      [ELEM_INT64] = {"int64", 8, 0, ELEM_INT64, 1},
	[ELEM_UINT8] = {"uint8", 1, 0, ELEM_UINT8, 1},      [ELEM_UINT16] = {"uint16", 2, 0, ELEM_UINT16, 1},
	[ELEM_UINT32] = {"uint32", 4, 0, ELEM_UINT32, 1},   [ELEM_UINT64] = {"uint64", 8, 0, ELEM_UINT64, 1},
	[ELEM_FLOAT] = {"float", 4, 1, ELEM_FLOAT, 1},      [ELEM_DOUBLE] = {"double", 8, 1, ELEM_DOUBLE, 1},
	[ELEM_INT2] = {"int2", 8, 0, ELEM_INT32, 2},        [ELEM_INT3] = {"int3", 12, 0, ELEM_INT32, 3},
	[ELEM_INT4] = {"int4", 16, 0, ELEM_INT32, 4},       [ELEM_UINT2] = {"uint2", 8, 0, ELEM_UINT32, 2},
	[ELEM_UINT3] = {"uint3", 12, 0, ELEM_UINT32, 3},    [ELEM_UINT4] = {"uint4", 16, 0, ELEM_UINT32, 4},
	[ELEM_FLOAT2] = {"float2", 8, 1, ELEM_FLOAT, 2},    [ELEM_FLOAT3] = {"float3", 12, 1, ELEM_FLOAT, 3},
	[ELEM_FLOAT4] = {"float4", 16, 1, ELEM_FLOAT, 4},   [ELEM_DOUBLE2] = {"double2", 16, 1, ELEM_DOUBLE, 2},
	[ELEM_DOUBLE3] = {"double3", 24, 1, ELEM_DOUBLE, 3}, [ELEM_DOUBLE4] = {"double4", 32, 1, ELEM_DOUBLE, 4},
	[ELEM_HALF] = {"half", 2, 1, ELEM_HALF, 1},         [ELEM_BFLOAT16] = {"bfloat16", 2, 1, ELEM_BFLOAT16, 1},
	[ELEM_HALF2] = {"half2", 4, 1, ELEM_HALF, 2},       [ELEM_BFLOAT162] = {"bfloat162", 4, 1, ELEM_BFLOAT16, 2},
};

/* CUDA's spellings of the 16-bit types, taken as the names above */
static const struct {
	const char *alias;
	elem_type t;
} elem_aliases[] = {
	{"__half", ELEM_HALF}, {"__nv_bfloat16", ELEM_BFLOAT16}, {"__half2", ELEM_HALF2}, {"__nv_bfloat162", ELEM_BFLOAT162},
};

static inline const char *elem_name(elem_type t) { return elem_info[t].name; }
static inline size_t elem_size(elem_type t) { return elem_info[t].size; }
static inline int elem_is_float(elem_type t) { return elem_info[t].is_float; }
static inline elem_type elem_base(elem_type t) { return elem_info[t].base; }
static inline int elem_lanes(elem_type t) { return elem_info[t].lanes; }

/* 0 and *t set when name is a known type (or CUDA's name of a 16-bit one). */
static inline int elem_parse(const char *name, elem_type *t)
{
	for (int i = 0; i < ELEM_COUNT_; i++)
		if (!strcmp(name, elem_info[i].name)) {
			*t = (elem_type)i;
			return 0;
		}
	for (size_t i = 0; i < sizeof elem_aliases / sizeof *elem_aliases; i++)
		if (!strcmp(name, elem_aliases[i].alias)) {
			*t = elem_aliases[i].t;
			return 0;
		}
	return -1;
}

/* The gap between 1 and the next value of a float type's base (2^-10 for half, 2^-7 for
 * bfloat16, 2^-23 float, 2^-52 double); 0 for integers. */
static inline double elem_epsilon(elem_type t)
{
	elem_type b = elem_info[t].base;
	return b == ELEM_HALF ? 1.0 / 1024 : b == ELEM_BFLOAT16 ? 1.0 / 128 : b == ELEM_FLOAT ? 1.0 / 8388608 :
	       b == ELEM_DOUBLE ? 1.0 / 4503599627370496.0 : 0;
}

/* verify's tolerances for an output of type t when the config sets none (docs/config.md): a
 * 16-bit float's result rounded from float differs by an ulp or so between two orders of
 * summation, so it passes at two epsilons relative and 1e-5 absolute (torch.testing's choice for
 * half); float and double at 1e-5 and 1e-8. */
static inline double elem_default_rtol(elem_type t)
{
	elem_type b = elem_info[t].base;
	return b == ELEM_HALF || b == ELEM_BFLOAT16 ? 2 * elem_epsilon(t) : 1e-5;
}
static inline double elem_default_atol(elem_type t)
{
	elem_type b = elem_info[t].base;
	return b == ELEM_HALF || b == ELEM_BFLOAT16 ? 1e-5 : 1e-8;
}

/* An integer as a double rounded to odd (the last bit kept set when bits are dropped): rounded
 * again to a 16-bit float it gives what rounding the integer itself would (53 >= 2 x 11 + 2 bits),
 * where a double rounded to nearest could land on a tie that the integer is not. */
static inline double elem_int_to_odd(long long i)
{
	unsigned long long u = i < 0 ? 0ull - (unsigned long long)i : (unsigned long long)i, sticky = 0;
	int shift = 0;
	while (u >> 53) {
		sticky |= u & 1;
		u >>= 1;
		shift++;
	}
	double d = (double)(u | sticky) * (double)(1ull << shift);
	return i < 0 ? -d : d;
}

/* Stores v as one element of the base type b at p (an expression's value: fills, expectations). */
static inline void elem_put(unsigned char *p, elem_type b, value v)
{
	double d = value_as_double(v);
	long long ll = v.kind == VAL_INT ? v.u.i : (long long)d;
	float f = (float)d;
	switch (b) {
	case ELEM_FLOAT: memcpy(p, &f, 4); break;
	case ELEM_DOUBLE: memcpy(p, &d, 8); break;
	case ELEM_HALF:
	case ELEM_BFLOAT16: {
		double x = v.kind == VAL_INT ? elem_int_to_odd(v.u.i) : d;
		uint16_t h = b == ELEM_HALF ? half_from_double(x) : bf16_from_double(x);
		memcpy(p, &h, 2);
		break;
	}
	default: memcpy(p, &ll, elem_size(b)); break; /* little-endian: the low bytes */
	}
}

#endif
