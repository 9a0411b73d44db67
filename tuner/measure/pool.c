/* pool.c: the compile pool behind the lanes: the builder under a lock of its own, and the time
 * the lanes waited for it. */
#include "pool.h"

#include <stdlib.h>

#include "compile.h"
#include "proc.h"
#include "banned.h"

void lane_pool_init(lane_pool *p, builder *build)
{
	p->build = build;
	p->wait_s = 0;
	pthread_mutex_init(&p->lock, NULL);
}

void lane_pool_destroy(lane_pool *p) { pthread_mutex_destroy(&p->lock); }

int lane_pool_wait(lane_pool *p, size_t bin)
{
	if (!p->build)
		return 0;
	double t0 = now_seconds();
	pthread_mutex_lock(&p->lock);
	trace_event("wait for binary %zu", bin);
	int rc = build_wait(p->build, bin);
	trace_event("binary %zu ready", bin);
	p->wait_s += now_seconds() - t0;
	pthread_mutex_unlock(&p->lock);
	return rc;
}

static int pool_done(void *ctx, size_t bin)
{
	lane_pool *p = ctx;
	if (!p->build)
		return 1;
	pthread_mutex_lock(&p->lock);
	int done = build_done(p->build, bin);
	pthread_mutex_unlock(&p->lock);
	return done;
}

/* Waits for a compile, up to 200 ms. */
static int pool_wait(void *ctx, size_t bin)
{
	lane_pool *p = ctx;
	double t0 = now_seconds();
	pthread_mutex_lock(&p->lock);
	int rc = build_poll(p->build, bin, 200);
	p->wait_s += now_seconds() - t0;
	pthread_mutex_unlock(&p->lock);
	return rc;
}

static void pool_hint(void *ctx, const size_t *bins, size_t n)
{
	lane_pool *p = ctx;
	if (!p->build)
		return;
	pthread_mutex_lock(&p->lock);
	build_hint(p->build, bins, n);
	pthread_mutex_unlock(&p->lock);
}

static void pool_commit(void *ctx, const size_t *bins, size_t n)
{
	lane_pool *p = ctx;
	pthread_mutex_lock(&p->lock);
	build_commit(p->build, bins, n);
	pthread_mutex_unlock(&p->lock);
}

const pool_ops lane_pool_ops = {NULL, pool_done, pool_wait, NULL, pool_hint, pool_commit};

void lane_pool_hint(lane_pool *p, const size_t *of_config, size_t nbins, const size_t *configs, size_t n)
{
	size_t *bins = xcalloc(n + 1, sizeof *bins), nb = schedule_binaries(of_config, nbins, configs, n, bins);
	pool_hint(p, bins, nb);
	free(bins);
}
