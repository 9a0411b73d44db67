/* profile.c: hardware counters for the tuner's finalists, through counters.c (CUPTI): the
 * profiler, created ahead on a thread of its own ("counters") or on first use, and the launches
 * queued by "profile" and measured together by "profiles". Profiling serialises and replays
 * kernels and never shares a run with timing, so it is kept apart from worker.c's launching and
 * sampling; it needs from them only the modules, a launch's shape and the arguments' parameters. */
#include <cuda.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "profile.h"
#include "args.h"
#include "counters.h"
#include "device.h"
#include "protocol.h"
#include "banned.h"

/* The profiler: at most one, made once. */
static struct {
	counters *prof;       /* created on the first profile command, or by prof_thread */
	pthread_t prof_thread; /* "counters": creates the profiler while kernels are timed */
	int prof_thread_running;
	counters *prof_made;   /* what prof_thread made, taken over when it is joined */
	unsigned set;          /* the metrics "counters" asked for (COUNTERS_*); 0: all */
	char prof_error[256]; /* why profiling is unavailable, once it failed */
} C;

static void *make_profiler(void *arg)
{
	(void)arg;
	cuCtxSetCurrent(W.ctx);
	C.prof_made = counters_create(W.ctx, W.dev, C.set, &W.device_lock, C.prof_error, sizeof C.prof_error);
	return NULL;
}

/* counters SET: start creating the profiler for the metric set SET now (about 0.2 s of device
 * queries on an H200), on a thread of its own, so that the first profile command finds it ready. */
void cmd_counters(char *line)
{
	proto_counters ask;
	if (proto_decode(&PROTO_COUNTERS, line, &ask) ||
	    (strcmp(ask.set, "decide") != 0 && strcmp(ask.set, "all") != 0)) {
		reply_error("protocol", "bad counters command");
		return;
	}
	if (!C.set)
		C.set = strcmp(ask.set, "decide") ? COUNTERS_ALL : COUNTERS_DECIDE;
	if (!C.prof && !C.prof_thread_running && !C.prof_error[0])
		C.prof_thread_running = pthread_create(&C.prof_thread, NULL, make_profiler, NULL) == 0;
	reply_ok();
}

static void join_profiler(void)
{
	if (C.prof_thread_running) {
		pthread_join(C.prof_thread, NULL);
		C.prof_thread_running = 0;
		C.prof = C.prof_made;
	}
}

/* Launches queued for one profiling session ("profile" adds, "profiles" runs them): CUPTI's
 * cost is per replay pass (about 18 ms each on an H200, three passes for our metrics), not per
 * kernel, so the fastest few share one session instead of taking one each. */
typedef struct {
	launch L;
	unsigned char scalar[MAX_ARGS][8]; /* the scalars as they were when it was queued */
	char error[256];                   /* why it cannot be profiled, or "" */
} queued;

static struct {
	queued *q;
	int n, cap;
	int sticky; /* loading one of them broke the context: exit once they are answered */
} P;

/* profile: queues one launch with the current scalars; no answer (a failure is answered by
 * "profiles"). */
void cmd_profile(char *line)
{
	if (P.n == P.cap) {
		int cap = P.cap ? 2 * P.cap : 16;
		queued *q = realloc(P.q, (size_t)cap * sizeof *q);
		if (!q) {
			reply_error("ENOMEM", "out of memory queueing a profile");
			exit(1);
		}
		P.q = q;
		P.cap = cap;
	}
	queued *e = &P.q[P.n++];
	memset(e, 0, sizeof *e);
	proto_profile ask;
	CUmodule mod;
	CUresult r;
	if (proto_decode(&PROTO_PROFILE, line, &ask) || launch_shape(&ask.launch, &e->L)) {
		snprintf(e->error, sizeof e->error, "protocol: bad profile command");
		return;
	}
	if ((r = get_module(ask.cubin, &mod)) || (r = cuModuleGetFunction(&e->L.f, mod, ask.symbol))) {
		snprintf(e->error, sizeof e->error, "%s loading the kernel", err_name(r));
		P.sticky |= is_sticky(r);
		return;
	}
	launch_allow_smem(&e->L);
	/* __constant__ arguments live in each module: filled now, they hold for the session */
	char where[160] = "";
	if ((r = fill_constants(mod, where, sizeof where))) {
		snprintf(e->error, sizeof e->error, "%s%s", err_name(r), where);
		P.sticky |= is_sticky(r);
		return;
	}
	save_scalars(e->scalar);
}

typedef struct {
	queued **e;
	int n;
} session;

/* One replay pass: every launch of the session, each on its inputs as filled. */
static CUresult launch_session(void *arg)
{
	const session *S = arg;
	CUresult r = CUDA_SUCCESS;
	for (int i = 0; i < S->n && !r; i++)
		if (!(r = restore_inputs()))
			r = launch_n(&S->e[i]->L, 1);
	return r;
}

static void reply_metrics(double v[MET_COUNT])
{
	/* a kernel without a single branch (or global load) has no branch (load) efficiency; ncu
	 * prints 0 for 0/0 */
	if (v[MET_BRANCH_TARGETS] == 0)
		v[MET_BRANCH_EFFICIENCY] = NAN;
	if (v[MET_GLD_REQUESTS] == 0)
		v[MET_GLD_EFFICIENCY] = NAN;
	proto_metrics m = {0, {v[MET_ACHIEVED_OCCUPANCY], v[MET_GLD_EFFICIENCY], v[MET_GLD_THROUGHPUT], v[MET_DRAM_PCT],
				v[MET_BRANCH_EFFICIENCY]}};
	reply(&PROTO_METRICS, &m);
}

/* profiles: the hardware counters of every queued launch, one answer line each in the order
 * they were queued ("metrics ..." or "unavailable <why>"), from one profiling session; when the
 * session fails, each launch gets one of its own, so that one bad kernel costs only its own.
 * Profiling serialises and replays kernels: these runs are never timed. */
int cmd_profiles(void)
{
	int n = P.n, ok = 0;
	P.n = 0;
	double(*v)[MET_COUNT] = calloc((size_t)n + 1, sizeof *v);
	queued **good = calloc((size_t)n + 1, sizeof *good);
	char (*why)[256] = calloc((size_t)n + 1, sizeof *why);
	if (!v || !good || !why) {
		reply_error("ENOMEM", "out of memory profiling");
		exit(1);
	}
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	join_profiler();
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (getenv("AUTOTUNE_TRACE"))
		fprintf(stderr, "trace %d: profiles waited %.1f ms for the profiler\n", (int)getpid(),
			1e3 * ((double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec)));
	if (!C.prof && !C.prof_error[0])
		C.prof = counters_create(W.ctx, W.dev, C.set ? C.set : COUNTERS_ALL, NULL, C.prof_error,
					 sizeof C.prof_error);
	for (int i = 0; i < n; i++) {
		queued *e = &P.q[i];
		if (!e->error[0] && !C.prof)
			snprintf(e->error, sizeof e->error, "%s", C.prof_error);
		if (!e->error[0]) {
			/* arrays as they are now, scalars as they were when it was queued */
			set_params(e->L.params, e->scalar);
			good[ok++] = e;
		}
	}
	session all = {good, ok};
	char err[256] = "";
	int failed = ok && !P.sticky && counters_measure(C.prof, (size_t)ok, launch_session, &all, v, err, sizeof err);
	for (int k = 0; k < ok && (failed || P.sticky); k++) {
		/* alone, unless the context is gone */
		session one = {&good[k], 1};
		CUresult r = cuCtxSynchronize();
		P.sticky |= is_sticky(r);
		if (P.sticky)
			snprintf(why[k], sizeof why[k], "%s", err[0] ? err : "the GPU context was lost");
		else if (counters_measure(C.prof, 1, launch_session, &one, &v[k], why[k], sizeof why[k]) && !why[k][0])
			snprintf(why[k], sizeof why[k], "profiling failed");
	}
	for (int i = 0, k = 0; i < n; i++) {
		queued *e = &P.q[i];
		if (e->error[0])
			reply(&PROTO_UNAVAILABLE, &(proto_unavailable){e->error});
		else if (why[k][0])
			reply(&PROTO_UNAVAILABLE, &(proto_unavailable){why[k++]});
		else
			reply_metrics(v[k++]);
	}
	free(v);
	free(good);
	free(why);
	return P.sticky ? -1 : 0;
}

/* Timed runs must run unprofiled: a measurement leaves the profiler on for the next one. */
void profiler_pause(void)
{
	counters_pause(C.prof);
}

/* At exit: the profiler's thread joined, the profiler torn down. */
void profile_close(void)
{
	join_profiler();
	if (C.prof)
		counters_destroy(C.prof);
	free(P.q);
}
