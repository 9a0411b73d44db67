/* sizes.h: results of several instances (problem sizes) in the report and in `show`: each
 * instance's winner and time against its size, and what each instance would lose with another
 * instance's winner (the cost of tuning one size only). */
#ifndef AUTOTUNE_SIZES_H
#define AUTOTUNE_SIZES_H

#include <stdio.h>

#include "selector.h"
#include "view.h"

/* The time (ms) at instance i of instance j's winner: the row of instance i with the same
 * parameter values, when it passed; NAN otherwise (not measured there, or failed). */
double sizes_cross_time(const view *v, const instance_view *iv, size_t i, size_t j);

/* The report's section: a plot of the winners' times against the problem size (the product of
 * the constants), labelled with each winner, and the table of losses. Nothing for results of one
 * problem. */
void sizes_report(FILE *f, const view *v);

/* The report's facts for results of several problem sizes: a row naming each size's winner, in
 * place of one winner and a "why" that would weigh one size's rows against another's. 1 when
 * written; 0 for results of one problem. */
int sizes_facts(FILE *f, const view *v);

/* The same as text, after show's table. */
void sizes_show(FILE *out, const view *v);

#endif
