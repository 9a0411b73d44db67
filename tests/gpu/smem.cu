// smem.cu: a block whose static and dynamic shared memory together pass the 48 KB a kernel gets
// without opting in, while the dynamic part alone does not (48 KB dynamic beside 2 KB static):
// the worker must opt in, or the launch is refused with CUDA_ERROR_INVALID_VALUE. out = in + 1
// whatever the configuration.
extern "C" __global__ void staged(const float *in, float *out, int n, int dyn_floats)
{
	__shared__ float fixed[512];
	extern __shared__ float dynamic[];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	fixed[threadIdx.x % 512] = i < n ? in[i] : 0.0f;
	for (int k = threadIdx.x; k < dyn_floats; k += blockDim.x)
		dynamic[k] = 1.0f;
	__syncthreads();
	if (i < n)
		out[i] = fixed[threadIdx.x % 512] + dynamic[threadIdx.x % dyn_floats];
}
