/* config.c: loads a tuning problem from YAML (libyaml's document API) and checks it against the
 * schema, section by section, keeping the position of each value for messages. The YAML getters
 * are in config_yaml.c, expressions' names and evaluation in config_expr.c, the settings' sections
 * (measure, select, search, output) in config_keys.c, what is read from the kernel source in
 * config_source.c. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "config_load.h"
#include "document.h"
#include "occupancy.h"
#include "macros.h"
#include "banned.h"

static const char *const fill_names[] = {"random", "constant", "zeros", "normal", "index", "copy", "expr", "file"};
const char *fill_name(fill_kind f) { return fill_names[f]; }

static int parse_elem(loader *L, const yaml_node_t *n, elem_type *out)
{
	if (!n || ld_expect(L, n, YAML_SCALAR_NODE, "type"))
		return -1;
	if (elem_parse(ld_scalar(n), out) == 0)
		return 0;
	ld_error(L, ld_mark(n), "unknown type '%s' (known: int8, int16, int32, int64, uint8, uint16, uint32, uint64, float, double, "
	       "half, bfloat16, and the vector types int2..4, uint2..4, float2..4, double2..4, half2, bfloat162)", ld_scalar(n));
	return -1;
}

static void load_kernel(loader *L, const yaml_node_t *n)
{
	static const char *const keys[] = {"source", "entry", "arch", NULL};
	config *cfg = L->cfg;
	if (ld_check_keys(L, n, "'kernel'", keys))
		return;
	yaml_node_t *src = ld_require(L, n, "source", "'kernel'");
	char *s = ld_string(L, src, "kernel source");
	if (s) {
		cfg->source_at = ld_mark(src);
		const char *slash = strrchr(cfg->path, '/');
		if (s[0] == '-' && !slash) {
			/* a path, not one of nvcc's options */
			cfg->source = xasprintf("./%s", s);
			free(s);
		} else if (s[0] == '/' || !slash)
			cfg->source = s;
		else {
			cfg->source = xasprintf("%.*s/%s", (int)(slash - cfg->path), cfg->path, s);
			free(s);
		}
		struct stat st;
		if (ld_refuse_shell(L, cfg->source_at, "kernel source", cfg->source, "rename it (a config's text never reaches a shell)")) {
		} else if (access(cfg->source, R_OK) || stat(cfg->source, &st))
			ld_error(L, cfg->source_at, "cannot read kernel source '%s': %s", cfg->source, strerror(errno));
		else if (S_ISDIR(st.st_mode))
			ld_error(L, cfg->source_at, "kernel source '%s' is a directory", cfg->source);
		else if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
			/* reading one would wait for a writer that may never come */
			ld_error(L, cfg->source_at, "kernel source '%s' is a pipe or a socket, not a file", cfg->source);
		else
			L->source_ok = 1;
	}
	yaml_node_t *entry = L->has_plan ? ld_get(L, n, "entry") : ld_require(L, n, "entry", "'kernel'");
	if (entry && (cfg->entry = ld_string(L, entry, "kernel entry"))) {
		cfg->entry_at = ld_mark(entry);
		/* placeholders are checked once the parameters are known */
		if (!strstr(cfg->entry, "${") && !strchr(cfg->entry, '<') && !ld_is_identifier(cfg->entry))
			ld_error(L, cfg->entry_at, "kernel entry '%s' is not a C identifier", cfg->entry);
	}
	yaml_node_t *arch = ld_get(L, n, "arch");
	if (arch && (cfg->arch = ld_string(L, arch, "kernel arch")) && arch_parse(cfg->arch) < 0)
		ld_error(L, ld_mark(arch), "arch must look like sm_90 or sm_100, not '%s'", cfg->arch);
}

/* A name that expressions can use must be an identifier and must not shadow another. */
static int check_new_name(loader *L, const yaml_node_t *k, const char *what)
{
	const char *s = ld_scalar(k);
	config *cfg = L->cfg;
	if (!ld_is_identifier(s)) {
		ld_error(L, ld_mark(k), "%s name '%s' is not an identifier", what, s);
		return -1;
	}
	static const char *const funcs[] = {"min", "max", "ceil_div", "abs", NULL};
	for (const char *const *f = funcs; *f; f++)
		if (!strcmp(*f, s)) {
			ld_error(L, ld_mark(k), "%s name '%s' is a built-in function", what, s);
			return -1;
		}
	/* a constant twice is a duplicate key, said by ld_check_keys: looking back is quadratic */
	for (size_t i = 0; strcmp(what, "constant") && i < cfg->nconstants; i++)
		if (!strcmp(cfg->constants[i].name, s)) {
			ld_error(L, ld_mark(k), "%s '%s' is already a constant (line %d)", what, s, cfg->constants[i].at.line);
			return -1;
		}
	for (size_t i = 0; i < cfg->nparams; i++)
		if (!strcmp(cfg->params[i].name, s)) {
			ld_error(L, ld_mark(k), "%s '%s' is already a parameter (line %d)", what, s, cfg->params[i].at.line);
			return -1;
		}
	return 0;
}

static void load_constants(loader *L, const yaml_node_t *n)
{
	config *cfg = L->cfg;
	if (ld_check_keys(L, n, "'constants'", NULL))
		return;
	size_t count = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	cfg->constants = xcalloc(count, sizeof *cfg->constants);
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = ld_node(L, p->key), *v = ld_node(L, p->value);
		if (k->type != YAML_SCALAR_NODE || check_new_name(L, k, "constant"))
			continue;
		cexpr x = {0};
		value val;
		char what[128];
		snprintf(what, sizeof what, "constant '%s'", ld_scalar(k));
		if (ld_expr(L, v, what, &x) == 0 && ld_eval_const(L, &x, what, &val) == 0) {
			constant *c = &cfg->constants[cfg->nconstants++];
			c->name = xstrdup(ld_scalar(k));
			c->v = val;
			ld_instance_value(L, c->name, &c->v);
			c->at = ld_mark(k);
		} else
			ld_constant_failed(L, ld_scalar(k));
		expr_free(x.e);
	}
}

/* A parameter's values: a list, a single value, or a range {start, stop, step | pow2}. */
static void load_param_values(loader *L, const yaml_node_t *v, param *p)
{
	size_t cap = 0;
	char what[160];
	snprintf(what, sizeof what, "value of parameter '%s'", p->name);
	if (v->type == YAML_SEQUENCE_NODE || v->type == YAML_SCALAR_NODE) {
		yaml_node_item_t one = 0, *items, *end;
		if (v->type == YAML_SCALAR_NODE) {
			one = (yaml_node_item_t)(v - L->doc->nodes.start + 1);
			items = &one;
			end = &one + 1;
		} else {
			items = v->data.sequence.items.start;
			end = v->data.sequence.items.top;
		}
		if (items == end)
			ld_error(L, ld_mark(v), "parameter '%s' has no values", p->name);
		yaml_node_item_t *at = xcalloc((size_t)(end - items) + 1, sizeof *at); /* each value's item */
		for (yaml_node_item_t *it = items; it < end; it++) {
			cexpr x = {0};
			value val;
			int str = ld_string_value(L, ld_node(L, *it), &val); /* a type, a kernel name */
			if (str > 0 ||
			    (!str && ld_expr(L, ld_node(L, *it), what, &x) == 0 && ld_eval_const(L, &x, what, &val) == 0)) {
				grow(&p->values, &cap, p->nvalues + 1, sizeof *p->values);
				at[p->nvalues] = *it;
				p->values[p->nvalues++] = val;
			}
			expr_free(x.e);
		}
		ld_check_distinct_values(L, p, at);
		free(at);
		return;
	}
	static const char *const keys[] = {"start", "stop", "step", "pow2", NULL};
	snprintf(what, sizeof what, "range of parameter '%s'", p->name);
	if (ld_check_keys(L, v, what, keys))
		return;
	long long start, stop, step = 1;
	int pow2 = 0;
	yaml_node_t *ns = ld_require(L, v, "start", what), *ne = ld_require(L, v, "stop", what);
	yaml_node_t *nstep = ld_get(L, v, "step"), *np = ld_get(L, v, "pow2");
	if (!ns || !ne || ld_int(L, ns, "start", LLONG_MIN / 4, LLONG_MAX / 4, &start) ||
	    ld_int(L, ne, "stop", LLONG_MIN / 4, LLONG_MAX / 4, &stop))
		return;
	if (nstep && np) {
		ld_error(L, ld_mark(np), "a range takes 'step' or 'pow2', not both");
		return;
	}
	if (nstep && ld_int(L, nstep, "step", 1, LLONG_MAX / 4, &step))
		return;
	if (np && ld_bool(L, np, "pow2", &pow2))
		return;
	if (pow2 && start <= 0) {
		ld_error(L, ld_mark(ns), "a pow2 range must start above 0");
		return;
	}
	if (stop < start) {
		ld_error(L, ld_mark(ne), "range stop %lld is below start %lld", stop, start);
		return;
	}
	if (!pow2 && (stop - start) / step >= 1000000) {
		ld_error(L, ld_mark(v), "range of parameter '%s' has over a million values", p->name);
		return;
	}
	/* stop is inclusive: {start: 1, stop: 1024, pow2: true} includes 1024 */
	for (long long x = start; x <= stop; x = pow2 ? x * 2 : x + step) {
		grow(&p->values, &cap, p->nvalues + 1, sizeof *p->values);
		p->values[p->nvalues++] = value_int(x);
	}
}

static void load_space(loader *L, const yaml_node_t *n)
{
	config *cfg = L->cfg;
	if (ld_check_keys(L, n, "'space'", NULL))
		return;
	size_t count = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	if (count == 0)
		ld_error(L, ld_mark(n), "'space' has no parameters");
	cfg->params = xcalloc(count, sizeof *cfg->params);
	for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = ld_node(L, pr->key), *v = ld_node(L, pr->value);
		if (k->type != YAML_SCALAR_NODE || check_new_name(L, k, "parameter"))
			continue;
		param *p = &cfg->params[cfg->nparams++];
		p->name = xstrdup(ld_scalar(k));
		p->at = ld_mark(k);
		load_param_values(L, v, p);
	}
}

static int find_param(loader *L, const yaml_node_t *n, const char *what)
{
	if (!n || ld_expect(L, n, YAML_SCALAR_NODE, what))
		return -1;
	for (size_t i = 0; i < L->cfg->nparams; i++)
		if (!strcmp(L->cfg->params[i].name, ld_scalar(n)))
			return (int)i;
	ld_error(L, ld_mark(n), "%s names '%s', which is not a parameter of the space%s", what, ld_scalar(n),
	       !strcmp(what, "build defines") ? " or a constant" : "");
	return -1;
}

/* An output that starts from data of its own (any fill but zeros) is an input too: without restore
 * every launch after the first starts from the last one's results, so the timed samples run on
 * other data than the verified launch, and an accumulating kernel fails verification. Legal
 * (the kernel may only write it), so a warning (cfg->warnings); as is one with no output at all. */
static void warn_unrestored_inputs(loader *L, const yaml_node_t *list)
{
	if (L->errors || L->quiet)
		return; /* the config is refused anyway, and args may not line up with the list's items */
	int outputs = 0;
	for (size_t i = 0; i < L->cfg->nargs; i++)
		outputs += L->cfg->args[i].output;
	/* legal (a pure timing of a kernel), but "ok" then means timed, not verified */
	if (!outputs && L->cfg->nargs)
		diags_at(&L->cfg->warnings, L->file, ld_mark(list).line, ld_mark(list).col,
			 "warning: no argument is an output, so nothing is verified: an 'ok' is only timed (mark what "
			 "the kernel writes with 'output: true')");
	for (size_t i = 0; i < L->cfg->nargs; i++) {
		const kernel_arg *a = &L->cfg->args[i];
		if (!a->is_array || !a->output || a->restore || a->fill == FILL_ZEROS)
			continue;
		const yaml_node_t *item = ld_node(L, list->data.sequence.items.start[i]), *fill = ld_get(L, item, "fill");
		mark m = fill ? ld_mark(fill) : a->at;
		diags_at(&L->cfg->warnings, L->file, m.line, m.col, "warning: '%s' is an output with a fill of its own, so "
			 "the kernel may read it: without 'restore: true' each launch after the first starts from the last "
			 "one's results (if the kernel only writes it, drop the fill)", a->name ? a->name : "?");
	}
}

/* A scalar argument: its value, an expression that may use parameters. stray: a key that only
 * arrays take, or NULL. */
static void load_scalar_argument(loader *L, kernel_arg *arg, yaml_node_t *val, yaml_node_t *stray, const char *what)
{
	if (stray)
		ld_error(L, ld_mark(stray), "%s is a scalar (it has no 'count'), so it takes no fill, seed, output or restore",
			 what);
	if (!val)
		ld_error(L, arg->at, "%s needs 'value' (a scalar) or 'count' (a device array)", what);
	else
		ld_expr(L, val, "argument value", &arg->value);
	if (elem_lanes(arg->type) > 1)
		ld_error(L, arg->at, "%s: a scalar of vector type %s is not supported: a scalar is one value, so a kernel "
				     "parameter of type %s cannot be given (take its components as separate parameters)",
			 what, elem_name(arg->type), elem_name(arg->type));
}

/* An array's fill: a name, {copy: NAME} of another array, {expr: ...} per element or
 * {file: PATH}. */
static void load_fill(loader *L, kernel_arg *arg, yaml_node_t *fill)
{
	if (fill->type == YAML_MAPPING_NODE && ld_get(L, fill, "file")) {
		/* fill: {file: PATH}: the elements of an .npy or raw file, read by the worker */
		static const char *const file_keys[] = {"file", NULL};
		arg->fill = FILL_FILE;
		if (ld_check_keys(L, fill, "fill", file_keys) == 0)
			ld_data_file(L, ld_get(L, fill, "file"), arg, "fill file", &arg->fill_file);
	} else if (fill->type == YAML_MAPPING_NODE && ld_get(L, fill, "expr")) {
		/* fill: {expr: ...}: a value per element, computed from its index */
		static const char *const expr_keys[] = {"expr", NULL};
		arg->fill = FILL_EXPR;
		if (ld_check_keys(L, fill, "fill", expr_keys) == 0 &&
		    ld_expr(L, ld_get(L, fill, "expr"), "fill expr", &arg->fill_expr) == 0)
			ld_check_element_names(L, &arg->fill_expr, "fill expr");
	} else if (fill->type == YAML_MAPPING_NODE) {
		/* fill: {copy: NAME}: resolved once every argument is known (resolve_copies) */
		static const char *const copy_keys[] = {"copy", NULL};
		yaml_node_t *from = ld_check_keys(L, fill, "fill", copy_keys) == 0 ? ld_require(L, fill, "copy", "fill") : NULL;
		arg->fill = FILL_COPY;
		if (from)
			ld_expect(L, from, YAML_SCALAR_NODE, "fill copy");
	} else if (ld_expect(L, fill, YAML_SCALAR_NODE, "fill") == 0) {
		int found = 0;
		for (int f = 0; f < 5; f++)
			if (!strcmp(ld_scalar(fill), fill_names[f])) {
				arg->fill = (fill_kind)f;
				found = 1;
			}
		if (!found)
			ld_error(L, ld_mark(fill), "unknown fill '%s' (known: random, normal, constant, zeros, index, {copy: NAME}, {expr: ...}, {file: PATH})",
			       ld_scalar(fill));
	}
}

/* fill: {copy: NAME} of any other array argument, before or after it (a stencil's x_new and x_old
 * come in either order); the worker makes the copies once every array is filled, sources first,
 * so copies may not go round in a circle. from[i]: argument i's copy key, or NULL. */
static void resolve_copies(loader *L, yaml_node_t *const *from)
{
	config *cfg = L->cfg;
	for (size_t a = 0; a < cfg->nargs; a++) {
		kernel_arg *arg = &cfg->args[a];
		if (!from[a] || from[a]->type != YAML_SCALAR_NODE)
			continue;
		for (size_t i = 0; i < cfg->nargs; i++)
			if (i != a && cfg->args[i].name && !strcmp(cfg->args[i].name, ld_scalar(from[a])) && cfg->args[i].is_array)
				arg->copy_of = (int)i;
		if (arg->copy_of < 0)
			ld_error(L, ld_mark(from[a]), "fill copy: '%s' is not another array argument", ld_scalar(from[a]));
		else if (cfg->args[arg->copy_of].type != arg->type)
			ld_error(L, ld_mark(from[a]), "fill copy: '%s' has another element type", ld_scalar(from[a]));
	}
	for (size_t a = 0; a < cfg->nargs; a++) {
		size_t steps = 0;
		for (int c = cfg->args[a].copy_of; c >= 0 && steps <= cfg->nargs; c = cfg->args[c].copy_of)
			steps++;
		if (steps > cfg->nargs && from[a]) {
			ld_error(L, ld_mark(from[a]), "fill copy: '%s' is a copy of itself, through the arguments it copies",
				 cfg->args[a].name ? cfg->args[a].name : "?");
			cfg->args[a].copy_of = -1;
		}
	}
}

static void load_arguments(loader *L, const yaml_node_t *n)
{
	static const char *const keys[] = {"name", "type", "count", "fill", "value", "seed", "output", "restore",
					   "constant", NULL};
	config *cfg = L->cfg;
	if (ld_expect(L, n, YAML_SEQUENCE_NODE, "'arguments'"))
		return;
	size_t count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	cfg->args = xcalloc(count, sizeof *cfg->args);
	yaml_node_t **copy_from = xcalloc(count + 1, sizeof *copy_from);
	size_t index = 0;
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		yaml_node_t *a = ld_node(L, *it);
		char what[96];
		snprintf(what, sizeof what, "argument %zu", ++index);
		if (ld_check_keys(L, a, what, keys))
			continue;
		kernel_arg *arg = &cfg->args[cfg->nargs++];
		arg->at = ld_mark(a);
		arg->name = ld_string(L, ld_require(L, a, "name", what), "argument name");
		for (size_t k = 0; arg->name && k + 1 < cfg->nargs; k++)
			if (cfg->args[k].name && !strcmp(cfg->args[k].name, arg->name))
				ld_error(L, arg->at, "argument '%s' is named twice (first at line %d, column %d): each needs a name of its own",
					 arg->name, cfg->args[k].at.line, cfg->args[k].at.col);
		parse_elem(L, ld_require(L, a, "type", what), &arg->type);
		yaml_node_t *cnt = ld_get(L, a, "count"), *fill = ld_get(L, a, "fill"), *val = ld_get(L, a, "value");
		yaml_node_t *seed = ld_get(L, a, "seed"), *out = ld_get(L, a, "output"), *rest = ld_get(L, a, "restore");
		yaml_node_t *con = ld_get(L, a, "constant");
		arg->is_array = cnt != NULL;
		if (!arg->is_array) {
			yaml_node_t *stray = fill ? fill : seed ? seed : out ? out : rest;
			load_scalar_argument(L, arg, val, stray, what);
			continue;
		}
		cexpr x = {0};
		value v;
		if (ld_expr(L, cnt, "argument count", &x) == 0 && ld_eval_const(L, &x, "an array's count", &v) == 0) {
			if (v.kind != VAL_INT || v.u.i <= 0)
				ld_error(L, x.at, "array count must be a positive integer");
			else if ((unsigned long long)v.u.i > MAX_ARRAY_BYTES / elem_size(arg->type))
				/* said before any size is multiplied, so that none wraps */
				ld_error(L, x.at, "array count %lld of %zu-byte elements is over %llu TiB: more than any GPU holds", v.u.i,
					 elem_size(arg->type), MAX_ARRAY_BYTES >> 40);
			else
				arg->count = v.u.i;
		}
		expr_free(x.e);
		if (out)
			ld_bool(L, out, "output", &arg->output);
		if (rest)
			ld_bool(L, rest, "restore", &arg->restore);
		if (con && ld_bool(L, con, "constant", &arg->constant) == 0 && arg->constant && arg->output)
			ld_error(L, ld_mark(con), "a __constant__ argument cannot be an output");
		arg->fill = arg->output ? FILL_ZEROS : FILL_RANDOM;
		arg->copy_of = -1;
		if (fill)
			load_fill(L, arg, fill);
		if (arg->fill == FILL_COPY && fill->type == YAML_MAPPING_NODE)
			copy_from[cfg->nargs - 1] = ld_get(L, fill, "copy");
		if (arg->fill == FILL_CONSTANT) {
			if (!val)
				ld_error(L, ld_mark(fill), "fill: constant needs 'value'");
			else
				ld_double(L, val, "constant fill value", &arg->fill_value);
		} else if (val)
			ld_error(L, ld_mark(val), "'value' goes with fill: constant or with scalars");
		long long s = (long long)index;
		if (seed && ld_int(L, seed, "seed", 0, LLONG_MAX, &s) == 0 && arg->fill != FILL_RANDOM && arg->fill != FILL_NORMAL)
			ld_error(L, ld_mark(seed), "'seed' goes with fill: random or normal");
		arg->seed = (unsigned long long)s;
	}
	if (cfg->nargs == 0)
		ld_error(L, ld_mark(n), "'arguments' is empty; list the kernel's arguments in order");
	resolve_copies(L, copy_from);
	free(copy_from);
	warn_unrestored_inputs(L, n);
}

static void load_launch(loader *L, const yaml_node_t *n)
{
	static const char *const keys[] = {"block", "grid", "shared_mem", NULL};
	if (ld_check_keys(L, n, "'launch'", keys))
		return;
	ld_dims(L, ld_require(L, n, "block", "'launch'"), "launch block", L->cfg->block);
	ld_dims(L, ld_require(L, n, "grid", "'launch'"), "launch grid", L->cfg->grid);
	yaml_node_t *sm = ld_get(L, n, "shared_mem");
	if (sm)
		ld_expr(L, sm, "launch shared_mem", &L->cfg->shared_mem);
}

int config_maxreg_flag(const config *cfg, size_t i, value v, char *buf, size_t len)
{
	if (!cfg->params[i].is_maxreg || (v.kind == VAL_INT && v.u.i == 0))
		return 0;
	char text[64];
	value_format(v, text, sizeof text);
	snprintf(buf, len, "-maxrregcount=%s", text);
	return 1;
}

static void load_build(loader *L, const yaml_node_t *n)
{
	static const char *const keys[] = {"flags", "maxrregcount", "defines", "include", NULL};
	config *cfg = L->cfg;
	if (ld_load_build_keys(L, n, keys))
		return;
	yaml_node_t *flags = ld_get(L, n, "flags"), *inc = ld_get(L, n, "include"), *defs0 = ld_get(L, n, "defines");
	/* room for every flag, include directory and define that may come */
	size_t room = 1 + (flags && flags->type == YAML_SEQUENCE_NODE ? (size_t)(flags->data.sequence.items.top - flags->data.sequence.items.start) : 0) +
		      (inc && inc->type == YAML_SEQUENCE_NODE ? (size_t)(inc->data.sequence.items.top - inc->data.sequence.items.start) : 0) +
		      (defs0 && defs0->type == YAML_SEQUENCE_NODE ? (size_t)(defs0->data.sequence.items.top - defs0->data.sequence.items.start) : 0);
	cfg->nvcc_flags = xcalloc(room, sizeof *cfg->nvcc_flags);
	if (inc && ld_expect(L, inc, YAML_SEQUENCE_NODE, "build include") == 0)
		for (yaml_node_item_t *it = inc->data.sequence.items.start; it < inc->data.sequence.items.top; it++) {
			char *dir = ld_string(L, ld_node(L, *it), "include directory");
			if (!dir || ld_refuse_shell(L, ld_mark(ld_node(L, *it)), "include directory", dir, "rename it (a config's text never reaches a shell)")) {
				free(dir);
				continue;
			}
			/* relative to the config file, like the kernel source */
			const char *slash = strrchr(cfg->path, '/');
			if (dir[0] == '/' || !slash)
				cfg->nvcc_flags[cfg->nflags++] = xasprintf("-I%s", dir);
			else
				cfg->nvcc_flags[cfg->nflags++] = xasprintf("-I%.*s/%s", (int)(slash - cfg->path), cfg->path, dir);
			free(dir);
		}
	cfg->nincludes = cfg->nflags;
	if (flags && ld_expect(L, flags, YAML_SEQUENCE_NODE, "build flags") == 0) {
		size_t count = (size_t)(flags->data.sequence.items.top - flags->data.sequence.items.start);
		for (size_t i = 0; i < count; i++) {
			yaml_node_t *item = ld_node(L, flags->data.sequence.items.start[i]);
			char *f = ld_string(L, item, "build flag");
			if (f && !ld_refuse_shell(L, ld_mark(item), "build flag", f, "leave it out (a config's text never reaches a shell)"))
				cfg->nvcc_flags[cfg->nflags++] = f;
			else
				free(f);
		}
	}
	yaml_node_t *mr = ld_get(L, n, "maxrregcount");
	if (mr) {
		int i = find_param(L, mr, "build maxrregcount");
		if (i >= 0)
			cfg->params[i].is_maxreg = 1;
	}
	yaml_node_t *defs = ld_get(L, n, "defines");
	if (defs && ld_expect(L, defs, YAML_SEQUENCE_NODE, "build defines") == 0)
		for (yaml_node_item_t *it = defs->data.sequence.items.start; it < defs->data.sequence.items.top; it++) {
			yaml_node_t *dn = ld_node(L, *it);
			/* a constant is passed as a fixed -DNAME=value */
			int constant = -1;
			for (size_t k = 0; dn->type == YAML_SCALAR_NODE && k < cfg->nconstants; k++)
				if (!strcmp(cfg->constants[k].name, ld_scalar(dn)))
					constant = (int)k;
			if (constant >= 0) {
				char v[64];
				value_format(cfg->constants[constant].v, v, sizeof v);
				cfg->nvcc_flags[cfg->nflags++] = xasprintf("-D%s=%s", cfg->constants[constant].name, v);
				continue;
			}
			int i = find_param(L, dn, "build defines");
			if (i >= 0)
				cfg->params[i].is_define = 1;
		}
}

/* verify.sum: the output's first `count` elements against the input's sum or a value. */
static void load_verify_sum(loader *L, const yaml_node_t *sum)
{
	config *cfg = L->cfg;
	int *slots[2] = {&cfg->sum_out, &cfg->sum_in};
	const char *names[2] = {"output", "input"};
	yaml_node_t *eq = ld_get(L, sum, "equals"), *op = ld_get(L, sum, "op");
	if (op && ld_expect(L, op, YAML_SCALAR_NODE, "verify sum op") == 0) {
		if (!strcmp(ld_scalar(op), "max") || !strcmp(ld_scalar(op), "sum"))
			cfg->sum_max = !strcmp(ld_scalar(op), "max");
		else
			ld_error(L, ld_mark(op), "verify sum op must be sum or max, not '%s'", ld_scalar(op));
	}
	if (eq && ld_get(L, sum, "input"))
		ld_error(L, ld_mark(eq), "verify sum takes 'input' or 'equals', not both");
	if (eq)
		ld_expr(L, eq, "verify sum equals", &cfg->sum_equals);
	for (int k = 0; k < 2; k++) {
		if (k == 1 && eq)
			continue;
		yaml_node_t *v = ld_require(L, sum, names[k], "verify sum");
		if (!v || ld_expect(L, v, YAML_SCALAR_NODE, names[k]))
			continue;
		for (size_t i = 0; i < cfg->nargs; i++)
			if (cfg->args[i].name && !strcmp(cfg->args[i].name, ld_scalar(v)) && cfg->args[i].is_array)
				*slots[k] = (int)i;
		if (*slots[k] < 0)
			ld_error(L, ld_mark(v), "verify sum %s '%s' is not an array argument", names[k], ld_scalar(v));
	}
	yaml_node_t *c = ld_require(L, sum, "count", "verify sum");
	if (c)
		ld_expr(L, c, "verify sum count", &cfg->sum_count);
	if (cfg->sum_out >= 0 && !cfg->args[cfg->sum_out].output)
		ld_error(L, ld_mark(sum), "verify sum output '%s' must be marked output: true", cfg->args[cfg->sum_out].name);
}

/* verify.kernel: a reference kernel of the same source, launched on its own geometry: its outputs
 * are what every configuration is checked against. n: the verify section. */
static void load_verify_kernel(loader *L, const yaml_node_t *n, const yaml_node_t *rk)
{
	config *cfg = L->cfg;
	yaml_node_t *e = ld_require(L, rk, "entry", "verify kernel");
	if (e && (cfg->ref_entry = ld_string(L, e, "verify kernel entry")) && !ld_is_identifier(cfg->ref_entry))
		ld_error(L, ld_mark(e), "verify kernel entry '%s' is not a C identifier", cfg->ref_entry);
	ld_dims(L, ld_require(L, rk, "block", "verify kernel"), "verify kernel block", cfg->ref_block);
	ld_dims(L, ld_require(L, rk, "grid", "verify kernel"), "verify kernel grid", cfg->ref_grid);
	yaml_node_t *sm = ld_get(L, rk, "shared_mem");
	if (sm)
		ld_expr(L, sm, "verify kernel shared_mem", &cfg->ref_smem);
	for (int i = 0; i < 3; i++) {
		ld_check_names(L, &cfg->ref_block[i], 0, "the reference kernel's block");
		ld_check_names(L, &cfg->ref_grid[i], 0, "the reference kernel's grid");
	}
	ld_check_names(L, &cfg->ref_smem, 0, "the reference kernel's shared_mem");
	if (ld_get(L, n, "reference") || ld_get(L, n, "reference_per"))
		ld_error(L, ld_mark(rk), "verify kernel replaces the reference configuration: not with 'reference' or 'reference_per'");
}

/* The output array argument key k names (a key of verify.expect or verify.expected), or NULL
 * after saying that it is none. */
static kernel_arg *output_named(loader *L, const yaml_node_t *k, const char *what)
{
	config *cfg = L->cfg;
	for (size_t i = 0; k->type == YAML_SCALAR_NODE && i < cfg->nargs; i++)
		if (cfg->args[i].name && !strcmp(cfg->args[i].name, ld_scalar(k)) && cfg->args[i].is_array &&
		    cfg->args[i].output)
			return &cfg->args[i];
	ld_error(L, ld_mark(k), "%s: '%s' is not an output array argument", what,
		 k->type == YAML_SCALAR_NODE ? ld_scalar(k) : "?");
	return NULL;
}

/* verify.expect: output: expression of the element index, exact values. */
static void load_verify_expect(loader *L, const yaml_node_t *exp)
{
	for (yaml_node_pair_t *p = exp->data.mapping.pairs.start; p < exp->data.mapping.pairs.top; p++) {
		kernel_arg *a = output_named(L, ld_node(L, p->key), "verify expect");
		if (a && ld_expr(L, ld_node(L, p->value), "verify expect", &a->expect) == 0)
			ld_check_element_names(L, &a->expect, "verify expect");
	}
}

/* verify.expected: output: a data file of what it must equal, as verify.expect's values. */
static void load_verify_expected(loader *L, const yaml_node_t *exp)
{
	for (yaml_node_pair_t *p = exp->data.mapping.pairs.start; p < exp->data.mapping.pairs.top; p++) {
		yaml_node_t *k = ld_node(L, p->key);
		kernel_arg *a = output_named(L, k, "verify expected");
		if (a && a->expect.e)
			/* the worker holds one set of values an output must equal */
			ld_error(L, ld_mark(k), "verify: '%s' has both expect and expected: give one", a->name);
		else if (a)
			ld_data_file(L, ld_node(L, p->value), a, "verify expected", &a->expected);
	}
}

/* verify.reference: one value per parameter, constants only. */
static void load_verify_reference(loader *L, const yaml_node_t *r)
{
	config *cfg = L->cfg;
	cfg->has_reference = 1;
	cfg->reference_at = ld_mark(r);
	cfg->reference = ld_named_config(L, r, "verify reference");
}

static void load_verify(loader *L, const yaml_node_t *n)
{
	static const char *const keys[] = {"reference", "reference_per", "kernel", "sum", "sample", "expect", "expected", "rtol",
					   "atol", "max_mismatches", "host", NULL};
	static const char *const kernel_keys[] = {"entry", "block", "grid", "shared_mem", NULL};
	static const char *const sum_keys[] = {"output", "input", "equals", "count", "op", NULL};
	config *cfg = L->cfg;
	if (ld_check_keys(L, n, "'verify'", keys))
		return;
	yaml_node_t *sum = ld_get(L, n, "sum");
	if (sum && ld_check_keys(L, sum, "verify sum", sum_keys) == 0)
		load_verify_sum(L, sum);
	yaml_node_t *per = ld_get(L, n, "reference_per");
	if (per && ld_expect(L, per, YAML_SEQUENCE_NODE, "verify reference_per") == 0) {
		size_t count = (size_t)(per->data.sequence.items.top - per->data.sequence.items.start);
		cfg->ref_per = xcalloc(count, sizeof *cfg->ref_per);
		for (yaml_node_item_t *it = per->data.sequence.items.start; it < per->data.sequence.items.top; it++) {
			int i = find_param(L, ld_node(L, *it), "verify reference_per");
			if (i >= 0)
				cfg->ref_per[cfg->nref_per++] = (size_t)i;
		}
		if (ld_get(L, n, "reference"))
			ld_error(L, ld_mark(per), "verify takes 'reference' or 'reference_per', not both");
	}
	yaml_node_t *r = ld_get(L, n, "reference"), *rt = ld_get(L, n, "rtol"), *at = ld_get(L, n, "atol");
	yaml_node_t *rk = ld_get(L, n, "kernel");
	if (rk && ld_check_keys(L, rk, "verify kernel", kernel_keys) == 0)
		load_verify_kernel(L, n, rk);
	yaml_node_t *exp = ld_get(L, n, "expect");
	if (exp && ld_check_keys(L, exp, "verify expect", NULL) == 0)
		load_verify_expect(L, exp);
	yaml_node_t *expd = ld_get(L, n, "expected");
	if (expd && ld_check_keys(L, expd, "verify expected", NULL) == 0)
		load_verify_expected(L, expd);
	if (ld_get(L, n, "host")) /* after expect and expected: it gives the outputs they leave */
		ld_load_verify_host(L, n, ld_get(L, n, "host"));
	yaml_node_t *smp = ld_get(L, n, "sample"), *mm = ld_get(L, n, "max_mismatches");
	if (smp)
		ld_int(L, smp, "verify sample", 1, LLONG_MAX, &cfg->sample);
	if (mm)
		ld_int(L, mm, "verify max_mismatches", 0, LLONG_MAX, &cfg->max_mismatches);
	if (rt && ld_double(L, rt, "rtol", &cfg->rtol) == 0 && cfg->rtol < 0)
		ld_error(L, ld_mark(rt), "rtol must not be negative");
	if (at && ld_double(L, at, "atol", &cfg->atol) == 0 && cfg->atol < 0)
		ld_error(L, ld_mark(at), "atol must not be negative");
	if (!r || ld_check_keys(L, r, "verify reference", NULL))
		return;
	load_verify_reference(L, r);
}

static char *base_name(const char *path)
{
	const char *b = strrchr(path, '/') ? strrchr(path, '/') + 1 : path, *dot = strrchr(b, '.');
	return xasprintf("%.*s", (int)(dot && dot != b ? (size_t)(dot - b) : strlen(b)), b);
}

/* The tuned header's macros: a parameter that would clash with one is said at its place now,
 * not once everything is measured and the header cannot be written. */
static void check_macros(loader *L)
{
	config *cfg = L->cfg;
	if (!cfg->name || !cfg->nparams)
		return;
	char **names = xcalloc(cfg->nparams, sizeof *names);
	for (size_t i = 0; i < cfg->nparams; i++)
		names[i] = cfg->params[i].name;
	size_t at, other;
	char *why = macro_clash(cfg->name, names, cfg->nparams, L->has_plan, &at, &other);
	if (why)
		ld_error(L, cfg->params[at].at, "%s", why);
	free(why);
	free(names);
}

/* Every expression names only what is defined where it is used. */
static void check_all_names(loader *L)
{
	config *cfg = L->cfg;
	ld_check_names(L, &cfg->bytes, 1, "bytes");
	ld_check_names(L, &cfg->sum_count, 1, "verify sum count");
	ld_check_names(L, &cfg->sum_equals, 1, "verify sum equals");
	ld_check_names(L, &cfg->flops, 1, "flops");
	for (size_t i = 0; i < cfg->nargs; i++)
		ld_check_names(L, &cfg->args[i].value, 1, "an argument value");
	for (size_t i = 0; i < cfg->nconstraints; i++)
		ld_check_names(L, &cfg->constraints[i], 1, "a constraint");
	for (int i = 0; i < 3; i++) {
		ld_check_names(L, &cfg->block[i], 1, "the launch block");
		ld_check_names(L, &cfg->grid[i], 1, "the launch grid");
	}
	ld_check_names(L, &cfg->shared_mem, 1, "launch shared_mem");
}

static void load_root(loader *L, const yaml_node_t *root)
{
	static const char *const keys[] = {"name", "kernel", "constants", "arguments", "space", "constraints",
					   "launch", "plan", "build", "verify", "measure", "select", "search", "bytes", "flops", "output",
					   "instances", "metrics", NULL};
	config *cfg = L->cfg;
	if (ld_check_keys(L, root, "the config", keys))
		return;
	yaml_node_t *n;
	if ((n = ld_get(L, root, "name"))) {
		cfg->name = ld_string(L, n, "name");
		if (cfg->name && !ld_is_identifier(cfg->name))
			ld_error(L, ld_mark(n), "name '%s' must be an identifier: it prefixes the header's macros", cfg->name);
	}
	if (!cfg->name) {
		cfg->name = base_name(cfg->path);
		/* the header's macros begin with the name, which the file's cannot always begin: said
		 * now rather than once everything is measured */
		if (*cfg->name >= '0' && *cfg->name <= '9')
			ld_error(L, ld_mark(root), "no name: given, and the file's name '%s' cannot begin the tuned header's macros "
					       "(it starts with a digit): add name: to the config",
				 cfg->name);
	}
	L->has_plan = ld_get(L, root, "plan") != NULL;
	if ((n = ld_require(L, root, "kernel", "the config")))
		load_kernel(L, n);
	/* Order matters: constants before everything that uses them, the space before the
	 * expressions that may name its parameters. */
	if ((n = ld_get(L, root, "instances")))
		ld_load_instances(L, n);
	if ((n = ld_get(L, root, "constants")))
		load_constants(L, n);
	ld_check_instances(L);
	if ((n = ld_require(L, root, "space", "the config")))
		load_space(L, n);
	if ((n = ld_require(L, root, "arguments", "the config")))
		load_arguments(L, n);
	if ((n = ld_get(L, root, "constraints")) && ld_expect(L, n, YAML_SEQUENCE_NODE, "'constraints'") == 0 &&
	    !ld_comma_cut(L, n, "constraints")) {
		size_t count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
		cfg->constraints = xcalloc(count, sizeof *cfg->constraints);
		for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++)
			if (ld_expr(L, ld_node(L, *it), "constraint", &cfg->constraints[cfg->nconstraints]) == 0)
				cfg->nconstraints++;
	}
	if ((n = L->has_plan ? ld_get(L, root, "launch") : ld_require(L, root, "launch", "the config")))
		load_launch(L, n);
	if ((n = ld_get(L, root, "build")))
		load_build(L, n);
	if ((n = ld_get(L, root, "verify")))
		load_verify(L, n);
	if ((n = ld_get(L, root, "measure")))
		ld_load_measure(L, n);
	if ((n = ld_get(L, root, "select")))
		ld_load_select(L, n);
	if ((n = ld_get(L, root, "search")))
		ld_load_search(L, n);
	if ((n = ld_get(L, root, "bytes")))
		ld_expr(L, n, "bytes", &cfg->bytes);
	if ((n = ld_get(L, root, "flops")))
		ld_expr(L, n, "flops", &cfg->flops);
	if ((n = ld_get(L, root, "output")))
		ld_load_output(L, n);
	ld_load_objective(L, root); /* after select, bytes and flops, whose names it may use */
	if ((n = ld_get(L, root, "plan"))) /* last: it overrides measure.metrics */
		ld_load_plan(L, root, n);
	check_macros(L);
	check_all_names(L);
	ld_check_entry(L);
	ld_scan_pragmas(L);
	ld_check_params_used(L);
	if (!cfg->csv_path)
		cfg->csv_path = xasprintf("results/%s.csv", cfg->name);
	if (!cfg->header_path)
		cfg->header_path = xasprintf("results/%s_tuned.h", cfg->name);
}

static int config_load_as(const char *path, int quiet, long instance, config *cfg, diags *d)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->path = xstrdup(path);
	cfg->instance = instance;
	cfg->rtol = NAN;
	cfg->atol = NAN;
	for (const key_table *t = config_key_tables; t->section; t++)
		ld_plain_defaults(cfg, t->rows, t->n);
	cfg->metrics = METRICS_AUTO;
	cfg->metrics_top = 10;
	cfg->sum_out = cfg->sum_in = -1;

	yaml_document_t doc;
	int rc = -1;
	if (document_read(path, "YAML", &doc, d) == 0) {
		yaml_node_t *root = yaml_document_get_root_node(&doc);
		loader L = {.file = path, .doc = &doc, .d = d, .cfg = cfg, .quiet = quiet, .instance = instance};
		if (!root)
			diags_at(d, path, 1, 1, "the file is empty");
		else {
			load_root(&L, root);
			rc = L.errors ? -1 : 0;
		}
		for (size_t i = 0; i < L.nfailed; i++)
			free(L.failed[i]);
		free(L.failed);
		yaml_document_delete(&doc);
	}
	if (rc)
		config_free(cfg);
	return rc;
}

int config_load(const char *path, config *cfg, diags *d) { return config_load_as(path, 0, -1, cfg, d); }
int config_load_quietly(const char *path, config *cfg, diags *d) { return config_load_as(path, 1, -1, cfg, d); }
int config_load_instance(const char *path, size_t i, config *cfg, diags *d) { return config_load_as(path, 1, (long)i, cfg, d); }

static void cexpr_free(cexpr *x)
{
	expr_free(x->e);
	x->e = NULL;
}

void config_free(config *cfg)
{
	diags_free(&cfg->warnings);
	free(cfg->path);
	free(cfg->name);
	free(cfg->source);
	free(cfg->entry);
	free(cfg->arch);
	for (size_t i = 0; i < cfg->nconstants; i++)
		free(cfg->constants[i].name);
	free(cfg->constants);
	for (size_t i = 0; i < cfg->nargs; i++) {
		free(cfg->args[i].name);
		cexpr_free(&cfg->args[i].value);
		cexpr_free(&cfg->args[i].fill_expr);
		cexpr_free(&cfg->args[i].expect);
	}
	config_data_free(cfg);
	config_plan_free(cfg);
	config_instances_free(cfg);
	free(cfg->args);
	for (size_t i = 0; i < cfg->nparams; i++) {
		free(cfg->params[i].name);
		for (size_t k = 0; k < cfg->params[i].nvalues; k++)
			if (cfg->params[i].values[k].kind == VAL_STR)
				free((char *)cfg->params[i].values[k].u.s);
		free(cfg->params[i].values);
	}
	free(cfg->params);
	for (size_t i = 0; i < cfg->nconstraints; i++)
		cexpr_free(&cfg->constraints[i]);
	free(cfg->constraints);
	for (int i = 0; i < 3; i++) {
		cexpr_free(&cfg->block[i]);
		cexpr_free(&cfg->grid[i]);
		cexpr_free(&cfg->ref_block[i]);
		cexpr_free(&cfg->ref_grid[i]);
	}
	objective_config_free(cfg);
	cexpr *own[] = {&cfg->bytes, &cfg->sum_count, &cfg->sum_equals, &cfg->flops, &cfg->ref_smem, &cfg->shared_mem};
	for (size_t i = 0; i < sizeof own / sizeof *own; i++)
		cexpr_free(own[i]);
	for (size_t i = 0; i < cfg->nflags; i++)
		free(cfg->nvcc_flags[i]);
	free(cfg->nvcc_flags);
	free(cfg->reference);
	free(cfg->baseline);
	free(cfg->ref_per);
	free(cfg->ref_entry);
	free(cfg->csv_path);
	free(cfg->header_path);
	free(cfg->search_strategy);
	free(cfg->search_budget);
	memset(cfg, 0, sizeof *cfg);
}
