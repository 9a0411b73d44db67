/* test_config_yaml.c: the loader's view of the YAML document (config_yaml.c): unknown keys with
 * the nearest valid one (or the list of them), duplicate keys, typed getters that are strict
 * (integers in range and whole, numbers finite, booleans spelled out, strings not empty, the
 * node kind a key needs), and an expression's error at its column inside quotes or out. Each
 * error at its file:line:col, through config_load on config_good with one line changed. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "document.h"
#include "proc.h"
#include "tests.h"

/* 100,000 nested brackets are refused where the 65th opens, before the parser (which took 33 s
 * over them); brackets in quotes and comments do not count, and 64 levels are allowed. */
static void test_deep_nesting_is_refused_where_it_starts(void)
{
	size_t n = 100000, len = strlen(config_good);
	char *text = malloc(len + 2 * n + 64);
	memcpy(text, config_good, len);
	len += (size_t)sprintf(text + len, "constants: {z: ");
	memset(text + len, '[', n);
	memset(text + len + n, ']', n);
	strcpy(text + len + 2 * n, "}\n");
	/* line 15: "constants: {z: " opens one brace, then 63 brackets fit and the 64th is too many */
	config_expect_error(text, 15, 16 + 63, "YAML syntax error: lists and mappings nested more than 64 deep");
	free(text);
	char ok[8192];
	char deep[200];
	memset(deep, '[', 63);
	memset(deep + 63, ']', 63);
	deep[126] = 0;
	snprintf(ok, sizeof ok, "%s# [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n"
		 "search: {strategy: \"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"}\n"
		 "constants: {z: %s}\n", config_good, deep);
	/* past the depth check: the parser's next complaint is the key config_good has already */
	config_expect_error(ok, 17, 1, "duplicate key 'constants'");
}

static void test_typo_key_suggests_nearest(void)
{
	config_expect_error(config_with_line(13, "  blok: [bx]"), 13, 3, "unknown key 'blok' in 'launch'; did you mean 'block'?");
}

static void test_duplicate_key_names_both_places(void)
{
	config_expect_error(config_with_line(4, "  source: /dev/zero"), 4, 3, "duplicate key 'source' (first at line 3, column 3)");
}

static void test_strict_integers_reject_trailing_junk(void)
{
	char text[4096];
	snprintf(text, sizeof text, "%smeasure: {min_samples: 10x}\n", config_good);
	config_expect_error(text, 15, 24, "min_samples must be an integer, not '10x'");
}

static void test_expression_syntax_error_points_inside_quotes(void)
{
	/* the quote is column 10, the expression starts at 11, the stray ')' at 17 */
	config_expect_error(config_with_line(14, "  grid: [\"n / bx)\"]"), 14, 17,
		     "launch grid: expected an operator or end of expression but found ')'");
}

static void test_wrong_type_for_list(void)
{
	config_expect_error(config_with_line(13, "  block: bx"), 13, 10, "launch block must be a list, not a scalar");
}

static void test_missing_required_key(void)
{
	config_expect_error(config_with_line(4, "  arch: sm_90"), 3, 3, "'kernel' is missing the required key 'entry'");
}

/* config_good with `extra` appended (its line 15 on). */
static const char *plus(const char *extra)
{
	static char text[4096];
	snprintf(text, sizeof text, "%s%s", config_good, extra);
	return text;
}

/* A key near none of the valid ones: all of them listed, the section's table rows and the keys
 * it reads itself alike. */
static void test_a_key_near_none_lists_the_valid_ones(void)
{
	config_expect_error(plus("measure: {zzzzzzzz: 1}\n"), 15, 11,
			    "unknown key 'zzzzzzzz' in 'measure' (valid keys: warmup, min_samples, max_samples, noise, time_cap, race, "
			    "finalists, timeout, verify_every_sample, pending_launches, cache, energy, metrics)");
	config_expect_error(config_with_line(13, "  zzzzzz: [bx]"), 13, 3,
			    "unknown key 'zzzzzz' in 'launch' (valid keys: block, grid, shared_mem)");
}

/* A key cut short is taken for the one it starts, however far in edit distance. */
static void test_a_truncated_key_is_taken_for_the_one_it_starts(void)
{
	config_expect_error(plus("measure: {verify_every: true}\n"), 15, 11,
			    "unknown key 'verify_every' in 'measure'; did you mean 'verify_every_sample'?");
	config_expect_error(plus("measure: {finali: 2}\n"), 15, 11, "unknown key 'finali' in 'measure'; did you mean 'finalists'?");
}

static void test_keys_must_be_plain_names(void)
{
	config_expect_error(plus("measure: {[a, b]: 1}\n"), 15, 11, "keys in 'measure' must be plain names");
}

/* Integers: within the key's bounds, in any C base, and not past 64 bits. */
static void test_integers_are_whole_and_in_range(void)
{
	config_expect_error(plus("measure: {min_samples: 0}\n"), 15, 24, "min_samples must be between 1 and 100000, not 0");
	config_expect_error(plus("measure: {min_samples: 99999999999999999999}\n"), 15, 24,
			    "min_samples must be an integer, not '99999999999999999999'");
	config_expect_error(plus("measure: {min_samples: 2.5}\n"), 15, 24, "min_samples must be an integer, not '2.5'");
	config cfg;
	char *first;
	CU_ASSERT_EQUAL_FATAL(config_load_text(plus("measure: {min_samples: 0x10}\n"), &cfg, &first), 0);
	CU_ASSERT_EQUAL(cfg.min_samples, 16);
	config_free(&cfg);
}

/* Numbers are finite; booleans are true, false, yes or no and nothing else. */
static void test_numbers_are_finite_and_booleans_spelled_out(void)
{
	config_expect_error(plus("measure: {noise: abc}\n"), 15, 18, "noise must be a number, not 'abc'");
	config_expect_error(plus("measure: {noise: inf}\n"), 15, 18, "noise must be a number, not 'inf'");
	config_expect_error(plus("measure: {noise: 1e999}\n"), 15, 18, "noise must be a number, not '1e999'");
	config_expect_error(plus("measure: {verify_every_sample: maybe}\n"), 15, 32,
			    "verify_every_sample must be true or false, not 'maybe'");
	static const char *const spellings[][2] = {{"true", "1"}, {"yes", "1"}, {"false", "0"}, {"no", "0"}};
	for (size_t i = 0; i < 4; i++) {
		char extra[64];
		snprintf(extra, sizeof extra, "measure: {verify_every_sample: %s}\n", spellings[i][0]);
		config cfg;
		char *first;
		CU_ASSERT_EQUAL_FATAL(config_load_text(plus(extra), &cfg, &first), 0);
		CU_ASSERT_EQUAL(cfg.verify_every, atoi(spellings[i][1]));
		config_free(&cfg);
	}
}

/* A key's value of the wrong kind names both kinds; an empty string is refused where a name is
 * wanted. */
static void test_a_value_of_the_wrong_kind_or_empty(void)
{
	config_expect_error(plus("measure: {warmup: [1]}\n"), 15, 19, "warmup must be a scalar, not a list");
	config_expect_error(plus("measure: [warmup]\n"), 15, 10, "'measure' must be a mapping, not a list");
	config_expect_error(config_with_line(1, "name: \"\""), 1, 7, "name must not be empty");
}

/* An expression's column is its character's in the file: one past a quote, single or double,
 * and none for a plain scalar. */
static void test_expression_columns_count_quotes(void)
{
	const char *msg = "launch block: expected a number, name or '(' but found '*'";
	config_expect_error(config_with_line(13, "  block: [\"bx +* 2\"]"), 13, 16, msg);
	config_expect_error(config_with_line(13, "  block: ['bx +* 2']"), 13, 16, msg);
	config_expect_error(config_with_line(13, "  block: [bx +* 2]"), 13, 15, msg);
}

/* Every file autotune reads goes through one bounded reader: a device that never ends is refused
 * at the bound (these commands never returned), and a config read through a pipe is read, not
 * taken for an empty file. */
static void test_endless_and_piped_inputs(void)
{
	char *cases[][5] = {{"validate", "/dev/zero", NULL},
			    {"import", "/dev/zero", NULL},
			    {"--replay", "/dev/zero", "--budget", "4", "configs/summatrix.yaml"}};
	const char *want[] = {"/dev/zero: over 64 MiB: not a config", "/dev/zero: over 64 MiB: not a T1 spec",
			      "/dev/zero: a NUL byte at its start: UTF-16 or UTF-32 text, or not text"};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *out;
		char *argv[6] = {cases[i][0], cases[i][1], cases[i][2], cases[i][3], cases[i][4], NULL};
		CU_ASSERT_EQUAL(run_autotune(argv, &out), 2);
		if (!strstr(out, want[i]))
			fprintf(stderr, "\n  %s %s: %s", cases[i][0], cases[i][1], out);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, want[i]));
		free(out);
	}
	/* a named pipe that a writer fills: the whole config, its error at its place */
	char fifo[128];
	snprintf(fifo, sizeof fifo, "%s/piped.yaml", test_dir);
	CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
	char *text = config_with_line(1, "kernel: {source: /nonexistent/k.cu, entry: k}");
	pid_t w = fork();
	if (w == 0) {
		FILE *f = fopen(fifo, "w");
		if (f)
			fputs(text, f);
		_exit(f && fclose(f) == 0 ? 0 : 1);
	}
	char *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){"validate", fifo, NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "/nonexistent/k.cu"));
	CU_ASSERT_PTR_NULL(strstr(out, "empty"));
	free(out);
	int status;
	waitpid(w, &status, 0);
	unlink(fifo);
}

/* A config is one document: a second one, or text after the first (a second JSON object), was
 * silently dropped; now an error where it starts. */
static void test_one_document_only(void)
{
	config cfg;
	char *first = NULL;
	char *text = xasprintf("%s---\nname: other\n", config_good);
	CU_ASSERT(config_load_text(text, &cfg, &first) > 0);
	CU_ASSERT_PTR_NOT_NULL(first && strstr(first, ":15:1: YAML syntax error: a second document: the file must hold one"));
	free(first);
	free(text);
	yaml_document_t doc;
	diags d = {0};
	const char *json = "{\"a\": 1}\n{\"b\": 2}\n";
	CU_ASSERT_EQUAL(document_read_text("spec.json", json, strlen(json), "JSON", &doc, &d), -1);
	CU_ASSERT_PTR_NOT_NULL(d.n ? strstr(d.msgs[0], "spec.json:2:1: JSON syntax error: text after the document") : NULL);
	diags_free(&d);
	/* a NUL escape would cut a name or a path short: refused where the string is, key or value */
	text = config_with_line(3, "  source: \"/dev/null\\0.cu\"");
	CU_ASSERT(config_load_text(text, &cfg, &first) > 0);
	CU_ASSERT_PTR_NOT_NULL(first && strstr(first, ":3:11: YAML: a NUL character (\\0) in a string: not allowed"));
	free(first);
	/* a document end marker alone is no second document */
	text = xasprintf("%s...\n", config_good);
	CU_ASSERT_EQUAL(config_load_text(text, &cfg, &first), 0);
	config_free(&cfg);
	free(first);
	free(text);
}

/* Seconds to load a config of n constants and a parameter of n listed values. */
static double load_seconds(size_t n)
{
	size_t cap = 64 * n + 1024, used = 0;
	char *text = malloc(cap);
	used += (size_t)snprintf(text + used, cap - used, "name: big\nkernel: {source: /dev/null, entry: k}\nconstants:\n");
	for (size_t i = 0; i < n; i++)
		used += (size_t)snprintf(text + used, cap - used, "  c%zu: %zu\n", i, i);
	used += (size_t)snprintf(text + used, cap - used,
				 "arguments: [{name: a, type: float, count: 64, output: true}]\nspace:\n  bx: [32]\n  v: [");
	for (size_t i = 0; i < n; i++)
		used += (size_t)snprintf(text + used, cap - used, "%s%zu", i ? ", " : "", i);
	snprintf(text + used, cap - used, "]\nlaunch: {block: [bx], grid: [1]}\nbuild: {defines: [v]}\n");
	config cfg;
	char *first;
	double t0 = cpu_seconds();
	int n_diags = config_load_text(text, &cfg, &first);
	double dt = cpu_seconds() - t0;
	if (n_diags)
		fprintf(stderr, "\n  %s\n", first);
	CU_ASSERT_EQUAL(n_diags, 0);
	CU_ASSERT_EQUAL(cfg.nconstants, n);
	CU_ASSERT_EQUAL(cfg.nparams == 2 ? cfg.params[1].nvalues : 0, n);
	free(first);
	config_free(&cfg);
	free(text);
	return dt;
}

/* Long lists of values and many constants load in time linear in their number: four times as
 * many take about four times as long, not sixteen (each value and name was compared with every
 * one before it: 200,000 values took 15 s). A duplicate among many is still found. */
static void test_long_lists_load_in_linear_time(void)
{
	load_seconds(2000); /* warm */
	double small = load_seconds(5000), large = load_seconds(20000);
	if (!(large < 8 * small + 0.05))
		fprintf(stderr, "\n  5000: %.3f s, 20000: %.3f s\n", small, large);
	CU_ASSERT(large < 8 * small + 0.05);
	config cfg;
	char *first;
	CU_ASSERT_EQUAL(config_load_text(config_with_line(11, "  bx: [32, 64, 128, 256, 64.0, 512]"), &cfg, &first), 1);
	CU_ASSERT_PTR_NOT_NULL(first && strstr(first, "parameter 'bx' lists the value 64.0 twice (items 2 and 5)"));
	free(first);
	config_free(&cfg);
	CU_ASSERT_EQUAL(config_load_text(config_with_line(6, "  n: 1 << 10\n  m: 2\n  n: 3"), &cfg, &first), 1);
	CU_ASSERT_PTR_NOT_NULL(first && strstr(first, "duplicate key 'n' (first at line 6"));
	free(first);
	config_free(&cfg);
}

int add_config_yaml_suite(void)
{
	CU_pSuite s = CU_add_suite("config_yaml", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "typo'd key suggests nearest", test_typo_key_suggests_nearest);
	CU_add_test(s, "duplicate key names both places", test_duplicate_key_names_both_places);
	CU_add_test(s, "strict integers", test_strict_integers_reject_trailing_junk);
	CU_add_test(s, "expression syntax error inside quotes", test_expression_syntax_error_points_inside_quotes);
	CU_add_test(s, "wrong type", test_wrong_type_for_list);
	CU_add_test(s, "missing required key", test_missing_required_key);
	CU_add_test(s, "a key near none lists the valid ones", test_a_key_near_none_lists_the_valid_ones);
	CU_add_test(s, "a truncated key is taken for the one it starts", test_a_truncated_key_is_taken_for_the_one_it_starts);
	CU_add_test(s, "keys must be plain names", test_keys_must_be_plain_names);
	CU_add_test(s, "integers are whole and in range", test_integers_are_whole_and_in_range);
	CU_add_test(s, "numbers are finite and booleans spelled out", test_numbers_are_finite_and_booleans_spelled_out);
	CU_add_test(s, "a value of the wrong kind, or empty", test_a_value_of_the_wrong_kind_or_empty);
	CU_add_test(s, "expression columns count quotes", test_expression_columns_count_quotes);
	CU_add_test(s, "deep nesting is refused where it starts", test_deep_nesting_is_refused_where_it_starts);
	CU_add_test(s, "endless and piped inputs", test_endless_and_piped_inputs);
	CU_add_test(s, "one document only", test_one_document_only);
	CU_add_test(s, "long lists load in linear time", test_long_lists_load_in_linear_time);
	return 0;
}
