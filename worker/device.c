/* device.c: what every file of autotune-worker uses: the device it opened, the replies on the
 * protocol's stream, the driver's error names, the modules loaded and a kernel launch. The
 * command loop (worker.c) and the commands (args.c, streams.c, profile.c) call it; it calls none
 * of them. */
#include "device.h"

#include <driver_types.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "banned.h"

#define MAX_MODULES 256

struct worker W;

/* The modules loaded, by path: a cubin is loaded once. */
static struct {
	struct {
		char *path;
		CUmodule mod;
	} m[MAX_MODULES];
	int n;
} modules;

const char *err_name(CUresult r)
{
	const char *s = NULL;
	if (cuGetErrorName(r, &s) != CUDA_SUCCESS || !s)
		return "CUDA_ERROR_UNKNOWN";
	return s;
}

/* Errors after which the context is unusable (CUDA driver API docs: "the context cannot be
 * used"); the tuner starts a fresh worker. */
int is_sticky(CUresult r)
{
	switch (r) {
	case CUDA_ERROR_ILLEGAL_ADDRESS:
	case CUDA_ERROR_LAUNCH_FAILED:
	case CUDA_ERROR_ASSERT:
	case CUDA_ERROR_HARDWARE_STACK_ERROR:
	case CUDA_ERROR_ILLEGAL_INSTRUCTION:
	case CUDA_ERROR_MISALIGNED_ADDRESS:
	case CUDA_ERROR_INVALID_ADDRESS_SPACE:
	case CUDA_ERROR_INVALID_PC:
	case CUDA_ERROR_LAUNCH_TIMEOUT:
	case CUDA_ERROR_ECC_UNCORRECTABLE:
	case CUDA_ERROR_CONTEXT_IS_DESTROYED:
		return 1;
	default:
		return 0;
	}
}

/* The protocol's own stream: a copy of the original stdout. File descriptor 1 itself is pointed
 * at stderr, so that device printf and assert messages (which the CUDA runtime writes to fd 1)
 * can never be mistaken for an answer. */
static FILE *proto;

/* Answers with one message (protocol.h); NULL msg for one without fields. */
void reply(const proto_msg *m, const void *msg)
{
	char *line = proto_encode(m, msg);
	if (!line) {
		fputs("error ENOMEM out of memory\n", proto);
		exit(1);
	}
	fprintf(proto, "%s\n", line);
	fflush(proto);
	free(line);
}

void reply_ok(void) { reply(&PROTO_OK, NULL); }

/* "error CODE MESSAGE": CODE a CUDA error name, or "protocol" for a malformed command. */
void reply_error(const char *code, const char *fmt, ...)
{
	char message[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof message, fmt, ap);
	va_end(ap);
	reply(&PROTO_ERROR, &(proto_error){code, message});
}

/* The protocol's stream is a copy of stdout, and fd 1 becomes stderr (see proto). */
int reply_open(void)
{
	int fd = dup(STDOUT_FILENO);
	if (fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0 || !(proto = fdopen(fd, "w")))
		return -1;
	/* a full buffer must never hold back an answer */
	setvbuf(proto, NULL, _IOLBF, 0);
	return 0;
}

/* Functions launched since their module was loaded: a finalist's run skips the untimed first
 * launch that lazy loading needs (1 of its 7 launches). Forgotten when a module is evicted. */
static struct {
	CUfunction f[4 * MAX_MODULES];
	int n;
} launched;

int launched_before(CUfunction f)
{
	for (int i = 0; i < launched.n; i++)
		if (launched.f[i] == f)
			return 1;
	return 0;
}

void note_launched(CUfunction f)
{
	if (!launched_before(f) && launched.n < 4 * MAX_MODULES)
		launched.f[launched.n++] = f;
}

CUresult get_module(const char *path, CUmodule *mod)
{
	for (int i = 0; i < modules.n; i++)
		if (!strcmp(modules.m[i].path, path)) {
			*mod = modules.m[i].mod;
			return CUDA_SUCCESS;
		}
	CUresult r = cuModuleLoad(mod, path);
	if (r)
		return r;
	if (modules.n == MAX_MODULES) {
		/* evict the oldest; modules are small and reloading is cheap */
		cuModuleUnload(modules.m[0].mod);
		launched.n = 0;
		free(modules.m[0].path);
		memmove(modules.m, modules.m + 1, (MAX_MODULES - 1) * sizeof modules.m[0]);
		modules.n--;
	}
	modules.m[modules.n].path = strdup(path);
	modules.m[modules.n].mod = *mod;
	modules.n++;
	return CUDA_SUCCESS;
}

/* Launches the kernel `count` times back to back. */
CUresult launch_n(const launch *L, int count)
{
	CUresult r = CUDA_SUCCESS;
	for (int i = 0; i < count && !r; i++)
		r = cuLaunchKernel(L->f, L->grid[0], L->grid[1], L->grid[2], L->block[0], L->block[1], L->block[2],
				   L->smem, NULL, (void **)L->params, NULL);
	return r;
}

void modules_free(void)
{
	for (int i = 0; i < modules.n; i++)
		free(modules.m[i].path);
	modules.n = 0;
}

/* A launch's shape from the protocol's: 0, or -1 when a dimension does not fit. */
int launch_shape(const proto_launch *p, launch *L)
{
	const long long *dims[] = {&p->grid[0], &p->grid[1], &p->grid[2], &p->block[0], &p->block[1], &p->block[2], &p->smem};
	unsigned *to[] = {&L->grid[0], &L->grid[1], &L->grid[2], &L->block[0], &L->block[1], &L->block[2], &L->smem};
	for (int i = 0; i < 7; i++) {
		if (*dims[i] < 0 || *dims[i] > UINT_MAX)
			return -1;
		*to[i] = (unsigned)*dims[i];
	}
	return 0;
}

const char *runtime_error_name(int e)
{
#define E(x) {x, #x}
	static const struct {
		int code;
		const char *name;
	} known[] = {E(cudaErrorLaunchMaxDepthExceeded), E(cudaErrorLaunchPendingCountExceeded),
		     E(cudaErrorLaunchOutOfResources), E(cudaErrorSyncDepthExceeded), E(cudaErrorInvalidConfiguration),
		     E(cudaErrorInvalidValue), E(cudaErrorMemoryAllocation), E(cudaErrorNotSupported),
		     E(cudaErrorInvalidDeviceFunction), E(cudaErrorLaunchFailure)};
#undef E
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (known[i].code == e)
			return known[i].name;
	return NULL;
}

void device_ids(char bus[32], char uuid[64])
{
	CUuuid u;
	bus[0] = uuid[0] = 0;
	if (cuDeviceGetPCIBusId(bus, 32, W.dev))
		bus[0] = 0;
	if (cuDeviceGetUuid(&u, W.dev))
		return;
	int at = snprintf(uuid, 64, "GPU-");
	for (int i = 0; i < 16; i++)
		at += snprintf(uuid + at, 64 - (size_t)at, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "",
			       (unsigned char)u.bytes[i]);
}
