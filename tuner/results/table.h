/* table.h: a CSV that autotune wrote, read back whole: the header's column names and every row's
 * fields as strings. `header`, `report`, `show` and `merge` all start from one of these, so a
 * results file is the only thing they need (older files without the newer columns still load). */
#ifndef AUTOTUNE_TABLE_H
#define AUTOTUNE_TABLE_H

#include <stddef.h>

#include "diag.h"
#include "result.h"
#include "select.h"

typedef struct {
	char *path;
	char **names;    /* ncols column names */
	size_t ncols;
	char **cells;    /* nrows * ncols fields, row-major; never NULL ("" when empty) */
	size_t nrows;
	size_t nparams;  /* the leading parameter columns: those before blockDim.x */
} table;

/* Why f (open at its start, rewound; a pipe is not looked at) is no UTF-8 text, or NULL: a UTF-16
 * or UTF-32 byte order mark, or a NUL byte among its first four. */
const char *table_not_utf8(FILE *f);

/* Reads an RFC 4180 file (CRLF or LF, quoted fields may hold commas, quotes and line breaks).
 * -1 with "file:line: reason" in d when it cannot be read, has no blockDim.x column or a row's
 * field count differs from the header's. */
int table_load(const char *path, table *t, diags *d);
/* The same, and with autotune_csv 0 also a CSV of other columns (no blockDim.x: nparams 0), as a
 * recording for --replay may be. */
int table_read(const char *path, int autotune_csv, table *t, diags *d);
void table_free(table *t);

/* The column's index, or -1 when the file has no such column. */
int table_col(const table *t, const char *name);
/* The same among the columns after the parameters: autotune's own, whatever a parameter is called. */
int table_fixed_col(const table *t, const char *name);
/* The field, or "" when col < 0. */
const char *table_get(const table *t, size_t row, int col);
/* The field as a number; NAN when empty, absent or not a number. */
double table_num(const table *t, size_t row, int col);
/* The field of the named column ("" when absent). */
const char *table_field(const table *t, size_t row, const char *name);

/* The rows as results (status, geometry, occupancy, times, noise, counters, throughput), enough
 * for select_winner and for reporting; messages are copied (free each, then the array). */
result *table_results(const table *t);
void table_results_free(result *res, size_t n);

/* The row whose flags mark it the run's winner, or -1. */
long long table_winner(const table *t);

/* The selection policy the file records (its policy column, of the first row that gives one) into
 * *p: 1; else 0 with *p the default (config_select_defaults): a file written before the column,
 * another tuner's, or a value that is not a policy. */
int table_policy(const table *t, select_policy *p);

/* The run's winner: the row its flags mark; else (a file written before winners were flagged, or
 * rows put together by hand) the one select_winner picks from res (table_results) with the
 * file's policy (table_policy). -1 when none passed. *flagged: whether the file said so. With pick, also
 * select_winner's full answer (tied rows; the caller frees it with choice_free). */
long long table_pick_winner(const table *t, const result *res, int *flagged, choice *pick);

#endif
