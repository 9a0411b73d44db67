/* compare.h: what the compare helper (worker_kernels.cu) leaves in the worker's counters block,
 * by index, for verify() (args.c) to read: one pass over an output and its reference. The figures
 * count the compared elements; the errors cover the mismatches that are not NaN. */
#ifndef AUTOTUNE_WORKER_COMPARE_H
#define AUTOTUNE_WORKER_COMPARE_H

enum {
	CMP_BAD,     /* elements that differ */
	CMP_FIRST,   /* the lowest differing index (~0: none) */
	CMP_LAST,    /* the highest */
	CMP_MAX_ABS, /* the largest absolute error, a double's bits (non-negative: ordered as integers) */
	CMP_ARGMAX,  /* where: the error as a float's bits above, 2^32 - 1 - index below (n <= 2^32) */
	CMP_MAX_REL, /* the largest relative error where the reference is not zero, a double's bits */
	CMP_GOT_NAN,
	CMP_GOT_INF,
	CMP_REF_NAN,
	CMP_REF_INF,
	CMP_REF_ZERO,
	CMP_COUNT
};

/* the counters block's words: the compare's, and no fewer than the sum helper's four */
#define COUNTER_WORDS 16

#endif
