/* fake_nvml.c: stands in for libnvidia-ml.so.1 (built as build/fakenvml/libnvidia-ml.so.1) for
 * tests/energy_window.c: an energy counter in millijoules that the driver refreshes every
 * FAKE_NVML_PERIOD seconds of the test GPU's own clock (the program's fake_gpu_seconds), drawing
 * FAKE_NVML_WATTS. FAKE_NVML_FAIL=init fails nvmlInit; =energy answers the counter
 * NOT_SUPPORTED, as a GPU before Volta or a MIG instance does. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SUCCESS = 0, NOT_SUPPORTED = 3, UNKNOWN = 999 };

static int failing(const char *what)
{
	const char *f = getenv("FAKE_NVML_FAIL");
	return f && !strcmp(f, what);
}

int nvmlInit_v2(void) { return failing("init") ? UNKNOWN : SUCCESS; }

const char *nvmlErrorString(int rc) { return rc == NOT_SUPPORTED ? "Not Supported" : rc ? "Unknown Error" : "Success"; }

int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **h)
{
	(void)bus;
	*h = (void *)1;
	return SUCCESS;
}

int nvmlDeviceGetHandleByUUID(const char *uuid, void **h)
{
	(void)uuid;
	*h = (void *)1;
	return SUCCESS;
}

int nvmlDeviceGetTotalEnergyConsumption(void *h, unsigned long long *mj)
{
	(void)h;
	if (failing("energy"))
		return NOT_SUPPORTED;
	double (*seconds)(void) = (double (*)(void))dlsym(RTLD_DEFAULT, "fake_gpu_seconds");
	double period = atof(getenv("FAKE_NVML_PERIOD")), watts = atof(getenv("FAKE_NVML_WATTS"));
	if (!seconds || period <= 0)
		return UNKNOWN;
	/* the last refresh: a whole number of periods, some joules since the driver loaded */
	*mj = (unsigned long long)(123456 + floor(seconds() / period) * period * watts * 1000);
	return SUCCESS;
}
