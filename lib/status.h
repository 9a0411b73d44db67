/* status.h: what became of a configuration. One fixed name each, shared by the worker that
 * produces them, the tuner that records them and the CSV that reports them. */
#ifndef AUTOTUNE_STATUS_H
#define AUTOTUNE_STATUS_H

#include <string.h>

typedef enum {
	ST_NOT_RUN,       /* --dry-run, or never reached */
	ST_OK,            /* ran, verified, timed */
	ST_COMPILE_ERROR, /* nvcc failed or the entry point is missing */
	ST_LAUNCH_ERROR,  /* the driver refused the launch (too many threads, shared memory, grid), or
	                   * the kernel recorded a device-side launch that failed (build.rdc) */
	ST_WRONG_RESULT,  /* outputs differ from the reference run */
	ST_CRASHED,       /* the kernel faulted and took its context (or its worker) down */
	ST_TIMEOUT,       /* killed after running too long */
	ST_COUNT_
} status;

static const char *const status_names[ST_COUNT_] = {
	"not-run", "ok", "compile-error", "launch-error", "wrong-result", "crashed", "timeout",
};

static inline const char *status_name(status s) { return status_names[s]; }

static inline int status_parse(const char *name, status *out)
{
	for (int i = 0; i < ST_COUNT_; i++)
		if (!strcmp(name, status_names[i])) {
			*out = (status)i;
			return 0;
		}
	return -1;
}

#endif
