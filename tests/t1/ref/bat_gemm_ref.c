/* Independent reference for BAT's GEMM (tests/t1/published/bat/gemm.cu, entry gemm_fast), for
 * verify.host. C = A x B with A stored k-major (A[k * M + m]), B k-major (B[k * N + n]) and C
 * column-major (C[n * M + m]). Every configuration of the kernel accumulates each element over k
 * in increasing order, one fused multiply-add at a time: fmaf in the same order gives the same
 * bits. Columns of C are computed a strip at a time so that A streams through the cache once per
 * strip; build with -O3 -fopenmp to use every core. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STRIP 32

void bat_gemm_ref(int M, int N, int K, float *a, float *b, float *c)
{
#pragma omp parallel for schedule(dynamic)
	for (int n0 = 0; n0 < N; n0 += STRIP) {
		int w = N - n0 < STRIP ? N - n0 : STRIP;
		float *acc = calloc((size_t)w * M, sizeof *acc);
		if (!acc)
			abort();
		for (int k = 0; k < K; k++) {
			const float *ak = a + (size_t)k * M;
			for (int j = 0; j < w; j++) {
				float bk = b[(size_t)k * N + n0 + j];
				float *cj = acc + (size_t)j * M;
				for (int m = 0; m < M; m++)
					cj[m] = fmaf(ak[m], bk, cj[m]);
			}
		}
		memcpy(c + (size_t)n0 * M, acc, (size_t)w * M * sizeof *acc);
		free(acc);
	}
}
