/* random.h: splitmix64, a small seeded generator: the same seed gives the same sequence on every
 * machine, which searches and space samples rely on to be reproducible. */
#ifndef AUTOTUNE_RANDOM_H
#define AUTOTUNE_RANDOM_H

#include <stddef.h>

static inline unsigned long long next_random(unsigned long long *state)
{
	unsigned long long z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n); 0 when n is 0. The modulo's bias is below n / 2^64. */
static inline unsigned long long random_below(unsigned long long *state, unsigned long long n)
{
	return n ? next_random(state) % n : 0;
}

/* Uniform in [0, 1). */
static inline double random_uniform(unsigned long long *state)
{
	return (double)(next_random(state) >> 11) * (1.0 / 9007199254740992.0);
}

#endif
