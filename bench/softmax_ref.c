/* softmax_ref.c: verify.host of bench/softmax_big.yaml: each row's softmax, its sum in double
 * precision, rows on every core (OpenMP, when built with -fopenmp: 8192 rows of 50304 are seconds
 * on one). Each exponential is taken once, kept in the output until the sum is known. */
#include <math.h>
#include <stddef.h>

void softmax_ref(float *out, const float *in, int n, int c);

void softmax_ref(float *out, const float *in, int n, int c)
{
#pragma omp parallel for schedule(static)
	for (int r = 0; r < n; r++) {
		const float *x = in + (size_t)r * c;
		float *y = out + (size_t)r * c;
		float m = -INFINITY;
		double s = 0;
		for (int j = 0; j < c; j++)
			m = x[j] > m ? x[j] : m;
		for (int j = 0; j < c; j++) {
			y[j] = expf(x[j] - m); /* the kernel's expf of the kernel's difference */
			s += y[j];
		}
		for (int j = 0; j < c; j++)
			y[j] = (float)(y[j] / s);
	}
}
