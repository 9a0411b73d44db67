// Concurrent kernels (the streams notes): four compute-bound dummy kernels, each a chain of
// dependent multiply-adds `iters` long on a few warps, so that one kernel occupies a sliver of the
// GPU and only launches in other streams can fill the rest. Every stream runs all four; whether
// they overlap depends on the dispatch order and on how many hardware queues
// (CUDA_DEVICE_MAX_CONNECTIONS) the streams share. No printf (the seed's way of making its
// kernels long): the chain's length does that, and the output is what is verified.
//
// Kernel k writes element k * total + tid, total = gridDim.x * blockDim.x: the same value in
// every stream and for every launch shape of `total` threads, so configurations of one loop count
// compute the same output (streams that write the same element write the same value).

__device__ __forceinline__ float chain(int tid, int k, int iters)
{
	// a dependent chain: each step waits for the last (the FMA latency), whatever the warps around
	float v = 0.1f * (float)(tid % 13) + (float)k;
	for (int i = 0; i < iters; i++)
		v = fmaf(v, 0.99999f, 0.001f);
	return v;
}

__device__ __forceinline__ void dummy(float *out, int iters, int k)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x, total = gridDim.x * blockDim.x;
	out[k * total + tid] = chain(tid, k, iters);
}

extern "C" __global__ void kernel_1(float *out, int iters) { dummy(out, iters, 0); }
extern "C" __global__ void kernel_2(float *out, int iters) { dummy(out, iters, 1); }
extern "C" __global__ void kernel_3(float *out, int iters) { dummy(out, iters, 2); }
extern "C" __global__ void kernel_4(float *out, int iters) { dummy(out, iters, 3); }
