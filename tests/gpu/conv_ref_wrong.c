/* A host reference with a mistake a user could make: the filter read transposed. Every
 * configuration of the convolution must be a wrong result against it. */
#include <math.h>
#include <stddef.h>

void convolution_ref(float *out, const float *in, int w, int h, const float *filter)
{
	const int size = 17, in_w = w + size - 1;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			float acc = 0.0f;
			for (int fy = 0; fy < size; fy++)
				for (int fx = 0; fx < size; fx++)
					acc = fmaf(filter[fx * size + fy], in[(size_t)(y + fy) * in_w + x + fx], acc);
			out[(size_t)y * w + x] = acc;
		}
}
