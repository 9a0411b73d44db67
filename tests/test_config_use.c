/* test_config_use.c: a parameter that reaches neither the compiler nor the launch is an error at
 * its name (config_use.c), said with where else it stands; each way of using one is enough. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "tests.h"

/* config_good with the space of line 11 as `space` and `more` appended (static storage). */
static const char *with_space(const char *space, const char *more)
{
	static char buf[4096];
	snprintf(buf, sizeof buf, "%s%s", config_with_line(11, space), more);
	return buf;
}

static int loads(const char *text)
{
	config cfg;
	char *first = NULL;
	int n = config_load_text(text, &cfg, &first);
	if (n)
		fprintf(stderr, "\n  %s\n", first);
	free(first);
	if (!n)
		config_free(&cfg);
	return n == 0;
}

/* The Kernel Tuner trap: tile_size in the space, nowhere else. */
static void test_a_parameter_used_nowhere_is_an_error_at_its_name(void)
{
	const char *text = with_space("  bx: [32, 64, 128]\n  tile_size: [1, 2, 4]", "");
	config_expect_error(text, 12, 3, "parameter 'tile_size' changes nothing: it is not in build.defines");
	config cfg;
	char *first = NULL;
	CU_ASSERT_EQUAL(config_load_text(text, &cfg, &first), 1);
	CU_ASSERT_PTR_NOT_NULL(first && strstr(first, "to pass it to the kernel, list it in build.defines"));
	free(first);
	/* one value changes nothing either */
	config_expect_error(with_space("  {bx: [32], one: 7}", ""), 11, 14, "parameter 'one' changes nothing");
}

/* Where else it stands is said: a flag that names it, or a use that does not change what runs. */
static void test_the_message_says_where_else_it_stands(void)
{
	const char *cases[][2] = {
		{"build: {flags: [-DT=4]}\n", "build.flags are passed as written: '-DT=4' does not take its values"},
		{"bytes: 4 * T\n", "it is used only in bytes, which does not change what runs"},
		{"flops: T\n", "it is used only in flops"},
		{"verify: {reference_per: [T]}\n", "it is used only in verify.reference_per"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		config cfg;
		char *first = NULL;
		CU_ASSERT_EQUAL(config_load_text(with_space("  {bx: [32, 64], T: [1, 2]}", cases[i][0]), &cfg, &first), 1);
		CU_ASSERT_PTR_NOT_NULL(first && strstr(first, ":11:18: parameter 'T' changes nothing"));
		CU_ASSERT_PTR_NOT_NULL(first && strstr(first, cases[i][1]));
		free(first);
	}
	/* a name that only contains it is not it */
	config cfg;
	char *first = NULL;
	CU_ASSERT_EQUAL(config_load_text(with_space("  {bx: [32, 64], T: [1, 2]}", "build: {flags: [-DTT=4]}\n"), &cfg, &first), 1);
	CU_ASSERT_PTR_NULL(first && strstr(first, "build.flags"));
	free(first);
}

/* A config of kernel source src and entry, scalar argument value `value`, the space {bx: [32, 64],
 * T: [1, 2]}, launch `launch` and `more` (static storage). */
static const char *made(const char *src, const char *entry, const char *value, const char *launch, const char *more)
{
	static char buf[2048];
	snprintf(buf, sizeof buf,
		 "name: u\nkernel: {source: %s, entry: \"%s\"}\narguments:\n  - {name: a, type: float, count: 64}\n"
		 "  - {name: n, type: int32, value: %s}\nspace: {bx: [32, 64], T: [1, 2]}\nlaunch: %s\n%s",
		 src, entry, value, launch, more);
	return buf;
}

/* Each use that reaches the kernel or shapes the space is enough. */
static void test_every_use_counts(void)
{
	const char *plain = "{block: [bx], grid: [1]}";
	CU_ASSERT(!loads(made("/dev/null", "k", "64", plain, "")));
	const char *more[] = {"build: {defines: [T]}\n", "build: {maxrregcount: T}\n", "constraints: [T <= bx]\n"};
	for (size_t i = 0; i < sizeof more / sizeof *more; i++)
		CU_ASSERT(loads(made("/dev/null", "k", "64", plain, more[i])));
	const char *launches[] = {"{block: [bx, T], grid: [1]}", "{block: [bx], grid: [T]}",
				  "{block: [bx], grid: [1], shared_mem: 4 * T}"};
	for (size_t i = 0; i < sizeof launches / sizeof *launches; i++)
		CU_ASSERT(loads(made("/dev/null", "k", "64", launches[i], "")));
	CU_ASSERT(loads(made("/dev/null", "k", "64 * T", plain, "")));
	CU_ASSERT(loads(made("/dev/null", "k${T}", "64", plain, "")));
	const char *src = write_temp(4, "use.cu", "__global__ void k(float *a) {\n#pragma unroll T\n for (int i = 0; i < 4; i++) a[i] = 1;\n}\n");
	CU_ASSERT(loads(made(src, "k", "64", plain, "")));
}

/* A plan's streams, order, connections and its launches' geometry are uses too. */
static void test_a_plans_expressions_count(void)
{
	const char *plans[] = {"plan: {streams: T, launches: [k]}\n", "plan: {order: T - 1, launches: [k]}\n",
			       "plan: {connections: T, launches: [k]}\n",
			       "plan: {launches: [k, {entry: k, block: [T], grid: [1]}]}\n"};
	for (size_t i = 0; i < sizeof plans / sizeof *plans; i++) {
		char text[1024];
		snprintf(text, sizeof text, "name: pl\nkernel: {source: /dev/null}\narguments: [{name: a, type: float, count: 4}]\n"
					    "space: {bx: [32], T: [1, 2]}\nlaunch: {block: [bx], grid: [1]}\n%s", plans[i]);
		CU_ASSERT(loads(text));
	}
}

/* Said only of a config that is otherwise right: an expression that did not parse hides its names. */
static void test_not_said_beside_other_errors(void)
{
	config cfg;
	char *first = NULL;
	const char *text = config_with_line(14, "  grid: [\"ceil_div(n, bx\"]");
	CU_ASSERT_EQUAL(config_load_text(text, &cfg, &first), 1);
	CU_ASSERT_PTR_NULL(first && strstr(first, "changes nothing"));
	free(first);
}

int add_config_use_suite(void)
{
	CU_pSuite s = CU_add_suite("config_use", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "a parameter used nowhere is an error at its name", test_a_parameter_used_nowhere_is_an_error_at_its_name);
	CU_add_test(s, "the message says where else it stands", test_the_message_says_where_else_it_stands);
	CU_add_test(s, "every use counts", test_every_use_counts);
	CU_add_test(s, "a plan's expressions count", test_a_plans_expressions_count);
	CU_add_test(s, "not said beside other errors", test_not_said_beside_other_errors);
	return 0;
}
