/* devices.h: the GPUs a run measures on: which ones (--devices, -d, else every visible one),
 * one worker each, started side by side, and only GPUs of one model, so that their
 * measurements can be compared; also `autotune devices`. */
#ifndef AUTOTUNE_DEVICES_H
#define AUTOTUNE_DEVICES_H

#include "cli.h"
#include "runner.h"

struct starter;

typedef struct {
	runner **runners;   /* n lanes; runners[i] once GPU i is ready (devices_join), NULL if left out */
	device_info *info;  /* n entries, filled as runners join */
	size_t n;
	struct starter *st; /* workers still starting (internal) */
	int quiet;
} gpu_set;

/* Starts a worker on every GPU asked for, each set up for cfg. It returns once the first GPU is
 * open (info[0] says what it is; -1 with the reason in d when it cannot start) and sets it up
 * (fills, the host reference, warm-up) on a thread meanwhile, so that nvcc compiles while it does;
 * devices_ready waits for that. GPUs named by o->devices or o->device must all start, and be of
 * one model. Without them it uses every GPU the first one's worker sees: the others open their
 * contexts once the first has its arguments (opening them all at once made each slower) and join
 * through devices_join. */
int devices_start(const options *o, const char *worker_path, const config *cfg, const char *log_path, gpu_set *set,
		  diags *d);

/* Waits until the first GPU is set up (and every named GPU has started): 0 with runners[0] set,
 * or -2 with the reason in d when the kernel's arguments could not be set up on it (or a named
 * GPU failed); the set is then stopped. Before it, runners[0] is NULL. */
int devices_ready(gpu_set *set, diags *d);

/* Whether --devices is a list of distinct GPU numbers (0,2,3); -1 with the reason in d. */
int devices_check(const char *list, diags *d);

/* Waits until lane i's GPU is ready and returns its runner, or NULL when it was left out (its
 * worker failed to start, or it is another model than GPU 0: a warning on stderr unless quiet).
 * One thread per lane may call it. */
runner *devices_join(gpu_set *set, size_t i);

/* Waits for workers still starting, then stops every worker. */
void devices_stop(gpu_set *set);

/* The device's copy bandwidth in GB/s (bytes read + written), measured once per GPU and
 * remembered in the user's cache directory under its UUID; -1 when unknown. */
double devices_copy_bandwidth(runner *rn, const device_info *dev);

/* `autotune devices`: one line per visible GPU on stdout. */
int cmd_devices(const options *o, const char *worker_path);

/* The worker executable: $AUTOTUNE_WORKER, else autotune-worker beside this program, else in
 * ../libexec/autotune/ from it (the installed layout), else found on PATH. Caller frees. */
char *devices_worker_path(void);

#endif
