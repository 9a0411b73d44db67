/* energy_window.c: worker/energy.c's window on a GPU of its own time (no CUDA, no waiting), read
 * through tests/fake_nvml.c (which finds any GPU): a kernel of MS milliseconds, its launches queued as the worker
 * queues them (each chunk runs right after the one before), the window at least MIN_S long.
 * usage: energy_window MS MIN_S [HOST_S]: HOST_S the host's own time between a wait and the next
 * queued chunk (20 us unless given); prints "ok J W UPDATES LAUNCHES WINDOW_S NOTE" or "none NOTE". */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "energy.h"

/* The GPU's clock: the host waits for a chunk by moving it to the chunk's end. */
static double clock_now, queue_end, chunk_start[2], chunk_end[2], per_ms, host_s = 20e-6;
static long long chunks;

double fake_gpu_seconds(void) { return clock_now; }

static double gpu_clock(void *ctx)
{
	(void)ctx;
	return clock_now;
}

/* as worker.c's energy_launches: chunk k queued (the GPU idle until then if it ran dry), chunk
 * k - 1 waited for and its time on the GPU given; 0: everything */
static int launch(void *ctx, int n, double *busy_s)
{
	(void)ctx;
	*busy_s = 0;
	if (n == 0) {
		clock_now = queue_end > clock_now ? queue_end : clock_now;
		return 0;
	}
	chunk_start[chunks % 2] = queue_end > clock_now ? queue_end : clock_now;
	queue_end = chunk_start[chunks % 2] + per_ms * n / 1000;
	chunk_end[chunks % 2] = queue_end;
	if (chunks > 0) {
		if (chunk_end[(chunks - 1) % 2] > clock_now)
			clock_now = chunk_end[(chunks - 1) % 2];
		*busy_s = chunk_end[(chunks - 1) % 2] - chunk_start[(chunks - 1) % 2];
	}
	clock_now += host_s; /* the host's own time between the wait and the next chunk */
	chunks++;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4)
		return 2;
	per_ms = atof(argv[1]);
	if (argc == 4)
		host_s = atof(argv[3]);
	energy_reading e;
	energy_measure("0000:00:00.0", "", atof(argv[2]), per_ms, launch, gpu_clock, NULL, &e);
	if (e.ok)
		printf("ok %.9g %.9g %d %lld %.6f %s\n", e.joules, e.watts, e.updates, e.launches, e.window_s, e.note);
	else
		printf("none %s\n", e.note);
	return 0;
}
