/* select.h: picks the winning configuration from the measured ones and says why. */
#ifndef AUTOTUNE_SELECT_H
#define AUTOTUNE_SELECT_H

#include <stddef.h>

#include "result.h"
#include "select_policy.h"

/* Balance score in [0, 1]: the weighted mean of occupancy (achieved when counters were read,
 * else theoretical) and global load efficiency (1 when unknown). Higher is better. */
double balance_score(const result *r, const select_policy *p);

/* The same launch geometry (block, grid, shared memory, and a plan's streams, order and
 * connections), when known: results read from elsewhere may lack it. */
int same_shape(const result *a, const result *b);

typedef struct {
	long long winner;   /* -1 when no configuration passed */
	long long fastest;  /* the smallest median */
	size_t *tied;       /* configurations within the noise band of the fastest, winner included */
	size_t ntied;
} choice;

/* Balance scores this close are equal: achieved occupancy varies by tenths of a percent between
 * runs of the same kernel. */
#define BALANCE_TIE 0.01

/* Configurations of the fastest's launch shape (the same block, grid and shared memory, as
 * builds that differ only in compile-time parameters are) this close to it (relative) count as
 * tied with it: their order does not repeat between runs. 256x1 summatrix with register cap 0
 * and 32 on an H200 swapped places by up to 0.14% over ten runs, each run reading their noise as
 * 0.005-0.04%; shapes that differ (128x2, 0.06-0.3% behind) kept their order. */
#define SHAPE_TIE 0.0025

/* Balanced: among the configurations whose time is within the noise band of the fastest (or that
 * have its launch shape and are within SHAPE_TIE of it), those whose balance score is within
 * BALANCE_TIE of the best; of them the fastest, or the first in the space's order of the builds
 * of its launch shape within SHAPE_TIE of it. Fastest: the smallest time. Times are the
 * finalists' interleaved medians where there are some. With select.objective its score stands for
 * the time throughout (result_rank), and a configuration without one cannot win. Caller frees
 * with choice_free. */
void select_winner(const result *res, size_t n, const select_policy *p, choice *c);
/* Why tied configuration i (not the winner) lost, as select_winner decided: "lower balance",
 * "slower median", an equal median later in the space's order, and so on. */
const char *select_why_lost(const result *res, const choice *c, size_t i, const select_policy *p);
void choice_free(choice *c);

#endif
