/* gpu_guess.c: the GPUs' architecture from NVML (gpu_guess.h). */
#include "gpu_guess.h"

#include <dlfcn.h>
#include <stdlib.h>

#include "banned.h"

/* NVML's own declarations, so that building needs no nvml.h */
typedef struct nvml_device_st *nvml_device;

/* Which CUDA ordinal is which NVML index depends on CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER:
 * rather than map them, the guess holds only when every GPU is of one architecture. */
static int common_cc(void *so)
{
	int (*init)(void), (*shutdown)(void), (*count)(unsigned *), (*handle)(unsigned, nvml_device *),
		(*cc_of)(nvml_device, int *, int *);
	*(void **)&init = dlsym(so, "nvmlInit_v2");
	*(void **)&shutdown = dlsym(so, "nvmlShutdown");
	*(void **)&count = dlsym(so, "nvmlDeviceGetCount_v2");
	*(void **)&handle = dlsym(so, "nvmlDeviceGetHandleByIndex_v2");
	*(void **)&cc_of = dlsym(so, "nvmlDeviceGetCudaComputeCapability");
	if (!init || !shutdown || !count || !handle || !cc_of || init())
		return -1;
	unsigned n = 0;
	int cc = -1;
	if (count(&n) == 0)
		for (unsigned i = 0; i < n; i++) {
			nvml_device d;
			int major, minor;
			if (handle(i, &d) || cc_of(d, &major, &minor) || major <= 0 || (cc >= 0 && cc != 10 * major + minor)) {
				cc = -1;
				break;
			}
			cc = 10 * major + minor;
		}
	shutdown();
	return cc;
}

int gpu_guess_cc(void)
{
	const char *lib = getenv("AUTOTUNE_NVML"), *worker = getenv("AUTOTUNE_WORKER");
	if (!(lib && *lib) && worker && *worker)
		return -1;
	void *so = dlopen(lib && *lib ? lib : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!so)
		return -1;
	int cc = common_cc(so);
	dlclose(so);
	return cc;
}
