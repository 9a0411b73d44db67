/* Independent reference for BAT's convolution (tests/t1/published/bat/convolution.cu) as its
 * spec runs it: a 4096 x 4096 image, a 15 x 15 filter (in __constant__ memory, d_filter), an input
 * of (4096 + 14)^2. out[y][x] = sum over i, j of in[y + i][x + j] * filter[i][j], summed in the
 * kernel's order (i, then j), one fused multiply-add at a time. d_filter_arg is the kernel's
 * unused 'filter' pointer parameter. */
#include <math.h>
#include <stddef.h>

#define W 4096
#define H 4096
#define F 15

void bat_convolution_ref(float *out, float *in, float *d_filter_arg, float *d_filter)
{
	(void)d_filter_arg;
	const int in_w = W + F - 1;
#pragma omp parallel for
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			float acc = 0.0f;
			for (int i = 0; i < F; i++)
				for (int j = 0; j < F; j++)
					acc = fmaf(in[(size_t)(y + i) * in_w + x + j], d_filter[i * F + j], acc);
			out[(size_t)y * W + x] = acc;
		}
}
