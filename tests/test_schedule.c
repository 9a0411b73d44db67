/* test_schedule.c: the exhaustive pass's queue, and a search's schedule (schedule.c) with an
 * in-process lane and pool: binaries arrive after a scripted number of waits, measurements are
 * logged, and nothing depends on a clock. What a live run and a replay both do: wait for the binary asked for, measure meanwhile
 * the committed configurations whose binaries came first, stop waiting once the search is over. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "replay.h"
#include "schedule.h"
#include "space.h"
#include "tests.h"

#define N 8

/* Configurations 2k and 2k+1 share binary k. */
static const size_t of_config[N] = {0, 0, 1, 1, 2, 2, 3, 3};

typedef struct {
	int ready_after[N / 2]; /* waits until each binary is built (0: built) */
	int waits, fail;        /* waits so far; the pool's failure (wait returns -1) */
	size_t wanted[64], nwanted;
	size_t measured[N], nmeasured;
	int ahead[N];
	int over_after;          /* the search is over after this many measurements (0: never) */
	size_t hinted[N], nhinted, committed[N], ncommitted;
} fake;

static void fake_measure(void *ctx, size_t c, int ahead)
{
	fake *F = ctx;
	F->ahead[F->nmeasured] = ahead;
	F->measured[F->nmeasured++] = c;
}

static double fake_time(void *ctx, size_t c) { return (void)ctx, 1.0 + (double)c; }

static int fake_over(void *ctx)
{
	fake *F = ctx;
	return F->over_after && (int)F->nmeasured >= F->over_after;
}

static void fake_want(void *ctx, size_t bin)
{
	fake *F = ctx;
	F->wanted[F->nwanted++ % 64] = bin;
}

static int fake_done(void *ctx, size_t bin) { return ((fake *)ctx)->ready_after[bin] <= ((fake *)ctx)->waits; }

static int fake_wait(void *ctx, size_t bin)
{
	fake *F = ctx;
	(void)bin;
	F->waits++;
	return F->fail;
}

static void fake_hint(void *ctx, const size_t *bins, size_t n)
{
	fake *F = ctx;
	memcpy(F->hinted, bins, n * sizeof *bins);
	F->nhinted = n;
}

static void fake_commit(void *ctx, const size_t *bins, size_t n)
{
	fake *F = ctx;
	memcpy(F->committed, bins, n * sizeof *bins);
	F->ncommitted = n;
}

static schedule fake_schedule(fake *F, int ahead)
{
	return (schedule){.of_config = of_config, .nbins = N / 2, .lane = {fake_measure, fake_time, fake_over},
			  .lane_ctx = F, .pool = {fake_want, fake_done, fake_wait, NULL, fake_hint, fake_commit},
			  .pool_ctx = F, .early = ahead ? calloc(N, 1) : NULL};
}

/* Waiting for configuration 7 (binary 3, in after 5 waits), the committed 2, 3 and 4 are measured
 * as their binaries arrive (binary 1 after 1 wait, binary 2 after 3), ahead of their turn and once
 * each; then 7; a later evaluation of 4 takes its time without measuring it again. */
static void test_committed_configurations_are_measured_as_their_binaries_arrive(void)
{
	fake F = {.ready_after = {0, 1, 3, 5}};
	schedule S = fake_schedule(&F, 1);
	schedule_commit(&S, (size_t[]){2, 3, 4}, 3);
	CU_ASSERT_EQUAL(F.ncommitted, 2); /* binaries 1 and 2, each once */
	CU_ASSERT_EQUAL(F.committed[0], 1);
	CU_ASSERT_EQUAL(F.committed[1], 2);
	CU_ASSERT_DOUBLE_EQUAL(schedule_eval(&S, 7), 8.0, 0);
	size_t want[] = {2, 3, 4, 7};
	CU_ASSERT_EQUAL_FATAL(F.nmeasured, 4);
	for (size_t i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(F.measured[i], want[i]);
		CU_ASSERT_EQUAL(F.ahead[i], i < 3);
	}
	CU_ASSERT_EQUAL(F.waits, 5);
	CU_ASSERT(schedule_poll(&S, 4));
	CU_ASSERT_DOUBLE_EQUAL(schedule_peek(&S, 4), 5.0, 0);
	CU_ASSERT(isnan(schedule_peek(&S, 5)));
	CU_ASSERT_DOUBLE_EQUAL(schedule_eval(&S, 4), 5.0, 0);
	CU_ASSERT_EQUAL(F.nmeasured, 4);
	free(S.early);
	schedule_free(&S);
}

/* Without compiling ahead, nothing is measured before its turn: the waits come first, then the
 * one measurement, and every wait told the pool which binary is waited for. */
static void test_without_ahead_only_the_asked_for_is_measured(void)
{
	fake F = {.ready_after = {0, 2, 2, 4}};
	schedule S = fake_schedule(&F, 0);
	CU_ASSERT_DOUBLE_EQUAL(schedule_eval(&S, 6), 7.0, 0);
	CU_ASSERT_EQUAL(F.nmeasured, 1);
	CU_ASSERT_EQUAL(F.measured[0], 6);
	CU_ASSERT_EQUAL(F.ahead[0], 0);
	CU_ASSERT_EQUAL(F.waits, 4);
	CU_ASSERT_EQUAL(F.nwanted, 4);
	for (size_t i = 0; i < F.nwanted; i++)
		CU_ASSERT_EQUAL(F.wanted[i], 3);
	schedule_free(&S);
}

/* Once the search is over (a deadline, a signal), it stops waiting: what it waited for is not
 * measured and counts as INFINITY. */
static void test_a_search_that_is_over_stops_waiting(void)
{
	fake F = {.ready_after = {0, 1, 9, 9}, .over_after = 1};
	schedule S = fake_schedule(&F, 1);
	schedule_commit(&S, (size_t[]){2, 4}, 2);
	CU_ASSERT(isinf(schedule_eval(&S, 6)));
	CU_ASSERT_EQUAL(F.nmeasured, 1); /* 2, ahead, before the search was over */
	CU_ASSERT_EQUAL(F.measured[0], 2);
	CU_ASSERT_EQUAL(F.waits, 1);
	free(S.early);
	schedule_free(&S);
}

/* A pool that cannot compile (nvcc gone) ends the wait at once: the configuration goes to the lane,
 * which says why it cannot be measured. */
static void test_a_failed_pool_ends_the_wait(void)
{
	fake F = {.ready_after = {0, 9, 9, 9}, .fail = -1};
	schedule S = fake_schedule(&F, 1);
	CU_ASSERT_DOUBLE_EQUAL(schedule_eval(&S, 5), 6.0, 0);
	CU_ASSERT_EQUAL(F.waits, 1);
	CU_ASSERT_EQUAL(F.nmeasured, 1);
	free(S.early);
	schedule_free(&S);
}

/* Hints go to the pool as binaries, each once, in the order of first appearance. */
static void test_hints_are_binaries_in_order(void)
{
	fake F = {0};
	schedule S = fake_schedule(&F, 0);
	schedule_hint(&S, (size_t[]){7, 1, 6, 0, 3, 2}, 6);
	CU_ASSERT_EQUAL_FATAL(F.nhinted, 3);
	CU_ASSERT_EQUAL(F.hinted[0], 3);
	CU_ASSERT_EQUAL(F.hinted[1], 0);
	CU_ASSERT_EQUAL(F.hinted[2], 1);
	schedule_free(&S);
}

/* A queue of 5 whose first is the named reference (measured before): it is skipped; a put-back
 * configuration waits until a measurement finished since, then comes before the queue's next. */
static void test_a_put_back_configuration_waits_for_a_finish(void)
{
	size_t *order = malloc(5 * sizeof *order), c = 99;
	memcpy(order, (size_t[]){3, 0, 4, 1, 2}, 5 * sizeof *order);
	schedule_queue Q = {.order = order, .count = 5, .skip = 3};
	CU_ASSERT_EQUAL(schedule_queue_next(&Q, &c), QUEUE_NEXT);
	CU_ASSERT_EQUAL(c, 0);
	schedule_queue_defer(&Q, 0); /* its twin is in flight */
	CU_ASSERT_EQUAL(schedule_queue_next(&Q, &c), QUEUE_NEXT);
	CU_ASSERT_EQUAL(c, 4); /* nothing finished: 0 stays put back */
	CU_ASSERT_EQUAL(schedule_queue_left(&Q), 2);
	schedule_queue_finished(&Q);
	CU_ASSERT_EQUAL(schedule_queue_next(&Q, &c), QUEUE_NEXT);
	CU_ASSERT_EQUAL(c, 0);
	CU_ASSERT_EQUAL(schedule_queue_next(&Q, &c), QUEUE_NEXT);
	CU_ASSERT_EQUAL(c, 1);
	CU_ASSERT_EQUAL(schedule_queue_next(&Q, &c), QUEUE_NEXT);
	CU_ASSERT_EQUAL(c, 2);
	CU_ASSERT_EQUAL(schedule_queue_next(&Q, &c), QUEUE_EMPTY);
	schedule_queue_free(&Q);
}

/* Only put-back ones left and nothing finished: blocked (the caller waits); released once nothing
 * is in flight, each comes once, in the order they were put back. */
static void test_put_back_ones_are_blocked_until_released(void)
{
	size_t *order = malloc(2 * sizeof *order), c = 99;
	memcpy(order, (size_t[]){5, 6}, 2 * sizeof *order);
	schedule_queue Q = {.order = order, .count = 2, .skip = -1};
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(schedule_queue_next(&Q, &c), QUEUE_NEXT);
		schedule_queue_defer(&Q, c);
	}
	CU_ASSERT_EQUAL(schedule_queue_next(&Q, &c), QUEUE_BLOCKED);
	CU_ASSERT_EQUAL(schedule_queue_next(&Q, &c), QUEUE_BLOCKED);
	schedule_queue_release(&Q);
	CU_ASSERT_EQUAL(schedule_queue_next(&Q, &c), QUEUE_NEXT);
	CU_ASSERT_EQUAL(c, 5);
	schedule_queue_defer(&Q, 5); /* put back again, with nothing finished: blocked once more */
	CU_ASSERT_EQUAL(schedule_queue_next(&Q, &c), QUEUE_NEXT);
	CU_ASSERT_EQUAL(c, 6);
	CU_ASSERT_EQUAL(schedule_queue_next(&Q, &c), QUEUE_BLOCKED);
	schedule_queue_finished(&Q);
	CU_ASSERT_EQUAL(schedule_queue_next(&Q, &c), QUEUE_NEXT);
	CU_ASSERT_EQUAL(c, 5);
	CU_ASSERT_EQUAL(schedule_queue_next(&Q, &c), QUEUE_EMPTY);
	schedule_queue_free(&Q);
}

/* Two GPUs, counters for the 3 fastest, a kernel of 1 ms (20 ms to profile: 6 ms and 14 replays):
 * without finalists, all 3 go to the session during the pass (0.18 s to start it, 0.24 s in all);
 * with 4 finalists (0.21 s of rounds, less a session and a worker's exit, room for 5 kernels) the
 * last session takes the rest, and the early one only the fastest so far. */
static void test_the_profile_share_follows_the_finalists_time(void)
{
	profile_view v = {.lanes = 2, .want = 3, .passed = 10, .best_ms = 1.0};
	double seconds = 0;
	CU_ASSERT_EQUAL(schedule_profile_share(&v, &seconds), 3);
	CU_ASSERT_DOUBLE_EQUAL(seconds, 0.24, 1e-12);
	v.finalists = 4;
	CU_ASSERT_EQUAL(schedule_profile_share(&v, &seconds), 1);
	CU_ASSERT_DOUBLE_EQUAL(seconds, 0.20, 1e-12);
	v.passed = 0;
	CU_ASSERT_EQUAL(schedule_profile_share(&v, &seconds), 0);
}

/* The second GPU leaves for its 0.24 s session once what is left (at 10 ms a measurement, on the
 * one lane that stays) is no longer than the session and half a measurement: 24 left, not 25.
 * The first GPU never leaves, nor any before each lane measured twice. */
static void test_a_lane_leaves_to_profile_when_the_pass_ends_with_its_session(void)
{
	profile_view v = {.lanes = 2, .want = 3, .passed = 10, .best_ms = 1.0, .measuring = 2, .measures = 4,
			  .measure_s = 0.01, .left = 25};
	CU_ASSERT_FALSE(schedule_leaves_to_profile(&v, 1));
	v.left = 24;
	CU_ASSERT_TRUE(schedule_leaves_to_profile(&v, 1));
	CU_ASSERT_FALSE(schedule_leaves_to_profile(&v, 0));
	v.measures = 3;
	CU_ASSERT_FALSE(schedule_leaves_to_profile(&v, 1));
	/* visits that shared a twin's measurement cost nothing: half of them, half the rest */
	v.measures = 4;
	v.shares = 4;
	v.left = 48;
	CU_ASSERT_TRUE(schedule_leaves_to_profile(&v, 1));
	v.left = 50;
	CU_ASSERT_FALSE(schedule_leaves_to_profile(&v, 1));
}

/* The distinct values of the sequence's first parameter (its binaries, here): a replay's
 * output is step, V, bx, time. */
static size_t distinct_first(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[256], seen[64] = {0};
	size_t n = 0;
	while (f && fgets(line, sizeof line, f)) {
		int step, v;
		if (sscanf(line, "%d,%d,", &step, &v) == 2 && v > 0 && v < 64 && !seen[v]) {
			seen[v] = 1;
			n++;
		}
	}
	if (f)
		fclose(f);
	return n;
}

/* A search compiles what it proposes, and ahead only within a bound: of 40 binaries, a budget of
 * 6 on 2 jobs builds at most twice the binaries it waits for plus one per job, whatever the
 * strategy. The schedule and the pool's policy are the live run's; the clock is the replay's, so
 * the count is exact (a live run's depends on how long nvcc and the GPU take meanwhile). */
static void test_a_search_compiles_only_what_it_needs(void)
{
	config c;
	space s;
	diags d = {0};
	const char *yaml = write_temp(1, "ondemand.yaml", "kernel: {source: /dev/null, entry: k}\n"
							  "arguments: [{name: a, type: float, count: 4}]\n"
							  "space: {V: {start: 1, stop: 40}, bx: [32, 64]}\n"
							  "launch: {block: [bx], grid: [1]}\nbuild: {defines: [V]}\n");
	CU_ASSERT_EQUAL_FATAL(config_load(yaml, &c, &d) || space_enumerate(&c, &s, &d), 0);
	char *rows = xstrdup("V,bx,time_ms_median,status\n");
	for (int v = 1; v <= 40; v++)
		for (int bx = 32; bx <= 64; bx += 32) {
			char *more = xasprintf("%s%d,%d,%g,ok\n", rows, v, bx, 1 + 0.37 * ((v * 7) % 40) + 0.001 * bx);
			free(rows);
			rows = more;
		}
	const char *csv = write_temp(2, "ondemand.csv", rows);
	free(rows);
	char out[256];
	snprintf(out, sizeof out, "%s/ondemand.replay.csv", test_dir);
	for (int st = 0; st < STRAT_COUNT_; st++) {
		replay_result r;
		CU_ASSERT_EQUAL_FATAL(replay_run(&c, &s, &(replay_opts){.recording = csv, .strategy = (strategy)st,
						 .budget = 6, .seed = 3, .jobs = 2, .out = out}, &r, &d), 0);
		size_t waited = distinct_first(out);
		CU_ASSERT_EQUAL(r.evaluations, 6);
		CU_ASSERT(waited >= 1 && waited <= 6);
		CU_ASSERT(r.built >= waited && r.built <= 2 * waited + 2);
		if (!(r.built >= waited && r.built <= 2 * waited + 2))
			fprintf(stderr, "\n  strategy %d: %zu built for %zu waited for\n", st, r.built, waited);
	}
	unlink(out);
	space_free(&s);
	config_free(&c);
	diags_free(&d);
}

/* A plan's queue runs a worker at a time: by connections (1 before 8), then reference group,
 * each run in the queue's order. */
static void test_a_plans_queue_runs_by_worker(void)
{
	size_t queue[6] = {5, 0, 3, 1, 4, 2};
	const int connections[6] = {8, 1, 8, 1, 1, 8}; /* per configuration */
	const size_t group[6] = {0, 1, 0, 0, 1, 0};
	schedule_by_worker(queue, 6, connections, group);
	const size_t want[6] = {3, 1, 4, 5, 0, 2};
	for (size_t i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(queue[i], want[i]);
}

/* The first pass's visits (schedule_pass) over 6 configurations of one reference group: 2k and
 * 2k+1 are one launch (twins), and each pair is its own code. */
static int twins_launch(void *ctx, size_t a, size_t c) { return (void)ctx, a / 2 == c / 2; }
static int twins_code(void *ctx, size_t a, size_t c) { return (void)ctx, a / 2 == c / 2; }
static int one_code(void *ctx, size_t a, size_t c) { return (void)ctx, (void)a, (void)c, 1; }

static void six_of(schedule_pass *S, int voting, int (*same_code)(void *, size_t, size_t))
{
	size_t *group = calloc(6, sizeof *group), *order = malloc(6 * sizeof *order);
	for (size_t c = 0; c < 6; c++)
		order[c] = c;
	memset(S, 0, sizeof *S);
	schedule_pass_init(S, 6, group, -1, 0, voting, (pass_view){twins_launch, same_code, NULL});
	S->Q = (schedule_queue){.order = order, .count = 6, .skip = -1};
}

static void six_in_one_group(schedule_pass *S, int voting) { six_of(S, voting, twins_code); }

/* Measures c on lane gpu from claim to verdict, as the executor would. */
static void measured(schedule_pass *S, int gpu, long long loaded, size_t c, int verdict, schedule_claim *cl)
{
	CU_ASSERT_EQUAL_FATAL(schedule_claim_config(S, gpu, loaded, c, cl), 1);
	CU_ASSERT_EQUAL(S->state[c], IN_FLIGHT);
	schedule_finished(S, c, cl->role);
	if (verdict == VERDICT_OK)
		schedule_passed(S, c);
	schedule_count_vote(S, gpu, c, cl->role, verdict);
}

/* A configuration whose twin is in flight on another lane, or whose group's candidate reference
 * is, waits; once the candidate passed, another lane checks against it after loading it. */
static void test_a_visit_waits_for_its_twin_and_its_reference(void)
{
	schedule_pass S;
	schedule_claim cl;
	six_in_one_group(&S, 0);
	CU_ASSERT_EQUAL(schedule_claim_config(&S, 0, -1, 0, &cl), 1);
	CU_ASSERT_EQUAL(cl.role, PROTO_ROLE_REF);
	CU_ASSERT_EQUAL(cl.refresh, -1);
	CU_ASSERT_EQUAL(schedule_claim_config(&S, 1, -1, 1, &cl), 0); /* its twin */
	CU_ASSERT_EQUAL(schedule_claim_config(&S, 1, -1, 2, &cl), 0); /* the candidate reference */
	CU_ASSERT_EQUAL(S.state[2], IDLE);
	schedule_finished(&S, 0, PROTO_ROLE_REF);
	CU_ASSERT_EQUAL(schedule_passed(&S, 0), 1);
	CU_ASSERT_EQUAL(schedule_passed(&S, 0), 0); /* one reference per group */
	CU_ASSERT_EQUAL(schedule_claim_config(&S, 1, -1, 2, &cl), 1);
	CU_ASSERT_EQUAL(cl.role, PROTO_ROLE_CHECK);
	CU_ASSERT_EQUAL(cl.refresh, 0); /* lane 1 holds no reference yet */
	CU_ASSERT_EQUAL(schedule_claim_config(&S, 0, 0, 4, &cl), 1);
	CU_ASSERT_EQUAL(cl.refresh, -1); /* lane 0 holds group 0's */
	schedule_pass_free(&S);
}

/* A vote holds its group for the lane of its first reference until another code confirms it;
 * the lane that leaves, or a queue with nothing in flight, closes it as the first. */
static void test_a_vote_holds_its_group_until_it_is_decided(void)
{
	schedule_pass S;
	schedule_claim cl;
	six_in_one_group(&S, 1);
	measured(&S, 0, -1, 0, VERDICT_OK, &cl);
	CU_ASSERT_EQUAL(S.votes[0].state, VOTE_OPEN);
	CU_ASSERT_EQUAL(S.votes_open, 1);
	CU_ASSERT_EQUAL(schedule_claim_config(&S, 1, -1, 1, &cl), 0);
	measured(&S, 0, 0, 1, VERDICT_OK, &cl); /* the same code: proves nothing */
	CU_ASSERT_EQUAL(S.votes[0].state, VOTE_OPEN);
	measured(&S, 0, 0, 2, VERDICT_OK, &cl);
	CU_ASSERT_EQUAL(S.votes[0].state, VOTE_DONE);
	CU_ASSERT_EQUAL(S.votes[0].how, CHOSEN_CONFIRMED);
	CU_ASSERT_EQUAL(S.votes[0].agree, 2);
	CU_ASSERT_EQUAL(S.votes_open, 0);
	CU_ASSERT_EQUAL(schedule_claim_config(&S, 1, -1, 3, &cl), 1);
	schedule_pass_free(&S);
	six_in_one_group(&S, 1);
	measured(&S, 0, -1, 0, VERDICT_OK, &cl);
	schedule_lane_leaves(&S, 1);
	CU_ASSERT_EQUAL(S.votes[0].state, VOTE_OPEN);
	schedule_lane_leaves(&S, 0);
	CU_ASSERT_EQUAL(S.votes[0].how, CHOSEN_FIRST);
	schedule_pass_free(&S);
}

/* Two dissents of two other codes call the vote's lane, and no other, to re-elect. */
static void test_two_dissents_call_for_a_reelection(void)
{
	schedule_pass S;
	schedule_claim cl;
	six_in_one_group(&S, 1);
	measured(&S, 0, -1, 0, VERDICT_OK, &cl);
	measured(&S, 0, 0, 2, VERDICT_WRONG, &cl);
	measured(&S, 0, 0, 3, VERDICT_WRONG, &cl); /* the first dissent's code */
	CU_ASSERT_EQUAL(S.votes[0].ndissent, 1);
	CU_ASSERT_FALSE(schedule_reelects(&S, 0, 0));
	measured(&S, 0, 0, 4, VERDICT_WRONG, &cl);
	CU_ASSERT_EQUAL(S.votes[0].state, VOTE_RERUN);
	CU_ASSERT_TRUE(schedule_reelects(&S, 0, 0));
	CU_ASSERT_EQUAL(S.votes[0].owner, 0);
	schedule_pass_free(&S);
}

/* Group 0 of six_in_one_group with its vote left to re-elect: 0 the provisional reference, 2 and
 * 4 (two other codes) the dissents. */
static void two_dissents(schedule_pass *S)
{
	schedule_claim cl;
	six_in_one_group(S, 1);
	measured(S, 0, -1, 0, VERDICT_OK, &cl);
	measured(S, 0, 0, 2, VERDICT_WRONG, &cl);
	measured(S, 0, 0, 4, VERDICT_WRONG, &cl);
	CU_ASSERT_EQUAL_FATAL(S->votes[0].state, VOTE_RERUN);
}

/* A re-election runs B (2) as the reference, then, when it serves, C (4) against it, then, when C
 * passes, A (0) against B: B by majority. B failing, or C differing or failing, leaves A. */
static void test_a_reelection_runs_b_then_c_then_a(void)
{
	schedule_pass S;
	schedule_claim cl;
	size_t c = 99;
	int how = -1;
	two_dissents(&S);
	schedule_reelect_begin(&S, 0);
	CU_ASSERT(S.votes[0].state == VOTE_REELECT && S.ref[0] == -1);
	CU_ASSERT_EQUAL(schedule_reelect_step(&S, 0, 0, VERDICT_OTHER, &c, &how), REELECT_VISIT);
	CU_ASSERT_EQUAL(c, 2);
	CU_ASSERT_EQUAL(schedule_reelect_step(&S, 0, 1, VERDICT_OTHER, &c, &how), REELECT_KEEP); /* B failed */
	CU_ASSERT_EQUAL(how, CHOSEN_UNDECIDED);
	/* B, run again as the executor does (its earlier measurement taken back), is the reference */
	S.state[2] = S.state[4] = IDLE;
	measured(&S, 0, -1, 2, VERDICT_OK, &cl);
	CU_ASSERT(cl.role == PROTO_ROLE_REF && S.ref[0] == 2);
	CU_ASSERT_EQUAL(schedule_reelect_step(&S, 0, 1, VERDICT_OK, &c, &how), REELECT_VISIT);
	CU_ASSERT_EQUAL(c, 4);
	CU_ASSERT_EQUAL(schedule_reelect_step(&S, 0, 2, VERDICT_WRONG, &c, &how), REELECT_KEEP);
	CU_ASSERT_EQUAL(how, CHOSEN_NONE_AGREE);
	CU_ASSERT_EQUAL(schedule_reelect_step(&S, 0, 2, VERDICT_OTHER, &c, &how), REELECT_KEEP);
	CU_ASSERT_EQUAL(how, CHOSEN_UNDECIDED);
	CU_ASSERT_EQUAL(schedule_reelect_step(&S, 0, 2, VERDICT_OK, &c, &how), REELECT_VISIT);
	CU_ASSERT_EQUAL(c, 0);
	CU_ASSERT_EQUAL(schedule_reelect_step(&S, 0, 3, VERDICT_WRONG, &c, &how), REELECT_REPLACE);
	CU_ASSERT_EQUAL(how, CHOSEN_MAJORITY);
	schedule_reelect_end(&S, 0, REELECT_REPLACE, how);
	CU_ASSERT(S.ref[0] == 2 && S.votes[0].state == VOTE_DONE && S.votes[0].how == CHOSEN_MAJORITY);
	CU_ASSERT_EQUAL(S.votes_open, 0);
	schedule_pass_free(&S);
	two_dissents(&S);
	schedule_reelect_begin(&S, 0);
	schedule_reelect_end(&S, 0, REELECT_KEEP, CHOSEN_NONE_AGREE);
	CU_ASSERT(S.ref[0] == 0 && S.votes[0].how == CHOSEN_NONE_AGREE && S.votes_open == 0);
	schedule_pass_free(&S);
}

/* Put-back configurations wait while anything is in flight or a lane is in a visit; with
 * nothing, they come, and the open vote that held them closes as the first. (One code: none of
 * them can decide the vote.) */
static void test_the_queue_waits_while_anything_is_in_flight(void)
{
	schedule_pass S;
	schedule_claim cl;
	size_t c;
	six_of(&S, 1, one_code);
	CU_ASSERT_EQUAL(schedule_next_config(&S, &c), QUEUE_NEXT);
	measured(&S, 0, -1, c, VERDICT_OK, &cl); /* 0: the vote opens on lane 0 */
	S.visiting = 1; /* lane 0 waits for a binary */
	while (schedule_next_config(&S, &c) == QUEUE_NEXT) {
		CU_ASSERT_EQUAL(schedule_claim_config(&S, 1, -1, c, &cl), 0);
		schedule_queue_defer(&S.Q, c);
	}
	CU_ASSERT_EQUAL(schedule_next_config(&S, &c), QUEUE_BLOCKED);
	CU_ASSERT_EQUAL(S.votes[0].state, VOTE_OPEN);
	S.visiting = 0;
	CU_ASSERT_EQUAL(schedule_next_config(&S, &c), QUEUE_NEXT);
	CU_ASSERT_EQUAL(c, 1);
	CU_ASSERT_EQUAL(S.votes[0].how, CHOSEN_FIRST);
	CU_ASSERT_EQUAL(schedule_claim_config(&S, 1, -1, c, &cl), 1);
	schedule_pass_free(&S);
}

/* While a vote holds its group for lane 0, the other lanes do not idle: any lane takes the one
 * configuration at a time that can decide the vote (another code), checked against the reference
 * it loads first. Two dissents re-elect once nothing of the group is in flight, on the lane that
 * finishes last; meanwhile the group waits. */
static void test_a_lane_the_vote_holds_out_takes_what_can_decide_it(void)
{
	schedule_pass S;
	schedule_claim cl;
	six_in_one_group(&S, 1);
	measured(&S, 0, -1, 0, VERDICT_OK, &cl);
	CU_ASSERT_EQUAL(schedule_claim_config(&S, 1, -1, 1, &cl), 0); /* the reference's code */
	CU_ASSERT_EQUAL(schedule_claim_config(&S, 1, -1, 2, &cl), 1);
	CU_ASSERT_EQUAL(cl.role, PROTO_ROLE_CHECK);
	CU_ASSERT_EQUAL(cl.refresh, 0);
	CU_ASSERT_EQUAL(schedule_claim_config(&S, 2, -1, 4, &cl), 0); /* one decider at a time */
	CU_ASSERT_EQUAL(schedule_claim_config(&S, 0, 0, 4, &cl), 0);  /* on the vote's lane too */
	CU_ASSERT_EQUAL(schedule_claim_config(&S, 0, 0, 1, &cl), 1);  /* which takes the rest */
	schedule_finished(&S, 2, PROTO_ROLE_CHECK);
	schedule_count_vote(&S, 1, 2, PROTO_ROLE_CHECK, VERDICT_WRONG);
	CU_ASSERT_EQUAL(S.votes[0].dissent[0], 2);
	CU_ASSERT_EQUAL(schedule_claim_config(&S, 2, -1, 3, &cl), 0); /* the first dissent's code */
	CU_ASSERT_EQUAL(schedule_claim_config(&S, 2, -1, 5, &cl), 1); /* a third code */
	schedule_finished(&S, 5, PROTO_ROLE_CHECK);
	schedule_count_vote(&S, 2, 5, PROTO_ROLE_CHECK, VERDICT_WRONG);
	CU_ASSERT_EQUAL(S.votes[0].state, VOTE_RERUN);
	CU_ASSERT_FALSE(schedule_reelects(&S, 2, 0)); /* 1 is still in flight on lane 0 */
	CU_ASSERT_EQUAL(schedule_claim_config(&S, 0, 0, 4, &cl), 0);
	schedule_finished(&S, 1, PROTO_ROLE_CHECK);
	CU_ASSERT_TRUE(schedule_reelects(&S, 0, 0));
	CU_ASSERT_EQUAL(S.votes[0].owner, 0);
	schedule_pass_free(&S);
}

/* A time budget as evaluations: 80 configurations of 40 binaries, 2 each; 5 binaries affordable
 * make 11 evaluations (one more, so that the last binary is met); nothing predicted, or more than
 * the space, is the whole space. */
static void test_a_time_budget_is_the_binaries_it_affords(void)
{
	CU_ASSERT_EQUAL(schedule_seconds_budget(80, 40, 5), 11);
	CU_ASSERT_EQUAL(schedule_seconds_budget(80, 40, 0), 80);
	CU_ASSERT_EQUAL(schedule_seconds_budget(80, 40, 40), 80);
	CU_ASSERT_EQUAL(schedule_seconds_budget(80, 0, 3), 80);
}

/* The finalists are re-timed when there are two or more, except on a resumed run that measured
 * nothing new and has each one's rounds already; a finalist's rounds count from three full rounds
 * on, its passing ones only, and only when three or more passed. */
static void test_finalists_rounds_count_from_three(void)
{
	CU_ASSERT_FALSE(schedule_retime_finalists(1, 0, 5));
	CU_ASSERT_FALSE(schedule_retime_finalists(3, 1, 0));
	CU_ASSERT_TRUE(schedule_retime_finalists(3, 1, 1));
	CU_ASSERT_TRUE(schedule_retime_finalists(2, 0, 0));
	double rounds[FINAL_ROUNDS] = {1, NAN, 2, 3, 4, NAN, NAN}, v[FINAL_ROUNDS];
	CU_ASSERT_EQUAL_FATAL(schedule_final_rounds(rounds, 5, v), 4);
	for (size_t i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(v[i], (double)(i + 1));
	CU_ASSERT_EQUAL(schedule_final_rounds(rounds, 2, v), 0); /* two full rounds: uneven */
	CU_ASSERT_EQUAL(schedule_final_rounds(rounds, 3, v), 0); /* two of three passed */
	CU_ASSERT_EQUAL(schedule_final_rounds(rounds, 4, v), 3);
}

/* measure.metrics: none and auto take only those the balance decides among, top:K the fastest K,
 * all every one. */
static void test_counters_wanted_follow_measure_metrics(void)
{
	CU_ASSERT_EQUAL(schedule_counters_wanted(METRICS_NONE, 4), 0);
	CU_ASSERT_EQUAL(schedule_counters_wanted(METRICS_AUTO, 4), 0);
	CU_ASSERT_EQUAL(schedule_counters_wanted(METRICS_TOP, 4), 4);
	CU_ASSERT_EQUAL(schedule_counters_wanted(METRICS_ALL, 4), SIZE_MAX);
}

/* The counters' queue: the fastest top (5 profiled as 1, whose measurement it shares), then the
 * tied (1 already queued), then the finalists, each once; a single tied one or finalist (nothing
 * to decide among), or finalists withheld, add nothing. */
static void test_the_counters_queue_is_the_fastest_then_the_tied_then_the_finalists(void)
{
	const long long shares_with[N] = {-1, -1, -1, -1, -1, 1, -1, -1};
	const size_t ranked[] = {3, 5, 0, 2}, tied[] = {1, 6}, final[] = {3, 7};
	counters_pick p = {.count = N, .shares_with = shares_with, .ranked = ranked, .nranked = 4, .top = 2,
			   .tied = tied, .ntied = 2, .final = final, .nfinal = 2};
	size_t queue[N];
	CU_ASSERT_EQUAL_FATAL(schedule_counters_queue(&p, queue), 4);
	CU_ASSERT(queue[0] == 3 && queue[1] == 1 && queue[2] == 6 && queue[3] == 7);
	p.ntied = 1;
	p.final = NULL;
	CU_ASSERT_EQUAL_FATAL(schedule_counters_queue(&p, queue), 2);
	CU_ASSERT(queue[0] == 3 && queue[1] == 1);
	p.top = SIZE_MAX; /* measure.metrics: all */
	CU_ASSERT_EQUAL(schedule_counters_queue(&p, queue), 4);
}

static int profiled_odd(void *ctx, size_t c) { return (void)ctx, c % 2 == 1; }

/* The lanes other than the first split the counters (the first re-times the finalists, and
 * profiles only when no other can); each session takes its lane's share of what is left, those
 * profiled (odd ones) or taken before skipped, at most COUNTERS_PER_SESSION. */
static void test_lanes_take_their_share_of_the_counters(void)
{
	CU_ASSERT_EQUAL(schedule_counters_sharers(1), 1);
	CU_ASSERT_EQUAL(schedule_counters_sharers(3), 2);
	CU_ASSERT_FALSE(schedule_lane_profiles(0, 1));
	CU_ASSERT_TRUE(schedule_lane_profiles(0, 0));
	CU_ASSERT_TRUE(schedule_lane_profiles(1, 2));
	size_t order[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, out[COUNTERS_PER_SESSION];
	char taken[10] = {0};
	taken[4] = 1;
	counters_queue Q = {.order = order, .count = 10, .taken = taken, .profiled = profiled_odd};
	CU_ASSERT_EQUAL(schedule_counters_left(&Q), 4); /* 0 2 6 8 */
	/* a share of ceil(10 / 4): 0 2 6, then ceil(3 / 4) of the rest: 8, then 9 is looked at */
	CU_ASSERT_EQUAL_FATAL(schedule_counters_take(&Q, 4, out), 3);
	CU_ASSERT(out[0] == 0 && out[1] == 2 && out[2] == 6 && Q.cursor == 7 && taken[0] && taken[6]);
	CU_ASSERT_EQUAL(schedule_counters_left(&Q), 1);
	CU_ASSERT_EQUAL_FATAL(schedule_counters_take(&Q, 4, out), 1);
	CU_ASSERT(out[0] == 8 && Q.cursor == 9);
	CU_ASSERT_EQUAL(schedule_counters_take(&Q, 4, out), 0);
	CU_ASSERT_EQUAL(Q.cursor, 10);
	size_t big[200];
	char none[200] = {0};
	for (size_t i = 0; i < 200; i++)
		big[i] = i;
	counters_queue B = {.order = big, .count = 200, .taken = none, .profiled = profiled_odd};
	CU_ASSERT_EQUAL(schedule_counters_take(&B, 1, out), COUNTERS_PER_SESSION); /* 0 2 .. 126 */
	CU_ASSERT_EQUAL(B.cursor, 2 * COUNTERS_PER_SESSION - 1);
}

/* Racing: above race x the GPU's best, and in the exhaustive pass above the finalists' margin of
 * that best; a search's near ones, a first measurement, or race 0 are never cut short. */
static void test_racing_thresholds(void)
{
	double race_ms, near_ms;
	schedule_race(1.5, 2.0, 0, 0.05, &race_ms, &near_ms);
	CU_ASSERT_DOUBLE_EQUAL(race_ms, 3.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(near_ms, 2.1, 1e-12);
	schedule_race(1.5, 2.0, 1, 0.05, &race_ms, &near_ms);
	CU_ASSERT(race_ms == 3.0 && near_ms == 0);
	schedule_race(1.5, 0, 0, 0.05, &race_ms, &near_ms);
	CU_ASSERT(race_ms == 0 && near_ms == 0);
	schedule_race(0, 2.0, 0, 0.05, &race_ms, &near_ms);
	CU_ASSERT(race_ms == 0 && near_ms == 0);
}

int add_schedule_suite(void)
{
	CU_pSuite s = CU_add_suite("schedule", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "committed configurations are measured as their binaries arrive",
		    test_committed_configurations_are_measured_as_their_binaries_arrive);
	CU_add_test(s, "without ahead only the asked-for is measured", test_without_ahead_only_the_asked_for_is_measured);
	CU_add_test(s, "a search that is over stops waiting", test_a_search_that_is_over_stops_waiting);
	CU_add_test(s, "a failed pool ends the wait", test_a_failed_pool_ends_the_wait);
	CU_add_test(s, "hints are binaries in order", test_hints_are_binaries_in_order);
	CU_add_test(s, "a put-back configuration waits for a finish", test_a_put_back_configuration_waits_for_a_finish);
	CU_add_test(s, "put-back ones are blocked until released", test_put_back_ones_are_blocked_until_released);
	CU_add_test(s, "the profile share follows the finalists' time", test_the_profile_share_follows_the_finalists_time);
	CU_add_test(s, "a search compiles only what it needs", test_a_search_compiles_only_what_it_needs);
	CU_add_test(s, "a plan's queue runs by worker", test_a_plans_queue_runs_by_worker);
	CU_add_test(s, "a lane leaves to profile when the pass ends with its session",
		    test_a_lane_leaves_to_profile_when_the_pass_ends_with_its_session);
	CU_add_test(s, "a visit waits for its twin and its reference", test_a_visit_waits_for_its_twin_and_its_reference);
	CU_add_test(s, "a vote holds its group until it is decided", test_a_vote_holds_its_group_until_it_is_decided);
	CU_add_test(s, "two dissents call for a re-election", test_two_dissents_call_for_a_reelection);
	CU_add_test(s, "the queue waits while anything is in flight", test_the_queue_waits_while_anything_is_in_flight);
	CU_add_test(s, "a time budget is the binaries it affords", test_a_time_budget_is_the_binaries_it_affords);
	CU_add_test(s, "a lane the vote holds out takes what can decide it",
		    test_a_lane_the_vote_holds_out_takes_what_can_decide_it);
	CU_add_test(s, "finalists' rounds count from three", test_finalists_rounds_count_from_three);
	CU_add_test(s, "counters wanted follow measure.metrics", test_counters_wanted_follow_measure_metrics);
	CU_add_test(s, "the counters' queue is the fastest, then the tied, then the finalists",
		    test_the_counters_queue_is_the_fastest_then_the_tied_then_the_finalists);
	CU_add_test(s, "lanes take their share of the counters", test_lanes_take_their_share_of_the_counters);
	CU_add_test(s, "racing thresholds", test_racing_thresholds);
	CU_add_test(s, "a re-election runs B, then C, then A", test_a_reelection_runs_b_then_c_then_a);
	return 0;
}
