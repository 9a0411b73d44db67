/* test_occupancy.c: theoretical occupancy, including the seed's worked example done right. */
#include <CUnit/CUnit.h>

#include "occupancy.h"
#include "tests.h"

static double occ(int cc, int threads, int regs, size_t smem, size_t dyn, int *blocks)
{
	occupancy_input in = {threads, regs, smem, dyn, 0};
	occupancy_result r;
	CU_ASSERT_EQUAL(occupancy_compute(cc, &in, &r), 0);
	if (blocks)
		*blocks = r.active_blocks;
	return r.occupancy;
}

/* Seed 01: compute capability 7.0, 37 registers per thread. The seed's 0.8125 and 0.78125
 * ignore the 256-registers-per-warp granularity: 37 x 32 = 1184 rounds up to 1280. */
static void test_seed_example_with_register_granularity(void)
{
	int blocks;
	CU_ASSERT_DOUBLE_EQUAL(occ(70, 128, 37, 0, 0, &blocks), 0.75, 1e-12);
	CU_ASSERT_EQUAL(blocks, 12);
	CU_ASSERT_DOUBLE_EQUAL(occ(70, 320, 37, 0, 0, &blocks), 0.625, 1e-12);
	CU_ASSERT_EQUAL(blocks, 4);
}

static void test_sm90_block_limits(void)
{
	int blocks;
	/* 32-thread blocks: at most 32 blocks per SM on Hopper, so half of 64 warps */
	CU_ASSERT_DOUBLE_EQUAL(occ(90, 32, 12, 0, 0, &blocks), 0.5, 1e-12);
	CU_ASSERT_EQUAL(blocks, 32);
	CU_ASSERT_DOUBLE_EQUAL(occ(90, 256, 12, 0, 0, &blocks), 1.0, 1e-12);
	CU_ASSERT_EQUAL(blocks, 8);
	/* 128 registers per thread: 65536 / (128 x 256 threads) = 2 blocks = 16 warps */
	CU_ASSERT_DOUBLE_EQUAL(occ(90, 256, 128, 0, 0, &blocks), 0.25, 1e-12);
}

static void test_shared_memory_limits_blocks(void)
{
	int blocks;
	/* 100 KB of dynamic shared memory per block + 1 KB reserved: 2 blocks fit in 228 KB */
	occ(90, 128, 16, 0, 100 * 1024, &blocks);
	CU_ASSERT_EQUAL(blocks, 2);
	occupancy_input in = {128, 16, 0, 100 * 1024, 0};
	occupancy_result r;
	occupancy_compute(90, &in, &r);
	CU_ASSERT_STRING_EQUAL(r.limit, "shared memory");
}

static void test_oversized_block_cannot_run(void)
{
	int blocks;
	CU_ASSERT_DOUBLE_EQUAL(occ(90, 2048, 16, 0, 0, &blocks), 0.0, 1e-12);
	CU_ASSERT_EQUAL(blocks, 0);
}

static void test_arch_parsing(void)
{
	CU_ASSERT_EQUAL(arch_parse("sm_90"), 90);
	CU_ASSERT_EQUAL(arch_parse("sm_100"), 100);
	CU_ASSERT_EQUAL(arch_parse("sm_9x"), -1);
	CU_ASSERT_EQUAL(arch_parse("compute_90"), -1);
	CU_ASSERT(arch_known(90));
	CU_ASSERT(!arch_known(91));
	occupancy_input in = {128, 16, 0, 0, 0};
	occupancy_result r;
	CU_ASSERT_EQUAL(occupancy_compute(91, &in, &r), -1);
}

int add_occupancy_suite(void)
{
	CU_pSuite s = CU_add_suite("occupancy", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "seed example with register granularity", test_seed_example_with_register_granularity);
	CU_add_test(s, "sm_90 block limits", test_sm90_block_limits);
	CU_add_test(s, "shared memory limits blocks", test_shared_memory_limits_blocks);
	CU_add_test(s, "oversized block cannot run", test_oversized_block_cannot_run);
	CU_add_test(s, "arch parsing", test_arch_parsing);
	return 0;
}
