/* launch_plan.c: a plan's values per configuration. The loader (config_plan.c) checked what
 * constants decide; the rest is checked here for every configuration, before anything runs, and
 * reported as the launch geometry is (space.c): at the expression, naming the configuration. */
#include "launch_plan.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "names.h"
#include "banned.h"

/* x for these parameters, an integer in [lo, hi]; otherwise said in d at x: -1. */
static int eval_in(const config *cfg, const cexpr *x, const value *params, long long lo, long long hi, const char *what,
		   long long *out, diags *d)
{
	value v;
	diags quiet = {0};
	int bad = cexpr_eval(cfg, x, params, &v, &quiet, NULL);
	diags_free(&quiet);
	if (!bad && v.kind == VAL_INT && v.u.i >= lo && v.u.i <= hi) {
		*out = v.u.i;
		return 0;
	}
	if (!d)
		return -1;
	/* evaluated again to say why, now with the configuration */
	char *desc = space_describe(cfg, params);
	if (bad)
		cexpr_eval(cfg, x, params, &v, d, desc);
	else {
		char text[64];
		value_format(v, text, sizeof text);
		diags_at(d, cfg->path, x->at.line, x->at.col, "%s must be an integer from %lld to %lld, but is %s (for %s)", what,
			 lo, hi, text, desc);
	}
	free(desc);
	return -1;
}

/* Launch k's geometry; d (may be NULL) says what does not evaluate to a launchable size. */
static int geometry(const config *cfg, const value *params, size_t k, plan_geometry *g, diags *d)
{
	const plan_launch *pl = &cfg->plan.launches[k];
	const cexpr *block = pl->has_block ? pl->block : cfg->block, *grid = pl->has_grid ? pl->grid : cfg->grid;
	const cexpr *smem = pl->has_smem ? &pl->shared_mem : &cfg->shared_mem;
	static const char *const what[3] = {"plan launch block", "plan launch grid", "plan launch shared_mem"};
	for (int i = 0; i < 7; i++) {
		const cexpr *x = i < 3 ? &block[i] : i < 6 ? &grid[i - 3] : smem;
		long long *out = i < 3 ? &g->block[i] : i < 6 ? &g->grid[i - 3] : &g->smem;
		*out = i == 6 ? 0 : 1;
		if (x->e && eval_in(cfg, x, params, i == 6 ? 0 : 1, UINT_MAX, what[i / 3], out, d))
			return -1;
	}
	return 0;
}

int launch_plan_geometry(const config *cfg, const value *params, size_t k, plan_geometry *g)
{
	return k < cfg->plan.nlaunches ? geometry(cfg, params, k, g, NULL) : -1;
}

int launch_plan_eval(const config *cfg, const value *params, result *r, diags *d)
{
	const launch_plan_cfg *p = &cfg->plan;
	r->streams = r->breadth_first = r->connections = 0;
	if (!p->nlaunches)
		return 0;
	long long streams = 1, order = p->order_word, conns = p->default_connections;
	if ((p->streams.e && eval_in(cfg, &p->streams, params, 1, PLAN_MAX_STREAMS, "plan streams", &streams, d)) ||
	    (p->order.e && eval_in(cfg, &p->order, params, 0, 1, "plan order", &order, d)) ||
	    (p->connections.e &&
	     eval_in(cfg, &p->connections, params, 1, PLAN_MAX_CONNECTIONS, "plan connections", &conns, d)))
		return -1;
	r->streams = (int)streams;
	r->breadth_first = (int)order;
	r->connections = (int)conns;
	for (size_t k = 0; k < p->nlaunches; k++) {
		plan_geometry g;
		if (geometry(cfg, params, k, &g, d))
			return -1;
		if (k == 0) {
			/* the row's launch is the first launch, whose entry names the binary's resources */
			memcpy(r->block, g.block, sizeof g.block);
			memcpy(r->grid, g.grid, sizeof g.grid);
			r->smem = g.smem;
		}
	}
	return 0;
}

int launch_plan_same(const config *cfg, const value *a, const value *c, const result *ra, const result *rc)
{
	if (ra->streams != rc->streams || ra->breadth_first != rc->breadth_first || ra->connections != rc->connections)
		return 0;
	for (size_t k = 0; k < cfg->plan.nlaunches; k++) {
		plan_geometry ga, gc;
		if (launch_plan_geometry(cfg, a, k, &ga) || launch_plan_geometry(cfg, c, k, &gc) || memcmp(&ga, &gc, sizeof ga))
			return 0;
	}
	return 1;
}

const char *launch_plan_order(int breadth_first) { return breadth_first ? "breadth-first" : "depth-first"; }

char *launch_plan_args(const plan_launch *pl)
{
	if (!pl->nargs)
		return xstrdup("-");
	size_t cap = pl->nargs * 12 + 1, len = 0;
	char *out = xmalloc(cap);
	out[0] = 0;
	for (size_t i = 0; i < pl->nargs; i++)
		len += (size_t)snprintf(out + len, cap - len, "%s%d", i ? "," : "", pl->args[i]);
	return out;
}
