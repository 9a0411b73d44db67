/* fills.c: the worker's generated fills, made on the host (fills.h). */
#include "fills.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "banned.h"

enum kind { K_RANDOM, K_INDEX, K_CONSTANT, K_ZEROS, K_NONE };

static enum kind kind_of(const char *fill)
{
	static const char *names[] = {"random", "index", "constant", "zeros"};
	for (int k = 0; k < K_NONE; k++)
		if (!strcmp(fill, names[k]))
			return (enum kind)k;
	return K_NONE;
}

int fills_on_host(const char *fill, elem_type t)
{
	if (kind_of(fill) == K_NONE)
		return 0;
	switch (t) { /* make_range's types, named: a type added later is not made by accident */
	case ELEM_INT8: case ELEM_INT16: case ELEM_INT32: case ELEM_INT64:
	case ELEM_UINT8: case ELEM_UINT16: case ELEM_UINT32: case ELEM_UINT64:
	case ELEM_FLOAT: case ELEM_DOUBLE:
		return 1;
	default:
		return 0;
	}
}

/* One thread's range [from, to) of the fill. The formulas are worker_kernels.cu's random_value,
 * fill_index and fill_constant: each result is exact (a 24- or 53-bit integer scaled by a power of
 * two, minus one), so contraction into an FMA on either side cannot change it. */
typedef struct {
	unsigned char *dst;
	elem_type t;
	enum kind k;
	uint64_t from, to, seed;
	double value;
} range;

#define LOOP(T, EXPR)                                          \
	do {                                                   \
		T *p = (T *)(void *)r->dst;                    \
		for (uint64_t i = r->from; i < r->to; i++)     \
			p[i] = (EXPR);                         \
	} while (0)
#define RANDOM_INT(T, OFFSET) LOOP(T, (T)((int)(fills_bits(r->seed, i) % 100) - (OFFSET)))
#define BY_KIND(T, RANDOM)                                                 \
	do {                                                               \
		if (r->k == K_RANDOM)                                      \
			RANDOM;                                            \
		else if (r->k == K_INDEX)                                  \
			LOOP(T, (T)i);                                     \
		else                                                       \
			LOOP(T, (T)r->value);                              \
	} while (0)

static void *make_range(void *arg)
{
	const range *r = arg;
	if (r->k == K_ZEROS) {
		size_t size = elem_size(r->t);
		memset(r->dst + r->from * size, 0, (size_t)(r->to - r->from) * size);
		return NULL;
	}
	switch (r->t) {
	case ELEM_FLOAT:
		BY_KIND(float, LOOP(float, (float)(fills_bits(r->seed, i) >> 40) * (2.0f / 16777216.0f) - 1.0f));
		break;
	case ELEM_DOUBLE:
		BY_KIND(double, LOOP(double, (double)(fills_bits(r->seed, i) >> 11) * (2.0 / 9007199254740992.0) - 1.0));
		break;
	case ELEM_INT8: BY_KIND(int8_t, RANDOM_INT(int8_t, 50)); break;
	case ELEM_INT16: BY_KIND(int16_t, RANDOM_INT(int16_t, 50)); break;
	case ELEM_INT32: BY_KIND(int32_t, RANDOM_INT(int32_t, 50)); break;
	case ELEM_INT64: BY_KIND(int64_t, RANDOM_INT(int64_t, 50)); break;
	case ELEM_UINT8: BY_KIND(uint8_t, RANDOM_INT(uint8_t, 0)); break;
	case ELEM_UINT16: BY_KIND(uint16_t, RANDOM_INT(uint16_t, 0)); break;
	case ELEM_UINT32: BY_KIND(uint32_t, RANDOM_INT(uint32_t, 0)); break;
	case ELEM_UINT64: BY_KIND(uint64_t, RANDOM_INT(uint64_t, 0)); break;
	default: break; /* fills_on_host refused it */
	}
	return NULL;
}

/* Whether (T)value is defined in C for integer type t: a value outside its range (or NaN) is
 * undefined on the host and saturates on the GPU, so such a constant is the GPU's to make. */
static int constant_fits(elem_type t, double value)
{
	static const struct { elem_type t; double lo, hi; } range[] = {
		{ELEM_INT8, -128.0, 127.0}, {ELEM_INT16, -32768.0, 32767.0}, {ELEM_INT32, -2147483648.0, 2147483647.0},
		{ELEM_INT64, -9223372036854775808.0, 9223372036854774784.0}, {ELEM_UINT8, 0, 255.0},
		{ELEM_UINT16, 0, 65535.0}, {ELEM_UINT32, 0, 4294967295.0}, {ELEM_UINT64, 0, 18446744073709549568.0},
	};
	for (size_t k = 0; k < sizeof range / sizeof *range; k++)
		if (range[k].t == t) /* truncation toward zero: (lo - 1, hi + 1) converts */
			return value > range[k].lo - 1 && value < range[k].hi + 1;
	return 1; /* float and double */
}

/* Below this many elements a thread's start costs more than it saves. */
#define PER_THREAD 65536
#define MAX_THREADS 64

int fills_make(void *dst, elem_type t, const char *fill, uint64_t n, uint64_t seed, double value, int threads)
{
	if (!fills_on_host(fill, t) || (kind_of(fill) == K_CONSTANT && !constant_fits(t, value)))
		return -1;
	if (threads <= 0) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		threads = cores > 0 ? (int)cores : 1;
	}
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	if ((uint64_t)threads > n / PER_THREAD)
		threads = n / PER_THREAD > 0 ? (int)(n / PER_THREAD) : 1;
	range r[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	int started[MAX_THREADS] = {0};
	for (int k = 0; k < threads; k++)
		r[k] = (range){.dst = dst, .t = t, .k = kind_of(fill), .from = n * k / threads,
			       .to = n * (k + 1) / threads, .seed = seed, .value = value};
	/* the first range on this thread; one that cannot start a thread is made here too */
	for (int k = 1; k < threads; k++)
		started[k] = pthread_create(&th[k], NULL, make_range, &r[k]) == 0;
	make_range(&r[0]);
	for (int k = 1; k < threads; k++)
		if (started[k])
			pthread_join(th[k], NULL);
		else
			make_range(&r[k]);
	return 0;
}
