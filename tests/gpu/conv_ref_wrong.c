/* A host reference with a mistake a user could make: the filter read transposed. Every
 * configuration of the convolution must be a wrong result against it. */
#define convolution_ref convolution_ref_right
#include "../../kernels/convolution_ref.c"
#undef convolution_ref

void convolution_ref(float *out, const float *in, int w, int h, const float *filter)
{
	float t[17 * 17];
	for (int i = 0; i < 17; i++)
		for (int j = 0; j < 17; j++)
			t[j * 17 + i] = filter[i * 17 + j];
	convolution_ref_right(out, in, w, h, t);
}
