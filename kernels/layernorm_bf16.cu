// layernorm_bf16.cu: layer normalisation forward of bfloat16 rows, as a transformer's (llm.c's
// shape: B x T rows of C channels), one warp per row. Statistics and arithmetic are float; the
// output is rounded to bfloat16 once, to nearest even. Tuned (configs/layernorm_bf16.yaml):
//   BLOCK     threads per block (BLOCK / 32 rows)
//   VEC       bfloat16 per load and store: 2, 4 or 8 (4, 8 or 16 bytes); C must be a multiple of 32 x VEC
//   ONE_PASS  1: the variance from the sums of x and x^2 in one read; 0: from (x - mean)^2 in a
//             second read of the row (from cache), as a numerically careful kernel does
#include <cuda_bf16.h>

#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef VEC
#define VEC 8
#endif
#ifndef ONE_PASS
#define ONE_PASS 0
#endif

// VEC bfloat16 moved as one aligned access
struct __align__(2 * VEC) pack {
	__nv_bfloat16 v[VEC];
};

__device__ static float warp_sum(float v)
{
	for (int o = 16; o; o >>= 1)
		v += __shfl_xor_sync(0xFFFFFFFFu, v, o);
	return v;
}

// out = (x - mean) * rstd * weight + bias per row; mean and rstd (1 / sqrt(var + 1e-5)) per row too
extern "C" __global__ void __launch_bounds__(BLOCK)
layernorm_bf16(__nv_bfloat16 *__restrict__ out, float *__restrict__ mean, float *__restrict__ rstd,
	       const __nv_bfloat16 *__restrict__ inp, const __nv_bfloat16 *__restrict__ weight,
	       const __nv_bfloat16 *__restrict__ bias, int N, int C)
{
	int lane = threadIdx.x % 32, row = (int)((blockIdx.x * (size_t)BLOCK + threadIdx.x) / 32);
	if (row >= N)
		return;
	const __nv_bfloat16 *x = inp + (size_t)row * C;
	float sum = 0, sumsq = 0;
	for (int i = lane * VEC; i < C; i += 32 * VEC) {
		pack p = *(const pack *)(x + i);
#pragma unroll
		for (int k = 0; k < VEC; k++) {
			float v = __bfloat162float(p.v[k]);
			sum += v;
			sumsq += v * v;
		}
	}
	float m = warp_sum(sum) / C, var;
	if (ONE_PASS) {
		var = fmaxf(warp_sum(sumsq) / C - m * m, 0.0f);
	} else {
		float d = 0;
		for (int i = lane * VEC; i < C; i += 32 * VEC) {
			pack p = *(const pack *)(x + i);
#pragma unroll
			for (int k = 0; k < VEC; k++) {
				float t = __bfloat162float(p.v[k]) - m;
				d += t * t;
			}
		}
		var = warp_sum(d) / C;
	}
	float s = rsqrtf(var + 1e-5f);
	if (lane == 0) {
		mean[row] = m;
		rstd[row] = s;
	}
	__nv_bfloat16 *o = out + (size_t)row * C;
	for (int i = lane * VEC; i < C; i += 32 * VEC) {
		pack p = *(const pack *)(x + i), w = *(const pack *)(weight + i), b = *(const pack *)(bias + i), r;
#pragma unroll
		for (int k = 0; k < VEC; k++) {
			float n = (__bfloat162float(p.v[k]) - m) * s;
			r.v[k] = __float2bfloat16_rn(n * __bfloat162float(w.v[k]) + __bfloat162float(b.v[k]));
		}
		*(pack *)(o + i) = r;
	}
}
