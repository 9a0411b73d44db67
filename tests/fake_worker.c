/* fake_worker.c: stands in for autotune-worker in CPU tests (no GPU). It speaks the worker's
 * line protocol and times a configuration as 1 ms + blockDim.x / 1000 ms. Behaviour is steered
 * by the environment:
 *   FAKE_SLEEP_MS    sleep this long per run (so a test can kill the tuner mid-way)
 *   FAKE_CRASH_BX    on a run with this blockDim.x, die by SIGSEGV without answering
 *   FAKE_HANG_BX     on a run with this blockDim.x, never answer
 *   FAKE_MEM_BYTES   device memory to report (default 80 GiB)
 *   FAKE_LOG         append "run BX ROLE GPU" per run command to this file
 *   FAKE_GPUS        how many GPUs it sees (default 1); each has its own UUID
 *   FAKE_OTHER_MODEL this GPU ordinal is a different model ("Other Fake GPU")
 *   FAKE_METRICS     answer profiles with counters: achieved occupancy blockDim.x / 10, load
 *                    efficiency 90 + the GPU's ordinal (else: no counters)
 *   FAKE_PROFILE_FAIL_BX  the configuration with this blockDim.x cannot be profiled
 *   FAKE_SLOW_GPU    this GPU ordinal times every first-pass run 5% slower (finalist runs, role
 *                    "time", are timed alike on any GPU)
 * FAKE_LOG also gets "profiles N GPU" per profiling session of N launches, and "counters GPU"
 * when asked to get its profiler ready. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long env_long(const char *name, long dflt)
{
	const char *v = getenv(name);
	return v && *v ? strtol(v, NULL, 10) : dflt;
}

/* one line appended to FAKE_LOG, when set */
static void log_line(const char *fmt, ...)
{
	const char *log = getenv("FAKE_LOG");
	FILE *f = log ? fopen(log, "a") : NULL;
	if (!f)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

int main(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int gpu = 0;
	unsigned queued[256];
	int nqueued = 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((n = getline(&line, &cap, stdin)) > 0) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "device ", 7)) {
			gpu = atoi(line + 7);
			if (gpu >= env_long("FAKE_GPUS", 1)) {
				puts("error CUDA_ERROR_INVALID_DEVICE invalid device ordinal");
				break;
			}
			printf("device 90 132 52428800 %lld 1980000 13000 00112233445566778899aabbccddee%02x %sFake GPU\n",
			       (long long)env_long("FAKE_MEM_BYTES", 80LL << 30), gpu & 0xff,
			       gpu == env_long("FAKE_OTHER_MODEL", -1) ? "Other " : "");
		} else if (!strcmp(line, "count"))
			printf("count %ld\n", env_long("FAKE_GPUS", 1));
		else if (!strncmp(line, "measure ", 8) || !strncmp(line, "array ", 6) || !strncmp(line, "constant ", 9) || !strncmp(line, "copy ", 5) || !strncmp(line, "load ", 5) || !strncmp(line, "expect ", 7) ||
			 !strncmp(line, "sumcheck ", 9))
			puts("ok");
		else if (!strcmp(line, "counters")) {
			log_line("counters %d\n", gpu);
			puts("ok");
		} else if (!strcmp(line, "warmup"))
			puts("ok 1980 1980");
		else if (!strcmp(line, "copybw"))
			puts("copybw 3000.0");
		else if (!strncmp(line, "scalar ", 7) || !strncmp(line, "sumcount ", 9))
			continue;
		else if (!strncmp(line, "profile ", 8)) {
			unsigned bx = 0;
			sscanf(line, "profile %*u %*u %*u %u", &bx);
			if (nqueued < 256)
				queued[nqueued++] = bx;
		} else if (!strcmp(line, "profiles")) {
			log_line("profiles %d %d\n", nqueued, gpu);
			for (int i = 0; i < nqueued; i++)
				if (!getenv("FAKE_METRICS"))
					puts("unavailable the fake worker has no counters");
				else if ((long)queued[i] == env_long("FAKE_PROFILE_FAIL_BX", -1))
					printf("unavailable blockDim.x %u cannot be profiled\n", queued[i]);
				else
					printf("metrics %.1f %d 100 50 nan\n", queued[i] / 10.0, 90 + gpu);
			nqueued = 0;
		}
		else if (!strncmp(line, "run ", 4)) {
			char role[8];
			unsigned bx = 0;
			sscanf(line, "run %*d %7s %*d %*d %*d %*f %*f %*u %*u %*u %u", role, &bx);
			log_line("run %u %s %d\n", bx, role, gpu);
			long ms = env_long("FAKE_SLEEP_MS", 0);
			struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
			nanosleep(&ts, NULL);
			if ((long)bx == env_long("FAKE_CRASH_BX", -1))
				raise(SIGSEGV);
			if ((long)bx == env_long("FAKE_HANG_BX", -1))
				for (;;)
					pause();
			double t = (1.0 + bx / 1000.0) * (gpu == env_long("FAKE_SLOW_GPU", -1) && strcmp(role, "time") ? 1.05 : 1);
			printf("result 0 ok %.6f %.6f %.6f 10 8 0.001 1 1980 1980 \n", t, t * 0.99, t * 1.01);
		} else if (!strcmp(line, "quit"))
			break;
		else
			puts("error protocol unknown command");
	}
	free(line);
	return 0;
}
