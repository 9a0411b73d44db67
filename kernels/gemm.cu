// A tiled single-precision GEMM, C = A * B, with A and C column-major (M x K, M x N) and B
// row-major (K x N): both operands are then read along m and n, contiguous in memory, as the
// tile walks k, so every load can be a float2/float4 and coalesced without a transpose.
// Each block computes an MWG x NWG tile of C, KWG values of k at a time; each of its MDIMC x
// NDIMC threads keeps (MWG / MDIMC) x (NWG / NDIMC) results in registers. SA (SB) stages the
// block's KWG x MWG slice of A (KWG x NWG of B) in shared memory first, else each thread reads
// its operands from global memory (L1) itself. VWM (VWN) is the width of every access to A (B)
// and of the stores to C; STRM (STRN) gives a thread VWM-wide groups of rows MDIMC * VWM apart
// (a warp's accesses side by side) instead of one contiguous run of rows. The k loop is unrolled
// KWI steps deep, never the whole tile, which keeps each variant's compile short.
// Every output adds its K products in the order k = 0, 1, ..., K - 1, one fmaf each, starting
// from 0, in every configuration: all configurations agree bit for bit.
// Sizes must be multiples of the tiles (M of MWG, N of NWG, K of KWG); the config's are.
#define MWI (MWG / MDIMC) // results per thread along m
#define NWI (NWG / NDIMC) // and along n
#define THREADS (MDIMC * NDIMC)
// 1024 threads launch only with at most 64 registers: say so (and one block per SM, else ptxas
// squeezes to 32 and spills). Smaller blocks get no bounds: with them ptxas spills to fit more
// blocks per SM; without, 512 threads took at most 108 of their 128 registers in samples.
#if THREADS == 1024
#define BOUNDS __launch_bounds__(1024, 1)
#else
#define BOUNDS
#endif

// The tile offset of a thread's i-th row (column): groups of VW consecutive ones, either one
// contiguous run per thread (STR 0) or groups DIM * VW apart, interleaved with the other threads'.
#define OFFSET(i, t, DIM, WI, VW, STR) \
	((STR) ? (i) / (VW) * ((DIM) * (VW)) + (t) * (VW) + (i) % (VW) : (t) * (WI) + (i))
#define MOFS(i) OFFSET(i, (int)threadIdx.x, MDIMC, MWI, VWM, STRM)
#define NOFS(j) OFFSET(j, (int)threadIdx.y, NDIMC, NWI, VWN, STRN)

// W consecutive floats in one access (float, float2 or float4); p is W-aligned.
template <int W> __device__ __forceinline__ void load(float *r, const float *p)
{
	if constexpr (W == 4) {
		const float4 v = *reinterpret_cast<const float4 *>(p);
		r[0] = v.x, r[1] = v.y, r[2] = v.z, r[3] = v.w;
	} else if constexpr (W == 2) {
		const float2 v = *reinterpret_cast<const float2 *>(p);
		r[0] = v.x, r[1] = v.y;
	} else
		r[0] = *p;
}

template <int W> __device__ __forceinline__ void store(float *p, const float *r)
{
	if constexpr (W == 4)
		*reinterpret_cast<float4 *>(p) = make_float4(r[0], r[1], r[2], r[3]);
	else if constexpr (W == 2)
		*reinterpret_cast<float2 *>(p) = make_float2(r[0], r[1]);
	else
		*p = r[0];
}

// The block's KWG x TW slice of a k-major operand (leading dimension ld) into shared memory,
// VW floats per access, consecutive threads on consecutive vectors (coalesced).
template <int TW, int VW> __device__ __forceinline__ void stage(float *s, const float *g, int ld, int tid)
{
	constexpr int n = KWG * TW / VW; // vectors in the slice
#pragma unroll
	for (int v0 = 0; v0 < n; v0 += THREADS) {
		const int v = v0 + tid;
		if (n % THREADS != 0 && v >= n)
			break;
		const int k = v / (TW / VW), x = v % (TW / VW) * VW;
		float t[VW];
		load<VW>(t, g + (size_t)k * ld + x);
		store<VW>(s + k * TW + x, t);
	}
}

// C[m + n * M] = sum over k of A[m + k * M] * B[k * N + n]
extern "C" __global__ void BOUNDS
	gemm(float *__restrict__ C, const float *__restrict__ A, const float *__restrict__ B, int M, int N, int K)
{
#if SA
	__shared__ __align__(16) float As[KWG * MWG];
#endif
#if SB
	__shared__ __align__(16) float Bs[KWG * NWG];
#endif
	const int m0 = blockIdx.x * MWG, n0 = blockIdx.y * NWG;
	const int tid = threadIdx.y * MDIMC + threadIdx.x;
	float acc[NWI][MWI]; // m innermost: a thread's VWM rows of one column are one store
#pragma unroll
	for (int j = 0; j < NWI; j++)
#pragma unroll
		for (int i = 0; i < MWI; i++)
			acc[j][i] = 0.0f;

	for (int k0 = 0; k0 < K; k0 += KWG) {
#if SA
		stage<MWG, VWM>(As, A + (size_t)k0 * M + m0, M, tid);
#endif
#if SB
		stage<NWG, VWN>(Bs, B + (size_t)k0 * N + n0, N, tid);
#endif
#if SA || SB
		__syncthreads();
#endif
		// KWI steps per iteration; the outer loop stays rolled so the body stays small
#pragma unroll 1
		for (int kk = 0; kk < KWG; kk += KWI)
#pragma unroll
			for (int ki = 0; ki < KWI; ki++) {
				const int k = kk + ki;
#if SA
				const float *a = As + k * MWG;
#else
				const float *a = A + (size_t)(k0 + k) * M + m0;
#endif
#if SB
				const float *b = Bs + k * NWG;
#else
				const float *b = B + (size_t)(k0 + k) * N + n0;
#endif
				float ra[MWI], rb[NWI];
#pragma unroll
				for (int i = 0; i < MWI; i += VWM)
					load<VWM>(&ra[i], a + MOFS(i));
#pragma unroll
				for (int j = 0; j < NWI; j += VWN)
					load<VWN>(&rb[j], b + NOFS(j));
#pragma unroll
				for (int j = 0; j < NWI; j++)
#pragma unroll
					for (int i = 0; i < MWI; i++)
						acc[j][i] = fmaf(ra[i], rb[j], acc[j][i]);
			}
#if SA || SB
		__syncthreads(); // before the next slice overwrites this one
#endif
	}

#pragma unroll
	for (int j = 0; j < NWI; j++)
#pragma unroll
		for (int i = 0; i < MWI; i += VWM)
			store<VWM>(C + (size_t)(n0 + NOFS(j)) * M + m0 + MOFS(i), &acc[j][i]);
}
