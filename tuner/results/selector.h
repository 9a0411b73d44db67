/* selector.h: the results of several instances (a joined CSV, instances.h) read back per instance,
 * and the tuned header that selects among them: a table of each instance's winner, NAME_select()
 * that returns the tuned instance's values or the nearest tuned one (in log scale), and a build
 * per variant where winners differ in compile-time values. */
#ifndef AUTOTUNE_SELECTOR_H
#define AUTOTUNE_SELECTOR_H

#include <stddef.h>

#include "diag.h"
#include "table.h"

/* A results table's instances: the constants' columns, and per instance its values and winner. */
typedef struct {
	int col;            /* the instance column (its number), -1: the results are of one problem */
	size_t nnames;      /* the constants: the columns after it */
	char **names;       /* into the table */
	size_t ninst;       /* instances 1..ninst */
	double *vals;       /* ninst * nnames; NAN where an instance has no row */
	long long *winner;  /* per instance its winner's row, -1: none */
} instance_view;

/* The view of t: 0 (col -1 when t has no instance column), or -1 with the reason in d (an instance
 * number or a constant that is not a positive number). */
int instance_view_of(const table *t, instance_view *v, diags *d);
void instance_view_free(instance_view *v);
/* The instance (0-based) of row r, -1 when it has none. */
long instance_of_row(const instance_view *v, const table *t, size_t r);
/* "n=1024 m=64" of instance i. Caller frees. */
char *instance_view_label(const instance_view *v, size_t i);

/* The nearest tuned instance to want (nnames values): the least sum over the constants of
 * (ln want - ln tuned)^2, the first of equals, among instances with a winner; -1 when none has
 * one or a value is not positive. */
long selector_pick(const instance_view *v, const double *want);

/* The tuned header (and make fragment) of results with instances, when csvs are such results:
 * an exit status as header_write's; -1 when they are not (header.c writes them). */
int selector_header(char *const *csvs, size_t n, const char *config_path, const char *name, const char *out,
		    diags *d);

#endif
