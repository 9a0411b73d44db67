// A 1-D FIR filter, out[i] = sum over k of taps[k] * in[i + k], with TAPS coefficients in constant
// memory. Each block computes BLOCK * ITEMS consecutive outputs; a thread's ITEMS outputs are
// side by side (LAYOUT 0) or BLOCK apart (LAYOUT 1). The taps are walked in chunks of UNROLL, each
// chunk's UNROLL x ITEMS multiply-adds fully unrolled: the body ptxas schedules grows with their
// product, and so does its compile time. SOURCE says where the input comes from: 0 global memory
// through the read-only path, 1 the block's tile staged in shared memory, 2 that tile with each
// chunk's window of ITEMS + UNROLL - 1 inputs first copied to registers (LAYOUT 0 only, where the
// window is shared by the thread's outputs). Every output adds its products in tap order, one
// fmaf each, in every configuration: all agree exactly.
__constant__ float taps[TAPS];

#if LAYOUT == 0
#define OUT_INDEX(j) (threadIdx.x * ITEMS + (j))
#else
#define OUT_INDEX(j) (threadIdx.x + (j) * BLOCK)
#endif

#if SOURCE == 1 || SOURCE == 2
#define INPUT(i) tile[i]
#else
#define INPUT(i) __ldg(&block_in[i])
#endif

// out: n floats; in: n + TAPS - 1 floats; n a multiple of BLOCK * ITEMS (no edge handling).
extern "C" __global__ void __launch_bounds__(BLOCK) fir(float *out, const float *__restrict__ in, int n)
{
	const int span = BLOCK * ITEMS;
	const size_t base = (size_t)blockIdx.x * span;
	if (base >= (size_t)n)
		return;
	const float *block_in = in + base;
#if SOURCE == 1 || SOURCE == 2
	__shared__ float tile[BLOCK * ITEMS + TAPS - 1];
	for (int i = threadIdx.x; i < span + TAPS - 1; i += BLOCK)
		tile[i] = __ldg(&block_in[i]);
	__syncthreads();
#endif
	float acc[ITEMS];
#pragma unroll
	for (int j = 0; j < ITEMS; j++)
		acc[j] = 0.0f;
	for (int k0 = 0; k0 < TAPS; k0 += UNROLL) {
#if SOURCE == 2
		float window[ITEMS + UNROLL - 1];
#pragma unroll
		for (int u = 0; u < ITEMS + UNROLL - 1; u++)
			window[u] = tile[threadIdx.x * ITEMS + k0 + u];
#endif
#pragma unroll
		for (int u = 0; u < UNROLL; u++) {
			const float h = taps[k0 + u];
#pragma unroll
			for (int j = 0; j < ITEMS; j++) {
#if SOURCE == 2
				acc[j] = fmaf(h, window[j + u], acc[j]);
#else
				acc[j] = fmaf(h, INPUT(OUT_INDEX(j) + k0 + u), acc[j]);
#endif
			}
		}
	}
#pragma unroll
	for (int j = 0; j < ITEMS; j++)
		out[base + OUT_INDEX(j)] = acc[j];
}
