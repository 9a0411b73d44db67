/* convolution_ref.c: the independent reference for benchmark_hub's convolution_milo and Kernel
 * Tuner's test_T1_input (one kernel, convolution_kernel): a filter_height x filter_width filter
 * slid over an input with a border of (filter_height/2)*2 rows and (filter_width/2)*2 columns,
 * out[y][x] = sum over i, j of in[y + i][x + j] * filter[i][j], 4096 x 4096 outputs. The
 * kernel's row stride is its own input_width, 4096 + (filter_width/2)*2, whatever size the spec
 * allocates. Each output's products are summed in the kernel's order (rows, then columns), each
 * a fused multiply-add as nvcc contracts them. filter_width and filter_height are -D flags
 * (verify.host.flags), the kernel's names; 15 by default (convolution_milo's only value). */
#include <math.h>

#ifndef filter_width
#define filter_width 15
#endif
#ifndef filter_height
#define filter_height 15
#endif

void convolution_ref(float *out, const float *in, const float *filter_arg, const float *filter)
{
	enum { W = 4096, H = 4096, IN_W = W + (filter_width / 2) * 2 };
	(void)filter_arg; /* the kernel reads the __constant__ copy, `filter`: the same values */
#pragma omp parallel for
	for (int y = 0; y < H; y++) {
		float *row = out + (long)y * W;
		for (int x = 0; x < W; x++)
			row[x] = 0.0f;
		/* each output's products in the kernel's order; a row at a time, for the vector units */
		for (int i = 0; i < filter_height; i++)
			for (int j = 0; j < filter_width; j++) {
				const float f = filter[i * filter_width + j], *src = in + (long)(y + i) * IN_W + j;
				for (int x = 0; x < W; x++)
					row[x] = fmaf(src[x], f, row[x]);
			}
	}
}
