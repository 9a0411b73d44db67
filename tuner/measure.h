/* measure.h: the measuring stage: every compiled configuration through the GPU worker (the
 * reference first), the finalists re-timed interleaved, hardware counters where asked. */
#ifndef AUTOTUNE_MEASURE_H
#define AUTOTUNE_MEASURE_H

#include <signal.h>

#include "compile.h"
#include "config.h"
#include "result.h"
#include "runner.h"
#include "space.h"

typedef struct {
	int progress;                        /* draw the progress bar */
	volatile sig_atomic_t *interrupted;  /* set by SIGINT: stop after the configuration in flight */
	double copy_gbps;                    /* the device's copy bandwidth, for % of peak; 0 unknown */
	int max_mhz;                         /* the device's maximum SM clock */
	char *counters_note;                 /* out: why counters were not collected, or NULL (owned) */
} measure_opts;

/* 0 when done (or interrupted); -1 when the GPU worker cannot go on, with the reason in d.
 * A reference that fails is reported in d and ends measuring early, returning 0. */
int measure_space(const config *cfg, const space *sp, const build *b, result *res, runner *rn, measure_opts *o,
		  diags *d);

#endif
