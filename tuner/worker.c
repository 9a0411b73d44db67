/* worker.c: autotune-worker, the only process that touches the GPU. It reads commands from
 * stdin and answers on stdout, one line each (see runner.c for the other side). A kernel that
 * poisons the CUDA context ends this process, never the tuner. It is a separate executable so
 * that autotune itself starts on machines without a GPU driver (libcuda is linked here only). */
#include <cuda.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elem.h"
#include "status.h"
#include "banned.h"

/* worker_kernels.cu as a fatbin, linked in by `ld -r -b binary` (see Makefile). */
extern const unsigned char _binary_worker_kernels_fatbin_start[];

#define MAX_ARGS 64
#define MAX_MODULES 256
/* enough launches that a ~1 ms kernel is sampled across clock and scheduling noise */
#define MAX_SAMPLES 100000

typedef struct {
	int used;
	int is_array;
	elem_type type;
	size_t count;
	int output;
	CUdeviceptr ptr, ref;  /* ref: the reference run's output (outputs only) */
	unsigned char scalar[8];
} arg;

static struct {
	CUdevice dev;
	CUcontext ctx;
	CUmodule helpers;
	arg args[MAX_ARGS];
	int nargs;
	struct {
		char *path;
		CUmodule mod;
	} modules[MAX_MODULES];
	int nmodules;
	int have_reference;
	CUdeviceptr counters;
} W;

static const char *err_name(CUresult r)
{
	const char *s = NULL;
	if (cuGetErrorName(r, &s) != CUDA_SUCCESS || !s)
		return "CUDA_ERROR_UNKNOWN";
	return s;
}

/* Errors after which the context is unusable (CUDA driver API docs: "the context cannot be
 * used"); the tuner starts a fresh worker. */
static int is_sticky(CUresult r)
{
	switch (r) {
	case CUDA_ERROR_ILLEGAL_ADDRESS:
	case CUDA_ERROR_LAUNCH_FAILED:
	case CUDA_ERROR_ASSERT:
	case CUDA_ERROR_HARDWARE_STACK_ERROR:
	case CUDA_ERROR_ILLEGAL_INSTRUCTION:
	case CUDA_ERROR_MISALIGNED_ADDRESS:
	case CUDA_ERROR_INVALID_ADDRESS_SPACE:
	case CUDA_ERROR_INVALID_PC:
	case CUDA_ERROR_LAUNCH_TIMEOUT:
	case CUDA_ERROR_ECC_UNCORRECTABLE:
	case CUDA_ERROR_CONTEXT_IS_DESTROYED:
		return 1;
	default:
		return 0;
	}
}

static void reply(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void reply(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static CUfunction helper(const char *what, elem_type t)
{
	char name[64];
	CUfunction f = NULL;
	snprintf(name, sizeof name, "%s_%s", what, elem_name(t));
	cuModuleGetFunction(&f, W.helpers, name);
	return f;
}

static CUresult launch_helper(CUfunction f, void **params)
{
	/* grid-stride kernels: a few waves of blocks are plenty */
	return cuLaunchKernel(f, 1024, 1, 1, 256, 1, 1, 0, NULL, params, NULL);
}

static int cmd_device(int ordinal)
{
	CUresult r;
	if ((r = cuInit(0)) || (r = cuDeviceGet(&W.dev, ordinal)) || (r = cuDevicePrimaryCtxRetain(&W.ctx, W.dev)) ||
	    (r = cuCtxSetCurrent(W.ctx)) ||
	    (r = cuModuleLoadData(&W.helpers, _binary_worker_kernels_fatbin_start)) ||
	    (r = cuMemAlloc(&W.counters, 2 * sizeof(unsigned long long)))) {
		const char *desc = "";
		cuGetErrorString(r, &desc);
		reply("error %s %s", err_name(r), desc ? desc : "");
		return -1;
	}
	char name[256] = "";
	int major = 0, minor = 0, sms = 0, l2 = 0, clock = 0;
	size_t mem = 0;
	cuDeviceGetName(name, sizeof name, W.dev);
	cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, W.dev);
	cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, W.dev);
	cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, W.dev);
	cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, W.dev);
	cuDeviceGetAttribute(&clock, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, W.dev);
	cuDeviceTotalMem(&mem, W.dev);
	int driver = 0;
	cuDriverGetVersion(&driver);
	reply("device %d %d %d %zu %d %d %s", major * 10 + minor, sms, l2, mem, clock, driver, name);
	return 0;
}

/* array <index> <type> <count> <fill> <value> <seed> <output> */
static void cmd_array(const char *line)
{
	int idx, output;
	char type[16], fill[16];
	unsigned long long count, seed;
	double v;
	elem_type t;
	if (sscanf(line, "array %d %15s %llu %15s %lf %llu %d", &idx, type, &count, fill, &v, &seed, &output) != 7 ||
	    idx < 0 || idx >= MAX_ARGS || elem_parse(type, &t)) {
		reply("error protocol bad array command");
		return;
	}
	arg *a = &W.args[idx];
	a->used = a->is_array = 1;
	a->type = t;
	a->count = count;
	a->output = output;
	if (idx >= W.nargs)
		W.nargs = idx + 1;
	size_t bytes = count * elem_size(t);
	CUresult r = cuMemAlloc(&a->ptr, bytes);
	if (!r && output)
		r = cuMemAlloc(&a->ref, bytes);
	if (r) {
		size_t freeb = 0, total = 0;
		cuMemGetInfo(&freeb, &total);
		reply("error %s allocating %zu bytes for argument %d (%zu bytes free of %zu)", err_name(r),
		      bytes * (output ? 2 : 1), idx + 1, freeb, total);
		return;
	}
	uint64_t n = count;
	if (!strcmp(fill, "random")) {
		void *params[] = {&a->ptr, &n, &seed};
		r = launch_helper(helper("fill_random", t), params);
	} else if (!strcmp(fill, "constant")) {
		void *params[] = {&a->ptr, &n, &v};
		r = launch_helper(helper("fill_constant", t), params);
	} else {
		r = cuMemsetD8(a->ptr, 0, bytes);
	}
	if (!r)
		r = cuCtxSynchronize();
	if (r)
		reply("error %s filling argument %d", err_name(r), idx + 1);
	else
		reply("ok");
}

/* scalar <index> <type> <value>: integers in decimal, floats as %a or %.17g */
static void cmd_scalar(const char *line)
{
	int idx;
	char type[16], text[128];
	elem_type t;
	if (sscanf(line, "scalar %d %15s %127s", &idx, type, text) != 3 || idx < 0 || idx >= MAX_ARGS ||
	    elem_parse(type, &t)) {
		reply("error protocol bad scalar command");
		return;
	}
	arg *a = &W.args[idx];
	a->used = 1;
	a->is_array = 0;
	a->type = t;
	if (idx >= W.nargs)
		W.nargs = idx + 1;
	memset(a->scalar, 0, sizeof a->scalar);
	if (elem_is_float(t)) {
		double d = strtod(text, NULL);
		float f = (float)d;
		if (t == ELEM_FLOAT)
			memcpy(a->scalar, &f, sizeof f);
		else
			memcpy(a->scalar, &d, sizeof d);
	} else {
		/* little-endian: the low bytes of the 64-bit value are the narrower integer */
		long long ll = strtoll(text, NULL, 0);
		memcpy(a->scalar, &ll, elem_size(t));
	}
}

static CUresult get_module(const char *path, CUmodule *mod)
{
	for (int i = 0; i < W.nmodules; i++)
		if (!strcmp(W.modules[i].path, path)) {
			*mod = W.modules[i].mod;
			return CUDA_SUCCESS;
		}
	CUresult r = cuModuleLoad(mod, path);
	if (r)
		return r;
	if (W.nmodules == MAX_MODULES) {
		/* evict the oldest; modules are small and reloading is cheap */
		cuModuleUnload(W.modules[0].mod);
		free(W.modules[0].path);
		memmove(W.modules, W.modules + 1, (MAX_MODULES - 1) * sizeof W.modules[0]);
		W.nmodules--;
	}
	W.modules[W.nmodules].path = strdup(path);
	W.modules[W.nmodules].mod = *mod;
	W.nmodules++;
	return CUDA_SUCCESS;
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

static void value_text(elem_type t, CUdeviceptr p, char *buf, size_t len)
{
	unsigned char raw[8] = {0};
	cuMemcpyDtoH(raw, p, elem_size(t));
	float f;
	double d;
	long long ll = 0;
	unsigned long long ull = 0;
	switch (t) {
	case ELEM_FLOAT: memcpy(&f, raw, 4); snprintf(buf, len, "%.9g", f); return;
	case ELEM_DOUBLE: memcpy(&d, raw, 8); snprintf(buf, len, "%.17g", d); return;
	case ELEM_INT8: ll = (int8_t)raw[0]; break;
	case ELEM_INT16: { int16_t v; memcpy(&v, raw, 2); ll = v; break; }
	case ELEM_INT32: { int32_t v; memcpy(&v, raw, 4); ll = v; break; }
	case ELEM_INT64: memcpy(&ll, raw, 8); break;
	default: memcpy(&ull, raw, elem_size(t)); snprintf(buf, len, "%llu", ull); return;
	}
	snprintf(buf, len, "%lld", ll);
}

/* Compares every output with the reference; fills msg and returns 1 on a mismatch. */
static int verify(double rtol, double atol, char *msg, size_t len, CUresult *err)
{
	for (int i = 0; i < W.nargs; i++) {
		arg *a = &W.args[i];
		if (!a->is_array || !a->output)
			continue;
		unsigned long long init[2] = {0, ~0ull}, got[2];
		uint64_t n = a->count;
		void *params[] = {&a->ptr, &a->ref, &n, &rtol, &atol, &W.counters};
		if ((*err = cuMemcpyHtoD(W.counters, init, sizeof init)) ||
		    (*err = launch_helper(helper("compare", a->type), params)) ||
		    (*err = cuMemcpyDtoH(got, W.counters, sizeof got)))
			return 0;
		if (got[0]) {
			char g[64], w[64];
			size_t es = elem_size(a->type);
			value_text(a->type, a->ptr + got[1] * es, g, sizeof g);
			value_text(a->type, a->ref + got[1] * es, w, sizeof w);
			snprintf(msg, len, "argument %d: %llu of %zu elements differ from the reference (first at index %llu: got %s, expected %s)",
				 i + 1, got[0], a->count, got[1], g, w);
			return 1;
		}
	}
	return 0;
}

/* run <id> <role> <warmup> <repeats> <gx> <gy> <gz> <bx> <by> <bz> <smem> <rtol> <atol> <symbol> <cubin> */
static int cmd_run(const char *line)
{
	long id;
	char role[8], symbol[512];
	int warmup, repeats, consumed = 0;
	unsigned gx, gy, gz, bx, by, bz, smem;
	double rtol, atol;
	if (sscanf(line, "run %ld %7s %d %d %u %u %u %u %u %u %u %lf %lf %511s %n", &id, role, &warmup, &repeats, &gx,
		   &gy, &gz, &bx, &by, &bz, &smem, &rtol, &atol, symbol, &consumed) != 14 || !consumed ||
	    repeats < 1 || repeats > MAX_SAMPLES || warmup < 0) {
		reply("error protocol bad run command");
		return 0;
	}
	const char *path = line + consumed;
	CUmodule mod;
	CUfunction f;
	CUresult r;
	if ((r = get_module(path, &mod))) {
		reply("result %ld %s 0 0 0 0 -1 %s loading the module", id, status_name(is_sticky(r) ? ST_CRASHED : ST_LAUNCH_ERROR), err_name(r));
		return is_sticky(r) ? -1 : 0;
	}
	if ((r = cuModuleGetFunction(&f, mod, symbol))) {
		reply("result %ld %s 0 0 0 0 -1 %s: no function '%s' in the module", id, status_name(ST_LAUNCH_ERROR), err_name(r), symbol);
		return 0;
	}
	if (smem > 48 * 1024)
		cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)smem);
	int driver_blocks = -1;
	if (cuOccupancyMaxActiveBlocksPerMultiprocessor(&driver_blocks, f, (int)(bx * by * bz), smem))
		driver_blocks = -1;

	void *params[MAX_ARGS];
	for (int i = 0; i < W.nargs; i++)
		params[i] = W.args[i].is_array ? (void *)&W.args[i].ptr : (void *)W.args[i].scalar;

	/* Verification run: outputs poisoned first, so an element the kernel never writes fails. */
	for (int i = 0; i < W.nargs && !r; i++)
		if (W.args[i].is_array && W.args[i].output)
			r = cuMemsetD8(W.args[i].ptr, 0xFF, W.args[i].count * elem_size(W.args[i].type));
	if (!r && (r = cuLaunchKernel(f, gx, gy, gz, bx, by, bz, smem, NULL, params, NULL))) {
		reply("result %ld %s 0 0 0 0 %d %s", id, status_name(is_sticky(r) ? ST_CRASHED : ST_LAUNCH_ERROR), driver_blocks, err_name(r));
		return is_sticky(r) ? -1 : 0;
	}
	if ((r = cuCtxSynchronize())) {
		reply("result %ld %s 0 0 0 0 %d %s", id, status_name(is_sticky(r) ? ST_CRASHED : ST_LAUNCH_ERROR), driver_blocks, err_name(r));
		return is_sticky(r) ? -1 : 0;
	}
	char msg[512] = "";
	if (!strcmp(role, "ref")) {
		for (int i = 0; i < W.nargs && !r; i++)
			if (W.args[i].is_array && W.args[i].output)
				r = cuMemcpyDtoD(W.args[i].ref, W.args[i].ptr, W.args[i].count * elem_size(W.args[i].type));
		W.have_reference = !r;
	} else if (!strcmp(role, "check") && W.have_reference && verify(rtol, atol, msg, sizeof msg, &r)) {
		reply("result %ld %s 0 0 0 0 %d %s", id, status_name(ST_WRONG_RESULT), driver_blocks, msg);
		return 0;
	}
	if (r) {
		reply("result %ld %s 0 0 0 0 %d %s during verification", id, status_name(is_sticky(r) ? ST_CRASHED : ST_LAUNCH_ERROR), driver_blocks, err_name(r));
		return is_sticky(r) ? -1 : 0;
	}

	for (int i = 0; i < warmup && !r; i++)
		r = cuLaunchKernel(f, gx, gy, gz, bx, by, bz, smem, NULL, params, NULL);
	float *samples = malloc((size_t)repeats * sizeof *samples);
	CUevent start, stop;
	cuEventCreate(&start, CU_EVENT_DEFAULT);
	cuEventCreate(&stop, CU_EVENT_DEFAULT);
	/* One event pair per launch, synchronised each time: the median of independent samples. */
	for (int i = 0; i < repeats && !r; i++) {
		if ((r = cuEventRecord(start, NULL)) || (r = cuLaunchKernel(f, gx, gy, gz, bx, by, bz, smem, NULL, params, NULL)) ||
		    (r = cuEventRecord(stop, NULL)) || (r = cuEventSynchronize(stop)))
			break;
		r = cuEventElapsedTime(&samples[i], start, stop);
	}
	cuEventDestroy(start);
	cuEventDestroy(stop);
	if (r) {
		free(samples);
		reply("result %ld %s 0 0 0 0 %d %s while timing", id, status_name(is_sticky(r) ? ST_CRASHED : ST_LAUNCH_ERROR), driver_blocks, err_name(r));
		return is_sticky(r) ? -1 : 0;
	}
	qsort(samples, (size_t)repeats, sizeof *samples, cmp_float);
	double median = repeats % 2 ? samples[repeats / 2] : 0.5 * (samples[repeats / 2 - 1] + samples[repeats / 2]);
	reply("result %ld %s %.6f %.6f %.6f %d %d %s", id, status_name(ST_OK), median, (double)samples[0],
	      (double)samples[repeats - 1], repeats, driver_blocks, W.have_reference || !strcmp(role, "ref") ? "" : "unverified");
	free(samples);
	return 0;
}

int main(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	/* stdout carries the protocol; a full buffer must never hold back an answer */
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((n = getline(&line, &cap, stdin)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = 0;
		if (!strncmp(line, "device ", 7)) {
			if (cmd_device(atoi(line + 7)))
				break;
		} else if (!strncmp(line, "array ", 6))
			cmd_array(line);
		else if (!strncmp(line, "scalar ", 7))
			cmd_scalar(line);
		else if (!strncmp(line, "run ", 4)) {
			/* after a sticky error the context is gone: exit so a fresh worker takes over */
			if (cmd_run(line))
				break;
		} else if (!strcmp(line, "quit"))
			break;
		else
			reply("error protocol unknown command");
	}
	free(line);
	for (int i = 0; i < W.nmodules; i++)
		free(W.modules[i].path);
	return 0;
}
