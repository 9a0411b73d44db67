/* elem.h: element types of kernel arguments, shared by the config loader and the worker. */
#ifndef AUTOTUNE_ELEM_H
#define AUTOTUNE_ELEM_H

#include <stddef.h>
#include <string.h>

typedef enum {
	ELEM_INT8, ELEM_INT16, ELEM_INT32, ELEM_INT64,
	ELEM_UINT8, ELEM_UINT16, ELEM_UINT32, ELEM_UINT64,
	ELEM_FLOAT, ELEM_DOUBLE,
	ELEM_COUNT_
} elem_type;

static const struct {
	const char *name;
	size_t size;
	int is_float;
} elem_info[ELEM_COUNT_] = {
	[ELEM_INT8] = {"int8", 1, 0},     [ELEM_INT16] = {"int16", 2, 0},
	[ELEM_INT32] = {"int32", 4, 0},   [ELEM_INT64] = {"int64", 8, 0},
	[ELEM_UINT8] = {"uint8", 1, 0},   [ELEM_UINT16] = {"uint16", 2, 0},
	[ELEM_UINT32] = {"uint32", 4, 0}, [ELEM_UINT64] = {"uint64", 8, 0},
	[ELEM_FLOAT] = {"float", 4, 1},   [ELEM_DOUBLE] = {"double", 8, 1},
};

static inline const char *elem_name(elem_type t) { return elem_info[t].name; }
static inline size_t elem_size(elem_type t) { return elem_info[t].size; }
static inline int elem_is_float(elem_type t) { return elem_info[t].is_float; }

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

#endif
