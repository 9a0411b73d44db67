/* config_keys.c: the sections whose keys are settings (measure, select, search, output, and
 * build's plain keys). The keys that are plain values are rows of a table each (name, kind,
 * bounds, default, field): loading, checking and defaulting come from the row, and a test holds
 * docs/config.md's key table to it. */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_load.h"
#include "strategy.h"
#include "banned.h"

/* The keys that are plain values, a table per section: one row each, read by load_plain,
 * defaulted by config_load, and checked against docs/config.md's key table by a test. A new such
 * key is a row here and a field in config.h. */
static const plain_key measure_keys[] = {
	{"warmup", KEY_INT, 0, 1000, "3", offsetof(config, warmup)},
	{"min_samples", KEY_INT, 1, 100000, "10", offsetof(config, min_samples)},
	{"max_samples", KEY_INT, 1, 100000, "1000", offsetof(config, max_samples)},
	{"noise", KEY_FRACTION, 0, 0, "0.01", offsetof(config, noise_target)},
	{"time_cap", KEY_SECONDS, 0, 0, "2.0", offsetof(config, time_cap)},
	{"race", KEY_NONNEGATIVE, 0, 0, "1.3", offsetof(config, race)},
	{"finalists", KEY_INT, 0, 100, "3", offsetof(config, finalists)},
	{"timeout", KEY_SECONDS, 0, 0, "20", offsetof(config, timeout)},
	{"verify_every_sample", KEY_BOOL, 0, 0, "false", offsetof(config, verify_every)},
	{"pending_launches", KEY_INT, 0, 1 << 24, "0", offsetof(config, pending_launches)},
};
static const size_t nmeasure_keys = sizeof measure_keys / sizeof measure_keys[0];

static const plain_key select_keys[] = {
	{"noise_band", KEY_NONNEGATIVE, 0, 0, "2", offsetof(config, tie_k)},
};

static const plain_key build_keys[] = {
	{"rdc", KEY_BOOL, 0, 0, "false", offsetof(config, rdc)},
};

static const plain_key output_keys[] = {
	{"t4", KEY_BOOL, 0, 0, "false", offsetof(config, write_t4)},
};

const key_table config_key_tables[] = {
	{"build", build_keys, sizeof build_keys / sizeof *build_keys},
	{"measure", measure_keys, sizeof measure_keys / sizeof *measure_keys},
	{"select", select_keys, sizeof select_keys / sizeof *select_keys},
	{"output", output_keys, sizeof output_keys / sizeof *output_keys},
	{NULL, NULL, 0},
};

const char *plain_key_type(key_kind k)
{
	static const char *const names[] = {"integer", "fraction", "seconds", "bool", "number"};
	return names[k];
}

/* Each row's default into cfg. */
void ld_plain_defaults(config *cfg, const plain_key *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *field = (char *)cfg + rows[i].offset;
		if (rows[i].kind == KEY_INT)
			*(int *)field = (int)strtol(rows[i].dflt, NULL, 10);
		else if (rows[i].kind == KEY_BOOL)
			*(int *)field = !strcmp(rows[i].dflt, "true");
		else
			*(double *)field = strtod(rows[i].dflt, NULL);
	}
}

/* Each row's key that mapping n gives, read and checked as its kind says. */
static void load_plain(loader *L, const yaml_node_t *n, const plain_key *rows, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		const plain_key *k = &rows[i];
		yaml_node_t *x = ld_get(L, n, k->name);
		char *field = (char *)L->cfg + k->offset;
		long long v;
		if (!x)
			continue;
		if (k->kind == KEY_INT && ld_int(L, x, k->name, k->lo, k->hi, &v) == 0)
			*(int *)field = (int)v;
		else if (k->kind == KEY_BOOL)
			ld_bool(L, x, k->name, (int *)field);
		else if (k->kind == KEY_FRACTION && ld_double(L, x, k->name, (double *)field) == 0 &&
			 (*(double *)field <= 0 || *(double *)field >= 1))
			ld_error(L, ld_mark(x), "%s is a fraction between 0 and 1 (0.01 = 1%%)", k->name);
		else if (k->kind == KEY_SECONDS && ld_double(L, x, k->name, (double *)field) == 0 && *(double *)field <= 0)
			ld_error(L, ld_mark(x), "%s must be positive (seconds)", k->name);
		else if (k->kind == KEY_NONNEGATIVE && ld_double(L, x, k->name, (double *)field) == 0 && *(double *)field < 0)
			ld_error(L, ld_mark(x), "%s must not be negative", k->name);
	}
}

/* Checks a section's keys (its table's rows and the others it reads itself) and loads its rows:
 * -1 when it is not a mapping. */
static int load_section(loader *L, const yaml_node_t *n, const char *what, const plain_key *rows, size_t count,
			const char *const *others)
{
	size_t nothers = 0;
	while (others[nothers])
		nothers++;
	const char **keys = xcalloc(count + nothers + 1, sizeof *keys);
	for (size_t i = 0; i < count; i++)
		keys[i] = rows[i].name;
	memcpy(keys + count, others, nothers * sizeof *keys);
	int rc = ld_check_keys(L, n, what, keys);
	free(keys);
	if (rc == 0)
		load_plain(L, n, rows, count);
	return rc;
}

int ld_load_build_keys(loader *L, const yaml_node_t *n, const char *const *others)
{
	return load_section(L, n, "'build'", build_keys, sizeof build_keys / sizeof *build_keys, others);
}

void ld_load_measure(loader *L, const yaml_node_t *n)
{
	static const char *const others[] = {"cache", "metrics", NULL};
	if (load_section(L, n, "'measure'", measure_keys, nmeasure_keys, others))
		return;
	config *cfg = L->cfg;
	yaml_node_t *x;
	if (cfg->max_samples < cfg->min_samples)
		ld_error(L, ld_mark(n), "max_samples (%d) is below min_samples (%d)", cfg->max_samples, cfg->min_samples);
	if (cfg->race > 0 && cfg->race < 1 && (x = ld_get(L, n, "race")))
		ld_error(L, ld_mark(x), "race must be 0 (off) or a ratio of at least 1, not %g", cfg->race);
	if ((x = ld_get(L, n, "cache")) && ld_expect(L, x, YAML_SCALAR_NODE, "cache") == 0) {
		if (!strcmp(ld_scalar(x), "warm") || !strcmp(ld_scalar(x), "cold"))
			cfg->cache_warm = !strcmp(ld_scalar(x), "warm");
		else
			ld_error(L, ld_mark(x), "cache must be cold or warm, not '%s'", ld_scalar(x));
	}
	if ((x = ld_get(L, n, "metrics")) && ld_expect(L, x, YAML_SCALAR_NODE, "metrics") == 0 &&
	    config_parse_metrics(ld_scalar(x), &cfg->metrics, &cfg->metrics_top))
		ld_error(L, ld_mark(x), "metrics must be auto, all, none or top:K, not '%s'", ld_scalar(x));
}

void ld_load_select(loader *L, const yaml_node_t *n)
{
	static const char *const others[] = {"policy", "weights", NULL};
	static const char *const wkeys[] = {"occupancy", "load_efficiency", NULL};
	config *cfg = L->cfg;
	yaml_node_t *x;
	if (load_section(L, n, "'select'", select_keys, sizeof select_keys / sizeof *select_keys, others))
		return;
	if ((x = ld_get(L, n, "policy")) && ld_expect(L, x, YAML_SCALAR_NODE, "policy") == 0) {
		if (!strcmp(ld_scalar(x), "balanced") || !strcmp(ld_scalar(x), "fastest"))
			cfg->policy = !strcmp(ld_scalar(x), "fastest") ? POLICY_FASTEST : POLICY_BALANCED;
		else
			ld_error(L, ld_mark(x), "policy must be balanced or fastest, not '%s'", ld_scalar(x));
	}
	if ((x = ld_get(L, n, "weights")) && ld_check_keys(L, x, "select weights", wkeys) == 0) {
		yaml_node_t *w;
		if ((w = ld_get(L, x, "occupancy")))
			ld_double(L, w, "occupancy weight", &cfg->w_occupancy);
		if ((w = ld_get(L, x, "load_efficiency")))
			ld_double(L, w, "load_efficiency weight", &cfg->w_load_efficiency);
	}
}

void ld_load_output(loader *L, const yaml_node_t *n)
{
	static const char *const others[] = {"csv", "header", NULL};
	if (load_section(L, n, "'output'", output_keys, sizeof output_keys / sizeof *output_keys, others))
		return;
	yaml_node_t *c = ld_get(L, n, "csv"), *h = ld_get(L, n, "header");
	if (c)
		L->cfg->csv_path = ld_string(L, c, "output csv");
	if (h)
		L->cfg->header_path = ld_string(L, h, "output header");
}

void ld_load_search(loader *L, const yaml_node_t *n)
{
	config *cfg = L->cfg;
	static const char *const search_keys[] = {"strategy", "budget", "seed", NULL};
	yaml_node_t *x;
	long long seed;
	if (ld_check_keys(L, n, "'search'", search_keys) == 0) {
		if ((x = ld_get(L, n, "strategy"))) {
			strategy s;
			cfg->search_strategy = ld_string(L, x, "search strategy");
			if (cfg->search_strategy && strategy_parse(cfg->search_strategy, &s))
				ld_error(L, ld_mark(x), "unknown search strategy '%s' (%s)", cfg->search_strategy, strategy_list);
		}
		if ((x = ld_get(L, n, "budget")) && (cfg->search_budget = ld_string(L, x, "search budget"))) {
			size_t evaluations;
			double seconds;
			if (budget_parse(cfg->search_budget, 0, &evaluations, &seconds))
				ld_error(L, ld_mark(x), "search budget is evaluations (N), a fraction of the space (N%%) or seconds (Ns), not '%s'",
				       cfg->search_budget);
		}
		if ((x = ld_get(L, n, "seed")) && ld_int(L, x, "search seed", 0, LLONG_MAX, &seed) == 0)
			cfg->search_seed = (unsigned long long)seed;
	}
}

int config_parse_metrics(const char *text, int *mode, int *top)
{
	char *end;
	long k;
	if (!strcmp(text, "auto"))
		*mode = METRICS_AUTO;
	else if (!strcmp(text, "all"))
		*mode = METRICS_ALL;
	else if (!strcmp(text, "none"))
		*mode = METRICS_NONE;
	else if (!strncmp(text, "top:", 4) && (k = strtol(text + 4, &end, 10)) > 0 && k <= INT_MAX && !*end) {
		*mode = METRICS_TOP;
		*top = (int)k;
	} else
		return -1;
	return 0;
}

char *config_sibling(const config *cfg, const char *suffix)
{
	const char *dot = strrchr(cfg->csv_path, '.'), *slash = strrchr(cfg->csv_path, '/');
	size_t n = dot && (!slash || dot > slash) ? (size_t)(dot - cfg->csv_path) : strlen(cfg->csv_path);
	return xasprintf("%.*s%s", (int)n, cfg->csv_path, suffix);
}

int config_override(config *cfg, const config_overrides *ov, diags *d)
{
	if (ov->metrics && config_parse_metrics(ov->metrics, &cfg->metrics, &cfg->metrics_top)) {
		diags_add(d, "autotune: --metrics takes auto, all, none or top:K, not '%s'", ov->metrics);
		return -1;
	}
	if (ov->nshards) {
		char suffix[64];
		snprintf(suffix, sizeof suffix, ".shard-%d-of-%d.csv", ov->shard, ov->nshards);
		char *path = config_sibling(cfg, suffix);
		free(cfg->csv_path);
		cfg->csv_path = path;
	}
	return 0;
}
