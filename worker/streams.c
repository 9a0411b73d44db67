/* streams.c: a plan's launches over several streams ("plan" and "step"), executed in place of a
 * run's single launch: each stream runs every step, dispatched depth-first (stream by stream) or
 * breadth-first (step by step). The streams block on the legacy default stream, so the events
 * worker.c records there around a sample bracket the whole plan, and an L2 flush or a restore
 * queued there comes before it. Also the plan's serial time: each step alone, the time the plan
 * would take with nothing overlapping. */
#include <cuda.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streams.h"
#include "args.h"
#include "device.h"
#include "protocol.h"
#include "stats.h"
#include "banned.h"

/* the tuner's limits (config.h): a plan's launches and streams */
#define MAX_STEPS 64
#define MAX_STREAMS 1024
/* each step alone: this many timed launches after an untimed one, their median */
#define SERIAL_REPS 3

typedef struct {
	launch L;
	char *symbol;
	int args[MAX_ARGS];
	int nargs;
} step;

static struct {
	int streams, breadth; /* the plan: how many streams, dispatched breadth-first or not */
	int expected;         /* steps the plan command announced */
	step steps[MAX_STEPS];
	int nsteps;
	CUstream s[MAX_STREAMS]; /* created as the plans need them, kept for the next */
	int created;
} P;

static void forget_steps(void)
{
	for (int k = 0; k < P.nsteps; k++)
		free(P.steps[k].symbol);
	P.nsteps = P.expected = 0;
}

/* plan STREAMS ORDER LAUNCHES: the steps that follow replace the last plan's. */
void cmd_plan(char *line)
{
	proto_plan ask;
	forget_steps();
	if (proto_decode(&PROTO_PLAN, line, &ask) || ask.streams < 1 || ask.streams > MAX_STREAMS || ask.launches < 1 ||
	    ask.launches > MAX_STEPS || (strcmp(ask.order, "depth") && strcmp(ask.order, "breadth"))) {
		/* no answer to give: the run that follows finds no plan and says so */
		P.expected = -1;
		return;
	}
	P.streams = (int)ask.streams;
	P.breadth = !strcmp(ask.order, "breadth");
	P.expected = (int)ask.launches;
}

/* "0,3,1" into args: 0, or -1 when it is not a list of argument indexes. */
static int parse_args(const char *text, int *args, int *n)
{
	*n = 0;
	if (!strcmp(text, "-"))
		return 0;
	for (const char *p = text;;) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p || v < 0 || v >= MAX_ARGS || *n == MAX_ARGS || (*end && *end != ','))
			return -1;
		args[(*n)++] = (int)v;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

/* step GRID BLOCK SMEM ARGS SYMBOL: the plan's next launch. */
void cmd_step(char *line)
{
	proto_step ask;
	step *st = &P.steps[P.nsteps];
	if (P.expected <= 0 || P.nsteps >= P.expected || proto_decode(&PROTO_STEP, line, &ask) ||
	    launch_shape(&ask.launch, &st->L) || parse_args(ask.args, st->args, &st->nargs)) {
		forget_steps();
		P.expected = -1;
		return;
	}
	st->symbol = strdup(ask.symbol);
	P.nsteps++;
}

int plan_pending(void) { return P.expected != 0; }

void plan_done(void) { forget_steps(); }

int plan_launches(void) { return P.nsteps * P.streams; }

CUresult plan_load(CUmodule mod, char *why, size_t len)
{
	if (P.expected < 0 || P.nsteps != P.expected) {
		snprintf(why, len, ": the plan's steps did not arrive whole");
		return CUDA_ERROR_INVALID_VALUE;
	}
	CUresult r;
	for (int k = 0; k < P.nsteps; k++) {
		step *st = &P.steps[k];
		if ((r = cuModuleGetFunction(&st->L.f, mod, st->symbol))) {
			snprintf(why, len, ": plan launch %d: no function '%.100s' in the module", k + 1, st->symbol);
			return r;
		}
		if (set_params_of(st->L.params, st->args, st->nargs)) {
			snprintf(why, len, ": plan launch %d passes an argument the worker does not have", k + 1);
			return CUDA_ERROR_INVALID_VALUE;
		}
		launch_allow_smem(&st->L);
	}
	/* blocking streams (CU_STREAM_DEFAULT): work on the legacy default stream waits for them and
	 * they for it, as cudaStreamCreate's streams do in the program tuned for */
	for (; P.created < P.streams; P.created++)
		if ((r = cuStreamCreate(&P.s[P.created], CU_STREAM_DEFAULT))) {
			snprintf(why, len, ": creating stream %d", P.created + 1);
			return r;
		}
	return CUDA_SUCCESS;
}

static CUresult launch_on(const launch *L, CUstream s)
{
	return cuLaunchKernel(L->f, L->grid[0], L->grid[1], L->grid[2], L->block[0], L->block[1], L->block[2], L->smem, s,
			      (void **)L->params, NULL);
}

CUresult plan_execute(int times)
{
	CUresult r = CUDA_SUCCESS;
	int outer = P.breadth ? P.nsteps : P.streams, inner = P.breadth ? P.streams : P.nsteps;
	for (int t = 0; t < times && !r; t++)
		for (int i = 0; i < outer && !r; i++)
			for (int j = 0; j < inner && !r; j++) {
				int k = P.breadth ? i : j, s = P.breadth ? j : i;
				r = launch_on(&P.steps[k].L, P.s[s]);
			}
	return r;
}

/* Step k alone on the default stream, between two events; the L2 flushed and the inputs
 * restored first as before a sample (before_each). */
static CUresult time_step(int k, CUresult (*before_each)(int), double *ms)
{
	CUevent a, b;
	double t[SERIAL_REPS];
	CUresult r;
	if ((r = cuEventCreate(&a, CU_EVENT_DEFAULT)))
		return r;
	if ((r = cuEventCreate(&b, CU_EVENT_DEFAULT))) {
		cuEventDestroy(a);
		return r;
	}
	for (int i = 0; i <= SERIAL_REPS && !r; i++) {
		float got = 0;
		if (!(r = before_each(i)) && !(r = cuEventRecord(a, NULL)) && !(r = launch_on(&P.steps[k].L, NULL)) &&
		    !(r = cuEventRecord(b, NULL)) && !(r = cuEventSynchronize(b)) && !(r = cuEventElapsedTime(&got, a, b)) &&
		    i > 0) /* the first only warms up */
			t[i - 1] = got;
	}
	cuEventDestroy(a);
	cuEventDestroy(b);
	if (!r)
		*ms = stats_median(t, SERIAL_REPS);
	return r;
}

CUresult plan_serial(CUresult (*before_each)(int), double *ms)
{
	double sum = 0;
	for (int k = 0; k < P.nsteps; k++) {
		double one = 0;
		CUresult r = time_step(k, before_each, &one);
		if (r)
			return r;
		sum += one;
	}
	*ms = sum * P.streams;
	return CUDA_SUCCESS;
}

void plan_free(void)
{
	forget_steps();
	for (int i = 0; i < P.created; i++)
		cuStreamDestroy(P.s[i]);
	P.created = 0;
}
