/* pool.h: the compile pool as the measuring stage's lanes share it. The builder (compile.h) is
 * not thread-safe: one lane at a time calls it, under the pool's own lock, never the pass's, so
 * that the other lanes record their results meanwhile. */
#ifndef AUTOTUNE_POOL_H
#define AUTOTUNE_POOL_H

#include <pthread.h>
#include <stddef.h>

#include "schedule.h"

typedef struct builder builder;

typedef struct {
	builder *build;       /* NULL: everything is built already */
	pthread_mutex_t lock; /* the builder's */
	double wait_s;        /* the lanes' time waiting for binaries, all lanes together */
} lane_pool;

void lane_pool_init(lane_pool *p, builder *build);
void lane_pool_destroy(lane_pool *p);
/* Blocks until binary bin is built: 0, or -1 when nvcc cannot run. */
int lane_pool_wait(lane_pool *p, size_t bin);
/* The pool for a search's schedule (schedule.h), with a lane_pool as its context: waits of up
 * to 200 ms a step. */
extern const pool_ops lane_pool_ops;
/* What the next measurements need (configurations, of_config their binaries): compiled first
 * in the free slots. */
void lane_pool_hint(lane_pool *p, const size_t *of_config, size_t nbins, const size_t *configs, size_t n);

#endif
