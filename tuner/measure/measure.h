/* measure.h: the measuring stage: every compiled configuration through the GPU worker (the
 * reference first), the finalists re-timed interleaved, hardware counters where asked. */
#ifndef AUTOTUNE_MEASURE_H
#define AUTOTUNE_MEASURE_H

#include <signal.h>

#include "binary.h"
#include "diag.h"
#include "select.h"
#include "journal.h"
#include "result.h"
#include "runner.h"
#include "space.h"
#include "strategy.h"

typedef struct config config;
typedef struct builder builder; /* compile.h: the compiles in flight */
struct observer;                /* observe.h */

/* A GPU's worker as the measuring stage drives it: runner.h's functions, or a stand-in (a test's
 * in-process lane), with runner.h's meanings and returns. */
typedef struct {
	int (*measure)(runner *r, const config *cfg, const value *params, proto_role role, const binary *bin,
		       const sample_plan *plan, result *res, double timeout_s, diags *d);
	int (*profile)(runner *r, const config *cfg, size_t n, const value *const *params, const binary *const *bins,
		       result *const *res, double timeout_s, char **why, diags *d);
	void (*quit)(runner *r);
} worker_ops;

typedef struct {
	int progress;                        /* draw the progress bar */
	const volatile sig_atomic_t *interrupted; /* the signal that asks to stop after the
					      * configurations in flight, or 0 (only signals set it) */
	/* out: the journal could not be written (a full disk). The run stops as at a signal, since
	 * what it measured from then on could be kept nowhere; what the journal holds is the next
	 * run's start. A reason of its own: not a signal. */
	volatile sig_atomic_t journal_failed;
	double copy_gbps;                    /* the device's copy bandwidth, for % of peak; 0 unknown */
	int max_mhz;                         /* the device's maximum SM clock */
	journal *journal;                    /* where each result goes as it arrives, or NULL */
	int retry_failed;                    /* PLAN_RETRY_*: measure crashed and timed-out configurations again,
					      * and measurements without energy (the journal keeps none) */
	builder *build;                      /* compiles still running: wait for each binary before use */
	int cc;                              /* compute capability, for theoretical occupancy */
	strategy strategy;                   /* exhaustive measures the whole space */
	size_t budget;                       /* evaluations at most; 0: the whole space */
	double seconds;                      /* a time budget for the search; 0: none */
	unsigned long long seed;             /* the search's seed */
	const double *prior;                 /* per configuration, lower is more promising: the model
					      * strategy's ranking, an exhaustive pass's order (or NULL) */
	const size_t *start;                 /* or NULL: a search evaluates these first (search.h) */
	size_t nstart;
	const select_policy *policy;         /* how the winner is chosen: counters go where they can
					      * change it (NULL: only to the fastest measure.metrics asks for) */
	char *counters_note;                 /* out: why counters were not collected, or NULL (owned) */
	char *journal_note;                  /* out: why the journal could not be written, or NULL */
	char *reference_note;                /* out: which configuration the outputs were checked
					      * against and how it was chosen, and a warning when most
					      * that ran differ from it; lines, or NULL (owned) */
	size_t measured;                     /* out: configurations measured in this run */
	int reference_failed;                /* out: the named verify reference could not serve: the pass stopped */
	size_t shared;                       /* out: configurations that shared an identical one's measurement */
	const char *setting;                 /* reuse_setting: with it each measurement has an identity
					      * (plan_identity), found in the journal when an earlier run,
					      * whatever edits since, measured the same; NULL: none */
	size_t reused;                       /* out: configurations whose earlier measurement of the same
					      * identity was taken (journal_reuse) */
	/* out: wall time of the first pass and, within it, of waiting for binaries (per GPU); of
	 * the finalists' rounds, and of the counters after them */
	double first_pass_s, wait_s, final_s, counters_s;
	/* for a runner given as NULL: waits until that GPU is ready, NULL when it never will be */
	runner *(*join)(void *ctx, size_t lane);
	void *join_ctx;
	const worker_ops *worker;            /* NULL: runner.h's */
	struct observer *observers;          /* told what happens too, after the journal and the
					      * progress line (observe.h), or NULL */
} measure_opts;

/* Measures on every runner at once (GPUs of one model): the exhaustive first pass and the
 * counters take configurations from one queue, one thread per GPU, each GPU from when it is
 * ready (a NULL runner joins through o->join; runners[0] must be given); a search's proposals and the
 * interleaved finalists run on runners[0]. Configurations whose status is already final
 * (restored from the journal) are not measured again, except crashed and timed-out ones with
 * retry_failed. 0 when done (or interrupted); -1 when a GPU worker cannot go on, with the reason
 * in d. A reference that fails is reported in d and ends measuring early, returning 0. Each
 * GPU's worker is asked to quit (runner_quit) once its last counters are in, so that it closes
 * its context while other GPUs still work; the caller stops the runners. */
/* Whether measuring stops: a signal, or the journal failed. */
static inline int measure_stopping(const measure_opts *o) { return *o->interrupted || o->journal_failed; }

int measure_space(const config *cfg, const space *sp, const build *b, result *res, runner *const *runners,
		  size_t nrunners, measure_opts *o, diags *d);

/* Whether measure_space searches (a strategy within a budget of evaluations or seconds) rather
 * than measuring the whole space; the compile pool builds on demand exactly then. */
int measure_is_search(int strategy, size_t budget, double seconds, size_t count);

#endif
