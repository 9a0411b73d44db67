// nested_faults.cu: a kernel that launches kernels (build.rdc) and fails on purpose, one way per
// MODE, so that `make test-gpu` proves each failure of a nested launch becomes a status of its
// own and the run goes on:
//   MODE 0: each block's thread 0 launches a child grid that doubles the block's part of in
//           into out (ok)
//   MODE 1: as 0, and block 0's thread 0 also queues 4096 short grids in its stream, more than
//           the device runtime's 2048 pending launches (the config leaves the default): the
//           refused launch is recorded in autotune_device_error (launch-error, naming the
//           device runtime's error). Nesting past 24 levels does not fail this way on an H100
//           (CUDA 13): a chain of 40 fire-and-forget levels ran.
//   MODE 2: as 0, but the child grids trap (crashed: the context is lost)

__device__ int autotune_device_error;

// After a device-side launch: the first failure is kept for the worker to read.
__device__ static void check_launch(void)
{
	cudaError_t e = cudaGetLastError();
	if (e != cudaSuccess)
		atomicCAS(&autotune_device_error, 0, (int)e);
}

// A few microseconds of work, so that the queued grids are still waiting when the pool fills.
__global__ void idle(void)
{
	long long t0 = clock64();
	while (clock64() - t0 < 10000)
		;
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
	if (blockIdx.x == 0)
		for (int k = 0; k < 4096; k++) {
			idle<<<1, 1>>>();
			check_launch();
		}
#endif
}
