/* tune_opts.h: what a run is asked to do, read from the command line, else the config's search
 * section (docs/config.md): shared by a live run and a replay. */
#ifndef AUTOTUNE_TUNE_OPTS_H
#define AUTOTUNE_TUNE_OPTS_H

#include <stddef.h>

#include "cli.h"
#include "diag.h"
#include "strategy.h"

typedef struct config config;
struct space;

/* --budget (else search.budget): evaluations into *budget, or seconds into *seconds; both 0 when
 * none is given. -1 (said in d) when it is malformed. */
int tune_budget(const options *o, const config *cfg, size_t count, size_t *budget, double *seconds, diags *d);
/* --strategy, else search.strategy, else model when a budget limits the run, else exhaustive. */
int tune_strategy(const options *o, const config *cfg, size_t budget, double seconds, strategy *s, diags *d);
unsigned long long tune_seed(const options *o, const config *cfg);
/* -j, else every core */
int tune_jobs(const options *o);
/* --replay: the exit status. */
int tune_replay(const options *o, const config *cfg, const struct space *sp, diags *d);

#endif
