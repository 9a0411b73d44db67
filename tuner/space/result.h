/* result.h: everything autotune learns about one configuration, filled stage by stage
 * (geometry, occupancy, measurement, counters) and written out by output.c. */
#ifndef AUTOTUNE_RESULT_H
#define AUTOTUNE_RESULT_H

#include <stdlib.h>

#include "status.h"

/* The hardware counters, in the order the worker reports them (see counters.h). */
enum {
	METRIC_ACHIEVED_OCCUPANCY, /* % of peak warps, sustained */
	METRIC_GLD_EFFICIENCY,     /* % of each 32-byte sector that global loads use */
	METRIC_GLD_THROUGHPUT,     /* bytes per second through L1 for global loads */
	METRIC_DRAM_PCT,           /* % of peak DRAM throughput */
	METRIC_BRANCH_EFFICIENCY,  /* % of branches uniform across the warp */
	METRIC_COUNT
};

typedef struct {
	long long block[3], grid[3], smem; /* launch geometry, evaluated from the config */
	int occ_blocks;          /* theoretical active blocks per SM */
	double occupancy;        /* theoretical, 0..1 */
	const char *occ_limit;   /* static string: what limits it */
	int driver_blocks;       /* the driver's own occupancy answer, -1 when not asked */
	status st;
	char *message;           /* owned; why it failed, or notes */
	double t_median, t_min, t_max; /* milliseconds */
	int samples;
	double noise;            /* relative standard error of the median */
	int batch;               /* launches per timed sample (1: single launches) */
	double mhz_before, mhz_after; /* SM clock around the sampling */
	int throttled;           /* the clock was well below its maximum */
	int have_metrics;
	double metrics[METRIC_COUNT];
	int final_rounds;        /* finalist re-timing rounds, 0 if not a finalist */
	double final_median, final_noise;
	double gbps, pct_of_copy, gflops; /* from the config's bytes and flops; 0 when not given */
	long long shares_with;   /* measured once for an identical binary and launch: that configuration, or -1 */
	int lost_in_flight;      /* crashed only because an earlier tuner died during it: not a measurement */
	int predicted;           /* a launch-error known from the binary and the device's limits: not launched */
	/* a plan (config.plan): its values for this configuration, and what it measured */
	int streams;             /* 0: no plan */
	int breadth_first;       /* the dispatch order: 0 depth-first, 1 breadth-first */
	int connections;         /* CUDA_DEVICE_MAX_CONNECTIONS of the worker that runs it */
	double serial_ms;        /* its launches timed one at a time, times its streams (0: not measured) */
	int gpu;                 /* which of the run's GPUs measured it (outputs.gpus) */
	char code[17];           /* the code measured (compile.c's binary hash), for the journal */
	char ident[17];          /* what decided the measurement (plan_identity): another configuration, or a
				  * later run after an edit, with this identity can take it; "" unknown */
	int reused;              /* taken from an earlier run's measurement of the same identity */
	double compile_s;        /* nvcc's seconds for its binary, this run's or the journal's; 0 unknown */
	/* select.objective (objective.h): its value as written, and the score the selection ranks by,
	 * smaller better (the value, or 1/value for a maximised one) */
	int scored;              /* 0: no objective (time ranks); 1: score holds; 2: it could not be evaluated */
	double objective, score;
	/* measure.energy: joules per launch and average watts over the timed samples' window */
	int have_energy;
	double joules, watts;
} result;

static inline void result_set_message(result *r, char *owned_message)
{
	free(r->message);
	r->message = owned_message;
}

/* Ran, verified and timed: a candidate for winning. */
static inline int result_passed(const result *r) { return r->st == ST_OK && r->samples > 0; }

/* The time that decides: the interleaved finalist median when there is one. */
static inline double result_time(const result *r) { return r->final_rounds ? r->final_median : r->t_median; }
static inline double result_noise(const result *r) { return r->final_rounds ? r->final_noise : r->noise; }
/* What ranks configurations, smaller better: the objective's score where the config has one
 * (INFINITY where it could not be evaluated: such a configuration cannot win), else the time. */
static inline double result_rank(const result *r)
{
	return r->scored == 1 ? r->score : r->scored == 2 ? 1.0 / 0.0 : result_time(r);
}
/* The same from the first pass where there is no objective: what racing and a header's choice
 * across GPUs compare, alike on every row. */
static inline double result_first_rank(const result *r) { return r->scored ? result_rank(r) : r->t_median; }

/* A plan's achieved concurrency: the time its launches take one at a time over the time the plan
 * took (1: nothing overlapped; at most its streams, when every stream ran side by side at full
 * speed); 0 when not measured. */
static inline double result_concurrency(const result *r)
{
	return r->serial_ms > 0 && result_time(r) > 0 ? r->serial_ms / result_time(r) : 0;
}

#endif
