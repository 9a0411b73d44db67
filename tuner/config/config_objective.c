/* config_objective.c: select.objective, metrics: and measure.energy loaded, their names checked
 * at their place in the file, so that a typo is said before anything is measured. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_load.h"
#include "banned.h"

/* the results CSV's columns (output.c's output_columns and a plan's, which tests/test_objective.c
 * holds this list to) and the ones objectives add, then the measured names */
static const char *const reserved[] = {
	"blockDim.x", "blockDim.y", "blockDim.z", "gridDim.x", "gridDim.y", "gridDim.z", "dynamic_smem_bytes",
	"registers", "spill_store_bytes", "spill_load_bytes", "stack_bytes", "static_smem_bytes", "barriers",
	"compile_s", "active_blocks_per_sm", "theoretical_occupancy", "occupancy_limit", "driver_active_blocks_per_sm",
	"time_ms_median", "time_ms_min", "time_ms_max", "samples", "noise_pct", "launches_per_sample", "sm_mhz",
	"final_ms_median", "final_noise_pct", "final_rounds", "achieved_occupancy_pct", "gld_efficiency_pct",
	"gld_throughput_gbps", "dram_pct", "branch_efficiency_pct", "gbps", "pct_of_copy", "gflops",
	"joules_per_launch", "watts", "objective", "flags", "shares_with", "status", "message", "gpu", "gpu_uuid",
	"arch", "nvcc_flags", "code_hash", "kernel_hash", "spec_hash", "policy", "tuned_at", "config", "run",
	"configurations", "plan_streams", "plan_order", "plan_connections", "serial_ms", "concurrency",
	"time_ms", "time_s", "joules", NULL,
};

int config_reserved_name(const char *name)
{
	for (const char *const *r = reserved; *r; r++)
		if (!strcmp(*r, name))
			return 1;
	return 0;
}

typedef struct {
	loader *L;
	const cexpr *x;
	const char *what;
	size_t metrics;  /* the metrics it may use: those before it */
	int energy;      /* it names joules or watts */
} ocheck;

static int known(const config *cfg, const char *name, size_t metrics)
{
	for (size_t i = 0; i < cfg->nconstants; i++)
		if (!strcmp(cfg->constants[i].name, name))
			return 1;
	for (size_t i = 0; i < cfg->nparams; i++)
		if (!strcmp(cfg->params[i].name, name))
			return 1;
	for (size_t i = 0; i < metrics; i++)
		if (!strcmp(cfg->umetrics[i].name, name))
			return 1;
	return 0;
}

static int check_name(void *ctx, const char *name, int offset)
{
	ocheck *c = ctx;
	config *cfg = c->L->cfg;
	mark m = {c->x->at.line, c->x->at.col + offset};
	if (!strcmp(name, "joules") || !strcmp(name, "watts")) {
		c->energy = 1;
		if (cfg->energy == ENERGY_NEVER)
			ld_error(c->L, m, "%s uses %s, but measure.energy is never", c->what, name);
	} else if (!strcmp(name, "gbps") && !cfg->bytes.e)
		ld_error(c->L, m, "%s uses gbps, which needs bytes: (the bytes one launch moves)", c->what);
	else if (!strcmp(name, "gflops") && !cfg->flops.e)
		ld_error(c->L, m, "%s uses gflops, which needs flops: (the operations of one launch)", c->what);
	else if (!config_reserved_name(name) && !known(cfg, name, c->metrics)) {
		int later = 0;
		for (size_t i = c->metrics; i < cfg->numetrics; i++)
			later |= !strcmp(cfg->umetrics[i].name, name);
		ld_error(c->L, m, "unknown name '%s' in %s%s", name, c->what,
			 later ? ": a metric may use only the metrics before it"
			       : " (it may use constants, parameters, metrics and time_ms, time_s, gbps, gflops, joules, watts)");
	}
	return 0;
}

static int uses_energy(loader *L, const cexpr *x, const char *what, size_t metrics)
{
	ocheck c = {L, x, what, metrics, 0};
	if (x->e)
		expr_foreach_name(x->e, check_name, &c);
	return c.energy;
}

/* metrics: a mapping of new names to expressions. */
static void load_metrics(loader *L, const yaml_node_t *n)
{
	config *cfg = L->cfg;
	if (ld_expect(L, n, YAML_MAPPING_NODE, "'metrics'"))
		return;
	size_t count = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	cfg->umetrics = xcalloc(count ? count : 1, sizeof *cfg->umetrics);
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = ld_node(L, p->key), *v = ld_node(L, p->value);
		if (!k || !v || ld_expect(L, k, YAML_SCALAR_NODE, "a metric's name"))
			continue;
		const char *name = ld_scalar(k);
		const char *why = !ld_is_identifier(name) ? "is not an identifier"
				  : config_reserved_name(name) ? "is already a column of the results or a measured name"
				  : known(cfg, name, cfg->numetrics) ? "is already a constant, a parameter or a metric"
								     : NULL;
		if (why) {
			ld_error(L, ld_mark(k), "metric '%s' %s: give it another name", name, why);
			continue;
		}
		user_metric *u = &cfg->umetrics[cfg->numetrics];
		char what[200];
		snprintf(what, sizeof what, "metric '%s'", name);
		if (ld_expr(L, v, what, &u->x) == 0) {
			u->name = xstrdup(name);
			cfg->numetrics++;
		}
	}
}

/* select.objective: an expression to minimise, or {minimize: EXPR} or {maximize: EXPR}. */
static void load_objective(loader *L, const yaml_node_t *n)
{
	config *cfg = L->cfg;
	static const char *const dirs[] = {"minimize", "maximize", NULL};
	const yaml_node_t *x = n;
	if (n->type == YAML_MAPPING_NODE) {
		if (ld_check_keys(L, n, "select objective", dirs))
			return;
		yaml_node_t *mn = ld_get(L, n, "minimize"), *mx = ld_get(L, n, "maximize");
		if (!mn == !mx) {
			ld_error(L, ld_mark(n), "select objective: give one of minimize: or maximize:, e.g. "
						"{maximize: \"2 * n * n * n / time_s / 1e9\"}");
			return;
		}
		cfg->select.maximize = mx != NULL;
		x = mx ? mx : mn;
	}
	if (ld_expr(L, x, "select objective", &cfg->objective))
		return;
	const char *text = ld_scalar(x);
	if (strlen(text) >= OBJECTIVE_TEXT_MAX)
		ld_error(L, ld_mark(x), "select objective: %zu characters, over the %d a results file records: "
					"name its parts as metrics and use them",
			 strlen(text), OBJECTIVE_TEXT_MAX - 1);
	else
		snprintf(cfg->select.objective, sizeof cfg->select.objective, "%s", text);
}

void ld_load_objective(loader *L, const yaml_node_t *root)
{
	config *cfg = L->cfg;
	yaml_node_t *n = ld_get(L, root, "metrics"), *sel = ld_get(L, root, "select");
	if (n)
		load_metrics(L, n);
	if (sel && sel->type == YAML_MAPPING_NODE && (n = ld_get(L, sel, "objective")))
		load_objective(L, n);
	int energy = 0;
	for (size_t i = 0; i < cfg->numetrics; i++) {
		char what[200];
		snprintf(what, sizeof what, "metric '%s'", cfg->umetrics[i].name);
		energy |= uses_energy(L, &cfg->umetrics[i].x, what, i);
	}
	energy |= uses_energy(L, &cfg->objective, "select objective", cfg->numetrics);
	cfg->measure_energy = cfg->energy == ENERGY_ALWAYS || (cfg->energy == ENERGY_AUTO && energy);
}

void objective_config_free(config *cfg)
{
	for (size_t i = 0; i < cfg->numetrics; i++) {
		free(cfg->umetrics[i].name);
		expr_free(cfg->umetrics[i].x.e);
	}
	free(cfg->umetrics);
	cfg->umetrics = NULL;
	cfg->numetrics = 0;
	expr_free(cfg->objective.e);
	cfg->objective.e = NULL;
}
