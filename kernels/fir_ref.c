/* The FIR filter of fir.cu on the host, for verify.host: each output sums its products in tap
 * order with the same fused multiply-adds, so a correct configuration agrees with it exactly. */
#include <math.h>
#include <stddef.h>

/* out: n floats; in: n + 127 floats; taps: the 128 coefficients (fir.cu's TAPS). */
void fir_ref(float *out, const float *in, int n, const float *taps)
{
	for (int i = 0; i < n; i++) {
		float acc = 0.0f;
		for (int k = 0; k < 128; k++)
			acc = fmaf(taps[k], in[(size_t)i + k], acc);
		out[i] = acc;
	}
}
