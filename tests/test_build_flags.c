/* test_build_flags.c: the one list of flags that decides a binary, as nvcc gets it and as the
 * results record it for a user's build: every -D of a define parameter, the register cap (none
 * for 0), build.flags, the constants of build.defines, -rdc for build.rdc, and the include
 * directories only where asked for. */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "build_flags.h"
#include "config.h"
#include "space.h"
#include "tests.h"

static void test_the_flags_of_a_configuration(void)
{
	config cfg;
	space sp;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(config_load("tests/kernels/recipe.yaml", &cfg, &d), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	/* the first configuration: TILE=8 UNROLL=4 bx=128 cap=32 (UNROLL reaches nvcc as a pragma) */
	char *text = build_flags_text(&cfg, space_config(&sp, 0));
	CU_ASSERT_STRING_EQUAL(text, "-DTILE=8 -maxrregcount=32 -O3 -use_fast_math -DK=3");
	free(text);
	size_t n;
	char **all = build_flags(&cfg, space_config(&sp, 0), 1, &n);
	CU_ASSERT_EQUAL_FATAL(n, 6);
	CU_ASSERT(!strncmp(all[2], "-I", 2) && strstr(all[2], "tests/kernels/inc"));
	CU_ASSERT_PTR_NULL(all[n]);
	for (size_t i = 0; i < n; i++)
		free(all[i]);
	free(all);
	/* a cap of 0 is no cap */
	for (size_t c = 0; c < sp.count; c++) {
		char *t = build_flags_text(&cfg, space_config(&sp, c));
		const value *v = space_config(&sp, c);
		CU_ASSERT_EQUAL(strstr(t, "-maxrregcount") != NULL, value_as_double(v[3]) != 0);
		free(t);
	}
	space_free(&sp);
	config_free(&cfg);
	/* relocatable device code comes first, as nvcc is given it */
	CU_ASSERT_EQUAL_FATAL(config_load("configs/nested_reduce.yaml", &cfg, &d), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	text = build_flags_text(&cfg, space_config(&sp, 0));
	CU_ASSERT(!strncmp(text, "-rdc=true ", 10));
	free(text);
	space_free(&sp);
	config_free(&cfg);
	diags_free(&d);
}

int add_build_flags_suite(void)
{
	CU_pSuite s = CU_add_suite("build_flags", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "the flags of a configuration", test_the_flags_of_a_configuration);
	return 0;
}
