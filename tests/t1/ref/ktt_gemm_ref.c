/* ktt_gemm_ref.c: the independent reference for KTT's ClTuneGemm (CLTune's gemm_fast): C = A B
 * with every matrix column-major, as the kernel indexes them: A is K x M (a[k * M + m]), B is
 * K x N (b[k * N + n]), C is M x N (c[n * M + m]). Each element sums over k in order, one fused
 * multiply-add at a time, as every configuration's thread does. */
#include <math.h>

void ktt_gemm_ref(int M, int N, int K, const float *a, const float *b, float *c)
{
#pragma omp parallel for
	for (int n = 0; n < N; n++) {
		float *col = c + (long)n * M;
		for (int m = 0; m < M; m++)
			col[m] = 0.0f;
		for (int k = 0; k < K; k++) {
			const float bk = b[(long)k * N + n], *ak = a + (long)k * M;
			for (int m = 0; m < M; m++)
				col[m] = fmaf(ak[m], bk, col[m]);
		}
	}
}
