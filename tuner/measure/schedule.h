/* schedule.h: the measuring stage's decisions, in one place: what a search measures when, for the
 * live run (measure.c: a GPU's worker and the compile pool) and for a replay (replay.c: a
 * recording and a simulated pool on a virtual clock); the first pass's visits (schedule_pass);
 * when a lane leaves to profile. The decisions know the lanes and the pool only through the
 * operations and plain views below; they take no lock and do no I/O of their own. */
#ifndef AUTOTUNE_SCHEDULE_H
#define AUTOTUNE_SCHEDULE_H

#include <stddef.h>

#include "protocol.h"

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

/* The first pass's visits, decided in one place: which configuration a lane takes next, whether
 * it waits (its twin or its group's candidate reference is in flight, or a vote holds its group),
 * its role, which reference its lane loads first, and the reference vote's count. measure.c (the
 * executor) calls these under its lock; they take none and do no I/O. */

/* per configuration */
enum { IDLE, IN_FLIGHT, FINISHED };

/* How a group's reference is chosen when none is named and a configuration's outputs are what
 * the others must equal: the first that passes is provisional until a configuration of another
 * binary agrees with it; when the first two of other binaries that differ from it agree with each
 * other, the second of the three becomes the reference. */
typedef struct vote {
	enum { VOTE_NONE, VOTE_OPEN, VOTE_RERUN, VOTE_REELECT, VOTE_DONE } state;
	enum { CHOSEN_FIRST, CHOSEN_CONFIRMED, CHOSEN_MAJORITY, CHOSEN_NONE_AGREE, CHOSEN_UNDECIDED, CHOSEN_EARLIER } how;
	long long first, agree; /* the provisional reference; the one that agreed with it */
	long long dissent[2];   /* configurations of other binaries that differed from it */
	int ndissent;
	int owner;              /* the lane that measures the group while the vote is open, or
				 * re-elects */
	long long deciding;     /* the configuration in flight that can decide it, on any lane, so
				 * that no lane idles while the vote holds its group (-1: none) */
} vote;

/* What the decisions read of the configurations: the executor's results and binaries. */
typedef struct {
	int (*same_launch)(void *ctx, size_t a, size_t c); /* a's measurement would do for c */
	int (*same_code)(void *ctx, size_t a, size_t c);   /* their binaries' code is the same */
	void *ctx;
} pass_view;

typedef struct {
	size_t count;
	size_t *group;      /* per configuration, its reference group (owned) */
	/* ref[g]: the configuration whose outputs group g is checked against (-1: none passed yet);
	 * pending[g]: a candidate for it is being measured on some lane */
	long long *ref, named;
	char *pending;
	char *state;        /* per configuration: IDLE, IN_FLIGHT, FINISHED */
	vote *votes;        /* per group, when `voting` */
	int voting;         /* no reference is named, and a reference configuration's outputs count */
	size_t votes_open;  /* groups whose vote holds their configurations for its lane */
	int ref_kernel;     /* verify.kernel: every configuration is checked against it */
	size_t visiting;    /* lanes in a visit: measuring, or waiting for a binary first */
	schedule_queue Q;   /* the exhaustive pass's queue */
	pass_view view;
} schedule_pass;

/* What a lane does with a configuration it claimed. */
typedef struct {
	proto_role role;
	int run_ref_kernel; /* run verify.kernel on this lane's worker first */
	long long refresh;  /* run this configuration as the reference first (-1: no) */
} schedule_claim;

/* Takes ownership of group (count entries); named: the named reference or -1. */
void schedule_pass_init(schedule_pass *S, size_t count, size_t *group, long long named, int ref_kernel, int voting,
			pass_view view);
void schedule_pass_free(schedule_pass *S);
/* Configuration c's earlier result passed and stands: its group's reference when none is yet. */
void schedule_earlier_passed(schedule_pass *S, size_t c);
/* Lane gpu, whose worker holds group `loaded`'s reference outputs (-1: none), claims c: 1 and
 * *cl, c in flight; 0 when c must wait for another lane (put it back). While a vote is open, its
 * lane measures its group, and any lane the one configuration at a time that can decide it (of a
 * code neither the reference's nor its first dissent's), checked against the reference: no
 * other verdict is given against a reference that may be replaced. */
int schedule_claim_config(schedule_pass *S, int gpu, long long loaded, size_t c, schedule_claim *cl);
/* c's measurement in `role` ended (recorded or not). */
void schedule_finished(schedule_pass *S, size_t c, proto_role role);
/* c passed: 1 when it is now its group's reference (the lane's worker holds its outputs). */
int schedule_passed(schedule_pass *S, size_t c);
enum { VERDICT_OTHER, VERDICT_OK, VERDICT_WRONG };
/* Counts c's verdict, measured on lane gpu in `role`, in its group's vote: a reference run that
 * passed opens it; a check of another binary that passed confirms the reference, one that differs
 * is a dissent, and a second dissent leaves the vote VOTE_RERUN for that lane to re-elect. */
void schedule_count_vote(schedule_pass *S, int gpu, size_t c, proto_role role, int verdict);
/* Whether lane gpu is to re-elect group g's reference now: two dissents called for it, and
 * nothing of the group is in flight any more (the re-election then holds it for gpu). */
int schedule_reelects(schedule_pass *S, int gpu, size_t g);
/* A re-election's runs, in order (reference.c executes them): B, the first dissent, as the
 * reference; when it serves, C, the second, against it; when C passes, A, the provisional one,
 * against B. B and C agreeing make B the reference; anything else leaves A. */
enum { REELECT_VISIT, REELECT_KEEP, REELECT_REPLACE };
/* Group g's re-election begins: its vote re-elects, its reference unknown until it ends. */
void schedule_reelect_begin(schedule_pass *S, size_t g);
/* The re-election of group g after `step` runs (0: none yet), the last one's verdict (VERDICT_):
 * REELECT_VISIT and in *c the configuration to run next; or the outcome, in *how as it is told
 * (CHOSEN_): REELECT_REPLACE, B by majority; REELECT_KEEP, A stays (B and C differ, or the runs
 * that would tell did not pass). */
int schedule_reelect_step(const schedule_pass *S, size_t g, int step, int verdict, size_t *c, int *how);
/* Ends group g's re-election as schedule_reelect_step decided: A is the reference again unless B
 * replaced it, and the vote closes as `how`. */
void schedule_reelect_end(schedule_pass *S, size_t g, int outcome, int how);
/* A vote in progress (open, or re-electing) holds its group for its lane. */
int vote_busy(const vote *v);
/* Ends a vote, settled as `how` (CHOSEN_). */
void vote_close(schedule_pass *S, vote *v, int how);
/* The next configuration for a lane: QUEUE_NEXT (in *c), QUEUE_EMPTY, or QUEUE_BLOCKED: only
 * put-back ones remain, held by what is in flight (wait for a measurement to finish). Once
 * nothing is in flight, nothing can hold them back any more, nor a vote whose lane is not
 * measuring: those votes close and the put-back ones come. */
int schedule_next_config(schedule_pass *S, size_t *c);
/* Lane gpu takes no more configurations: the votes it held let the others measure their groups. */
void schedule_lane_leaves(schedule_pass *S, int gpu);

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

/* The finish's decisions (finish.c executes them): which finalists' rounds count, the counters'
 * queue, who profiles and how much at once. */

/* Whether the k finalists are re-timed: two or more, unless each has its rounds from the journal
 * (all_final) and nothing new was measured (a resumed run). */
int schedule_retime_finalists(size_t k, int all_final, size_t measured);
/* A finalist's round medians that count, of its `got` full rounds (rounds[r]; NAN: that run did
 * not pass, the finalist keeps its first-pass time there): the passing ones into v, how many; 0
 * when fewer than 3 rounds, or fewer than 3 passing ones, would compare it unevenly. */
size_t schedule_final_rounds(const double *rounds, size_t got, double *v);

/* How many of the fastest get counters beyond those the balance decides among, for
 * measure.metrics `metrics` (METRICS_*) and its top:K: SIZE_MAX for all, 0 for none or those
 * alone. */
size_t schedule_counters_wanted(int metrics, int top);

/* What the counters' queue is made of: the ranking (fastest first), the configurations the
 * balance decides among (time cannot tell them apart), the finalists. */
typedef struct {
	size_t count;                  /* configurations */
	const long long *shares_with;  /* per configuration: whose measurement it shares, or -1 */
	const size_t *ranked;
	size_t nranked, top;           /* the fastest `top` of the ranking come first */
	const size_t *tied;            /* counted when two or more */
	size_t ntied;
	const size_t *final;           /* counted when two or more (NULL: not while they are
					* re-timed by the first GPU, with one GPU) */
	size_t nfinal;
} counters_pick;

/* The counters' queue into queue (room for count): the fastest top, then the tied, then the
 * finalists, each once; one that shares another's measurement is profiled as that one. Returns
 * its length. */
size_t schedule_counters_queue(const counters_pick *p, size_t *queue);

/* The counters' queue as the lanes take it. */
typedef struct {
	size_t *order; /* owned */
	size_t count, cursor;
	char *taken;   /* owned, room for every configuration */ /* per configuration: its counters were started, or came from the journal */
	int (*profiled)(void *ctx, size_t c); /* c has counters already (from the journal, a twin) */
	void *ctx;
} counters_queue;

/* configurations profiled in one session at most (bounds the counter data image and a hang) */
#define COUNTERS_PER_SESSION 64
/* How many lanes split the counters: the GPUs other than the first, which re-times the finalists
 * meanwhile; with one GPU, that one. */
size_t schedule_counters_sharers(size_t lanes);
/* Whether lane gpu takes a share of the counters: the first GPU only when no other can (others:
 * how many others have a thread and a worker), rather than build a profiler of its own (0.2 s of
 * device queries). */
int schedule_lane_profiles(int gpu, size_t others);
/* A lane's next profiling session, of `sharers` that split the queue: its share of what is left
 * (at most COUNTERS_PER_SESSION), those neither taken nor profiled, marked taken. Into out (room
 * for that share); returns how many (0: the queue is done). */
size_t schedule_counters_take(counters_queue *Q, size_t sharers, size_t *out);
/* Configurations of the queue that still need a session. */
size_t schedule_counters_left(const counters_queue *Q);

/* Racing: a measurement on a GPU whose best so far is best_ms (as this launch's ms; 0: none yet)
 * stops above *race_ms, best_ms x race (0: not raced); and, in the exhaustive pass (a search
 * ranks its next proposals by the near ones' times, so they are measured in full), from the
 * first samples on above *near_ms: too slow to be a finalist (final_within of that best). */
void schedule_race(double race, double best_ms, int searching, double final_within, double *race_ms,
		   double *near_ms);

/* A plan's configurations (queue, n of them), in the queue's order within each run of the same
 * connections and reference group (per configuration): a worker has the connections it was
 * started with (another is a switch of worker), and holds one reference's outputs (another is a
 * run of that reference). */
void schedule_by_worker(size_t *queue, size_t n, const int *connections, const size_t *group);

/* A time budget as evaluations, for the search's shape (the model's first half, its waves): the
 * binaries the pool can build in that time (`bins`, by the predicted compile times), at the
 * space's configurations per binary; the whole space (count) when nothing predicts (bins 0). The
 * deadline still ends the search. */
size_t schedule_seconds_budget(size_t count, size_t nbins, size_t bins);

/* Configuration lists into their binaries, each once, in order of first appearance; returns how
 * many (bins: room for n). */
size_t schedule_binaries(const size_t *of_config, size_t nbins, const size_t *configs, size_t n, size_t *bins);

#endif
