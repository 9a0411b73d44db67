/* runner.h: the tuner's side of the GPU worker: starts autotune-worker, sets up the kernel's
 * arguments once, measures configurations one by one, and replaces the worker when a kernel
 * kills it or hangs. */
#ifndef AUTOTUNE_RUNNER_H
#define AUTOTUNE_RUNNER_H

#include "binary.h"
#include "diag.h"
#include "expr.h"
#include "protocol.h"
#include "result.h"

typedef struct config config;

typedef struct {
	int cc;          /* 90 for sm_90 */
	int sms, l2_bytes, clock_khz, driver_version;
	size_t mem_bytes;
	char uuid[40];
	char name[256];
} device_info;

typedef struct runner runner;

/* Starts the worker on GPU `ordinal`, reports the device in *info. When cfg is not NULL, also
 * allocates and fills the kernel's arrays (after checking they fit). The worker's stderr (device
 * printf, assert messages, driver complaints) is appended to log_path, or inherited when NULL.
 * NULL on failure, with the reason in d (no driver, no GPU, not enough memory). */
runner *runner_start(const char *worker_path, int ordinal, const config *cfg, device_info *info,
		     const char *log_path, diags *d);

/* The second half of runner_start with a cfg, for a runner started without one: allocates and
 * fills the kernel's arrays (after checking they fit the device described by info); then
 * runner_warm_up() brings the GPU's clock up (no driver calls beyond launches: another GPU can
 * be opened meanwhile). With profiler set (runner_start sets it) and counters asked for, the
 * worker also gets its profiler ready while the first pass runs; a worker that will not profile
 * is better off without it (building it queries the GPU for 0.2 s, which holds its timed runs
 * back), and one that profiles after all builds it then. -1 with the reason in d; the
 * caller stops the runner. */
int runner_prepare(runner *r, const config *cfg, const device_info *info, int profiler, diags *d);

/* Whether cfg's arrays fit the device's memory (outputs and restored inputs twice); -1 with the
 * reason in d. runner_prepare checks it first; devices_start too, before anything compiles. */
int runner_arrays_fit(const config *cfg, const device_info *info, diags *d);
int runner_warm_up(runner *r, diags *d);

/* How one configuration is sampled: untimed launches first, then the worker's stopping rule
 * (race_ms: raced out before min_samples once the fastest sample is slower; near_ms: the same
 * from RACE_AFTER samples on; 0: never). */
typedef struct {
	int warmup;
	stop_rule rule;
	double energy_s; /* measure.energy: an energy window of at least this long after the samples (0: none) */
} sample_plan;

/* Measures one configuration: role PROTO_ROLE_REF keeps its outputs as the reference, CHECK
 * compares with them, TIME only times (finalist rounds). Fills res->st, timing, clocks and message.
 * Returns 0, or -1 when no worker can be started any more (the reason in d), or when
 * verify.host's function, which runs in the worker until the first run that verifies answers,
 * ended the worker or did not return (said in d at verify.host; runner_host_failed). */
int runner_measure(runner *r, const config *cfg, const value *params, proto_role role, const binary *bin,
		   const sample_plan *plan, result *res, double timeout_s, diags *d);
/* Whether verify.host's function ended r's worker: the user's code, not the GPU (r may be NULL). */
int runner_host_failed(const runner *r);

/* Collects the hardware counters of n configurations, one launch each in one profiling session
 * (its cost is per replay pass, nearly whatever it holds), into res[i]->metrics (have_metrics
 * set). A failure to profile one is a note in why[i] (caller frees), not a status: the timing
 * stands. timeout_s covers the whole session. -1 (the reason in d) when no worker can be started. */
int runner_profile(runner *r, const config *cfg, size_t n, const value *const *params, const binary *const *bins,
		   result *const *res, double timeout_s, char **why, diags *d);

/* How many GPUs the worker's process sees (CUDA_VISIBLE_DEVICES applies), or -1. */
int runner_device_count(runner *r);

/* Device-to-device copy bandwidth in GB/s (bytes read + written), or -1. */
double runner_copy_bandwidth(runner *r);

/* Asks the worker to exit without waiting for it: tearing a context down takes a while, and
 * several workers do it side by side before runner_stop waits for each. */
void runner_quit(runner *r);

void runner_stop(runner *r);

/* How much of a worker's log is kept (its first and last bytes), checked after each run. */
#define RUNNER_LOG_HEAD (4u << 20)
#define RUNNER_LOG_TAIL (1u << 20)
/* Cuts the log at path down to its first head and last tail bytes, with a line that says how many
 * were left out between, when it is longer. */
void runner_trim_log(const char *path, size_t head, size_t tail);

#endif
