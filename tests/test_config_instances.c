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

int add_config_instances_suite(void)
{
	CU_pSuite s = CU_add_suite("config_instances", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "a grid is every combination", test_a_grid_is_every_combination);
	CU_add_test(s, "a list of maps and one instance loaded", test_a_list_of_maps_and_one_instance_loaded);
	CU_add_test(s, "bad instances are said where they are", test_bad_instances_are_said_where_they_are);
	return 0;
}
