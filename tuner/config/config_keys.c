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
#include "run_names.h"
#include "strategy.h"
#include "banned.h"

/* measure.cache's words: the field is 1 for warm. */
static const char *const cache_words[] = {"cold", "warm", NULL};
static const char *const energy_words[] = {"auto", "always", "never", NULL};

/* The keys that are plain values, a table per section: one row each, read by load_plain,
 * defaulted by config_load, and checked against docs/config.md's key table by a test. A new such
 * key is a row here and a field in config.h. */
static const plain_key measure_keys[] = {
	{"warmup", KEY_INT, 0, 1000, "3", offsetof(config, warmup), NULL},
	{"min_samples", KEY_INT, 1, 100000, "10", offsetof(config, min_samples), NULL},
	{"max_samples", KEY_INT, 1, 100000, "1000", offsetof(config, max_samples), NULL},
	{"noise", KEY_FRACTION, 0, 0, "0.01", offsetof(config, noise_target), NULL},
	{"time_cap", KEY_SECONDS, 0, 0, "2.0", offsetof(config, time_cap), NULL},
	{"race", KEY_NONNEGATIVE, 0, 0, "1.3", offsetof(config, race), NULL},
	{"finalists", KEY_INT, 0, 100, "3", offsetof(config, finalists), NULL},
	{"timeout", KEY_SECONDS, 0, 0, "20", offsetof(config, timeout), NULL},
	{"verify_every_sample", KEY_BOOL, 0, 0, "false", offsetof(config, verify_every), NULL},
	{"pending_launches", KEY_INT, 0, 1 << 24, "0", offsetof(config, pending_launches), NULL},
	{"cache", KEY_ENUM, 0, 0, "cold", offsetof(config, cache_warm), cache_words},
	{"energy", KEY_ENUM, 0, 0, "auto", offsetof(config, energy), energy_words},
};
static const size_t nmeasure_keys = sizeof measure_keys / sizeof measure_keys[0];

static const plain_key select_keys[] = {
	{"noise_band", KEY_NONNEGATIVE, 0, 0, "2", offsetof(config, select.noise_band), NULL},
	{"policy", KEY_ENUM, 0, 0, "balanced", offsetof(config, select.kind), policy_names},
};

static const plain_key weight_keys[] = {
	{"occupancy", KEY_NONNEGATIVE, 0, 0, "1", offsetof(config, select.w_occupancy), NULL},
	{"load_efficiency", KEY_NONNEGATIVE, 0, 0, "1", offsetof(config, select.w_load_efficiency), NULL},
};

static const plain_key build_keys[] = {
	{"rdc", KEY_BOOL, 0, 0, "false", offsetof(config, rdc), NULL},
};

static const plain_key output_keys[] = {
	{"t4", KEY_BOOL, 0, 0, "false", offsetof(config, write_t4), NULL},
};

const key_table config_key_tables[] = {
	{"build", build_keys, sizeof build_keys / sizeof *build_keys},
	{"measure", measure_keys, sizeof measure_keys / sizeof *measure_keys},
	{"select", select_keys, sizeof select_keys / sizeof *select_keys},
	{"select.weights", weight_keys, sizeof weight_keys / sizeof *weight_keys},
	{"output", output_keys, sizeof output_keys / sizeof *output_keys},
	{NULL, NULL, 0},
};

const char *plain_key_type(const plain_key *k, char *buf, size_t len)
{
	static const char *const names[] = {"integer", "fraction", "seconds", "bool", "number"};
	if (k->kind != KEY_ENUM)
		return names[k->kind];
	size_t used = 0;
	buf[0] = 0;
	for (size_t i = 0; k->words[i] && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s`%s`", !i ? "" : k->words[i + 1] ? ", " : " or ",
					 k->words[i]);
	return buf;
}

/* The index of word in words, or -1. */
static int word_index(const char *const *words, const char *word)
{
	for (int i = 0; words[i]; i++)
		if (!strcmp(words[i], word))
			return i;
	return -1;
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
		else if (rows[i].kind == KEY_ENUM)
			*(int *)field = word_index(rows[i].words, rows[i].dflt);
		else
			*(double *)field = strtod(rows[i].dflt, NULL);
	}
}

/* An enumerated setting's word: its index into *field, or an error that names the words. */
static void load_word(loader *L, const yaml_node_t *x, const plain_key *k, int *field)
{
	if (ld_expect(L, x, YAML_SCALAR_NODE, k->name))
		return;
	int i = word_index(k->words, ld_scalar(x));
	if (i >= 0) {
		*field = i;
		return;
	}
	char words[160] = "";
	size_t used = 0;
	for (size_t w = 0; k->words[w] && used < sizeof words; w++)
		used += (size_t)snprintf(words + used, sizeof words - used, "%s%s", !w ? "" : k->words[w + 1] ? ", " : " or ",
					 k->words[w]);
	ld_error(L, ld_mark(x), "%s must be %s, not '%s'", k->name, words, ld_scalar(x));
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
		else if (k->kind == KEY_ENUM)
			load_word(L, x, k, (int *)field);
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
	static const char *const others[] = {"metrics", NULL};
	if (load_section(L, n, "'measure'", measure_keys, nmeasure_keys, others))
		return;
	config *cfg = L->cfg;
	yaml_node_t *x;
	if (cfg->max_samples < cfg->min_samples)
		ld_error(L, ld_mark(n), "max_samples (%d) is below min_samples (%d)", cfg->max_samples, cfg->min_samples);
	if (cfg->race > 0 && cfg->race < 1 && (x = ld_get(L, n, "race")))
		ld_error(L, ld_mark(x), "race must be 0 (off) or a ratio of at least 1, not %g", cfg->race);
	if ((x = ld_get(L, n, "metrics")) && ld_expect(L, x, YAML_SCALAR_NODE, "metrics") == 0 &&
	    config_parse_metrics(ld_scalar(x), &cfg->metrics, &cfg->metrics_top))
		ld_error(L, ld_mark(x), "metrics must be auto, all, none or top:K, not '%s'", ld_scalar(x));
}

value *ld_named_config(loader *L, const yaml_node_t *r, const char *what)
{
	config *cfg = L->cfg;
	value *vals = xcalloc(cfg->nparams + 1, sizeof *vals);
	for (size_t i = 0; i < cfg->nparams; i++) {
		yaml_node_t *v = ld_get(L, r, cfg->params[i].name);
		cexpr x = {0};
		if (!v)
			ld_error(L, ld_mark(r), "%s does not give parameter '%s'", what, cfg->params[i].name);
		else if (param_is_string(&cfg->params[i]))
			ld_named_string(L, &cfg->params[i], v, what, &vals[i]);
		else if (ld_expr(L, v, "reference value", &x) == 0)
			ld_eval_const(L, &x, "a reference value", &vals[i]);
		expr_free(x.e);
	}
	for (yaml_node_pair_t *p = r->data.mapping.pairs.start; p < r->data.mapping.pairs.top; p++) {
		yaml_node_t *k = ld_node(L, p->key);
		size_t i = 0;
		if (!k || ld_expect(L, k, YAML_SCALAR_NODE, what))
			continue;
		while (i < cfg->nparams && strcmp(cfg->params[i].name, ld_scalar(k)))
			i++;
		if (i == cfg->nparams)
			ld_error(L, ld_mark(k), "%s names '%s', which is not a parameter of the space", what, ld_scalar(k));
	}
	return vals;
}

void ld_load_select(loader *L, const yaml_node_t *n)
{
	static const char *const others[] = {"weights", "baseline", "objective", NULL}, *const none[] = {NULL};
	yaml_node_t *x;
	if (load_section(L, n, "'select'", select_keys, sizeof select_keys / sizeof *select_keys, others))
		return;
	if ((x = ld_get(L, n, "weights")))
		load_section(L, x, "select weights", weight_keys, sizeof weight_keys / sizeof *weight_keys, none);
	if (!(x = ld_get(L, n, "baseline")) || ld_check_keys(L, x, "select baseline", NULL))
		return;
	config *cfg = L->cfg;
	cfg->baseline = ld_named_config(L, x, "select baseline");
	/* a value outside the parameter's list matches no row: said now, not as a report without one */
	for (size_t i = 0; i < cfg->nparams; i++) {
		yaml_node_t *at = ld_get(L, x, cfg->params[i].name);
		size_t k = 0;
		while (k < cfg->params[i].nvalues && !value_equal(cfg->params[i].values[k], cfg->baseline[i]))
			k++;
		char text[64];
		value_format(cfg->baseline[i], text, sizeof text);
		if (at && k == cfg->params[i].nvalues)
			ld_error(L, ld_mark(at), "select baseline: %s=%s is not one of %s's values in the space", cfg->params[i].name,
				 text, cfg->params[i].name);
	}
}

select_policy config_select_defaults(void)
{
	config cfg = {0};
	ld_plain_defaults(&cfg, select_keys, sizeof select_keys / sizeof *select_keys);
	ld_plain_defaults(&cfg, weight_keys, sizeof weight_keys / sizeof *weight_keys);
	return cfg.select;
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
				ld_error(L, ld_mark(x), "search budget is " BUDGET_FORMS ", not '%s'", cfg->search_budget);
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

int config_override(config *cfg, const config_overrides *ov, diags *d)
{
	if (ov->metrics && config_parse_metrics(ov->metrics, &cfg->metrics, &cfg->metrics_top)) {
		diags_add(d, "autotune: --metrics takes auto, all, none or top:K, not '%s'", ov->metrics);
		return -1;
	}
	if (ov->nshards) {
		char *path = run_shard_name(cfg->csv_path, ov->shard, ov->nshards);
		free(cfg->csv_path);
		cfg->csv_path = path;
	}
	return 0;
}
