/* test_search_plateau.c: how the model strategy leaves a plateau (search_plateau.c), over real
 * recordings (tests/data) replayed through replay_run as bench/anytime.sh replays them: a long
 * plateau's descent ends the waves' stops on a ridge where configurations share binaries, and in
 * a space of binaries of their own. (The deceptive recording, where the plateau's draws matter,
 * is tests/test_search_prior.c's.) VERBOSE=1 in the environment prints the counts. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "config.h"
#include "replay.h"
#include "search.h"
#include "space.h"
#include "tests.h"

/* How many of the default's runs with seeds from..to, at pct of the space of yaml (its recording
 * csv), end below bar of the optimum. */
static int runs_below(const char *yaml, const char *csv, double pct, int from, int to, double bar)
{
	config c;
	space sp;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(config_load(yaml, &c, &d) || space_enumerate(&c, &sp, &d), 0);
	size_t budget = (size_t)ceil(pct / 100 * (double)sp.count);
	int below = 0;
	for (int seed = from; seed <= to; seed++) {
		replay_result r;
		CU_ASSERT_EQUAL_FATAL(replay_run(&c, &sp, &(replay_opts){.recording = csv, .strategy = STRAT_MODEL,
					.budget = budget, .seed = (unsigned long long)seed, .jobs = 1}, &r, &d), 0);
		below += r.optimum / r.best_found < bar;
	}
	diags_free(&d);
	space_free(&sp);
	config_free(&c);
	return below;
}

/* On the histogram space at a tenth of it, the waves stopped on configurations of about the same
 * BLOCK x BLOCKS (384 x 528, 960 x 264: 0.977 of the optimum, 704 x 264) in 47 of 150 seeds: moves
 * of one parameter from the best cannot follow that ridge. With the long plateau's descent, at
 * most 2 of 30 seeds end below 0.98 of the optimum (issue 46's worst tenth at 10%), 12 of 150. */
static void test_a_long_plateau_on_a_ridge_ends(void)
{
	const char *yaml = "bench/spaces/histogram.yaml", *csv = "tests/data/histogram_h200.csv";
	int below = runs_below(yaml, csv, 10, 1, 30, 0.98), more = below + runs_below(yaml, csv, 10, 31, 150, 0.98);
	if (below > 2 || more > 12 || getenv("VERBOSE"))
		fprintf(stderr, "\n  %d of 30 seeds below 0.98 of the optimum (%d of 150)", below, more);
	CU_ASSERT(below <= 2);
	CU_ASSERT(more <= 12);
}

/* Where every configuration is a binary of its own: on the GEMM space at 5% (559 of 11164), 7 of
 * 60 seeds ended below 0.98 of the optimum, several on a configuration six parameters from it;
 * with the long plateau's descent (its steps in the waves) at most 2. */
static void test_a_long_plateau_of_compiles_ends(void)
{
	int below = runs_below("configs/gemm.yaml", "tests/data/gemm_h100.csv", 5, 1, 60, 0.98);
	if (below > 2 || getenv("VERBOSE"))
		fprintf(stderr, "\n  %d of 60 seeds below 0.98 of the optimum", below);
	CU_ASSERT(below <= 2);
}

int add_search_plateau_suite(void)
{
	CU_pSuite s = CU_add_suite("search_plateau", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "a long plateau on a ridge ends", test_a_long_plateau_on_a_ridge_ends);
	CU_add_test(s, "a long plateau of compiles ends", test_a_long_plateau_of_compiles_ends);
	return 0;
}
