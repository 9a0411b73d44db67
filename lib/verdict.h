/* verdict.h: the one-line verdict on an output that differs from its reference, worded from what
 * the worker's compare helper found (worker/compare.h): how many values differ and where, the
 * largest errors, NaN and Inf on either side, and whether the reference itself looks wrong. The
 * worker and the fake worker word it alike from here. */
#ifndef AUTOTUNE_VERDICT_H
#define AUTOTUNE_VERDICT_H

#include <stddef.h>

typedef struct {
	/* the output */
	int arg;                /* its index, from 0 */
	const char *name;       /* or NULL */
	int is_float, lanes;    /* its base type; components per element (vector types: 2 to 4) */
	int given;              /* its reference is given values (verify.expect, expected, host) */
	unsigned long long n;   /* values of the base type, every stride-th of them compared */
	unsigned long long stride;
	/* what differed */
	unsigned long long bad, first, last; /* how many, the lowest and highest index (of values) */
	int finite_error;       /* some differing value has a finite error: max_abs holds */
	double max_abs, max_rel; /* max_rel 0: none (the reference was 0 wherever they differ) */
	long long argmax;       /* the value of max_abs, -1: not known */
	const char *got_at, *want_at; /* the output's and the reference's value there, as text */
	/* over every compared value */
	unsigned long long got_nan, got_inf, ref_nan, ref_inf, ref_zero;
} verdict;

/* The verdict as one line (no newline) in msg. */
void verdict_text(const verdict *v, char *msg, size_t len);

#endif
