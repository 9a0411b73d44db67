/* view.h: what `report` and `show` both derive from a results CSV: the deciding time of each row,
 * the winner (flagged, or chosen again with the file's policy, the default for older files) and
 * why it won by that policy, the counts per status. */
#ifndef AUTOTUNE_VIEW_H
#define AUTOTUNE_VIEW_H

#include <stdio.h>

#include "diag.h"
#include "select.h"
#include "table.h"

typedef struct {
	table t;
	result *res;             /* table_results(&t) */
	select_policy policy;    /* the file's (table_policy), else the default */
	int policy_recorded;     /* the file records it (newer files) */
	choice pick;             /* select_winner's answer under that policy */
	long long winner;        /* the winning row, -1 when none passed */
	int winner_flagged;      /* the CSV itself marks it (newer files) */
	size_t counts[ST_COUNT_];
	size_t unknown_status;   /* rows whose status is none of status.h's names */
	size_t unlisted;         /* configurations of the space the file has no row for: not run (a search's) */
	int dry;                 /* a dry run's: nothing ran, something compiled (the binaries' data only) */
} view;

/* Loads and interprets path; -1 with "file:line: reason" in d. */
int view_load(const char *path, view *v, diags *d);
void view_free(view *v);

/* Ran, verified and timed. */
int view_passed(const view *v, size_t row);
/* The time that decides (finalist median when re-timed), ms; NAN when the row did not pass. */
double view_time(const view *v, size_t row);
/* What ranks the row, smaller better: select.objective's score where the file's policy has one
 * (INFINITY where the row has no value), else the deciding time; NAN when the row did not pass. */
double view_rank(const view *v, size_t row);
/* The noise of that time, %; NAN when unknown. */
double view_noise(const view *v, size_t row);
/* Occupancy in %: achieved when counters were read, else theoretical; NAN when unknown. */
double view_occupancy(const view *v, size_t row);
/* 1 when view_occupancy(row) is the achieved one. */
int view_occupancy_achieved(const view *v, size_t row);
/* The named column as a number; NAN when empty or absent. */
double view_num(const view *v, size_t row, const char *column);
/* A dry run's figure of a row: theoretical occupancy in % for a row that compiled; NAN otherwise. */
double view_dry_occupancy(const view *v, size_t row);
/* Shared memory per block in bytes, static (ptxas) and dynamic (the launch's) together; NAN when
 * unknown. */
double view_smem(const view *v, size_t row);
/* The row's status name as the CSV spells it. */
const char *view_status(const view *v, size_t row);
/* "p1=v1 p2=v2" over the parameter columns (blockDim.x/y when the file has none); caller frees. */
char *view_describe(const view *v, size_t row);
/* One sentence on why the winner won, by the file's policy, or NULL when there is none; caller
 * frees. */
char *view_why(const view *v);
/* The policy in words: "the fastest policy", or "the default balanced policy (the file records
 * none)"; caller frees. */
char *view_policy(const view *v);
/* The distinct non-empty values of a column joined by ", " (NULL when none); caller frees. */
char *view_distinct(const view *v, const char *column);

/* Row indices sorted by view_rank (the deciding time without an objective), passing rows first,
 * ties in file order; of a dry run, by theoretical occupancy, highest first; caller frees. */
size_t *view_by_time(const view *v);

#endif
