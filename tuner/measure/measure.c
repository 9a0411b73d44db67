/* measure.c: the executor of the first pass over the space (or a search's proposals), one lane
 * per GPU: a visit restores, shares or measures a configuration as the scheduler (schedule.c)
 * decides, with the GPU work outside the lock, records it in the results and tells the observers
 * (observe.h: the journal, the progress line). The reference runs first because every other configuration is checked
 * against its outputs. A search's lane is measure_search.c's; the finish (near-ties settled by
 * interleaved re-timing, then counters) and the other lanes' threads are finish.c's. */
#include "measure.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ahead.h"
#include "compile.h"
#include "config.h"
#include "objective.h"
#include "observe.h"
#include "plan.h"
#include "pool.h"
#include "proc.h"
#include "schedule.h"
#include "search.h"
#include "measure_pass.h"
#include "banned.h"

int measure_is_search(int strategy, size_t budget, double seconds, size_t count)
{
	return strategy != STRAT_EXHAUSTIVE || (budget && budget < count) || seconds;
}

/* Waits until binary bin is built; called with P->lock held, which is released meanwhile. */
static int wait_binary(pass *P, size_t bin)
{
	if (!P->pool.build)
		return 0;
	pthread_mutex_unlock(&P->lock);
	int rc = lane_pool_wait(&P->pool, bin);
	pthread_mutex_lock(&P->lock);
	return rc;
}

/* What the scheduler reads of the results and binaries (pass_view; P->lock held). */
static int view_same_launch(void *ctx, size_t a, size_t c)
{
	const pass *P = ctx;
	return plan_same_launch(P->cfg, P->sp, P->b, P->res, a, c);
}

static int view_same_code(void *ctx, size_t a, size_t c)
{
	const pass *P = ctx;
	return !strcmp(P->b->bins[P->b->of_config[a]].code, P->b->bins[P->b->of_config[c]].code);
}

/* What a lane is to do with a configuration, decided under the lock. */
typedef struct {
	enum { STEP_DONE, STEP_DEFER, STEP_MEASURE, STEP_STOP } kind;
	proto_role role;
	int run_ref_kernel;  /* run verify.kernel on this lane's worker first */
	long long refresh;   /* run this configuration as the reference first, -1: no */
	result ref_copy;     /* its launch, for refresh */
	result tmp;          /* the measurement, owned by the lane while unlocked */
	double race_ms;      /* raced out above this (0: not raced): its GPU's best so far x race */
	double near_ms;      /* and above this from RACE_AFTER samples on: too slow to be a finalist */
	double timeout;
} step;

/* A configuration that needs no run (its result stands, or it failed to compile): STEP_DONE,
 * or STEP_STOP when it is the named reference and cannot serve (P->lock held). */
static int settled(pass *P, size_t c)
{
	result *r = &P->res[c];
	int retry = P->o->retry_failed;
	if ((long long)c == P->S.named && r->predicted) {
		diags_add(P->d, "the verify reference cannot launch on this GPU: %s; name another in verify.reference",
			  r->message);
		P->stopped = P->o->reference_failed = 1;
		return STEP_STOP;
	}
	if ((long long)c == P->S.named && r->st != ST_OK && r->st != ST_NOT_RUN && !plan_needs_run(r, retry)) {
		plan_reference_failed(P->cfg, P->sp, P->b, r, c, P->d);
		P->stopped = P->o->reference_failed = 1;
		return STEP_STOP;
	}
	objective_apply(P->cfg, space_config(P->sp, c), r);
	if (result_passed(r)) {
		/* a resumed run's earlier results count towards the best so far */
		char *desc = space_describe(P->cfg, space_config(P->sp, c));
		observe_best(P->seen, result_time(r), desc);
		free(desc);
	}
	observe_step(P->seen, ++P->done, NULL);
	return STEP_DONE;
}

/* Restores, shares or claims configuration c for lane L (P->lock held). */
static step prelude(pass *P, lane *L, size_t c)
{
	const config *cfg = P->cfg;
	const build *b = P->b;
	measure_opts *o = P->o;
	result *r = &P->res[c];
	const binary *bin = &b->bins[b->of_config[c]];
	step s;
	memset(&s, 0, sizeof s);
	s.kind = STEP_DONE;
	s.role = PROTO_ROLE_REF;
	s.refresh = -1;
	/* first, as it may let go of the lock: c is this lane's, but the rest can change meanwhile */
	if (wait_binary(P, b->of_config[c]) || (P->S.ref_kernel && L->loaded < 0 && wait_binary(P, (size_t)b->ref_bin))) {
		P->stopped = -1;
		s.kind = STEP_STOP;
		return s;
	}
	if (bin->killed)
		return s; /* nvcc fell to a signal that stops jobs: not a compile error */
	char ident[17] = "";
	if (o->setting && !bin->failed && bin->code[0])
		plan_identity(cfg, P->sp, b, P->res, c, o->setting, ident);
	plan_forget_unlike(r, bin, *ident ? ident : NULL);
	plan_apply_binary(bin, o->cc, r);
	/* measured before an edit that left its binary and inputs as they were: taken, and kept in
	 * this run's journal under its index too */
	if (r->st == ST_NOT_RUN && !bin->failed && journal_reuse(o->journal, ident, r)) {
		o->reused++;
		observe_result(P->seen, SEEN_REUSED, c, r);
	}
	/* an earlier run's passing result can stand as its group's reference */
	if (r->st == ST_OK && !plan_needs_run(r, o->retry_failed))
		schedule_earlier_passed(&P->S, c);
	if (!plan_needs_run(r, o->retry_failed) || bin->failed) {
		s.kind = settled(P, c);
		return s;
	}
	long long same = plan_twin(cfg, P->sp, b, P->res, c);
	if (same >= 0 && (long long)c != P->S.named) {
		plan_copy_measurement(r, &P->res[same], same);
		o->shared++;
		observe_result(P->seen, SEEN_SHARED, c, r);
		observe_step(P->seen, ++P->done, NULL);
		return s;
	}
	schedule_claim cl;
	if (!schedule_claim_config(&P->S, L->gpu, L->loaded, c, &cl)) {
		s.kind = STEP_DEFER;
		return s;
	}
	s.role = cl.role;
	s.run_ref_kernel = cl.run_ref_kernel;
	s.refresh = cl.refresh;
	if (s.refresh >= 0) {
		s.ref_copy = P->res[s.refresh];
		s.ref_copy.message = NULL;
	}
	/* a plan's outputs do not depend on the connections: its reference is loaded on the worker
	 * that c runs on, not on one of the reference's own */
	if (s.refresh >= 0 && r->connections)
		s.ref_copy.connections = r->connections;
	s.tmp = *r;
	/* the lane owns the result while it measures; its message is this measurement's, not an
	 * earlier run's (a retried crash that now passes says nothing of the crash) */
	free(r->message);
	r->message = s.tmp.message = NULL;
	s.timeout = plan_timeout(cfg, P->slowest);
	/* against the same GPU's best (another model's would race this one's out), as this launch's ms */
	schedule_race(cfg->race, objective_best_ms(cfg, space_config(P->sp, c), L->best_ms), P->searching,
		      PLAN_FINAL_WITHIN, &s.race_ms, &s.near_ms);
	s.kind = STEP_MEASURE;
	return s;
}

/* The GPU work of a step, on the lane's own worker (P->lock not held). 0, 1 when the reference
 * failed (reported in L->d), -1 when the worker is gone. */
static int measure_step(pass *P, lane *L, size_t c, step *s)
{
	const binary *bin = &P->b->bins[P->b->of_config[c]];
	if (s->run_ref_kernel) {
		int fr = pass_run_reference_kernel(P->cfg, P->sp, P->b, &P->gpu, L->rn, &L->d);
		if (fr)
			return fr;
		L->loaded = (long long)P->S.group[c];
	}
	if (s->refresh >= 0) {
		int fr = pass_refresh_reference(P->cfg, P->sp, P->b, s->ref_copy, (size_t)s->refresh, &P->gpu, L->rn, &L->d);
		if (fr)
			return fr;
		L->loaded = (long long)P->S.group[c];
	}
	pthread_mutex_lock(&P->lock);
	observe_result(P->seen, SEEN_STARTED, c, &s->tmp);
	pthread_mutex_unlock(&P->lock);
	sample_plan plan = P->plan;
	plan.rule.race_ms = s->race_ms;
	plan.rule.near_ms = s->near_ms;
	return P->gpu.measure(L->rn, P->cfg, space_config(P->sp, c), s->role, bin, &plan, &s->tmp, s->timeout, &L->d)
		       ? -1
		       : 0;
}

/* Records a step's measurement (P->lock held). */
static void epilogue(pass *P, lane *L, size_t c, step *s, int rc)
{
	const config *cfg = P->cfg;
	measure_opts *o = P->o;
	result *r = &P->res[c];
	free(r->message);
	*r = s->tmp;
	objective_apply(cfg, space_config(P->sp, c), r);
	schedule_finished(&P->S, c, s->role);
	pthread_cond_broadcast(&P->changed);
	if (rc) {
		/* not measured: the worker is gone, or the reference this needed failed */
		P->stopped = P->stopped < 0 ? -1 : rc;
		return;
	}
	if (r->st == ST_NOT_RUN) {
		/* a signal from outside stopped the worker (a batch system's time limit reaches the
		 * whole job): nothing is known about this configuration, and a resumed run measures
		 * it again rather than count it crashed */
		observe_result(P->seen, SEEN_STOPPED, c, r);
		observe_step(P->seen, ++P->done, NULL);
		return;
	}
	o->measured++;
	r->gpu = L->gpu;
	memcpy(r->code, P->b->bins[P->b->of_config[c]].code, sizeof r->code);
	if (o->setting)
		plan_identity(cfg, P->sp, P->b, P->res, c, o->setting, r->ident);
	observe_result(P->seen, SEEN_MEASURED, c, r);
	if (r->st == ST_OK) {
		P->passed++;
		if (P->best_ms <= 0 || r->t_median < P->best_ms)
			P->best_ms = r->t_median;
		if (L->best_ms <= 0 || result_first_rank(r) < L->best_ms)
			L->best_ms = result_first_rank(r);
		if (schedule_passed(&P->S, c))
			L->loaded = (long long)P->S.group[c];
		if (r->t_max * r->batch > P->slowest)
			P->slowest = r->t_max * r->batch;
	} else if (s->role == PROTO_ROLE_REF && (long long)c == P->S.named) {
		char *desc = space_describe(cfg, space_config(P->sp, c));
		diags_at(P->d, cfg->path, cfg->reference_at.line, cfg->reference_at.col,
			 "the verify reference (%s) failed: %s%s%s", desc, status_name(r->st), r->message ? ": " : "",
			 r->message ? r->message : "");
		free(desc);
		P->stopped = P->o->reference_failed = 1;
		return;
	}
	schedule_count_vote(&P->S, L->gpu, c, s->role,
			    r->st == ST_OK ? VERDICT_OK : r->st == ST_WRONG_RESULT ? VERDICT_WRONG : VERDICT_OTHER);
	/* without a named reference, a candidate that fails hands the role to the next one */
	char *desc = space_describe(cfg, space_config(P->sp, c));
	if (r->st == ST_OK)
		observe_best(P->seen, result_time(r), desc);
	observe_step(P->seen, ++P->done, desc);
	free(desc);
}

/* Visits configuration c on lane L: restores or measures it, or shares a twin's measurement.
 * Called and returns with P->lock held; STEP_DEFER when it must wait for another lane. */
static int visit(pass *P, lane *L, size_t c)
{
	/* counted from here: the prelude may wait for the binary without the lock */
	P->S.visiting++;
	step s = prelude(P, L, c);
	if (s.kind == STEP_MEASURE) {
		pthread_mutex_unlock(&P->lock);
		int rc = measure_step(P, L, c, &s);
		pthread_mutex_lock(&P->lock);
		epilogue(P, L, c, &s, rc);
		if (schedule_reelects(&P->S, L->gpu, P->S.group[c]))
			vote_reelect(P, L, P->S.group[c], visit);
	}
	P->S.visiting--;
	pthread_cond_broadcast(&P->changed);
	return s.kind;
}

/* The next configuration for a lane of the exhaustive pass (P->lock held), waiting while only
 * put-back ones remain and another lane is still measuring. 0 when there is nothing left. */
static int next_config(pass *P, size_t *c)
{
	for (;;) {
		if (P->stopped || measure_stopping(P->o))
			return 0;
		int next = schedule_next_config(&P->S, c);
		if (next != QUEUE_BLOCKED)
			return next == QUEUE_NEXT;
		pthread_cond_wait(&P->changed, &P->lock);
	}
}

/* What the decision to leave the first pass for the counters looks at (P->lock held). */
static profile_view view_of(const pass *P)
{
	return (profile_view){.lanes = P->nlanes, .want = P->want, .passed = P->passed, .best_ms = P->best_ms,
			      .finalists = P->cfg->finalists, .measuring = P->measuring, .measures = P->measures,
			      .shares = P->shares, .measure_s = P->measure_s, .left = schedule_queue_left(&P->S.Q)};
}

static void *lane_main(void *arg)
{
	lane *L = arg;
	pass *P = L->P;
	size_t c;
	/* a GPU still starting joins the queue when it is ready */
	if (!L->rn && (!P->o->join || !(L->rn = P->o->join(P->o->join_ctx, (size_t)L->gpu)))) {
		pthread_mutex_lock(&P->lock);
		P->measuring--;
		pthread_cond_broadcast(&P->changed);
		pthread_mutex_unlock(&P->lock);
		return NULL;
	}
	trace_event("lane %d measures", L->gpu);
	pthread_mutex_lock(&P->lock);
	for (profile_view v = view_of(P); !(L->left = schedule_leaves_to_profile(&v, L->gpu)) && next_config(P, &c);
	     v = view_of(P)) {
		double t0 = now_seconds();
		int kind = visit(P, L, c);
		if (kind == STEP_DEFER)
			schedule_queue_defer(&P->S.Q, c);
		else if (kind == STEP_STOP)
			break;
		else if (kind == STEP_MEASURE) {
			double dt = now_seconds() - t0;
			P->measure_s = P->measures++ ? 0.75 * P->measure_s + 0.25 * dt : dt;
		} else
			P->shares++;
	}
	schedule_lane_leaves(&P->S, L->gpu);
	if (L->left && !P->counters.order) {
		double session;
		profile_view v = view_of(P);
		pass_choose_counters(P, schedule_profile_share(&v, &session)); /* the finish plans again on the final times */
	}
	P->measuring--;
	pthread_cond_broadcast(&P->changed);
	pthread_mutex_unlock(&P->lock);
	trace_event(L->left ? "lane %d: leaves the first pass for the counters" : "lane %d: first pass done", L->gpu);
	return NULL;
}

/* The exhaustive pass measures the most promising first (o->prior, ties in space order; space
 * order without one): the fastest so far is soon near the best, so that the rest race out early,
 * and a run cut short holds the likely-good (a plan's within each worker it needs). Their binaries
 * are built in the same order. */
static size_t *exhaustive_order(pass *P)
{
	size_t *queue = search_order(P->o->prior, P->sp->count);
	if (P->cfg->plan.nlaunches) {
		int *connections = xcalloc(P->sp->count + 1, sizeof *connections);
		for (size_t c = 0; c < P->sp->count; c++)
			connections[c] = P->res[c].connections;
		schedule_by_worker(queue, P->sp->count, connections, P->S.group);
		free(connections);
	}
	if (P->o->build && P->o->prior)
		lane_pool_hint(&P->pool, P->b->of_config, P->b->nbins, queue, P->sp->count);
	return queue;
}

static int first_pass(pass *P)
{
	lane *lanes = P->lanes;
	const config *cfg = P->cfg;
	const space *sp = P->sp;
	measure_opts *o = P->o;
	result *res = P->res;
	size_t budget = o->budget && o->budget < sp->count ? o->budget : sp->count;
	if (o->seconds > 0 && !o->budget && o->build && ahead_enabled())
		budget = schedule_seconds_budget(sp->count, P->b->nbins, ahead_affordable(build_ahead(o->build), o->seconds));
	/* every configuration counts: which ones need measuring shows only as binaries arrive */
	observe_phase(P->seen, "measure", budget, 1);
	for (size_t c = 0; c < sp->count; c++)
		if (res[c].st == ST_OK && res[c].t_max * res[c].batch > P->slowest)
			P->slowest = res[c].t_max * res[c].batch;
	long long named = cfg->has_reference ? sp->reference : -1;
	int ref_kernel = P->b->ref_bin >= 0;
	schedule_pass_init(&P->S, sp->count, plan_reference_groups(cfg, sp), named, ref_kernel,
			   named < 0 && !ref_kernel && pass_outputs_from_reference(cfg),
			   (pass_view){view_same_launch, view_same_code, P});
	P->searching = measure_is_search(o->strategy, o->budget, o->seconds, sp->count);
	/* a named reference goes first, on the first GPU; the others load it when they start */
	pthread_mutex_lock(&P->lock);
	if (P->S.named >= 0)
		visit(P, &lanes[0], (size_t)P->S.named);
	pthread_mutex_unlock(&P->lock);
	if (o->seconds > 0)
		P->deadline = now_seconds() + o->seconds;
	if (!P->searching) {
		P->S.Q = (schedule_queue){.order = exhaustive_order(P), .count = sp->count, .skip = P->S.named,
					  .finishes = P->S.Q.finishes};
		if (!P->stopped) {
			/* one queue for every GPU; the first lane runs here, and the pass is over once no
			 * lane measures any more */
			P->shared_queue = 1;
			P->measuring = P->nlanes;
			pass_start_other_lanes(P);
			pthread_mutex_lock(&P->lock);
			for (size_t i = 1; i < P->nlanes; i++)
				P->measuring -= !lanes[i].threaded;
			pthread_mutex_unlock(&P->lock);
			lane_main(&lanes[0]);
			pthread_mutex_lock(&P->lock);
			while (P->measuring)
				pthread_cond_wait(&P->changed, &P->lock);
			pthread_mutex_unlock(&P->lock);
		}
	} else if (!P->stopped)
		pass_search(P, budget);
	observe_phase(P->seen, NULL, 0, 0);
	pass_reference_note(P);
	schedule_pass_free(&P->S);
	return P->stopped < 0 ? -1 : 0;
}

/* A lane's failures become the run's. */
static void join_diags(diags *d, lane *L)
{
	for (size_t i = 0; i < L->d.n; i++)
		diags_add(d, "%s", L->d.msgs[i]);
	diags_free(&L->d);
}

int measure_space(const config *cfg, const space *sp, const build *b, result *res, runner *const *runners,
		  size_t nrunners, measure_opts *o, diags *d)
{
	size_t before = d->n;
	pass P;
	memset(&P, 0, sizeof P);
	P.cfg = cfg;
	P.sp = sp;
	P.b = b;
	P.res = res;
	P.o = o;
	P.d = d;
	P.plan = (sample_plan){.warmup = cfg->warmup, .rule = {.min_samples = (size_t)cfg->min_samples,
			       .max_samples = (size_t)cfg->max_samples, .time_cap_s = cfg->time_cap, .noise_target = cfg->noise_target},
			       .energy_s = cfg->measure_energy ? ENERGY_WINDOW_S : 0};
	P.nlanes = nrunners;
	P.lanes = xcalloc(nrunners, sizeof *P.lanes);
	for (size_t i = 0; i < nrunners; i++)
		P.lanes[i] = (lane){.rn = runners[i], .gpu = (int)i, .loaded = -1, .P = &P};
	P.counters.taken = xcalloc(sp->count + 1, 1);
	P.pass_lane = lane_main;
	P.visit = visit;
	P.want = schedule_counters_wanted(cfg->metrics, cfg->metrics_top);
	journal_observer journal;
	progress_observer line;
	P.seen = journal_observer_init(&journal, o->journal, &o->journal_failed, &o->journal_note,
				       progress_observer_init(&line, o->progress, o->observers));
	P.gpu = o->worker ? *o->worker : (worker_ops){runner_measure, runner_profile, runner_quit};
	pthread_mutex_init(&P.lock, NULL);
	lane_pool_init(&P.pool, o->build);
	pthread_cond_init(&P.changed, NULL);
	double t0 = now_seconds();
	int rc = first_pass(&P);
	o->first_pass_s = now_seconds() - t0;
	/* per lane that measured: a search measures on the first alone */
	o->wait_s = P.pool.wait_s / (double)(P.searching ? 1 : nrunners);
	for (size_t i = 0; i < nrunners; i++)
		if (!P.lanes[i].left) /* (one that left may still be profiling) */
			join_diags(d, &P.lanes[i]);
	if (!rc && d->n == before && !measure_stopping(o)) {
		/* (else the reference failed: nothing to compare with) */
		t0 = now_seconds();
		rc = pass_finish(&P);
		o->counters_s = now_seconds() - t0 - o->final_s;
	}
	pass_join_other_lanes(&P);
	for (size_t i = 0; i < nrunners; i++)
		join_diags(d, &P.lanes[i]);
	pthread_cond_destroy(&P.changed);
	lane_pool_destroy(&P.pool);
	pthread_mutex_destroy(&P.lock);
	free(P.counters.order);
	free(P.counters.taken);
	free(P.lanes);
	if (rc || d->n > before || measure_stopping(o))
		return rc;
	/* the sharers follow their measured twin's final numbers */
	for (size_t c = 0; c < sp->count; c++)
		if (res[c].shares_with >= 0)
			plan_copy_measurement(&res[c], &res[res[c].shares_with], res[c].shares_with);
	for (size_t c = 0; c < sp->count; c++)
		if (res[c].st == ST_OK)
			plan_derive(cfg, space_config(sp, c), &res[c], o->max_mhz, o->copy_gbps);
	return 0;
}
