/* test_occupancy.c: theoretical occupancy, including the seed's worked example done right. */
#include <CUnit/CUnit.h>
#include <stdlib.h>

#include "compile.h"
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

/* A tiled convolution's entry as ptxas reports it (sm_90): 72 registers, 16 KiB of static shared
 * memory. */
static const char *conv_log =
	"ptxas info    : 0 bytes gmem, 1156 bytes cmem[3]\n"
	"ptxas info    : Compiling entry function 'conv2d' for 'sm_90'\n"
	"ptxas info    : Function properties for conv2d\n"
	"    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
	"ptxas info    : Used 72 registers, used 1 barriers, 16384 bytes smem, 392 bytes cmem[0]\n";

/* What the launch would be refused for, from ptxas's report and the device's limits alone. */
static const char *predict(const kernel_resources *k, long long bx, long long by, size_t dyn, long long gy, char *why)
{
	long long block[3] = {bx, by, 1}, grid[3] = {100, gy, 1};
	occupancy_input in = {(int)(bx * by), k->registers, k->static_smem, dyn, k->barriers};
	return launch_predict(90, &in, block, grid, why, 200);
}

static void test_launch_failures_are_known_before_launching(void)
{
	kernel_resources k;
	char *cands, why[200];
	CU_ASSERT_EQUAL_FATAL(ptxas_parse(conv_log, "conv2d", &k, &cands), 0);
	free(k.symbol);
	free(cands);
	/* 72 registers: 2304 per warp, so 28 warps fit in a block's 65536 and 32 do not */
	CU_ASSERT_PTR_NULL(predict(&k, 32, 28, 0, 1, why));
	CU_ASSERT_STRING_EQUAL(predict(&k, 32, 32, 0, 1, why), "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES");
	CU_ASSERT_STRING_EQUAL(why, "72 registers x 1024 threads take 73728 of the 65536 registers a block may use "
				    "(32 warps of 2304)");
	/* 64 registers x 1024 threads is exactly the register file a block may use */
	kernel_resources k64 = k;
	k64.registers = 64;
	CU_ASSERT_PTR_NULL(predict(&k64, 1024, 1, 0, 1, why));
	/* threads, block and grid dimensions over the device's limits */
	CU_ASSERT_STRING_EQUAL(predict(&k, 64, 32, 0, 1, why), "CUDA_ERROR_INVALID_VALUE");
	CU_ASSERT_STRING_EQUAL(why, "2048 threads per block: the device allows 1024");
	CU_ASSERT_STRING_EQUAL(predict(&k, 2048, 1, 0, 1, why), "CUDA_ERROR_INVALID_VALUE");
	CU_ASSERT_STRING_EQUAL(why, "block.x of 2048: the device allows 1024");
	CU_ASSERT_STRING_EQUAL(predict(&k, 32, 8, 0, 70000, why), "CUDA_ERROR_INVALID_VALUE");
	CU_ASSERT_STRING_EQUAL(why, "grid.y of 70000: the device allows 65535");
	/* shared memory: static and dynamic together against sm_90's opt-in maximum */
	CU_ASSERT_PTR_NULL(predict(&k, 32, 8, 232448 - 16384, 1, why));
	CU_ASSERT_STRING_EQUAL(predict(&k, 32, 8, 232448 - 16384 + 1, 1, why), "CUDA_ERROR_INVALID_VALUE");
	CU_ASSERT_STRING_EQUAL(why, "232449 bytes of shared memory per block (16384 static + 216065 dynamic): sm_90 "
				    "allows 232448");
	/* an architecture without a table: nothing is known, the launch decides */
	long long block[3] = {2048, 1, 1}, grid[3] = {1, 1, 1};
	occupancy_input in = {2048, 72, 0, 0, 1};
	CU_ASSERT_PTR_NULL(launch_predict(61, &in, block, grid, why, sizeof why));
}

static void test_arch_parsing(void)
{
	CU_ASSERT_EQUAL(arch_parse("sm_90"), 90);
	CU_ASSERT_EQUAL(arch_parse("sm_100"), 100);
	CU_ASSERT_EQUAL(arch_parse("sm_120"), 120);
	/* two or three digits, nothing else: what nvcc's -arch takes of the sm_ kind */
	static const char *const bad[] = {"sm_9x", "compute_90", "sm_9", "sm_", "sm_1000", "sm_090", "sm_ 90",
					  "sm_+90", "sm_90 ", "sm_-90", "SM_90", "90", ""};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		if (arch_parse(bad[i]) != -1)
			fprintf(stderr, "\n  arch_parse(\"%s\") took it\n", bad[i]);
		CU_ASSERT_EQUAL(arch_parse(bad[i]), -1);
	}
	CU_ASSERT_EQUAL(arch_parse(NULL), -1);
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
	CU_add_test(s, "launch failures are known before launching", test_launch_failures_are_known_before_launching);
	return 0;
}
