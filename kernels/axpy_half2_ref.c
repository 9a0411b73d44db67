/* axpy_half2.cu on the host, for verify.host (tests/gpu/axpy_half2_host.yaml): out = a x + y per
 * half, exact in double (random halves are multiples of 2^-10 in [-1, 1), a is 1.25: 14 bits) and
 * rounded once to nearest even, as __hfma2 rounds; every configuration must agree bit for bit.
 * Halves arrive as their bits. Written apart from lib/half.h, on ldexp and rint. TRUNCATE rounds
 * toward zero instead (the GPU test's wrong reference). */
#include <math.h>
#include <stddef.h>

static double from_half(unsigned short h)
{
	int e = h >> 10 & 31, m = h & 1023;
	double v = e == 31 ? (m ? NAN : INFINITY) : e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
	return h & 0x8000 ? -v : v;
}

/* d to 11 significant bits (fewer below 2^-14), to nearest even, as half's bits; Inf past 65504 */
static unsigned short to_half(double d)
{
	unsigned short sign = signbit(d) ? 0x8000 : 0;
	d = fabs(d);
	int e;
	frexp(d, &e); /* d = m 2^e, 0.5 <= m < 1 */
	int q = e - 11 < -24 ? -24 : e - 11; /* the last place kept */
#ifdef TRUNCATE
	double r = trunc(ldexp(d, -q));
#else
	double r = rint(ldexp(d, -q));
#endif
	double v = ldexp(r, q);
	if (v > 65504)
		return sign | 0x7C00;
	if (v < ldexp(1, -14))
		return sign | (unsigned short)ldexp(v, 24);
	frexp(v, &e);
	return sign | (unsigned short)((e + 14) << 10 | ((unsigned)ldexp(v, 11 - e) & 1023));
}

/* out, x, y: n pairs (2n halves) */
void axpy_half2_ref(void *out, const void *x, const void *y, unsigned short a, int n)
{
	unsigned short *o = out;
	const unsigned short *xs = x, *ys = y;
	double av = from_half(a);
	for (size_t i = 0; i < 2 * (size_t)n; i++)
		o[i] = to_half(av * from_half(xs[i]) + from_half(ys[i]));
}
