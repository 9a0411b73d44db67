/* device.h: what every file of autotune-worker uses (device.c): the device every file
 * launches on, the replies, the modules loaded, a kernel launch. Private to worker/. */
#ifndef AUTOTUNE_WORKER_DEVICE_H
#define AUTOTUNE_WORKER_DEVICE_H

#include <cuda.h>
#include <pthread.h>

#include "protocol.h"

#define MAX_ARGS 64

/* The GPU this worker opened (the device command). */
struct worker {
	CUdevice dev;
	CUcontext ctx;
	CUmodule helpers;     /* worker_kernels.cu: fills, sums, comparisons, the clock probe */
	CUdeviceptr counters; /* COUNTER_WORDS (compare.h) where the helpers leave what they found */
	/* held around each timed region, and by the profiler's thread while it queries the device:
	 * those queries stalled a timing thread's driver calls by 0.1-0.6 s, and a stall between the
	 * start event and the launch would be timed */
	pthread_mutex_t device_lock;
};
extern struct worker W;

typedef struct {
	CUfunction f;
	unsigned grid[3], block[3], smem;
	void *params[MAX_ARGS];
} launch;

const char *err_name(CUresult r);
int is_sticky(CUresult r);
void reply(const proto_msg *m, const void *msg);
void reply_ok(void);
void reply_error(const char *code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The protocol's stream is a copy of stdout, and fd 1 becomes stderr, so that device printf and
 * assert messages can never be mistaken for an answer: 0, or -1. */
int reply_open(void);

/* A module loaded once per path (the oldest evicted past a bound): 0, or the CUDA error. */
CUresult get_module(const char *path, CUmodule *mod);
void modules_free(void);
/* Functions launched since their module was loaded: a finalist's run skips the untimed first
 * launch that lazy loading needs. */
int launched_before(CUfunction f);
void note_launched(CUfunction f);

int launch_shape(const proto_launch *p, launch *L);
/* Lets L's function use its dynamic shared memory beyond the 48 KB a block gets without opting in
 * (static and dynamic together): launch_predict counts with the opt-in limit. */
static inline void launch_allow_smem(const launch *L)
{
	/* the 48 KB is of static and dynamic together: 48 KB dynamic beside 2 KB static needs it too.
	 * Past the device's limit the call fails and the launch reports why. */
	if (L->smem > 0)
		cuFuncSetAttribute(L->f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)L->smem);
}
CUresult launch_n(const launch *L, int count);

/* The device runtime's name of a cudaError_t a failed device-side launch gives (the worker has no
 * runtime library to ask), or NULL: said by number then. */
const char *runtime_error_name(int e);
/* The GPU's PCI bus id and its UUID as nvidia-smi prints it, for NVML; "" where the driver has none. */
void device_ids(char bus[32], char uuid[64]);

#endif
