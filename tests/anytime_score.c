/* anytime_score.c: the published methodology's score (tuner/results/anytime.h) of autotune's strategies
 * over recordings, next to the fixed-budget ratios, for bench/anytime.sh. No GPU.
 *   anytime_score SEEDS CONFIG.yaml:RECORDING.csv[:PRIOR.csv] [...]
 * (PRIOR: a recording of the same kernel on another GPU, the model strategy's prior: transfer)
 * STRATEGIES in the environment: which (default: random local anneal genetic model); SEED_FROM:
 * the first seed (default 1), so that seeds a change was not tuned to can be scored. Per
 * recording and strategy, one line: the time-axis and evaluation-axis scores, then at 1, 2, 5, 10
 * and 20% of the space the median over seeds of optimum / best found and its worst tenth (the
 * 10th percentile), and random search's expected ratio. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anytime.h"
#include "config.h"
#include "replay.h"
#include "space.h"
#include "strategy.h"

static const double pcts[] = {1, 2, 5, 10, 20};
enum { NPCT = sizeof pcts / sizeof *pcts };

static int ascending(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* At each budget: the median and the worst tenth over seeds of optimum / found. */
static int fixed(const anytime_space *a, strategy s, int seeds, double *median, double *tenth, diags *d)
{
	double *ratio = calloc((size_t)seeds + 1, sizeof *ratio);
	for (int p = 0; p < NPCT; p++) {
		size_t budget = (size_t)ceil(pcts[p] / 100 * (double)a->sp->count);
		for (int seed = 1; seed <= seeds; seed++) {
			replay_result r;
			replay_opts o = {.recording = a->csv, .prior = a->prior, .strategy = s, .budget = budget, .seed = a->seed_from + (unsigned long long)seed - 1,
					 .jobs = 1};
			if (replay_run(a->cfg, a->sp, &o, &r, d)) {
				free(ratio);
				return -1;
			}
			ratio[seed - 1] = isinf(r.best_found) ? 0 : r.optimum / r.best_found;
		}
		qsort(ratio, (size_t)seeds, sizeof *ratio, ascending);
		median[p] = seeds % 2 ? ratio[seeds / 2] : (ratio[seeds / 2 - 1] + ratio[seeds / 2]) / 2;
		tenth[p] = ratio[(seeds - 1) / 10];
	}
	free(ratio);
	return 0;
}

static int score_pair(const char *pair, int seeds, const char *strategies, unsigned long long seed_from)
{
	char cfg_path[1024];
	const char *colon = strchr(pair, ':');
	if (!colon || (size_t)(colon - pair) >= sizeof cfg_path) {
		fprintf(stderr, "anytime_score: '%s' is not CONFIG.yaml:RECORDING\n", pair);
		return -1;
	}
	memcpy(cfg_path, pair, (size_t)(colon - pair));
	cfg_path[colon - pair] = 0;
	config c;
	space sp;
	diags d = {0};
	anytime_space a;
	int rc = -1;
	if (config_load(cfg_path, &c, &d) == 0 && space_enumerate(&c, &sp, &d) == 0) {
		/* CONFIG.yaml:RECORDING.csv[:PRIOR.csv], the last a transfer's recording */
		char rec[1024];
		snprintf(rec, sizeof rec, "%s", colon + 1);
		char *prior = strchr(rec, ':');
		if (prior)
			*prior++ = 0;
		if (anytime_open(&c, &sp, rec, &a, &d) == 0) {
			a.prior = prior;
			a.seed_from = seed_from;
			rc = 0;
			char list[512];
			snprintf(list, sizeof list, "%s", strategies);
			for (char *save, *name = strtok_r(list, " ", &save); name && rc == 0; name = strtok_r(NULL, " ", &save)) {
				strategy s;
				anytime_score sc;
				double median[NPCT], tenth[NPCT];
				if (strategy_parse(name, &s)) {
					fprintf(stderr, "anytime_score: no strategy '%s'\n", name);
					rc = -1;
					break;
				}
				if ((rc = anytime_score_strategy(&a, s, seeds, &sc, &d)) || (rc = fixed(&a, s, seeds, median, tenth, &d)))
					break;
				printf("%-16s %-8s %6zu %6zu %7.3f %7.3f", cfg_path, name, sp.count, sc.cutoff_evals, sc.time_score,
				       sc.eval_score);
				for (int p = 0; p < NPCT; p++)
					printf(" %5.3f/%5.3f/%5.3f", median[p], tenth[p],
					       a.asc[0] / anytime_random(&a, (size_t)ceil(pcts[p] / 100 * (double)sp.count)));
				printf("\n");
				fflush(stdout);
			}
			anytime_close(&a);
		}
		space_free(&sp);
	}
	for (size_t i = 0; i < d.n; i++)
		fprintf(stderr, "%s\n", d.msgs[i]);
	diags_free(&d);
	config_free(&c);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: anytime_score SEEDS CONFIG.yaml:RECORDING.csv [...]\n");
		return 2;
	}
	int seeds = atoi(argv[1]), status = 0;
	const char *strategies = getenv("STRATEGIES") ? getenv("STRATEGIES") : "random local anneal genetic model";
	unsigned long long seed_from = getenv("SEED_FROM") ? strtoull(getenv("SEED_FROM"), NULL, 10) : 1;
	if (seeds < 1 || seed_from < 1)
		return 2;
	printf("%-16s %-8s %6s %6s %7s %7s  optimum/found at 1 2 5 10 20%%: median/worst tenth/random\n", "config",
	       "strategy", "space", "cutoff", "time", "evals");
	for (int i = 2; i < argc; i++)
		status |= score_pair(argv[i], seeds, strategies, seed_from) != 0;
	return status ? 1 : 0;
}
