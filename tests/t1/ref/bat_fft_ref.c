/* Independent reference for BAT's FFT (tests/t1/published/bat/fft.cu, entry FFT512_device): each
 * block transforms 512 consecutive complex floats in place, the forward DFT in natural order,
 * X[k] = sum over t of x[t] e^(-2 pi i t k / 512). Computed directly (no FFT) in double; the
 * kernel's twiddles use __sinf/__cosf, so compare with a tolerance. No libm: the twiddles by
 * their series. */
#include <stdlib.h>

#define N 512
#define PI 3.14159265358979323846

/* cos and sin of a in [-pi, pi] by their series (no libm: the reference runs inside the worker) */
static void cis(double a, double *c, double *s)
{
	double term = 1, cs = 0, sn = 0;
	for (int k = 0; k < 40; k++) {
		if (k % 4 == 0)
			cs += term;
		else if (k % 4 == 1)
			sn += term;
		else if (k % 4 == 2)
			cs -= term;
		else
			sn -= term;
		term *= a / (k + 1);
	}
	*c = cs;
	*s = sn;
}

void bat_fft_ref(void *work)
{
	float *w = work;
	const int count = 262144 / N;
	double *c = malloc(N * sizeof *c), *s = malloc(N * sizeof *s);
	if (!c || !s)
		abort();
	for (int t = 0; t < N; t++) {
		double a = 2 * PI * (t <= N / 2 ? t : t - N) / N, sn;
		cis(a, &c[t], &sn);
		s[t] = -sn;
	}
#pragma omp parallel for
	for (int f = 0; f < count; f++) {
		float *x = w + (size_t)f * 2 * N;
		double *re = malloc(2 * N * sizeof *re), *im = re + N;
		if (!re)
			abort();
		for (int k = 0; k < N; k++) {
			double sr = 0, si = 0;
			for (int t = 0; t < N; t++) {
				int p = (int)(((long)t * k) % N);
				sr += x[2 * t] * c[p] - x[2 * t + 1] * s[p];
				si += x[2 * t] * s[p] + x[2 * t + 1] * c[p];
			}
			re[k] = sr;
			im[k] = si;
		}
		for (int k = 0; k < N; k++) {
			x[2 * k] = (float)re[k];
			x[2 * k + 1] = (float)im[k];
		}
		free(re);
	}
	free(c);
	free(s);
}
