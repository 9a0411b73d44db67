// saxpy.cu: y = a * x + y, each thread ITEMS elements a block apart (ITEMS is tuned).
#ifndef ITEMS
#define ITEMS 1
#endif

extern "C" __global__ void saxpy(int n, float a, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x * ITEMS + threadIdx.x;
#pragma unroll
	for (int k = 0; k < ITEMS; k++, i += blockDim.x)
		if (i < n)
			y[i] = a * x[i] + y[i];
}
