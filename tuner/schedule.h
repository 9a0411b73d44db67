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

/* Configuration lists into their binaries, each once, in order of first appearance; returns how
 * many (bins: room for n). */
size_t schedule_binaries(const size_t *of_config, size_t nbins, const size_t *configs, size_t n, size_t *bins);

#endif
