/* schedule.c: a search's measurements against its compiles, as the live run and a replay both
 * make them: a configuration waited for is measured once its binary is in, and meanwhile any
 * committed configuration whose binary arrived first. */
#include "schedule.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "banned.h"

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
