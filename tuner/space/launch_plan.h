/* launch_plan.h: a config's plan (config.plan) for one configuration: its streams, dispatch order
 * and connections, and each launch's geometry, evaluated from the parameter values. */
#ifndef AUTOTUNE_LAUNCH_PLAN_H
#define AUTOTUNE_LAUNCH_PLAN_H

#include "diag.h"
#include "expr.h"
#include "result.h"

typedef struct config config;
typedef struct plan_launch plan_launch;

typedef struct {
	long long block[3], grid[3], smem;
} plan_geometry;

/* The plan's streams, order and connections for these parameter values into r, with every
 * launch's geometry checked, and the first launch's as r's own (the row's launch): 0, or -1 with
 * "file:line:col: ..." naming the configuration in d. Without a plan: 0, and r's plan fields 0. */
int launch_plan_eval(const config *cfg, const value *params, result *r, diags *d);

/* Launch k's geometry for these parameter values (checked by launch_plan_eval): 0, or -1. */
int launch_plan_geometry(const config *cfg, const value *params, size_t k, plan_geometry *g);

/* Whether two configurations run the same plan: the same streams, order and connections (ra, rc,
 * from launch_plan_eval) and every launch on the same geometry. */
int launch_plan_same(const config *cfg, const value *a, const value *c, const result *ra, const result *rc);

/* "depth-first" or "breadth-first". */
const char *launch_plan_order(int breadth_first);

/* A launch's arguments as the worker's step line lists them: "0,1,3", or "-" for none. Caller
 * frees. */
char *launch_plan_args(const plan_launch *pl);

#endif
