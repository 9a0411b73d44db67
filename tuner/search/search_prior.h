/* search_prior.h: a prior that knows its limits. The model strategy ranks configurations by a
 * prior (lower is more promising): the built-in static model's, or a transfer's, the times of a
 * recording of the same kernel on another GPU or size. Either is checked against the first
 * measurements (search_prior_agreement) and set aside when it ranks them badly. Pure arithmetic
 * over arrays: the search (search_model.c) and the readers of recordings (replay.c) call it. */
#ifndef AUTOTUNE_SEARCH_PRIOR_H
#define AUTOTUNE_SEARCH_PRIOR_H

#include <stddef.h>

/* A transfer's prior over n configurations: those the other recording timed, by its time (fastest
 * first), ties by the built-in model; then those it lacks (NAN), by the model; last those that
 * failed there (INFINITY), by the model. model may be NULL (space order). Caller frees. */
double *search_prior_transfer(const double *other, const double *model, size_t n);

/* How the prior agrees with what was measured, over the n configurations of order: the pairs it
 * orders as their times do, less those it orders the other way, over the pairs that it and the
 * times both tell apart (Kendall's tau, a failure slower than any time), counting only the pairs
 * with at least one configuration the prior ranks at top or better (the picks it made: a prior is
 * worth its best, and a built-in model's many ties below its best tell nothing; INFINITY: every
 * pair): 1 the same order, -1 reversed, about 0 a prior that knows nothing. *pairs (or NULL)
 * receives how many pairs counted. */
double search_prior_agreement(const double *prior, const double *time, const size_t *order, size_t n, double top,
			      size_t *pairs);

/* Whether the prior is to be set aside: of the n configurations of order, those it ranks at top
 * or better (its picks: at least 2) all ran slower than every one of the others (at least 3; a
 * failure slower than any time). One ranked the wrong way round (a transfer reversed) has every
 * pick among the slowest; the built-in model on the convolution space, whose first picks are
 * about the median of the draws and whose later ones hold the optimum, is kept (with the median
 * as the bar it was set aside in 5 of 30 seeds there and its score fell from 0.92 to 0.71; with
 * the upper quartile, GEMM's fell from 0.54 to 0.50); one that knows nothing is set aside now and
 * then, and is otherwise left to its picks' record (search_model.c's credit). */
int search_prior_misleads(const double *prior, const double *time, const size_t *order, size_t n, double top);

#endif
