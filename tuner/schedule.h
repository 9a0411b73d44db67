/* schedule.h: what a search measures when, decided in one place for the live run (measure.c: a
 * GPU's worker and the compile pool) and for a replay (replay.c: a recording and a simulated pool
 * on a virtual clock). The decisions know the lane and the pool only through the operations
 * below; they take no lock and do no I/O of their own. */
#ifndef AUTOTUNE_SCHEDULE_H
#define AUTOTUNE_SCHEDULE_H

#include <stddef.h>

/* A lane: what measures a configuration (a GPU's worker, or a recording). */
typedef struct {
	void (*measure)(void *ctx, size_t c, int ahead); /* ahead: before the search asked for it */
	double (*time)(void *ctx, size_t c); /* c's time for the search once measured; INFINITY: did not pass */
	int (*over)(void *ctx);              /* the search is to stop (NULL: never) */
} lane_ops;

/* The compile pool, by binary. */
typedef struct {
	void (*want)(void *ctx, size_t bin);  /* the search waits for bin (NULL: nothing to tell) */
	int (*done)(void *ctx, size_t bin);   /* bin is built (or nothing builds: 1) */
	int (*wait)(void *ctx, size_t bin);   /* one step of waiting for bin: 0, or -1 when nvcc cannot run */
	void (*collect)(void *ctx);           /* time passed: what finished is retired (NULL: nothing to do) */
	void (*hint)(void *ctx, const size_t *bins, size_t n);
	void (*commit)(void *ctx, const size_t *bins, size_t n);
} pool_ops;

/* A search's schedule: which configurations it measured ahead of their turn, and the list it
 * committed to (measured as their binaries arrive, the search never waiting for a binary it
 * could have had). */
typedef struct {
	const size_t *of_config; /* the binary of each configuration */
	size_t nbins;
	lane_ops lane;
	void *lane_ctx;
	pool_ops pool;
	void *pool_ctx;
	char *early;             /* per configuration: measured, in its turn or ahead of it (NULL:
				  * not compiling ahead, every measurement in its turn) */
	size_t *commit, ncommit, commit_cap;
} schedule;

/* The search's callbacks (search.h), with a schedule as their context. */
double schedule_eval(void *S, size_t c);
int schedule_poll(void *S, size_t c);
double schedule_peek(void *S, size_t c);
int schedule_over(void *S);
void schedule_hint(void *S, const size_t *configs, size_t n);
void schedule_commit(void *S, const size_t *configs, size_t n);
/* Frees what the schedule allocated (the committed list). */
void schedule_free(schedule *S);

/* The exhaustive pass's queue: its configurations, most promising first, and those put back
 * because the measurement they would share (or the reference they need) was still in flight,
 * worth another look once a measurement finished since. */
typedef struct {
	size_t *order;  /* owned */
	size_t count, cursor;
	long long skip; /* measured before the queue (the named reference), or -1 */
	struct put_back {
		size_t c;
		size_t at; /* `finishes` when it was put back */
	} *deferred;
	size_t ndeferred, deferred_cap;
	size_t finishes; /* measurements finished so far */
} schedule_queue;

enum { QUEUE_NEXT, QUEUE_BLOCKED, QUEUE_EMPTY };
/* The next configuration into *c: a put-back one once something finished since it was put back,
 * else the queue's next: QUEUE_NEXT; QUEUE_BLOCKED when only put-back ones remain, none worth a
 * look yet (the caller waits for a measurement to finish, or releases them); QUEUE_EMPTY. */
int schedule_queue_next(schedule_queue *Q, size_t *c);
void schedule_queue_defer(schedule_queue *Q, size_t c);
/* A measurement finished: what was put back before is worth another look. */
void schedule_queue_finished(schedule_queue *Q);
/* Nothing in flight can hold the put-back ones back any more: each is worth a look now. */
void schedule_queue_release(schedule_queue *Q);
/* Configurations not taken from the queue yet (put-back ones aside). */
size_t schedule_queue_left(const schedule_queue *Q);
void schedule_queue_free(schedule_queue *Q);

/* finalist rounds, samples per finalist per round, and the time a round's samples aim at: a
 * kernel of milliseconds varies by hundredths of a percent from launch to launch, and its
 * rounds would otherwise cost more than its first pass */
#define FINAL_ROUNDS 7
#define FINAL_SAMPLES 5
#define FINAL_ROUND_MS 5.0

/* What a lane other than the first looks at to leave the first pass for its profiling session. */
typedef struct {
	size_t lanes;            /* GPUs (2 or more) */
	size_t want;             /* how many of the fastest get counters */
	size_t passed;           /* configurations measured and passed so far */
	double best_ms;          /* the fastest time so far */
	int finalists;           /* measure.finalists */
	size_t measuring;        /* lanes still taking configurations from the queue */
	size_t measures, shares; /* visits that measured, that shared a measurement */
	double measure_s;        /* a measurement's recent lane time */
	size_t left;             /* configurations not taken from the queue yet */
} profile_view;

/* How many of the fastest so far a lane that leaves the first pass profiles at once (0: none),
 * and in *seconds how long that takes. With several GPUs the first re-times the finalists after
 * the pass while the others profile the final top: as many as fit in the finalists' time, less a
 * worker's exit, go to that last session; the others, the fastest so far, to a session during the
 * pass, which also pays the profiler's start. Sessions cost per pass, whatever they hold, so two
 * are all there are, and newcomers to the top land in the last. */
size_t schedule_profile_share(const profile_view *v, double *seconds);
/* Whether the lane of GPU gpu leaves the first pass now for its profiling session: once what is
 * left of the pass, shared by the lanes that stay, takes about as long as that session, so that
 * the session ends with the pass. */
int schedule_leaves_to_profile(const profile_view *v, int gpu);

/* A plan's configurations (queue, n of them), in the queue's order within each run of the same
 * connections and reference group (per configuration): a worker has the connections it was
 * started with (another is a switch of worker), and holds one reference's outputs (another is a
 * run of that reference). */
void schedule_by_worker(size_t *queue, size_t n, const int *connections, const size_t *group);

/* Configuration lists into their binaries, each once, in order of first appearance; returns how
 * many (bins: room for n). */
size_t schedule_binaries(const size_t *of_config, size_t nbins, const size_t *configs, size_t n, size_t *bins);

#endif
