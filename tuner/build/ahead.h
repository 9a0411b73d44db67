/* ahead.h: what a search's compile pool builds next, and how long each binary is predicted to
 * take. A free slot builds, in this order: a binary the search waits for; one it will measure
 * whatever the results (committed), the longest predicted first, so that a wave does not end on
 * one late long compile; one it is likely to ask for next (hinted), most likely first. A
 * committed binary may take the slot of a hinted one (the latest started goes). Used by the live
 * pool (compile.c) and by a replay's simulated one (replay.c) alike. */
#ifndef AUTOTUNE_AHEAD_H
#define AUTOTUNE_AHEAD_H

#include <stddef.h>

#include "binary.h"
#include "space.h"

typedef struct ahead ahead;

/* A policy for the binaries of plan b (build_plan) on `jobs` slots. speculate 0 is the plain
 * on-demand pool: nothing committed or predicted, and hinted binaries only while at most `jobs`
 * are ahead of those waited for. */
ahead *ahead_new(const config *cfg, const space *sp, const build *b, size_t jobs, int speculate);
void ahead_free(ahead *a);

/* Whether compiling ahead is on for this process: AUTOTUNE_AHEAD=0 turns it off (to compare). */
int ahead_enabled(void);

/* The search waits for bin now (it counts as asked for, built ahead or not). */
void ahead_want(ahead *a, size_t bin);
/* The binaries the search will measure next whatever their results; replaces the last list. */
void ahead_commit(ahead *a, const size_t *bins, size_t n);
/* The binaries the search is likely to ask for next, most likely first; replaces the last hint. */
void ahead_hint(ahead *a, const size_t *bins, size_t n);

/* The binary a free slot should start, -1 for none; *urgent: it is waited for or committed, and
 * may take the slot of a hinted one (ahead_victim). */
long long ahead_next(ahead *a, int *urgent);
/* The running binary to stop for an urgent one: the latest started that is neither waited for
 * nor committed; -1 when every running one is. */
long long ahead_victim(const ahead *a);

/* What the pool did: started bin; bin is built (seconds: its nvcc time, < 0 when no nvcc ran:
 * a cache hit, or it failed); bin was stopped before it was built (it may start again). */
void ahead_started(ahead *a, size_t bin);
void ahead_done(ahead *a, size_t bin, double seconds);
void ahead_stopped(ahead *a, size_t bin);
int ahead_is_done(const ahead *a, size_t bin);

/* bin's predicted compile seconds, from those built so far: the mean log time, moved by the mean
 * of each of its compile-time values (the unroll and tile factors dominate); 0 when none built. */
double ahead_predict(const ahead *a, size_t bin);
/* The mean predicted compile seconds over all binaries; 0 when none was built. */
double ahead_predict_mean(ahead *a);
/* How many binaries the slots can build in `seconds`, by the predictions; 0 when none was built. */
size_t ahead_affordable(ahead *a, double seconds);

#endif
