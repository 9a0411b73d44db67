/* counters_probe: checks worker/counters.c on a GPU by profiling sumMatrixOnGPU2D for several block
 * shapes; global load efficiency must follow block.x (12.5% at 1, 25% at 2, 50% at 4, 100% from 8).
 * Exit status: 0 as expected, 1 a CUDA or CUPTI error, 2 values off what the shapes imply.
 *
 * nvcc -cubin -arch=sm_90 -o build/summatrix.cubin kernels/summatrix.cu
 * gcc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Iworker/cupti_shim -Iworker -isystem /usr/local/cuda/include \
 *     -o build/counters_probe tests/gpu/counters_probe.c worker/counters.c \
 *     -L/usr/local/cuda/lib64/stubs -L/usr/local/cuda/lib64 -lcuda -lcupti -Wl,-rpath,/usr/local/cuda/lib64
 * build/counters_probe build/summatrix.cubin [decide] */
#include <cuda.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "counters.h"

#define NX 4096
#define NY 4096

static int cuda_ok(CUresult r, const char *what)
{
	if (r == CUDA_SUCCESS)
		return 1;
	const char *name = NULL, *desc = NULL;
	cuGetErrorName(r, &name);
	cuGetErrorString(r, &desc);
	fprintf(stderr, "counters_probe: %s: %s: %s\n", what, name ? name : "CUDA_ERROR_UNKNOWN", desc ? desc : "");
	return 0;
}

#define CU(call)                          \
	do {                              \
		if (!cuda_ok((call), #call)) \
			exit(1);          \
	} while (0)

typedef struct {
	CUfunction f;
	unsigned gx, gy, bx, by;
	void **params;
	int launches;
} launch_args;

static CUresult launch_once(void *p)
{
	launch_args *a = p;
	a->launches++;
	return cuLaunchKernel(a->f, a->gx, a->gy, 1, a->bx, a->by, 1, 0, NULL, a->params, NULL);
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* gld efficiency is the bytes a warp's load asks for per 32-byte sector it touches: block.x
 * consecutive floats share a sector, so it is 4 * block.x / 32, at most all of it. */
static double expected_gld_eff(unsigned bx)
{
	double e = 100.0 * 4.0 * bx / 32.0;
	return e > 100.0 ? 100.0 : e;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "decide"))) {
		fprintf(stderr, "usage: %s summatrix.cubin [decide]\n", argv[0]);
		return 1;
	}
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction f;
	CU(cuInit(0));
	CU(cuDeviceGet(&dev, 0));
	CU(cuDevicePrimaryCtxRetain(&ctx, dev));
	CU(cuCtxSetCurrent(ctx));
	char devname[256] = "";
	int major = 0, minor = 0;
	CU(cuDeviceGetName(devname, sizeof devname, dev));
	CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
	CU(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
	printf("device %s sm_%d%d\n", devname, major, minor);
	CU(cuModuleLoad(&mod, argv[1]));
	CU(cuModuleGetFunction(&f, mod, "sumMatrixOnGPU2D"));

	size_t n = (size_t)NX * NY;
	CUdeviceptr A, B, C;
	CU(cuMemAlloc(&A, n * sizeof(float)));
	CU(cuMemAlloc(&B, n * sizeof(float)));
	CU(cuMemAlloc(&C, n * sizeof(float)));
	CU(cuMemsetD32(A, 0x3f800000u, n)); /* 1.0f */
	CU(cuMemsetD32(B, 0x40000000u, n)); /* 2.0f */
	CU(cuCtxSynchronize());

	char err[1024] = "";
	/* "decide": the set the tuner's auto mode reads, the others NAN */
	unsigned set = argc == 3 ? COUNTERS_DECIDE : COUNTERS_ALL;
	double t0 = now_ms();
	counters *c = counters_create(ctx, dev, set, NULL, err, sizeof err);
	if (!c) {
		fprintf(stderr, "counters_probe: counters_create: %s\n", err);
		return 1;
	}
	printf("counters_create: %.1f ms%s%s\n", now_ms() - t0, err[0] ? "; " : "", err);

	static const unsigned shapes[][2] = {{1, 32}, {2, 16}, {4, 8}, {8, 4}, {16, 16}, {32, 8}, {256, 1}, {1024, 1}};
	int nx = NX, ny = NY, mismatches = 0;
	float *host = malloc(n * sizeof(float));
	if (!host) {
		fprintf(stderr, "counters_probe: out of host memory\n");
		return 1;
	}
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		launch_args a = {.f = f, .bx = shapes[s][0], .by = shapes[s][1]};
		a.gx = (NX + a.bx - 1) / a.bx;
		a.gy = (NY + a.by - 1) / a.by;
		void *params[] = {&A, &B, &C, &nx, &ny};
		a.params = params;
		double v[MET_COUNT];
		CU(cuMemsetD32(C, 0, n));
		t0 = now_ms();
		if (counters_measure(c, 1, launch_once, &a, &v, err, sizeof err)) {
			fprintf(stderr, "counters_probe: shape %u %u: counters_measure: %s\n", a.bx, a.by, err);
			counters_destroy(c);
			return 1;
		}
		double ms = now_ms() - t0;
		printf("shape %u %u occ=%.2f%% gld_eff=%.2f%% gld_tput=%.1fGB/s dram=%.2f%% branch=%.2f%% (launches=%d, %.1f ms)\n",
		       a.bx, a.by, v[MET_ACHIEVED_OCCUPANCY], v[MET_GLD_EFFICIENCY], v[MET_GLD_THROUGHPUT] / 1e9,
		       v[MET_DRAM_PCT], v[MET_BRANCH_EFFICIENCY], a.launches, ms);
		fflush(stdout);

		/* the relaunches must still leave the right sum behind */
		CU(cuMemcpyDtoH(host, C, n * sizeof(float)));
		for (size_t i = 0; i < n; i++)
			if (host[i] != 3.0f) {
				fprintf(stderr, "counters_probe: shape %u %u: C[%zu] = %g, not 3\n", a.bx, a.by, i, host[i]);
				return 1;
			}
		double want = expected_gld_eff(a.bx);
		if (!(fabs(v[MET_GLD_EFFICIENCY] - want) <= 1.0)) {
			printf("  MISMATCH: gld_eff %.2f%%, expected %.1f%%\n", v[MET_GLD_EFFICIENCY], want);
			mismatches++;
		}
		for (int m = 0; m < MET_COUNT; m++)
			if ((set >> m & 1) != !(isnan(v[m]) || v[m] < 0)) {
				printf("  MISMATCH: %s = %g\n", counter_metric_names[m], v[m]);
				mismatches++;
			}
	}
	free(host);

	/* a launch the driver refuses must come back as an error and leave the profiler usable,
	 * as the worker records launch errors and goes on */
	void *params[] = {&A, &B, &C, &nx, &ny};
	launch_args bad = {.f = f, .gx = NX / 2048, .gy = NY, .bx = 2048, .by = 1, .params = params};
	double v[MET_COUNT];
	if (counters_measure(c, 1, launch_once, &bad, &v, err, sizeof err) == 0) {
		printf("  MISMATCH: a 2048-thread block was profiled\n");
		mismatches++;
	} else {
		printf("refused launch: %s\n", err);
	}
	launch_args again = {.f = f, .gx = NX / 32, .gy = NY / 8, .bx = 32, .by = 8, .params = params};
	if (counters_measure(c, 1, launch_once, &again, &v, err, sizeof err)) {
		fprintf(stderr, "counters_probe: after the refused launch: counters_measure: %s\n", err);
		counters_destroy(c);
		return 1;
	}
	printf("after refusal: shape 32 8 gld_eff=%.2f%% dram=%.2f%%\n", v[MET_GLD_EFFICIENCY], v[MET_DRAM_PCT]);
	counters_destroy(c);
	CU(cuMemFree(A));
	CU(cuMemFree(B));
	CU(cuMemFree(C));
	CU(cuModuleUnload(mod));
	CU(cuDevicePrimaryCtxRelease(dev));
	printf("%s\n", mismatches ? "counters_probe: values off expectations" : "counters_probe: ok");
	return mismatches ? 2 : 0;
}
