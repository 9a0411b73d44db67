/* test_space.c: enumeration order, constraints, ranges and the reference's place. */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "space.h"
#include "tests.h"

static int load(const char *text, config *cfg)
{
	diags d = {0};
	const char *path = write_temp(1, "s.yaml", text);
	int rc = config_load(path, cfg, &d);
	diags_print(&d);
	diags_free(&d);
	unlink(path);
	return rc;
}

#define HEAD "kernel: {source: /dev/null, entry: k}\narguments: [{name: a, type: float, count: 4}]\n" \
	     "launch: {block: [x], grid: [1]}\n"

static void test_constraints_filter_the_product_in_order(void)
{
	config cfg;
	space sp;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(load(HEAD "space: {x: {start: 1, stop: 1024, pow2: true}, y: {start: 1, stop: 1024, pow2: true}}\n"
				       "constraints: [x * y >= 32, x * y <= 1024]\n", &cfg), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	/* the seed's space: 51 block shapes of 121 combinations */
	CU_ASSERT_EQUAL(sp.total, 121);
	CU_ASSERT_EQUAL(sp.count, 51);
	CU_ASSERT_EQUAL(sp.reference, 0);
	/* first parameter outermost: (1, 32), (1, 64) ... */
	CU_ASSERT_EQUAL(space_config(&sp, 0)[0].u.i, 1);
	CU_ASSERT_EQUAL(space_config(&sp, 0)[1].u.i, 32);
	CU_ASSERT_EQUAL(space_config(&sp, 1)[1].u.i, 64);
	for (size_t c = 0; c < sp.count; c++) {
		long long p = space_config(&sp, c)[0].u.i * space_config(&sp, c)[1].u.i;
		CU_ASSERT(p >= 32 && p <= 1024);
	}
	char *desc = space_describe(&cfg, space_config(&sp, sp.count - 1));
	CU_ASSERT_STRING_EQUAL(desc, "x=1024 y=1");
	free(desc);
	space_free(&sp);
	config_free(&cfg);
	diags_free(&d);
}

static void test_step_range_is_inclusive(void)
{
	config cfg;
	CU_ASSERT_EQUAL_FATAL(load(HEAD "space: {x: {start: 0, stop: 10, step: 5}}\n", &cfg), 0);
	CU_ASSERT_EQUAL(cfg.params[0].nvalues, 3);
	CU_ASSERT_EQUAL(cfg.params[0].values[2].u.i, 10);
	config_free(&cfg);
}

static void test_empty_space_is_an_error(void)
{
	config cfg;
	space sp;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(load(HEAD "space: {x: [1, 2]}\nconstraints: [x > 5]\n", &cfg), 0);
	CU_ASSERT_EQUAL(space_enumerate(&cfg, &sp, &d), -1);
	CU_ASSERT_EQUAL(d.n, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "no configuration satisfies the constraints (2 combinations tried)"));
	diags_free(&d);
	config_free(&cfg);
}

static void test_constraint_division_by_zero_names_the_configuration(void)
{
	config cfg;
	space sp;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(load(HEAD "space: {x: [1, 0]}\nconstraints: [\"8 % x == 0\"]\n", &cfg), 0);
	CU_ASSERT_EQUAL(space_enumerate(&cfg, &sp, &d), -1);
	CU_ASSERT_EQUAL_FATAL(d.n, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], ":5:18: modulo by zero"));
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[1], "x=0"));
	diags_free(&d);
	config_free(&cfg);
	/* decided before the last parameter is bound (here by constants alone): still a whole
	 * configuration, the first that meets it */
	CU_ASSERT_EQUAL_FATAL(load(HEAD "constants: {n: 4}\nspace: {x: [32, 64], y: [2, 1]}\nconstraints: [\"n / 0 > 1\", y > 0]\n",
				   &cfg), 0);
	CU_ASSERT_EQUAL(space_enumerate(&cfg, &sp, &d), -1);
	CU_ASSERT_EQUAL_FATAL(d.n, 2);
	CU_ASSERT_STRING_EQUAL(d.msgs[1], "  (while checking the configuration x=32 y=2)");
	diags_free(&d);
	config_free(&cfg);
}

static void test_reference_outside_space_is_an_error(void)
{
	config cfg;
	space sp;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(load(HEAD "space: {x: [1, 2, 4]}\nconstraints: [x > 1]\nverify: {reference: {x: 1}}\n", &cfg), 0);
	CU_ASSERT_EQUAL(space_enumerate(&cfg, &sp, &d), -1);
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "the verify reference (x=1) is not a valid configuration"));
	diags_free(&d);
	config_free(&cfg);
}

static void test_named_reference_is_found(void)
{
	config cfg;
	space sp;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(load(HEAD "space: {x: [1, 2, 4]}\nverify: {reference: {x: 4}}\n", &cfg), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	CU_ASSERT_EQUAL(sp.reference, 2);
	space_free(&sp);
	config_free(&cfg);
}

/* Constraints are checked as soon as their parameters are bound; the result must be exactly the
 * filtered cartesian product, in its order. */
static void test_pruned_walk_equals_the_filtered_product(void)
{
	config cfg;
	space sp;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(load(HEAD "space: {x: [1, 2, 3, 4, 5], y: [0, 1, 2, 3], z: [1, 2, 4, 8]}\n"
				       "constraints: [\"x % 2 == 1\", x + y < 6, \"z % (y + 1) == 0 || z > 4\", 3 > 2]\n", &cfg), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	size_t n = 0;
	for (int x = 1; x <= 5; x++)
		for (int y = 0; y <= 3; y++)
			for (int z = 1; z <= 8; z *= 2) {
				if (!(x % 2 == 1 && x + y < 6 && (z % (y + 1) == 0 || z > 4)))
					continue;
				CU_ASSERT_FATAL(n < sp.count);
				const value *v = space_config(&sp, n++);
				CU_ASSERT(v[0].u.i == x && v[1].u.i == y && v[2].u.i == z);
			}
	CU_ASSERT_EQUAL(sp.count, n);
	CU_ASSERT_EQUAL(sp.total, 80);
	space_free(&sp);
	config_free(&cfg);
	diags_free(&d);
}

/* The geometry check walks the space in slices: a launch that fails only in a configuration past
 * the first slice (x = 5000 of 1..6000: grid 5000 / (x - 5000)) is found, and named. */
static void test_the_geometry_check_reaches_every_configuration(void)
{
	config cfg;
	space sp;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(load("kernel: {source: /dev/null, entry: k}\narguments: [{name: a, type: float, count: 4}]\n"
				   "launch: {block: [1], grid: [\"1 + 5000 / (x - 5000) * 0\"]}\n"
				   "space: {x: {start: 1, stop: 6000, step: 1}}\n", &cfg), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	CU_ASSERT_EQUAL(sp.count, 6000);
	CU_ASSERT_EQUAL(space_check_geometry(&cfg, &sp, &d), -1);
	CU_ASSERT_FATAL(d.n >= 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "division by zero (for x=5000)"));
	space_free(&sp);
	diags_free(&d);
	/* and without one, it passes */
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	sp.count = 4999;
	CU_ASSERT_EQUAL(space_check_geometry(&cfg, &sp, &d), 0);
	CU_ASSERT_EQUAL(d.n, 0);
	space_free(&sp);
	diags_free(&d);
	config_free(&cfg);
}

/* No ceiling on the product: 10^12 combinations that constraints on the first parameters make
 * 10 (the first 11 parameters at 0) enumerate at once; a ceiling on what is kept, said. */
static void test_a_huge_space_made_small_by_its_constraints_enumerates(void)
{
	config cfg;
	space sp;
	diags d = {0};
	char text[1024] = HEAD "space: {x: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]";
	for (int p = 0; p < 11; p++)
		snprintf(text + strlen(text), sizeof text - strlen(text), ", p%d: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]", p);
	strcat(text, "}\nconstraints: [p0 == 0, p1 == 0, p2 == 0, p3 + p4 == 0, p5 == p3, p6 + p7 + p8 == p0, p9 == 0, "
		     "p10 == p9]\n");
	CU_ASSERT_EQUAL_FATAL(load(text, &cfg), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	CU_ASSERT_EQUAL(sp.total, 1000000000000ULL);
	CU_ASSERT_EQUAL(sp.count, 10);
	space_free(&sp);
	config_free(&cfg);
	/* over the ceiling (lowered here to 1,000 configurations), counted and said rather than held
	 * in memory: the count stops at the last constrained parameter (p2), the rest multiplies */
	*strstr(text, "constraints:") = 0;
	strcat(text, "constraints: [p0 == 0, p1 + p2 >= 1]\nbuild: {defines: [p3, p4, p5, p6, p7, p8, p9, p10]}\n");
	CU_ASSERT_EQUAL_FATAL(load(text, &cfg), 0);
	size_t was = space_max_values;
	space_max_values = 1000 * 12;
	CU_ASSERT_EQUAL(space_enumerate(&cfg, &sp, &d), -1);
	space_max_values = was;
	CU_ASSERT(d.n == 1 && strstr(d.msgs[0], "the space has 99000000000 valid configurations (of 1000000000000 "
						"combinations), more than can be listed: search a uniform sample of 1000"));
	diags_free(&d);
	config_free(&cfg);
	/* without constraints all of it is valid (BAT's FFT: 8x10^11), said before walking any; the
	 * parameters reach the compiler, or they would be refused as unused */
	*strstr(text, "constraints:") = 0;
	strcat(text, "build: {defines: [p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10]}\n");
	CU_ASSERT_EQUAL_FATAL(load(text, &cfg), 0);
	CU_ASSERT_EQUAL(space_enumerate(&cfg, &sp, &d), -1);
	CU_ASSERT(d.n == 1 && strstr(d.msgs[0], ":4:9: the space has 1000000000000 valid configurations (of 1000000000000 "
						"combinations), more than can be listed: search a uniform sample of 65536"));
	diags_free(&d);
	config_free(&cfg);
}

/* A space too large to hold, with constraints: x of 1..10, then 11 parameters of 0..9. */
static void load_large(config *cfg, const char *constraints, const char *more)
{
	char text[1536] = HEAD "space: {x: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]";
	for (int p = 0; p < 11; p++)
		snprintf(text + strlen(text), sizeof text - strlen(text), ", p%d: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]", p);
	snprintf(text + strlen(text), sizeof text - strlen(text),
		 "}\nconstraints: %s\nbuild: {defines: [p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10]}\n%s", constraints, more);
	CU_ASSERT_EQUAL_FATAL(load(text, cfg), 0);
}

/* The sample of a space too large to list (the ceiling lowered to 1,000): that many distinct
 * valid configurations, the same on every enumeration, spread over the values rather than the
 * first ones of the product, with the exact count of the whole beside it. */
static void test_a_space_too_large_to_list_is_sampled_uniformly(void)
{
	config cfg;
	space a, b;
	diags d = {0};
	load_large(&cfg, "[p1 + p2 >= 1, p3 != 5]", "");
	size_t was = space_max_values;
	space_max_values = 1000 * 12;
	CU_ASSERT_EQUAL_FATAL(space_enumerate_sampled(&cfg, &a, &d), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate_sampled(&cfg, &b, &d), 0);
	space_max_values = was;
	CU_ASSERT(a.sampled && !a.valid_over);
	CU_ASSERT_EQUAL(a.count, 1000);
	CU_ASSERT_EQUAL(a.valid, 10ULL * 99 * 9 * 100000000ULL); /* x, p1 + p2, p3, the rest */
	CU_ASSERT_EQUAL(a.reference, 0);
	CU_ASSERT_EQUAL(memcmp(a.vals, b.vals, a.count * a.nparams * sizeof *a.vals), 0);
	size_t low_x = 0, low_p10 = 0;
	for (size_t c = 0; c < a.count; c++) {
		const value *v = space_config(&a, c);
		CU_ASSERT(v[2].u.i + v[3].u.i >= 1 && v[4].u.i != 5);
		low_x += v[0].u.i <= 5;
		low_p10 += v[11].u.i <= 4;
		for (size_t e = 0; e < c; e++)
			if (!memcmp(v, space_config(&a, e), a.nparams * sizeof *v)) {
				CU_FAIL("a configuration sampled twice");
				break;
			}
	}
	/* half the values each; a binomial of 1,000 is within 400..600 but for 1 in 10^9 */
	CU_ASSERT(low_x > 400 && low_x < 600);
	CU_ASSERT(low_p10 > 400 && low_p10 < 600);
	space_free(&a);
	space_free(&b);
	config_free(&cfg);
	diags_free(&d);
}

/* A named reference is the sample's first configuration; one the constraints refuse is said as
 * it is for a listed space. */
static void test_a_sample_starts_with_the_reference(void)
{
	config cfg;
	space sp;
	diags d = {0};
	const char *ref = "verify: {reference: {x: 7, p0: 1, p1: 2, p2: 3, p3: 4, p4: 5, p5: 6, p6: 7, p7: 8, p8: 9, "
			  "p9: 0, p10: 1}}\n";
	load_large(&cfg, "[p1 + p2 >= 1]", ref);
	size_t was = space_max_values;
	space_max_values = 100 * 12;
	CU_ASSERT_EQUAL_FATAL(space_enumerate_sampled(&cfg, &sp, &d), 0);
	CU_ASSERT_EQUAL(sp.reference, 0);
	CU_ASSERT_EQUAL(space_config(&sp, 0)[0].u.i, 7);
	CU_ASSERT_EQUAL(space_config(&sp, 0)[11].u.i, 1);
	space_free(&sp);
	config_free(&cfg);
	load_large(&cfg, "[p1 + p2 >= 6]", ref);
	CU_ASSERT_EQUAL(space_enumerate_sampled(&cfg, &sp, &d), -1);
	space_max_values = was;
	CU_ASSERT(d.n == 1 && strstr(d.msgs[0], "is not a valid configuration of the space"));
	config_free(&cfg);
	diags_free(&d);
}

/* Counting stops where it would take long (lowered here): the count is then a lower bound, said
 * as "over"; valid configurations too rare to draw are said, not searched for forever. */
static void test_counting_and_drawing_are_bounded(void)
{
	config cfg;
	space sp;
	diags d = {0};
	size_t was = space_max_values;
	unsigned long long checks = space_max_count_checks, draws = space_max_draws;
	space_max_values = 5 * 12;
	space_max_count_checks = 100000;
	space_max_draws = 100000;
	/* decided only at the last parameter: counting would visit all 10^12 */
	load_large(&cfg, "[p10 >= 0]", "");
	CU_ASSERT_EQUAL(space_enumerate(&cfg, &sp, &d), -1);
	CU_ASSERT(d.n == 1 && strstr(d.msgs[0], "the space has over ") &&
		  strstr(d.msgs[0], "valid configurations (of 1000000000000 combinations)"));
	diags_free(&d);
	CU_ASSERT_EQUAL(space_enumerate_sampled(&cfg, &sp, &d), 0);
	CU_ASSERT(sp.sampled && sp.valid_over && sp.count == 5);
	space_free(&sp);
	config_free(&cfg);
	/* 100 valid of 10^12: a draw finds one once in 10^10 */
	load_large(&cfg, "[x == 1, p0 + p1 + p2 + p3 + p4 + p5 + p6 + p7 + p8 == 0]", "");
	CU_ASSERT_EQUAL(space_enumerate_sampled(&cfg, &sp, &d), -1);
	CU_ASSERT(d.n == 1 && strstr(d.msgs[0], "of 1000000000000 combinations) are too rare to sample"));
	space_max_values = was;
	space_max_count_checks = checks;
	space_max_draws = draws;
	config_free(&cfg);
	diags_free(&d);
}

int add_space_suite(void)
{
	CU_pSuite s = CU_add_suite("space", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "constraints filter the product in order", test_constraints_filter_the_product_in_order);
	CU_add_test(s, "step range is inclusive", test_step_range_is_inclusive);
	CU_add_test(s, "empty space is an error", test_empty_space_is_an_error);
	CU_add_test(s, "constraint division by zero names the configuration", test_constraint_division_by_zero_names_the_configuration);
	CU_add_test(s, "reference outside the space", test_reference_outside_space_is_an_error);
	CU_add_test(s, "named reference is found", test_named_reference_is_found);
	CU_add_test(s, "pruned walk equals the filtered product", test_pruned_walk_equals_the_filtered_product);
	CU_add_test(s, "the geometry check reaches every configuration", test_the_geometry_check_reaches_every_configuration);
	CU_add_test(s, "a space too large to list is sampled uniformly", test_a_space_too_large_to_list_is_sampled_uniformly);
	CU_add_test(s, "a sample starts with the reference", test_a_sample_starts_with_the_reference);
	CU_add_test(s, "counting and drawing are bounded", test_counting_and_drawing_are_bounded);
	CU_add_test(s, "a huge space made small by its constraints enumerates",
		    test_a_huge_space_made_small_by_its_constraints_enumerates);
	return 0;
}
