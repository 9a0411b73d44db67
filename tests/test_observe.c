/* test_observe.c: the measuring stage's observers (observe.c). The journal observer keeps each
 * result's fate as the records a resumed run reads back; a recorded observer on the chain sees
 * every event in the order the executor told it: a whole measure_space (measure.c, finish.c) on an
 * in-process worker, and a re-election (reference.c) with a fake visit. No worker process, nvcc
 * or clock. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "journal.h"
#include "compile.h"
#include "measure_pass.h"
#include "observe.h"
#include "tests.h"

#define PATH "scratch/observe.journal"

/* An observer that records what it is told. */
typedef struct {
	observer ob;
	char log[64][24];
	size_t n;
} recorder;

static void rec_result(observer *ob, seen_kind what, size_t c, const result *r)
{
	recorder *R = (recorder *)ob;
	static const char *const kinds[] = {"started", "measured", "stopped", "shared", "reused", "restored", "final", "metrics"};
	(void)r;
	if (R->n < 64)
		snprintf(R->log[R->n++], sizeof R->log[0], "%s %zu", kinds[what], c);
}

static void rec_step(observer *ob, size_t done, const char *desc)
{
	recorder *R = (recorder *)ob;
	(void)desc;
	if (R->n < 64)
		snprintf(R->log[R->n++], sizeof R->log[0], "step %zu", done);
}

static void fresh(result *res, size_t n)
{
	memset(res, 0, n * sizeof *res);
	for (size_t i = 0; i < n; i++) {
		res[i].shares_with = -1;
		res[i].driver_blocks = -1;
		for (int m = 0; m < METRIC_COUNT; m++)
			res[i].metrics[m] = NAN;
	}
}

/* Each fate told to the chain reaches the journal as the records it takes (read back by a
 * resumed run) and the next observer, in order; without a journal nothing is written. */
static void test_the_journal_keeps_each_fate(void)
{
	space sp = {.nparams = 1, .count = 4};
	result res[4], r;
	journal_resume jr;
	diags d = {0};
	unlink(PATH);
	fresh(res, 4);
	static volatile sig_atomic_t no_signal;
	measure_opts o = {.interrupted = &no_signal};
	o.journal = journal_open(PATH, "00000000000000ee", 0, &sp, res, &jr, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o.journal);
	recorder R = {.ob = {.result = rec_result}};
	journal_observer J;
	observer *chain = journal_observer_init(&J, o.journal, &o.journal_failed, &o.journal_note, &R.ob);
	fresh(&r, 1);
	r = (result){.st = ST_OK, .t_median = 1.5, .t_min = 1.4, .t_max = 1.6, .samples = 5, .batch = 1, .gpu = 1,
		     .compile_s = 2.5, .shares_with = -1, .driver_blocks = -1};
	memcpy(r.code, "0123456789abcdef", 17);
	observe_result(chain, SEEN_STARTED, 0, &r);
	observe_result(chain, SEEN_MEASURED, 0, &r);
	r.final_rounds = 5;
	r.final_median = 1.45;
	observe_result(chain, SEEN_FINAL, 0, &r);
	result twin = r;
	twin.shares_with = 0;
	observe_result(chain, SEEN_SHARED, 1, &twin);
	observe_result(chain, SEEN_STARTED, 2, &r);
	observe_result(chain, SEEN_STOPPED, 2, &r);
	result gone = {.st = ST_NOT_RUN};
	observe_result(chain, SEEN_RESTORED, 3, &gone); /* nothing known: no record */
	journal_close(o.journal);
	CU_ASSERT_EQUAL_FATAL(R.n, 7);
	static const char *const want[] = {"started 0", "measured 0", "final 0", "shared 1", "started 2", "stopped 2", "restored 3"};
	for (size_t i = 0; i < 7; i++)
		CU_ASSERT_STRING_EQUAL(R.log[i], want[i]);
	fresh(res, 4);
	o.journal = journal_open(PATH, "00000000000000ee", 0, &sp, res, &jr, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o.journal);
	CU_ASSERT_EQUAL(res[0].st, ST_OK);
	CU_ASSERT_EQUAL(res[0].gpu, 1);
	CU_ASSERT_DOUBLE_EQUAL(res[0].compile_s, 2.5, 1e-9);
	CU_ASSERT_EQUAL(res[0].final_rounds, 5);
	CU_ASSERT_EQUAL(res[1].shares_with, 0);
	CU_ASSERT_EQUAL(res[2].st, ST_NOT_RUN); /* stopped: measured again, not crashed */
	CU_ASSERT_FALSE(res[2].lost_in_flight);
	CU_ASSERT_EQUAL(res[3].st, ST_NOT_RUN);
	CU_ASSERT_FALSE(o.journal_failed);
	journal_close(o.journal);
	o.journal = NULL;
	journal_observer_init(&J, NULL, &o.journal_failed, &o.journal_note, NULL);
	CU_ASSERT_PTR_NULL(J.ob.result);
	for (size_t i = 0; i < 4; i++)
		free(res[i].message);
	diags_free(&d);
	unlink(PATH);
}

/* The fake lane: B (the first dissent) fails when run as the reference. */
static int failing_visit(pass *P, lane *L, size_t c)
{
	(void)L;
	schedule_claim cl;
	CU_ASSERT_EQUAL(schedule_claim_config(&P->S, 0, -1, c, &cl), 1);
	P->res[c].st = ST_CRASHED;
	schedule_finished(&P->S, c, cl.role);
	observe_step(P->seen, ++P->done, NULL);
	return 0;
}

static int by_pair(void *ctx, size_t a, size_t c) { return (void)ctx, a / 2 == c / 2; }

/* A re-election whose B cannot serve: the executor visits B alone, then puts back B's and C's
 * results from before, each told as restored, in that order, and A stays. */
static void test_a_reelection_is_told_in_order(void)
{
	size_t *group = calloc(6, sizeof *group);
	result res[6];
	fresh(res, 6);
	static volatile sig_atomic_t no_signal;
	measure_opts o = {.interrupted = &no_signal};
	lane L = {.gpu = 0, .loaded = 0};
	recorder R = {.ob = {.result = rec_result, .step = rec_step}};
	pass P = {.res = res, .o = &o, .lanes = &L, .nlanes = 1, .seen = &R.ob};
	L.P = &P;
	schedule_pass_init(&P.S, 6, group, -1, 0, 1, (pass_view){by_pair, by_pair, NULL});
	pthread_cond_init(&P.changed, NULL);
	size_t first[3] = {0, 2, 4};
	int verdict[3] = {VERDICT_OK, VERDICT_WRONG, VERDICT_WRONG};
	for (size_t i = 0; i < 3; i++) {
		schedule_claim cl;
		CU_ASSERT_EQUAL_FATAL(schedule_claim_config(&P.S, 0, i ? 0 : -1, first[i], &cl), 1);
		schedule_finished(&P.S, first[i], cl.role);
		res[first[i]].st = i ? ST_WRONG_RESULT : ST_OK;
		if (!i)
			schedule_passed(&P.S, 0);
		schedule_count_vote(&P.S, 0, first[i], cl.role, verdict[i]);
		P.done++;
		o.measured++;
	}
	CU_ASSERT_EQUAL_FATAL(P.S.votes[0].state, VOTE_RERUN);
	vote_reelect(&P, &L, 0, failing_visit);
	CU_ASSERT_EQUAL_FATAL(R.n, 3);
	CU_ASSERT_STRING_EQUAL(R.log[0], "step 2"); /* B and C taken back, B run again */
	CU_ASSERT_STRING_EQUAL(R.log[1], "restored 2");
	CU_ASSERT_STRING_EQUAL(R.log[2], "restored 4");
	CU_ASSERT_EQUAL(P.S.ref[0], 0);
	CU_ASSERT_EQUAL(P.S.votes[0].how, CHOSEN_UNDECIDED);
	CU_ASSERT_EQUAL(res[2].st, ST_WRONG_RESULT);
	CU_ASSERT_EQUAL(P.done, 3);
	pthread_cond_destroy(&P.changed);
	schedule_pass_free(&P.S);
}

/* Records phases too. */
static void rec_phase(observer *ob, const char *name, size_t steps, int show)
{
	recorder *R = (recorder *)ob;
	if (R->n < 64)
		snprintf(R->log[R->n++], sizeof R->log[0], "%s %zu%s", name ? name : "end", steps, show ? "" : " (quiet)");
}

/* An in-process worker: a configuration's time is 1 ms + bx / 1000 ms, every run passes, nothing
 * can be profiled. */
static int fake_measure(runner *r, const config *cfg, const value *params, proto_role role, const binary *bin,
			const sample_plan *plan, result *res, double timeout_s, diags *d)
{
	(void)r, (void)cfg, (void)role, (void)bin, (void)timeout_s, (void)d;
	res->st = ST_OK;
	res->t_median = res->t_min = res->t_max = 1 + (double)params[0].u.i / 1000;
	res->samples = plan->rule.max_samples ? (int)plan->rule.max_samples : 1;
	res->batch = 1;
	return 0;
}

static int fake_profile(runner *r, const config *cfg, size_t n, const value *const *params, const binary *const *bins,
			result *const *res, double timeout_s, char **why, diags *d)
{
	(void)r, (void)cfg, (void)params, (void)bins, (void)res, (void)timeout_s, (void)d;
	for (size_t i = 0; i < n; i++)
		why[i] = xstrdup("no profiler here");
	return 0;
}

static void fake_quit(runner *r) { (void)r; }

/* One GPU measures bx 32, 64, 96, 128 in space order, each told as started, measured, a step;
 * the two within 5% of the fastest (32 and 64) are re-timed in 7 rounds, 14 steps, then told as
 * finalists; no counters are asked for. */
static void test_the_executor_tells_every_event_in_order(void)
{
	config cfg;
	space sp;
	build b;
	diags d = {0};
	const char *yaml = write_temp(2, "observe.yaml", "kernel: {source: /dev/null, entry: k}\n"
							 "arguments: [{name: a, type: float, count: 4}]\n"
							 "space: {bx: [32, 64, 96, 128]}\n"
							 "launch: {block: [bx], grid: [1]}\n");
	CU_ASSERT_EQUAL_FATAL(config_load(yaml, &cfg, &d) || space_enumerate(&cfg, &sp, &d), 0);
	result *res = calloc(sp.count, sizeof *res);
	CU_ASSERT_EQUAL_FATAL(space_eval_geometry(&cfg, &sp, res, &d), 0);
	build_plan(&cfg, &sp, &b);
	for (size_t k = 0; k < b.nbins; k++) { /* as nvcc left them: one kernel, one code */
		b.bins[k].res.symbol = xstrdup("k");
		memcpy(b.bins[k].code, "00000000000000c0", 17);
	}
	static volatile sig_atomic_t no_signal;
	static const worker_ops fake = {fake_measure, fake_profile, fake_quit};
	recorder R = {.ob = {.phase = rec_phase, .step = rec_step, .result = rec_result}};
	measure_opts o = {.interrupted = &no_signal, .worker = &fake, .observers = &R.ob};
	int lane_ctx;
	runner *rn = (runner *)&lane_ctx;
	CU_ASSERT_EQUAL(measure_space(&cfg, &sp, &b, res, &rn, 1, &o, &d), 0);
	diags_print(&d);
	char want[64][24];
	size_t n = 0;
	snprintf(want[n++], sizeof want[0], "measure 4");
	for (size_t c = 0; c < 4; c++) {
		snprintf(want[n++], sizeof want[0], "started %zu", c);
		snprintf(want[n++], sizeof want[0], "measured %zu", c);
		snprintf(want[n++], sizeof want[0], "step %zu", c + 1);
	}
	snprintf(want[n++], sizeof want[0], "end 0 (quiet)");
	snprintf(want[n++], sizeof want[0], "final 14");
	for (size_t k = 1; k <= 14; k++)
		snprintf(want[n++], sizeof want[0], "step %zu", k);
	snprintf(want[n++], sizeof want[0], "final 0");
	snprintf(want[n++], sizeof want[0], "final 1");
	snprintf(want[n++], sizeof want[0], "end 0 (quiet)");
	snprintf(want[n++], sizeof want[0], "counters 0 (quiet)");
	snprintf(want[n++], sizeof want[0], "end 0 (quiet)");
	CU_ASSERT_EQUAL(R.n, n);
	for (size_t i = 0; i < n && i < R.n; i++) {
		if (strcmp(R.log[i], want[i]))
			fprintf(stderr, "\n  event %zu: %s, not %s", i, R.log[i], want[i]);
		CU_ASSERT_STRING_EQUAL(R.log[i], want[i]);
	}
	CU_ASSERT_EQUAL(o.measured, 4);
	CU_ASSERT_EQUAL(res[0].final_rounds, 7);
	for (size_t c = 0; c < sp.count; c++)
		free(res[c].message);
	free(res);
	free(o.reference_note);
	free(o.counters_note);
	build_free(&b);
	space_free(&sp);
	config_free(&cfg);
	diags_free(&d);
	unlink(yaml);
}

int add_observe_suite(void)
{
	CU_pSuite s = CU_add_suite("observe", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "the journal keeps each fate", test_the_journal_keeps_each_fate);
	CU_add_test(s, "a re-election is told in order", test_a_reelection_is_told_in_order);
	CU_add_test(s, "the executor tells every event in order", test_the_executor_tells_every_event_in_order);
	return 0;
}
