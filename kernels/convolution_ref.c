/* The convolution of convolution.cu on the host, for verify.host: each output sums its
 * products in the kernel's order (filter row by row) with the same fused multiply-adds, so a
 * correct configuration agrees with it exactly. */
#include <math.h>
#include <stddef.h>

/* out: w x h; in: (w + halo) x (h + halo), row-major; filter: (halo + 1)^2, row-major. */
void convolution_ref(float *out, const float *in, int w, int h, const float *filter)
{
	const int size = 17, in_w = w + size - 1;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			float acc = 0.0f;
			for (int fy = 0; fy < size; fy++)
				for (int fx = 0; fx < size; fx++)
					acc = fmaf(filter[fy * size + fx], in[(size_t)(y + fy) * in_w + x + fx], acc);
			out[(size_t)y * w + x] = acc;
		}
}
