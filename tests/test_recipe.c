/* test_recipe.c: the build recipe a tuned header carries: paths relative to the header's
 * directory, the winner's `#pragma unroll` factors written into the copy, the device runtime for
 * build.rdc, and a refusal where the results do not fit the config. (tests/recipe.sh builds every
 * shipped config's winner from it and compares the code with the tuned binary's.) */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "recipe.h"
#include "tests.h"

static void test_paths_are_relative_to_the_header(void)
{
	char *d = xasprintf("%s/recipe", test_dir);
	char *a = xasprintf("%s/a/b", d), *k = xasprintf("%s/kernels", d);
	char *mk = xasprintf("mkdir -p %s %s", a, k);
	CU_ASSERT_EQUAL_FATAL(system(mk), 0);
	struct {
		const char *from, *to, *want;
	} cases[] = {
		{"a/b", "kernels/k.cu", "../../kernels/k.cu"},
		{"a/b", "a/b/k.cu", "k.cu"},
		{"a/b", "a", ".."},
		{"a", "a/b", "b"},
		{"a/b", "a/b", ""},
		{"kernels", "a/b/x.h", "../a/b/x.h"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *from = xasprintf("%s/%s", d, cases[i].from), *to = xasprintf("%s/%s", d, cases[i].to);
		char *got = recipe_relative(from, to);
		CU_ASSERT_STRING_EQUAL(got, cases[i].want);
		free(got);
		free(from);
		free(to);
	}
	/* no common directory but the root: the absolute path */
	char *got = recipe_relative(a, "/usr/include/stdio.h");
	CU_ASSERT_STRING_EQUAL(got, "/usr/include/stdio.h");
	free(got);
	char *c1 = recipe_copy_name("out/x_tuned.h", NULL), *c2 = recipe_copy_name("x_tuned.h", "NVIDIA_H100");
	CU_ASSERT_STRING_EQUAL(c1, "x_tuned.cu");
	CU_ASSERT_STRING_EQUAL(c2, "x_tuned.NVIDIA_H100.cu");
	free(c1);
	free(c2);
	free(mk);
	free(a);
	free(k);
	free(d);
}

/* A results file of recipe.yaml's parameters with one row of the given values. */
static void results(const char *path, const char *values, const char *flags)
{
	char *text = xasprintf("TILE,UNROLL,bx,cap,blockDim.x,registers,static_smem_bytes,nvcc_flags,code_hash\n%s,128,30,0,%s,0123456789abcdef\n",
			       values, flags);
	put_file(path, text);
	free(text);
}

static void test_a_pragma_kernel_gets_its_copy(void)
{
	config cfg;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(config_load("tests/kernels/recipe.yaml", &cfg, &d), 0);
	CU_ASSERT(cfg.rewrite_pragmas);
	char *csv = xasprintf("%s/recipe.csv", test_dir), *header = xasprintf("%s/out/recipe_tuned.h", test_dir);
	results(csv, "8,4,128,32", "-DTILE=8 -maxrregcount=32 -O3 -use_fast_math -DK=3");
	table t;
	CU_ASSERT_EQUAL_FATAL(table_load(csv, &t, &d), 0);
	recipe r;
	CU_ASSERT_EQUAL_FATAL(recipe_of_row(&cfg, &t, 0, header, "recipe_tuned.cu", &r, &d), 0);
	CU_ASSERT_STRING_EQUAL(r.flags, "-DTILE=8 -maxrregcount=32 -O3 -use_fast_math -DK=3");
	CU_ASSERT_STRING_EQUAL(r.link, "");
	CU_ASSERT_STRING_EQUAL(r.source, "recipe_tuned.cu");
	CU_ASSERT_EQUAL(r.registers, 30);
	CU_ASSERT_EQUAL(r.static_smem, 0);
	CU_ASSERT_STRING_EQUAL(r.code_hash, "0123456789abcdef");
	CU_ASSERT_PTR_NOT_NULL(r.copy_text && strstr(r.copy_text, "\n#pragma unroll 4\n"));
	CU_ASSERT_PTR_NULL(r.copy_text ? strstr(r.copy_text, "\n#pragma unroll UNROLL") : "");
	/* build.include, then the kernel's own directory for the copy's quoted includes */
	CU_ASSERT_EQUAL_FATAL(r.nincludes, 2);
	CU_ASSERT(strstr(r.mk_includes[0], "tests/kernels/inc") != NULL);
	recipe_free(&r);
	table_free(&t);

	/* 0: no pragma at all, the line kept so line numbers stay */
	results(csv, "1,0,128,0", "-DTILE=1 -O3 -use_fast_math -DK=3");
	CU_ASSERT_EQUAL_FATAL(table_load(csv, &t, &d), 0);
	CU_ASSERT_EQUAL_FATAL(recipe_of_row(&cfg, &t, 0, header, "recipe_tuned.cu", &r, &d), 0);
	CU_ASSERT_PTR_NULL(strstr(r.copy_text, "\n#pragma unroll"));
	recipe_free(&r);
	table_free(&t);

	/* a value the config does not list: no copy can be what was tuned */
	results(csv, "8,3,128,32", "-DTILE=8");
	CU_ASSERT_EQUAL_FATAL(table_load(csv, &t, &d), 0);
	CU_ASSERT_EQUAL(recipe_of_row(&cfg, &t, 0, header, "recipe_tuned.cu", &r, &d), -1);
	CU_ASSERT_PTR_NOT_NULL(d.n ? strstr(d.msgs[d.n - 1], "parameter values are not the config's") : NULL);
	recipe_free(&r);
	table_free(&t);
	config_free(&cfg);
	diags_free(&d);
	free(csv);
	free(header);
}

static void test_rdc_links_the_device_runtime(void)
{
	char *csv = xasprintf("%s/rdc.csv", test_dir);
	put_file(csv, "CUTOFF,blockDim.x,nvcc_flags,registers\n2,64,-rdc=true -DCUTOFF=2 -O3,\n");
	table t;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(table_load(csv, &t, &d), 0);
	recipe r;
	/* without the config, the source is unknown but the flags stand */
	CU_ASSERT_EQUAL(recipe_of_row(NULL, &t, 0, "x_tuned.h", "x_tuned.cu", &r, &d), 0);
	CU_ASSERT_STRING_EQUAL(r.link, "-lcudadevrt");
	CU_ASSERT_STRING_EQUAL(r.source, "");
	CU_ASSERT_EQUAL(r.registers, -1);
	recipe_free(&r);
	table_free(&t);
	diags_free(&d);
	free(csv);
}

int add_recipe_suite(void)
{
	CU_pSuite s = CU_add_suite("recipe", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "paths are relative to the header", test_paths_are_relative_to_the_header);
	CU_add_test(s, "a pragma kernel gets its copy", test_a_pragma_kernel_gets_its_copy);
	CU_add_test(s, "rdc links the device runtime", test_rdc_links_the_device_runtime);
	return 0;
}
