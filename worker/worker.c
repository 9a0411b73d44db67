/* worker.c: autotune-worker, the only process that touches the GPU. It reads commands from
 * stdin and answers on stdout, one line each (see runner.c for the other side). A kernel that
 * poisons the CUDA context ends this process, never the tuner. It is a separate executable so
 * that autotune itself starts on machines without a GPU driver (libcuda is linked here only).
 * This file opens the device, times kernels and reads the commands; what every file of the
 * worker uses (the replies, modules, a launch) is device.c's, the kernel's arguments args.c's, a
 * plan's streams streams.c's, profiling profile.c's. */
#include <cuda.h>
#include <dirent.h>
#include <driver_types.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "protocol.h"
#include "stats.h"
#include "args.h"
#include "compare.h"
#include "device.h"
#include "energy.h"
#include "hostref.h"
#include "profile.h"
#include "status.h"
#include "streams.h"
#include "banned.h"

/* worker_kernels.cu as a fatbin, linked in by `ld -r -b binary` (see Makefile). */
extern const unsigned char _binary_worker_kernels_fatbin_start[];

/* enough launches that a ~1 ms kernel is sampled across clock and scheduling noise */
#define MAX_SAMPLES 100000
/* kernels shorter than this are timed in batches of back-to-back launches of about the target */
#define BATCH_BELOW_US 50.0
#define BATCH_TARGET_US 200.0
/* queueing a sample's events and launch took longer than this (plus this per launch of a batch)
 * when it was held up: the sample is taken again, at most MAX_STALLS times per run */
#define STALL_S 0.5e-3
#define STALL_PER_LAUNCH_S 20e-6
#define MAX_STALLS 10

/* AUTOTUNE_TRACE: each command's duration on stderr (the worker log), to see where time goes */
static int tracing;

/* What only this file keeps: the measurement settings, which GPUs show. */
static struct {
	int have_reference;   /* a ref run kept its outputs: the others are verified against them */
	int cold, verify_every; /* measure: a cold L2 for each sample, verification after each */
	CUdeviceptr flush;    /* cold: written before each sample, evicting the L2 */
	size_t flush_bytes;
	int initialised;      /* cuInit has run: CUDA_VISIBLE_DEVICES no longer applies */
	int visible;          /* GPUs visible before this worker took one alone (-1: unknown) */
} local;

typedef struct {
	double median, min, max, noise;
	size_t n;
	int batch;
	double mhz_before, mhz_after;
	double capped_s; /* the time cap stopped sampling before min_samples, after this long; else 0 */
} sampling;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The GPUs this process may see, as CUDA numbers them, without initialising CUDA: the entries
 * of CUDA_VISIBLE_DEVICES, else the driver's list in /proc. Sets *entries to the environment's
 * list (NULL when unset); -1 when neither says. */
static int visible_gpus(const char **entries)
{
	const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
	*entries = cvd;
	if (cvd) {
		/* CUDA stops at an empty or negative entry */
		int n = 0;
		for (const char *p = cvd; *p && *p != ',' && *p != '-'; n++) {
			p += strcspn(p, ",");
			if (*p == ',')
				p++;
		}
		return n;
	}
	DIR *dir = opendir("/proc/driver/nvidia/gpus");
	if (!dir)
		return -1;
	int n = 0;
	for (struct dirent *e; (e = readdir(dir));)
		n += e->d_name[0] != '.';
	closedir(dir);
	return n > 0 ? n : -1;
}

/* Before cuInit: show CUDA only this worker's GPU, through one hardware queue. cuInit costs
 * about 0.1 s per visible GPU on an H200 host, and as much again at exit; eight queues (the
 * default) cost 45 ms to create and 30 ms to tear down, and a worker launches on one stream (a
 * plan's worker, which launches on several, is started with the plan's queues).
 * Returns the ordinal to open afterwards: 0 once alone, else the one asked for; -1 when no
 * such GPU is visible. */
static int open_alone(int ordinal)
{
	const char *entries;
	int n = visible_gpus(&entries);
	local.visible = n;
	if (n < 0)
		return ordinal; /* nothing says which GPU that is without CUDA: all stay visible */
	if (ordinal >= n)
		return -1;
	char one[256];
	if (entries) {
		const char *p = entries;
		for (int i = 0; i < ordinal; i++)
			p += strcspn(p, ",") + 1;
		snprintf(one, sizeof one, "%.*s", (int)strcspn(p, ","), p);
	} else
		snprintf(one, sizeof one, "%d", ordinal);
	setenv("CUDA_VISIBLE_DEVICES", one, 1);
	setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 0); /* the user's choice stands */
	return 0;
}

static int cmd_device(int ordinal)
{
	CUresult r;
	int open = local.initialised ? ordinal : open_alone(ordinal);
	if (open < 0) {
		reply_error("CUDA_ERROR_INVALID_DEVICE", "GPU %d is not visible (%d are)", ordinal, local.visible);
		return -1;
	}
	local.initialised = 1;
	if ((r = cuInit(0)) || (r = cuDeviceGet(&W.dev, open)) || (r = cuDevicePrimaryCtxRetain(&W.ctx, W.dev)) ||
	    (r = cuCtxSetCurrent(W.ctx)) ||
	    (r = cuModuleLoadData(&W.helpers, _binary_worker_kernels_fatbin_start)) ||
	    (r = cuMemAlloc(&W.counters, COUNTER_WORDS * sizeof(unsigned long long)))) {
		const char *desc = "";
		cuGetErrorString(r, &desc);
		reply_error(err_name(r), "%s", desc ? desc : "");
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
	CUuuid uuid;
	char hex[33] = "unknown";
	if (cuDeviceGetUuid(&uuid, W.dev) == CUDA_SUCCESS)
		for (int i = 0; i < 16; i++)
			snprintf(hex + 2 * i, 3, "%02x", (unsigned char)uuid.bytes[i]);
	reply(&PROTO_DEVICE_INFO, &(proto_device_info){.cc = major * 10 + minor, .sms = sms, .l2_bytes = l2, .mem_bytes = mem,
						      .clock_khz = clock, .driver_version = driver, .uuid = hex, .name = name});
	return 0;
}

/* count: how many GPUs this process sees (CUDA_VISIBLE_DEVICES applies): from what showed before
 * a GPU was opened alone, else from CUDA (which then shows them all to this worker) */
static void cmd_count(void)
{
	if (!local.initialised) {
		const char *entries;
		local.visible = visible_gpus(&entries);
	}
	if (local.visible >= 0) {
		reply(&PROTO_COUNT, &(proto_count){local.visible});
		return;
	}
	local.initialised = 1;
	CUresult r;
	int n = 0;
	if ((r = cuInit(0)) || (r = cuDeviceGetCount(&n))) {
		const char *desc = "";
		cuGetErrorString(r, &desc);
		reply_error(err_name(r), "%s", desc ? desc : "");
		return;
	}
	reply(&PROTO_COUNT, &(proto_count){n});
}

/* The SM clock in MHz: a single thread spins a known number of cycles and times itself. */
static double clock_mhz(void)
{
	/* ~0.3 ms at full clock: %globaltimer ticks every microsecond or finer */
	long long cycles = 500000;
	void *params[] = {&cycles, &W.counters};
	CUfunction f = NULL;
	unsigned long long got[2] = {0, 0};
	if (cuModuleGetFunction(&f, W.helpers, "clock_probe") || cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL) ||
	    cuMemcpyDtoH(got, W.counters, sizeof got))
		return 0;
	return got[1] ? (double)got[0] / (got[1] * 1e-3) : 0;
}

/* The SM clock idles low (345 MHz on the H100) until there is work: keep every SM busy, reading
 * the clock every 5 ms or so, until it has read near its maximum twice in a row, or has held one
 * level for 50 ms (a GPU held below its maximum by power or temperature), or a second has passed.
 * Readings close together, since an H200 reads its maximum from the first one: each reading
 * spaced further holds the start of measuring back by as much. */
static void cmd_warmup(void)
{
	CUfunction f = NULL;
	long long cycles = 2000000;
	void *params[] = {&cycles, &W.counters};
	int sms = 1, max_khz = 0;
	cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, W.dev);
	cuDeviceGetAttribute(&max_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, W.dev);
	cuModuleGetFunction(&f, W.helpers, "clock_probe");
	double mhz = 0, t0 = now(), prev = 0, level_since = t0;
	int high = 0;
	char seen[512] = "";
	while (now() - t0 < 1.0) {
		for (int i = 0; i < 5; i++)
			cuLaunchKernel(f, (unsigned)sms * 4, 1, 1, 32, 1, 1, 0, NULL, params, NULL);
		cuCtxSynchronize();
		mhz = clock_mhz();
		size_t used = strlen(seen);
		snprintf(seen + used, sizeof seen - used, " %.0f", mhz);
		/* a level: readings within 1% of each other for 50 ms, well above idle */
		if (!(mhz > 0.6 * max_khz / 1e3 && fabs(mhz - prev) < 0.01 * mhz))
			level_since = now();
		high = mhz > 0.9 * max_khz / 1e3 ? high + 1 : 0;
		prev = mhz;
		if (high >= 2 || now() - level_since >= 0.05)
			break;
	}
	if (tracing)
		fprintf(stderr, "trace %d: warm-up clocks (MHz):%s\n", (int)getpid(), seen);
	reply(&PROTO_WARM, &(proto_warm){mhz, max_khz / 1e3});
}

/* copybw: device-to-device copy bandwidth (bytes read + written per second), the ceiling a
 * memory-bound kernel is compared with. */
static void cmd_copybw(void)
{
	size_t freeb = 0, total = 0, bytes = 1ull << 30;
	cuMemGetInfo(&freeb, &total);
	while (bytes > (1u << 24) && 2 * bytes > freeb / 2)
		bytes /= 2;
	CUdeviceptr a, b;
	if (cuMemAlloc(&a, bytes) || cuMemAlloc(&b, bytes)) {
		reply_error("CUDA_ERROR_OUT_OF_MEMORY", "allocating the copy buffers");
		return;
	}
	cuMemsetD8(a, 0x5A, bytes);
	CUevent e0, e1;
	cuEventCreate(&e0, CU_EVENT_DEFAULT);
	cuEventCreate(&e1, CU_EVENT_DEFAULT);
	double t[15];
	for (int i = 0; i < 18; i++) {
		float ms = 0;
		cuEventRecord(e0, NULL);
		cuMemcpyDtoDAsync(b, a, bytes, NULL);
		cuEventRecord(e1, NULL);
		cuEventSynchronize(e1);
		cuEventElapsedTime(&ms, e0, e1);
		if (i >= 3) /* the first copies warm up */
			t[i - 3] = ms;
	}
	double med = stats_median(t, 15);
	cuEventDestroy(e0);
	cuEventDestroy(e1);
	cuMemFree(a);
	cuMemFree(b);
	reply(&PROTO_COPYBW, &(proto_copybw){2.0 * bytes / (med * 1e-3) / 1e9});
}

/* measure: session-wide measurement settings. */
static void cmd_measure(char *line)
{
	proto_measure ask;
	if (proto_decode(&PROTO_MEASURE, line, &ask)) {
		reply_error("protocol", "bad measure command");
		return;
	}
	args_set_sample(ask.sample, ask.mismatches);
	/* before any kernel of the run: the device runtime sizes its launch pool once */
	CUresult r;
	if (ask.pending > 0 && (r = cuCtxSetLimit(CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT, (size_t)ask.pending))) {
		reply_error(err_name(r), "setting measure.pending_launches to %lld", ask.pending);
		return;
	}
	local.cold = !strcmp(ask.cache, "cold");
	local.verify_every = ask.every != 0;
	if (local.cold && !local.flush) {
		/* Writing a buffer twice the L2's size evicts everything the last sample left there. */
		int l2 = 0;
		cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, W.dev);
		local.flush_bytes = 2 * (size_t)(l2 > 0 ? l2 : 64 << 20);
		if (cuMemAlloc(&local.flush, local.flush_bytes)) {
			reply_error("CUDA_ERROR_OUT_OF_MEMORY", "allocating the L2 flush buffer");
			return;
		}
	}
	reply_ok();
}

static void reply_result(long id, status st, const sampling *S, int driver_blocks, const char *msg)
{
	proto_result res = {.id = id, .status = status_name(st), .driver_blocks = driver_blocks, .message = msg ? msg : ""};
	if (S) {
		res.median = S->median;
		res.min = S->min;
		res.max = S->max;
		res.samples = (long long)S->n;
		res.noise = S->noise;
		res.batch = S->batch;
		res.mhz_before = S->mhz_before;
		res.mhz_after = S->mhz_after;
	}
	reply(&PROTO_RESULT, &res);
}

/* Before sample i (and each of a plan's serial launches): L2 flushed (cold mode), inputs restored. */
static CUresult before_sample(int i)
{
	CUresult r = local.cold ? cuMemsetD32Async(local.flush, (unsigned)i, local.flush_bytes / 4, NULL) : CUDA_SUCCESS;
	return r ? r : restore_inputs();
}

/* n launches of the run's kernel, or with a plan n executions of the plan (streams.c). */
static CUresult launches(const launch *L, int plan, int n) { return plan ? plan_execute(n) : launch_n(L, n); }

/* Samples until the stopping rule holds. Each sample: flush L2 (cold mode) and restore
 * inputs, outside the events; then `batch` launches (or executions of a plan) between two
 * events. */
static CUresult sample(const launch *L, int plan, const stop_rule *rule, int check, double rtol, double atol,
		       sampling *S, char *msg, size_t msglen, int *wrong)
{
	CUresult r = CUDA_SUCCESS;
	CUevent start, stop;
	cuEventCreate(&start, CU_EVENT_DEFAULT);
	cuEventCreate(&stop, CU_EVENT_DEFAULT);
	double *t = malloc(rule->max_samples * sizeof *t), *sorted = malloc(rule->max_samples * sizeof *t),
	       *scratch = malloc(rule->max_samples * sizeof *t);
	double t0 = now(), fastest = INFINITY;
	int stalls = 0, per_sample = plan ? plan_launches() * S->batch : S->batch;
	S->n = 0;
	S->noise = 0;
	while (!r && !stats_should_stop(rule, S->n, S->noise, now() - t0, fastest)) {
		r = before_sample((int)S->n);
		float ms = 0;
		if (r)
			break;
		double asked = now();
		pthread_mutex_lock(&W.device_lock);
		if (tracing && now() - asked > 1e-3)
			fprintf(stderr, "trace %d: a sample waited %.1f ms for the profiler's device queries\n", (int)getpid(),
				1e3 * (now() - asked));
		double queued = now(), enqueued = 0;
		if (!(r = cuEventRecord(start, NULL)) && !(r = launches(L, plan, S->batch)) && !(r = cuEventRecord(stop, NULL)) &&
		    (enqueued = now(), !(r = cuEventSynchronize(stop))))
			r = cuEventElapsedTime(&ms, start, stop);
		pthread_mutex_unlock(&W.device_lock);
		if (r)
			break;
		/* Events, launch and events are queued in microseconds. Held up in between (another
		 * process opening a GPU holds the driver's lock; a preempted thread), the GPU may idle after
		 * the start event or finish before the stop event is queued, and the sample would time the
		 * wait: it is taken again. */
		if (enqueued - queued > STALL_S + STALL_PER_LAUNCH_S * (per_sample - 1) && stalls < MAX_STALLS) {
			stalls++;
			if (tracing)
				fprintf(stderr, "trace %d: queueing a sample was held up %.1f ms; sample taken again\n",
					(int)getpid(), 1e3 * (enqueued - queued));
			continue;
		}
		t[S->n++] = (double)ms / S->batch;
		fastest = fmin(fastest, t[S->n - 1]);
		if (check && local.verify_every && (*wrong = verify(rtol, atol, msg, msglen, &r)))
			break;
		memcpy(sorted, t, S->n * sizeof *t);
		S->noise = stats_noise(sorted, S->n, scratch);
	}
	double elapsed = now() - t0;
	S->capped_s = !r && S->n && S->n < rule->min_samples && elapsed >= rule->time_cap_s &&
			      !stats_raced_out(rule, S->n, fastest)
		? elapsed
		: 0;
	if (S->n) {
		memcpy(sorted, t, S->n * sizeof *t);
		S->median = stats_median(sorted, S->n);
		S->min = sorted[0];
		S->max = sorted[S->n - 1];
	}
	free(t);
	free(sorted);
	free(scratch);
	cuEventDestroy(start);
	cuEventDestroy(stop);
	return r;
}

/* One run command as it goes: what it asks for, and how it ended when it ends early. */
typedef struct {
	long id;
	const char *cubin, *symbol;
	int ref, check, timing; /* the role (proto_role) */
	int plan;               /* a plan (streams.c) runs instead of L; L is its first step */
	int warmup;
	int verified;       /* a verification launch ran (1), timed (2): the first of the warm-up launches */
	float verify_ms;    /* its time, when timed */
	double rtol, atol;
	stop_rule rule;
	launch L;
	int driver_blocks;  /* the driver's occupancy (blocks per SM), or -1 */
	CUdeviceptr device_error; /* the module's autotune_device_error, or 0 when it has none */
	int device_failed;  /* the kernel recorded a failed device-side launch: this cudaError_t */
	int wrong;          /* the result was wrong: msg says how */
	int late;           /* verified after timing: verify.host's thread was still running */
	char msg[512];
	CUresult r;         /* else the CUDA error that ended it, while doing `what` */
	const char *what;
	char where[160];    /* a missing __constant__ symbol */
} run;

/* The run command's fields: 0, or -1 when it is malformed. */
static int parse_run(char *line, run *R)
{
	proto_run ask;
	proto_role role;
	if (proto_decode(&PROTO_RUN, line, &ask) || proto_role_parse(ask.role, &role) || launch_shape(&ask.launch, &R->L) || ask.min_samples < 1 ||
	    ask.max_samples < ask.min_samples || ask.max_samples > MAX_SAMPLES || ask.warmup < 0 || ask.warmup > INT_MAX)
		return -1;
	R->id = (long)ask.id;
	R->cubin = ask.cubin;
	R->symbol = ask.symbol;
	R->ref = role == PROTO_ROLE_REF;
	R->check = role == PROTO_ROLE_CHECK;
	R->timing = role == PROTO_ROLE_TIME;
	R->warmup = (int)ask.warmup;
	R->rtol = ask.rtol;
	R->atol = ask.atol;
	R->rule = proto_run_rule(&ask);
	return 0;
}

/* Ends a run with CUDA error r, met while doing `what`: returns 1. */
static int run_error(run *R, CUresult r, const char *what)
{
	R->r = r;
	R->what = what;
	return 1;
}

/* A kernel that launches kernels (build.rdc) reports a device-side launch that failed by writing
 * its cudaError_t to its `__device__ int autotune_device_error` (docs/config.md): the result
 * is then incomplete, and the configuration a launch-error naming the error, not a wrong result.
 * 1 (the run ends) when the kernels since the last clearing wrote one. */
static int device_launch_failed(run *R, const char *when)
{
	int e = 0;
	CUresult r;
	if (!R->device_error)
		return 0;
	if ((r = cuMemcpyDtoH(&e, R->device_error, sizeof e)))
		return run_error(R, r, " reading autotune_device_error");
	if (!e)
		return 0;
	R->device_failed = e;
	R->what = when;
	return 1;
}

/* The run's kernel: its module loaded, its __constant__ arguments filled, its parameters set,
 * its device-side launch errors cleared, and the driver's occupancy for its shape. 0, or 1 when
 * the run ends. */
static int load_kernel(run *R)
{
	CUmodule mod;
	CUresult r;
	size_t bytes;
	if ((r = get_module(R->cubin, &mod)))
		return run_error(R, r, " loading the module");
	if ((r = cuModuleGetFunction(&R->L.f, mod, R->symbol)))
		return run_error(R, r, ": no such function in the module");
	if ((r = fill_constants(mod, R->where, sizeof R->where)))
		return run_error(R, r, R->where);
	if (R->plan && (r = plan_load(mod, R->where, sizeof R->where)))
		return run_error(R, r, R->where);
	if (cuModuleGetGlobal(&R->device_error, &bytes, mod, "autotune_device_error") || bytes != sizeof(int))
		R->device_error = 0;
	else if ((r = cuMemsetD32(R->device_error, 0, 1)))
		return run_error(R, r, " clearing autotune_device_error");
	launch *L = &R->L;
	launch_allow_smem(L);
	if (cuOccupancyMaxActiveBlocksPerMultiprocessor(&R->driver_blocks, L->f, (int)(L->block[0] * L->block[1] * L->block[2]),
							L->smem))
		R->driver_blocks = -1;
	set_params(L->params, NULL);
	return 0;
}

/* ref and check: one launch, compared with the reference (ref keeps its outputs as the
 * reference). 0, or 1 when the run ends. */
static int verify_run(run *R)
{
	CUresult r;
	/* outputs poisoned first, so an element the kernel never writes fails */
	if ((r = poison_outputs()) || (r = restore_inputs()))
		return run_error(R, r, "");
	/* timed as a sample is, where the function is already loaded: then it is a warm-up launch */
	CUevent a = NULL, b = NULL;
	int timed = !R->plan && launched_before(R->L.f) && !cuEventCreate(&a, CU_EVENT_DEFAULT) &&
		    !cuEventCreate(&b, CU_EVENT_DEFAULT) && !cuEventRecord(a, NULL);
	r = launches(&R->L, R->plan, 1);
	if (!r && timed && !(r = cuEventRecord(b, NULL)) && !(r = cuEventSynchronize(b)))
		r = cuEventElapsedTime(&R->verify_ms, a, b);
	if (!r)
		r = cuCtxSynchronize();
	if (a)
		cuEventDestroy(a);
	if (b)
		cuEventDestroy(b);
	if (r)
		return run_error(R, r, "");
	R->verified = 1 + timed;
	if (device_launch_failed(R, " in the verification run"))
		return 1;
	if (R->ref && verify_sum(R->rtol, R->atol, R->msg, sizeof R->msg, &r))
		return R->wrong = 1;
	if (R->ref) {
		/* outputs with given values (verify.expect) are checked even on the reference */
		if (!r)
			r = keep_reference();
		local.have_reference = !r;
	}
	if (!r && verify(R->rtol, R->atol, R->msg, sizeof R->msg, &r))
		return R->wrong = 1;
	if (r)
		return run_error(R, r, " during verification");
	return 0;
}

/* verify.host's outputs on the GPU, once its thread is done (hostref.c); the tuner is told that
 * the run waits for it. 0, or 1 when the run ends. */
static int host_reference(run *R)
{
	int arg;
	if (!hostref_pending())
		return 0;
	reply(&PROTO_HOSTWAIT, NULL);
	CUresult r = hostref_join(&arg);
	snprintf(R->where, sizeof R->where, " copying verify.host's argument %d to the GPU", arg + 1);
	return r ? run_error(R, r, R->where) : 0;
}

/* Before timing: the verification run, or else a function's first launch, which is never timed
 * (the function loads lazily then). While verify.host's thread runs, a run verifies after its
 * samples (verify_late), unless it verifies after each. 0, or 1 when the run ends. */
static int first_launch(run *R)
{
	CUresult r = CUDA_SUCCESS;
	if ((R->ref || R->check) && local.verify_every && host_reference(R))
		return 1;
	R->late = (R->ref || R->check) && hostref_pending();
	if ((R->ref || R->check) && !R->late) {
		if (verify_run(R))
			return 1;
	} else if ((R->plan || !launched_before(R->L.f)) && /* a plan's several functions: always */
		   ((r = restore_inputs()) || (r = launches(&R->L, R->plan, 1)) || (r = cuCtxSynchronize())))
		return run_error(R, r, "");
	else if (device_launch_failed(R, " in the first launch"))
		return 1;
	note_launched(R->L.f);
	return 0;
}

/* A run that timed while verify.host's thread ran: the reference joined, then the verification
 * run. 0, or 1 when the run ends. */
static int verify_late(run *R) { return R->late && (host_reference(R) || verify_run(R)); }

/* Warm-up launches, timed together: they double as the first estimate of the kernel's time. */
static CUresult warm_up(const launch *L, int plan, int warmup, float *warm_ms)
{
	CUresult r = CUDA_SUCCESS;
	CUevent a, b;
	cuEventCreate(&a, CU_EVENT_DEFAULT);
	cuEventCreate(&b, CU_EVENT_DEFAULT);
	if (warmup > 0) {
		r = restore_inputs();
		pthread_mutex_lock(&W.device_lock);
		if (!r)
			cuEventRecord(a, NULL);
		if (!r && !(r = launches(L, plan, warmup))) {
			cuEventRecord(b, NULL);
			if (!(r = cuEventSynchronize(b)))
				cuEventElapsedTime(warm_ms, a, b);
		}
		pthread_mutex_unlock(&W.device_lock);
	}
	cuEventDestroy(a);
	cuEventDestroy(b);
	return r;
}

/* Launches per sample. Below ~50 us a launch's own overhead is a visible part of one sample:
 * time several back-to-back launches between two events instead (not possible when inputs must
 * be restored before each launch). */
static int batch_size(int warmup, float warm_ms)
{
	double per_launch_us = warmup > 0 ? 1e3 * warm_ms / warmup : 1e9;
	if (per_launch_us < BATCH_BELOW_US && !has_restore() && !local.verify_every) {
		int k = (int)(BATCH_TARGET_US / (per_launch_us > 0.5 ? per_launch_us : 0.5));
		return k < 2 ? 2 : k > 1000 ? 1000 : k;
	}
	return 1;
}

/* The timed part: warm-up, then samples until the stopping rule holds, between two readings of
 * the clock. 0, or 1 when the run ends. */
static int time_run(run *R, sampling *S)
{
	/* a finalist's run (role time) is compared with the others by its median alone */
	S->mhz_before = R->timing ? 0 : clock_mhz();
	float warm_ms = 0;
	/* The verification launch warmed the kernel as a warm-up launch would: it counts as the first.
	 * Where it is the only one, its time estimates the kernel's, unless it loaded the function. */
	int counted = R->warmup >= 2 || (R->warmup == 1 && R->verified == 2);
	int warmup = R->warmup - (R->verified && counted);
	CUresult r = warm_up(&R->L, R->plan, warmup, &warm_ms);
	if (r)
		return run_error(R, r, " during warm-up");
	/* back-to-back plans would overlap one another's streams: a sample is one plan */
	S->batch = R->plan ? 1 : warmup ? batch_size(warmup, warm_ms) : batch_size(R->warmup, R->verify_ms);
	r = sample(&R->L, R->plan, &R->rule, R->check, R->rtol, R->atol, S, R->msg, sizeof R->msg, &R->wrong);
	if (R->wrong)
		return 1;
	if (r)
		return run_error(R, r, " while timing");
	if (device_launch_failed(R, " while timing"))
		return 1;
	S->mhz_after = R->timing ? 0 : clock_mhz();
	return 0;
}

/* A plan's serial time: its steps one at a time, times its streams. 0, or 1 when the run ends. */
static int serial_time(run *R, double *ms)
{
	CUresult r = plan_serial(before_sample, ms);
	return r ? run_error(R, r, " while timing the plan's launches one at a time") : 0;
}

/* "energy": the next run's energy window, seconds at least (0: none) */
static double energy_next_s;

/* The energy window's launches (energy_launch_fn): chunk k is queued between its two events, then
 * chunk k - 1 waited for and its time on the GPU read. */
typedef struct {
	run *R;
	CUevent start[2], done[2];
	long long k;
} energy_queue;

static int energy_launches(void *ctx, int n, double *busy_s)
{
	energy_queue *q = ctx;
	CUresult r = CUDA_SUCCESS;
	float ms = 0;
	*busy_s = 0;
	pthread_mutex_lock(&W.device_lock);
	if (n > 0 && !(r = cuEventRecord(q->start[q->k % 2], NULL)) && !(r = launches(&q->R->L, q->R->plan, n)))
		r = cuEventRecord(q->done[q->k % 2], NULL);
	if (!r && n == 0)
		r = cuCtxSynchronize();
	else if (!r && q->k > 0 && !(r = cuEventSynchronize(q->done[(q->k - 1) % 2])) &&
		 !(r = cuEventElapsedTime(&ms, q->start[(q->k - 1) % 2], q->done[(q->k - 1) % 2])))
		*busy_s = ms * 1e-3;
	q->k += n > 0;
	pthread_mutex_unlock(&W.device_lock);
	return r;
}

/* After the samples, when asked: the energy window (energy.h), answered before the result. 0,
 * or 1 when a launch in it failed and the run ends. */
static int energy_run(run *R, const sampling *S, double seconds)
{
	energy_reading E = {0};
	energy_queue q = {R, {NULL, NULL}, {NULL, NULL}, 0};
	char bus[32], uuid[64];
	device_ids(bus, uuid);
	if (has_restore())
		/* each launch would need its inputs copied back: the window would count the copies */
		snprintf(E.note, sizeof E.note, "no energy: inputs are restored before each launch");
	else if (!(E.r = cuEventCreate(&q.start[0], CU_EVENT_DEFAULT)) && !(E.r = cuEventCreate(&q.start[1], CU_EVENT_DEFAULT)) &&
		 !(E.r = cuEventCreate(&q.done[0], CU_EVENT_DEFAULT)) && !(E.r = cuEventCreate(&q.done[1], CU_EVENT_DEFAULT)))
		energy_measure(bus, uuid, seconds, S->median, energy_launches, NULL, &q, &E);
	for (int i = 0; i < 2; i++) {
		if (q.start[i])
			cuEventDestroy(q.start[i]);
		if (q.done[i])
			cuEventDestroy(q.done[i]);
	}
	if (E.r)
		return run_error(R, (CUresult)E.r, " during the energy window");
	if (device_launch_failed(R, " during the energy window"))
		return 1;
	reply(&PROTO_JOULES, &(proto_joules){E.ok ? E.joules : -1, E.ok ? E.watts : -1, E.note});
	return 0;
}

/* Answers a run that ended early: a wrong result, or a CUDA error. After a sticky one the
 * context is gone: -1, and the worker exits. */
static int run_ended(const run *R)
{
	if (R->wrong) {
		reply_result(R->id, ST_WRONG_RESULT, NULL, R->driver_blocks, R->msg);
		return 0;
	}
	char msg[512];
	if (R->device_failed) {
		const char *name = runtime_error_name(R->device_failed);
		snprintf(msg, sizeof msg, "a device-side launch failed%s: %s%s(cudaError_t %d in autotune_device_error)", R->what,
			 name ? name : "", name ? " " : "", R->device_failed);
		reply_result(R->id, ST_LAUNCH_ERROR, NULL, R->driver_blocks, msg);
		return 0;
	}
	snprintf(msg, sizeof msg, "%s%s", err_name(R->r), R->what);
	reply_result(R->id, is_sticky(R->r) ? ST_CRASHED : ST_LAUNCH_ERROR, NULL, R->driver_blocks, msg);
	return is_sticky(R->r) ? -1 : 0;
}

/* run: role ref (verify nothing, keep outputs as the reference), check (compare with it), time
 * (finalist re-timing: no verification run). With a plan sent before it, the plan runs in place
 * of the launch, and its serial time is answered before the result; with "energy" sent before it,
 * the energy window's reading too. */
static int cmd_run(char *line)
{
	run R = {.driver_blocks = -1};
	R.plan = plan_pending();
	double serial_ms = 0, energy_s = energy_next_s; /* (an energy request is for this run alone) */
	energy_next_s = 0;
	if (parse_run(line, &R)) {
		plan_done();
		reply_error("protocol", "bad run command");
		return 0;
	}
	profiler_pause();
	sampling S = {0};
	int ended = load_kernel(&R) || first_launch(&R) || time_run(&R, &S) || verify_late(&R) ||
		    (R.plan && serial_time(&R, &serial_ms));
	/* a run that verifies answers with verify.host joined, however it ended: a crash of the
	 * user's function after this answer is no longer this run's to be told */
	if (ended && (R.ref || R.check) && hostref_pending() && !is_sticky(R.r)) {
		run spare = R;
		host_reference(&spare);
	}
	if (R.plan && !ended)
		reply(&PROTO_SERIAL, &(proto_serial){serial_ms});
	ended = ended || (energy_s > 0 && energy_run(&R, &S, energy_s));
	plan_done();
	if (ended)
		return run_ended(&R);
	/* a capped measurement says so first: it is told from a raced one by these words */
	char note[160];
	snprintf(note, sizeof note, "%s after %.1f s: %zu of min_samples %zu samples%s", STATS_CAPPED, S.capped_s, S.n,
		 R.rule.min_samples, local.have_reference || R.ref ? "" : "; unverified");
	reply_result(R.id, ST_OK, &S, R.driver_blocks, S.capped_s ? note : local.have_reference || R.ref ? "" : "unverified");
	return 0;
}

/* quit: exits at once. The kernel reclaims the context, and the profiler with it, when the
 * process ends: tearing the profiler down first would only delay the exit, which the run waits
 * for. */
static void cmd_quit(double t0)
{
	if (tracing)
		fprintf(stderr, "trace %d %.3f: quit\n", (int)getpid(), t0);
	fflush(NULL);
	_exit(0);
}

/* Answers one command line, which arrived at t0; -1 when the worker must exit: the device cannot
 * be opened, or a sticky error lost the context (a fresh worker takes over). */
static int dispatch(char *line, double t0)
{
	proto_device dev;
	proto_sumcount sc;
	if (proto_decode(&PROTO_DEVICE, line, &dev) == 0)
		return dev.ordinal < 0 || dev.ordinal > INT_MAX || cmd_device((int)dev.ordinal) ? -1 : 0;
	if (proto_is(&PROTO_COUNT_ASK, line))
		cmd_count();
	else if (proto_is(&PROTO_COUNTERS, line))
		cmd_counters(line);
	else if (proto_is(&PROTO_ENERGY, line)) {
		proto_energy e;
		energy_next_s = proto_decode(&PROTO_ENERGY, line, &e) == 0 && e.seconds > 0 ? e.seconds : 0;
	}
	else if (proto_is(&PROTO_ARRAY, line))
		cmd_array(line);
	else if (proto_is(&PROTO_SCALAR, line))
		cmd_scalar(line);
	else if (proto_is(&PROTO_MEASURE, line))
		cmd_measure(line);
	else if (proto_is(&PROTO_CONSTANT, line))
		cmd_constant(line);
	else if (proto_is(&PROTO_SUMCHECK, line))
		cmd_sumcheck(line);
	else if (proto_decode(&PROTO_SUMCOUNT, line, &sc) == 0)
		cmd_sumcount(&sc);
	else if (proto_is(&PROTO_COPY, line))
		cmd_copy(line);
	else if (proto_is(&PROTO_LET, line))
		cmd_let(line);
	else if (proto_is(&PROTO_FILLEXPR, line))
		cmd_fillexpr(line);
	else if (proto_is(&PROTO_FILLFILE, line))
		cmd_fillfile(line);
	else if (proto_is(&PROTO_HOSTREF, line))
		cmd_hostref(line);
	else if (proto_is(&PROTO_WARMUP, line))
		cmd_warmup();
	else if (proto_is(&PROTO_COPYBW_ASK, line))
		cmd_copybw();
	else if (proto_is(&PROTO_RUN, line))
		return cmd_run(line);
	else if (proto_is(&PROTO_PROFILE, line))
		cmd_profile(line);
	else if (proto_is(&PROTO_PLAN, line))
		cmd_plan(line);
	else if (proto_is(&PROTO_STEP, line))
		cmd_step(line);
	else if (proto_is(&PROTO_PROFILES, line))
		return cmd_profiles();
	else if (proto_is(&PROTO_QUIT, line))
		cmd_quit(t0);
	else
		reply_error("protocol", "unknown command");
	return 0;
}

int main(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	pthread_mutex_init(&W.device_lock, NULL);
	if (reply_open())
		return 1;
	const char *tr = getenv("AUTOTUNE_TRACE");
	tracing = tr && *tr && strcmp(tr, "0");
	while ((n = getline(&line, &cap, stdin)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = 0;
		double t0 = now();
		if (dispatch(line, t0))
			break;
		if (tracing)
			fprintf(stderr, "trace %d %.3f: %.*s: %.1f ms\n", (int)getpid(), t0, (int)strcspn(line, " "), line,
				1e3 * (now() - t0));
	}
	free(line);
	double t0 = now();
	profile_close();
	if (tracing)
		fprintf(stderr, "trace %d %.3f: quit: %.1f ms\n", (int)getpid(), t0, 1e3 * (now() - t0));
	modules_free();
	plan_free();
	args_free();
	return 0;
}
