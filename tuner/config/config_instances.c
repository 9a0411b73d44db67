/* config_instances.c: the config's problem axis, `instances:`. A grid ({n: [1024, 4096]}: every
 * combination, the first name slowest) or a list of maps ([{nx: 1024, ny: 512}, ...], each naming
 * the same constants). Each names constants of `constants:` and gives them positive values; a
 * config loaded as instance i (config_load_instance) has those values from the start, so arrays,
 * launches, arguments and defines all follow. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_load.h"
#include "banned.h"

/* A value of an instance: a number (or an expression of numbers), positive: the selector compares
 * sizes in log scale. */
static int instance_number(loader *L, const yaml_node_t *n, const char *name, value *out)
{
	char what[160];
	snprintf(what, sizeof what, "instances: value of '%s'", name);
	cexpr x = {0};
	int rc = ld_expr(L, n, what, &x) || ld_eval_const(L, &x, what, out) ? -1 : 0;
	expr_free(x.e);
	if (rc == 0 && !(value_as_double(*out) > 0)) {
		ld_error(L, ld_mark(n), "%s is %s: instance values must be positive (the selector compares them in log "
					"scale)", what, ld_scalar(n));
		rc = -1;
	}
	return rc;
}

/* names stays NULL-terminated: the key checks take it as their list of allowed keys */
static void add_name(instance_set *s, const char *name)
{
	s->names = xrealloc(s->names, (s->nnames + 2) * sizeof *s->names);
	s->names[s->nnames++] = xstrdup(name);
	s->names[s->nnames] = NULL;
}

/* The values node of a grid's name: a list, or one value. */
static size_t grid_items(loader *L, const yaml_node_t *v, yaml_node_item_t *one, yaml_node_item_t **items)
{
	if (v->type == YAML_SEQUENCE_NODE) {
		*items = v->data.sequence.items.start;
		return (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	}
	*one = (yaml_node_item_t)(v - L->doc->nodes.start + 1);
	*items = one;
	return 1;
}

/* The advice of a grid or list past INSTANCES_MAX. */
#define TOO_MANY_ADVICE                                                                                        \
	"each instance is a whole tuning run, and the header's selector picks the nearest tuned instance for "  \
	"the sizes between: give each constant a few values per decade (powers of 2 or 4), or list the "        \
	"combinations the program runs ([{n: 1024, m: 8}, ...]) instead of their grid"

static void load_grid(loader *L, const yaml_node_t *n)
{
	instance_set *s = &L->cfg->instances;
	if (ld_check_keys(L, n, "'instances'", NULL))
		return;
	size_t nk = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start), total = 1;
	value **lists = xcalloc(nk + 1, sizeof *lists);
	size_t *counts = xcalloc(nk + 1, sizeof *counts);
	int errors = L->errors, over = 0; /* over: total went past INSTANCES_MAX (and stopped there) */
	for (size_t k = 0; k < nk; k++) {
		yaml_node_pair_t *p = n->data.mapping.pairs.start + k;
		yaml_node_t *key = ld_node(L, p->key), *v = ld_node(L, p->value);
		yaml_node_item_t one, *items;
		size_t m = grid_items(L, v, &one, &items);
		if (!m)
			ld_error(L, ld_mark(v), "instances: '%s' has no values", ld_scalar(key));
		lists[k] = xcalloc(m + 1, sizeof *lists[k]);
		for (size_t i = 0; i < m; i++)
			if (instance_number(L, ld_node(L, items[i]), ld_scalar(key), &lists[k][counts[k]]) == 0)
				counts[k]++;
		add_name(s, ld_scalar(key));
		if (!over && counts[k] > INSTANCES_MAX / total) {
			over = 1;
			ld_error(L, ld_mark(key), "instances: the grid has more than %d instances at '%s' (%zu so far, times its "
						  "%zu values): %s",
				 INSTANCES_MAX, ld_scalar(key), total, counts[k], TOO_MANY_ADVICE);
		}
		if (!over && counts[k])
			total *= counts[k];
	}
	if (L->errors == errors && nk) {
		s->vals = xcalloc(total * nk, sizeof *s->vals);
		for (size_t i = 0; i < total; i++) {
			size_t rest = i;
			for (size_t k = nk; k-- > 0;) {
				s->vals[i * nk + k] = lists[k][rest % counts[k]];
				rest /= counts[k];
			}
		}
		s->ninst = total;
	}
	for (size_t k = 0; k < nk; k++)
		free(lists[k]);
	free(lists);
	free(counts);
}

static void load_list(loader *L, const yaml_node_t *n)
{
	instance_set *s = &L->cfg->instances;
	size_t m = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	if (m > INSTANCES_MAX) {
		ld_error(L, ld_mark(n), "instances: %zu instances, more than %d: %s", m, INSTANCES_MAX, TOO_MANY_ADVICE);
		return;
	}
	const yaml_node_t *first = m ? ld_node(L, n->data.sequence.items.start[0]) : NULL;
	if (!first || ld_check_keys(L, first, "an instance", NULL))
		return;
	for (yaml_node_pair_t *p = first->data.mapping.pairs.start; p < first->data.mapping.pairs.top; p++)
		add_name(s, ld_scalar(ld_node(L, p->key)));
	s->vals = xcalloc(m * s->nnames + 1, sizeof *s->vals);
	int errors = L->errors;
	for (size_t i = 0; i < m; i++) {
		const yaml_node_t *map = ld_node(L, n->data.sequence.items.start[i]);
		if (ld_check_keys(L, map, "an instance", (const char *const *)s->names))
			continue;
		for (size_t k = 0; k < s->nnames; k++) {
			yaml_node_t *v = ld_get(L, map, s->names[k]);
			if (!v)
				ld_error(L, ld_mark(map), "instance %zu does not give '%s' (the first instance does: each gives the "
							  "same constants)", i + 1, s->names[k]);
			else
				instance_number(L, v, s->names[k], &s->vals[i * s->nnames + k]);
		}
	}
	if (L->errors == errors)
		s->ninst = m;
}

/* The instances' values, for sorting their indices (qsort has no context argument). */
static const instance_set *sorting;

/* Instances a and b by their values, then by index: equal ones end up next to each other, the
 * first given first. */
static int by_values(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb, nn = sorting->nnames;
	for (size_t k = 0; k < nn; k++) {
		double x = value_as_double(sorting->vals[a * nn + k]), y = value_as_double(sorting->vals[b * nn + k]);
		if (x != y)
			return x < y ? -1 : 1;
	}
	return a < b ? -1 : a > b;
}

/* Two instances alike would be one problem tuned twice. The instances sorted by their values
 * (comparing every pair was quadratic: 10^5 instances took 15-42 s): the first instance that
 * repeats an earlier one is said, with the first of those. */
static void check_distinct(loader *L)
{
	const instance_set *s = &L->cfg->instances;
	size_t *order = xcalloc(s->ninst, sizeof *order), first = SIZE_MAX, again = SIZE_MAX;
	for (size_t i = 0; i < s->ninst; i++)
		order[i] = i;
	sorting = s;
	qsort(order, s->ninst, sizeof *order, by_values);
	sorting = NULL;
	for (size_t i = 1, start = 0; i < s->ninst; i++) {
		size_t a = order[i - 1], b = order[i], k = 0;
		while (k < s->nnames && value_as_double(s->vals[a * s->nnames + k]) == value_as_double(s->vals[b * s->nnames + k]))
			k++;
		if (k < s->nnames)
			start = i; /* a run of equal instances starts here, the first given first */
		else if (b < again) {
			first = order[start];
			again = b;
		}
	}
	free(order);
	if (again != SIZE_MAX) {
		char *label = config_instance_label(L->cfg, again);
		ld_error(L, s->at, "instances: %s is given twice (instances %zu and %zu)", label, first + 1, again + 1);
		free(label);
	}
}

void ld_load_instances(loader *L, const yaml_node_t *n)
{
	L->cfg->instances.at = ld_mark(n);
	if (n->type == YAML_SEQUENCE_NODE)
		load_list(L, n);
	else if (n->type == YAML_MAPPING_NODE)
		load_grid(L, n);
	else
		ld_error(L, ld_mark(n), "'instances' must be a mapping of constants to values ({n: [1024, 4096]}) or a list "
					"of such mappings, not %s", ld_kind_name(n));
	if (L->cfg->instances.ninst)
		check_distinct(L);
	if (L->instance >= (long)L->cfg->instances.ninst)
		ld_error(L, ld_mark(n), "instances: there is no instance %ld", L->instance + 1);
}

void ld_check_instances(loader *L)
{
	const config *cfg = L->cfg;
	for (size_t k = 0; k < cfg->instances.nnames; k++) {
		size_t c = 0;
		while (c < cfg->nconstants && strcmp(cfg->constants[c].name, cfg->instances.names[k]))
			c++;
		if (c == cfg->nconstants)
			ld_error(L, cfg->instances.at, "instances: '%s' is not a constant: give it a value in constants: "
						       "(what `validate` and the defaults use), and the instances' values here",
				 cfg->instances.names[k]);
	}
}

void ld_instance_value(loader *L, const char *name, value *v)
{
	const instance_set *s = &L->cfg->instances;
	if (L->instance < 0 || (size_t)L->instance >= s->ninst)
		return;
	for (size_t k = 0; k < s->nnames; k++)
		if (!strcmp(s->names[k], name))
			*v = s->vals[(size_t)L->instance * s->nnames + k];
}

void config_instances_free(config *cfg)
{
	for (size_t k = 0; k < cfg->instances.nnames; k++)
		free(cfg->instances.names[k]);
	free(cfg->instances.names);
	free(cfg->instances.vals);
	memset(&cfg->instances, 0, sizeof cfg->instances);
}

static char *instance_text(const config *cfg, size_t i, const char *lead, const char *eq, const char *sep)
{
	const instance_set *s = &cfg->instances;
	char *out = xstrdup(lead);
	for (size_t k = 0; k < s->nnames; k++) {
		char v[64];
		value_format(s->vals[i * s->nnames + k], v, sizeof v);
		char *m = xasprintf("%s%s%s%s%s", out, k ? sep : "", s->names[k], eq, v);
		free(out);
		out = m;
	}
	return out;
}

char *config_instance_label(const config *cfg, size_t i) { return instance_text(cfg, i, "", "=", " "); }
char *config_instance_suffix(const config *cfg, size_t i) { return instance_text(cfg, i, ".", "-", "-"); }
