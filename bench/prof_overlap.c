/* prof_overlap: does a second process that starts CUPTI's range profiler move the kernel times
 * a first process takes meanwhile on the same GPU? And does the profiler's first-start cost
 * (about 0.15 s) stay paid in that second process until it profiles for real, later?
 *
 *   prof_overlap timer SECONDS CUBIN   one launch of sumMatrixOnGPU2D (32x8, 4096^2) per sample,
 *                                      timed with events; prints "at_ms sample_ms" per sample
 *   prof_overlap prof DELAY_MS WAIT_MS CUBIN
 *                                      after DELAY_MS: creates the profiler and profiles one
 *                                      launch (the warm-up); WAIT_MS later profiles one again;
 *                                      prints when and how long each step took
 * Times are ms on CLOCK_MONOTONIC, so the two processes' lines can be lined up (bench/prof_overlap.sh). */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "counters.h"

#define N 4096

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void check(CUresult r, const char *what)
{
	if (r != CUDA_SUCCESS) {
		const char *s = NULL;
		cuGetErrorName(r, &s);
		fprintf(stderr, "prof_overlap: %s: %s\n", what, s ? s : "?");
		exit(1);
	}
}

typedef struct {
	CUfunction f;
	void **params;
} launch_args;

static CUresult launch_once(void *p)
{
	launch_args *a = p;
	return cuLaunchKernel(a->f, N / 32, N / 8, 1, 32, 8, 1, 0, NULL, a->params, NULL);
}

static void sleep_ms(double ms)
{
	struct timespec t = {(time_t)(ms / 1000), (long)((ms - 1000 * (double)(long)(ms / 1000)) * 1e6)};
	nanosleep(&t, NULL);
}

int main(int argc, char **argv)
{
	int timer = argc == 4 && !strcmp(argv[1], "timer"), prof = argc == 5 && !strcmp(argv[1], "prof");
	if (!timer && !prof) {
		fprintf(stderr, "usage: prof_overlap timer SECONDS CUBIN | prof DELAY_MS WAIT_MS CUBIN\n");
		return 2;
	}
	double start = now_ms();
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction f;
	check(cuInit(0), "cuInit");
	check(cuDeviceGet(&dev, 0), "cuDeviceGet");
	check(cuDevicePrimaryCtxRetain(&ctx, dev), "context");
	check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
	check(cuModuleLoad(&mod, argv[argc - 1]), "cuModuleLoad");
	check(cuModuleGetFunction(&f, mod, "sumMatrixOnGPU2D"), "cuModuleGetFunction");
	CUdeviceptr A, B, C;
	size_t bytes = (size_t)N * N * sizeof(float);
	check(cuMemAlloc(&A, bytes), "alloc");
	check(cuMemAlloc(&B, bytes), "alloc");
	check(cuMemAlloc(&C, bytes), "alloc");
	check(cuMemsetD32(A, 0x3f800000u, (size_t)N * N), "memset");
	check(cuMemsetD32(B, 0x40000000u, (size_t)N * N), "memset");
	int nx = N, ny = N;
	void *params[] = {&A, &B, &C, &nx, &ny};
	launch_args a = {f, params};
	check(cuCtxSynchronize(), "sync");
	printf("# %s ready at %.1f ms (%.1f ms to set up)\n", argv[1], now_ms(), now_ms() - start);
	if (timer) {
		CUevent e0, e1;
		check(cuEventCreate(&e0, 0), "event");
		check(cuEventCreate(&e1, 0), "event");
		double end = now_ms() + 1000 * atof(argv[2]);
		while (now_ms() < end) {
			double at = now_ms();
			check(cuEventRecord(e0, NULL), "record");
			check(launch_once(&a), "launch");
			check(cuEventRecord(e1, NULL), "record");
			check(cuEventSynchronize(e1), "sync");
			float ms;
			check(cuEventElapsedTime(&ms, e0, e1), "elapsed");
			printf("%.3f %.5f\n", at, ms);
		}
		return 0;
	}
	sleep_ms(atof(argv[2]));
	char err[512] = "";
	double v[1][MET_COUNT];
	double t0 = now_ms();
	counters *c = counters_create(ctx, dev, COUNTERS_DECIDE, NULL, err, sizeof err);
	if (!c) {
		fprintf(stderr, "prof_overlap: %s\n", err);
		return 1;
	}
	double t1 = now_ms();
	if (counters_measure(c, 1, launch_once, &a, v, err, sizeof err)) {
		fprintf(stderr, "prof_overlap: warm-up: %s\n", err);
		return 1;
	}
	double t2 = now_ms();
	printf("# create %.3f .. %.3f (%.1f ms); warm-up session %.3f .. %.3f (%.1f ms), occupancy %.1f%%\n", t0, t1,
	       t1 - t0, t1, t2, t2 - t1, v[0][MET_ACHIEVED_OCCUPANCY]);
	sleep_ms(atof(argv[3]));
	double t3 = now_ms();
	if (counters_measure(c, 1, launch_once, &a, v, err, sizeof err)) {
		fprintf(stderr, "prof_overlap: later: %s\n", err);
		return 1;
	}
	double t4 = now_ms();
	printf("# later session %.3f .. %.3f (%.1f ms), occupancy %.1f%%, load efficiency %.1f%%\n", t3, t4, t4 - t3,
	       v[0][MET_ACHIEVED_OCCUPANCY], v[0][MET_GLD_EFFICIENCY]);
	counters_destroy(c);
	return 0;
}
