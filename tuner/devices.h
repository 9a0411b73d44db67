/* devices.h: the GPUs a run measures on: which ones (--devices, -d, else every visible one),
 * one worker each, started side by side, and only GPUs of one model, so that their
 * measurements can be compared; also `autotune devices`. */
#ifndef AUTOTUNE_DEVICES_H
#define AUTOTUNE_DEVICES_H

#include "cli.h"
#include "runner.h"

typedef struct {
	runner **runners;   /* n started workers, runners[0] on the first GPU asked for */
	device_info *info;  /* n entries */
	size_t n;
} gpu_set;

/* "0,2,3" into ordinals (caller frees); -1 with the reason in d. */
int devices_parse(const char *list, int **ordinals, size_t *n, diags *d);

/* Starts a worker on every GPU asked for (o->devices, else o->device, else all that the first
 * worker sees), each set up for cfg (NULL: device information only). A GPU of another model than
 * the first, or one whose worker cannot start, is left out with a warning on stderr (unless
 * quiet). -1 with the reason in d when not even the first starts. */
int devices_start(const options *o, const char *worker_path, const config *cfg, const char *log_path, gpu_set *set,
		  diags *d);
void devices_stop(gpu_set *set);

/* The device's copy bandwidth in GB/s (bytes read + written), measured once per GPU and
 * remembered in the user's cache directory under its UUID; -1 when unknown. */
double devices_copy_bandwidth(runner *rn, const device_info *dev);

/* `autotune devices`: one line per visible GPU on stdout. */
int cmd_devices(const options *o, const char *worker_path);

#endif
