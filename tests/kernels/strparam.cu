// strparam.cu: kernels whose variants are named, not numbered: a template on the element type and
// the block size (scale<T, BLOCK>, tuned with T a string parameter, float or __half), and two
// plain kernels chosen by name (copy_naive, copy_strided). Each writes out[i] = 2 * in[i] (within
// the element type's rounding), so every configuration verifies against the first.
#include <cuda_fp16.h>

template <typename T, int BLOCK>
__global__ void scale(const float *in, float *out, int n)
{
	int i = blockIdx.x * BLOCK + threadIdx.x;
	if (i < n)
		out[i] = (float)((T)in[i] * (T)2.0f);
}

extern "C" __global__ void copy_naive(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = 2.0f * in[i];
}

extern "C" __global__ void copy_strided(const float *in, float *out, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		out[i] = 2.0f * in[i];
}
