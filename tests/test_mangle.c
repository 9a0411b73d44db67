/* test_mangle.c: a templated entry ("k<__half, 256>") against the symbols nvcc 12 wrote for real
 * instances (mangle.c): the instance it names matches, with the spellings C++ allows (a typedef of
 * the CUDA headers, spacing, a scope, arguments the mangling abbreviates); another instance,
 * another kernel, or a symbol this reader cannot read does not. */
#include <CUnit/CUnit.h>
#include <stdio.h>

#include "mangle.h"
#include "tests.h"

static void test_a_template_id_names_its_instance(void)
{
	static const struct {
		const char *symbol, *entry;
		int match;
	} cases[] = {
		/* from `nvcc -cubin -Xptxas -v` of instances taken by address */
		{"_Z1kI6__halfLi256EEvPKT_PS1_i", "k<__half, 256>", 1},
		{"_Z1kI6__halfLi256EEvPKT_PS1_i", "k<half,256>", 1},
		{"_Z1kI6__halfLi256EEvPKT_PS1_i", "k< __half ,  256 >", 1},
		{"_Z1kI6__halfLi256EEvPKT_PS1_i", "k<__half, 128>", 0},
		{"_Z1kI6__halfLi256EEvPKT_PS1_i", "k<float, 256>", 0},
		{"_Z1kI6__halfLi256EEvPKT_PS1_i", "k<__half>", 0},
		{"_Z1kI6__halfLi256EEvPKT_PS1_i", "k<__half, 256, 1>", 0},
		{"_Z1kI6__halfLi256EEvPKT_PS1_i", "kk<__half, 256>", 0},
		{"_Z1kIjLi128EEvPKT_PS0_i", "k<unsigned int, 128>", 1},
		{"_Z1kIjLi128EEvPKT_PS0_i", "k<unsigned, 128>", 1},
		{"_Z1kIjLi128EEvPKT_PS0_i", "k<uint32_t, 128>", 1},
		{"_Z1kIjLi128EEvPKT_PS0_i", "k<int, 128>", 0},
		{"_ZN2ns1gIfEEvPT_", "ns::g<float>", 1},
		{"_ZN2ns1gIfEEvPT_", "g<float>", 0},
		{"_Z6reduceIfLin4ELb1EEvPf", "reduce<float, -4, true>", 1},
		{"_Z6reduceIfLin4ELb1EEvPf", "reduce<float, -4, false>", 0},
		{"_Z6reduceIfLi4ELb1EEvPf", "reduce<float, -4, true>", 0},
		{"_Z4copyIPKfEvT_", "copy<const float *>", 1},
		{"_Z4copyI13__nv_bfloat16EvT_", "copy<nv_bfloat16>", 1},
		/* a repeated class type, pointer or scope is abbreviated (S_, S0_, ...), as nvcc wrote these */
		{"_Z4pairI6__halfS0_EvPT_PT0_", "pair<__half, __half>", 1},
		{"_Z4pairI6__halfS0_EvPT_PT0_", "pair<__half, float>", 0},
		{"_Z4pairIPKfS1_EvPT_PT0_", "pair<const float*, const float*>", 1},
		{"_Z3triIN2ns1vES1_6__halfEvT_T0_T1_", "tri<ns::v, ns::v, __half>", 1},
		{"_Z3triIPN2ns1vE6__halfS2_EvT_T0_T1_", "tri<ns::v*, __half, ns::v*>", 1},
		{"_Z3triIPN2ns1vE6__halfS2_EvT_T0_T1_", "tri<ns::v*, __half, ns::v>", 0},
		/* one that names no candidate met is no match */
		{"_Z4pairI6__halfS5_EvT_", "pair<__half, __half>", 0},
		/* not a template-id, or not a mangled symbol */
		{"_Z1kI6__halfLi256EEvPKT_PS1_i", "k", 0},
		{"k", "k<float>", 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		int got = mangle_is_instance(cases[i].symbol, cases[i].entry);
		if (got != cases[i].match)
			fprintf(stderr, "\n  %s vs %s: %d\n", cases[i].symbol, cases[i].entry, got);
		CU_ASSERT_EQUAL(got, cases[i].match);
	}
	CU_ASSERT(mangle_is_template_id("k<float, 2>"));
	CU_ASSERT(!mangle_is_template_id("k"));
	CU_ASSERT(!mangle_is_template_id("<float>"));
	CU_ASSERT(!mangle_is_template_id("k<float"));
}

int add_mangle_suite(void)
{
	CU_pSuite s = CU_add_suite("mangle", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "a template-id names its instance", test_a_template_id_names_its_instance);
	return 0;
}
