/* test_config_objective.c: select.objective, metrics: and measure.energy as the loader takes
 * them (config_objective.c): what each may name, said at its line and column, and energy's auto. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "output.h"
#include "tests.h"

/* config_good (14 lines) and then extra lines, from line 15 on */
static const char *with(const char *extra)
{
	static char text[2048];
	snprintf(text, sizeof text, "%s%s", config_good, extra);
	return text;
}

static void test_an_objective_and_metrics_load(void)
{
	config cfg;
	char *first = NULL;
	CU_ASSERT_EQUAL_FATAL(config_load_text(with("metrics: {per_elem: \"time_ms / n\", twice: \"2 * per_elem\"}\n"
						    "select: {objective: {maximize: \"n / time_s\"}}\n"),
					       &cfg, &first),
			      0);
	free(first);
	CU_ASSERT_EQUAL(cfg.numetrics, 2);
	CU_ASSERT_STRING_EQUAL(cfg.umetrics[1].name, "twice");
	CU_ASSERT_STRING_EQUAL(cfg.select.objective, "n / time_s");
	CU_ASSERT_EQUAL(cfg.select.maximize, 1);
	CU_ASSERT_PTR_NOT_NULL(cfg.objective.e);
	/* nothing names energy: auto measures none */
	CU_ASSERT_EQUAL(cfg.measure_energy, 0);
	config_free(&cfg);
	/* a plain expression is minimised */
	CU_ASSERT_EQUAL_FATAL(config_load_text(with("select: {objective: \"time_ms * bx\"}\n"), &cfg, &first), 0);
	free(first);
	CU_ASSERT_EQUAL(cfg.select.maximize, 0);
	CU_ASSERT_STRING_EQUAL(cfg.select.objective, "time_ms * bx");
	config_free(&cfg);
}

/* measure.energy: auto turns it on exactly when the objective or a metric names joules or watts */
static void test_energy_auto_follows_what_is_named(void)
{
	static const struct {
		const char *extra;
		int energy;
	} cases[] = {
		{"select: {objective: \"joules * time_s\"}\n", 1},
		{"metrics: {avg: \"watts\"}\n", 1},
		{"metrics: {ms: \"time_ms\"}\n", 0},
		{"measure: {energy: always}\n", 1},
		{"measure: {energy: never}\nmetrics: {ms: \"time_ms\"}\n", 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		config cfg;
		char *first = NULL;
		CU_ASSERT_EQUAL_FATAL(config_load_text(with(cases[i].extra), &cfg, &first), 0);
		free(first);
		CU_ASSERT_EQUAL(cfg.measure_energy, cases[i].energy);
		config_free(&cfg);
	}
}

static void test_bad_objectives_and_metrics_are_said_where_they_are(void)
{
	config_expect_error(with("select: {objective: \"time_ms / stepz\"}\n"), 15, 32,
			    "unknown name 'stepz' in select objective");
	config_expect_error(with("select: {objective: \"gbps\"}\n"), 15, 22, "select objective uses gbps, which needs bytes:");
	config_expect_error(with("metrics: {g: \"2 * gflops\"}\n"), 15, 19, "metric 'g' uses gflops, which needs flops:");
	config_expect_error(with("measure: {energy: never}\nselect: {objective: joules}\n"), 16, 21,
			    "select objective uses joules, but measure.energy is never");
	/* a metric sees only those before it */
	config_expect_error(with("metrics: {a: \"b * 2\", b: \"time_ms\"}\n"), 15, 15,
			    "unknown name 'b' in metric 'a': a metric may use only the metrics before it");
	/* a metric's name would repeat a column, a parameter or a measured name */
	config_expect_error(with("metrics: {gflops: \"2 * n / time_s / 1e9\"}\n"), 15, 11,
			    "metric 'gflops' is already a column of the results or a measured name");
	config_expect_error(with("metrics: {bx: \"time_ms\"}\n"), 15, 11,
			    "metric 'bx' is already a constant, a parameter or a metric");
	config_expect_error(with("select: {objective: {minimize: time_ms, maximize: time_ms}}\n"), 15, 21,
			    "select objective: give one of minimize: or maximize:");
	config_expect_error(with("select: {objective: {least: time_ms}}\n"), 15, 22, "unknown key 'least' in select objective");
	config_expect_error(with("select: {objective: \"time_ms +\"}\n"), 15, 31, "select objective: expected a number");
}

/* Every column a results CSV can have is a name no metric may take. */
static void test_every_results_column_is_reserved(void)
{
	for (const char *const *col = output_columns; *col; col++) {
		CU_ASSERT(config_reserved_name(*col));
		if (!config_reserved_name(*col))
			fprintf(stderr, "\n  not reserved: %s\n", *col);
	}
	char plan[] = OUTPUT_PLAN_COLUMNS;
	for (char *save, *c = strtok_r(plan, ",", &save); c; c = strtok_r(NULL, ",", &save))
		CU_ASSERT(config_reserved_name(c));
	static const char *const own[] = {"joules_per_launch", "watts", "objective", "time_ms", "time_s", "joules"};
	for (size_t i = 0; i < sizeof own / sizeof *own; i++)
		CU_ASSERT(config_reserved_name(own[i]));
	CU_ASSERT_FALSE(config_reserved_name("ms_per_step"));
}

int add_config_objective_suite(void)
{
	CU_pSuite s = CU_add_suite("config_objective", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "an objective and metrics load", test_an_objective_and_metrics_load);
	CU_add_test(s, "energy auto follows what is named", test_energy_auto_follows_what_is_named);
	CU_add_test(s, "bad objectives and metrics are said where they are", test_bad_objectives_and_metrics_are_said_where_they_are);
	CU_add_test(s, "every results column is reserved", test_every_results_column_is_reserved);
	return 0;
}
