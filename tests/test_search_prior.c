/* test_search_prior.c: priors that know their limits (search_prior.c), over real recordings
 * (tests/data) replayed through replay_run, the path bench/anytime.sh scores: the check's
 * arithmetic; the default with a deliberately wrong prior (the built-in model's values scrambled
 * over the space) still at or above random search at every budget; on a recording rebuilt to hold
 * a deceptive local optimum, few seeds stop there; a transfer (another GPU's recording) ranks as
 * that recording does, and one whose ranking is reversed is set aside and still beats random; a
 * live run (the fake worker) takes --prior. VERBOSE=1 in the environment prints every cell. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "anytime.h"
#include "config.h"
#include "random.h"
#include "replay.h"
#include "search.h"
#include "search_prior.h"
#include "space.h"
#include "tests.h"

enum { SEEDS = 30 };
static const double pcts[] = {1, 2, 5, 10, 20};
enum { NPCT = sizeof pcts / sizeof *pcts };

typedef struct {
	config c;
	space s;
	double *time; /* the recording's, per configuration */
} opened;

static int open_space(const char *yaml, const char *csv, opened *o)
{
	diags d = {0};
	int rc = config_load(yaml, &o->c, &d) || space_enumerate(&o->c, &o->s, &d);
	o->time = rc ? NULL : calloc(o->s.count + 1, sizeof *o->time);
	replay_result r;
	if (!rc)
		rc = replay_run(&o->c, &o->s, &(replay_opts){.recording = csv, .strategy = STRAT_RANDOM, .budget = 1, .seed = 1,
							    .times = o->time}, &r, &d);
	diags_print(&d);
	diags_free(&d);
	return rc ? -1 : 0;
}

static void close_space(opened *o)
{
	free(o->time);
	space_free(&o->s);
	config_free(&o->c);
}

static int ascending(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* What a replay runs besides the strategy and budget. */
typedef struct {
	const char *recording, *prior;
	const double *model;
} replayed;

/* The median over SEEDS seeds of optimum / best found, replayed; *aside (or NULL) counts the seeds
 * whose prior was set aside. */
static double median_ratio(opened *o, const replayed *p, strategy s, size_t budget, int *aside)
{
	double ratio[SEEDS];
	for (int seed = 1; seed <= SEEDS; seed++) {
		replay_result r;
		diags d = {0};
		int rc = replay_run(&o->c, &o->s, &(replay_opts){.recording = p->recording, .strategy = s, .budget = budget,
				     .seed = (unsigned long long)seed, .jobs = 1, .prior = p->prior, .model = p->model}, &r, &d);
		diags_print(&d);
		diags_free(&d);
		CU_ASSERT_EQUAL_FATAL(rc, 0);
		ratio[seed - 1] = isinf(r.best_found) ? 0 : r.optimum / r.best_found;
		if (aside)
			*aside += r.prior_set_aside > 0;
	}
	qsort(ratio, SEEDS, sizeof *ratio, ascending);
	return (ratio[SEEDS / 2 - 1] + ratio[SEEDS / 2]) / 2;
}

/* The budget of pct% of the space, as bench/anytime.sh takes it. */
static size_t budget_of(const opened *o, double pct) { return (size_t)ceil(pct / 100 * (double)o->s.count); }

/* At every budget of pcts, the default's median over the seeds (with p's prior) at least random
 * search's, as the methodology and bench/anytime.sh take it (its expected best, anytime_random:
 * the 30 seeds' median of random's own replays moves by 0.05 from one set of seeds to another on
 * the convolution space at 5%); returns how many budgets fell short, each printed. A budget where
 * the default falls short with its own model too is printed and not counted: that is the
 * strategy's, not the prior's (issue 46's first acceptance item, tested in test_anytime.c). */
static int short_of_random(opened *o, const replayed *p, const char *what, size_t least)
{
	anytime_space a;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(anytime_open(&o->c, &o->s, p->recording, &a, &d), 0);
	int shortfalls = 0;
	for (size_t k = 0; k < NPCT; k++) {
		size_t budget = budget_of(o, pcts[k]);
		int aside = 0;
		double model = median_ratio(o, p, STRAT_MODEL, budget, &aside);
		double random = a.asc[0] / anytime_random(&a, budget);
		if (getenv("VERBOSE"))
			fprintf(stderr, "\n  %s %g%%: %.3f random %.3f aside %d", p->recording, pcts[k], model, random, aside);
		if (model >= random)
			continue;
		if (budget < least) {
			fprintf(stderr, "\n  %s, %s at %g%%: the default's median %.3f, random's %.3f (%zu evaluations: not counted)",
				p->recording, what, pcts[k], model, random, budget);
			continue;
		}
		double own = median_ratio(o, &(replayed){.recording = p->recording}, STRAT_MODEL, budget, NULL);
		fprintf(stderr, "\n  %s, %s at %g%%: the default's median %.3f, random's %.3f%s", p->recording, what, pcts[k],
			model, random, own < random ? " (with its own prior too: not counted)" : "");
		shortfalls += own >= random;
	}
	anytime_close(&a);
	diags_free(&d);
	return shortfalls;
}

/* The check's arithmetic: a prior in the times' order agrees fully, reversed fully disagrees, a
 * tie of either side counts no pair; a prior is set aside when none of its picks beat any of the
 * others, and only then. */
static void test_the_check_counts_agreeing_pairs(void)
{
	double time[] = {1, 2, 3, 4, 5, 6, INFINITY}, same[] = {0, 1, 2, 3, 4, 5, 6}, rev[] = {6, 5, 4, 3, 2, 1, 0};
	double flat[] = {1, 1, 1, 1, 1, 1, 1};
	size_t order[] = {3, 0, 6, 5, 1, 2, 4}, pairs;
	CU_ASSERT_DOUBLE_EQUAL(search_prior_agreement(same, time, order, 7, INFINITY, &pairs), 1, 1e-12);
	CU_ASSERT_EQUAL(pairs, 21);
	CU_ASSERT_DOUBLE_EQUAL(search_prior_agreement(rev, time, order, 7, INFINITY, &pairs), -1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(search_prior_agreement(flat, time, order, 7, INFINITY, &pairs), 0, 1e-12);
	CU_ASSERT_EQUAL(pairs, 0);
	CU_ASSERT_DOUBLE_EQUAL(search_prior_agreement(rev, time, order, 4, INFINITY, &pairs), -1, 1e-12);
	CU_ASSERT_EQUAL(pairs, 6);
	/* picks: the prior's best two; others: the rest */
	CU_ASSERT(search_prior_misleads(rev, time, order, 7, 1));
	CU_ASSERT(!search_prior_misleads(same, time, order, 7, 1));
	double one_right[] = {0, 5, 4, 3, 2, 1, 1}; /* its picks: the fastest, and the failure */
	CU_ASSERT(!search_prior_misleads(one_right, time, order, 7, 1));
	double mid[] = {6, 5, 4, 3, 0, 2, 1}; /* its picks: the failure and the 5th of 7: beats one */
	CU_ASSERT(!search_prior_misleads(mid, time, order, 7, 1));
	CU_ASSERT(!search_prior_misleads(rev, time, order, 4, 1)); /* 2 others: too few to tell */
	CU_ASSERT(!search_prior_misleads(flat, time, order, 7, 0)); /* no picks */
}

/* A transfer ranks the configurations the other recording timed by its times, then those it
 * lacks, then those that failed there, each group by the model. */
static void test_a_transfer_ranks_as_the_other_recording(void)
{
	double other[] = {3, NAN, INFINITY, 1, 2, NAN, INFINITY}, model[] = {0, 5, 1, 9, 9, 4, 0};
	double *prior = search_prior_transfer(other, model, 7);
	size_t *order = search_order(prior, 7), want[] = {3, 4, 0, 5, 1, 6, 2};
	for (size_t i = 0; i < 7; i++)
		CU_ASSERT_EQUAL(order[i], want[i]);
	free(order);
	free(prior);
}

/* The recordings the wrong-prior tests replay: small enough that 30 seeds at five budgets take
 * seconds, with one binary a configuration (FIR, convolution) and shared binaries (summatrix). */
static const char *const wrong[][2] = {
	{"configs/summatrix.yaml", "tests/data/summatrix_h100.csv"},
	{"configs/reduce.yaml", "tests/data/reduce_h100.csv"},
	{"bench/spaces/transpose_big.yaml", "tests/data/transpose_big_h100.csv"},
	{"configs/fir.yaml", "tests/data/fir_h100.csv"},
	{"configs/convolution.yaml", "tests/data/convolution_h100.csv"},
};
enum { NWRONG = sizeof wrong / sizeof *wrong };

/* A prior that is wrong on purpose: the built-in model's values for each recording's space, dealt
 * out to its configurations in a fixed shuffled order (its columns scrambled). The default's
 * median over 30 seeds is still at or above random search's at 1, 2, 5, 10 and 20% of every one. */
static void test_a_scrambled_model_still_beats_random(void)
{
	int shortfalls = 0;
	for (size_t i = 0; i < NWRONG; i++) {
		opened o;
		CU_ASSERT_EQUAL_FATAL(open_space(wrong[i][0], wrong[i][1], &o), 0);
		result *geometry = calloc(o.s.count + 1, sizeof *geometry);
		diags d = {0};
		CU_ASSERT_EQUAL_FATAL(space_eval_geometry(&o.c, &o.s, geometry, &d), 0);
		double *model = search_model_prior(&o.c, &o.s, geometry, 90);
		unsigned long long rng = 12345;
		for (size_t k = o.s.count; k > 1; k--) {
			size_t j = (size_t)random_below(&rng, k);
			double t = model[k - 1];
			model[k - 1] = model[j];
			model[j] = t;
		}
		shortfalls += short_of_random(&o, &(replayed){.recording = wrong[i][1], .model = model}, "scrambled model", 0);
		free(model);
		free(geometry);
		diags_free(&d);
		close_space(&o);
	}
	CU_ASSERT_EQUAL(shortfalls, 0);
}

/* A short run over a sliver of the space (1% and 2% of it, more than three evaluations): the
 * default's median over the seeds is at least random search's expected best on every recording
 * (GEMM's left to bench/anytime.sh: the same at twenty times the cost). Where the model's order
 * within its best score misses, a run that short cannot make up for its fixed picks: taken in the
 * order, convolution's at 1% are 0.728 and 0.61 of the optimum, and the median 0.730 against
 * random's 0.754. */
static void test_a_sliver_of_the_space_does_as_well_as_random(void)
{
	static const double sliver[] = {1, 2};
	int shortfalls = 0;
	for (size_t i = 0; i < TEST_RECORDINGS; i++) {
		if (strstr(test_recordings[i][1], "gemm"))
			continue;
		opened o;
		CU_ASSERT_EQUAL_FATAL(open_space(test_recordings[i][0], test_recordings[i][1], &o), 0);
		anytime_space a;
		diags d = {0};
		CU_ASSERT_EQUAL_FATAL(anytime_open(&o.c, &o.s, test_recordings[i][1], &a, &d), 0);
		for (size_t k = 0; k < sizeof sliver / sizeof *sliver; k++) {
			size_t budget = budget_of(&o, sliver[k]);
			if (budget <= 3)
				continue; /* the model's first pick: test_search_model.c */
			double model = median_ratio(&o, &(replayed){.recording = test_recordings[i][1]}, STRAT_MODEL, budget, NULL);
			double random = a.asc[0] / anytime_random(&a, budget);
			if (model < random || getenv("VERBOSE"))
				fprintf(stderr, "\n  %s at %g%% (%zu): the default's median %.3f, random's %.3f", test_recordings[i][1],
					sliver[k], budget, model, random);
			shortfalls += model < random;
		}
		anytime_close(&a);
		diags_free(&d);
		close_space(&o);
	}
	CU_ASSERT_EQUAL(shortfalls, 0);
}

/* The deceptive recording: the H100's transpose_big space rebuilt so that its optimum (TILE 32,
 * ROWS 2, one of a broad basin that every descent and the built-in model lead to) is a local
 * optimum only: in a narrow region apart from it (TILE 16, ROWS 8 or more, 73728 bytes or more of
 * extra shared memory: 56 of 1500 configurations, 3.7%; slow in the real recording and ranked
 * low by the model, as occupancy falls), every configuration is faster than it, from 0.95 of its
 * time down to 0.80, in the order of their real times. Written under test_dir; the time of the
 * deceptive optimum into *trap. */
static const char *deceptive_recording(double *trap)
{
	static char path[256];
	snprintf(path, sizeof path, "%s/transpose_deceptive.csv", test_dir);
	FILE *in = fopen("tests/data/transpose_big_h100.csv", "r"), *out = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(in);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	enum { MED = 21, FIN = 28, COLS = 64 }; /* time_ms_median and final_ms_median, from 0 */
	char line[4096];
	double best = INFINITY, lo = INFINITY, hi = 0;
	/* first pass: the optimum, and the region's range */
	CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(line, sizeof line, in));
	CU_ASSERT(strstr(line, "time_ms_median") && strncmp(line, "TILE,ROWS,PAD,extra_smem,", 25) == 0);
	while (fgets(line, sizeof line, in)) {
		long tile, rows, pad, smem;
		char *f[COLS] = {0}, *save, copy[4096];
		snprintf(copy, sizeof copy, "%s", line);
		sscanf(line, "%ld,%ld,%ld,%ld", &tile, &rows, &pad, &smem);
		size_t k = 0;
		for (char *p = copy; k < COLS && p; k++) {
			f[k] = p;
			if ((save = strchr(p, ',')))
				*save++ = 0;
			p = save;
		}
		double t = *f[FIN] ? strtod(f[FIN], NULL) : strtod(f[MED], NULL);
		if (tile == 16 && rows >= 8 && smem >= 73728) {
			lo = fmin(lo, t);
			hi = fmax(hi, t);
		} else
			best = fmin(best, t);
	}
	rewind(in);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(line, sizeof line, in));
	fputs(line, out);
	while (fgets(line, sizeof line, in)) {
		long tile, rows, pad, smem;
		sscanf(line, "%ld,%ld,%ld,%ld", &tile, &rows, &pad, &smem);
		if (!(tile == 16 && rows >= 8 && smem >= 73728)) {
			fputs(line, out);
			continue;
		}
		/* the row with its two times replaced */
		char *f[COLS] = {0}, *save, copy[4096];
		snprintf(copy, sizeof copy, "%s", line);
		copy[strcspn(copy, "\r\n")] = 0;
		size_t n = 0;
		for (char *p = copy; n < COLS && p; n++) {
			f[n] = p;
			if ((save = strchr(p, ',')))
				*save++ = 0;
			p = save;
		}
		double t = *f[FIN] ? strtod(f[FIN], NULL) : strtod(f[MED], NULL);
		char now[32];
		snprintf(now, sizeof now, "%.6g", best * (0.80 + 0.15 * (t - lo) / (hi - lo)));
		for (size_t k = 0; k < n; k++)
			fprintf(out, "%s%s", k ? "," : "", k == MED || (k == FIN && *f[FIN]) ? now : f[k]);
		fputs("\r\n", out);
	}
	fclose(in);
	fclose(out);
	*trap = best;
	return path;
}

/* No plateau: on the deceptive recording, at a tenth of the space, at most 3 of 30 seeds of the
 * default stop in the broad basin (nothing found faster than its optimum); random search's
 * replays find the region in nearly every seed (it is 3.7% of the space: a tenth of it drawn
 * misses it with probability 0.4%). */
static void test_few_seeds_stop_on_a_deceptive_optimum(void)
{
	double trap;
	const char *csv = deceptive_recording(&trap);
	opened o;
	CU_ASSERT_EQUAL_FATAL(open_space("bench/spaces/transpose_big.yaml", csv, &o), 0);
	size_t budget = budget_of(&o, 10);
	int stuck[2] = {0, 0};
	double optimum = INFINITY;
	for (size_t c = 0; c < o.s.count; c++)
		optimum = fmin(optimum, o.time[c]);
	CU_ASSERT(optimum < 0.81 * trap);
	for (int s = 0; s < 2; s++)
		for (int seed = 1; seed <= SEEDS; seed++) {
			replay_result r;
			diags d = {0};
			CU_ASSERT_EQUAL_FATAL(replay_run(&o.c, &o.s, &(replay_opts){.recording = csv, .strategy = s ? STRAT_RANDOM : STRAT_MODEL,
						.budget = budget, .seed = (unsigned long long)seed, .jobs = 1}, &r, &d), 0);
			diags_free(&d);
			stuck[s] += r.best_found >= trap;
		}
	/* and over seeds 31-150, so that the rate holds, not the luck of thirty seeds (without the
	 * plateau's draws: 20 of 150) */
	int more = stuck[0];
	for (int seed = SEEDS + 1; seed <= 5 * SEEDS; seed++) {
		replay_result r;
		diags d = {0};
		CU_ASSERT_EQUAL_FATAL(replay_run(&o.c, &o.s, &(replay_opts){.recording = csv, .strategy = STRAT_MODEL, .budget = budget,
					.seed = (unsigned long long)seed, .jobs = 1}, &r, &d), 0);
		diags_free(&d);
		more += r.best_found >= trap;
	}
	if (stuck[0] > 3 || stuck[1] > 1 || more > 15 || getenv("VERBOSE"))
		fprintf(stderr, "\n  %d of 30 seeds of the default stop on the deceptive optimum (%d of 150), %d of random's",
			stuck[0], more, stuck[1]);
	CU_ASSERT(stuck[0] <= 3);
	CU_ASSERT(more <= 15);
	CU_ASSERT(stuck[1] <= 1);
	close_space(&o);
	unlink(csv);
}

/* The recording at from with its ranking reversed (each passed time t as fastest + slowest - t),
 * under test_dir as name. */
static const char *reversed_recording(const char *from, const char *name)
{
	static char path[256];
	snprintf(path, sizeof path, "%s/%s", test_dir, name);
	enum { COLS = 96 };
	char line[4096];
	int med = -1, fin = -1, st = -1;
	double lo = INFINITY, hi = 0;
	for (int pass = 0; pass < 2; pass++) {
		FILE *in = fopen(from, "r"), *out = pass ? fopen(path, "w") : NULL;
		CU_ASSERT_PTR_NOT_NULL_FATAL(in);
		for (int row = 0; fgets(line, sizeof line, in); row++) {
			char *f[COLS] = {0}, *save, copy[4096];
			snprintf(copy, sizeof copy, "%s", line);
			copy[strcspn(copy, "\r\n")] = 0;
			int n = 0;
			for (char *p = copy; n < COLS && p; n++) {
				f[n] = p;
				if ((save = strchr(p, ',')))
					*save++ = 0;
				p = save;
			}
			if (row == 0) {
				for (int k = 0; k < n; k++) {
					med = strcmp(f[k], "time_ms_median") ? med : k;
					fin = strcmp(f[k], "final_ms_median") ? fin : k;
					st = strcmp(f[k], "status") ? st : k;
				}
				CU_ASSERT_FATAL(med >= 0 && fin >= 0 && st >= 0);
				if (out)
					fputs(line, out);
				continue;
			}
			CU_ASSERT_FATAL(n > st);
			int ok = !strcmp(f[st], "ok");
			double t = *f[fin] ? strtod(f[fin], NULL) : strtod(f[med], NULL);
			if (!out) {
				lo = ok ? fmin(lo, t) : lo;
				hi = ok ? fmax(hi, t) : hi;
				continue;
			}
			char now[32];
			snprintf(now, sizeof now, "%.6g", lo + hi - t);
			for (int k = 0; k < n; k++)
				fprintf(out, "%s%s", k ? "," : "", ok && (k == med || (k == fin && *f[fin])) ? now : f[k]);
			fputs("\r\n", out);
		}
		fclose(in);
		if (out)
			fclose(out);
	}
	return path;
}

/* A transfer that misleads: each H200 recording with its ranking reversed, as the prior of a
 * replay of the H100's: at a fifth of the space it is set aside in at least 27 of 30 seeds, and
 * the default's median is still at or above random search's at every budget of 8 evaluations or
 * more (as for the scrambled model). Below, the check cannot judge it (it needs two picks and
 * three others, and the first list alternates draws and picks): at 4 evaluations of the reduce
 * space the reversed transfer's one pick is its worst configuration, and the default falls below
 * random (printed, not counted). The honest transfer, the H200's as it is, is kept in most seeds. */
static void test_a_misleading_transfer_is_set_aside(void)
{
	int shortfalls = 0;
	for (size_t i = 0; i < TEST_TRANSFERS; i++) {
		opened o;
		CU_ASSERT_EQUAL_FATAL(open_space(test_transfers[i][0], test_transfers[i][2], &o), 0);
		const char *rev = reversed_recording(test_transfers[i][1], "reversed.csv");
		int aside = 0, kept_aside = 0;
		size_t budget = budget_of(&o, 20);
		median_ratio(&o, &(replayed){.recording = test_transfers[i][2], .prior = rev}, STRAT_MODEL, budget, &aside);
		median_ratio(&o, &(replayed){.recording = test_transfers[i][2], .prior = test_transfers[i][1]}, STRAT_MODEL, budget,
			     &kept_aside);
		if (aside < 27 || kept_aside > 15 || getenv("VERBOSE"))
			fprintf(stderr, "\n  %s: the reversed transfer set aside in %d of 30 seeds, the honest one in %d",
				test_transfers[i][2], aside, kept_aside);
		CU_ASSERT(aside >= 27);
		CU_ASSERT(kept_aside <= 15);
		shortfalls += short_of_random(&o, &(replayed){.recording = test_transfers[i][2], .prior = rev}, "reversed transfer", 8);
		unlink(rev);
		close_space(&o);
	}
	CU_ASSERT_EQUAL(shortfalls, 0);
}

/* Whether the results CSV at path measured bx (a row "bx,...,ok,"). */
static int measured_bx(const char *path, int bx)
{
	char *csv = slurp(path), row[32];
	int found = 0;
	snprintf(row, sizeof row, "\n%d,", bx);
	for (const char *at = csv; at && (at = strstr(at, row)); at++) {
		const char *end = strchr(at + 1, '\n');
		const char *ok = strstr(at, ",ok,");
		found |= ok && (!end || ok < end);
	}
	free(csv);
	return found;
}

/* --prior on a live run (the fake worker): another recording's fastest, a configuration that
 * neither the built-in model nor the seed's draws measure within 6 evaluations, is measured with
 * it; a prior that cannot be read is exit 2, named, before anything is measured. */
static void test_a_live_run_takes_the_prior(void)
{
	char dir[128], rec[192], results[192];
	snprintf(dir, sizeof dir, "%s/prior", test_dir);
	char *config = write_space_config(dir, "prior", NULL);
	fake_worker_reset(dir, "prior");
	snprintf(rec, sizeof rec, "%s/other.csv", dir);
	snprintf(results, sizeof results, "%s/prior.csv", dir);
	char *out;
	CU_ASSERT_EQUAL(run_autotune_on(config, (char *[]){"--budget", "6", "--seed", "1", NULL}, &out), 0);
	free(out);
	/* the other GPU's: fastest, a configuration that run did not measure; the rest by size */
	int target = 0;
	for (int bx = 32; bx <= 640 && !target; bx += 32)
		target = measured_bx(results, bx) ? 0 : bx;
	CU_ASSERT_FATAL(target > 0);
	fake_worker_reset(dir, "prior");
	FILE *f = fopen(rec, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("bx,time_ms_median,status\r\n", f);
	for (int bx = 32; bx <= 640; bx += 32)
		fprintf(f, "%d,%g,ok\r\n", bx, bx == target ? 0.5 : 1.0 + bx / 1000.0);
	fclose(f);
	CU_ASSERT_EQUAL(run_autotune_on(config, (char *[]){"--budget", "6", "--seed", "1", "--prior", rec, NULL}, &out), 0);
	free(out);
	CU_ASSERT(measured_bx(results, target));
	fake_worker_reset(dir, "prior");
	CU_ASSERT_EQUAL(run_autotune_on(config, (char *[]){"--budget", "6", "--prior", "/nonexistent/other.csv", NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "cannot read the recorded run '/nonexistent/other.csv'"));
	CU_ASSERT_EQUAL(access(results, F_OK), -1);
	free(out);
	/* a recording of another config: refused, naming the parameter it lacks */
	CU_ASSERT_EQUAL(run_autotune_on(config, (char *[]){"--budget", "6", "--prior", "tests/data/reduce_h100.csv", NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "no column for parameter 'bx'"));
	free(out);
	remove_dir(dir);
}

int add_search_prior_suite(void)
{
	CU_pSuite s = CU_add_suite("search_prior", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "the check counts agreeing pairs", test_the_check_counts_agreeing_pairs);
	CU_add_test(s, "a transfer ranks as the other recording", test_a_transfer_ranks_as_the_other_recording);
	CU_add_test(s, "a scrambled model still beats random", test_a_scrambled_model_still_beats_random);
	CU_add_test(s, "a sliver of the space does as well as random", test_a_sliver_of_the_space_does_as_well_as_random);
	CU_add_test(s, "few seeds stop on a deceptive optimum", test_few_seeds_stop_on_a_deceptive_optimum);
	CU_add_test(s, "a misleading transfer is set aside", test_a_misleading_transfer_is_set_aside);
	CU_add_test(s, "a live run takes the prior", test_a_live_run_takes_the_prior);
	return 0;
}
