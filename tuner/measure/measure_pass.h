/* measure_pass.h: the state the measuring stage's files share, under its one lock: measure.c
 * (the executor of the first pass: its visits, the lanes' loop), measure_search.c (a search's
 * lane), finish.c (the other lanes' threads, finalists and counters) and reference.c (the
 * reference's runs, its re-election and summary). measure.c calls them; they reach back only
 * through the function pointers it sets (pass_lane, visit). The decisions of the pass (whose
 * visit waits, roles, references, votes, the queue) are schedule.c's, in `S`. Nothing else
 * includes it. */
#ifndef AUTOTUNE_MEASURE_PASS_H
#define AUTOTUNE_MEASURE_PASS_H

#include <pthread.h>

#include "measure.h"
#include "pool.h"
#include "schedule.h"

/* One GPU: its worker, and which reference outputs that worker holds. */
typedef struct lane {
	runner *rn;
	int gpu;           /* index among the run's GPUs: result.gpu */
	long long loaded;  /* the group whose reference outputs the worker holds (-1: none) */
	diags d;           /* this lane's failures, joined into the run's once the lanes are done */
	struct pass *P;
	pthread_t thread;
	int threaded; /* runs other_lane() on `thread` */
	int left;     /* left the first pass early to take the counters of the fastest so far */
	double best_ms; /* the best first-pass rank (result_first_rank: the median, or the objective's
			 * score) this lane measured so far: racing compares with it */
} lane;

/* the run's phase, as the lanes other than the first see it */
enum { PHASE_PASS, PHASE_FINISH, PHASE_ABORT };

/* The first pass's state, shared by the lanes (one per GPU) under `lock`. Only the GPU work
 * itself (runner calls on a lane's own worker) runs unlocked. */
typedef struct pass {
	const config *cfg;
	const space *sp;
	const build *b;
	result *res;
	measure_opts *o;
	diags *d;
	struct observer *seen; /* the journal and the progress line, told what happens (observe.h) */
	worker_ops gpu;        /* what runs on a lane's worker */
	sample_plan plan;
	double slowest;
	schedule_pass S; /* the visits' decisions: references, votes, twins, the queue */
	size_t done;
	int stopped; /* 1: stop quietly (the reference failed, reported), -1: a worker is gone */
	double deadline; /* a time budget's end (now_seconds), 0: none */
	lane *lanes;     /* lanes[0] also measures the search's proposals, finalists */
	size_t nlanes;
	counters_queue counters; /* the counters' queue (schedule.c decides who takes what) */
	size_t want;     /* how many of the fastest get counters (SIZE_MAX: all, 0: none) */
	/* Several GPUs: the lanes other than the first live on threads of their own from the pass
	 * to the end of their counters, and wait for the first to start the finish (phase). */
	int phase;
	void *(*pass_lane)(void *lane); /* a lane's part of the exhaustive pass (measure.c) */
	/* Visits configuration c on lane L: restores or measures it, or shares a twin's measurement
	 * (measure.c; P->lock held): what it did, one of measure.c's step kinds. */
	int (*visit)(struct pass *P, lane *L, size_t c);
	int shared_queue; /* the exhaustive pass: every lane takes configurations from the queue */
	int searching;    /* a search, whose next proposals follow the times it measured */
	size_t measuring; /* lanes still taking configurations from the queue */
	double measure_s; /* a measurement's recent lane time (a moving average), for estimates */
	size_t measures, shares; /* visits that measured, that shared a twin's or an earlier run's */
	double best_ms;   /* the fastest time measured so far */
	int hopeless;     /* a profiling session profiled nothing: no more are tried */
	size_t passed;    /* configurations measured and passed so far */
	lane_pool pool;   /* the compile pool, under its own lock */
	pthread_mutex_t lock; /* the one lock of the pass's state */
	pthread_cond_t changed;
} pass;

/* reference.c */
/* The worker holds one reference's outputs at a time: when another group's (or, on a resumed
 * run, an earlier run's) are needed, configuration ref runs again, briefly, on rn; its result
 * stands. 0, 1 when it failed (reason in d), -1 when the worker is gone. */
int pass_refresh_reference(const config *cfg, const space *sp, const build *b, result tmp, size_t ref,
			   const worker_ops *w, runner *rn, diags *d);
/* verify.kernel: the reference kernel on its own geometry, as rn's reference; the same returns. */
int pass_run_reference_kernel(const config *cfg, const space *sp, const build *b, const worker_ops *w, runner *rn,
			      diags *d);
/* Whether a reference configuration's outputs are what the others must equal. */
int pass_outputs_from_reference(const config *cfg);
/* The re-election of a vote left VOTE_RERUN, on its lane L, measuring with `visit` (measure.c's,
 * P->lock held). */
typedef int (*visit_fn)(pass *P, lane *L, size_t c);
void vote_reelect(pass *P, lane *L, size_t g, visit_fn visit);
/* P->o->reference_note, at the end of the first pass. */
void pass_reference_note(pass *P);

/* measure_search.c: a search within budget evaluations, on the first lane (P->lock not held). */
void pass_search(pass *P, size_t budget);

/* finish.c */
/* A lane's counters: its share of P's queue, a profiling session at a time (a thread's main). */
void *pass_counters_lane(void *arg);
/* The counters' queue: the fastest top as ranked now, and those the winner's balance decides
 * among (P->lock held when other lanes run). */
void pass_choose_counters(pass *P, size_t top);
/* Finalists, then counters, the counters shared with the configurations that share a
 * measurement: 0, or -1 when a worker is gone. With several GPUs the first re-times the
 * finalists while the others profile on their threads, started here when a search left them
 * unstarted. */
int pass_finish(pass *P);
/* Starts the lanes other than the first on threads of their own (those not started yet): each
 * runs pass_lane when the queue is shared, its counters when it left the pass for them, then
 * waits for the finish (or its abort) and takes its share of the counters. Without a thread, a
 * lane does nothing: the others take its share. */
void pass_start_other_lanes(pass *P);
/* Stops the other lanes unless the finish started, and joins them. */
void pass_join_other_lanes(pass *P);

#endif
