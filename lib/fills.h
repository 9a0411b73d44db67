/* fills.h: the values of the worker's generated fills (fill: random, index, constant, zeros),
 * made on the host exactly as worker/worker_kernels.cu makes them on the GPU. Element i of a
 * random fill is a hash of (seed, i) alone (splitmix64's finaliser, counter-based), so any thread
 * can make any range of it: the host's copy of a 1.6 GB input takes tens of milliseconds on the
 * cores instead of a copy from the GPU, and is bit for bit what the kernel read. */
#ifndef AUTOTUNE_FILLS_H
#define AUTOTUNE_FILLS_H

#include <stdint.h>

#include "elem.h"

/* The 64 random bits of element i of a random fill with this seed. */
static inline uint64_t fills_mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}
static inline uint64_t fills_bits(uint64_t seed, uint64_t i) { return fills_mix(seed * 0x100000001B3ull ^ fills_mix(i)); }

/* Whether the host can make this fill ("random", "index", "constant", "zeros") of elements of
 * base type t: "normal" goes through the GPU's log and cospi, which the host's libm does not
 * match to the last bit, and a type the host does not know is the GPU's alone. */
int fills_on_host(const char *fill, elem_type t);

/* Writes n elements of base type t (vector types: n = count x lanes of their base type) of the
 * fill into dst, on up to `threads` threads (0: one per online core); 0, or -1 when
 * !fills_on_host(fill, t) or the constant is outside an integer type's range (dst untouched). */
int fills_make(void *dst, elem_type t, const char *fill, uint64_t n, uint64_t seed, double value, int threads);

#endif
