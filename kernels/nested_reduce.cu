// Nested (dynamic-parallelism) reductions (the reduction notes' recursive reduce), written for
// CDP2, the only dynamic parallelism of CUDA 12 on sm_90: a kernel can no longer wait for the
// grids it launches (device-side cudaDeviceSynchronize is gone), so each level hands the rest of
// the work to a grid that runs after it instead of waiting for one.
//
// Both entries reduce in place and leave one partial sum per top-level block in g_odata (block b
// covers g_idata[b * dim, (b + 1) * dim), dim a power of two): the config checks that these add
// up to the input's sum. Once a block's live elements are CUTOFF or fewer it reduces them on its
// own instead of launching another level (CUTOFF >= dim: no nesting at all).
//
//   nestedReduce1  one child grid per block: each level halves its block's elements with half
//                  of its threads (the other half idle), then one thread launches a grid of one
//                  block with half the threads to go on. Launched with dim threads per block.
//   nestedReduce2  the parent's block size (dim) passed down: each level is one grid of all the
//                  blocks, each thread adding one pair, and the next level is a single grid of
//                  half the threads per block, tail-launched by the first thread of the grid, so
//                  it starts once every block of this level is done. Launched with dim / 2
//                  threads per block.
//
// A device-side launch can fail (too many launches pending, nesting deeper than the device
// allows): the launching thread then records the error in autotune_device_error, which the
// worker reads after each run and reports as a launch-error naming it (see docs/config.md,
// Relocatable device code), rather than leaving a sum that is merely wrong.

#ifndef CUTOFF
#define CUTOFF 2
#endif

__device__ int autotune_device_error;

// After a device-side launch: the first failure is kept.
__device__ static void check_launch(void)
{
	cudaError_t e = cudaGetLastError();
	if (e != cudaSuccess)
		atomicCAS(&autotune_device_error, 0, (int)e);
}

// A block sums `live` consecutive elements of part (live a power of two, at most twice its
// threads) with interleaved pairs and writes the sum to *sum.
__device__ static void reduce_block(int *part, unsigned int live, int *sum)
{
	unsigned int tid = threadIdx.x;
	for (unsigned int half = live / 2; half > 0; half /= 2) {
		if (tid < half)
			part[tid] += part[tid + half];
		__syncthreads();
	}
	if (tid == 0)
		*sum = part[0];
}

extern "C" __global__ void nestedReduce1(int *g_idata, int *g_odata, unsigned int dim)
{
	unsigned int tid = threadIdx.x, live = blockDim.x;
	int *part = g_idata + blockIdx.x * dim, *sum = g_odata + blockIdx.x;
	if (live <= CUTOFF) {
		reduce_block(part, live, sum);
		return;
	}
	unsigned int half = live / 2;
	if (tid < half)
		part[tid] += part[tid + half];
	// a child sees what its launching thread saw: the barrier makes that every thread's sums
	__syncthreads();
	if (tid == 0) {
		nestedReduce1<<<1, half>>>(part, sum, dim);
		check_launch();
	}
}

extern "C" __global__ void nestedReduce2(int *g_idata, int *g_odata, unsigned int dim)
{
	unsigned int tid = threadIdx.x, stride = blockDim.x;
	int *part = g_idata + blockIdx.x * dim;
	if (2 * stride <= CUTOFF) {
		reduce_block(part, 2 * stride, g_odata + blockIdx.x);
		return;
	}
	part[tid] += part[tid + stride];
	// not a child of one block but the next level of all: a tail launch waits for the whole grid
	if (tid == 0 && blockIdx.x == 0) {
		nestedReduce2<<<gridDim.x, stride / 2, 0, cudaStreamTailLaunch>>>(g_idata, g_odata, dim);
		check_launch();
	}
}
