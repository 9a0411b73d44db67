/* counters.c: five metrics of kernel launches through CUPTI's Range Profiler (CUDA 13), with
 * auto ranges (the range is exactly the kernel, so elapsed-time metrics exclude host gaps) and
 * user replay (we relaunch the kernels once per pass; kernel replay would save all device memory). */

/* cupti_profiler_host.h includes the C++ header <string> although its API is plain C. The empty
 * file tuner/cupti_shim/string satisfies that include, so compile this file with
 * -Ituner/cupti_shim: -I directories are searched before the system ones, also for <...>. */
#include <cupti_result.h>
#include <cupti_target.h>
#include <cupti_profiler_target.h>
#include <cupti_profiler_host.h>
#include <cupti_range_profiler.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "banned.h"

const char *const counter_metric_names[MET_COUNT] = {
	[MET_ACHIEVED_OCCUPANCY] = "sm__warps_active.avg.pct_of_peak_sustained_active",
	[MET_GLD_EFFICIENCY] = "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
	[MET_GLD_THROUGHPUT] = "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second",
	[MET_DRAM_PCT] = "dram__throughput.avg.pct_of_peak_sustained_elapsed",
	[MET_BRANCH_EFFICIENCY] = "smsp__sass_average_branch_targets_threads_uniform.pct",
	[MET_BRANCH_TARGETS] = "smsp__sass_branch_targets.sum",
	[MET_GLD_REQUESTS] = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
};

struct counters {
	CUcontext ctx;
	CUdevice dev;
	unsigned set;                  /* the metrics asked for: bit i for MET_ i */
	int profiler_initialized;
	CUpti_Profiler_Host_Object *host;
	const char *names[MET_COUNT];  /* the metrics this chip accepted, in MET_ order */
	int slot[MET_COUNT];           /* where metric i sits in names, -1 if the chip refused it */
	size_t nnames;
	uint8_t *avail;                /* counter availability image, read once from the device */
	size_t avail_size;
	uint8_t *config;               /* which counters each pass programs */
	size_t config_size;
	size_t passes;
	uint8_t *data;                 /* counter data image, re-initialised by every measurement */
	size_t data_size;
	char chip[64];
	/* the range profiler, enabled by the first measurement and kept on for the next ones until
	 * counters_pause. Each enabling costs about 140 ms on an H100, paid in its first pass's start,
	 * whatever the metrics; yet timed runs must run with it off: merely enabled, it slowed 20
	 * back-to-back launches by 5-20%, and enabling it from another thread held this one's launches
	 * back for 80 ms. */
	CUpti_RangeProfiler_Object *obj;
};

static int cupti_failed(CUptiResult r, const char *what, char *err, size_t errlen)
{
	if (r == CUPTI_SUCCESS)
		return 0;
	const char *name = NULL, *msg = NULL;
	if (cuptiGetResultString(r, &name) != CUPTI_SUCCESS || !name)
		name = "CUPTI_ERROR_UNKNOWN";
	if (cuptiGetErrorMessage(r, &msg) != CUPTI_SUCCESS || !msg || !strcmp(msg, name))
		msg = "";
	const char *hint = "";
	if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
		hint = " (GPU performance counters are restricted to administrators: run as root, or load "
		       "the nvidia module with NVreg_RestrictProfilingToAdminUsers=0)";
	snprintf(err, errlen, "%s: %s%s%s%s", what, name, *msg ? ": " : "", msg, hint);
	return -1;
}

#define CK(fn, params) cupti_failed(fn(params), #fn, err, errlen)

static int cuda_failed(CUresult r, const char *what, char *err, size_t errlen)
{
	if (r == CUDA_SUCCESS)
		return 0;
	const char *name = NULL, *desc = NULL;
	if (cuGetErrorName(r, &name) != CUDA_SUCCESS || !name)
		name = "CUDA_ERROR_UNKNOWN";
	if (cuGetErrorString(r, &desc) != CUDA_SUCCESS || !desc)
		desc = "";
	snprintf(err, errlen, "%s: %s%s%s", what, name, *desc ? ": " : "", desc);
	return -1;
}

static CUpti_Profiler_Host_Object *host_new(const counters *c, char *err, size_t errlen)
{
	CUpti_Profiler_Host_Initialize_Params p = {.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
	p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
	p.pChipName = c->chip;
	p.pCounterAvailabilityImage = c->avail;
	if (CK(cuptiProfilerHostInitialize, &p))
		return NULL;
	return p.pHostObject;
}

static void host_free(CUpti_Profiler_Host_Object *h)
{
	CUpti_Profiler_Host_Deinitialize_Params p = {.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
	p.pHostObject = h;
	cuptiProfilerHostDeinitialize(&p);
}

static CUptiResult host_add(CUpti_Profiler_Host_Object *h, const char **names, size_t n)
{
	CUpti_Profiler_Host_ConfigAddMetrics_Params p = {.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
	p.pHostObject = h;
	p.ppMetricNames = names;
	p.numMetrics = n;
	return cuptiProfilerHostConfigAddMetrics(&p);
}

static double trace_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The replay passes a config of these metrics needs: what they cost, since a session's time is
 * per pass. 0 when CUPTI cannot say. */
static size_t passes_of(const counters *c, const char **names, size_t n)
{
	char err[256];
	size_t passes = 0, size;
	CUpti_Profiler_Host_Object *h = host_new(c, err, sizeof err);
	if (!h)
		return 0;
	CUpti_Profiler_Host_GetConfigImageSize_Params sp = {.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
	sp.pHostObject = h;
	uint8_t *image = NULL;
	if (host_add(h, names, n) == CUPTI_SUCCESS && cuptiProfilerHostGetConfigImageSize(&sp) == CUPTI_SUCCESS &&
	    (image = malloc((size = sp.configImageSize) ? size : 1))) {
		CUpti_Profiler_Host_GetConfigImage_Params ip = {.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
		ip.pHostObject = h;
		ip.configImageSize = size;
		ip.pConfigImage = image;
		CUpti_Profiler_Host_GetNumOfPasses_Params pp = {.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
		pp.configImageSize = size;
		pp.pConfigImage = image;
		if (cuptiProfilerHostGetConfigImage(&ip) == CUPTI_SUCCESS &&
		    cuptiProfilerHostGetNumOfPasses(&pp) == CUPTI_SUCCESS)
			passes = pp.numOfPasses;
	}
	free(image);
	host_free(h);
	return passes;
}

/* AUTOTUNE_TRACE: each metric's passes alone, to the worker log */
static void trace_passes(const counters *c)
{
	for (size_t i = 0; i < c->nnames; i++) {
		const char *one[1] = {c->names[i]};
		fprintf(stderr, "trace %d: counter %s: %zu passes alone\n", (int)getpid(), one[0], passes_of(c, one, 1));
	}
	const char *decide[3] = {counter_metric_names[MET_ACHIEVED_OCCUPANCY], counter_metric_names[MET_GLD_EFFICIENCY],
				 counter_metric_names[MET_GLD_REQUESTS]};
	fprintf(stderr, "trace %d: occupancy and load efficiency: %zu passes\n", (int)getpid(), passes_of(c, decide, 3));
	fprintf(stderr, "trace %d: the %zu counters asked for: %zu passes\n", (int)getpid(), c->nnames, c->passes);
}

/* Chooses the metrics, builds the config image and counts its passes. A metric the chip does not
 * have must cost only its own value, not the other four, so on refusal each is tried alone. The
 * names of refused metrics go to note. */
static int build_config(counters *c, char *note, size_t notelen, char *err, size_t errlen)
{
	if (!(c->host = host_new(c, err, errlen)))
		return -1;
	const char *all[MET_COUNT];
	int met[MET_COUNT];
	size_t asked = 0;
	for (int i = 0; i < MET_COUNT; i++)
		if (c->set >> i & 1) {
			met[asked] = i;
			all[asked++] = counter_metric_names[i];
		}
	CUptiResult r = host_add(c->host, all, asked);
	if (r == CUPTI_SUCCESS) {
		for (size_t k = 0; k < asked; k++) {
			c->names[k] = all[k];
			c->slot[met[k]] = (int)k;
		}
		c->nnames = asked;
	} else {
		char first[512];
		cupti_failed(r, "cuptiProfilerHostConfigAddMetrics", first, sizeof first);
		/* a fresh object per try: what a failed add leaves behind is not documented */
		host_free(c->host);
		c->host = NULL;
		size_t used = 0;
		for (size_t k = 0; k < asked; k++) {
			CUpti_Profiler_Host_Object *h = host_new(c, err, errlen);
			if (!h)
				return -1;
			r = host_add(h, &all[k], 1);
			host_free(h);
			if (r == CUPTI_SUCCESS) {
				c->slot[met[k]] = (int)c->nnames;
				c->names[c->nnames++] = all[k];
			} else if (used < notelen) {
				int n = snprintf(note + used, notelen - used, "%s%s", used ? ", " : "", all[k]);
				if (n > 0)
					used += (size_t)n;
			}
		}
		if (c->nnames == 0) {
			snprintf(err, errlen, "no metric is available on %s: %s", c->chip, first);
			return -1;
		}
		if (!(c->host = host_new(c, err, errlen)) ||
		    cupti_failed(host_add(c->host, c->names, c->nnames), "cuptiProfilerHostConfigAddMetrics", err, errlen))
			return -1;
	}

	CUpti_Profiler_Host_GetConfigImageSize_Params sp = {.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
	sp.pHostObject = c->host;
	if (CK(cuptiProfilerHostGetConfigImageSize, &sp))
		return -1;
	c->config_size = sp.configImageSize;
	if (!(c->config = malloc(c->config_size ? c->config_size : 1))) {
		snprintf(err, errlen, "out of memory for a %zu-byte config image", c->config_size);
		return -1;
	}
	CUpti_Profiler_Host_GetConfigImage_Params ip = {.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
	ip.pHostObject = c->host;
	ip.configImageSize = c->config_size;
	ip.pConfigImage = c->config;
	if (CK(cuptiProfilerHostGetConfigImage, &ip))
		return -1;

	CUpti_Profiler_Host_GetNumOfPasses_Params pp = {.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
	pp.configImageSize = c->config_size;
	pp.pConfigImage = c->config;
	if (CK(cuptiProfilerHostGetNumOfPasses, &pp))
		return -1;
	c->passes = pp.numOfPasses;
	if (getenv("AUTOTUNE_TRACE"))
		trace_passes(c);
	return 0;
}

static int rp_enable(const counters *c, CUpti_RangeProfiler_Object **obj, char *err, size_t errlen)
{
	CUpti_RangeProfiler_Enable_Params p = {.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
	p.ctx = c->ctx;
	if (CK(cuptiRangeProfilerEnable, &p))
		return -1;
	*obj = p.pRangeProfilerObject;
	return 0;
}

static CUptiResult rp_disable(CUpti_RangeProfiler_Object *obj)
{
	CUpti_RangeProfiler_Disable_Params p = {.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
	p.pRangeProfilerObject = obj;
	return cuptiRangeProfilerDisable(&p);
}

/* Sizes and initialises the counter data image for obj. Both steps take the same object:
 * cuptiRangeProfilerCounterDataImageInitialize relies on the metrics that
 * cuptiRangeProfilerGetCounterDataSize gave that object (with another object it crashed). */
static int init_counter_data(counters *c, CUpti_RangeProfiler_Object *obj, size_t ranges, char *err, size_t errlen)
{
	CUpti_RangeProfiler_GetCounterDataSize_Params p = {.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
	p.pRangeProfilerObject = obj;
	p.pMetricNames = c->names;
	p.numMetrics = c->nnames;
	p.maxNumOfRanges = ranges;
	p.maxNumRangeTreeNodes = ranges;
	if (CK(cuptiRangeProfilerGetCounterDataSize, &p))
		return -1;
	if (!c->data || p.counterDataSize > c->data_size) {
		free(c->data);
		c->data_size = 0;
		if (!(c->data = malloc(p.counterDataSize ? p.counterDataSize : 1))) {
			snprintf(err, errlen, "out of memory for a %zu-byte counter data image", p.counterDataSize);
			return -1;
		}
	}
	c->data_size = p.counterDataSize;

	CUpti_RangeProfiler_CounterDataImage_Initialize_Params dp = {.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
	dp.pRangeProfilerObject = obj;
	dp.counterDataSize = c->data_size;
	dp.pCounterData = c->data;
	return CK(cuptiRangeProfilerCounterDataImageInitialize, &dp);
}

static const char *support_name(CUpti_Profiler_Support_Level l)
{
	switch (l) {
	case CUPTI_PROFILER_CONFIGURATION_SUPPORTED:
		return "supported";
	case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED:
		return "unsupported";
	case CUPTI_PROFILER_CONFIGURATION_DISABLED:
		return "disabled";
	default:
		return "unknown";
	}
}

/* Says which of the device's properties rules profiling out; UNKNOWN is let through, since
 * cuptiRangeProfilerEnable gives the final answer. */
static int check_device(const counters *c, char *err, size_t errlen)
{
	CUpti_Profiler_DeviceSupported_Params p = {.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
	p.cuDevice = c->dev;
	p.api = CUPTI_PROFILER_RANGE_PROFILING;
	if (CK(cuptiProfilerDeviceSupported, &p))
		return -1;
	if (p.isSupported != CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED && p.isSupported != CUPTI_PROFILER_CONFIGURATION_DISABLED)
		return 0;
	snprintf(err, errlen,
		 "CUPTI cannot profile this device (%s): architecture %s, SLI %s, vGPU %s, confidential computing %s, "
		 "CMP %s, WSL %s",
		 support_name(p.isSupported), support_name(p.architecture), support_name(p.sli), support_name(p.vGpu),
		 support_name(p.confidentialCompute), support_name(p.cmp), support_name(p.wsl));
	return -1;
}

/* What the device says: the profiler's start, whether it can profile, the chip's name and which
 * counters are available. */
static int query_device(counters *c, char *err, size_t errlen)
{
	CUpti_Profiler_Initialize_Params ip = {.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
	if (CK(cuptiProfilerInitialize, &ip))
		return -1;
	c->profiler_initialized = 1;
	if (check_device(c, err, errlen))
		return -1;

	CUpti_Device_GetChipName_Params np = {.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE};
	np.deviceIndex = (size_t)c->dev;
	if (CK(cuptiDeviceGetChipName, &np))
		return -1;
	snprintf(c->chip, sizeof c->chip, "%s", np.pChipName ? np.pChipName : "");

	/* the first call sizes the image, the second fills it */
	CUpti_Profiler_GetCounterAvailability_Params ap = {.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
	ap.ctx = c->ctx;
	if (CK(cuptiProfilerGetCounterAvailability, &ap))
		return -1;
	if (ap.counterAvailabilityImageSize) {
		c->avail_size = ap.counterAvailabilityImageSize;
		if (!(c->avail = malloc(c->avail_size))) {
			snprintf(err, errlen, "out of memory for the counter availability image");
			return -1;
		}
		ap.pCounterAvailabilityImage = c->avail;
		if (CK(cuptiProfilerGetCounterAvailability, &ap))
			return -1;
	}
	return 0;
}

counters *counters_create(CUcontext ctx, CUdevice dev, unsigned set, pthread_mutex_t *device_lock, char *err,
			  size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	counters *c = calloc(1, sizeof *c);
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->ctx = ctx;
	c->dev = dev;
	c->set = set & COUNTERS_ALL;
	for (int i = 0; i < MET_COUNT; i++)
		c->slot[i] = -1;
	char note[512] = "";

	if (device_lock)
		pthread_mutex_lock(device_lock);
	int rc = query_device(c, err, errlen);
	if (device_lock)
		pthread_mutex_unlock(device_lock);
	if (rc)
		goto fail;
	if (build_config(c, note, sizeof note, err, errlen))
		goto fail;
	/* not an error: the caller may show which metrics will read NAN */
	if (note[0])
		snprintf(err, errlen, "not available on %s (will read NAN): %s", c->chip, note);
	return c;

fail:
	counters_destroy(c);
	return NULL;
}

/* The range profiler's configuration for a session of `kernels` launches, one range each. */
static int set_config(counters *c, CUpti_RangeProfiler_Object *obj, size_t kernels, char *err, size_t errlen)
{
	CUpti_RangeProfiler_SetConfig_Params sc = {.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
	sc.pRangeProfilerObject = obj;
	sc.configSize = c->config_size;
	sc.pConfig = c->config;
	sc.counterDataImageSize = c->data_size;
	sc.pCounterDataImage = c->data;
	sc.range = CUPTI_AutoRange;
	sc.replayMode = CUPTI_UserReplay;
	sc.maxRangesPerPass = kernels;
	sc.numNestingLevels = 1;
	sc.minNestingLevel = 1;
	sc.passIndex = 0;
	sc.targetNestingLevel = 1;
	return CK(cuptiRangeProfilerSetConfig, &sc) ? -1 : 0;
}

/* Replays the launches once per pass until CUPTI has all it needs. *started: a pass is open
 * (left so on failure, for the caller to stop). spent[]: seconds in starting passes, launching,
 * waiting for the kernels and stopping, added up over the passes (for the trace). */
static int run_passes(counters *c, CUpti_RangeProfiler_Object *obj, counters_launch_fn launch, void *arg,
		      int *started, double spent[4], char *err, size_t errlen)
{
	/* CUPTI decides when the passes are done; the bound only guards against a CUPTI that never says so */
	size_t limit = 2 * (c->passes ? c->passes : 1) + 2, pass = 0;
	for (;;) {
		double t0 = trace_now();
		CUpti_RangeProfiler_Start_Params st = {.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
		st.pRangeProfilerObject = obj;
		if (CK(cuptiRangeProfilerStart, &st))
			return -1;
		*started = 1;
		double t1 = trace_now();
		CUresult cr = launch(arg);
		double t2 = trace_now();
		char what[64];
		snprintf(what, sizeof what, "launch (profiling pass %zu)", pass + 1);
		if (cuda_failed(cr, what, err, errlen))
			return -1;
		/* a kernel that faults is reported as such, not as a CUPTI error further on */
		snprintf(what, sizeof what, "kernel (profiling pass %zu)", pass + 1);
		if (cuda_failed(cuCtxSynchronize(), what, err, errlen))
			return -1;
		double t3 = trace_now();
		CUpti_RangeProfiler_Stop_Params sp = {.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
		sp.pRangeProfilerObject = obj;
		*started = 0;
		if (CK(cuptiRangeProfilerStop, &sp))
			return -1;
		double t4 = trace_now();
		spent[0] += t1 - t0;
		spent[1] += t2 - t1;
		spent[2] += t3 - t2;
		spent[3] += t4 - t3;
		pass++;
		if (sp.isAllPassSubmitted)
			return 0;
		if (pass >= limit) {
			snprintf(err, errlen, "CUPTI still wants passes after %zu (config image: %zu)", pass, c->passes);
			return -1;
		}
	}
}

/* The session's ranges, decoded and evaluated into values[k] for kernel k. */
static int read_values(counters *c, CUpti_RangeProfiler_Object *obj, size_t kernels, double (*values)[MET_COUNT],
		       char *err, size_t errlen)
{
	CUpti_RangeProfiler_DecodeData_Params dd = {.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
	dd.pRangeProfilerObject = obj;
	if (CK(cuptiRangeProfilerDecodeData, &dd))
		return -1;
	if (dd.numOfRangeDropped) {
		snprintf(err, errlen, "%zu profiling range(s) dropped: launch() must start exactly %zu kernel(s)",
			 dd.numOfRangeDropped, kernels);
		return -1;
	}
	CUpti_RangeProfiler_GetCounterDataInfo_Params gi = {.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
	gi.pCounterDataImage = c->data;
	gi.counterDataImageSize = c->data_size;
	if (CK(cuptiRangeProfilerGetCounterDataInfo, &gi))
		return -1;
	if (gi.numTotalRanges != kernels) {
		snprintf(err, errlen, "%zu kernel(s) profiled, %zu launched", gi.numTotalRanges, kernels);
		return -1;
	}
	/* the ranges come in launch order: range k is kernel k */
	for (size_t k = 0; k < kernels; k++) {
		double got[MET_COUNT];
		CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
		ev.pHostObject = c->host;
		ev.pCounterDataImage = c->data;
		ev.counterDataImageSize = c->data_size;
		ev.rangeIndex = k;
		ev.ppMetricNames = c->names;
		ev.numMetrics = c->nnames;
		ev.pMetricValues = got;
		if (CK(cuptiProfilerHostEvaluateToGpuValues, &ev))
			return -1;
		for (int i = 0; i < MET_COUNT; i++)
			if (c->slot[i] >= 0)
				values[k][i] = got[c->slot[i]];
	}
	return 0;
}

int counters_measure(counters *c, size_t kernels, counters_launch_fn launch, void *arg, double (*values)[MET_COUNT],
		     char *err, size_t errlen)
{
	for (size_t k = 0; k < kernels; k++)
		for (int i = 0; i < MET_COUNT; i++)
			values[k][i] = NAN;
	if (err && errlen)
		err[0] = '\0';
	if (!c || !launch || !kernels) {
		snprintf(err, errlen, "counters_measure: no profiler, no launch function or no kernel");
		return -1;
	}
	int started = 0, rc = -1;
	double t[5] = {trace_now()}, spent[4] = {0};
	if (!c->obj && rp_enable(c, &c->obj, err, errlen))
		return -1;
	CUpti_RangeProfiler_Object *obj = c->obj;
	t[1] = trace_now();
	if (init_counter_data(c, obj, kernels, err, errlen) == 0 && set_config(c, obj, kernels, err, errlen) == 0 &&
	    (t[2] = trace_now(), run_passes(c, obj, launch, arg, &started, spent, err, errlen) == 0)) {
		t[3] = trace_now();
		rc = read_values(c, obj, kernels, values, err, errlen);
		t[4] = trace_now();
		if (getenv("AUTOTUNE_TRACE"))
			fprintf(stderr,
				"trace %d: %zu kernels: enable %.1f ms, set up %.1f ms, passes %.1f ms (start %.1f, launch "
				"%.1f, kernels %.1f, stop %.1f), read %.1f ms\n",
				(int)getpid(), kernels, 1e3 * (t[1] - t[0]), 1e3 * (t[2] - t[1]), 1e3 * (t[3] - t[2]),
				1e3 * spent[0], 1e3 * spent[1], 1e3 * spent[2], 1e3 * spent[3], 1e3 * (t[4] - t[3]));
	}
	if (started) {
		CUpti_RangeProfiler_Stop_Params sp = {.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
		sp.pRangeProfilerObject = obj;
		cuptiRangeProfilerStop(&sp);
	}
	if (rc)
		counters_pause(c); /* a fresh start for the next one */
	return rc;
}

void counters_pause(counters *c)
{
	if (c && c->obj) {
		rp_disable(c->obj);
		c->obj = NULL;
	}
}

void counters_destroy(counters *c)
{
	counters_pause(c);
	if (!c)
		return;
	if (c->host)
		host_free(c->host);
	free(c->data);
	free(c->config);
	free(c->avail);
	if (c->profiler_initialized) {
		CUpti_Profiler_DeInitialize_Params p = {.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
		cuptiProfilerDeInitialize(&p);
	}
	free(c);
}
