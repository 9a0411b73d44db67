/* schedule.c: a search's measurements against its compiles, as the live run and a replay both
 * make them: a configuration waited for is measured once its binary is in, and meanwhile any
 * committed configuration whose binary arrived first. And the first pass's visits: which wait for
 * another lane, their roles and references, the reference vote, the queue. */
#include "schedule.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
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

size_t schedule_seconds_budget(size_t count, size_t nbins, size_t bins)
{
	double per_bin = (double)count / (double)(nbins ? nbins : 1);
	if (!bins || (double)bins * per_bin >= (double)count)
		return count;
	return (size_t)((double)bins * per_bin) + 1;
}

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

int schedule_retime_finalists(size_t k, int all_final, size_t measured)
{
	return k >= 2 && !(all_final && measured == 0);
}

size_t schedule_final_rounds(const double *rounds, size_t got, double *v)
{
	size_t m = 0;
	if (got < 3)
		return 0;
	for (size_t round = 0; round < got; round++)
		if (!isnan(rounds[round]))
			v[m++] = rounds[round];
	return m < 3 ? 0 : m;
}

size_t schedule_counters_wanted(int metrics, int top)
{
	switch (metrics) {
	case METRICS_NONE:
	case METRICS_AUTO:
		return 0;
	case METRICS_TOP:
		return (size_t)top;
	}
	return SIZE_MAX;
}

/* Appends c to the counters' queue once, as the configuration whose measurement it shares. */
static void queue_counters(const counters_pick *p, char *queued, size_t c, size_t *queue, size_t *n)
{
	if (p->shares_with[c] >= 0)
		c = (size_t)p->shares_with[c];
	if (!queued[c])
		queue[(*n)++] = c;
	queued[c] = 1;
}

size_t schedule_counters_queue(const counters_pick *p, size_t *queue)
{
	size_t n = 0;
	char *queued = xcalloc(p->count + 1, 1);
	for (size_t k = 0; k < p->nranked && k < p->top; k++)
		queue_counters(p, queued, p->ranked[k], queue, &n);
	for (size_t k = 0; p->ntied >= 2 && k < p->ntied; k++)
		queue_counters(p, queued, p->tied[k], queue, &n);
	for (size_t k = 0; p->final && p->nfinal >= 2 && k < p->nfinal; k++)
		queue_counters(p, queued, p->final[k], queue, &n);
	free(queued);
	return n;
}

size_t schedule_counters_sharers(size_t lanes) { return lanes > 1 ? lanes - 1 : 1; }

int schedule_lane_profiles(int gpu, size_t others) { return gpu != 0 || others == 0; }

size_t schedule_counters_take(counters_queue *Q, size_t sharers, size_t *out)
{
	size_t share = (Q->count - Q->cursor + sharers - 1) / sharers, n = 0;
	if (share > COUNTERS_PER_SESSION)
		share = COUNTERS_PER_SESSION;
	while (n < share && Q->cursor < Q->count) {
		size_t c = Q->order[Q->cursor++];
		if (Q->taken[c] || Q->profiled(Q->ctx, c))
			continue; /* profiled or being profiled, or from the journal */
		Q->taken[c] = 1;
		out[n++] = c;
	}
	return n;
}

size_t schedule_counters_left(const counters_queue *Q)
{
	size_t todo = 0;
	for (size_t k = 0; k < Q->count; k++)
		todo += !Q->taken[Q->order[k]] && !Q->profiled(Q->ctx, Q->order[k]);
	return todo;
}

void schedule_race(double race, double best_ms, int searching, double final_within, double *race_ms,
		   double *near_ms)
{
	*race_ms = race > 0 ? race * best_ms : 0;
	*near_ms = *race_ms > 0 && !searching ? (1 + final_within) * *race_ms / race : 0;
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

void schedule_pass_init(schedule_pass *S, size_t count, size_t *group, long long named, int ref_kernel, int voting,
			pass_view view)
{
	*S = (schedule_pass){.count = count, .group = group, .named = named, .ref_kernel = ref_kernel, .voting = voting,
			     .view = view, .Q = S->Q};
	S->ref = xcalloc(count + 1, sizeof *S->ref);
	S->pending = xcalloc(count + 1, 1);
	S->state = xcalloc(count + 1, 1);
	S->votes = xcalloc(count + 1, sizeof *S->votes);
	for (size_t c = 0; c < count; c++)
		S->ref[c] = -1;
}

void schedule_pass_free(schedule_pass *S)
{
	free(S->votes);
	free(S->group);
	free(S->ref);
	free(S->pending);
	free(S->state);
	schedule_queue_free(&S->Q);
	S->votes = NULL;
	S->group = NULL;
	S->ref = NULL;
	S->pending = S->state = NULL;
}

int vote_busy(const vote *v)
{
	return v->state == VOTE_OPEN || v->state == VOTE_RERUN || v->state == VOTE_REELECT;
}

/* Group g's configurations wait for another lane's vote. */
static int vote_holds(const schedule_pass *S, int gpu, size_t g)
{
	return S->voting && vote_busy(&S->votes[g]) && S->votes[g].owner != gpu;
}

/* c's verdict would count in its group's open vote: its code is neither the reference's nor the
 * first dissent's (two of one code prove nothing). */
static int can_decide(const schedule_pass *S, const vote *v, size_t c)
{
	void *x = S->view.ctx;
	return !S->view.same_code(x, c, (size_t)v->first) && !(v->ndissent && S->view.same_code(x, c, (size_t)v->dissent[0]));
}

/* Whether lane gpu waits with c for group g's vote (a vote in progress); *deciding: c is the one
 * configuration in flight that can decide it. */
static int vote_waits(const schedule_pass *S, int gpu, size_t g, size_t c, int *deciding)
{
	const vote *v = &S->votes[g];
	*deciding = 0;
	if (!S->voting || !vote_busy(v))
		return 0;
	if (v->state != VOTE_OPEN)
		return vote_holds(S, gpu, g) || v->state == VOTE_RERUN;
	if (!can_decide(S, v, c))
		return vote_holds(S, gpu, g);
	*deciding = 1;
	return v->deciding >= 0;
}

void vote_close(schedule_pass *S, vote *v, int how)
{
	if (vote_busy(v))
		S->votes_open--;
	v->state = VOTE_DONE;
	v->how = how;
}

void schedule_earlier_passed(schedule_pass *S, size_t c)
{
	size_t g = S->group[c];
	if (S->ref[g] >= 0 || (S->voting && vote_busy(&S->votes[g])))
		return;
	S->ref[g] = (long long)c;
	if (S->voting && S->votes[g].state == VOTE_NONE)
		S->votes[g] = (vote){.state = VOTE_DONE, .how = CHOSEN_EARLIER, .first = (long long)c, .agree = -1,
				     .dissent = {-1, -1}, .deciding = -1};
}

/* A configuration whose measurement c could share, being measured on another lane now. */
static int twin_in_flight(const schedule_pass *S, size_t c)
{
	for (size_t a = 0; a < S->count; a++)
		if (a != c && S->state[a] == IN_FLIGHT && S->view.same_launch(S->view.ctx, a, c))
			return 1;
	return 0;
}

int schedule_claim_config(schedule_pass *S, int gpu, long long loaded, size_t c, schedule_claim *cl)
{
	size_t g = S->group[c];
	*cl = (schedule_claim){.role = PROTO_ROLE_REF, .refresh = -1};
	/* its twin, or its group's first candidate reference, is on another GPU now: later */
	int deciding;
	if (twin_in_flight(S, c) || (!S->ref_kernel && S->ref[g] < 0 && S->pending[g]) || vote_waits(S, gpu, g, c, &deciding))
		return 0;
	if (deciding)
		S->votes[g].deciding = (long long)c;
	if (S->ref_kernel) {
		cl->run_ref_kernel = loaded < 0;
		cl->role = PROTO_ROLE_CHECK;
	} else if (S->ref[g] >= 0) {
		cl->role = PROTO_ROLE_CHECK;
		if (loaded != (long long)g)
			cl->refresh = S->ref[g];
	} else
		S->pending[g] = 1; /* this one is the group's candidate reference */
	S->state[c] = IN_FLIGHT;
	return 1;
}

void schedule_finished(schedule_pass *S, size_t c, proto_role role)
{
	S->state[c] = FINISHED;
	schedule_queue_finished(&S->Q);
	if (S->voting && S->votes[S->group[c]].deciding == (long long)c)
		S->votes[S->group[c]].deciding = -1;
	if (role == PROTO_ROLE_REF)
		S->pending[S->group[c]] = 0;
}

int schedule_passed(schedule_pass *S, size_t c)
{
	size_t g = S->group[c];
	if (S->ref[g] >= 0 || S->ref_kernel)
		return 0;
	S->ref[g] = (long long)c;
	return 1;
}

void schedule_count_vote(schedule_pass *S, int gpu, size_t c, proto_role role, int verdict)
{
	size_t g = S->group[c];
	vote *v = &S->votes[g];
	if (!S->voting)
		return;
	if (role == PROTO_ROLE_REF) {
		if (v->state == VOTE_NONE && S->ref[g] == (long long)c) {
			*v = (vote){.state = VOTE_OPEN, .first = (long long)c, .agree = -1, .dissent = {-1, -1}, .owner = gpu,
				    .deciding = -1};
			S->votes_open++;
		}
		return;
	}
	if (v->state != VOTE_OPEN || !can_decide(S, v, c))
		return;
	if (verdict == VERDICT_OK) {
		v->agree = (long long)c;
		vote_close(S, v, CHOSEN_CONFIRMED);
	} else if (verdict == VERDICT_WRONG) {
		v->dissent[v->ndissent++] = (long long)c;
		if (v->ndissent == 2)
			v->state = VOTE_RERUN;
	}
}

int schedule_reelects(schedule_pass *S, int gpu, size_t g)
{
	if (!S->voting || S->votes[g].state != VOTE_RERUN)
		return 0;
	for (size_t c = 0; c < S->count; c++)
		if (S->group[c] == g && S->state[c] == IN_FLIGHT)
			return 0;
	S->votes[g].owner = gpu;
	return 1;
}

void schedule_reelect_begin(schedule_pass *S, size_t g)
{
	S->votes[g].state = VOTE_REELECT;
	S->ref[g] = -1;
}

int schedule_reelect_step(const schedule_pass *S, size_t g, int step, int verdict, size_t *c, int *how)
{
	const vote *v = &S->votes[g];
	switch (step) {
	case 0:
		*c = (size_t)v->dissent[0];
		return REELECT_VISIT;
	case 1:
		/* B cannot serve (it did not pass): C, not run, tells nothing */
		if (S->ref[g] != v->dissent[0])
			break;
		*c = (size_t)v->dissent[1];
		return REELECT_VISIT;
	case 2:
		if (verdict == VERDICT_OK) {
			*c = (size_t)v->first;
			return REELECT_VISIT;
		}
		*how = verdict == VERDICT_WRONG ? CHOSEN_NONE_AGREE : CHOSEN_UNDECIDED;
		return REELECT_KEEP;
	default:
		*how = CHOSEN_MAJORITY;
		return REELECT_REPLACE;
	}
	*how = CHOSEN_UNDECIDED;
	return REELECT_KEEP;
}

void schedule_reelect_end(schedule_pass *S, size_t g, int outcome, int how)
{
	if (outcome != REELECT_REPLACE)
		S->ref[g] = S->votes[g].first;
	vote_close(S, &S->votes[g], how);
}

int schedule_next_config(schedule_pass *S, size_t *c)
{
	for (;;) {
		int next = schedule_queue_next(&S->Q, c);
		if (next != QUEUE_BLOCKED)
			return next;
		/* a lane in a visit may only be waiting for its binary; a vote's lane is then about to
		 * measure what the vote needs */
		size_t flying = S->visiting;
		for (size_t a = 0; a < S->count; a++)
			flying += S->state[a] == IN_FLIGHT;
		if (flying)
			return QUEUE_BLOCKED;
		for (size_t g = 0; S->voting && g < S->count; g++)
			if (S->votes[g].state == VOTE_OPEN)
				vote_close(S, &S->votes[g], CHOSEN_FIRST);
		schedule_queue_release(&S->Q);
	}
}

void schedule_lane_leaves(schedule_pass *S, int gpu)
{
	for (size_t g = 0; S->voting && g < S->count; g++)
		if (S->votes[g].state == VOTE_OPEN && S->votes[g].owner == gpu)
			vote_close(S, &S->votes[g], CHOSEN_FIRST);
}
