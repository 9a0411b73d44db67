/* Independent reference for BAT's TRIAD (tests/t1/published/bat/triad_kernel.cu): C = A + s * B
 * in single precision (the kernel's DATA_TYPE is float: its guard tests PRECSION, never defined,
 * so it always defines PRECISION 32). The GPU contracts it to one fused multiply-add. */
#include <math.h>

void bat_triad_ref(float *A, float *B, float *C, float s, int n)
{
	for (int i = 0; i < n; i++)
		C[i] = fmaf(s, B[i], A[i]);
}
