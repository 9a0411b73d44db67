/* transfer.c: copies between the host and the GPU through pinned buffers (transfer.h). A
 * pageable cuMemcpyHtoD or DtoH stages through the driver's own pinned buffers with one thread's
 * memcpy, about 5-10 GB/s: a 1.6 GB host reference's output took a few tenths of a second to
 * reach the GPU. Here the staging memcpy is split over threads, and one chunk is staged while
 * the other's DMA runs, so the link sets the pace. */
#include "transfer.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "banned.h"

#define CHUNK (64u << 20)
/* Staging threads at most: one thread's memcpy from memory the caches do not hold runs at 5-10
 * GB/s; 4 of them staged softmax_big's 1.65 GB output in 183 ms on an H200 host (9 GB/s), below
 * what the link takes. */
#define THREADS 8

typedef struct {
	char *dst;
	const char *src;
	size_t n;
} part;

static void *copy_part(void *arg)
{
	part *p = arg;
	memcpy(p->dst, p->src, p->n);
	return NULL;
}

/* memcpy of n bytes on up to THREADS threads, one per core (this one among them). */
static void copy_wide(char *dst, const char *src, size_t n)
{
	part p[THREADS];
	pthread_t th[THREADS];
	int started[THREADS] = {0};
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int threads = cores < 1 ? 1 : cores > THREADS ? THREADS : (int)cores;
	for (int k = 0; k < threads; k++)
		p[k] = (part){dst + n * k / threads, src + n * k / threads, n * (k + 1) / threads - n * k / threads};
	for (int k = 1; k < threads; k++)
		started[k] = pthread_create(&th[k], NULL, copy_part, &p[k]) == 0;
	copy_part(&p[0]);
	for (int k = 1; k < threads; k++)
		if (started[k])
			pthread_join(th[k], NULL);
		else
			copy_part(&p[k]);
}

/* Two pinned buffers, a stream and an event per buffer; 0, or -1 with nothing held. */
typedef struct {
	void *stage[2];
	CUstream s;
	CUevent done[2];
} stager;

static void stager_free(stager *g)
{
	if (g->s)
		cuStreamDestroy(g->s);
	for (int k = 0; k < 2; k++) {
		if (g->done[k])
			cuEventDestroy(g->done[k]);
		if (g->stage[k])
			cuMemFreeHost(g->stage[k]);
	}
}

static int stager_make(stager *g)
{
	*g = (stager){{NULL, NULL}, NULL, {NULL, NULL}};
	if (cuMemAllocHost(&g->stage[0], CHUNK) || cuMemAllocHost(&g->stage[1], CHUNK) ||
	    cuStreamCreate(&g->s, CU_STREAM_NON_BLOCKING) || cuEventCreate(&g->done[0], CU_EVENT_DISABLE_TIMING) ||
	    cuEventCreate(&g->done[1], CU_EVENT_DISABLE_TIMING)) {
		stager_free(g);
		return -1;
	}
	return 0;
}

/* The chunks, alternating between the two buffers: a buffer is refilled once its last DMA ended. */
static CUresult staged_up(CUdeviceptr dst, const char *src, size_t bytes, stager *g)
{
	CUresult r = CUDA_SUCCESS;
	for (size_t off = 0, k = 0; !r && off < bytes; off += CHUNK, k ^= 1) {
		size_t n = bytes - off < CHUNK ? bytes - off : CHUNK;
		if (off >= 2 * (size_t)CHUNK && (r = cuEventSynchronize(g->done[k])))
			break;
		copy_wide(g->stage[k], src + off, n);
		if (!(r = cuMemcpyHtoDAsync(dst + off, g->stage[k], n, g->s)))
			r = cuEventRecord(g->done[k], g->s);
	}
	return r;
}

/* Chunk i's DMA into buffer i % 2 is queued before chunk i - 1 is copied out of the other one. */
static CUresult staged_down(char *dst, CUdeviceptr src, size_t bytes, stager *g)
{
	size_t chunks = (bytes + CHUNK - 1) / CHUNK;
	CUresult r = CUDA_SUCCESS;
	for (size_t i = 0; !r && i <= chunks; i++) {
		if (i < chunks) {
			size_t off = i * (size_t)CHUNK, n = bytes - off < CHUNK ? bytes - off : CHUNK;
			if (!(r = cuMemcpyDtoHAsync(g->stage[i % 2], src + off, n, g->s)))
				r = cuEventRecord(g->done[i % 2], g->s);
		}
		if (!r && i > 0) {
			size_t off = (i - 1) * (size_t)CHUNK, n = bytes - off < CHUNK ? bytes - off : CHUNK;
			if (!(r = cuEventSynchronize(g->done[(i - 1) % 2])))
				copy_wide(dst + off, g->stage[(i - 1) % 2], n);
		}
	}
	return r;
}

/* The buffers are freed only once no DMA uses them, whatever went wrong. */
static CUresult stager_end(stager *g, CUresult r)
{
	CUresult w = cuStreamSynchronize(g->s);
	stager_free(g);
	return r ? r : w;
}

CUresult upload(CUdeviceptr dst, const void *src, size_t bytes)
{
	stager g;
	if (bytes < 4 * (size_t)CHUNK || stager_make(&g))
		return cuMemcpyHtoD(dst, src, bytes);
	return stager_end(&g, staged_up(dst, src, bytes, &g));
}

CUresult download(void *dst, CUdeviceptr src, size_t bytes)
{
	stager g;
	if (bytes < 4 * (size_t)CHUNK || stager_make(&g))
		return cuMemcpyDtoH(dst, src, bytes);
	return stager_end(&g, staged_down(dst, src, bytes, &g));
}
