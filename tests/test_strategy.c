/* test_strategy.c: the search's words (strategy.c): every strategy's name read back, others
 * refused, budgets in their three spellings, and what a search is. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "strategy.h"
#include "tests.h"

/* Each strategy reads back from its name, and strategy_list names them all in order. */
static void test_names_read_back(void)
{
	char list[256] = "";
	for (int i = 0; i < STRAT_COUNT_; i++) {
		strategy s = STRAT_COUNT_;
		CU_ASSERT_EQUAL(strategy_parse(strategy_name((strategy)i), &s), 0);
		CU_ASSERT_EQUAL(s, (strategy)i);
		size_t used = strlen(list);
		snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", strategy_name((strategy)i));
	}
	CU_ASSERT_STRING_EQUAL(list, strategy_list);
	strategy s = STRAT_ANNEAL;
	CU_ASSERT_EQUAL(strategy_parse("Random", &s), -1);
	CU_ASSERT_EQUAL(strategy_parse("", &s), -1);
	CU_ASSERT_EQUAL(s, STRAT_ANNEAL);
}

/* A budget: N evaluations, N% of the space rounded up, or a time in seconds, minutes or hours
 * (Ns, Nm, Nh); never more than the space; anything else refused. */
static void test_budgets(void)
{
	size_t n;
	double s;
	CU_ASSERT_EQUAL(budget_parse("10", 153, &n, &s), 0);
	CU_ASSERT(n == 10 && s == 0);
	CU_ASSERT_EQUAL(budget_parse("10%", 153, &n, &s), 0);
	CU_ASSERT_EQUAL(n, (size_t)ceil(0.10 * 153));
	CU_ASSERT_EQUAL(budget_parse("200", 153, &n, &s), 0);
	CU_ASSERT_EQUAL(n, 153);
	CU_ASSERT_EQUAL(budget_parse("100%", 153, &n, &s), 0);
	CU_ASSERT_EQUAL(n, 153);
	CU_ASSERT_EQUAL(budget_parse("0.5%", 153, &n, &s), 0);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(budget_parse("2.5s", 153, &n, &s), 0);
	CU_ASSERT(n == 0 && s == 2.5);
	CU_ASSERT_EQUAL(budget_parse("10m", 153, &n, &s), 0);
	CU_ASSERT(n == 0 && s == 600);
	CU_ASSERT_EQUAL(budget_parse("1.5h", 153, &n, &s), 0);
	CU_ASSERT(n == 0 && s == 5400);
	static const char *const bad[] = {"0", "-1", "1.5", "10%x", "s", "", "5 s", "nan", "inf", "1e400", "0%", "%",
					  "m", "h", "0m", "-2h", "5 m", "10ms", "1h30m", "10M", "2d", "1e306h"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		if (budget_parse(bad[i], 153, &n, &s) != -1)
			fprintf(stderr, "\n  budget '%s' was taken\n", bad[i]);
		CU_ASSERT_EQUAL(budget_parse(bad[i], 153, &n, &s), -1);
	}
}


/* Exhaustive within no budget, or a budget of the whole space, measures everything; any other
 * strategy, fewer evaluations than the space or a time budget is a search. */
static void test_what_searches(void)
{
	CU_ASSERT_FALSE(strategy_searches(STRAT_EXHAUSTIVE, 0, 0, 153));
	CU_ASSERT_FALSE(strategy_searches(STRAT_EXHAUSTIVE, 153, 0, 153));
	CU_ASSERT_TRUE(strategy_searches(STRAT_EXHAUSTIVE, 152, 0, 153));
	CU_ASSERT_TRUE(strategy_searches(STRAT_EXHAUSTIVE, 0, 2.5, 153));
	for (int i = 0; i < STRAT_COUNT_; i++)
		if (i != STRAT_EXHAUSTIVE)
			CU_ASSERT_TRUE(strategy_searches((strategy)i, 0, 0, 153));
}

int add_strategy_suite(void)
{
	CU_pSuite s = CU_add_suite("strategy", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "names read back", test_names_read_back);
	CU_add_test(s, "budgets", test_budgets);
	CU_add_test(s, "what searches", test_what_searches);
	return 0;
}
