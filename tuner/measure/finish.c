/* finish.c: the measuring stage's finish. The fastest few are re-timed interleaved (A B C A B C
 * ...), so that slow drifts of clock or temperature hit all of them alike, and the hardware
 * counters of the fastest are taken, a profiling session at a time. The lanes other than the
 * first live on threads of their own, started and joined here. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "measure_pass.h"
#include "objective.h"
#include "observe.h"
#include "plan.h"
#include "proc.h"
#include "select.h"
#include "stats.h"
#include "banned.h"

/* Re-times the fastest few in rounds, A B C A B C ..., each round a short run of samples. */
/* On the first GPU alone: the finalists are compared with one another. With several GPUs the
 * others collect counters meanwhile, so shared state is touched under P->lock only. */
static int finalists(pass *P)
{
	const config *cfg = P->cfg;
	const space *sp = P->sp;
	const build *b = P->b;
	result *res = P->res;
	lane *L = &P->lanes[0];
	measure_opts *o = P->o;
	pthread_mutex_lock(&P->lock);
	size_t k, *idx = plan_finalists(res, sp->count, cfg->finalists, &k);
	/* resumed with nothing new measured: the journaled finalists stand */
	int all_final = 1;
	for (size_t f = 0; f < k; f++)
		all_final &= res[idx[f]].final_rounds > 0;
	if (!schedule_retime_finalists(k, all_final, o->measured)) {
		pthread_mutex_unlock(&P->lock);
		free(idx);
		return 0;
	}
	/* earlier finals were taken against other times: rank on first-pass times again */
	for (size_t i = 0; i < sp->count; i++) {
		res[i].final_rounds = 0;
		objective_apply(cfg, space_config(sp, i), &res[i]);
	}
	free(idx);
	idx = plan_finalists(res, sp->count, cfg->finalists, &k);
	pthread_mutex_unlock(&P->lock);
	double *rounds = xcalloc(k * FINAL_ROUNDS, sizeof *rounds), scratch[FINAL_ROUNDS];
	int rc = 0;
	size_t got = 0;
	for (size_t round = 0; round < FINAL_ROUNDS && !rc && !measure_stopping(o); round++) {
		size_t f;
		for (f = 0; f < k && !rc && !measure_stopping(o); f++) {
			pthread_mutex_lock(&P->lock);
			result tmp = res[idx[f]];
			tmp.message = NULL;
			double timeout = plan_timeout(cfg, res[idx[f]].t_max * res[idx[f]].batch);
			int warm, n = plan_final_samples(res[idx[f]].t_median * (res[idx[f]].batch > 0 ? res[idx[f]].batch : 1),
							 FINAL_SAMPLES, FINAL_ROUND_MS, &warm);
			sample_plan plan = {.warmup = warm, .rule = {.min_samples = (size_t)n, .max_samples = (size_t)n,
					    .time_cap_s = cfg->time_cap, .noise_target = cfg->noise_target}};
			pthread_mutex_unlock(&P->lock);
			if (P->gpu.measure(L->rn, cfg, space_config(sp, idx[f]), PROTO_ROLE_TIME, &b->bins[b->of_config[idx[f]]], &plan,
					   &tmp, timeout, &L->d))
				rc = -1;
			free(tmp.message);
			/* a finalist that fails now (it passed before) keeps its first-pass time */
			rounds[f * FINAL_ROUNDS + round] = tmp.st == ST_OK ? tmp.t_median : NAN;
			pthread_mutex_lock(&P->lock);
			observe_step(P->seen, ++P->done, NULL);
			pthread_mutex_unlock(&P->lock);
		}
		/* a round cut short (worker gone, run stopped) would compare finalists unevenly */
		if (f == k && !rc)
			got = round + 1;
	}
	pthread_mutex_lock(&P->lock);
	for (size_t f = 0; f < k; f++) {
		double v[FINAL_ROUNDS];
		size_t m = schedule_final_rounds(&rounds[f * FINAL_ROUNDS], got, v);
		if (!m)
			continue;
		result *r = &res[idx[f]];
		r->final_rounds = (int)m;
		r->final_noise = stats_noise(v, m, scratch);
		r->final_median = stats_median(v, m);
		objective_apply(cfg, space_config(sp, idx[f]), r);
		observe_result(P->seen, SEEN_FINAL, idx[f], r);
	}
	if (rc)
		P->stopped = -1;
	pthread_mutex_unlock(&P->lock);
	free(rounds);
	free(idx);
	return rc;
}

/* How many lanes other than the first can profile: a thread and a worker (P->lock held). */
static size_t others_profile(const pass *P)
{
	size_t n = 0;
	for (size_t i = 1; i < P->nlanes; i++)
		n += P->lanes[i].threaded && P->lanes[i].rn;
	return n;
}

/* c has counters already: from the journal, or an earlier session (P->lock held). */
static int profiled(void *ctx, size_t c)
{
	const pass *P = ctx;
	return P->res[c].have_metrics;
}

/* One profiling session's configurations, with what runner_profile needs of each. */
typedef struct {
	size_t n, *which;
	const value **params;
	const binary **bins;
	result *tmp, **res;
	char **why;
	double timeout;
} session_batch;

/* The lane's next session, as the schedule shares out the counters' queue (P->lock held). */
static void take_batch(pass *P, size_t sharers, session_batch *B)
{
	size_t share = COUNTERS_PER_SESSION;
	B->which = xcalloc(share, sizeof *B->which);
	B->params = xcalloc(share, sizeof *B->params);
	B->bins = xcalloc(share, sizeof *B->bins);
	B->tmp = xcalloc(share, sizeof *B->tmp);
	B->res = xcalloc(share, sizeof *B->res);
	B->why = xcalloc(share, sizeof *B->why);
	B->timeout = 60;
	B->n = schedule_counters_take(&P->counters, sharers, B->which);
	for (size_t n = 0; n < B->n; n++) {
		size_t c = B->which[n];
		B->params[n] = space_config(P->sp, c);
		B->bins[n] = &P->b->bins[P->b->of_config[c]];
		B->tmp[n] = P->res[c];
		B->tmp[n].message = NULL;
		B->res[n] = &B->tmp[n];
		B->timeout += plan_timeout(P->cfg, B->tmp[n].t_max * B->tmp[n].batch);
	}
}

/* The session's counters into the results and the journal (P->lock held); how many it got. */
static size_t record_batch(pass *P, session_batch *B, int on_bar)
{
	measure_opts *o = P->o;
	size_t got = 0;
	for (size_t k = 0; k < B->n; k++) {
		if (B->why[k]) {
			/* one reason is enough: the first */
			if (!o->counters_note)
				o->counters_note = B->why[k];
			else
				free(B->why[k]);
			B->why[k] = NULL;
			continue;
		}
		got++;
		result *r = &P->res[B->which[k]];
		memcpy(r->metrics, B->tmp[k].metrics, sizeof r->metrics);
		r->have_metrics = B->tmp[k].have_metrics;
		observe_result(P->seen, SEEN_METRICS, B->which[k], r);
		if (on_bar)
			observe_step(P->seen, ++P->done, NULL);
	}
	return got;
}

static void free_batch(session_batch *B)
{
	for (size_t k = 0; k < B->n; k++)
		free(B->why[k]);
	free(B->which);
	free(B->params);
	free(B->bins);
	free(B->tmp);
	free(B->res);
	free(B->why);
}

/* The hardware counters of the fastest configurations. A profiling session costs per replay pass,
 * nearly whatever it holds, so a lane takes its whole share at once: with one GPU all of them
 * after the finalists; with several, the GPUs other than the first split them, while the first
 * re-times the finalists (and takes them on only when no other GPU can). */
void *pass_counters_lane(void *arg)
{
	lane *L = arg;
	pass *P = L->P;
	if (!L->rn)
		return NULL; /* its GPU was left out */
	size_t sharers = schedule_counters_sharers(P->nlanes);
	pthread_mutex_lock(&P->lock);
	if (!schedule_lane_profiles(L->gpu, others_profile(P))) {
		pthread_mutex_unlock(&P->lock);
		return NULL;
	}
	while (!P->stopped && !P->hopeless && P->counters.cursor < P->counters.count && !measure_stopping(P->o)) {
		/* those taken during the pass are not on the finish's bar */
		int on_bar = P->phase != PHASE_PASS;
		session_batch B;
		take_batch(P, sharers, &B);
		int rc = 0;
		if (B.n) {
			pthread_mutex_unlock(&P->lock);
			rc = P->gpu.profile(L->rn, P->cfg, B.n, B.params, B.bins, B.res, B.timeout, B.why, &L->d);
			pthread_mutex_lock(&P->lock);
		}
		/* a session where nothing could be profiled: profiling is unavailable or broken */
		if (!rc)
			P->hopeless |= B.n && !record_batch(P, &B, on_bar);
		free_batch(&B);
		if (rc) {
			P->stopped = -1;
			break;
		}
	}
	pthread_mutex_unlock(&P->lock);
	trace_event("lane %d: counters done", L->gpu);
	return NULL;
}

/* The counters' queue: the fastest top as ranked now, then those whose counters can change the
 * winner: the configurations the balance decides among (time cannot tell them apart). With
 * several GPUs the others profile while the first re-times the finalists, before the tie is
 * known: the finalists stand in for it, of which it is a part (P->lock held when other lanes
 * run). */
void pass_choose_counters(pass *P, size_t top)
{
	size_t n = P->sp->count, *final = NULL;
	long long *shares_with = xcalloc(n + 1, sizeof *shares_with);
	for (size_t c = 0; c < n; c++)
		shares_with[c] = P->res[c].shares_with;
	counters_pick pick = {.count = n, .shares_with = shares_with, .top = top};
	size_t *ranked = plan_ranked(P->res, n, &pick.nranked);
	pick.ranked = ranked;
	choice ch = {0};
	const select_policy *policy = P->o->policy;
	int balanced = P->cfg->metrics != METRICS_NONE && policy && policy->kind == POLICY_BALANCED;
	if (balanced) {
		select_winner(P->res, n, policy, &ch);
		pick.tied = ch.tied;
		pick.ntied = ch.ntied;
		final = plan_finalists(P->res, n, P->cfg->finalists, &pick.nfinal);
		pick.final = P->nlanes > 1 ? final : NULL;
	}
	free(P->counters.order);
	P->counters.order = xcalloc(n + 1, sizeof *P->counters.order);
	P->counters.count = schedule_counters_queue(&pick, P->counters.order);
	P->counters.cursor = 0;
	P->counters.profiled = profiled;
	P->counters.ctx = P;
	if (balanced)
		choice_free(&ch);
	free(final);
	free(ranked);
	free(shares_with);
}

/* A configuration that shares another's measurement shares its counters too. */
static void share_counters(pass *P)
{
	for (size_t i = 0; i < P->sp->count; i++) {
		result *r = &P->res[i], *twin = r->shares_with >= 0 ? &P->res[r->shares_with] : NULL;
		if (twin && twin->have_metrics && !r->have_metrics) {
			memcpy(r->metrics, twin->metrics, sizeof r->metrics);
			r->have_metrics = 1;
		}
	}
}

static void *pass_finish_first_lane(void *arg)
{
	lane *L = arg;
	double t0 = now_seconds();
	finalists(L->P);
	L->P->o->final_s = now_seconds() - t0;
	trace_event("finalists done");
	pass_counters_lane(L);
	L->P->gpu.quit(L->rn);
	return NULL;
}

/* Finalists, then counters. With one GPU in that order (the counters go to the finalists'
 * ranking); with several, the first GPU re-times the finalists while the others profile, ranked
 * by the first pass: those not already profiled (or being profiled) by a lane that left the
 * pass early. The lanes' threads are measure.c's: this only plans and runs the first lane. */
static int pass_finish_begin(pass *P)
{
	P->done = 0;
	size_t nfinal;
	pthread_mutex_lock(&P->lock);
	free(plan_finalists(P->res, P->sp->count, P->cfg->finalists, &nfinal));
	pthread_mutex_unlock(&P->lock);
	size_t final_steps = nfinal >= 2 ? nfinal * FINAL_ROUNDS : 0;
	if (P->nlanes == 1) {
		observe_phase(P->seen, "final", final_steps, final_steps > 0);
		double t0 = now_seconds();
		finalists(P);
		P->o->final_s = now_seconds() - t0;
		observe_phase(P->seen, NULL, 0, 0);
		pass_choose_counters(P, P->want);
		P->done = 0;
		observe_phase(P->seen, "counters", P->counters.count, P->counters.count > 0);
		pass_counters_lane(&P->lanes[0]);
		P->gpu.quit(P->lanes[0].rn);
	} else {
		pthread_mutex_lock(&P->lock);
		pass_choose_counters(P, P->want);
		size_t todo = schedule_counters_left(&P->counters);
		observe_phase(P->seen, "final+counters", final_steps + todo, 1);
		pthread_mutex_unlock(&P->lock);
		return 1;
	}
	return 0;
}

static int pass_finish_end(pass *P)
{
	share_counters(P);
	observe_phase(P->seen, NULL, 0, 0);
	return P->stopped < 0 ? -1 : 0;
}

/* A lane other than the first, on a thread of its own: its part of the exhaustive pass (and,
 * when it left early, the counters of the fastest so far), then, once the first starts the
 * finish, its share of the counters; then its worker can start closing its context. */
static void *other_lane(void *arg)
{
	lane *L = arg;
	pass *P = L->P;
	if (P->shared_queue)
		P->pass_lane(L);
	if (L->left)
		pass_counters_lane(L);
	pthread_mutex_lock(&P->lock);
	while (P->phase == PHASE_PASS)
		pthread_cond_wait(&P->changed, &P->lock);
	int go = P->phase == PHASE_FINISH;
	pthread_mutex_unlock(&P->lock);
	if (go)
		pass_counters_lane(L);
	P->gpu.quit(L->rn);
	return NULL;
}

/* Starts other_lane() for lanes 1..n-1 (those not started yet). Without a thread, a lane does
 * nothing: the others take its share. */
void pass_start_other_lanes(pass *P)
{
	for (size_t i = 1; i < P->nlanes; i++)
		if (!P->lanes[i].threaded)
			P->lanes[i].threaded = pthread_create(&P->lanes[i].thread, NULL, other_lane, &P->lanes[i]) == 0;
}

/* Lets the other lanes go on to their counters (PHASE_FINISH) or stop (PHASE_ABORT). */
static void pass_set_phase(pass *P, int phase)
{
	pthread_mutex_lock(&P->lock);
	if (P->phase == PHASE_PASS)
		P->phase = phase;
	pthread_cond_broadcast(&P->changed);
	pthread_mutex_unlock(&P->lock);
}

void pass_join_other_lanes(pass *P)
{
	pass_set_phase(P, PHASE_ABORT); /* a no-op once the finish started */
	for (size_t i = 1; i < P->nlanes; i++)
		if (P->lanes[i].threaded) {
			pthread_join(P->lanes[i].thread, NULL);
			P->lanes[i].threaded = 0;
		}
}

int pass_finish(pass *P)
{
	if (pass_finish_begin(P)) {
		pass_start_other_lanes(P); /* after a search, which measured on the first GPU alone */
		pass_set_phase(P, PHASE_FINISH);
		pass_finish_first_lane(&P->lanes[0]);
		pass_join_other_lanes(P);
	}
	return pass_finish_end(P);
}
