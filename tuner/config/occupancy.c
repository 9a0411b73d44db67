/* occupancy.c: per-architecture SM resources and the call into cuda_occupancy.h, which
 * applies the register allocation granularity (256 per warp) that back-of-envelope figures
 * miss (the execution-configuration notes' worked example gets it wrong). */
#include "occupancy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cuda_occupancy.h is a C++-friendly header that also compiles as C; its static inline helpers
 * trip -Wunused and friends, so it is included as a system header (see Makefile). */
#include <cuda_occupancy.h>

#include "banned.h"

/* SM resources per compute capability, from the CUDA C Programming Guide's "Technical
 * Specifications" table and cudaGetDeviceProperties on the devices. */
static const struct {
	int cc;
	int max_threads_sm;
	size_t smem_sm;          /* largest carveout, bytes */
	size_t smem_block_optin;
	size_t smem_reserved;    /* the driver's per-block reservation */
} archs[] = {
	{70, 2048, 98304, 98304, 0},
	{72, 2048, 98304, 98304, 0},
	{75, 1024, 65536, 65536, 0},
	{80, 2048, 167936, 166912, 1024},
	{86, 1536, 102400, 101376, 1024},
	{87, 1536, 167936, 166912, 1024},
	{89, 1536, 102400, 101376, 1024},
	{90, 2048, 233472, 232448, 1024},
	{100, 2048, 233472, 232448, 1024},
	{103, 2048, 233472, 232448, 1024},
	{120, 1536, 102400, 101376, 1024},
};

int arch_parse(const char *arch)
{
	if (!arch || strncmp(arch, "sm_", 3))
		return -1;
	/* digits only: sscanf's %d would also take "sm_ 90", "sm_+90" and "sm_090" */
	const char *v = arch + 3;
	size_t n = strspn(v, "0123456789");
	if (n < 2 || n > 3 || v[n] || v[0] == '0')
		return -1;
	/* "sm_90" -> 90, "sm_100" -> 100: the last digit is the minor version */
	return (int)strtol(v, NULL, 10);
}

static int find(int cc)
{
	for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
		if (archs[i].cc == cc)
			return (int)i;
	return -1;
}

int arch_known(int cc) { return find(cc) >= 0; }

int occupancy_compute(int cc, const occupancy_input *in, occupancy_result *out)
{
	int a = find(cc);
	memset(out, 0, sizeof *out);
	out->limit = "";
	if (a < 0)
		return -1;
	cudaOccDeviceProp prop;
	memset(&prop, 0, sizeof prop);
	prop.computeMajor = cc / 10;
	prop.computeMinor = cc % 10;
	prop.maxThreadsPerBlock = 1024;
	prop.maxThreadsPerMultiprocessor = archs[a].max_threads_sm;
	prop.regsPerBlock = 65536;
	prop.regsPerMultiprocessor = 65536;
	prop.warpSize = 32;
	prop.sharedMemPerBlock = 49152;
	prop.sharedMemPerMultiprocessor = archs[a].smem_sm;
	prop.numSms = 1;
	prop.sharedMemPerBlockOptin = archs[a].smem_block_optin;
	prop.reservedSharedMemPerBlock = archs[a].smem_reserved;

	cudaOccFuncAttributes attr;
	memset(&attr, 0, sizeof attr);
	attr.maxThreadsPerBlock = 1024;
	attr.numRegs = in->registers;
	attr.sharedSizeBytes = in->static_smem;
	attr.partitionedGCConfig = PARTITIONED_GC_OFF;
	attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
	attr.maxDynamicSharedSizeBytes = in->dynamic_smem;
	attr.numBlockBarriers = in->barriers > 0 ? in->barriers : 1;

	/* Zero-initialised state would ask for the smallest shared-memory carveout and cut
	 * occupancy of small blocks by 4x; the driver's default is "no preference". */
	cudaOccDeviceState state;
	memset(&state, 0, sizeof state);
	state.cacheConfig = CACHE_PREFER_NONE;
	state.carveoutConfig = SHAREDMEM_CARVEOUT_DEFAULT;

	cudaOccResult res;
	memset(&res, 0, sizeof res);
	if (in->threads <= 0 || in->threads > 1024 ||
	    cudaOccMaxActiveBlocksPerMultiprocessor(&res, &prop, &attr, &state, in->threads, in->dynamic_smem) !=
		    CUDA_OCC_SUCCESS) {
		out->limit = "block size";
		return 0;
	}
	int warps_per_block = (in->threads + 31) / 32;
	out->active_blocks = res.activeBlocksPerMultiprocessor;
	out->occupancy = (double)(out->active_blocks * warps_per_block) / (archs[a].max_threads_sm / 32);
	unsigned f = res.limitingFactors;
	out->limit = (f & OCC_LIMIT_REGISTERS) ? "registers"
		   : (f & OCC_LIMIT_SHARED_MEMORY) ? "shared memory"
		   : (f & OCC_LIMIT_WARPS) ? "warps"
		   : (f & OCC_LIMIT_BLOCKS) ? "blocks"
		   : (f & OCC_LIMIT_BARRIERS) ? "barriers" : "";
	return 0;
}

const char *launch_predict(int cc, const occupancy_input *in, const long long block[3], const long long grid[3],
			   char *why, size_t len)
{
	static const char invalid[] = "CUDA_ERROR_INVALID_VALUE", resources[] = "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES";
	int a = find(cc);
	if (a < 0)
		return NULL;
	/* the limits every architecture of the table shares (CUDA C Programming Guide, Technical
	 * Specifications): block 1024 x 1024 x 64 and 1024 threads, grid (2^31 - 1) x 65535 x 65535 */
	static const long long block_max[3] = {1024, 1024, 64}, grid_max[3] = {2147483647LL, 65535, 65535};
	static const char axis[3] = {'x', 'y', 'z'};
	for (int i = 0; i < 3; i++) {
		if (block[i] > block_max[i]) {
			snprintf(why, len, "block.%c of %lld: the device allows %lld", axis[i], block[i], block_max[i]);
			return invalid;
		}
		if (grid[i] > grid_max[i]) {
			snprintf(why, len, "grid.%c of %lld: the device allows %lld", axis[i], grid[i], grid_max[i]);
			return invalid;
		}
	}
	if (in->threads > 1024) {
		snprintf(why, len, "%d threads per block: the device allows 1024", in->threads);
		return invalid;
	}
	size_t smem = in->static_smem + in->dynamic_smem;
	if (smem > archs[a].smem_block_optin) {
		snprintf(why, len, "%zu bytes of shared memory per block (%zu static + %zu dynamic): sm_%d allows %zu", smem,
			 in->static_smem, in->dynamic_smem, cc, archs[a].smem_block_optin);
		return invalid;
	}
	int warps = (in->threads + 31) / 32, per_warp = (in->registers * 32 + 255) / 256 * 256;
	if ((long long)per_warp * warps > 65536) {
		snprintf(why, len, "%d registers x %d threads take %lld of the 65536 registers a block may use (%d warps of %d)",
			 in->registers, in->threads, (long long)per_warp * warps, warps, per_warp);
		return resources;
	}
	occupancy_result occ;
	if (occupancy_compute(cc, in, &occ) == 0 && occ.active_blocks == 0 && in->threads > 0) {
		snprintf(why, len, "not one block fits on an SM (limited by %s)", *occ.limit ? occ.limit : "its resources");
		return resources;
	}
	return NULL;
}
