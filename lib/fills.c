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

/* Below this many elements a thread's start costs more than it saves. */
#define PER_THREAD 65536
#define MAX_THREADS 64

int fills_make(void *dst, elem_type t, const char *fill, uint64_t n, uint64_t seed, double value, int threads)
{
	if (!fills_on_host(fill, t))
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
