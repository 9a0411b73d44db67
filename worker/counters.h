/* counters.h: hardware counters of kernel launches, through CUPTI's Range Profiler (in the worker only). */
#ifndef AUTOTUNE_COUNTERS_H
#define AUTOTUNE_COUNTERS_H

#include <cuda.h>
#include <pthread.h>

/* MET_BRANCH_TARGETS and MET_GLD_REQUESTS are read to tell "no branches" or "no global loads at
 * all" (an efficiency of 0/0) from 0%. */
enum { MET_ACHIEVED_OCCUPANCY, MET_GLD_EFFICIENCY, MET_GLD_THROUGHPUT, MET_DRAM_PCT, MET_BRANCH_EFFICIENCY,
       MET_BRANCH_TARGETS, MET_GLD_REQUESTS, MET_COUNT };
extern const char *const counter_metric_names[MET_COUNT];
/* Metric sets, bit i for MET_ i: a session costs per replay pass, and the selection's two
 * (occupancy and load efficiency, with the requests that tell 0/0) take two passes, all seven three. */
#define COUNTERS_ALL ((1u << MET_COUNT) - 1)
#define COUNTERS_DECIDE (1u << MET_ACHIEVED_OCCUPANCY | 1u << MET_GLD_EFFICIENCY | 1u << MET_GLD_REQUESTS)
typedef struct counters counters;
typedef CUresult (*counters_launch_fn)(void *arg);  /* launches the kernels once each, in order, asynchronously */
/* NULL with a message in err when CUPTI cannot profile here (library missing, unsupported device);
 * a failure to enable the profiler (no permission: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) shows on
 * the first measurement. About 0.2 s on an H200, nearly all of it device queries (the profiler's
 * initialisation 80-90 ms, the counter availability image 130 ms): a worker starts it on a thread
 * of its own while it times kernels. Those queries held the other thread's driver calls back for
 * their whole length, one timed sample +25%: they run with device_lock held (when not NULL), which
 * the thread that times kernels holds around each timed region. ctx must be current on the
 * calling thread. Only the metrics in `set` (COUNTERS_*) are read; the others read NAN. */
counters *counters_create(CUcontext ctx, CUdevice dev, unsigned set, pthread_mutex_t *device_lock, char *err,
			  size_t errlen);
/* Profiles `kernels` launches in one session, each an auto range of its own: calls launch(arg) once
 * per replay pass (user replay: the kernels are relaunched, so the caller accepts that their
 * outputs are overwritten), and fills values[k][MET_COUNT] for the k-th kernel launched (NAN for
 * a metric that could not be read). The session's cost is per pass, nearly whatever it holds. 0
 * on success, -1 with err (then none of the values stand). */
int counters_measure(counters *c, size_t kernels, counters_launch_fn launch, void *arg, double (*values)[MET_COUNT],
		     char *err, size_t errlen);
/* Disables the range profiler that measurements leave enabled for the next one: call it before
 * any launch that is timed. */
void counters_pause(counters *c);
void counters_destroy(counters *c);

#endif
