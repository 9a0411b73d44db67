/* test_import_out.c: an import writes its config only over nothing or an earlier import's, and
 * checks what it wrote as `validate` does, keeping a config that fails for its messages. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import_out.h"
#include "tests.h"

#define KERNEL "kernel: {source: k.cu, entry: k}\narguments: [{name: a, type: float, count: 4, output: true}]\n" \
	       "launch: {block: [32], grid: [1]}\n"

static void paths(char *json, char *yaml, size_t size)
{
	snprintf(json, size, "%s/spec.json", test_dir);
	snprintf(yaml, size, "%s/spec.yaml", test_dir);
	char kernel[256];
	snprintf(kernel, sizeof kernel, "%s/k.cu", test_dir);
	put_file(kernel, "extern \"C\" __global__ void k(float *a) { a[0] = 1; }\n");
}

static void test_an_import_writes_over_nothing_but_an_import(void)
{
	char json[256], yaml[256];
	paths(json, yaml, sizeof yaml);
	put_file(yaml, "my notes\n");
	const char *text = IMPORT_MARK "spec.json by autotune import.\nname: s\n" KERNEL "space: {x: [1, 2]}\n"
				       "build: {defines: [x]}\n";
	diags d = {0};
	CU_ASSERT_EQUAL(import_write(json, yaml, text, strlen(text), &d), -1);
	CU_ASSERT(d.n == 1 && strstr(d.msgs[0], "the file exists and is not a config that autotune import wrote"));
	char *kept = read_text(yaml);
	CU_ASSERT_STRING_EQUAL(kept ? kept : "", "my notes\n");
	free(kept);
	diags_free(&d);
	/* an earlier import's config is replaced */
	put_file(yaml, IMPORT_MARK "spec.json by autotune import.\nname: old\n");
	CU_ASSERT_EQUAL(import_write(json, yaml, text, strlen(text), &d), 0);
	CU_ASSERT_EQUAL(d.n, 0);
	CU_ASSERT_EQUAL(count_in(yaml, "name: s\n"), 1);
	diags_free(&d);
	unlink(yaml);
}

static void test_a_written_config_that_is_not_valid_is_kept_and_said(void)
{
	char json[256], yaml[256];
	paths(json, yaml, sizeof yaml);
	unlink(yaml);
	const char *text = IMPORT_MARK "spec.json by autotune import.\nname: s\n" KERNEL "space: {x: [0, 1]}\n"
				       "build: {defines: [x]}\nconstraints: [\"1 / x\"]\n";
	diags d = {0};
	stderr_begin();
	CU_ASSERT_EQUAL(import_write(json, yaml, text, strlen(text), &d), -1);
	free(stderr_end());
	CU_ASSERT(d.n >= 2 && strstr(d.msgs[0], "spec.yaml: imported from ") &&
		  strstr(d.msgs[0], "spec.json, but it is not a valid config"));
	CU_ASSERT(d.n >= 2 && strstr(d.msgs[1], "division by zero"));
	CU_ASSERT_EQUAL(access(yaml, F_OK), 0);
	diags_free(&d);
	unlink(yaml);
}

/* BAT's FFT has 8x10^11 valid configurations: imported, with a note that runs search a sample. */
static void test_a_space_too_large_to_list_is_noted(void)
{
	char json[256], yaml[256], text[2048];
	paths(json, yaml, sizeof yaml);
	unlink(yaml);
	snprintf(text, sizeof text, IMPORT_MARK "spec.json by autotune import.\nname: s\n" KERNEL "space: {");
	for (int p = 0; p < 11; p++)
		snprintf(text + strlen(text), sizeof text - strlen(text), "%sp%d: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]",
			 p ? ", " : "", p);
	strcat(text, "}\nbuild: {defines: [p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10]}\n");
	diags d = {0};
	CU_ASSERT_EQUAL(import_write(json, yaml, text, strlen(text), &d), 0);
	CU_ASSERT(d.n == 1 && strstr(d.msgs[0], "note: the space has 100000000000 valid configurations, more than can be "
						"listed: a run with --budget N (or Ns) searches a uniform sample of 65536"));
	diags_free(&d);
	unlink(yaml);
}

int add_import_out_suite(void)
{
	CU_pSuite s = CU_add_suite("import_out", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "an import writes over nothing but an import", test_an_import_writes_over_nothing_but_an_import);
	CU_add_test(s, "a written config that is not valid is kept and said",
		    test_a_written_config_that_is_not_valid_is_kept_and_said);
	CU_add_test(s, "a space too large to list is noted", test_a_space_too_large_to_list_is_noted);
	return 0;
}
