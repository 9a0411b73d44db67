// worker_kernels.cu: device helpers of the worker process: filling argument arrays and
// comparing outputs with the reference run on the GPU, so a 1 GiB output is checked in
// microseconds instead of being copied to the host. Embedded into autotune-worker as a fatbin.
#include <limits.h>
#include <stdint.h>

#include "compare.h"
#include "half_t.cuh"

// splitmix64: a counter-based generator, so element i gets the same value whatever the launch.
__device__ static uint64_t mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

template <typename T> __device__ static T random_value(uint64_t r);
// Floats: uniform in [-1, 1) from 24 (53) random bits: never zero-heavy, exactly representable.
template <> __device__ float random_value<float>(uint64_t r) { return (float)(r >> 40) * (2.0f / 16777216.0f) - 1.0f; }
template <> __device__ double random_value<double>(uint64_t r) { return (double)(r >> 11) * (2.0 / 9007199254740992.0) - 1.0; }
// 16-bit floats: as many random bits as they hold in [-1, 1) (11 and 8), every value exact
template <> __device__ half_t random_value<half_t>(uint64_t r) { return half_t((double)(r >> 53) * (2.0 / 2048.0) - 1.0); }
template <> __device__ bf16_t random_value<bf16_t>(uint64_t r) { return bf16_t((double)(r >> 56) * (2.0 / 256.0) - 1.0); }
// Integers: small values (signed -50..49, unsigned 0..99), so sums and products of many
// elements stay exact and far from overflow.
#define SIGNED_RANDOM(T) template <> __device__ T random_value<T>(uint64_t r) { return (T)((int)(r % 100) - 50); }
#define UNSIGNED_RANDOM(T) template <> __device__ T random_value<T>(uint64_t r) { return (T)(r % 100); }
SIGNED_RANDOM(int8_t) SIGNED_RANDOM(int16_t) SIGNED_RANDOM(int32_t) SIGNED_RANDOM(int64_t)
UNSIGNED_RANDOM(uint8_t) UNSIGNED_RANDOM(uint16_t) UNSIGNED_RANDOM(uint32_t) UNSIGNED_RANDOM(uint64_t)

template <typename T> __device__ static bool same(T got, T want, double, double) { return got == want; }
template <typename T> __device__ static bool close_float(T got, T want, double rtol, double atol)
{
	if (isnan(want))
		return isnan(got);
	if (isinf(want))
		return got == want;
	double diff = fabs((double)got - (double)want);
	return diff <= atol + rtol * fabs((double)want);  // false for NaN got
}
template <> __device__ bool same<float>(float g, float w, double r, double a) { return close_float(g, w, r, a); }
template <> __device__ bool same<double>(double g, double w, double r, double a) { return close_float(g, w, r, a); }
template <> __device__ bool same<half_t>(half_t g, half_t w, double r, double a) { return close_float<double>(g, w, r, a); }
template <> __device__ bool same<bf16_t>(bf16_t g, bf16_t w, double r, double a) { return close_float<double>(g, w, r, a); }

template <typename T> __device__ static void fill_random(T *p, uint64_t n, uint64_t seed)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
		p[i] = random_value<T>(mix(seed * 0x100000001B3ull ^ mix(i)));
}

// Normal(0, 1) by Box-Muller from two counter-based uniforms; integers get round(10 x).
template <typename T> __device__ static void fill_normal(T *p, uint64_t n, uint64_t seed)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
		uint64_t r = mix(seed * 0x100000001B3ull ^ mix(i));
		double u1 = ((r >> 11) + 1.0) * (1.0 / 9007199254740993.0), u2 = (mix(r) >> 11) * (1.0 / 9007199254740992.0);
		double z = sqrt(-2.0 * log(u1)) * cospi(2.0 * u2);
		p[i] = (T)((T)0.5 == 0 ? rint(10.0 * z) : z);
	}
}

template <typename T> __device__ static void fill_index(T *p, uint64_t n)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
		p[i] = (T)i;
}

template <typename T> __device__ static void fill_constant(T *p, uint64_t n, double v)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
		p[i] = (T)v;
}

template <typename T> __device__ static bool nan_of(T) { return false; }
template <typename T> __device__ static bool inf_of(T) { return false; }
template <> __device__ bool nan_of<float>(float v) { return isnan(v); }
template <> __device__ bool nan_of<double>(double v) { return isnan(v); }
template <> __device__ bool inf_of<float>(float v) { return isinf(v); }
template <> __device__ bool inf_of<double>(double v) { return isinf(v); }
template <> __device__ bool nan_of<half_t>(half_t v) { return isnan((double)v); }
template <> __device__ bool nan_of<bf16_t>(bf16_t v) { return isnan((double)v); }
template <> __device__ bool inf_of<half_t>(half_t v) { return isinf((double)v); }
template <> __device__ bool inf_of<bf16_t>(bf16_t v) { return isinf((double)v); }

// The compare's block size at most (args.c launches every helper with 256 threads): eight blocks
// of it fill an SM.
#define COMPARE_THREADS 256

// Combines two threads' findings: sums, the lowest first index, maxima of the rest.
__device__ static unsigned long long cmp_join(int k, unsigned long long a, unsigned long long b)
{
	return k == CMP_FIRST ? min(a, b) : k <= CMP_MAX_REL ? (k == CMP_BAD ? a + b : max(a, b)) : a + b;
}

// Compares every stride-th element (stride 1: all; larger for verify.sample) and leaves compare.h's
// figures in counters, in one pass: each thread's findings are joined in its warp, then in its
// block, and a block adds to the counters only what it found (an all-match with no zero in the
// reference makes no atomic at all).
template <typename T>
__device__ static void compare(const T *got, const T *want, uint64_t n, uint64_t stride, double rtol, double atol,
			       unsigned long long *counters)
{
	// The loop keeps few registers, so that the whole grid is resident and streams at full
	// bandwidth as a compare without figures did: 32-bit counts (a thread sees far fewer than 2^32
	// elements), and what only a mismatch, NaN or Inf touches in shared memory, a slot per thread.
	__shared__ struct {
		unsigned long long first, last, key;
		double abs, rel;
		unsigned got_nan, got_inf, ref_nan, ref_inf;
	} slots[COMPARE_THREADS];
	unsigned t = threadIdx.x, bad = 0, ref_zero = 0;
	auto *m = &slots[t];
	m->first = ~0ull;
	m->last = m->key = 0;
	m->abs = m->rel = 0;
	m->got_nan = m->got_inf = m->ref_nan = m->ref_inf = 0;
	for (uint64_t i = (blockIdx.x * (uint64_t)blockDim.x + t) * stride; i < n; i += (uint64_t)gridDim.x * blockDim.x * stride) {
		T g = got[i], w = want[i];
		if (nan_of<T>(g) | inf_of<T>(g) | nan_of<T>(w) | inf_of<T>(w)) {
			m->got_nan += nan_of<T>(g);
			m->got_inf += inf_of<T>(g);
			m->ref_nan += nan_of<T>(w);
			m->ref_inf += inf_of<T>(w);
		}
		ref_zero += w == (T)0;
		if (same<T>(g, w, rtol, atol))
			continue;
		if (!bad++)
			m->first = i;
		m->last = i;
		double e = fabs((double)g - (double)w);
		if (e > m->abs) { // false for NaN
			m->abs = e;
			m->key = (unsigned long long)__float_as_uint((float)e) << 32 | (0xFFFFFFFFu - (unsigned)i);
		}
		// a reciprocal, not a division: a division's slow path would cost the loop registers
		double rel = w != (T)0 ? e * __drcp_rn(fabs((double)w)) : 0;
		if (rel > m->rel)
			m->rel = rel;
	}
	// each figure joined in the warp on its own (all of them at once would not fit the registers),
	// then across the block's warps by its first thread
	__shared__ unsigned long long warps[COMPARE_THREADS / 32][CMP_COUNT];
#pragma unroll
	for (int k = 0; k < CMP_COUNT; k++) {
		unsigned long long x = k == CMP_BAD ? bad : k == CMP_FIRST ? m->first : k == CMP_LAST ? m->last :
				       k == CMP_MAX_ABS ? (unsigned long long)__double_as_longlong(m->abs) :
				       k == CMP_ARGMAX ? m->key :
				       k == CMP_MAX_REL ? (unsigned long long)__double_as_longlong(m->rel) :
				       k == CMP_GOT_NAN ? m->got_nan : k == CMP_GOT_INF ? m->got_inf :
				       k == CMP_REF_NAN ? m->ref_nan : k == CMP_REF_INF ? m->ref_inf : ref_zero;
		for (int o = 16; o; o >>= 1)
			x = cmp_join(k, x, __shfl_down_sync(0xFFFFFFFFu, x, o));
		if (t % 32 == 0)
			warps[t / 32][k] = x;
	}
	__syncthreads();
	if (t)
		return;
#pragma unroll 1
	for (int k = 0; k < CMP_COUNT; k++) {
		unsigned long long x = warps[0][k];
		for (unsigned w = 1; w < blockDim.x / 32; w++)
			x = cmp_join(k, x, warps[w][k]);
		// nothing found: the counters' start values stand (the first index's "none" is ~0, and
		// 0 is an index like any other)
		if (k == CMP_FIRST ? x == ~0ull : !x)
			continue;
		if (k == CMP_FIRST)
			atomicMin(&counters[k], x);
		else if (k > CMP_FIRST && k <= CMP_MAX_REL)
			atomicMax(&counters[k], x);
		else
			atomicAdd(&counters[k], x);
	}
}

// Sum and maximum of n elements: sums[0] the sum as a 64-bit integer (two's complement),
// sums[1] as a double, sums[2] the maximum as an integer, sums[3] as a double (initialised by the
// caller to the lowest values). The check for outputs whose layout depends on the configuration
// (a partial sum per block), against the input's or an expected value.
__device__ static void max_double(unsigned long long *at, double v)
{
	unsigned long long old = *at, assumed;
	do {
		assumed = old;
		if (__longlong_as_double((long long)assumed) >= v)
			return;
		old = atomicCAS(at, assumed, (unsigned long long)__double_as_longlong(v));
	} while (old != assumed);
}

template <typename T> __device__ static void sum_into(const T *p, uint64_t n, unsigned long long *sums)
{
	long long s = 0, m = LLONG_MIN;
	double f = 0, fm = -INFINITY;
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
		s += (long long)p[i];
		f += (double)p[i];
		m = max(m, (long long)p[i]);
		fm = fmax(fm, (double)p[i]);
	}
	if (s)
		atomicAdd(&sums[0], (unsigned long long)s);
	if (f != 0)
		atomicAdd((double *)&sums[1], f);
	atomicMax((long long *)&sums[2], m);
	max_double(&sums[3], fm);
}

#define HELPERS(T, NAME)                                                                              \
	extern "C" __global__ void fill_random_##NAME(T *p, uint64_t n, uint64_t seed) { fill_random<T>(p, n, seed); } \
	extern "C" __global__ void fill_constant_##NAME(T *p, uint64_t n, double v) { fill_constant<T>(p, n, v); } \
	extern "C" __global__ void fill_normal_##NAME(T *p, uint64_t n, uint64_t seed) { fill_normal<T>(p, n, seed); } \
	extern "C" __global__ void fill_index_##NAME(T *p, uint64_t n) { fill_index<T>(p, n); }                \
	extern "C" __global__ void __launch_bounds__(COMPARE_THREADS, 8) compare_##NAME(const T *g, const T *w, uint64_t n, uint64_t st, double r,   \
						  double a, unsigned long long *c) { compare<T>(g, w, n, st, r, a, c); } \
	extern "C" __global__ void sum_##NAME(const T *p, uint64_t n, unsigned long long *s) { sum_into<T>(p, n, s); }

HELPERS(int8_t, int8) HELPERS(int16_t, int16) HELPERS(int32_t, int32) HELPERS(int64_t, int64)
HELPERS(uint8_t, uint8) HELPERS(uint16_t, uint16) HELPERS(uint32_t, uint32) HELPERS(uint64_t, uint64)
HELPERS(float, float) HELPERS(double, double) HELPERS(half_t, half) HELPERS(bf16_t, bfloat16)

// One thread spins for `cycles` SM clocks and gives the SM clock, which shows whether the GPU is
// still idling (345 MHz on the H100) or throttled; launched on many blocks it is also the warm-up
// load. Block 0's first thread writes the cycles it spun and the nanoseconds that took
// (%globaltimer): timed inside the kernel, free of the launch latency that events add (a few
// microseconds: readings of a 0.1 ms probe were up to 20% low).
extern "C" __global__ void clock_probe(long long cycles, unsigned long long *sink)
{
	unsigned long long t0, t1;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	long long start = clock64(), now;
	while ((now = clock64()) - start < cycles)
		;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
	if (threadIdx.x == 0 && blockIdx.x == 0) {
		sink[0] = (unsigned long long)(now - start);
		sink[1] = t1 - t0;
	}
}
