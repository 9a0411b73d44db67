/* select_results.h: what autotune_results holds, shared by the run-time library's two readers (the
 * CSV in autotune_select.c, the T4 file in select_t4.c), and the helpers both build it with
 * (select_results.c, below both). Not installed: programs see only autotune_select.h. */
#ifndef AUTOTUNE_RUNTIME_SELECT_RESULTS_H
#define AUTOTUNE_RUNTIME_SELECT_RESULTS_H

#include <stdio.h>

/* autotune_select.h's handle, declared again: the readers below the API include none of it */
typedef struct autotune_results autotune_results;

typedef struct {
	char **cells;      /* this row's fields, ncols */
	long instance;     /* 0-based, -1: results of one problem */
	double *consts;    /* the instance's constants */
} select_winner;

/* A table of the winners' rows: the parameters' columns first (nparams), then the results' fields;
 * the instance's constants at const_col (nconsts), the instance at inst_col (-1: none). */
struct autotune_results {
	char **names;
	size_t ncols, nparams, nconsts;
	int inst_col;
	size_t *const_col;
	select_winner *w;
	size_t nw;
};

/* What the library reads at most: a results file, one row of the CSV, the fields of a row. A
 * tune of a million configurations writes a few hundred MiB. */
#define SELECT_MAX_FILE_BYTES ((long long)1 << 30)
#define SELECT_MAX_FILE_TEXT "1 GiB"
#define SELECT_MAX_RECORD_BYTES (1 << 20)
#define SELECT_MAX_COLUMNS 4096

/* The reason into err (len bytes; err may be NULL), as snprintf. */
void select_say(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* malloc, calloc, realloc and strdup (NULL for 0 bytes never: 1 is asked); NULL when out of
 * memory, which callers say in err: the library never aborts its host program. */
void *select_alloc(size_t n);
void *select_zalloc(size_t n, size_t size);
void *select_grow(void *p, size_t n);
char *select_strdup(const char *s);
/* A row of n strings and the row itself freed (NULL is no row). */
void select_free_row(char **row, size_t n);
/* Results and all they hold freed (NULL is none): autotune_results_free. */
void select_results_free(autotune_results *r);
/* The spec check: -1, said in err, when want (NULL: none) is not got (an empty got: not recorded). */
int select_check_spec(const char *path, const char *want, const char *got, char *err, size_t errlen);
/* Adds cells (r->ncols fields, which r takes) as a winner: its instance and constants from their
 * columns. -1, said in err at `where` (path:line), when they are not numbers. */
int select_add_winner(autotune_results *r, char **cells, const char *where, char *err, size_t errlen);

/* The T4 file f (open, at its start; path names it in messages) as results: what
 * autotune_results_load does for a file whose first non-space byte is '{'. The caller closes f. */
autotune_results *select_t4_load(FILE *f, const char *path, const char *spec_hash, char *err, size_t errlen);

#endif
