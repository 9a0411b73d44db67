// A reference kernel in the same source (verify.kernel): the tuned kernel has each thread handle
// PER elements with a grid-stride loop; the plain reference does one element per thread on a
// launch of its own.
#ifndef PER
#define PER 1
#endif

extern "C" __global__ void saxpy_tuned(const float *x, float *y, int n)
{
	int stride = gridDim.x * blockDim.x;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		y[i] = 2.5f * x[i] + 1.0f;
}

extern "C" __global__ void saxpy_reference(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 2.5f * x[i] + 1.0f;
}
