/* test_objective.c: select.objective and metrics: evaluated (objective.c), and what they change in
 * a run on the CPU (tests/fake_worker.c stands in for the GPU worker): a kernel that does more
 * steps per launch wins by time per step where the shortest launch wins by time; an energy
 * objective picks another winner than time; the energy columns never hold a zero that was not
 * measured. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "objective.h"
#include "plan.h"
#include "proc.h"
#include "select.h"
#include "table.h"
#include "tests.h"

#define DIR "scratch/objective"

/* config_good with a parameter `steps` and select/metrics lines */
static const char *steps_config(const char *extra)
{
	static char text[2048];
	snprintf(text, sizeof text,
		 "name: tiny\nkernel: {source: /dev/null, entry: k}\nconstants: {n: 1 << 10}\n"
		 "arguments:\n  - {name: a, type: float, count: n}\n  - {name: n, type: int32, value: n}\n"
		 "space: {steps: [1, 2, 4, 8]}\nlaunch: {block: [\"32 * steps\"], grid: [1]}\n%s",
		 extra);
	return text;
}

static result passed(double ms)
{
	return (result){.st = ST_OK, .samples = 10, .t_median = ms, .noise = 0.001, .occupancy = 1};
}

static void test_the_objective_scores_a_measurement(void)
{
	config cfg;
	char *first = NULL;
	CU_ASSERT_EQUAL_FATAL(config_load_text(steps_config("select: {objective: \"time_ms / steps\"}\n"), &cfg, &first), 0);
	free(first);
	value four = value_int(4);
	result r = passed(2.0);
	objective_apply(&cfg, &four, &r);
	CU_ASSERT_EQUAL(r.scored, 1);
	CU_ASSERT_DOUBLE_EQUAL(r.objective, 0.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(result_rank(&r), 0.5, 1e-12);
	/* the finalists' median, once there is one, is the time */
	r.final_rounds = 7;
	r.final_median = 1.0;
	objective_apply(&cfg, &four, &r);
	CU_ASSERT_DOUBLE_EQUAL(r.objective, 0.25, 1e-12);
	/* a configuration that failed has none */
	r.st = ST_WRONG_RESULT;
	objective_apply(&cfg, &four, &r);
	CU_ASSERT_EQUAL(r.scored, 0);
	config_free(&cfg);
	/* maximised: ranked by the reciprocal, so that more is better and the noise stays relative */
	CU_ASSERT_EQUAL_FATAL(config_load_text(steps_config("select: {objective: {maximize: \"steps / time_s\"}}\n"), &cfg, &first), 0);
	free(first);
	r = passed(2.0);
	objective_apply(&cfg, &four, &r);
	CU_ASSERT_DOUBLE_EQUAL(r.objective, 2000, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(result_rank(&r), 1.0 / 2000, 1e-15);
	/* a rate is a scaled time: racing on time races on it, at 1 / (1000 x steps) per ms */
	CU_ASSERT_DOUBLE_EQUAL(objective_per_ms(&cfg, &four), 1.0 / 4000, 1e-15);
	config_free(&cfg);
	/* what is not a scaled time turns racing off; without an objective the time races */
	static const char *const not_scaled[] = {"select: {objective: \"time_ms + 1\"}\n", "select: {objective: joules}\n"};
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(config_load_text(steps_config(not_scaled[i]), &cfg, &first), 0);
		free(first);
		CU_ASSERT_EQUAL(objective_per_ms(&cfg, &four), 0);
		config_free(&cfg);
	}
	CU_ASSERT_EQUAL_FATAL(config_load_text(steps_config(""), &cfg, &first), 0);
	free(first);
	CU_ASSERT_EQUAL(objective_per_ms(&cfg, &four), 1);
	double plain = plan_timeout(&cfg, 2.0);
	config_free(&cfg);
	/* an energy window may take its longest before the worker answers: not a hung kernel */
	CU_ASSERT_EQUAL_FATAL(config_load_text(steps_config("measure: {energy: always}\n"), &cfg, &first), 0);
	free(first);
	CU_ASSERT_DOUBLE_EQUAL(plan_timeout(&cfg, 2.0) - plain, ENERGY_WINDOW_MAX_S, 1e-9);
	config_free(&cfg);
}

/* A value that cannot rank (no energy measured, zero or less) is no score: the configuration
 * cannot win, and the summary's words say why. */
static void test_an_objective_without_a_value_cannot_win(void)
{
	config cfg;
	char *first = NULL;
	CU_ASSERT_EQUAL_FATAL(config_load_text(steps_config("select: {objective: \"joules * steps\"}\n"), &cfg, &first), 0);
	free(first);
	CU_ASSERT_EQUAL(cfg.measure_energy, 1);
	value one = value_int(1);
	result r[2] = {passed(1.0), passed(2.0)};
	objective_apply(&cfg, &one, &r[0]); /* no energy */
	r[1].have_energy = 1;
	r[1].joules = 0.25;
	r[1].watts = 250;
	objective_apply(&cfg, &one, &r[1]);
	CU_ASSERT_EQUAL(r[0].scored, 2);
	CU_ASSERT(isinf(result_rank(&r[0])));
	CU_ASSERT_EQUAL(r[1].scored, 1);
	char why[200];
	objective_why(&cfg, &one, &r[0], why, sizeof why);
	CU_ASSERT_STRING_EQUAL(why, "the objective uses joules, which has no value here (no energy measured)");
	choice c;
	select_winner(r, 2, &cfg.select, &c);
	CU_ASSERT_EQUAL(c.winner, 1); /* the faster launch has no energy */
	choice_free(&c);
	/* zero or less: not a value that ranks relative to the best */
	r[1].joules = -1;
	objective_apply(&cfg, &one, &r[1]);
	CU_ASSERT_EQUAL(r[1].scored, 2);
	objective_why(&cfg, &one, &r[1], why, sizeof why);
	CU_ASSERT_STRING_EQUAL(why, "the objective is -1: only a positive value ranks");
	select_winner(r, 2, &cfg.select, &c);
	CU_ASSERT_EQUAL(c.winner, -1);
	choice_free(&c);
	config_free(&cfg);
}

/* The finalists and the search's ranking follow the objective, not the time. */
static void test_the_ranking_follows_the_objective(void)
{
	result r[3] = {passed(1.0), passed(1.5), passed(3.0)};
	double score[3] = {1.0, 0.5, 0.49};
	for (int i = 0; i < 3; i++) {
		r[i].scored = 1;
		r[i].score = score[i];
		r[i].shares_with = -1;
	}
	size_t n, *idx = plan_ranked(r, 3, &n);
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT(idx[0] == 2 && idx[1] == 1 && idx[2] == 0);
	free(idx);
	size_t k;
	idx = plan_finalists(r, 3, 3, &k);
	CU_ASSERT_EQUAL(k, 2); /* within 5% of the best score: 0.49 and 0.5, not the shortest launch */
	free(idx);
	/* 0.49 and 0.5 (2% apart) within the noise band: 1% noise each, two standard errors */
	for (int i = 0; i < 3; i++)
		r[i].noise = 0.01;
	select_policy p = {.kind = POLICY_FASTEST, .w_occupancy = 1, .w_load_efficiency = 1, .noise_band = 2};
	snprintf(p.objective, sizeof p.objective, "time_ms / steps");
	choice c;
	select_winner(r, 3, &p, &c);
	CU_ASSERT_EQUAL(c.winner, 2);
	CU_ASSERT_EQUAL(c.ntied, 2);
	CU_ASSERT_STRING_EQUAL(select_why_lost(r, &c, 1, &p), "worse objective");
	choice_free(&c);	/* the policy column records it, and reads back: report, show and header rank by it again */
	char text[POLICY_TEXT_MAX];
	p.maximize = 1;
	select_policy_text(&p, text);
	CU_ASSERT_STRING_EQUAL(text, "fastest;noise_band=2;occupancy=1;load_efficiency=1;maximize=time_ms / steps");
	select_policy back;
	CU_ASSERT_EQUAL_FATAL(select_policy_parse(text, &back), 0);
	CU_ASSERT_STRING_EQUAL(back.objective, "time_ms / steps");
	CU_ASSERT_EQUAL(back.maximize, 1);
	CU_ASSERT_EQUAL(select_policy_parse("fastest;noise_band=2;occupancy=1;load_efficiency=1;maximise=x", &back), -1);
	CU_ASSERT_EQUAL(select_policy_parse("fastest;noise_band=2;occupancy=1;load_efficiency=1", &back), 0);
	CU_ASSERT_STRING_EQUAL(back.objective, "");
}

/* The run of the multi-step config with measure: keys `measure` (", key: value" or "") and the
 * lines `select`, on a fake GPU that draws `watts` (NULL: has no energy counter): its exit
 * status, and its CSV loaded into *t. */
static int run_steps(const char *measure, const char *select, const char *watts, table *t)
{
	char text[2048], *out = NULL;
	mkdir(DIR, 0777);
	put_file(DIR "/k.cu", "extern \"C\" __global__ void k(float *a, int n, int steps) { int i = blockIdx.x * blockDim.x + "
			      "threadIdx.x; for (int s = 0; s < steps; s++) if (i < n) a[i] += 1; }\n");
	/* the fake worker times a launch 1 + blockDim.x / 1000 ms: a block of 32 threads a step, as a
	 * kernel that keeps a step's intermediate in shared memory per thread, say */
	snprintf(text, sizeof text,
		 "name: steps\nkernel: {source: k.cu, entry: k}\narguments:\n"
		 "  - {name: a, type: float, count: 4096, output: true}\n  - {name: n, type: int32, value: 4096}\n"
		 "  - {name: steps, type: int32, value: steps}\n"
		 "space: {steps: [1, 2, 4, 8]}\nlaunch: {block: [\"32 * steps\"], grid: [\"ceil_div(4096, 32 * steps)\"]}\n"
		 "measure: {metrics: none%s}\nmetrics: {ms_per_step: \"time_ms / steps\"}\n%s"
		 "output: {csv: " DIR "/steps.csv, header: " DIR "/steps_tuned.h}\n",
		 measure, select);
	put_file(DIR "/steps.yaml", text);
	fake_worker_reset(DIR, "steps");
	if (watts)
		setenv("FAKE_WATTS", watts, 1);
	int rc = run_autotune_on(DIR "/steps.yaml", (char *[]){"-q", NULL}, &out);
	if (rc && rc != 1)
		fprintf(stderr, "\n%s\n", out);
	free(out);
	diags d = {0};
	int loaded = rc == 0 ? table_load(DIR "/steps.csv", t, &d) : -1;
	diags_free(&d);
	return rc ? rc : loaded;
}

static double field_num(const table *t, size_t row, const char *name) { return table_num(t, row, table_col(t, name)); }

static void test_time_per_step_and_per_launch_pick_different_winners(void)
{
	table launch, step;
	CU_ASSERT_EQUAL_FATAL(run_steps("", "", NULL, &launch), 0);
	CU_ASSERT_EQUAL_FATAL(run_steps("", "select: {objective: \"time_ms / steps\"}\n", NULL, &step), 0);
	long long wl = table_winner(&launch), ws = table_winner(&step);
	int nraced = 0;
	CU_ASSERT_FATAL(wl >= 0 && ws >= 0);
	CU_ASSERT_EQUAL(field_num(&launch, (size_t)wl, "steps"), 1); /* the shortest launch */
	CU_ASSERT_EQUAL(field_num(&step, (size_t)ws, "steps"), 8);   /* the least time per step */
	for (size_t r = 0; r < step.nrows; r++) {
		double t = field_num(&step, r, "time_ms_median"), s = field_num(&step, r, "steps");
		/* the objective and the metric as written, from the time that decides */
		CU_ASSERT_DOUBLE_EQUAL(field_num(&step, r, "objective"), t / s, 1e-5 * t);
		CU_ASSERT_DOUBLE_EQUAL(field_num(&step, r, "ms_per_step"), t / s, 1e-5 * t);
		CU_ASSERT_PTR_NOT_NULL(strstr(table_field(&step, r, "policy"), ";minimize=time_ms / steps"));
		/* raced by time per step, not by time: the winner, the longest launch, is measured in
		 * full; a row raced out is past the finalists' margin of the best time per step */
		int raced = strstr(table_field(&step, r, "flags"), "raced") != NULL;
		if ((long long)r == ws)
			CU_ASSERT(!raced && field_num(&step, r, "samples") == 10);
		if (raced)
			CU_ASSERT(t / s > (1 + PLAN_FINAL_WITHIN) * field_num(&step, (size_t)ws, "objective"));
		nraced += raced;
		/* no energy asked for: none, and no zero */
		CU_ASSERT_STRING_EQUAL(table_field(&step, r, "joules_per_launch"), "");
		/* without an objective the column is empty, the metric not */
		CU_ASSERT_STRING_EQUAL(table_field(&launch, r, "objective"), "");
		CU_ASSERT(field_num(&launch, r, "ms_per_step") > 0);
	}
	/* one step a launch, 32 threads at half the occupancy, is measured last: 6.6x the best */
	CU_ASSERT(nraced >= 1);
	/* what report, show and header do from the file alone: the same winner, chosen again */
	result *res = table_results(&step);
	choice c;
	int flagged;
	table_pick_winner(&step, res, &flagged, &c);
	CU_ASSERT_EQUAL(c.winner, ws);
	choice_free(&c);
	table_results_free(res, step.nrows);
	table_free(&launch);
	table_free(&step);
}

/* The report from the file alone: what tuning bought by the objective against the baseline, the
 * best configurations by it, with the metrics and the objective as columns. */
static void test_the_report_ranks_by_the_objective(void)
{
	table t;
	CU_ASSERT_EQUAL_FATAL(run_steps("", "select: {objective: \"time_ms / steps\", baseline: {steps: 1}}\n", NULL, &t), 0);
	table_free(&t);
	char *csv = slurp(DIR "/steps.csv");
	CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
	char *html = report_of(csv, NULL);
	/* 1.032 ms for one step against 1.256 ms for eight: 6.57 times less per step, 0.224 ms longer */
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "as good as the baseline by the objective (minimize time_ms / steps)."));
	char *bought = between(html, "<table id=\"bought-table\"", "</table>");
	CU_ASSERT_PTR_NOT_NULL(strstr(bought, "<th>gain by the objective</th>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(bought, ">6.57&times;<"));
	CU_ASSERT_PTR_NOT_NULL(strstr(bought, ">-0.224 ms ("));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "<h2>The 10 best configurations by the objective (minimize time_ms / steps)</h2>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "<th>winner</th><td>steps=8: 1.256 ms &plusmn;0.10%, objective 0.157</td>"));
	char *top = between(html, "<table id=\"top\"", "</table>");
	CU_ASSERT_PTR_NOT_NULL(strstr(top, "<th>ms_per_step</th><th>objective</th>"));
	/* the first row is the winner, eight steps */
	CU_ASSERT_PTR_NOT_NULL(strstr(top, "<tr class=\"winner\"><td>1 &#9733;</td><td>8</td>"));
	free(top);
	free(bought);
	free(html);
	free(csv);
}

/* The fake GPU draws FAKE_WATTS + 6400 / blockDim.x watts: the least energy per launch is the
 * widest block, the least time the narrowest. */
static void test_an_energy_objective_picks_another_winner_than_time(void)
{
	table t;
	CU_ASSERT_EQUAL_FATAL(run_steps("", "select: {objective: joules}\n", "100", &t), 0);
	long long w = table_winner(&t);
	CU_ASSERT_FATAL(w >= 0);
	CU_ASSERT_EQUAL(field_num(&t, (size_t)w, "steps"), 8);
	for (size_t r = 0; r < t.nrows; r++) {
		double bx = field_num(&t, r, "blockDim.x"), ms = field_num(&t, r, "time_ms_median"),
		       watts = field_num(&t, r, "watts"), joules = field_num(&t, r, "joules_per_launch");
		CU_ASSERT_DOUBLE_EQUAL(watts, 100 + 6400 / bx, 1e-3);
		CU_ASSERT_DOUBLE_EQUAL(joules, watts * ms / 1000, 1e-5 * joules);
		CU_ASSERT_DOUBLE_EQUAL(field_num(&t, r, "objective"), joules, 1e-5 * joules);
		CU_ASSERT_STRING_EQUAL(table_field(&t, r, "message"), "");
	}
	table_free(&t);
}

/* The journal keeps times, not energy: a resumed run measures again what has none, so that its
 * results still rank by energy; a run that needs no energy takes the journal's times. */
static void test_a_resumed_run_measures_energy_again(void)
{
	table t;
	CU_ASSERT_EQUAL_FATAL(run_steps("", "select: {objective: joules}\n", "100", &t), 0);
	table_free(&t);
	int first = count_in(DIR "/runs.log", "energy ");
	CU_ASSERT_EQUAL(first, 4);
	char *out = NULL;
	CU_ASSERT_EQUAL(run_autotune_on(DIR "/steps.yaml", (char *[]){"-q", NULL}, &out), 0);
	free(out);
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", "energy "), 2 * first);
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(table_load(DIR "/steps.csv", &t, &d), 0);
	for (size_t r = 0; r < t.nrows; r++)
		CU_ASSERT(field_num(&t, r, "joules_per_launch") > 0);
	long long w = table_winner(&t);
	CU_ASSERT(w >= 0 && field_num(&t, (size_t)w, "steps") == 8);
	table_free(&t);
	/* without energy the same journal's times stand: nothing is measured again (the finalists by
	 * time are re-timed, role "time") */
	int runs = count_in(DIR "/runs.log", " check ") + count_in(DIR "/runs.log", " ref ");
	char *yaml = slurp(DIR "/steps.yaml"), *at = yaml ? strstr(yaml, "select: {objective: joules}") : NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	memcpy(at, "#", 1);
	put_file(DIR "/steps.yaml", yaml);
	free(yaml);
	CU_ASSERT_EQUAL(run_autotune_on(DIR "/steps.yaml", (char *[]){"-q", NULL}, &out), 0);
	free(out);
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", " check ") + count_in(DIR "/runs.log", " ref "), runs);
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", "energy "), 2 * first);
	diags_free(&d);
}

/* No counter (NVML missing): empty energy columns and a note on each row, never a zero; the
 * winner is still chosen by time when nothing asks for energy to rank. An energy objective then
 * has nothing to rank by: no winner, exit 1, and why. */
static void test_without_a_counter_a_note_never_a_zero(void)
{
	table t;
	CU_ASSERT_EQUAL_FATAL(run_steps(", energy: always", "", NULL, &t), 0);
	CU_ASSERT(table_winner(&t) >= 0);
	for (size_t r = 0; r < t.nrows; r++) {
		CU_ASSERT_STRING_EQUAL(table_field(&t, r, "joules_per_launch"), "");
		CU_ASSERT_STRING_EQUAL(table_field(&t, r, "watts"), "");
		CU_ASSERT_PTR_NOT_NULL(strstr(table_field(&t, r, "message"), "no energy counter"));
	}
	table_free(&t);
	char *out = NULL;
	CU_ASSERT_EQUAL(run_steps("", "select: {objective: \"joules * time_s\"}\n", NULL, &t), 1);
	CU_ASSERT_EQUAL(run_autotune_on(DIR "/steps.yaml", (char *[]){"--fresh", NULL}, &out), 1);
	CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "4 configurations that passed cannot win: the objective uses joules, "
						  "which has no value here (no energy measured)"));
	free(out);
}

/* worker/energy.c's window (build/energy_window, on a GPU of its own time) against the stand-in
 * NVML, whose counter is refreshed every `period` seconds at `watts`: its output line. */
static char *window_host(const char *ms, const char *period, const char *watts, const char *fail, const char *host_s);

static char *window(const char *ms, const char *period, const char *watts, const char *fail)
{
	return window_host(ms, period, watts, fail, "0.00002");
}

/* the same with the host taking host_s between a wait and the next chunk */
static char *window_host(const char *ms, const char *period, const char *watts, const char *fail, const char *host_s)
{
	setenv("LD_LIBRARY_PATH", "build/fakenvml", 1);
	setenv("FAKE_NVML_PERIOD", period, 1);
	setenv("FAKE_NVML_WATTS", watts, 1);
	if (fail)
		setenv("FAKE_NVML_FAIL", fail, 1);
	char *out = NULL, *argv[] = {"build/energy_window", (char *)ms, "0.1", (char *)host_s, NULL};
	int st = proc_capture(argv, 60, &out);
	CU_ASSERT(st == 0);
	unsetenv("LD_LIBRARY_PATH");
	unsetenv("FAKE_NVML_PERIOD");
	unsetenv("FAKE_NVML_WATTS");
	unsetenv("FAKE_NVML_FAIL");
	return out ? out : strdup("");
}

/* A counter refreshed every 20 ms reads 300 W and 300 W x the launch's time from launches of 5 us
 * to 300 ms: the window runs from one refresh to another at least 0.1 s and 10 refreshes later,
 * the GPU never idle; a coarse counter gives a reading with a note, or none; a GPU without one,
 * a note. */
static void test_the_energy_window_reads_the_counter(void)
{
	static const struct {
		const char *ms;
		double joules, least_s;
	} k[] = {{"0.005", 300 * 0.005e-3, 0.2}, {"0.5", 300 * 0.5e-3, 0.2}, {"300", 300 * 0.3, 3.0}};
	for (size_t i = 0; i < sizeof k / sizeof *k; i++) {
		char *out = window(k[i].ms, "0.02", "300", NULL);
		double j = 0, w = 0, s = 0;
		int updates = 0;
		long long launches = 0;
		CU_ASSERT_EQUAL(sscanf(out, "ok %lf %lf %d %lld %lf", &j, &w, &updates, &launches, &s), 5);
		CU_ASSERT_DOUBLE_EQUAL(j, k[i].joules, 0.01 * k[i].joules);
		CU_ASSERT_DOUBLE_EQUAL(w, 300, 3);
		CU_ASSERT(updates >= 10 && s >= k[i].least_s - 1e-9);
		free(out);
	}
	char *out = window("0.5", "3", "300", NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "ok 0.15 300 2 ") && strstr(out, "energy from only 2 counter updates in 6.0 s"));
	free(out);
	out = window("0.5", "20", "300", NULL);
	CU_ASSERT_STRING_EQUAL(out, "none energy counter too coarse: 0 updates in 10.0 s of launches\n");
	free(out);
	out = window("0.5", "0.02", "300", "energy");
	CU_ASSERT_STRING_EQUAL(out, "none no energy counter for GPU 0000:00:00.0: Not Supported\n");
	free(out);
	out = window("0.5", "0.02", "300", "init");
	CU_ASSERT_STRING_EQUAL(out, "none no energy counter: nvmlInit: Unknown Error\n");
	free(out);
}

/* A host that takes 5 ms between a chunk's end and queuing the next leaves the GPU idle through
 * chunks of 2 ms: the window is measured again with longer chunks and reads the kernel's joules,
 * not the idle GPU's; one that takes 0.5 s leaves it idle whatever the chunk: no reading, said. */
static void test_an_idle_gpu_in_the_energy_window_is_not_read(void)
{
	char *out = window_host("0.005", "0.02", "300", NULL, "0.005");
	double j = 0, w = 0, s = 0;
	int updates = 0;
	long long launches = 0;
	CU_ASSERT_EQUAL(sscanf(out, "ok %lf %lf %d %lld %lf", &j, &w, &updates, &launches, &s), 5);
	CU_ASSERT_DOUBLE_EQUAL(j, 300 * 0.005e-3, 0.05 * 300 * 0.005e-3);
	free(out);
	out = window_host("0.005", "0.02", "300", NULL, "0.5");
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "none no energy: the GPU was idle ") && strstr(out, "chunks of 32 ms"));
	free(out);
}

int add_objective_suite(void)
{
	CU_pSuite s = CU_add_suite("objective", NULL, fake_worker_forget);
	if (!s)
		return -1;
	CU_add_test(s, "the objective scores a measurement", test_the_objective_scores_a_measurement);
	CU_add_test(s, "an objective without a value cannot win", test_an_objective_without_a_value_cannot_win);
	CU_add_test(s, "the ranking follows the objective", test_the_ranking_follows_the_objective);
	CU_add_test(s, "an idle GPU in the energy window is not read", test_an_idle_gpu_in_the_energy_window_is_not_read);
	CU_add_test(s, "time per step and per launch pick different winners",
		    test_time_per_step_and_per_launch_pick_different_winners);
	CU_add_test(s, "the report ranks by the objective", test_the_report_ranks_by_the_objective);
	CU_add_test(s, "an energy objective picks another winner than time", test_an_energy_objective_picks_another_winner_than_time);
	CU_add_test(s, "a resumed run measures energy again", test_a_resumed_run_measures_energy_again);
	CU_add_test(s, "the energy window reads the counter", test_the_energy_window_reads_the_counter);
	CU_add_test(s, "without a counter: a note, never a zero", test_without_a_counter_a_note_never_a_zero);
	return 0;
}
