/* output.h: the results CSV a tuning run leaves behind, one row per configuration, written to a
 * temporary name, flushed to disk and renamed into place, so a reader never sees half a file. The
 * tuned header and make fragment are made from it (header.h). */
#ifndef AUTOTUNE_OUTPUT_H
#define AUTOTUNE_OUTPUT_H

/* in the first line of every results CSV: a file a rewrite may replace */
#define CSV_SIGNATURE ",time_ms_median,"

#include <stdio.h>

#include "binary.h"
#include "diag.h"
#include "result.h"
#include "space.h"

typedef struct config config;

/* A GPU that measured rows (result.gpu indexes these). */
typedef struct {
	const char *name, *uuid;
} gpu_id;

typedef struct {
	const config *cfg;
	const space *sp;
	const build *b;
	const result *res;   /* sp->count entries */
	long long winner;    /* index, or -1 */
	const char *arch;    /* "sm_90" */
	const char *date;    /* ISO 8601, UTC */
	const gpu_id *gpus;  /* the GPUs rows were measured on (none on a dry run) */
	size_t ngpus;
	const char *spec_hash; /* config_spec_hash: the config, the kernel source, the data files */
	const char *run;     /* how far the run got, a RUN_ word of table.h (NULL: complete) */
} outputs;

/* The CSV's columns after the parameters, in order (NULL-terminated): what its readers, and the
 * readers of other formats that stand in for it (t4.h), name. */
extern const char *const output_columns[];

/* Writes one RFC 4180 field: quoted (with doubled quotes) when it holds a comma, quote, CR or LF. */
void csv_field(FILE *f, const char *s);

/* A plan's columns, after gflops (a config without a plan has none): its streams, dispatch order
 * (depth-first, breadth-first), the worker's CUDA_DEVICE_MAX_CONNECTIONS, its launches' serial
 * time (ms) and the achieved concurrency (serial time / time). */
#define OUTPUT_PLAN_COLUMNS "plan_streams,plan_order,plan_connections,serial_ms,concurrency"

/* The CSV lists the configurations a run did something with (output_listed), so that its size
 * follows the work, not the space: a search of 64 in 1.9 million configurations writes some 64
 * rows. Its last column, configurations, is the size of the space on every row; the
 * configurations it does not list were not run. */
int output_csv(const outputs *r, const char *path, diags *d);
/* Whether row c is in the CSV: measured or failed, the reference, the winner, or the first
 * configuration of a binary that was compiled or failed to (a dry run: each configuration whose
 * binary was); in a run that is not complete, of the configurations that a failed binary, or
 * launches its device must refuse, fail without running, only that first one. */
int output_listed(const outputs *r, size_t c);

/* A file written as the CSV is: output_open opens "<path>.tmp.<pid>" (NULL with the reason in d),
 * output_commit flushes, syncs and renames it into place, or removes it and says why (the write's
 * own error: "No space left on device") in d, -1. commit takes f and tmp. */
FILE *output_open(const char *path, char **tmp, diags *d);
int output_commit(FILE *f, char *tmp, const char *path, diags *d);
/* Removes what a killed writer of path left: "<path>.tmp.<pid>" files whose process is gone. */
void output_reclaim(const char *path);

#endif
