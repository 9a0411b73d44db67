/* energy.h: a kernel's energy from the GPU's own counter (NVML's total energy consumption, in
 * millijoules since the driver loaded), read through libnvidia-ml.so.1 opened with dlopen, so
 * that building needs no NVML and a machine without it still tunes, with a note instead. */
#ifndef AUTOTUNE_WORKER_ENERGY_H
#define AUTOTUNE_WORKER_ENERGY_H

#include <stddef.h>

/* Queues n launches behind those queued before and waits for all but these n (the GPU is never
 * left without work while the counter is read), setting *busy_s to the GPU's time running the
 * chunk it waited for (0 for none); n 0: waits for everything. 0 or the CUDA error (a CUresult:
 * this file needs no CUDA header, so that a test builds it without a toolkit). */
typedef int (*energy_launch_fn)(void *ctx, int n, double *busy_s);
/* Seconds on a monotonic clock (NULL: CLOCK_MONOTONIC's; a test's GPU keeps its own time). */
typedef double (*energy_clock_fn)(void *ctx);

typedef struct {
	int ok;              /* joules and watts hold; else note says why */
	double joules;       /* per launch */
	double watts;        /* average over the window */
	double window_s;     /* between the first and last counter update read */
	int updates;         /* counter updates seen within it */
	long long launches;  /* launches within it */
	double busy;         /* the fraction of the window the GPU ran them */
	int r;               /* a launch failed: its CUresult (the run ends as if it failed while timing) */
	char note[200];
} energy_reading;

/* The counter of the GPU of PCI bus id `bus` (cuDeviceGetPCIBusId's), else of `uuid` (nvidia-smi's
 * "GPU-" form; either may be ""), read around back-to-back launches of about per_launch_ms each, from one of its
 * updates to another at least min_s and ENERGY_MIN_UPDATES updates later (both ends at an update
 * while the kernel runs, so neither idle time nor a stale reading enters). */
void energy_measure(const char *bus, const char *uuid, double min_s, double per_launch_ms, energy_launch_fn launch,
		    energy_clock_fn clock, void *ctx, energy_reading *out);

/* so many of the counter's updates at least: its own averaging and update jitter then move the
 * reading by a few percent at most */
#define ENERGY_MIN_UPDATES 10
/* launches are enqueued in chunks of about this long between readings: the window's ends are
 * known to within one chunk */
#define ENERGY_CHUNK_MS 2.0
/* a window where the GPU ran the launches less than this fraction of the time is measured again
 * with chunks 4 times longer, up to ENERGY_TRIES windows, then said instead of read */
#define ENERGY_MIN_BUSY 0.9
#define ENERGY_TRIES 3
/* no window runs longer than this: a counter that has not updated often enough by then is said */
#define ENERGY_MAX_S 10.0

#endif
