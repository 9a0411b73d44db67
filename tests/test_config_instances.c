/* test_config_instances.c: the instances key (config_instances.c): a grid and a list of maps, a
 * config loaded as one instance (its constants, and what follows from them), the labels and part
 * names, the nearest instance in log scale, and every way the key can be wrong. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "tests.h"

/* config_good (constant n: 1024, an array of n) with instances given as `inst` after line 6. */
static const char *with_instances(const char *inst)
{
	static char buf[4096];
	const char *cut = strstr(config_good, "arguments:");
	snprintf(buf, sizeof buf, "%.*s%s\n%s", (int)(cut - config_good), config_good, inst, cut);
	return buf;
}

static void test_a_grid_is_every_combination(void)
{
	config cfg;
	char *first, text[4096];
	snprintf(text, sizeof text, "%s", config_with_line(6, "  n: 1 << 10\n  m: 2"));
	char *cut = strstr(text, "arguments:"), rest[4096];
	snprintf(rest, sizeof rest, "%s", cut);
	snprintf(cut, sizeof text - (size_t)(cut - text), "instances: {n: [1024, 4096], m: [64, 128, 256]}\n%s", rest);
	CU_ASSERT_EQUAL_FATAL(config_load_text(text, &cfg, &first), 0);
	CU_ASSERT_EQUAL(cfg.instances.ninst, 6);
	CU_ASSERT_EQUAL(cfg.instances.nnames, 2);
	CU_ASSERT_EQUAL(cfg.instance, -1);
	/* the first name slowest */
	char *label = config_instance_label(&cfg, 1), *suffix = config_instance_suffix(&cfg, 5);
	CU_ASSERT_STRING_EQUAL(label, "n=1024 m=128");
	CU_ASSERT_STRING_EQUAL(suffix, ".n-4096-m-256");
	free(label);
	free(suffix);
	config_free(&cfg);
}

static void test_a_list_of_maps_and_one_instance_loaded(void)
{
	const char *text = with_instances("instances: [{n: 256}, {n: 1 << 20}]");
	const char *path = write_temp(1, "inst.yaml", text);
	diags d = {0};
	config cfg;
	CU_ASSERT_EQUAL_FATAL(config_load_instance(path, 1, &cfg, &d), 0);
	CU_ASSERT_EQUAL(cfg.instances.ninst, 2);
	CU_ASSERT_EQUAL(cfg.instance, 1);
	CU_ASSERT(config_is_instance(&cfg));
	/* the constant, and the array sized by it, are the instance's */
	CU_ASSERT_EQUAL(cfg.constants[0].v.u.i, 1 << 20);
	CU_ASSERT_EQUAL(cfg.args[0].count, 1 << 20);
	config_free(&cfg);
	stderr_begin(); /* the config's warning: nothing is verified */
	int rc = config_load(path, &cfg, &d);
	free(stderr_end());
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_FALSE(config_is_instance(&cfg));
	CU_ASSERT_EQUAL(cfg.args[0].count, 1024); /* as written */
	config_free(&cfg);
	CU_ASSERT_NOT_EQUAL(config_load_instance(path, 2, &cfg, &d), 0);
	CU_ASSERT_PTR_NOT_NULL(d.n ? strstr(d.msgs[0], "no instance 3") : NULL);
	diags_free(&d);
	unlink(path);
}

static void test_bad_instances_are_said_where_they_are(void)
{
	config_expect_error(with_instances("instances: {m: [1, 2]}"), 7, 12, "instances: 'm' is not a constant");
	config_expect_error(with_instances("instances: {n: [1, 0]}"), 7, 20, "instances: value of 'n' is 0: instance "
									    "values must be positive");
	config_expect_error(with_instances("instances: {n: [8, 8]}"), 7, 12, "instances: n=8 is given twice");
	config_expect_error(with_instances("instances: 5"), 7, 12, "'instances' must be a mapping");
	config_expect_error(with_instances("instances: [{n: 8}, {m: 9}]"), 7, 22, "unknown key 'm' in an instance; did you mean 'n'?");
	config_expect_error(with_instances("instances: {n: []}"), 7, 16, "instances: 'n' has no values");
}

/* config_good with constants `consts` (YAML lines for line 6) and `inst` before its arguments
 * (caller frees). */
static char *grid_config(const char *consts, const char *inst)
{
	const char *text = config_with_line(6, consts), *cut = strstr(text, "arguments:");
	char *out = malloc(strlen(text) + strlen(inst) + 2);
	sprintf(out, "%.*s%s\n%s", (int)(cut - text), text, inst, cut);
	return out;
}

/* "[1, 2, ..., n]" (caller frees). */
static char *one_to(int n)
{
	char *s = malloc((size_t)n * 9 + 3), *p = s;
	*p++ = '[';
	for (int i = 1; i <= n; i++)
		p += sprintf(p, "%s%d", i > 1 ? ", " : "", i);
	strcpy(p, "]");
	return s;
}

/* The grid {n: [1..a], m: [1..b]} loaded: 0 or the diagnostics; its count in *ninst. */
static int load_grid_of(int a, int b, size_t *ninst, char **first)
{
	char *la = one_to(a), *lb = one_to(b), *inst = malloc(strlen(la) + strlen(lb) + 64);
	sprintf(inst, "instances: {n: %s, m: %s}", la, lb);
	char *text = grid_config("  n: 1 << 10\n  m: 2", inst);
	config cfg;
	int rc = config_load_text(text, &cfg, first);
	*ninst = rc ? 0 : cfg.instances.ninst;
	if (!rc)
		config_free(&cfg);
	free(text);
	free(inst);
	free(lb);
	free(la);
	return rc;
}

/* A grid's count cannot wrap: 2^63 combinations over 64 names crashed, 2^64 came out as none (one
 * problem tuned, silently). Past INSTANCES_MAX it is refused at the name that passes it, with
 * advice; INSTANCES_MAX itself loads, duplicates are still found, and the work is n log n (every
 * pair was compared: 10^5 instances took 15-42 s). */
static void test_a_grid_past_the_limit_is_refused_never_wrapped(void)
{
	char consts[2048] = "  n: 1 << 10", inst[2048] = "instances: {", *p = consts + strlen(consts), *q = inst + strlen(inst);
	for (int k = 0; k < 64; k++) {
		p += sprintf(p, "\n  c%d: 1", k);
		q += sprintf(q, "%sc%d: [1, 2]", k ? ", " : "", k);
	}
	strcpy(q, "}");
	char *text = grid_config(consts, inst), *first = NULL;
	config cfg;
	CU_ASSERT(config_load_text(text, &cfg, &first) > 0);
	CU_ASSERT_PTR_NOT_NULL(first ? strstr(first, "instances: the grid has more than 1000000 instances at 'c19' "
						   "(524288 so far, times its 2 values)") : NULL);
	CU_ASSERT_PTR_NOT_NULL(first ? strstr(first, "list the combinations the program runs") : NULL);
	free(first);
	free(text);
	/* 2^63: the last name has one value */
	strcpy(strstr(inst, "c63: [1, 2]"), "c63: [1]}");
	text = grid_config(consts, inst);
	first = NULL;
	CU_ASSERT(config_load_text(text, &cfg, &first) > 0);
	CU_ASSERT_PTR_NOT_NULL(first ? strstr(first, "more than 1000000 instances at 'c19'") : NULL);
	free(first);
	free(text);
	size_t n;
	first = NULL;
	CU_ASSERT_EQUAL(load_grid_of(1000, 1000, &n, &first), 0);
	CU_ASSERT_EQUAL(n, 1000000);
	free(first);
	first = NULL;
	CU_ASSERT(load_grid_of(1000, 1001, &n, &first) > 0);
	CU_ASSERT_PTR_NOT_NULL(first ? strstr(first, "more than 1000000 instances at 'm' (1000 so far, times its 1001 values)")
				     : NULL);
	free(first);
	/* the first repeat named, with the first instance it repeats */
	config_expect_error(with_instances("instances: [{n: 3}, {n: 1}, {n: 2}, {n: 1}, {n: 3}]"), 7, 12,
			    "instances: n=1 is given twice (instances 2 and 4)");
	/* ten times the instances, about ten times the work (it was a hundred) */
	first = NULL;
	double t0 = cpu_seconds();
	CU_ASSERT_EQUAL(load_grid_of(100, 100, &n, &first), 0);
	double t1 = cpu_seconds();
	CU_ASSERT_EQUAL(load_grid_of(100, 1000, &n, &first), 0);
	double t2 = cpu_seconds();
	if (!(t2 - t1 < 25 * (t1 - t0) + 0.2))
		fprintf(stderr, "\n  10^4 instances: %.3f s, 10^5: %.3f s\n", t1 - t0, t2 - t1);
	CU_ASSERT(t2 - t1 < 25 * (t1 - t0) + 0.2);
	free(first);
}

int add_config_instances_suite(void)
{
	CU_pSuite s = CU_add_suite("config_instances", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "a grid is every combination", test_a_grid_is_every_combination);
	CU_add_test(s, "a list of maps and one instance loaded", test_a_list_of_maps_and_one_instance_loaded);
	CU_add_test(s, "bad instances are said where they are", test_bad_instances_are_said_where_they_are);
	CU_add_test(s, "a grid past the limit is refused, never wrapped", test_a_grid_past_the_limit_is_refused_never_wrapped);
	return 0;
}
