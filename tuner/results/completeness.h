/* completeness.h: how far the run behind a results file got: every configuration measured, or
 * stopped early (Ctrl-C, SIGTERM, a GPU worker lost), or a search that measured what it chose.
 * The CSV records it in its run column, and the header, make fragment, report and summary say it:
 * a tuned header from 2 of 52 configurations must not pass for a tuned one. */
#ifndef AUTOTUNE_COMPLETENESS_H
#define AUTOTUNE_COMPLETENESS_H

#include <stdio.h>

#include "table.h"

/* How much of its space a run measured, and why not all: what the results file's run column
 * says (output.c writes it on every row; merged shards each keep their own) and its statuses.
 * A configuration is measured when its status is not not-run; one the file does not list (its
 * configurations column, the space's size, counts it) was not run. */
typedef struct {
	const char *state;     /* one of the RUN_ words below */
	size_t measured, configurations;
	char why[160];         /* RUN_PARTIAL: why not all, when known ("" : the file does not say) */
} run_extent;

#define RUN_COMPLETE "complete"       /* every configuration measured */
#define RUN_INTERRUPTED "interrupted" /* Ctrl-C (exit 130) */
#define RUN_TERMINATED "terminated"   /* SIGTERM (exit 143) */
#define RUN_STOPPED "stopped"         /* the GPU worker could not be restarted (exit 3) */
#define RUN_HELD "compile-stopped"    /* the first binaries all failed alike: the rest not compiled */
#define RUN_NO_REFERENCE "reference-failed" /* the named verify reference could not serve: the rest not run */
#define RUN_UNJOURNALED "journal-failed" /* the journal could not be written (exit 4) */
#define RUN_SEARCH "search"           /* a search (--budget) measured what it chose */
#define RUN_SAMPLE "sample-search"    /* a search in a sample of a space too large to list */
#define RUN_DRY "dry-run"             /* nothing measured */
#define RUN_PARTIAL "partial"         /* not every configuration measured; the file does not say why */

/* The run behind t: of its rows' words the one a reader must hear first (interrupted, terminated,
 * stopped, search), else complete when every row was measured, else partial (an older file
 * without the column, or rows put together by hand); a dry run's rows alone: dry-run. */
void table_run(const table *t, run_extent *r);
/* Joins b into a (several files behind one header): the counts add up, the state is the one a
 * reader must hear first. */
void run_extent_join(run_extent *a, const run_extent *b);
/* Whether every configuration was measured by a run that finished. */
int run_complete(const run_extent *r);
/* What a person is told of a run that is not complete, one sentence without a full stop: "2 of
 * 52 configurations measured, interrupted: resume with the same command"; NULL when complete.
 * Caller frees. */
char *run_note(const run_extent *r);

/* In a header's opening comment, after lead (" * "): what path's run is missing and how to go on. */
void completeness_put_file_note(FILE *h, const char *lead, const char *path, const run_extent *r);
/* After the notes: what NAME_COMPLETE means here (complete: one line). */
void completeness_put_comment(FILE *h, const char *lead, const char *upper, const run_extent *all);
/* NAME_COMPLETE (1 or 0), NAME_RUN (the state), NAME_MEASURED and NAME_CONFIGURATIONS as macros
 * into h and as make variables into mk, with the note as a make comment. */
void completeness_put_macros(FILE *h, FILE *mk, const char *upper, const run_extent *r);

#endif
