/* test_config_keys.c: the settings' sections (config_keys.c): measure, select, search, output and
 * build's plain keys (build.rdc).
 * The plain keys are rows of a table each (enumerated ones too: cache, policy; and select.weights,
 * a section of a section), so the tests walk the tables: every row's bound or words are enforced
 * and every row's value lands in its field; then the keys each section reads itself (metrics,
 * strategy, budget, the output paths) and the policy with its weights. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "tests.h"

static void test_search_keys(void)
{
	char text[4096];
	config cfg;
	char *first;
	snprintf(text, sizeof text, "%ssearch: {strategy: anneal, budget: \"15%%\", seed: 4}\n", config_good);
	CU_ASSERT_EQUAL_FATAL(config_load_text(text, &cfg, &first), 0);
	free(first);
	CU_ASSERT_STRING_EQUAL(cfg.search_strategy, "anneal");
	CU_ASSERT_STRING_EQUAL(cfg.search_budget, "15%");
	CU_ASSERT_EQUAL(cfg.search_seed, 4);
	config_free(&cfg);
	snprintf(text, sizeof text, "%ssearch: {strategy: magic}\n", config_good);
	config_expect_error(text, 15, 20, "unknown search strategy 'magic'");
	snprintf(text, sizeof text, "%ssearch: {budget: 10x}\n", config_good);
	config_expect_error(text, 15, 18, "search budget is evaluations (N), a fraction of the space (N%, at most 100%) or a time (Ns, Nm or Nh), not '10x'");
}

/* config_good with `extra` appended (its line 15 on). */
static const char *plus(const char *extra)
{
	static char text[4096];
	snprintf(text, sizeof text, "%s%s", config_good, extra);
	return text;
}

/* A table's section opened as YAML flow mappings ("select.weights" -> "select: {weights: {"): its
 * length; *close gets the braces that end it. */
static int open_section(char *buf, size_t len, const char *section, char close[8])
{
	int used = 0, depth = 0;
	for (const char *s = section; *s; depth++) {
		size_t n = strcspn(s, ".");
		used += snprintf(buf + used, len - (size_t)used, "%.*s: {", (int)n, s);
		s += n + (s[n] == '.');
	}
	memset(close, '}', (size_t)depth);
	close[depth] = 0;
	return used;
}

/* An enumerated row's words as its message names them: "a, b or c". */
static void words_said(const plain_key *k, char *buf, size_t len)
{
	size_t used = 0;
	for (size_t i = 0; k->words[i]; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", !i ? "" : k->words[i + 1] ? ", " : " or ", k->words[i]);
}

/* The index of a row's default among its words (KEY_ENUM), as the field holds it. */
static int default_word(const plain_key *k)
{
	int i = 0;
	while (k->words[i] && strcmp(k->words[i], k->dflt))
		i++;
	return i;
}

/* For every row of every table, a value just outside what its kind allows is refused at the
 * value's column, in the words of its kind. */
static void test_every_rows_bound_is_enforced(void)
{
	int rows = 0;
	for (const key_table *t = config_key_tables; t->section; t++)
		for (size_t i = 0; i < t->n; i++) {
			const plain_key *k = &t->rows[i];
			char value[32], want[200], line[128], close[8], words[128];
			switch (k->kind) {
			case KEY_INT:
				snprintf(value, sizeof value, "%lld", k->hi + 1);
				snprintf(want, sizeof want, "%s must be between %lld and %lld, not %lld", k->name, k->lo, k->hi, k->hi + 1);
				break;
			case KEY_FRACTION:
				snprintf(value, sizeof value, "1");
				snprintf(want, sizeof want, "%s is a fraction between 0 and 1 (0.01 = 1%%)", k->name);
				break;
			case KEY_SECONDS:
				snprintf(value, sizeof value, "0");
				snprintf(want, sizeof want, "%s must be positive (seconds)", k->name);
				break;
			case KEY_BOOL:
				snprintf(value, sizeof value, "maybe");
				snprintf(want, sizeof want, "%s must be true or false, not 'maybe'", k->name);
				break;
			case KEY_NONNEGATIVE:
				snprintf(value, sizeof value, "-1");
				snprintf(want, sizeof want, "%s must not be negative", k->name);
				break;
			case KEY_ENUM:
				snprintf(value, sizeof value, "maybe");
				words_said(k, words, sizeof words);
				snprintf(want, sizeof want, "%s must be %s, not 'maybe'", k->name, words);
				break;
			}
			int col = open_section(line, sizeof line, t->section, close);
			col += snprintf(line + col, sizeof line - (size_t)col, "%s: ", k->name) + 1;
			snprintf(line + col - 1, sizeof line - (size_t)col + 1, "%s%s\n", value, close);
			config_expect_error(plus(line), 15, col, want);
			rows++;
		}
	CU_ASSERT(rows > 0); /* the tables are there to walk */
}

/* A section giving every row of its table a value other than the default: each lands in the
 * field its row names. */
static void test_every_rows_value_lands_in_its_field(void)
{
	for (const key_table *t = config_key_tables; t->section; t++) {
		char extra[1024], close[8];
		int used = open_section(extra, sizeof extra, t->section, close);
		double want[64];
		for (size_t i = 0; i < t->n && i < 64; i++) {
			const plain_key *k = &t->rows[i];
			double dflt = k->kind == KEY_BOOL ? !strcmp(k->dflt, "true")
				      : k->kind == KEY_ENUM ? default_word(k)
				      : strtod(k->dflt, NULL);
			/* integers: the smallest allowed that is not the default (max_samples >= min_samples
			 * holds: both get the same); fractions, seconds and numbers: a value of their own */
			want[i] = k->kind == KEY_INT ? (double)(k->lo + (k->lo == (long long)dflt))
				  : k->kind == KEY_BOOL ? !dflt
				  : k->kind == KEY_ENUM ? !dflt
				  : k->kind == KEY_FRACTION ? 0.25
				  : 7.5;
			if (k->kind == KEY_INT && !strcmp(k->name, "min_samples"))
				want[i] = 2;
			if (k->kind == KEY_INT && !strcmp(k->name, "max_samples"))
				want[i] = 2;
			CU_ASSERT(want[i] != dflt);
			used += snprintf(extra + used, sizeof extra - (size_t)used, "%s%s: %s", i ? ", " : "", k->name,
					 k->kind == KEY_BOOL ? (want[i] ? "true" : "false")
					 : k->kind == KEY_ENUM ? k->words[(int)want[i]]
					 : "");
			if (k->kind != KEY_BOOL && k->kind != KEY_ENUM)
				used += snprintf(extra + used, sizeof extra - (size_t)used, "%g", want[i]);
		}
		snprintf(extra + used, sizeof extra - (size_t)used, "%s\n", close);
		config cfg;
		char *first;
		int n = config_load_text(plus(extra), &cfg, &first);
		if (n)
			fprintf(stderr, "\n  %s: %s\n", extra, first);
		free(first);
		CU_ASSERT_EQUAL_FATAL(n, 0);
		for (size_t i = 0; i < t->n && i < 64; i++) {
			const plain_key *k = &t->rows[i];
			const char *field = (const char *)&cfg + k->offset;
			double got = k->kind == KEY_INT || k->kind == KEY_BOOL || k->kind == KEY_ENUM ? *(const int *)field
													       : *(const double *)field;
			if (got != want[i])
				fprintf(stderr, "\n  %s.%s: %g, want %g\n", t->section, k->name, got, want[i]);
			CU_ASSERT_DOUBLE_EQUAL(got, want[i], 0);
		}
		config_free(&cfg);
	}
}

/* build.rdc: off unless asked for, on beside build's other keys, and a value that is not a
 * boolean (a word, a list) is refused at its own line and column. */
static void test_build_rdc(void)
{
	config cfg;
	char *first;
	CU_ASSERT_EQUAL_FATAL(config_load_text(config_good, &cfg, &first), 0);
	free(first);
	CU_ASSERT_EQUAL(cfg.rdc, 0);
	config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(config_load_text(plus("build:\n  flags: [-O3]\n  rdc: true\n"), &cfg, &first), 0);
	free(first);
	CU_ASSERT_EQUAL(cfg.rdc, 1);
	CU_ASSERT_EQUAL(cfg.nflags, 1);
	config_free(&cfg);
	config_expect_error(plus("build:\n  flags: [-O3]\n  rdc: relocatable\n"), 17, 8,
			    "rdc must be true or false, not 'relocatable'");
	config_expect_error(plus("build: {rdc: [true]}\n"), 15, 14, "rdc must be a scalar, not a list");
	config_expect_error(plus("build: {rdcc: true}\n"), 15, 9, "unknown key 'rdcc' in 'build'; did you mean 'rdc'?");
}

static void test_max_samples_may_not_be_below_min_samples(void)
{
	config_expect_error(plus("measure: {min_samples: 20, max_samples: 10}\n"), 15, 10,
			    "max_samples (10) is below min_samples (20)");
	/* a race margin below 1 would race out the best itself */
	config_expect_error(plus("measure: {race: 0.5}\n"), 15, 17, "race must be 0 (off) or a ratio of at least 1, not 0.5");
}

/* The keys measure reads itself: metrics (auto, all, none or top:K) and cache (cold or warm). */
static void test_metrics_and_cache(void)
{
	static const struct {
		const char *text;
		int metrics, top;
	} good[] = {{"all", METRICS_ALL, 0}, {"none", METRICS_NONE, 0}, {"top:3", METRICS_TOP, 3}, {"auto", METRICS_AUTO, 0}};
	for (size_t i = 0; i < 4; i++) {
		char extra[96];
		snprintf(extra, sizeof extra, "measure: {metrics: \"%s\", cache: %s}\n", good[i].text, i ? "cold" : "warm");
		config cfg;
		char *first;
		CU_ASSERT_EQUAL_FATAL(config_load_text(plus(extra), &cfg, &first), 0);
		CU_ASSERT_EQUAL(cfg.metrics, good[i].metrics);
		if (good[i].top)
			CU_ASSERT_EQUAL(cfg.metrics_top, good[i].top);
		CU_ASSERT_EQUAL(cfg.cache_warm, i == 0);
		config_free(&cfg);
	}
	static const char *const bad[] = {"top:0", "top:x", "top:", "some"};
	for (size_t i = 0; i < 4; i++) {
		char extra[96], want[96];
		snprintf(extra, sizeof extra, "measure: {metrics: \"%s\"}\n", bad[i]);
		snprintf(want, sizeof want, "metrics must be auto, all, none or top:K, not '%s'", bad[i]);
		config_expect_error(plus(extra), 15, 20, want);
	}
	config_expect_error(plus("measure: {cache: hot}\n"), 15, 18, "cache must be cold or warm, not 'hot'");
}

/* select: the policy, and the balance score's weights (their keys checked too). */
static void test_policy_and_weights(void)
{
	config cfg;
	char *first;
	CU_ASSERT_EQUAL_FATAL(config_load_text(plus("select: {policy: fastest, weights: {occupancy: 2, load_efficiency: 0.5}}\n"),
					       &cfg, &first), 0);
	CU_ASSERT_EQUAL(cfg.select.kind, POLICY_FASTEST);
	CU_ASSERT_DOUBLE_EQUAL(cfg.select.w_occupancy, 2, 0);
	CU_ASSERT_DOUBLE_EQUAL(cfg.select.w_load_efficiency, 0.5, 0);
	config_free(&cfg);
	config_expect_error(plus("select: {policy: quickest}\n"), 15, 18, "policy must be balanced or fastest, not 'quickest'");
	config_expect_error(plus("select: {weights: {occupncy: 1}}\n"), 15, 20,
			    "unknown key 'occupncy' in select weights; did you mean 'occupancy'?");
}

/* select.baseline: a configuration named by every parameter's value, checked as verify.reference is. */
static void test_baseline(void)
{
	config cfg;
	char *first;
	CU_ASSERT_EQUAL_FATAL(config_load_text(plus("select: {baseline: {bx: 64}}\n"), &cfg, &first), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg.baseline);
	CU_ASSERT_EQUAL(value_as_double(cfg.baseline[0]), 64);
	config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(config_load_text(config_good, &cfg, &first), 0);
	CU_ASSERT_PTR_NULL(cfg.baseline);
	config_free(&cfg);
	config_expect_error(plus("select: {baseline: {by: 64}}\n"), 15, 20, "select baseline does not give parameter 'bx'");
	config_expect_error(plus("select: {baseline: 64}\n"), 15, 20, "select baseline must be a mapping");
	config_expect_error(plus("select: {baseline: {bx: 48}}\n"), 15, 25, "select baseline: bx=48 is not one of bx's values in the space");
}

/* output: the two paths as given, instead of results/NAME.*; an empty one refused. */
static void test_output_paths(void)
{
	config cfg;
	char *first;
	CU_ASSERT_EQUAL_FATAL(config_load_text(plus("output: {csv: out/x.csv, header: inc/x.h}\n"), &cfg, &first), 0);
	CU_ASSERT_STRING_EQUAL(cfg.csv_path, "out/x.csv");
	CU_ASSERT_STRING_EQUAL(cfg.header_path, "inc/x.h");
	config_free(&cfg);
	config_expect_error(plus("output: {csv: \"\"}\n"), 15, 15, "output csv must not be empty");
	config_expect_error(plus("output: {cvs: x.csv}\n"), 15, 10, "unknown key 'cvs' in 'output'; did you mean 'csv'?");
}

int add_config_keys_suite(void)
{
	CU_pSuite s = CU_add_suite("config_keys", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "search keys", test_search_keys);
	CU_add_test(s, "every row's bound is enforced", test_every_rows_bound_is_enforced);
	CU_add_test(s, "every row's value lands in its field", test_every_rows_value_lands_in_its_field);
	CU_add_test(s, "build.rdc", test_build_rdc);
	CU_add_test(s, "max_samples may not be below min_samples", test_max_samples_may_not_be_below_min_samples);
	CU_add_test(s, "metrics and cache", test_metrics_and_cache);
	CU_add_test(s, "policy and weights", test_policy_and_weights);
	CU_add_test(s, "baseline", test_baseline);
	CU_add_test(s, "output paths", test_output_paths);
	return 0;
}
