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
	if (k < 2 || (all_final && o->measured == 0)) {
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
			if (runner_measure(L->rn, cfg, space_config(sp, idx[f]), PROTO_ROLE_TIME, &b->bins[b->of_config[idx[f]]], &plan,
					   &tmp, timeout, &L->d))
				rc = -1;
			free(tmp.message);
			/* a finalist that fails now (it passed before) keeps its first-pass time */
			rounds[f * FINAL_ROUNDS + round] = tmp.st == ST_OK ? tmp.t_median : NAN;
			pthread_mutex_lock(&P->lock);
			progress_update(&P->bar, ++P->done, NULL);
			pthread_mutex_unlock(&P->lock);
		}
		/* a round cut short (worker gone, run stopped) would compare finalists unevenly */
		if (f == k && !rc)
			got = round + 1;
	}
	pthread_mutex_lock(&P->lock);
	for (size_t f = 0; f < k && got >= 3; f++) {
		double v[FINAL_ROUNDS];
		size_t m = 0;
		for (size_t round = 0; round < got; round++)
			if (!isnan(rounds[f * FINAL_ROUNDS + round]))
				v[m++] = rounds[f * FINAL_ROUNDS + round];
		if (m < 3)
			continue;
		result *r = &res[idx[f]];
		r->final_rounds = (int)m;
		r->final_noise = stats_noise(v, m, scratch);
		r->final_median = stats_median(v, m);
		objective_apply(cfg, space_config(sp, idx[f]), r);
		if (o->journal)
			pass_journal_check(o, journal_final(o->journal, idx[f], r));
	}
	if (rc)
		P->stopped = -1;
	pthread_mutex_unlock(&P->lock);
	free(rounds);
	free(idx);
	return rc;
}

/* Whether a lane other than the first can profile (P->lock held): the first then leaves the
 * counters to them, rather than build a profiler of its own (0.2 s of device queries). */
static int others_profile(const pass *P)
{
	for (size_t i = 1; i < P->nlanes; i++)
		if (P->lanes[i].threaded && P->lanes[i].rn)
			return 1;
	return 0;
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

/* Takes up to `share` configurations from the counters' queue that nobody profiled yet (P->lock
 * held). */
static void take_batch(pass *P, size_t share, session_batch *B)
{
	B->which = xcalloc(share, sizeof *B->which);
	B->params = xcalloc(share, sizeof *B->params);
	B->bins = xcalloc(share, sizeof *B->bins);
	B->tmp = xcalloc(share, sizeof *B->tmp);
	B->res = xcalloc(share, sizeof *B->res);
	B->why = xcalloc(share, sizeof *B->why);
	B->n = 0;
	B->timeout = 60;
	while (B->n < share && P->ccursor < P->ncounted) {
		size_t c = P->counted[P->ccursor++], n = B->n;
		if (P->taken[c] || P->res[c].have_metrics)
			continue; /* profiled or being profiled, or from the journal */
		P->taken[c] = 1;
		B->which[n] = c;
		B->params[n] = space_config(P->sp, c);
		B->bins[n] = &P->b->bins[P->b->of_config[c]];
		B->tmp[n] = P->res[c];
		B->tmp[n].message = NULL;
		B->res[n] = &B->tmp[n];
		B->timeout += plan_timeout(P->cfg, B->tmp[n].t_max * B->tmp[n].batch);
		B->n++;
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
		if (o->journal)
			pass_journal_check(o, journal_metrics(o->journal, B->which[k], r));
		if (on_bar)
			progress_update(&P->bar, ++P->done, NULL);
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
	size_t sharers = P->nlanes > 1 ? P->nlanes - 1 : 1;
	pthread_mutex_lock(&P->lock);
	if (L->gpu == 0 && others_profile(P)) {
		pthread_mutex_unlock(&P->lock);
		return NULL;
	}
	while (!P->stopped && !P->hopeless && P->ccursor < P->ncounted && !measure_stopping(P->o)) {
		/* those taken during the pass are not on the finish's bar */
		int on_bar = P->phase != PHASE_PASS;
		size_t share = (P->ncounted - P->ccursor + sharers - 1) / sharers;
		session_batch B;
		take_batch(P, share > COUNTERS_PER_SESSION ? COUNTERS_PER_SESSION : share, &B);
		int rc = 0;
		if (B.n) {
			pthread_mutex_unlock(&P->lock);
			rc = runner_profile(L->rn, P->cfg, B.n, B.params, B.bins, B.res, B.timeout, B.why, &L->d);
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

/* How many of the fastest get counters beyond those the balance decides among
 * (measure.metrics): SIZE_MAX for all, 0 for none or those alone. */
size_t pass_counters_wanted(const pass *P)
{
	switch (P->cfg->metrics) {
	case METRICS_NONE:
	case METRICS_AUTO:
		return 0;
	case METRICS_TOP:
		return (size_t)P->cfg->metrics_top;
	}
	return SIZE_MAX;
}

/* Queues configuration c for counters once; one that shares another's measurement is profiled
 * as that one. */
static void queue_counters(pass *P, char *queued, size_t c)
{
	if (P->res[c].shares_with >= 0)
		c = (size_t)P->res[c].shares_with;
	if (!queued[c])
		P->counted[P->ncounted++] = c;
	queued[c] = 1;
}

/* The counters' queue: the fastest top as ranked now, then those whose counters can change the
 * winner: the configurations the balance decides among (time cannot tell them apart). With
 * several GPUs the others profile while the first re-times the finalists, before the tie is
 * known: the finalists stand in for it, of which it is a part (P->lock held when other lanes
 * run). */
void pass_choose_counters(pass *P, size_t top)
{
	size_t n = P->sp->count, nranked, nfinal;
	size_t *ranked = plan_ranked(P->res, n, &nranked);
	char *queued = xcalloc(n, 1);
	free(P->counted);
	P->counted = xcalloc(n + 1, sizeof *P->counted);
	P->ncounted = 0;
	for (size_t k = 0; k < nranked && k < top; k++)
		queue_counters(P, queued, ranked[k]);
	const select_policy *policy = P->o->policy;
	if (P->cfg->metrics != METRICS_NONE && policy && policy->kind == POLICY_BALANCED) {
		choice ch;
		select_winner(P->res, n, policy, &ch);
		for (size_t k = 0; ch.ntied >= 2 && k < ch.ntied; k++)
			queue_counters(P, queued, ch.tied[k]);
		choice_free(&ch);
		size_t *final = plan_finalists(P->res, n, P->cfg->finalists, &nfinal);
		for (size_t k = 0; P->nlanes > 1 && nfinal >= 2 && k < nfinal; k++)
			queue_counters(P, queued, final[k]);
		free(final);
	}
	free(queued);
	free(ranked);
	P->ccursor = 0;
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
	runner_quit(L->rn);
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
		progress_begin(&P->bar, P->o->progress && final_steps, "final", final_steps);
		double t0 = now_seconds();
		finalists(P);
		P->o->final_s = now_seconds() - t0;
		progress_end(&P->bar);
		pass_choose_counters(P, P->want);
		P->done = 0;
		progress_begin(&P->bar, P->o->progress && P->ncounted, "counters", P->ncounted);
		pass_counters_lane(&P->lanes[0]);
		runner_quit(P->lanes[0].rn);
	} else {
		pthread_mutex_lock(&P->lock);
		pass_choose_counters(P, P->want);
		size_t todo = 0;
		for (size_t k = 0; k < P->ncounted; k++)
			todo += !P->taken[P->counted[k]] && !P->res[P->counted[k]].have_metrics;
		progress_begin(&P->bar, P->o->progress, "final+counters", final_steps + todo);
		pthread_mutex_unlock(&P->lock);
		return 1;
	}
	return 0;
}

static int pass_finish_end(pass *P)
{
	share_counters(P);
	progress_end(&P->bar);
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
	runner_quit(L->rn);
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
