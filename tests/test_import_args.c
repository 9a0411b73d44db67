/* test_import_args.c: a T1 spec's Arguments and ReferenceArguments as the config's arguments and
 * verify section (import_args.c): outputs that hold data of their own start every launch from it,
 * as KTT and Kernel Tuner reset them; a reference file the spec names but does not ship is a note,
 * not a refusal. (test_import.c has the whole import and the published specs' table.) */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "diag.h"
#include "import.h"
#include "tests.h"

/* KTT's CoulombSum3d names a reference file that KTT does not publish: the spec imports, its
 * output checked against the first configuration, and a note says how to use the file once it
 * is there; with the file there, it is the expected output. */
static void test_a_reference_file_that_is_not_there_is_noted(void)
{
	char yaml[256];
	snprintf(yaml, sizeof yaml, "%s/coulomb.yaml", test_dir);
	const char *json = published_copy("ktt", "CoulombSum3d.json");
	diags d = {0};
	stderr_begin();
	CU_ASSERT_EQUAL(import_t1(json, yaml, &d), 0);
	int noted = 0;
	for (size_t i = 0; i < d.n; i++)
		noted |= strstr(d.msgs[i], "note: 'Coulomb3d.bin', the reference for grid, is not there (No such file or "
					   "directory): grid is checked against the first configuration instead") != NULL;
	CU_ASSERT(noted);
	CU_ASSERT_EQUAL(count_in(yaml, "  expected:"), 0);
	diags_free(&d);
	char bin[300];
	snprintf(bin, sizeof bin, "%s/published/ktt/Coulomb3d.bin", test_dir);
	put_bytes(bin, 16777216 * 4);
	CU_ASSERT_EQUAL(import_t1(json, yaml, &d), 0);
	free(stderr_end());
	CU_ASSERT_EQUAL(count_in(yaml, "  expected:"), 1);
	CU_ASSERT_EQUAL(count_in(yaml, "/published/ktt/Coulomb3d.bin\""), 1);
	unlink(bin);
	unlink(yaml);
	diags_free(&d);
}

/* KTT uploads every written argument before each run and Kernel Tuner copies the outputs back
 * before verifying: an output that the spec fills with data (KTT's CoulombSum3d adds to its
 * `grid`, filled with zeros) is restored before every launch, not left to add up launch after
 * launch; a pure output without a FillType (tests/t1/tuners.json's `out`) is poisoned instead,
 * and an input is neither. */
static void test_an_output_with_data_of_its_own_starts_every_launch_from_it(void)
{
	char yaml[256];
	snprintf(yaml, sizeof yaml, "%s/coulomb_restore.yaml", test_dir);
	diags d = {0};
	stderr_begin();
	CU_ASSERT_EQUAL_FATAL(import_t1(published_copy("ktt", "CoulombSum3dCudaScript.json"), yaml, &d), 0);
	diags_free(&d);
	config cfg;
	int rc = config_load(yaml, &cfg, &d);
	free(stderr_end());
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	for (size_t i = 0; i < d.n; i++)
		CU_ASSERT_PTR_NULL(strstr(d.msgs[i], "fill of its own")); /* the warning a restore answers */
	diags_free(&d);
	CU_ASSERT_EQUAL_FATAL(cfg.nargs, 9);
	CU_ASSERT(!strcmp(cfg.args[8].name, "grid") && cfg.args[8].output && cfg.args[8].restore);
	CU_ASSERT_EQUAL(cfg.args[8].fill, FILL_CONSTANT);
	CU_ASSERT(!cfg.args[0].restore && !cfg.args[1].restore && !cfg.args[0].output);
	config_free(&cfg);
	snprintf(yaml, sizeof yaml, "%s/tuners_restore.yaml", test_dir);
	CU_ASSERT_EQUAL_FATAL(import_t1("tests/t1/tuners.json", yaml, &d), 0);
	diags_free(&d);
	CU_ASSERT_EQUAL_FATAL(config_load(yaml, &cfg, &d), 0);
	CU_ASSERT(cfg.args[0].output && !cfg.args[0].restore && cfg.args[0].fill == FILL_ZEROS);
	config_free(&cfg);
	diags_free(&d);
	unlink(yaml);
}

/* An output with a fill of its own starts every launch from it, as Kernel Tuner and KTT reset
 * outputs: BAT's GEMM cgm and nbody's newBodyInfo and newVel (WriteOnly, Constant 0) are restored,
 * and the loader has no warning about a kernel that may read its last results. */
static void test_outputs_with_a_fill_are_reset_before_each_launch(void)
{
	char yaml[256];
	snprintf(yaml, sizeof yaml, "%s/reset.yaml", test_dir);
	const struct {
		const char *spec;
		int outputs;
	} cases[] = {{"GEMM-CAFF.json", 1}, {"nbody-CAFF.json", 2}, {"convolution-CAFF.json", 1}};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		diags d = {0};
		CU_ASSERT_EQUAL(import_t1(published_copy("bat", cases[i].spec), yaml, &d), 0);
		CU_ASSERT_EQUAL(count_in(yaml, "output: true, restore: true, fill: constant"), cases[i].outputs);
		for (size_t m = 0; m < d.n; m++)
			CU_ASSERT_PTR_NULL(strstr(d.msgs[m], "with a fill of its own"));
		diags_free(&d);
		unlink(yaml);
	}
}

int add_import_args_suite(void)
{
	CU_pSuite s = CU_add_suite("import_args", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "a reference file that is not there is noted", test_a_reference_file_that_is_not_there_is_noted);
	CU_add_test(s, "an output with data of its own starts every launch from it",
		    test_an_output_with_data_of_its_own_starts_every_launch_from_it);
	CU_add_test(s, "outputs with a fill are reset before each launch", test_outputs_with_a_fill_are_reset_before_each_launch);
	return 0;
}
