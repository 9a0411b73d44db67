/* publish.h: a run's outputs, written by one function in one order for a tuning run (tune.c), a
 * run over instances (instances.c) and a merge of shards (merge.c): the results CSV, the list of
 * the spec's files beside it, then from the CSV alone the header and its make fragment, the report
 * and the T4 file. Their names come from run_names.h. */
#ifndef AUTOTUNE_PUBLISH_H
#define AUTOTUNE_PUBLISH_H

#include "binary.h"
#include "diag.h"

typedef struct config config;

/* Writes the results CSV at path: 0, else -1 with the reason in d. */
typedef int (*publish_csv_fn)(void *ctx, const char *path, diags *d);

typedef struct {
	const config *cfg;         /* the header's name and path (output.header) */
	const char *csv;           /* where the results CSV goes; every other file is named from it */
	publish_csv_fn write_csv;  /* writes it (ctx its argument) */
	void *ctx;
	int part;                  /* a shard's or an instance's CSV: a part of the whole, written alone */
	int winner;                /* something passed: the header is written */
	int t4;                    /* the T4 file too (--t4, output.t4) */
	const char *spec_hash;     /* keep the spec's list of files beside the CSV with this hash (NULL: not) */
	const build *b;            /* for that list: the binaries, whose includes it is checked against (or NULL) */
} publish_opts;

/* What was written: each 1 when it was. t4 names the T4 file when one was written (caller frees). */
typedef struct {
	int csv, header, report;
	char *t4;
} published;

/* Writes the CSV, then what the whole run's results make of it: the header (with a winner), the
 * report and the T4 file (when asked), each on its own, so that one that fails leaves the others
 * written. Nothing but the CSV for a part; nothing at all when the CSV fails. 0 when everything
 * asked for was written; -1 with each reason in d. */
int publish(const publish_opts *p, published *out, diags *d);

#endif
