/* measure_search.c: a search's measurements, live. The strategy proposes; the schedule
 * (schedule.c) decides what is measured when against the compile pool; each proposal is visited
 * on the first GPU as it comes, since the next proposal depends on this one's result. */
#include <math.h>
#include <stdlib.h>

#include "ahead.h"
#include "config.h"
#include "measure_pass.h"
#include "proc.h"
#include "search.h"
#include "banned.h"

static int search_over(void *ctx)
{
	const pass *P = ctx;
	return P->stopped || measure_stopping(P->o) || (P->deadline > 0 && now_seconds() > P->deadline);
}

/* The first GPU's worker as a search's lane (schedule.h). */
static void lane_measure(void *ctx, size_t c, int ahead)
{
	pass *P = ctx;
	trace_event(ahead ? "search measures %zu ahead of its turn" : "search visits %zu", c);
	pthread_mutex_lock(&P->lock);
	P->visit(P, &P->lanes[0], c);
	pthread_mutex_unlock(&P->lock);
	if (!ahead)
		trace_event("search visited %zu", c);
}

/* The search's view of a measurement: the time, or INFINITY for anything that did not pass. */
static double lane_time(void *ctx, size_t c)
{
	const pass *P = ctx;
	const result *r = &P->res[c];
	return result_passed(r) ? result_rank(r) : INFINITY;
}

void pass_search(pass *P, size_t budget)
{
	const measure_opts *o = P->o;
	size_t *order = xcalloc(budget + 1, sizeof *order);
	int ahead = o->build && ahead_enabled();
	schedule S = {.of_config = P->b->of_config, .nbins = P->b->nbins, .lane = {lane_measure, lane_time, search_over},
		      .lane_ctx = P, .pool = lane_pool_ops, .pool_ctx = &P->pool,
		      .early = ahead ? xcalloc(P->sp->count + 1, 1) : NULL};
	search_run(P->cfg, P->sp, &(search_opts){.strategy = o->strategy, .prior = o->prior, .budget = budget,
		   .seed = o->seed, .eval = schedule_eval, .hint = schedule_hint, .commit = ahead ? schedule_commit : NULL,
		   .poll = ahead ? schedule_poll : NULL, .peek = ahead ? schedule_peek : NULL,
		   .start = o->start, .nstart = o->nstart, .over = schedule_over, .ctx = &S},
		   order);
	free(order);
	free(S.early);
	schedule_free(&S);
}
