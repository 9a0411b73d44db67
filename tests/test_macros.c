/* test_macros.c: the tuned header's macro names (macros.c), and the clashes the loader refuses
 * before a run is spent. */
#include <CUnit/CUnit.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "macros.h"
#include "tests.h"

static void test_macro_names(void)
{
	char *m = macro_name("summatrix", "block_x");
	CU_ASSERT_STRING_EQUAL(m, "SUMMATRIX_BLOCK_X");
	free(m);
	m = macro_name("my-kernel", "tile.w");
	CU_ASSERT_STRING_EQUAL(m, "MY_KERNEL_TILE_W");
	free(m);
}

/* Two parameters of one macro, and one of a macro the header defines itself (a plan's only with
 * a plan), are named with where they are. */
static void test_clashing_macros_are_named(void)
{
	size_t at, other;
	char *fine[] = {"block_x", "block_y"};
	CU_ASSERT_PTR_NULL(macro_clash("k", fine, 2, 0, &at, &other));
	char *twins[] = {"tile", "tile_w", "tile.w"};
	char *why = macro_clash("k", twins, 3, 0, &at, &other);
	CU_ASSERT_PTR_NOT_NULL_FATAL(why);
	CU_ASSERT_EQUAL(at, 2);
	CU_ASSERT_EQUAL(other, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "K_TILE_W"));
	free(why);
	char *reserved[] = {"x", "time_ms"};
	why = macro_clash("k", reserved, 2, 0, &at, &other);
	CU_ASSERT_PTR_NOT_NULL_FATAL(why);
	CU_ASSERT_EQUAL(at, 1);
	CU_ASSERT_EQUAL(other, SIZE_MAX);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "K_TIME_MS"));
	free(why);
	char *streams[] = {"plan_streams"};
	CU_ASSERT_PTR_NULL(macro_clash("k", streams, 1, 0, &at, &other));
	why = macro_clash("k", streams, 1, 1, &at, &other);
	CU_ASSERT_PTR_NOT_NULL(why);
	free(why);
}

int add_macros_suite(void)
{
	CU_pSuite s = CU_add_suite("macros", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "macro names", test_macro_names);
	CU_add_test(s, "clashing macros are named", test_clashing_macros_are_named);
	return CU_get_error() == CUE_SUCCESS ? 0 : -1;
}
