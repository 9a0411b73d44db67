/* instances.h: a run over the config's instances (instances:, config_instances.c): each instance is
 * tuned by tune.c's pipeline as a problem of its own, with its part CSV and its own journal (resumed
 * on its own), then one CSV joins them with the instance's constants as columns, and the header
 * (with its selector) and the report are written from it. */
#ifndef AUTOTUNE_INSTANCES_H
#define AUTOTUNE_INSTANCES_H

#include <stddef.h>

#include "cli.h"
#include "binary.h"
#include "config.h"
#include "space.h"

/* The column of a joined CSV after which each of the instance's constants has one: its number,
 * 1-based, in the config's order. */
#define INSTANCE_COLUMN "instance"

/* One instance's part of the run, and what the run keeps across its instances. */
typedef struct instance_run {
	size_t index;       /* the instance tuned now */
	char *part;         /* the CSV its part wrote (NULL: none) */
	long long winner;   /* its winner's row, -1: none */
	/* across the run: each binary the GPU would execute, once (cubin code hashes) */
	char (*codes)[17];
	size_t ncodes, failed, nvcc_runs, cache_hits;
	double compile_s;
	/* per instance (ninst): its winner's parameter values (nparams each) when has_won, and what
	 * seeded its search (NULL: nothing was said), for the summary */
	size_t ninst, nparams;
	value *won;
	char *has_won;
	char **seed_note;
} instance_run;

/* Tunes one instance (tune.c's pipeline): its exit status. */
typedef int (*instance_tune_fn)(const options *o, instance_run *ir);

/* Tunes every instance of cfg (loaded as written, for its name and paths) with tune_one, joins the
 * parts and writes the header and report: the exit status; problems in d. */
int instances_tune(const options *o, const config *cfg, instance_tune_fn tune_one, diags *d);

/* The part's CSV (and so its journal) for instance ir->index of cfg, loaded as that instance:
 * NAME.CONST-VALUE....csv beside output.csv. */
void instance_use_part(config *cfg, const instance_run *ir);

/* Called by the part's run once its CSV is written (csv_ok): its binaries counted, its winner
 * (a configuration of sp, -1: none). */
void instance_run_done(instance_run *ir, const config *cfg, const space *sp, const build *b, int csv_ok,
		       long long winner, double compile_s);

/* The start of instance ir->index's search (cfg and sp its config and space): the winner of the
 * nearest instance tuned so far (nearest as the header's selector measures it), as the
 * configuration of sp with the same parameter values. Returns how many went to start (0 or 1);
 * says which instance seeded it, or why none did, on stderr unless quiet. */
size_t instance_seed(instance_run *ir, const config *cfg, const space *sp, size_t *start, int quiet);

/* Joins the parts' CSVs (parts[i] of instance i of cfg, NULL: that instance has none) into out:
 * the parts' columns, then INSTANCE_COLUMN and a column per constant of the instances. */
int instances_join(const config *cfg, char *const *parts, const char *out, diags *d);

#endif
