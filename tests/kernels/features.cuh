// features.cuh: a source with a header's extension (compiled as CUDA all the same) that needs an
// include directory and a constant as a define, fed by the other fills: out = K * index + (x -
// copy of x); cnt gets one count per block, checked by its sum (verify.sum.equals), out by a
// sampled comparison (verify.sample).
#include "scale.h"

extern "C" __global__ void features(const float *x, const float *xcopy, const float *idx, float *out, int *cnt, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = scaled(idx[i]) + (x[i] - xcopy[i]);
	if (threadIdx.x == 0)
		cnt[blockIdx.x] = blockDim.x;
}
