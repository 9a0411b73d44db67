/* energy.c: joules per launch and average watts from NVML's energy counter. The counter
 * (nvmlDeviceGetTotalEnergyConsumption, millijoules) is refreshed by the driver at a coarse rate,
 * tens of milliseconds apart, far longer than most kernels: a reading around one configuration's
 * timed samples (a few milliseconds, with cache flushes and host gaps between them) would be one
 * update or none. So the launches run back to back, in chunks of ENERGY_CHUNK_MS, the next chunk
 * queued before the counter is read after each (the GPU never waits for the reading), and the
 * window runs from one observed update of the counter to another at least min_s and
 * ENERGY_MIN_UPDATES updates later: both ends are taken while the kernel runs, and the launches
 * counted are those completed between them, to within a chunk. */
#include "energy.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* NVML's own declarations, so that building needs no nvml.h */
typedef int nvml_return;
typedef struct nvml_device_st *nvml_device;

static struct {
	int tried;
	char why[160]; /* when NVML cannot be used: why */
	const char *(*error_string)(nvml_return);
	nvml_return (*by_pci)(const char *, nvml_device *);
	nvml_return (*by_uuid)(const char *, nvml_device *);
	nvml_return (*energy)(nvml_device, unsigned long long *);
} nvml;

/* NVML loaded and initialised, once: 0, or -1 with nvml.why. */
static int nvml_open(void)
{
	if (nvml.tried)
		return *nvml.why ? -1 : 0;
	nvml.tried = 1;
	void *so = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!so) {
		snprintf(nvml.why, sizeof nvml.why, "no energy counter: NVML (libnvidia-ml.so.1) cannot be loaded");
		return -1;
	}
	nvml_return (*init)(void) = (nvml_return(*)(void))dlsym(so, "nvmlInit_v2");
	*(void **)&nvml.error_string = dlsym(so, "nvmlErrorString");
	*(void **)&nvml.by_pci = dlsym(so, "nvmlDeviceGetHandleByPciBusId_v2");
	*(void **)&nvml.by_uuid = dlsym(so, "nvmlDeviceGetHandleByUUID");
	*(void **)&nvml.energy = dlsym(so, "nvmlDeviceGetTotalEnergyConsumption");
	if (!init || !nvml.error_string || !nvml.by_pci || !nvml.by_uuid || !nvml.energy) {
		snprintf(nvml.why, sizeof nvml.why, "no energy counter: this NVML lacks nvmlDeviceGetTotalEnergyConsumption");
		return -1;
	}
	nvml_return rc = init();
	if (rc) {
		snprintf(nvml.why, sizeof nvml.why, "no energy counter: nvmlInit: %s", nvml.error_string(rc));
		return -1;
	}
	return 0;
}

static double monotonic(void *ctx)
{
	(void)ctx;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* NVML's handle of the GPU: by its PCI bus id, else by its UUID. */
static nvml_return find_device(const char *bus, const char *uuid, nvml_device *h)
{
	nvml_return rc = *bus ? nvml.by_pci(bus, h) : -1;
	return rc && *uuid && !nvml.by_uuid(uuid, h) ? 0 : rc;
}

/* The counter: 0 with its reading in *e, or -1 with the note said. */
static int open_counter(const char *bus, const char *uuid, nvml_device *h, unsigned long long *e, energy_reading *out)
{
	if (nvml_open()) {
		snprintf(out->note, sizeof out->note, "%s", nvml.why);
		return -1;
	}
	nvml_return rc;
	if ((rc = find_device(bus, uuid, h)) || (rc = nvml.energy(*h, e))) {
		/* NOT_SUPPORTED: GPUs before Volta, and a MIG instance, which has no counter of its own */
		snprintf(out->note, sizeof out->note, "no energy counter for GPU %s: %s", *bus ? bus : uuid,
			 rc == -1 ? "not found" : nvml.error_string(rc));
		return -1;
	}
	return 0;
}

/* One window with chunks of about chunk_ms (energy_measure's loop); out->busy set when ok. */
static void window_once(nvml_device h, unsigned long long *last, double chunk_ms, double min_s, double per_launch_ms,
			energy_launch_fn launch, energy_clock_fn now, void *ctx, energy_reading *out)
{
	double chunk_f = per_launch_ms > 0 ? ceil(chunk_ms / per_launch_ms) : 1;
	int chunk = chunk_f < 1 ? 1 : chunk_f > 1000000 ? 1000000 : (int)chunk_f;
	unsigned long long e_start = 0, e_end = 0;
	double t0 = now(ctx), t_start = 0, t_end = 0, busy = 0, busy_end = 0;
	long long counted = 0;
	int updates = -1; /* -1: the first update not seen yet */
	for (long long k = 0;; k++) {
		/* chunk k queued, chunk k - 1 done (its time on the GPU in b) */
		double b = 0;
		if ((out->r = launch(ctx, chunk, &b)))
			return;
		unsigned long long e;
		nvml_return rc = nvml.energy(h, &e);
		double t = now(ctx);
		if (rc) {
			snprintf(out->note, sizeof out->note, "energy counter: %s", nvml.error_string(rc));
			out->r = launch(ctx, 0, &b);
			return;
		}
		counted += k ? chunk : 0;
		busy += b;
		if (e != *last && updates < 0) {
			updates = 0;
			e_start = e;
			t_start = t;
			counted = 0;
			busy = 0;
		} else if (e != *last) {
			updates++;
			e_end = e;
			t_end = t;
			out->launches = counted;
			busy_end = busy;
		}
		*last = e;
		if ((updates >= ENERGY_MIN_UPDATES && t_end - t_start >= min_s) || t - t0 > ENERGY_MAX_S)
			break;
	}
	double b;
	if ((out->r = launch(ctx, 0, &b)))
		return;
	out->updates = updates < 0 ? 0 : updates;
	out->window_s = t_end - t_start;
	if (updates < 2 || out->launches <= 0 || e_end <= e_start) {
		snprintf(out->note, sizeof out->note, "energy counter too coarse: %d updates in %.1f s of launches",
			 out->updates, t_end > 0 ? t_end - t0 : now(ctx) - t0);
		return;
	}
	out->ok = 1;
	out->busy = busy_end / out->window_s;
	out->joules = (double)(e_end - e_start) * 1e-3 / (double)out->launches;
	out->watts = (double)(e_end - e_start) * 1e-3 / out->window_s;
	if (updates < ENERGY_MIN_UPDATES)
		snprintf(out->note, sizeof out->note, "energy from only %d counter updates in %.1f s", updates, out->window_s);
}

/* Windows with longer chunks until the GPU was busy through one: a host that reads the counter
 * slower than a chunk runs leaves the GPU idle, and idle draw would enter the joules. */
void energy_measure(const char *bus, const char *uuid, double min_s, double per_launch_ms, energy_launch_fn launch,
		    energy_clock_fn clock, void *ctx, energy_reading *out)
{
	memset(out, 0, sizeof *out);
	energy_clock_fn now = clock ? clock : monotonic;
	nvml_device h;
	unsigned long long last;
	if (open_counter(bus, uuid, &h, &last, out))
		return;
	double chunk_ms = ENERGY_CHUNK_MS;
	for (int attempt = 1;; attempt++, chunk_ms *= 4) {
		memset(out, 0, sizeof *out);
		window_once(h, &last, chunk_ms, min_s, per_launch_ms, launch, now, ctx, out);
		if (out->r || !out->ok || out->busy >= ENERGY_MIN_BUSY || attempt == ENERGY_TRIES)
			break;
	}
	if (out->ok && out->busy < ENERGY_MIN_BUSY) {
		out->ok = 0;
		snprintf(out->note, sizeof out->note,
			 "no energy: the GPU was idle %.0f%% of the window even with chunks of %.0f ms (the host "
			 "reads the counter too slowly)",
			 100 * (1 - out->busy), chunk_ms);
	}
}
