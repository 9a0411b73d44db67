/* energy_window.c: worker/energy.c's window on a GPU of its own time (no CUDA, no waiting), read
 * through tests/fake_nvml.c (which finds any GPU): a kernel of MS milliseconds, its launches queued as the worker
 * queues them (each chunk runs right after the one before), the window at least MIN_S long.
 * usage: energy_window MS MIN_S; prints "ok J W UPDATES LAUNCHES WINDOW_S" or "none NOTE". */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "energy.h"

/* The GPU's clock: the host waits for a chunk by moving it to the chunk's end. */
static double clock_now, queue_end, chunk_end[2], per_ms;
static long long chunks;

double fake_gpu_seconds(void) { return clock_now; }

static double gpu_clock(void *ctx)
{
	(void)ctx;
	return clock_now;
}

/* as worker.c's energy_launches: chunk k queued, chunk k - 1 waited for; 0: everything */
static int launch(void *ctx, int n)
{
	(void)ctx;
	if (n == 0) {
		clock_now = queue_end;
		return 0;
	}
	queue_end = (queue_end > clock_now ? queue_end : clock_now) + per_ms * n / 1000;
	chunk_end[chunks % 2] = queue_end;
	if (chunks > 0 && chunk_end[(chunks - 1) % 2] > clock_now)
		clock_now = chunk_end[(chunks - 1) % 2];
	clock_now += 20e-6; /* the host's own time between the wait and the reading */
	chunks++;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	per_ms = atof(argv[1]);
	energy_reading e;
	energy_measure("0000:00:00.0", "", atof(argv[2]), per_ms, launch, gpu_clock, NULL, &e);
	if (e.ok)
		printf("ok %.9g %.9g %d %lld %.6f %s\n", e.joules, e.watts, e.updates, e.launches, e.window_s, e.note);
	else
		printf("none %s\n", e.note);
	return 0;
}
