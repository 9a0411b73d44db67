/* layernorm_bf16.cu's layer norm on the host, for verify.host (tests/gpu/layernorm_bf16_host.yaml):
 * in double, each output rounded once at the end (bfloat16 to nearest even, the statistics to
 * float). bfloat16 arrays arrive as their bits. Written apart from lib/half.h, on frexp and rint,
 * so that each checks the other. The GPU test's deliberately wrong references: OUT_ULPS moves
 * every output that many units in the last place (1 must pass bfloat16's tolerance, 8 must not),
 * RSTD_OFF scales rstd by 1 + RSTD_OFF (1e-4 must fail float's). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#ifndef OUT_ULPS
#define OUT_ULPS 0
#endif
#ifndef RSTD_OFF
#define RSTD_OFF 0
#endif

/* a bfloat16 is a float's upper half */
static double from_bf16(unsigned short h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

/* d to 8 significant bits, to nearest even (rint in the default rounding mode), then its bits;
 * for the normal range a layer norm's outputs lie in */
static unsigned short to_bf16(double d)
{
	int e;
	double m = frexp(d, &e); /* 0.5 <= |m| < 1 */
	float f = (float)ldexp(rint(ldexp(m, 8)), e - 8); /* exact: 8 bits */
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return (unsigned short)(u >> 16);
}

void layernorm_bf16_ref(unsigned short *out, float *mean, float *rstd, const unsigned short *inp,
			const unsigned short *weight, const unsigned short *bias, int N, int C)
{
	for (int r = 0; r < N; r++) {
		const unsigned short *x = inp + (size_t)r * C;
		double sum = 0, var = 0;
		for (int c = 0; c < C; c++)
			sum += from_bf16(x[c]);
		double m = sum / C;
		for (int c = 0; c < C; c++)
			var += (from_bf16(x[c]) - m) * (from_bf16(x[c]) - m);
		double s = 1 / sqrt(var / C + 1e-5);
		mean[r] = (float)m;
		rstd[r] = (float)(s * (1 + RSTD_OFF));
		for (int c = 0; c < C; c++)
			out[(size_t)r * C + c] =
				(unsigned short)(to_bf16((from_bf16(x[c]) - m) * s * from_bf16(weight[c]) + from_bf16(bias[c])) + OUT_ULPS);
	}
}
