// nested_faults.cu: a kernel that launches kernels (build.rdc) and fails on purpose, one way per
// MODE, so that `make test-gpu` proves each failure of a nested launch becomes a status of its
// own and the run goes on:
//   MODE 0: each block's thread 0 launches a child grid that doubles the block's part of in
//           into out (ok)
//   MODE 1: as 0, and block 0 also starts a chain of one-thread grids, each launching the next,
//           deeper than the device allows: the refused launch is recorded in
//           autotune_device_error (launch-error, naming the device runtime's error)
//   MODE 2: as 0, but the child grids trap (crashed: the context is lost)

__device__ int autotune_device_error;

// After a device-side launch: the first failure is kept for the worker to read.
__device__ static void check_launch(void)
{
	cudaError_t e = cudaGetLastError();
	if (e != cudaSuccess)
		atomicCAS(&autotune_device_error, 0, (int)e);
}

__global__ void deeper(int depth)
{
	if (depth < 40) {
		deeper<<<1, 1>>>(depth + 1);
		check_launch();
	}
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
	twice<<<1, blockDim.x>>>(in + base, out + base, n - base);
	check_launch();
#if MODE == 1
	if (blockIdx.x == 0) {
		deeper<<<1, 1>>>(1);
		check_launch();
	}
#endif
}
