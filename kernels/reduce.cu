// Parallel reductions (the reduction notes): each block sums its part of g_idata into
// g_odata[blockIdx.x], in place in g_idata (so autotune restores the input before every launch).
// The variants, by entry point (the config's `variant` parameter picks reduce<variant>):
//   reduce1 neighbored pairs (divergent)      reduce2 neighbored, less divergence
//   reduce3 interleaved pairs                 reduce4/5/6 unrolled by 2/4/8 blocks (interleaved)
//   reduce7 unrolled by 8, last warp unrolled reduce8 unrolled by 8, completely unrolled (block <= 1024)
// reduceCompleteUnroll<BLOCK> is the templated form of reduce8 (a C++ entry point, mangled).
// A block handles blockDim.x * UNROLL elements; the grid is n / (blockDim.x * UNROLL).

extern "C" __global__ void reduce1(int *g_idata, int *g_odata, unsigned int n)
{
	unsigned int tid = threadIdx.x, idx = blockIdx.x * blockDim.x + threadIdx.x;
	int *idata = g_idata + blockIdx.x * blockDim.x;
	if (idx >= n)
		return;
	for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
		if (tid % (2 * stride) == 0)
			idata[tid] += idata[tid + stride];
		__syncthreads();
	}
	if (tid == 0)
		g_odata[blockIdx.x] = idata[0];
}

extern "C" __global__ void reduce2(int *g_idata, int *g_odata, unsigned int n)
{
	unsigned int tid = threadIdx.x, idx = blockIdx.x * blockDim.x + threadIdx.x;
	int *idata = g_idata + blockIdx.x * blockDim.x;
	if (idx >= n)
		return;
	for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
		unsigned int index = 2 * stride * tid; // consecutive threads do the work
		if (index < blockDim.x)
			idata[index] += idata[index + stride];
		__syncthreads();
	}
	if (tid == 0)
		g_odata[blockIdx.x] = idata[0];
}

extern "C" __global__ void reduce3(int *g_idata, int *g_odata, unsigned int n)
{
	unsigned int tid = threadIdx.x, idx = blockIdx.x * blockDim.x + threadIdx.x;
	int *idata = g_idata + blockIdx.x * blockDim.x;
	if (idx >= n)
		return;
	for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
		if (tid < stride)
			idata[tid] += idata[tid + stride];
		__syncthreads();
	}
	if (tid == 0)
		g_odata[blockIdx.x] = idata[0];
}

// Each block first folds UNROLL neighbouring data blocks into its own, then reduces interleaved.
template <unsigned int UNROLL>
__device__ static void unrolled(int *g_idata, int *g_odata, unsigned int n)
{
	unsigned int tid = threadIdx.x, idx = blockIdx.x * blockDim.x * UNROLL + threadIdx.x;
	int *idata = g_idata + blockIdx.x * blockDim.x * UNROLL;
	if (idx + (UNROLL - 1) * blockDim.x < n) {
		int sum = 0;
#pragma unroll
		for (unsigned int k = 0; k < UNROLL; k++)
			sum += g_idata[idx + k * blockDim.x];
		g_idata[idx] = sum;
	}
	__syncthreads();
	for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
		if (tid < stride)
			idata[tid] += idata[tid + stride];
		__syncthreads();
	}
	if (tid == 0)
		g_odata[blockIdx.x] = idata[0];
}

extern "C" __global__ void reduce4(int *g_idata, int *g_odata, unsigned int n) { unrolled<2>(g_idata, g_odata, n); }
extern "C" __global__ void reduce5(int *g_idata, int *g_odata, unsigned int n) { unrolled<4>(g_idata, g_odata, n); }
extern "C" __global__ void reduce6(int *g_idata, int *g_odata, unsigned int n) { unrolled<8>(g_idata, g_odata, n); }

// The last 32 partial sums are added by one warp without barriers (volatile: every step must
// read what the previous one wrote).
__device__ static void warp_reduce(volatile int *v, unsigned int tid)
{
	v[tid] += v[tid + 32];
	v[tid] += v[tid + 16];
	v[tid] += v[tid + 8];
	v[tid] += v[tid + 4];
	v[tid] += v[tid + 2];
	v[tid] += v[tid + 1];
}

__device__ static int *fold8(int *g_idata, unsigned int n)
{
	unsigned int idx = blockIdx.x * blockDim.x * 8 + threadIdx.x;
	if (idx + 7 * blockDim.x < n) {
		int sum = 0;
#pragma unroll
		for (unsigned int k = 0; k < 8; k++)
			sum += g_idata[idx + k * blockDim.x];
		g_idata[idx] = sum;
	}
	__syncthreads();
	return g_idata + blockIdx.x * blockDim.x * 8;
}

extern "C" __global__ void reduce7(int *g_idata, int *g_odata, unsigned int n)
{
	unsigned int tid = threadIdx.x;
	int *idata = fold8(g_idata, n);
	for (unsigned int stride = blockDim.x / 2; stride > 32; stride >>= 1) {
		if (tid < stride)
			idata[tid] += idata[tid + stride];
		__syncthreads();
	}
	if (tid < 32)
		warp_reduce(idata, tid);
	if (tid == 0)
		g_odata[blockIdx.x] = idata[0];
}

// Completely unrolled for a block size known at compile time (a template argument here, so the
// untaken steps vanish).
template <unsigned int BS> __device__ static void complete(int *g_idata, int *g_odata, unsigned int n)
{
	unsigned int tid = threadIdx.x;
	int *idata = fold8(g_idata, n);
	if (BS >= 1024 && tid < 512)
		idata[tid] += idata[tid + 512];
	__syncthreads();
	if (BS >= 512 && tid < 256)
		idata[tid] += idata[tid + 256];
	__syncthreads();
	if (BS >= 256 && tid < 128)
		idata[tid] += idata[tid + 128];
	__syncthreads();
	if (BS >= 128 && tid < 64)
		idata[tid] += idata[tid + 64];
	__syncthreads();
	if (tid < 32)
		warp_reduce(idata, tid);
	if (tid == 0)
		g_odata[blockIdx.x] = idata[0];
}

#ifndef BLOCK
#define BLOCK 256
#endif

extern "C" __global__ void reduce8(int *g_idata, int *g_odata, unsigned int n) { complete<BLOCK>(g_idata, g_odata, n); }

template <unsigned int BS> __global__ void reduceCompleteUnroll(int *g_idata, int *g_odata, unsigned int n)
{
	complete<BS>(g_idata, g_odata, n);
}
template __global__ void reduceCompleteUnroll<BLOCK>(int *, int *, unsigned int);
