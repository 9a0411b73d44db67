/* test_binary.c: the plan of a build (binary.c): configurations grouped by their compile-time
 * values, one binary each, and the reference kernel's binary after them. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "binary.h"
#include "config.h"
#include "space.h"
#include "tests.h"

/* The build plan of a config given as text: loaded from a temporary file, enumerated, planned. */
static void plan_text(const char *name, const char *text, config *cfg, space *sp, build *b)
{
	diags d = {0};
	const char *path = write_temp(2, name, text);
	CU_ASSERT_EQUAL_FATAL(config_load(path, cfg, &d), 0);
	unlink(path);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(cfg, sp, &d), 0);
	diags_free(&d);
	build_plan(cfg, sp, b);
}

static void test_plan_compiles_only_distinct_compile_time_values(void)
{
	const char *text = "kernel: {source: /dev/null, entry: k}\narguments: [{name: a, type: float, count: 4}]\n"
			   "launch: {block: [x], grid: [1]}\nspace: {x: [32, 64, 128], r: [0, 32], u: [1, 2]}\n"
			   "build: {maxrregcount: r, defines: [u]}\n";
	config cfg;
	space sp;
	build b;
	plan_text("p.yaml", text, &cfg, &sp, &b);
	/* 12 configurations, but the block size x never changes the binary: 2 x 2 */
	CU_ASSERT_EQUAL(sp.count, 12);
	CU_ASSERT_EQUAL(b.nbins, 4);
	for (size_t c = 0; c < sp.count; c++) {
		const value *v = space_config(&sp, c), *f = space_config(&sp, b.bins[b.of_config[c]].first_config);
		CU_ASSERT(v[1].u.i == f[1].u.i && v[2].u.i == f[2].u.i);
	}
	build_free(&b);
	space_free(&sp);
	config_free(&cfg);
}

/* verify.kernel: one binary more, after the configurations', built like the first configuration
 * for the reference entry; without one there is none (ref_bin -1). build_free leaves nothing. */
static void test_the_reference_kernel_has_a_binary_of_its_own(void)
{
	static const char *const more[] = {"", "verify: {kernel: {entry: ref, block: [64], grid: [1]}}\n"};
	for (int with = 0; with < 2; with++) {
		char text[512];
		snprintf(text, sizeof text,
			 "kernel: {source: /dev/null, entry: k}\narguments: [{name: a, type: float, count: 4, output: true}]\n"
			 "launch: {block: [x], grid: [1]}\nspace: {x: [32, 64], u: [1, 2, 3]}\nbuild: {defines: [u]}\n%s",
			 more[with]);
		config cfg;
		space sp;
		build b;
		plan_text("ref.yaml", text, &cfg, &sp, &b);
		CU_ASSERT_EQUAL(b.nbins, 3u + (size_t)with);
		CU_ASSERT_EQUAL(b.ref_bin, with ? 3 : -1);
		if (with && b.nbins == 4) {
			CU_ASSERT_STRING_EQUAL(b.bins[3].entry, "ref");
			CU_ASSERT_EQUAL(b.bins[3].first_config, 0);
		}
		for (size_t c = 0; c < sp.count; c++)
			CU_ASSERT(b.of_config[c] < 3); /* no configuration is built as the reference */
		build_free(&b);
		CU_ASSERT(b.nbins == 0 && b.bins == NULL && b.of_config == NULL);
		space_free(&sp);
		config_free(&cfg);
	}
}

int add_binary_suite(void)
{
	CU_pSuite s = CU_add_suite("binary", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "plan compiles only distinct compile-time values", test_plan_compiles_only_distinct_compile_time_values);
	CU_add_test(s, "the reference kernel has a binary of its own", test_the_reference_kernel_has_a_binary_of_its_own);
	return CU_get_error() == CUE_SUCCESS ? 0 : -1;
}
