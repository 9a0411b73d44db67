// softmax.cu: the row-wise softmax of an n x c float matrix, a language model's last layer over
// its vocabulary (bench/softmax_big.yaml): one block of BLOCK threads a row. Each thread keeps a
// running maximum and the sum of exponentials scaled to it over its strided elements (the
// online softmax: one read of the row), the block joins them, then writes exp(x - max) / sum.
#include <math.h>

#ifndef BLOCK
#define BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(BLOCK) softmax_rows(float *out, const float *in, int n, int c)
{
	__shared__ float smax[BLOCK], ssum[BLOCK];
	int row = blockIdx.x, t = threadIdx.x;
	if (row >= n)
		return;
	const float *x = in + (size_t)row * c;
	float m = -INFINITY, s = 0.0f;
	for (int j = t; j < c; j += BLOCK) {
		float v = x[j];
		if (v > m) {
			s *= expf(m - v); // 0 the first time (m is -inf)
			m = v;
		}
		s += expf(v - m);
	}
	smax[t] = m;
	ssum[t] = s;
	__syncthreads();
	for (int k = BLOCK / 2; k > 0; k >>= 1) {
		if (t < k) {
			float m1 = smax[t], m2 = smax[t + k], mm = fmaxf(m1, m2);
			// a thread with no element has -inf and 0: it adds nothing
			ssum[t] = mm == -INFINITY ? 0.0f : ssum[t] * expf(m1 - mm) + ssum[t + k] * expf(m2 - mm);
			smax[t] = mm;
		}
		__syncthreads();
	}
	float mx = smax[0], inv = 1.0f / ssum[0];
	float *y = out + (size_t)row * c;
	for (int j = t; j < c; j += BLOCK)
		y[j] = expf(x[j] - mx) * inv;
}
