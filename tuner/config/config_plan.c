/* config_plan.c: the plan section: launches of several entry points of the kernel source, each
 * with its arguments (the config's, by name) and its geometry (launch:'s unless it gives its own),
 * run in every one of `streams` streams, depth-first or breadth-first, by a worker whose context
 * has `connections` hardware queues (CUDA_DEVICE_MAX_CONNECTIONS). Checked here as far as
 * constants allow; what depends on parameters is checked per configuration (launch_plan.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_load.h"
#include "banned.h"

/* Whether an expression names a parameter: its value is then known per configuration only. */
static int names_param(void *ctx, const char *name, int offset)
{
	(void)offset;
	const config *cfg = ctx;
	for (size_t i = 0; i < cfg->nparams; i++)
		if (!strcmp(cfg->params[i].name, name))
			return 1;
	return 0;
}

/* An integer expression of the plan (may use parameters): its names checked, and when it uses
 * constants only, its value in [lo, hi] at once. */
static void load_count(loader *L, const yaml_node_t *n, const char *what, long long lo, long long hi, cexpr *out)
{
	if (ld_expr(L, n, what, out))
		return;
	if (ld_check_names(L, out, 1, what) || expr_foreach_name(out->e, names_param, L->cfg))
		return;
	value v;
	if (cexpr_eval(L->cfg, out, NULL, &v, L->d, NULL)) {
		L->errors++;
		return;
	}
	char text[64];
	value_format(v, text, sizeof text);
	if (v.kind != VAL_INT || v.u.i < lo || v.u.i > hi)
		ld_error(L, out->at, "%s must be an integer from %lld to %lld, not %s", what, lo, hi, text);
}

/* plan.order: a word, or an expression of the parameters (0 depth-first, 1 breadth-first). */
static void load_order(loader *L, const yaml_node_t *n)
{
	launch_plan_cfg *p = &L->cfg->plan;
	if (ld_expect(L, n, YAML_SCALAR_NODE, "plan order"))
		return;
	if (!strcmp(ld_scalar(n), "depth-first") || !strcmp(ld_scalar(n), "breadth-first")) {
		p->order_word = !strcmp(ld_scalar(n), "breadth-first");
		return;
	}
	if (strchr(ld_scalar(n), '-') && !strpbrk(ld_scalar(n), " ()")) {
		/* a word, but not one of the two: an expression would only say "unknown name" */
		ld_error(L, ld_mark(n), "plan order must be depth-first, breadth-first or an expression (0: depth-first, "
					"1: breadth-first), not '%s'", ld_scalar(n));
		return;
	}
	load_count(L, n, "plan order", 0, 1, &p->order);
}

/* The argument named by n, by index; -1 (said) when there is none or it is not passed. */
static int argument_named(loader *L, const yaml_node_t *n)
{
	const config *cfg = L->cfg;
	if (ld_expect(L, n, YAML_SCALAR_NODE, "plan launch argument"))
		return -1;
	for (size_t i = 0; i < cfg->nargs; i++) {
		if (!cfg->args[i].name || strcmp(cfg->args[i].name, ld_scalar(n)))
			continue;
		if (cfg->args[i].constant) {
			ld_error(L, ld_mark(n), "plan launch argument '%s' goes to __constant__ memory: it is not passed",
				 ld_scalar(n));
			return -1;
		}
		return (int)i;
	}
	ld_error(L, ld_mark(n), "plan launch argument '%s' is not one of the config's arguments", ld_scalar(n));
	return -1;
}

/* A launch's arguments: the names listed, else every argument that is passed, in order. */
static void load_launch_args(loader *L, const yaml_node_t *n, plan_launch *pl)
{
	const config *cfg = L->cfg;
	pl->args = xcalloc(cfg->nargs + 1, sizeof *pl->args);
	if (!n) {
		for (size_t i = 0; i < cfg->nargs; i++)
			if (!cfg->args[i].constant)
				pl->args[pl->nargs++] = (int)i;
		return;
	}
	if (ld_expect(L, n, YAML_SEQUENCE_NODE, "plan launch args"))
		return;
	size_t count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	if (count > cfg->nargs) {
		free(pl->args);
		pl->args = xcalloc(count, sizeof *pl->args);
	}
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		int a = argument_named(L, ld_node(L, *it));
		if (a >= 0)
			pl->args[pl->nargs++] = a;
	}
}

/* One item of plan.launches: an entry's name, or {entry, args, block, grid, shared_mem}. */
static void load_launch(loader *L, const yaml_node_t *n, plan_launch *pl)
{
	static const char *const keys[] = {"entry", "args", "block", "grid", "shared_mem", NULL};
	pl->at = ld_mark(n);
	const yaml_node_t *entry = n;
	if (n->type != YAML_SCALAR_NODE) {
		if (ld_check_keys(L, n, "plan launch", keys))
			return;
		entry = ld_require(L, n, "entry", "plan launch");
		const yaml_node_t *b = ld_get(L, n, "block"), *g = ld_get(L, n, "grid"), *s = ld_get(L, n, "shared_mem");
		if ((pl->has_block = b != NULL))
			ld_dims(L, b, "plan launch block", pl->block);
		if ((pl->has_grid = g != NULL))
			ld_dims(L, g, "plan launch grid", pl->grid);
		if ((pl->has_smem = s != NULL))
			ld_expr(L, s, "plan launch shared_mem", &pl->shared_mem);
		for (int i = 0; i < 3; i++) {
			ld_check_names(L, &pl->block[i], 1, "a plan launch's block");
			ld_check_names(L, &pl->grid[i], 1, "a plan launch's grid");
		}
		ld_check_names(L, &pl->shared_mem, 1, "a plan launch's shared_mem");
	}
	if (entry && (pl->entry = ld_string(L, entry, "plan launch entry")) && !ld_is_identifier(pl->entry))
		ld_error(L, ld_mark(entry), "plan launch entry '%s' is not a C identifier", pl->entry);
	load_launch_args(L, n->type == YAML_MAPPING_NODE ? ld_get(L, n, "args") : NULL, pl);
}

static void clone(cexpr *to, const cexpr *from)
{
	expr_error err;
	to->e = from->e ? expr_parse(expr_source(from->e), &err) : NULL;
	to->at = from->at;
}

/* The launches and the config's single-launch fields they stand for: kernel.entry is the first
 * launch's (it names the binary and its resources), and without a launch section the first
 * launch's geometry is every launch's default. */
static void load_launches(loader *L, const yaml_node_t *root, const yaml_node_t *n)
{
	config *cfg = L->cfg;
	launch_plan_cfg *p = &cfg->plan;
	size_t count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	if (count == 0 || count > PLAN_MAX_LAUNCHES) {
		ld_error(L, ld_mark(n), "plan launches takes 1 to %d launches, not %zu", PLAN_MAX_LAUNCHES, count);
		return;
	}
	p->launches = xcalloc(count, sizeof *p->launches);
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++)
		load_launch(L, ld_node(L, *it), &p->launches[p->nlaunches++]);
	const yaml_node_t *kernel = ld_get(L, root, "kernel"), *entry = ld_get(L, kernel, "entry");
	if (entry)
		ld_error(L, ld_mark(entry), "with a plan, each launch names its entry: drop kernel.entry");
	else if (p->launches[0].entry)
		cfg->entry = xstrdup(p->launches[0].entry);
	if (ld_get(L, root, "launch"))
		return;
	plan_launch *first = &p->launches[0];
	if (!first->has_block || !first->has_grid) {
		ld_error(L, first->at, "without a launch section, the plan's first launch gives the default geometry: it "
				       "needs block and grid");
		return;
	}
	for (int i = 0; i < 3; i++) {
		clone(&cfg->block[i], &first->block[i]);
		clone(&cfg->grid[i], &first->grid[i]);
	}
	clone(&cfg->shared_mem, &first->shared_mem);
}

/* Without plan.connections: what a program run from the same environment would get. */
static int connections_default(void)
{
	const char *env = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
	char *end;
	long v = env && *env ? strtol(env, &end, 10) : 0;
	return env && *env && !*end && v >= 1 && v <= PLAN_MAX_CONNECTIONS ? (int)v : PLAN_DEFAULT_CONNECTIONS;
}

void ld_load_plan(loader *L, const yaml_node_t *root, const yaml_node_t *n)
{
	static const char *const keys[] = {"streams", "order", "connections", "launches", NULL};
	config *cfg = L->cfg;
	launch_plan_cfg *p = &cfg->plan;
	p->at = ld_mark(n);
	p->default_connections = connections_default();
	if (ld_check_keys(L, n, "'plan'", keys))
		return;
	const yaml_node_t *x;
	if ((x = ld_get(L, n, "streams")))
		load_count(L, x, "plan streams", 1, PLAN_MAX_STREAMS, &p->streams);
	if ((x = ld_get(L, n, "connections")))
		load_count(L, x, "plan connections", 1, PLAN_MAX_CONNECTIONS, &p->connections);
	if ((x = ld_get(L, n, "order")))
		load_order(L, x);
	x = ld_require(L, n, "launches", "'plan'");
	if (x && ld_expect(L, x, YAML_SEQUENCE_NODE, "plan launches") == 0)
		load_launches(L, root, x);
	/* hardware counters are per kernel: a plan of several has none to give */
	const yaml_node_t *metrics = ld_get(L, ld_get(L, root, "measure"), "metrics");
	if (metrics && metrics->type == YAML_SCALAR_NODE && strcmp(ld_scalar(metrics), "none"))
		ld_error(L, ld_mark(metrics), "a plan's launches are not profiled (counters are per kernel): measure.metrics "
					      "can only be none");
	cfg->metrics = METRICS_NONE;
}

void config_plan_free(config *cfg)
{
	launch_plan_cfg *p = &cfg->plan;
	for (size_t k = 0; k < p->nlaunches; k++) {
		plan_launch *pl = &p->launches[k];
		free(pl->entry);
		free(pl->args);
		for (int i = 0; i < 3; i++) {
			expr_free(pl->block[i].e);
			expr_free(pl->grid[i].e);
		}
		expr_free(pl->shared_mem.e);
	}
	free(p->launches);
	expr_free(p->streams.e);
	expr_free(p->order.e);
	expr_free(p->connections.e);
	memset(p, 0, sizeof *p);
}
