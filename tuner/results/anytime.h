/* anytime.h: how good a search strategy is at every moment of a run, scored as the auto-tuning
 * community's methodology scores optimisers (Willemsen, van Nieuwpoort and van Werkhoven, FGCS
 * 2024), over a recorded exhaustive run replayed (replay.h). At each point of an axis, the mean
 * over seeds of the best found so far (averaged as ranks in the space's distribution, then read
 * back as a time) is standardised against random search drawn without replacement:
 *   (random - found) / (random - optimum)
 * 1: the optimum, 0: random search, negative: worse. The score is its mean over the axis, which
 * runs from where random search is expected to have come 1% of the way from the space's median to
 * its optimum to where it is expected to have come 95% of the way. The time axis charges each
 * evaluation its compile (once per binary a run builds: ANYTIME_COMPILE_S, the recordings having
 * no compile time for most), its run (a warm-up, ten samples and the verification launch at the
 * recorded time) and a fixed cost; the evaluation axis counts evaluations. On the time axis random
 * search is simulated, run by run, on the same clock: a compile is paid in one piece when a run
 * first hits its binary, so the best of the expected number of draws by a time (which spreads a
 * compile over the draws) would run ahead of what random search has at that time, by seconds
 * where a space has two binaries and milliseconds per run. */
#ifndef AUTOTUNE_ANYTIME_H
#define AUTOTUNE_ANYTIME_H

#include <stddef.h>

#include "diag.h"
#include "space.h"
#include "strategy.h"

typedef struct config config;

/* A binary's compile, seconds: a GEMM variant's on the H100 box. */
#define ANYTIME_COMPILE_S 0.7
/* Per evaluation, what is not the kernel: launching the worker's run, verifying, bookkeeping. */
#define ANYTIME_OVERHEAD_S 0.005
/* Random runs simulated for the time axis's baseline: its mean rank at k draws moves by about
 * n / (k sqrt(ANYTIME_DRAWS)) from one set of draws to another. */
#define ANYTIME_DRAWS 1000
/* Points of the time axis. */
#define ANYTIME_POINTS 100

typedef struct {
	double time_score, eval_score; /* the mean over seeds' curve, scored on each axis */
	size_t cutoff_evals;           /* where the axes end, in evaluations of random search */
	double cutoff_s;               /* and in seconds */
	size_t budget;                 /* each run's evaluations: enough to reach the cutoff */
} anytime_score;

/* The recording's space, read once for as many strategies as are scored. */
typedef struct {
	const config *cfg;
	const space *sp;
	const char *csv;
	const char *prior;   /* or NULL: a transfer's recording, the model strategy's prior (replay_opts);
			       * set by the caller after anytime_open */
	unsigned long long seed_from; /* the first of the seeds scored (0: 1); set by the caller, so
				       * that seeds not tuned to can be scored */
	double *time;        /* per configuration, ms; INFINITY failed */
	double *asc;         /* the passed times, ascending */
	size_t nvalid;
	size_t *of_config;   /* per configuration, its binary */
	size_t nbins;
	double *clock;       /* clock[k]: random search's expected time for k evaluations, s (as far as
			       * evals_end), each of its binaries compiled once */
	size_t evals_start, evals_end;
	double *base;        /* per point of the time axis: random search's mean best rank there over
			       * ANYTIME_DRAWS simulated runs, each charged as a strategy's run is */
} anytime_space;

/* -1 with the reason in d when the recording does not fit the space or nothing in it passed. */
int anytime_open(const config *cfg, const space *sp, const char *csv, anytime_space *a, diags *d);
void anytime_close(anytime_space *a);

/* Scores strategy s over seeds seed_from..seed_from + seeds - 1 (1..seeds by default). -1 with
 * the reason in d when a replay fails. */
int anytime_score_strategy(const anytime_space *a, strategy s, int seeds, anytime_score *out, diags *d);

/* The expected best of k uniform draws without replacement, as the methodology takes it: the
 * value at the expected rank of the best. */
double anytime_random(const anytime_space *a, size_t k);

#endif
