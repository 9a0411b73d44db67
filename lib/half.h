/* half.h: IEEE binary16 (CUDA's half) and bfloat16 as the bits they are stored in, converted
 * to and from double exactly: to double without loss, from double rounded to nearest, ties to
 * even, in one step (through float would round twice: 1 + 2^-11 + 2^-40 would become 1, not the
 * nearer 1 + 2^-10). Integer arithmetic only, so that the worker's helper kernels (nvcc) and the
 * host (C) share one definition, the one tests/test_half.c checks: overflow gives Inf, NaN stays a
 * (quiet) NaN of its sign, tiny values become subnormals or a zero of their sign. */
#ifndef AUTOTUNE_HALF_H
#define AUTOTUNE_HALF_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define HALF_FN __host__ __device__ static inline
#else
#define HALF_FN static inline
#endif

/* binary16: 5 exponent bits, 10 of mantissa; bfloat16: float's 8 and 7 */
#define HALF_MANT 10
#define HALF_EXP 5
#define BF16_MANT 7
#define BF16_EXP 8

/* d rounded to a format of mbits mantissa and ebits exponent bits (16 in all). */
HALF_FN uint16_t narrow_from_double(double d, int mbits, int ebits)
{
	uint64_t b;
	memcpy(&b, &d, sizeof b);
	uint16_t sign = (uint16_t)(b >> 63 << 15), inf = (uint16_t)(((1u << ebits) - 1) << mbits);
	uint64_t mag = b & 0x7FFFFFFFFFFFFFFFull;
	if (mag >= 0x7FF0000000000000ull) /* Inf, or NaN made quiet */
		return sign | inf | (mag > 0x7FF0000000000000ull ? (uint16_t)(1u << (mbits - 1)) : 0);
	int bias = (1 << (ebits - 1)) - 1, e = (int)(mag >> 52) - 1023;
	if (e > bias)
		return sign | inf;
	uint64_t sig = (mag & 0xFFFFFFFFFFFFFull) | (mag >> 52 ? 1ull << 52 : 0);
	/* bits dropped: the mantissa's surplus, and for a subnormal result the exponent's shortfall */
	int shift = 52 - mbits + (e < 1 - bias ? 1 - bias - e : 0);
	if (shift > 60) /* below half the smallest subnormal: a zero */
		return sign;
	uint64_t kept = sig >> shift, rest = sig & ((1ull << shift) - 1), halfway = 1ull << (shift - 1);
	/* a normal result is its biased exponent above the mantissa; a subnormal's is 0 */
	uint64_t bits = e < 1 - bias ? kept : ((uint64_t)(e + bias) << mbits) + (kept & ((1ull << mbits) - 1));
	/* a carry out of the mantissa steps the exponent, up to Inf: the encoding's order is the value's */
	if (rest > halfway || (rest == halfway && (bits & 1)))
		bits++;
	return sign | (uint16_t)bits;
}

/* The value of h, exactly. */
HALF_FN double narrow_to_double(uint16_t h, int mbits, int ebits)
{
	int bias = (1 << (ebits - 1)) - 1, e = (h >> mbits) & ((1 << ebits) - 1);
	uint64_t m = h & ((1u << mbits) - 1), sign = (uint64_t)(h >> 15) << 63, b;
	double d;
	if (e == (1 << ebits) - 1) /* Inf; NaN keeps its payload's top bits and is quiet */
		b = sign | 0x7FF0000000000000ull | (m ? 0x8000000000000ull | m << (52 - mbits) : 0);
	else if (e)
		b = sign | (uint64_t)(e - bias + 1023) << 52 | m << (52 - mbits);
	else {
		/* a subnormal: m units of 2^(1 - bias - mbits), a power of two a double holds exactly */
		b = (uint64_t)(1 - bias - mbits + 1023) << 52;
		memcpy(&d, &b, sizeof d);
		d *= (double)m;
		return sign ? -d : d;
	}
	memcpy(&d, &b, sizeof d);
	return d;
}

HALF_FN uint16_t half_from_double(double d) { return narrow_from_double(d, HALF_MANT, HALF_EXP); }
HALF_FN double half_to_double(uint16_t h) { return narrow_to_double(h, HALF_MANT, HALF_EXP); }
HALF_FN uint16_t bf16_from_double(double d) { return narrow_from_double(d, BF16_MANT, BF16_EXP); }
HALF_FN double bf16_to_double(uint16_t h) { return narrow_to_double(h, BF16_MANT, BF16_EXP); }

#endif
