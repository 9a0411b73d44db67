// nested_faults.cu: a kernel that launches kernels (build.rdc) and fails on purpose, one way per
// MODE, so that `make test-gpu` proves each failure of a nested launch becomes a status of its
// own and the run goes on:
//   MODE 0: each block's thread 0 launches a child grid that doubles the block's part of in
//           into out (ok)
//   MODE 1: the child grid is launched with 2048 threads a block, more than a block may have:
//           the refused launch is recorded in autotune_device_error (launch-error, naming the
//           device runtime's error). Deterministic, unlike the pending-launch pool overflowing
//           (which configs/nested_reduce.yaml met at a pool of 131072: launch-error too), and
//           unlike nesting depth: on an H100 (CUDA 13) 40 fire-and-forget levels ran.
//   MODE 2: as 0, but the child grids trap (crashed: the context is lost)

__device__ int autotune_device_error;

// After a device-side launch: the first failure is kept for the worker to read.
__device__ static void check_launch(void)
{
	cudaError_t e = cudaGetLastError();
	if (e != cudaSuccess)
		atomicCAS(&autotune_device_error, 0, (int)e);
}

__global__ void twice(const float *in, float *out, int n)
{
#if MODE == 2
	__trap();
#endif
	int i = threadIdx.x;
	if (i < n)
		out[i] = 2.0f * in[i];
}

extern "C" __global__ void parent(const float *in, float *out, int n)
{
	if (threadIdx.x != 0)
		return;
	int base = blockIdx.x * blockDim.x;
#if MODE == 1
	twice<<<1, 2048>>>(in + base, out + base, n - base);
#else
	twice<<<1, blockDim.x>>>(in + base, out + base, n - base);
#endif
	check_launch();
}
