// axpy_half2.cu: out = a x + y on pairs of halves, one fused multiply-add per pair (__hfma2: the
// exact a x + y rounded once to nearest even). Tuned (configs/axpy_half2.yaml):
//   ITEMS  pairs per thread, a block's width apart (coalesced at every step)
#include <cuda_fp16.h>

#ifndef ITEMS
#define ITEMS 4
#endif

extern "C" __global__ void axpy_half2(__half2 *__restrict__ out, const __half2 *__restrict__ x,
				      const __half2 *__restrict__ y, __half a, int n)
{
	__half2 a2 = __half2half2(a);
	size_t base = (size_t)blockIdx.x * blockDim.x * ITEMS + threadIdx.x;
#pragma unroll
	for (int k = 0; k < ITEMS; k++) {
		size_t i = base + (size_t)k * blockDim.x;
		if (i < (size_t)n)
			out[i] = __hfma2(a2, x[i], y[i]);
	}
}
