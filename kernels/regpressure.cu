// Register pressure (the occupancy notes, "register availability"): each thread keeps LIVE values in
// registers through ITERS rounds of dependent FMAs. A register cap (-maxrregcount) or
// __launch_bounds__(THREADS, MINB) below what LIVE needs raises occupancy but spills to local
// memory; autotune shows the trade in the CSV (registers, spills, occupancy, time). Unconstrained,
// ptxas gives it about 108 registers: 25% occupancy at most.
#ifndef THREADS
#define THREADS 256
#endif
#ifndef MINB
#define MINB 0
#endif
#define LIVE 48
#define ITERS 64

// MINB 0: no launch bounds, so -maxrregcount decides (with launch bounds, nvcc ignores it)
#if MINB > 0
#define BOUNDS __launch_bounds__(THREADS, MINB)
#else
#define BOUNDS
#endif

extern "C" __global__ void BOUNDS pressure(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v[LIVE];
#pragma unroll
	for (int k = 0; k < LIVE; k++)
		v[k] = in[(i + k * 977) % n];
	for (int it = 0; it < ITERS; it++) {
#pragma unroll
		for (int k = 0; k < LIVE; k++)
			v[k] = fmaf(v[k], v[(k + 7) % LIVE], 0.25f);
	}
	float s = 0.0f;
#pragma unroll
	for (int k = 0; k < LIVE; k++)
		s += v[k];
	out[i] = s;
}
