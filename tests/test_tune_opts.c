/* test_tune_opts.c: a run's budget and strategy come from the command line before the config's
 * search section, and a budget gives the strategy when none is named. */
#include <CUnit/CUnit.h>
#include <string.h>

#include "config.h"
#include "tests.h"
#include "tune_opts.h"

static void test_command_line_before_config(void)
{
	options o;
	config cfg;
	diags d = {0};
	size_t budget;
	double seconds;
	memset(&o, 0, sizeof o);
	memset(&cfg, 0, sizeof cfg);
	cfg.search_budget = "25%";
	CU_ASSERT_EQUAL(tune_budget(&o, &cfg, 200, &budget, &seconds, &d), 0);
	CU_ASSERT(budget == 50 && seconds == 0);
	o.budget = "3s";
	CU_ASSERT_EQUAL(tune_budget(&o, &cfg, 200, &budget, &seconds, &d), 0);
	CU_ASSERT(budget == 0 && seconds == 3);
	o.budget = "lots";
	CU_ASSERT_EQUAL(tune_budget(&o, &cfg, 200, &budget, &seconds, &d), -1);
	CU_ASSERT(d.n == 1 && strstr(d.msgs[0], "not 'lots'"));
	diags_free(&d);
	o.seed_given = 1;
	o.seed = 7;
	cfg.search_seed = 9;
	CU_ASSERT_EQUAL(tune_seed(&o, &cfg), 7);
	o.seed_given = 0;
	CU_ASSERT_EQUAL(tune_seed(&o, &cfg), 9);
}

static void test_a_budget_means_the_model(void)
{
	options o;
	config cfg;
	diags d = {0};
	strategy s;
	memset(&o, 0, sizeof o);
	memset(&cfg, 0, sizeof cfg);
	CU_ASSERT(tune_strategy(&o, &cfg, 0, 0, &s, &d) == 0 && s == STRAT_EXHAUSTIVE);
	CU_ASSERT(tune_strategy(&o, &cfg, 10, 0, &s, &d) == 0 && s == STRAT_MODEL);
	CU_ASSERT(tune_strategy(&o, &cfg, 0, 2.5, &s, &d) == 0 && s == STRAT_MODEL);
	cfg.search_strategy = "random";
	CU_ASSERT(tune_strategy(&o, &cfg, 10, 0, &s, &d) == 0 && s == STRAT_RANDOM);
	o.strategy = "best";
	CU_ASSERT_EQUAL(tune_strategy(&o, &cfg, 10, 0, &s, &d), -1);
	CU_ASSERT(d.n == 1 && strstr(d.msgs[0], "unknown strategy 'best'"));
	diags_free(&d);
}

int add_tune_opts_suite(void)
{
	CU_pSuite s = CU_add_suite("tune_opts", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "command line before config", test_command_line_before_config);
	CU_add_test(s, "a budget means the model", test_a_budget_means_the_model);
	return 0;
}
