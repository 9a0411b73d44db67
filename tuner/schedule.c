/* schedule.c: a search's measurements against its compiles, as the live run and a replay both
 * make them: a configuration waited for is measured once its binary is in, and meanwhile any
 * committed configuration whose binary arrived first. */
#include "schedule.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "banned.h"

/* What a GPU's profiling costs, to decide when it leaves the first pass for it (H200, CUPTI 13):
 * the first session's start (155-195 ms), then per kernel about 6 ms of passes and 14 times its
 * own duration (the hardware passes, and the SASS-instrumented replay at about 12 times) */
#define PROFILE_START_S 0.18
#define PROFILE_KERNEL_S 0.006
#define PROFILE_REPLAYS 14.0
/* a later session's cost beyond its kernels, the profiler being on: its start and passes */
#define PROFILE_SESSION_S 0.04
/* a worker's exit (its context's teardown): the driver does one at a time, so a GPU that is done
 * should be gone before the last one quits (0.12 s for two at once, 0.06 for one, H200) */
#define WORKER_EXIT_S 0.07
/* a finalist's run beyond its samples and its untimed warm-up launch: the host's share */
#define FINAL_RUN_S 0.0015

size_t schedule_binaries(const size_t *of_config, size_t nbins, const size_t *configs, size_t n, size_t *bins)
{
	size_t nb = 0;
	char *seen = xcalloc(nbins + 1, 1);
	for (size_t i = 0; i < n; i++) {
		size_t k = of_config[configs[i]];
		if (!seen[k])
			bins[nb++] = k;
		seen[k] = 1;
	}
	free(seen);
	return nb;
}

/* A committed configuration other than c, not measured yet, whose binary is in; -1 when none. */
static long long ready_committed(const schedule *S, size_t c)
{
	for (size_t i = 0; i < S->ncommit; i++) {
		size_t e = S->commit[i];
		if (e != c && !S->early[e] && S->pool.done(S->pool_ctx, S->of_config[e]))
			return (long long)e;
	}
	return -1;
}

/* One step of waiting for c's binary: 1 once it is in or nothing more can come (the search is
 * over, or nvcc cannot run: the measurement says why); else a committed configuration whose
 * binary is in is measured, or the pool is waited on a step, and whether c's binary is in now. */
static int wait_step(schedule *S, size_t c)
{
	if (schedule_over(S))
		return 1;
	size_t bin = S->of_config[c];
	if (S->pool.want)
		S->pool.want(S->pool_ctx, bin);
	if (S->pool.done(S->pool_ctx, bin))
		return 1;
	long long e = S->early ? ready_committed(S, c) : -1;
	if (e >= 0) {
		S->early[e] = 1;
		S->lane.measure(S->lane_ctx, (size_t)e, 1);
		if (S->pool.collect)
			S->pool.collect(S->pool_ctx);
	} else if (S->pool.wait(S->pool_ctx, bin))
		return 1;
	return S->pool.done(S->pool_ctx, bin);
}

int schedule_poll(void *ctx, size_t c)
{
	schedule *S = ctx;
	return (S->early && S->early[c]) || wait_step(S, c);
}

double schedule_peek(void *ctx, size_t c)
{
	schedule *S = ctx;
	return S->early && S->early[c] ? S->lane.time(S->lane_ctx, c) : NAN;
}

int schedule_over(void *ctx)
{
	schedule *S = ctx;
	return S->lane.over && S->lane.over(S->lane_ctx);
}

double schedule_eval(void *ctx, size_t c)
{
	schedule *S = ctx;
	if (!S->early || !S->early[c]) {
		while (!wait_step(S, c))
			;
		if (schedule_over(S))
			return INFINITY; /* the rest of the search costs nothing: nothing more is measured */
		if (S->early)
			S->early[c] = 1;
		S->lane.measure(S->lane_ctx, c, 0);
	}
	return S->lane.time(S->lane_ctx, c);
}

void schedule_hint(void *ctx, const size_t *configs, size_t n)
{
	schedule *S = ctx;
	if (!S->pool.hint)
		return;
	size_t *bins = xcalloc(n + 1, sizeof *bins), nb = schedule_binaries(S->of_config, S->nbins, configs, n, bins);
	S->pool.hint(S->pool_ctx, bins, nb);
	free(bins);
}

void schedule_commit(void *ctx, const size_t *configs, size_t n)
{
	schedule *S = ctx;
	grow(&S->commit, &S->commit_cap, n + 1, sizeof *S->commit);
	memcpy(S->commit, configs, n * sizeof *configs);
	S->ncommit = n;
	size_t *bins = xcalloc(n + 1, sizeof *bins), nb = schedule_binaries(S->of_config, S->nbins, configs, n, bins);
	S->pool.commit(S->pool_ctx, bins, nb);
	free(bins);
}

void schedule_free(schedule *S)
{
	free(S->commit);
	S->commit = NULL;
	S->ncommit = S->commit_cap = 0;
}

int schedule_queue_next(schedule_queue *Q, size_t *c)
{
	for (size_t k = 0; k < Q->ndeferred; k++)
		if (Q->deferred[k].at != Q->finishes) {
			*c = Q->deferred[k].c;
			memmove(Q->deferred + k, Q->deferred + k + 1, (--Q->ndeferred - k) * sizeof *Q->deferred);
			return QUEUE_NEXT;
		}
	while (Q->cursor < Q->count && (long long)Q->order[Q->cursor] == Q->skip)
		Q->cursor++;
	if (Q->cursor < Q->count) {
		*c = Q->order[Q->cursor++];
		return QUEUE_NEXT;
	}
	return Q->ndeferred ? QUEUE_BLOCKED : QUEUE_EMPTY;
}

void schedule_queue_defer(schedule_queue *Q, size_t c)
{
	grow(&Q->deferred, &Q->deferred_cap, Q->ndeferred + 1, sizeof *Q->deferred);
	Q->deferred[Q->ndeferred++] = (struct put_back){c, Q->finishes};
}

void schedule_queue_finished(schedule_queue *Q) { Q->finishes++; }

void schedule_queue_release(schedule_queue *Q)
{
	/* any mark but the present one */
	for (size_t k = 0; k < Q->ndeferred; k++)
		Q->deferred[k].at = Q->finishes - 1;
}

size_t schedule_queue_left(const schedule_queue *Q) { return Q->count - Q->cursor; }

void schedule_queue_free(schedule_queue *Q)
{
	free(Q->order);
	free(Q->deferred);
	Q->order = NULL;
	Q->deferred = NULL;
	Q->ndeferred = Q->deferred_cap = Q->count = Q->cursor = 0;
}

size_t schedule_profile_share(const profile_view *v, double *seconds)
{
	size_t sharers = v->lanes - 1, top = v->want < v->passed ? v->want : v->passed;
	double t = v->best_ms / 1000, kernel = PROFILE_KERNEL_S + PROFILE_REPLAYS * t;
	double finals = v->finalists >= 2 ? v->finalists * FINAL_ROUNDS * ((FINAL_SAMPLES + 1) * t + FINAL_RUN_S) : 0;
	double spare = finals - PROFILE_SESSION_S - WORKER_EXIT_S;
	double last = spare > 0 ? spare / kernel * (double)sharers : 0;
	size_t early = top > (size_t)last + 1 ? top - (size_t)last : (top ? 1 : 0);
	*seconds = PROFILE_START_S + (double)((early + sharers - 1) / sharers) * kernel;
	return early;
}

int schedule_leaves_to_profile(const profile_view *v, int gpu)
{
	if (gpu == 0 || !v->want || v->measuring < 2 || v->measures < 2 * v->lanes || v->best_ms <= 0)
		return 0;
	double session;
	if (!schedule_profile_share(v, &session))
		return 0;
	/* what is left of the queue, as far as the visits so far needed measuring (those put back
	 * mostly wait for a twin: they will share its measurement) */
	double rest = (double)v->left * v->measure_s * (double)v->measures / (double)(v->measures + v->shares);
	return session + v->measure_s / 2 >= rest / (double)(v->measuring - 1);
}

typedef struct {
	int connections;
	size_t group, at, c;
} worker_key;

static int by_worker_key(const void *x, const void *y)
{
	const worker_key *a = x, *b = y;
	if (a->connections != b->connections)
		return a->connections < b->connections ? -1 : 1;
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	return (a->at > b->at) - (a->at < b->at);
}

void schedule_by_worker(size_t *queue, size_t n, const int *connections, const size_t *group)
{
	worker_key *k = xcalloc(n + 1, sizeof *k);
	for (size_t i = 0; i < n; i++)
		k[i] = (worker_key){connections[queue[i]], group[queue[i]], i, queue[i]};
	qsort(k, n, sizeof *k, by_worker_key);
	for (size_t i = 0; i < n; i++)
		queue[i] = k[i].c;
	free(k);
}
