/* replay.h: runs a search strategy against a recorded exhaustive run (its CSV, or a T4 or Kernel
 * Tuner cache file) instead of the GPU: each "measurement" is looked up. Strategies become testable and comparable without a GPU. */
#ifndef AUTOTUNE_REPLAY_H
#define AUTOTUNE_REPLAY_H

#include "diag.h"
#include "search.h"
#include "space.h"
#include "strategy.h"

typedef struct config config;

typedef struct {
	size_t evaluations;
	double best_found, optimum; /* ms; INFINITY when nothing passed */
	long long best_config;
	/* the search's compiles on a simulated pool of `jobs` slots where each binary takes its
	 * recorded compile seconds (seconds: 1), or where the recording has none one latency: the
	 * binaries it built, and its wall time in seconds or in compile latencies */
	size_t built;
	double compile_latencies;
	int seconds;
	size_t prior_set_aside; /* the model's: evaluations made when it set its prior aside (0: kept) */
} replay_result;

/* What a replay runs, and against what. */
typedef struct {
	const char *recording;   /* a results CSV autotune wrote for the space, or a T4 or Kernel Tuner cache file */
	strategy strategy;
	size_t budget;           /* evaluations */
	unsigned long long seed;
	int jobs;                /* the simulated compile pool's slots (< 1: one) */
	const char *out;         /* where the sequence goes (CSV: step, parameters, time), or NULL */
	size_t *sequence;        /* or NULL: the configurations evaluated, in order (budget of them at most) */
	double *times;           /* or NULL: every configuration's recorded time (sp->count) */
	/* or NULL: a recording of the same kernel on another GPU or size (transfer): its times rank
	 * the configurations in place of the built-in model (replay_prior) */
	const char *prior;
	const double *model;     /* or NULL: per configuration, a ranking in place of the built-in
				  * model's (a test's deliberately wrong one) */
} replay_opts;

/* Loads the recording (t4.h reads the cache files), runs the strategy with the budget and seed,
 * and writes the sequence to o->out. The model
 * strategy ranks by the recorded static features (theoretical occupancy, block.x against the warp,
 * spills). Compiles are simulated on `jobs` slots as a live search's on-demand pool runs them.
 * -1 with the reason in d when the CSV does not fit the space. */
int replay_run(const config *cfg, const space *sp, const replay_opts *o, replay_result *r, diags *d);

/* A transfer's prior (search_prior.h): the times of the recording at path (a results CSV, T4 or
 * Kernel Tuner cache, read as replay_run reads one) rank the space's configurations, those it lacks
 * or failed after, by model (the built-in model's values, or NULL). NULL with the reason in d when
 * it cannot be read, is not of this config, or times none of the space's configurations. Caller
 * frees. */
double *replay_prior(const config *cfg, const space *sp, const char *path, const double *model, diags *d);

#endif
