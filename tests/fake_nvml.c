/* fake_nvml.c: stands in for libnvidia-ml.so.1 (built as build/fakenvml/libnvidia-ml.so.1) for
 * tuner/measure/gpu_guess.c (below) and tests/energy_window.c: an energy counter in millijoules that the
 * driver refreshes every FAKE_NVML_PERIOD seconds of the test GPU's own clock (the program's
 * fake_gpu_seconds), drawing FAKE_NVML_WATTS. FAKE_NVML_FAIL=init fails nvmlInit; =energy answers
 * the counter NOT_SUPPORTED, as a GPU before Volta or a MIG instance does. */
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

/* For tuner/measure/gpu_guess.c: FAKE_NVML_CC lists each GPU's compute capability ("90" or "90,80");
 * FAKE_NVML_FAIL=init fails nvmlInit as above. */
int nvmlShutdown(void) { return SUCCESS; }

int nvmlDeviceGetCount_v2(unsigned *n)
{
	const char *cc = getenv("FAKE_NVML_CC");
	*n = 0;
	for (const char *p = cc; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : "")
		++*n;
	return SUCCESS;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **h)
{
	*h = (void *)(size_t)(i + 1);
	return SUCCESS;
}

int nvmlDeviceGetCudaComputeCapability(void *h, int *major, int *minor)
{
	const char *p = getenv("FAKE_NVML_CC");
	for (size_t i = 1; p && i < (size_t)h; i++)
		p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
	if (!p)
		return UNKNOWN;
	int cc = atoi(p);
	*major = cc / 10;
	*minor = cc % 10;
	return SUCCESS;
}
