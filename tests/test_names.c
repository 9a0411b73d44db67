/* test_names.c: a configuration as messages name it (names.c). */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "names.h"
#include "tests.h"

static void test_a_configuration_is_described_by_its_values(void)
{
	param ps[] = {{.name = "block_x"}, {.name = "scale"}};
	config cfg = {.params = ps, .nparams = 2};
	value vals[] = {value_int(32), value_float(0.5)};
	char *desc = space_describe(&cfg, vals);
	CU_ASSERT_STRING_EQUAL(desc, "block_x=32 scale=0.5");
	free(desc);
	cfg.nparams = 0;
	desc = space_describe(&cfg, vals);
	CU_ASSERT_STRING_EQUAL(desc, "");
	free(desc);
}

int add_names_suite(void)
{
	CU_pSuite s = CU_add_suite("names", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "a configuration is described by its values", test_a_configuration_is_described_by_its_values);
	return CU_get_error() == CUE_SUCCESS ? 0 : -1;
}
