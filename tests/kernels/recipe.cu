// recipe.cu: a kernel whose binary depends on everything a tuned header's recipe must repeat: a
// tile size as a define, a `#pragma unroll UNROLL` factor, a register cap, build.flags
// (-use_fast_math changes the instructions of __expf), a constant passed as a define (K, through
// inc/scale.h, found by build.include). out[i] = K * exp(in[i]) for every element, whatever the
// configuration, so every configuration verifies against the first.
#include "scale.h"

extern "C" __global__ void recipe(const float *in, float *out, int n)
{
	int base = (blockIdx.x * blockDim.x + threadIdx.x) * TILE;
#pragma unroll UNROLL
	for (int k = 0; k < TILE; k++)
		if (base + k < n)
			out[base + k] = scaled(__expf(in[base + k]));
}
