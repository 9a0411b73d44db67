/* elem.h: element types of kernel arguments, shared by the config loader and the worker. CUDA's
 * vector types (float2, int4, double3 ...) are arrays of their base type to everything that
 * fills, compares or sums them: only their size and lane count differ. */
#ifndef AUTOTUNE_ELEM_H
#define AUTOTUNE_ELEM_H

#include <stddef.h>
#include <string.h>

#include "expr.h"

typedef enum {
	ELEM_INT8, ELEM_INT16, ELEM_INT32, ELEM_INT64,
	ELEM_UINT8, ELEM_UINT16, ELEM_UINT32, ELEM_UINT64,
	ELEM_FLOAT, ELEM_DOUBLE,
	/* vector types */
	ELEM_INT2, ELEM_INT3, ELEM_INT4, ELEM_UINT2, ELEM_UINT3, ELEM_UINT4,
	ELEM_FLOAT2, ELEM_FLOAT3, ELEM_FLOAT4, ELEM_DOUBLE2, ELEM_DOUBLE3, ELEM_DOUBLE4,
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
};

static inline const char *elem_name(elem_type t) { return elem_info[t].name; }
static inline size_t elem_size(elem_type t) { return elem_info[t].size; }
static inline int elem_is_float(elem_type t) { return elem_info[t].is_float; }
static inline elem_type elem_base(elem_type t) { return elem_info[t].base; }
static inline int elem_lanes(elem_type t) { return elem_info[t].lanes; }

/* 0 and *t set when name is a known type. */
static inline int elem_parse(const char *name, elem_type *t)
{
	for (int i = 0; i < ELEM_COUNT_; i++)
		if (!strcmp(name, elem_info[i].name)) {
			*t = (elem_type)i;
			return 0;
		}
	return -1;
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
	default: memcpy(p, &ll, elem_size(b)); break; /* little-endian: the low bytes */
	}
}

#endif
