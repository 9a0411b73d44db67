/* test_fills.c: the host's generated fills give the documented values (docs/config.md: element i
 * of a random fill is splitmix64's finaliser of seed x 0x100000001B3 xor the finaliser of i), the
 * same on any number of threads; fills the host cannot reproduce exactly are refused. The values
 * below were computed by a separate implementation of the documented formula. */
#include <CUnit/CUnit.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fills.h"
#include "random.h"
#include "tests.h"

static void test_random_floats_are_the_documented_values(void)
{
	float f[4];
	CU_ASSERT_EQUAL_FATAL(fills_make(f, ELEM_FLOAT, "random", 4, 1, 0, 1), 0);
	const double want1[4] = {0.9706562757492065, 0.526968240737915, 0.3926788568496704, -0.3211175203323364};
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(f[i], (float)want1[i]);
	CU_ASSERT_EQUAL_FATAL(fills_make(f, ELEM_FLOAT, "random", 4, 2, 0, 1), 0);
	const double want2[4] = {0.402987003326416, -0.6270458698272705, -0.9372422695159912, 0.43103325366973877};
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(f[i], (float)want2[i]);
	CU_ASSERT_EQUAL(fills_bits(1, 0), 0xfc3e7736f216a954ull);
	CU_ASSERT_EQUAL(fills_bits(2, 1), 0x2fbcf6cd89c3570cull);
	double d[2];
	CU_ASSERT_EQUAL_FATAL(fills_make(d, ELEM_DOUBLE, "random", 2, 3, 0, 1), 0);
	CU_ASSERT_EQUAL(d[0], -0.3615363880659612);
	CU_ASSERT_EQUAL(d[1], 0.5592507667655315);
}

static void test_random_integers_are_small_and_documented(void)
{
	int32_t s[6];
	uint8_t u[6];
	CU_ASSERT_EQUAL_FATAL(fills_make(s, ELEM_INT32, "random", 6, 7, 0, 1), 0);
	CU_ASSERT_EQUAL_FATAL(fills_make(u, ELEM_UINT8, "random", 6, 7, 0, 1), 0);
	const int ws[6] = {-38, -12, -21, -17, -7, 26}, wu[6] = {12, 38, 29, 33, 43, 76};
	for (int i = 0; i < 6; i++) {
		CU_ASSERT_EQUAL(s[i], ws[i]);
		CU_ASSERT_EQUAL(u[i], wu[i]);
	}
}

/* The finaliser is splitmix64's step: lib/random.h's generator from state i gives it. */
static void test_the_mix_is_splitmix64(void)
{
	for (unsigned long long i = 0; i < 1000; i += 37) {
		unsigned long long state = i;
		CU_ASSERT_EQUAL(fills_mix(i), next_random(&state));
	}
}

/* Ranges split over threads meet exactly: every element is the formula's, whatever the split. */
static void test_threads_do_not_change_a_value(void)
{
	uint64_t n = (1u << 20) + 3;
	float *one = malloc(n * sizeof *one), *many = malloc(n * sizeof *many);
	CU_ASSERT_FATAL(one && many);
	CU_ASSERT_EQUAL(fills_make(one, ELEM_FLOAT, "random", n, 5, 0, 1), 0);
	memset(many, 0xFF, n * sizeof *many); /* NaNs where a range was left out */
	CU_ASSERT_EQUAL(fills_make(many, ELEM_FLOAT, "random", n, 5, 0, 7), 0);
	CU_ASSERT_EQUAL(memcmp(one, many, n * sizeof *one), 0);
	for (uint64_t i = 0; i < n; i += n / 5)
		CU_ASSERT_EQUAL(many[i], (float)(fills_bits(5, i) >> 40) * (2.0f / 16777216.0f) - 1.0f);
	CU_ASSERT_EQUAL(many[n - 1], (float)(fills_bits(5, n - 1) >> 40) * (2.0f / 16777216.0f) - 1.0f);
	free(one);
	free(many);
}

static void test_index_constant_and_zeros(void)
{
	uint64_t n = (1u << 24) + 3;
	float *f = malloc(n * sizeof *f);
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(fills_make(f, ELEM_FLOAT, "index", n, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(f[3], 3.0f);
	CU_ASSERT_EQUAL(f[n - 1], 16777218.0f);
	CU_ASSERT_EQUAL(f[n - 2], 16777216.0f); /* 2^24 + 1 rounds to even, as the GPU's conversion does */
	free(f);
	int64_t c[3] = {1, 1, 1};
	CU_ASSERT_EQUAL(fills_make(c, ELEM_INT64, "constant", 3, 0, -2.75, 1), 0);
	CU_ASSERT(c[0] == -2 && c[2] == -2);
	CU_ASSERT_EQUAL(fills_make(c, ELEM_INT64, "zeros", 2, 0, 0, 1), 0);
	CU_ASSERT(c[0] == 0 && c[1] == 0 && c[2] == -2);
}

/* normal goes through the GPU's libm, vector types through their base type: the caller copies
 * those from the GPU, and nothing is written. */
static void test_what_the_host_cannot_make_is_refused(void)
{
	float f[2] = {7, 7};
	CU_ASSERT_FALSE(fills_on_host("normal", ELEM_FLOAT));
	CU_ASSERT_FALSE(fills_on_host("expr", ELEM_FLOAT));
	CU_ASSERT_FALSE(fills_on_host("random", ELEM_FLOAT2));
	CU_ASSERT_TRUE(fills_on_host("random", ELEM_UINT64));
	CU_ASSERT_EQUAL(fills_make(f, ELEM_FLOAT, "normal", 2, 1, 0, 1), -1);
	CU_ASSERT_EQUAL(fills_make(f, ELEM_FLOAT4, "zeros", 2, 1, 0, 1), -1);
	CU_ASSERT(f[0] == 7 && f[1] == 7);
	/* a constant an integer type cannot hold: C leaves its conversion undefined, the GPU saturates */
	unsigned char u[2] = {7, 7};
	CU_ASSERT_EQUAL(fills_make(u, ELEM_UINT8, "constant", 2, 0, 300, 1), -1);
	CU_ASSERT_EQUAL(fills_make(u, ELEM_UINT8, "constant", 2, 0, -1, 1), -1);
	CU_ASSERT_EQUAL(fills_make(u, ELEM_UINT8, "constant", 2, 0, 0.0 / 0.0, 1), -1);
	CU_ASSERT(u[0] == 7 && u[1] == 7);
	CU_ASSERT_EQUAL(fills_make(u, ELEM_UINT8, "constant", 2, 0, 255.9, 1), 0);
	CU_ASSERT(u[0] == 255 && u[1] == 255);
	CU_ASSERT_EQUAL(fills_make(u, ELEM_UINT8, "constant", 2, 0, -0.5, 1), 0);
	CU_ASSERT(u[0] == 0 && u[1] == 0);
	float big[1];
	CU_ASSERT_EQUAL(fills_make(big, ELEM_FLOAT, "constant", 1, 0, 1e300, 1), 0); /* inf, as on the GPU */
}

int add_fills_suite(void)
{
	CU_pSuite s = CU_add_suite("fills", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "random floats are the documented values", test_random_floats_are_the_documented_values);
	CU_add_test(s, "random integers are small and documented", test_random_integers_are_small_and_documented);
	CU_add_test(s, "the mix is splitmix64", test_the_mix_is_splitmix64);
	CU_add_test(s, "threads do not change a value", test_threads_do_not_change_a_value);
	CU_add_test(s, "index, constant and zeros", test_index_constant_and_zeros);
	CU_add_test(s, "what the host cannot make is refused", test_what_the_host_cannot_make_is_refused);
	return 0;
}
