/* worker.h: what the files of autotune-worker share, private to worker/: the device every file
 * launches on, the replies, a kernel launch, the argument table's operations (args.c) and the
 * profiling commands (profile.c). */
#ifndef AUTOTUNE_WORKER_H
#define AUTOTUNE_WORKER_H

#include <cuda.h>
#include <pthread.h>

#include "protocol.h"

#define MAX_ARGS 64

/* The GPU this worker opened (the device command). */
struct worker {
	CUdevice dev;
	CUcontext ctx;
	CUmodule helpers;     /* worker_kernels.cu: fills, sums, comparisons, the clock probe */
	CUdeviceptr counters; /* 4 words where the helper kernels leave what they found */
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

/* worker.c */
const char *err_name(CUresult r);
int is_sticky(CUresult r);
void reply(const proto_msg *m, const void *msg);
void reply_ok(void);
void reply_error(const char *code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
CUresult get_module(const char *path, CUmodule *mod);
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

/* args.c: the commands that describe the arguments */
void cmd_array(char *line);
void cmd_scalar(char *line);
void cmd_let(char *line);
void cmd_fillexpr(char *line);
void cmd_fillfile(char *line);
void cmd_copy(char *line);
void cmd_hostref(char *line);
void cmd_constant(char *line);
void cmd_sumcheck(char *line);
void cmd_sumcount(const proto_sumcount *sc);
void args_set_sample(unsigned long long sample, long long mismatches);
/* args.c: the arguments around a launch */
CUresult fill_constants(CUmodule mod, char *msg, size_t len);
/* Kernel parameters in order, leaving out the arguments that go to __constant__ memory; the
 * scalars from `scalars` (save_scalars) or, when NULL, as they are now. */
void set_params(void **params, unsigned char (*scalars)[8]);
void save_scalars(unsigned char (*scalars)[8]);
/* params[k] for argument idx[k], k < n: 0, or -1 when one is not a passed argument. */
int set_params_of(void **params, const int *idx, int n);
CUresult restore_inputs(void);
int has_restore(void);
CUresult poison_outputs(void);
CUresult keep_reference(void);
int verify_sum(double rtol, double atol, char *msg, size_t len, CUresult *err);
int verify(double rtol, double atol, char *msg, size_t len, CUresult *err);
void args_free(void);

/* streams.c: a plan, run in place of a run's single launch */
void cmd_plan(char *line);
void cmd_step(char *line);
/* Whether a plan was sent for the next run; plan_done forgets it once the run is over. */
int plan_pending(void);
void plan_done(void);
/* Launches one execution of the plan makes (steps x streams). */
int plan_launches(void);
/* The steps' functions from mod, their parameters, the streams: 0, or the CUDA error (why in why). */
CUresult plan_load(CUmodule mod, char *why, size_t len);
/* The plan executed `times` times back to back, dispatched in its order. */
CUresult plan_execute(int times);
/* Each step alone (before_each(i) ahead of each launch), the medians summed, times the streams. */
CUresult plan_serial(CUresult (*before_each)(int), double *ms);
void plan_free(void);

/* profile.c */
void cmd_counters(char *line);
void cmd_profile(char *line);
int cmd_profiles(void);
void profiler_pause(void);
void profile_close(void);

#endif
