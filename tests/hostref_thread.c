/* hostref_thread.c: worker/hostref.c on the CPU, the arguments, the transfers and the replies
 * stood in for (no GPU, no toolkit: tests/nocuda/cuda.h). usage: hostref_thread REF.so, where
 * REF.so is this file built with -DREFERENCE_SO: a verify.host that waits until the harness lets
 * it go, so that the hostref command answering first shows the function runs on another thread
 * (run synchronously, it would never answer: the test's timeout says so). Prints what it saw, a
 * fact a line, for tests/test_hostref.c. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef REFERENCE_SO
#define N (3u << 20) /* 12 MiB of float: host copies from 2 MB up are mapped in huge pages */
extern volatile int harness_go;
extern void *harness_seen[4];
extern pthread_t harness_fn_thread;

void autotune_host_reference(void **a)
{
	while (!harness_go)
		usleep(1000);
	harness_fn_thread = pthread_self();
	memcpy(harness_seen, a, sizeof harness_seen);
	float *out = a[0];
	const float *in = a[1];
	const int *cp = a[2];
	for (unsigned i = 0; i < N; i++)
		out[i] = in[i] + (float)cp[i % 1000];
}
#else
#include "args.h"
#include "device.h"
#include "hostref.h"
#include "transfer.h"

#define N (3u << 20)
volatile int harness_go;
void *harness_seen[4];
pthread_t harness_fn_thread;

static pthread_t main_thread;
static int off_main_transfers;
static float device_out[N];  /* argument 0's reference "on the GPU" */
static int given[5];
static int uploads; /* the first fails, as a copy to the GPU may */

/* 0: out (float, pure output, the host's), 1: in (fill index, made by the host), 2: cp (int32,
 * copied from the GPU), 3: a scalar, 4: an int8 constant out of its range (copied) */
int args_count(void) { return 5; }

host_view args_host_view(int i)
{
	static const char *fills[] = {"zeros", "index", "", "", "constant"};
	host_view v = {.is_array = i != 3, .from_host = i == 0, .type = i == 2 ? ELEM_INT32 : i == 4 ? ELEM_INT8 : ELEM_FLOAT,
		       .count = i == 2 ? 1000 : i == 4 ? 10 : N, .host_fill = fills[i], .value = i == 4 ? 300 : 0,
		       .src = (CUdeviceptr)i, .ref = i == 0 ? (CUdeviceptr)(uintptr_t)device_out : 0};
	v.bytes = v.count * elem_size(v.type);
	return v;
}

void args_host_given(int i, int ok) { given[i] = ok; }

/* "the GPU's" arrays: cp[i] = 7 i; the int8 constant as the GPU saturates it */
CUresult download(void *dst, CUdeviceptr src, size_t bytes)
{
	off_main_transfers += !pthread_equal(pthread_self(), main_thread);
	for (size_t i = 0; src == 2 && i < bytes / 4; i++)
		((int *)dst)[i] = 7 * (int)i;
	if (src == 4)
		memset(dst, 127, bytes);
	return CUDA_SUCCESS;
}

CUresult upload(CUdeviceptr dst, const void *src, size_t bytes)
{
	off_main_transfers += !pthread_equal(pthread_self(), main_thread);
	if (uploads++ == 0)
		return CUDA_ERROR_OUT_OF_MEMORY;
	memcpy((void *)(uintptr_t)dst, src, bytes);
	return CUDA_SUCCESS;
}

const char *err_name(CUresult r) { return r ? "CUDA_ERROR" : "CUDA_SUCCESS"; }
void reply_ok(void) { printf("reply ok\n"); }

void reply_error(const char *code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("reply error %s ", code);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

static void hostref(const char *path)
{
	char *line = NULL;
	if (asprintf(&line, "hostref %s", path) < 0)
		exit(2);
	cmd_hostref(line);
	free(line);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	main_thread = pthread_self();
	if (argc != 2)
		return 2;
	hostref("/nonexistent/ref.so");
	hostref(argv[1]); /* answered while the function waits for harness_go */
	printf("pending %d\n", hostref_pending());
	hostref(argv[1]); /* one at a time */
	harness_go = 1;
	int arg;
	CUresult r = hostref_join(&arg);
	printf("failed join %d argument %d pending %d given %d\n", r, arg, hostref_pending(), given[0]);
	r = hostref_join(&arg);
	printf("joined %d pending %d given %d\n", r, hostref_pending(), given[0]);
	printf("function off the main thread %d\n", !pthread_equal(harness_fn_thread, main_thread));
	printf("transfers off the main thread %d\n", off_main_transfers);
	printf("scalar %s\n", harness_seen[3] ? "given memory" : "NULL");
	int aligned = 1;
	for (int i = 0; i < 2; i++)
		aligned &= ((uintptr_t)harness_seen[i] & ((2u << 20) - 1)) == 0;
	printf("large copies at 2 MB boundaries %d\n", aligned);
	size_t bad = 0;
	for (unsigned i = 0; i < N; i++)
		bad += device_out[i] != (float)i + (float)(7 * (int)(i % 1000));
	printf("reference values wrong %zu\n", bad);
	return 0;
}
#endif
