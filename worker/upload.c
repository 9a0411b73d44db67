/* upload.c: host-to-device copies through pinned buffers (upload.h). A pageable cuMemcpyHtoD
 * stages through the driver's own pinned buffers with one thread's memcpy, about 5-10 GB/s: a
 * 1.6 GB host reference's output took a few tenths of a second to reach the GPU. Here the
 * staging memcpy is split over threads, and the next chunk is staged while the last one's DMA
 * runs, so the link sets the pace. */
#include "upload.h"

#include <pthread.h>
#include <string.h>

#include "banned.h"

#define CHUNK (64u << 20)
#define THREADS 4

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

/* memcpy of n bytes on THREADS threads (this one among them). */
static void copy_wide(char *dst, const char *src, size_t n)
{
	part p[THREADS];
	pthread_t th[THREADS];
	int started[THREADS] = {0};
	for (int k = 0; k < THREADS; k++)
		p[k] = (part){dst + n * k / THREADS, src + n * k / THREADS, n * (k + 1) / THREADS - n * k / THREADS};
	for (int k = 1; k < THREADS; k++)
		started[k] = pthread_create(&th[k], NULL, copy_part, &p[k]) == 0;
	copy_part(&p[0]);
	for (int k = 1; k < THREADS; k++)
		if (started[k])
			pthread_join(th[k], NULL);
		else
			copy_part(&p[k]);
}

/* The chunks, alternating between the two buffers: a buffer is refilled once its last DMA ended. */
static CUresult staged(CUdeviceptr dst, const char *src, size_t bytes, void *stage[2], CUstream s, CUevent done[2])
{
	CUresult r = CUDA_SUCCESS;
	for (size_t off = 0, k = 0; !r && off < bytes; off += CHUNK, k ^= 1) {
		size_t n = bytes - off < CHUNK ? bytes - off : CHUNK;
		if (off >= 2 * (size_t)CHUNK && (r = cuEventSynchronize(done[k])))
			break;
		copy_wide(stage[k], src + off, n);
		if (!(r = cuMemcpyHtoDAsync(dst + off, stage[k], n, s)))
			r = cuEventRecord(done[k], s);
	}
	return r;
}

CUresult upload(CUdeviceptr dst, const void *src, size_t bytes)
{
	if (bytes < 4 * (size_t)CHUNK)
		return cuMemcpyHtoD(dst, src, bytes);
	void *stage[2] = {NULL, NULL};
	CUstream s = NULL;
	CUevent done[2] = {NULL, NULL};
	if (cuMemAllocHost(&stage[0], CHUNK) || cuMemAllocHost(&stage[1], CHUNK) ||
	    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) || cuEventCreate(&done[0], CU_EVENT_DISABLE_TIMING) ||
	    cuEventCreate(&done[1], CU_EVENT_DISABLE_TIMING)) {
		if (s)
			cuStreamDestroy(s);
		for (int k = 0; k < 2; k++) {
			if (stage[k])
				cuMemFreeHost(stage[k]);
			if (done[k])
				cuEventDestroy(done[k]);
		}
		return cuMemcpyHtoD(dst, src, bytes);
	}
	CUresult r = staged(dst, src, bytes, stage, s, done);
	/* the buffers are freed only once no DMA reads them, whatever went wrong */
	CUresult w = cuStreamSynchronize(s);
	if (!r)
		r = w;
	cuStreamDestroy(s);
	for (int k = 0; k < 2; k++) {
		cuEventDestroy(done[k]);
		cuMemFreeHost(stage[k]);
	}
	return r;
}
