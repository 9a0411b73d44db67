/* config.c: loads a tuning problem from YAML (libyaml's document API), checks it against the
 * schema and parses every expression, keeping the position of each value for messages. */
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

#include "banned.h"

/* a CUDA source is kilobytes; past this it is something else (/dev/zero, a disk image) */
#define MAX_SOURCE_BYTES (64ul << 20)

static const char *const fill_names[] = {"random", "constant", "zeros", "normal", "index", "copy", "expr"};
const char *fill_name(fill_kind f) { return fill_names[f]; }

/* The loader's state: the document, where errors go, and whether any happened. */
typedef struct {
	const char *file;
	yaml_document_t *doc;
	diags *d;
	int errors;
	config *cfg;
	int source_ok; /* the kernel source is a file that can be read without waiting */
} loader;

static mark mark_of(const yaml_node_t *n)
{
	mark m = {(int)n->start_mark.line + 1, (int)n->start_mark.column + 1};
	return m;
}

static void err_at(loader *L, mark m, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void err_at(loader *L, mark m, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	diags_at(L->d, L->file, m.line, m.col, "%s", buf);
	L->errors++;
}

static yaml_node_t *node(loader *L, int id) { return yaml_document_get_node(L->doc, id); }

static const char *kind_name(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE: return "a scalar";
	case YAML_SEQUENCE_NODE: return "a list";
	case YAML_MAPPING_NODE: return "a mapping";
	default: return "nothing";
	}
}

static const char *scalar(const yaml_node_t *n) { return (const char *)n->data.scalar.value; }

static int expect(loader *L, const yaml_node_t *n, yaml_node_type_t t, const char *what)
{
	if (n->type == t)
		return 0;
	const char *want = t == YAML_SCALAR_NODE ? "a scalar" : t == YAML_SEQUENCE_NODE ? "a list" : "a mapping";
	err_at(L, mark_of(n), "%s must be %s, not %s", what, want, kind_name(n));
	return -1;
}

/* Edit distance, for "did you mean" on unknown keys. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row = xcalloc(lb + 1, sizeof *row);
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	size_t r = row[lb];
	free(row);
	return r;
}

/* Reports unknown keys (with the nearest valid one) and duplicate keys, which libyaml accepts
 * silently. Returns -1 if n is not a mapping. */
static int check_keys(loader *L, const yaml_node_t *n, const char *what, const char *const *allowed)
{
	if (expect(L, n, YAML_MAPPING_NODE, what))
		return -1;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(L, p->key);
		if (k->type != YAML_SCALAR_NODE) {
			err_at(L, mark_of(k), "keys in %s must be plain names", what);
			continue;
		}
		for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < p; q++) {
			yaml_node_t *k2 = node(L, q->key);
			if (k2->type == YAML_SCALAR_NODE && !strcmp(scalar(k2), scalar(k))) {
				mark m = mark_of(k2);
				err_at(L, mark_of(k), "duplicate key '%s' (first at line %d, column %d)", scalar(k), m.line, m.col);
				break;
			}
		}
		if (!allowed)
			continue;
		const char *best = NULL;
		size_t bestd = (size_t)-1;
		int known = 0;
		for (const char *const *a = allowed; *a; a++) {
			if (!strcmp(*a, scalar(k))) {
				known = 1;
				break;
			}
			size_t dd = distance(*a, scalar(k));
			/* a truncated key ("shared" for "shared_mem") is as good as a near miss */
			if (strlen(scalar(k)) >= 3 && !strncmp(*a, scalar(k), strlen(scalar(k))))
				dd = 1;
			if (dd < bestd) {
				bestd = dd;
				best = *a;
			}
		}
		if (known)
			continue;
		if (best && bestd <= 2 + strlen(scalar(k)) / 4)
			err_at(L, mark_of(k), "unknown key '%s' in %s; did you mean '%s'?", scalar(k), what, best);
		else {
			char list[256] = "";
			size_t used = 0;
			for (const char *const *a = allowed; *a && used < sizeof list; a++)
				used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", a == allowed ? "" : ", ", *a);
			err_at(L, mark_of(k), "unknown key '%s' in %s (valid keys: %s)", scalar(k), what, list);
		}
	}
	return 0;
}

static yaml_node_t *get(loader *L, const yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(L, p->key);
		if (k->type == YAML_SCALAR_NODE && !strcmp(scalar(k), key))
			return node(L, p->value);
	}
	return NULL;
}

static yaml_node_t *require(loader *L, const yaml_node_t *map, const char *key, const char *what)
{
	yaml_node_t *v = get(L, map, key);
	if (!v)
		err_at(L, mark_of(map), "%s is missing the required key '%s'", what, key);
	return v;
}

static char *get_string(loader *L, const yaml_node_t *n, const char *what)
{
	if (!n || expect(L, n, YAML_SCALAR_NODE, what))
		return NULL;
	if (!*scalar(n)) {
		err_at(L, mark_of(n), "%s must not be empty", what);
		return NULL;
	}
	return xstrdup(scalar(n));
}

static int is_identifier(const char *s)
{
	if (!(*s == '_' || (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')))
		return 0;
	for (s++; *s; s++)
		if (!(*s == '_' || (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
			return 0;
	return 1;
}

/* Strict number parsing: the whole text, no overflow (libyaml gives every scalar as a string). */
static int get_int(loader *L, const yaml_node_t *n, const char *what, long long lo, long long hi, long long *out)
{
	if (!n || expect(L, n, YAML_SCALAR_NODE, what))
		return -1;
	const char *s = scalar(n);
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 0);
	if (end == s || *end || errno == ERANGE) {
		err_at(L, mark_of(n), "%s must be an integer, not '%s'", what, s);
		return -1;
	}
	if (v < lo || v > hi) {
		err_at(L, mark_of(n), "%s must be between %lld and %lld, not %lld", what, lo, hi, v);
		return -1;
	}
	*out = v;
	return 0;
}

static int get_double(loader *L, const yaml_node_t *n, const char *what, double *out)
{
	if (!n || expect(L, n, YAML_SCALAR_NODE, what))
		return -1;
	const char *s = scalar(n);
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end || errno == ERANGE || !isfinite(v)) {
		err_at(L, mark_of(n), "%s must be a number, not '%s'", what, s);
		return -1;
	}
	*out = v;
	return 0;
}

static int get_bool(loader *L, const yaml_node_t *n, const char *what, int *out)
{
	if (!n || expect(L, n, YAML_SCALAR_NODE, what))
		return -1;
	const char *s = scalar(n);
	if (!strcmp(s, "true") || !strcmp(s, "yes")) {
		*out = 1;
		return 0;
	}
	if (!strcmp(s, "false") || !strcmp(s, "no")) {
		*out = 0;
		return 0;
	}
	err_at(L, mark_of(n), "%s must be true or false, not '%s'", what, s);
	return -1;
}

/* Column of byte `offset` of a scalar's text: quoted scalars start one column after the quote. */
static mark expr_mark(const yaml_node_t *n, int offset)
{
	mark m = mark_of(n);
	int quoted = n->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
		     n->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
	m.col += offset + quoted;
	return m;
}

static int get_expr(loader *L, const yaml_node_t *n, const char *what, cexpr *out)
{
	if (!n || expect(L, n, YAML_SCALAR_NODE, what))
		return -1;
	expr_error ee;
	expr *e = expr_parse(scalar(n), &ee);
	if (!e) {
		err_at(L, expr_mark(n, ee.offset), "%s: %s", what, ee.msg);
		return -1;
	}
	out->e = e;
	out->at = expr_mark(n, 0);
	return 0;
}

int scope_lookup(void *ctx, const char *name, value *out)
{
	const scope *s = ctx;
	for (size_t i = 0; i < s->cfg->nconstants; i++)
		if (!strcmp(s->cfg->constants[i].name, name)) {
			*out = s->cfg->constants[i].v;
			return 0;
		}
	if (s->params)
		for (size_t i = 0; i < s->cfg->nparams; i++)
			if (!strcmp(s->cfg->params[i].name, name)) {
				*out = s->params[i];
				return 0;
			}
	return -1;
}

int cexpr_eval(const config *cfg, const cexpr *x, const value *params, value *out, diags *d, const char *what_for)
{
	scope s = {cfg, params};
	expr_error ee;
	if (expr_eval(x->e, scope_lookup, &s, out, &ee) == 0)
		return 0;
	if (what_for)
		diags_at(d, cfg->path, x->at.line, x->at.col + ee.offset, "%s (for %s)", ee.msg, what_for);
	else
		diags_at(d, cfg->path, x->at.line, x->at.col + ee.offset, "%s", ee.msg);
	return -1;
}

/* Expressions are checked for unknown names once, at load, against constants and (where
 * allowed) parameters, so a typo is reported before anything runs. */
typedef struct {
	loader *L;
	const cexpr *x;
	int allow_params;
	const char *what;
} name_check;

static int check_name(void *ctx, const char *name, int offset)
{
	name_check *c = ctx;
	config *cfg = c->L->cfg;
	for (size_t i = 0; i < cfg->nconstants; i++)
		if (!strcmp(cfg->constants[i].name, name))
			return 0;
	for (size_t i = 0; i < cfg->nparams; i++)
		if (!strcmp(cfg->params[i].name, name)) {
			if (c->allow_params)
				return 0;
			mark m = {c->x->at.line, c->x->at.col + offset};
			err_at(c->L, m, "%s may use constants only, but '%s' is a parameter", c->what, name);
			return 0;
		}
	mark m = {c->x->at.line, c->x->at.col + offset};
	err_at(c->L, m, "unknown name '%s' in %s", name, c->what);
	return 0;
}

static void check_names(loader *L, const cexpr *x, int allow_params, const char *what)
{
	if (!x->e)
		return;
	name_check c = {L, x, allow_params, what};
	expr_foreach_name(x->e, check_name, &c);
}

/* Evaluates an expression that may use constants only, at load time. */
static int eval_const(loader *L, const cexpr *x, const char *what, value *out)
{
	int before = L->errors;
	check_names(L, x, 0, what);
	if (L->errors != before)
		return -1;
	if (cexpr_eval(L->cfg, x, NULL, out, L->d, NULL)) {
		L->errors++;
		return -1;
	}
	return 0;
}

/* Element expressions may use the element index i, the vector lane and constants. */
static int element_lookup(void *ctx, const char *name, value *out)
{
	const long long *il = ctx;
	if (!strcmp(name, "i")) {
		*out = value_int(il[0]);
		return 0;
	}
	if (!strcmp(name, "lane")) {
		*out = value_int(il[1]);
		return 0;
	}
	return -1;
}

typedef struct {
	loader *L;
	const cexpr *x;
	const char *what;
} element_check;

static int check_element_name(void *ctx, const char *name, int offset)
{
	element_check *c = ctx;
	if (!strcmp(name, "i") || !strcmp(name, "lane"))
		return 0;
	for (size_t k = 0; k < c->L->cfg->nconstants; k++)
		if (!strcmp(c->L->cfg->constants[k].name, name))
			return 0;
	mark m = {c->x->at.line, c->x->at.col + offset};
	err_at(c->L, m, "unknown name '%s' in %s (it may use i, lane and constants)", name, c->what);
	return 0;
}

static void check_element_names(loader *L, const cexpr *x, const char *what)
{
	element_check c = {L, x, what};
	expr_foreach_name(x->e, check_element_name, &c);
}

typedef struct {
	const config *cfg;
	long long il[2];
} element_scope;

static int element_scope_lookup(void *ctx, const char *name, value *out)
{
	element_scope *s = ctx;
	if (element_lookup(s->il, name, out) == 0)
		return 0;
	scope sc = {s->cfg, NULL};
	return scope_lookup(&sc, name, out);
}

int element_eval(const config *cfg, const cexpr *x, long long i, int lane, value *out)
{
	element_scope s = {cfg, {i, lane}};
	expr_error ee;
	return expr_eval(x->e, element_scope_lookup, &s, out, &ee);
}

static int parse_elem(loader *L, const yaml_node_t *n, elem_type *out)
{
	if (!n || expect(L, n, YAML_SCALAR_NODE, "type"))
		return -1;
	if (elem_parse(scalar(n), out) == 0)
		return 0;
	err_at(L, mark_of(n), "unknown type '%s' (known: int8, int16, int32, int64, uint8, uint16, uint32, uint64, float, double, "
	       "and the vector types int2..4, uint2..4, float2..4, double2..4)", scalar(n));
	return -1;
}

static void load_kernel(loader *L, const yaml_node_t *n)
{
	static const char *const keys[] = {"source", "entry", "arch", NULL};
	config *cfg = L->cfg;
	if (check_keys(L, n, "'kernel'", keys))
		return;
	yaml_node_t *src = require(L, n, "source", "'kernel'");
	char *s = get_string(L, src, "kernel source");
	if (s) {
		cfg->source_at = mark_of(src);
		const char *slash = strrchr(cfg->path, '/');
		if (s[0] == '/' || !slash)
			cfg->source = s;
		else {
			cfg->source = xasprintf("%.*s/%s", (int)(slash - cfg->path), cfg->path, s);
			free(s);
		}
		struct stat st;
		if (access(cfg->source, R_OK) || stat(cfg->source, &st))
			err_at(L, cfg->source_at, "cannot read kernel source '%s': %s", cfg->source, strerror(errno));
		else if (S_ISDIR(st.st_mode))
			err_at(L, cfg->source_at, "kernel source '%s' is a directory", cfg->source);
		else if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
			/* reading one would wait for a writer that may never come */
			err_at(L, cfg->source_at, "kernel source '%s' is a pipe or a socket, not a file", cfg->source);
		else
			L->source_ok = 1;
	}
	yaml_node_t *entry = require(L, n, "entry", "'kernel'");
	if (entry && (cfg->entry = get_string(L, entry, "kernel entry"))) {
		cfg->entry_at = mark_of(entry);
		/* placeholders are checked once the parameters are known */
		if (!strstr(cfg->entry, "${") && !is_identifier(cfg->entry))
			err_at(L, cfg->entry_at, "kernel entry '%s' is not a C identifier", cfg->entry);
	}
	yaml_node_t *arch = get(L, n, "arch");
	if (arch && (cfg->arch = get_string(L, arch, "kernel arch"))) {
		int major, minor;
		char tail;
		if (sscanf(cfg->arch, "sm_%1d%1d%c", &major, &minor, &tail) != 2)
			err_at(L, mark_of(arch), "arch must look like sm_90, not '%s'", cfg->arch);
	}
}

/* A name that expressions can use must be an identifier and must not shadow another. */
static int check_new_name(loader *L, const yaml_node_t *k, const char *what)
{
	const char *s = scalar(k);
	config *cfg = L->cfg;
	if (!is_identifier(s)) {
		err_at(L, mark_of(k), "%s name '%s' is not an identifier", what, s);
		return -1;
	}
	static const char *const funcs[] = {"min", "max", "ceil_div", "abs", NULL};
	for (const char *const *f = funcs; *f; f++)
		if (!strcmp(*f, s)) {
			err_at(L, mark_of(k), "%s name '%s' is a built-in function", what, s);
			return -1;
		}
	for (size_t i = 0; i < cfg->nconstants; i++)
		if (!strcmp(cfg->constants[i].name, s)) {
			err_at(L, mark_of(k), "%s '%s' is already a constant (line %d)", what, s, cfg->constants[i].at.line);
			return -1;
		}
	for (size_t i = 0; i < cfg->nparams; i++)
		if (!strcmp(cfg->params[i].name, s)) {
			err_at(L, mark_of(k), "%s '%s' is already a parameter (line %d)", what, s, cfg->params[i].at.line);
			return -1;
		}
	return 0;
}

static void load_constants(loader *L, const yaml_node_t *n)
{
	config *cfg = L->cfg;
	if (check_keys(L, n, "'constants'", NULL))
		return;
	size_t count = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	cfg->constants = xcalloc(count, sizeof *cfg->constants);
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(L, p->key), *v = node(L, p->value);
		if (k->type != YAML_SCALAR_NODE || check_new_name(L, k, "constant"))
			continue;
		cexpr x = {0};
		value val;
		char what[128];
		snprintf(what, sizeof what, "constant '%s'", scalar(k));
		if (get_expr(L, v, what, &x) == 0 && eval_const(L, &x, what, &val) == 0) {
			constant *c = &cfg->constants[cfg->nconstants++];
			c->name = xstrdup(scalar(k));
			c->v = val;
			c->at = mark_of(k);
		}
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
			err_at(L, mark_of(v), "parameter '%s' has no values", p->name);
		for (yaml_node_item_t *it = items; it < end; it++) {
			cexpr x = {0};
			value val;
			if (get_expr(L, node(L, *it), what, &x) == 0 && eval_const(L, &x, what, &val) == 0) {
				grow(&p->values, &cap, p->nvalues + 1, sizeof *p->values);
				p->values[p->nvalues++] = val;
			}
			expr_free(x.e);
		}
		return;
	}
	static const char *const keys[] = {"start", "stop", "step", "pow2", NULL};
	snprintf(what, sizeof what, "range of parameter '%s'", p->name);
	if (check_keys(L, v, what, keys))
		return;
	long long start, stop, step = 1;
	int pow2 = 0;
	yaml_node_t *ns = require(L, v, "start", what), *ne = require(L, v, "stop", what);
	yaml_node_t *nstep = get(L, v, "step"), *np = get(L, v, "pow2");
	if (!ns || !ne || get_int(L, ns, "start", LLONG_MIN / 4, LLONG_MAX / 4, &start) ||
	    get_int(L, ne, "stop", LLONG_MIN / 4, LLONG_MAX / 4, &stop))
		return;
	if (nstep && np) {
		err_at(L, mark_of(np), "a range takes 'step' or 'pow2', not both");
		return;
	}
	if (nstep && get_int(L, nstep, "step", 1, LLONG_MAX / 4, &step))
		return;
	if (np && get_bool(L, np, "pow2", &pow2))
		return;
	if (pow2 && start <= 0) {
		err_at(L, mark_of(ns), "a pow2 range must start above 0");
		return;
	}
	if (stop < start) {
		err_at(L, mark_of(ne), "range stop %lld is below start %lld", stop, start);
		return;
	}
	if (!pow2 && (stop - start) / step >= 1000000) {
		err_at(L, mark_of(v), "range of parameter '%s' has over a million values", p->name);
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
	if (check_keys(L, n, "'space'", NULL))
		return;
	size_t count = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	if (count == 0)
		err_at(L, mark_of(n), "'space' has no parameters");
	cfg->params = xcalloc(count, sizeof *cfg->params);
	for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = node(L, pr->key), *v = node(L, pr->value);
		if (k->type != YAML_SCALAR_NODE || check_new_name(L, k, "parameter"))
			continue;
		param *p = &cfg->params[cfg->nparams++];
		p->name = xstrdup(scalar(k));
		p->at = mark_of(k);
		load_param_values(L, v, p);
	}
}

static int find_param(loader *L, const yaml_node_t *n, const char *what)
{
	if (!n || expect(L, n, YAML_SCALAR_NODE, what))
		return -1;
	for (size_t i = 0; i < L->cfg->nparams; i++)
		if (!strcmp(L->cfg->params[i].name, scalar(n)))
			return (int)i;
	err_at(L, mark_of(n), "%s names '%s', which is not a parameter of the space%s", what, scalar(n),
	       !strcmp(what, "build defines") ? " or a constant" : "");
	return -1;
}

/* An output that starts from data of its own (any fill but zeros) is an input too: without restore
 * every launch after the first starts from the last one's results, so the timed samples run on
 * other data than the verified launch, and an accumulating kernel fails verification. Legal
 * (the kernel may only write it), so a warning, printed as the loader finds it. */
static void warn_unrestored_inputs(loader *L, const yaml_node_t *list)
{
	if (L->errors)
		return; /* the config is refused anyway, and args may not line up with the list's items */
	for (size_t i = 0; i < L->cfg->nargs; i++) {
		const kernel_arg *a = &L->cfg->args[i];
		if (!a->is_array || !a->output || a->restore || a->fill == FILL_ZEROS)
			continue;
		const yaml_node_t *item = node(L, list->data.sequence.items.start[i]), *fill = get(L, item, "fill");
		mark m = fill ? mark_of(fill) : a->at;
		fprintf(stderr, "%s:%d:%d: warning: '%s' is an output with a fill of its own, so the kernel may read it: "
				"without 'restore: true' each launch after the first starts from the last one's results "
				"(if the kernel only writes it, drop the fill)\n",
			L->file, m.line, m.col, a->name ? a->name : "?");
	}
}

static void load_arguments(loader *L, const yaml_node_t *n)
{
	static const char *const keys[] = {"name", "type", "count", "fill", "value", "seed", "output", "restore",
					   "constant", NULL};
	config *cfg = L->cfg;
	if (expect(L, n, YAML_SEQUENCE_NODE, "'arguments'"))
		return;
	size_t count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	cfg->args = xcalloc(count, sizeof *cfg->args);
	size_t index = 0;
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		yaml_node_t *a = node(L, *it);
		char what[96];
		snprintf(what, sizeof what, "argument %zu", ++index);
		if (check_keys(L, a, what, keys))
			continue;
		kernel_arg *arg = &cfg->args[cfg->nargs++];
		arg->at = mark_of(a);
		arg->name = get_string(L, require(L, a, "name", what), "argument name");
		parse_elem(L, require(L, a, "type", what), &arg->type);
		yaml_node_t *cnt = get(L, a, "count"), *fill = get(L, a, "fill"), *val = get(L, a, "value");
		yaml_node_t *seed = get(L, a, "seed"), *out = get(L, a, "output"), *rest = get(L, a, "restore");
		yaml_node_t *con = get(L, a, "constant");
		arg->is_array = cnt != NULL;
		if (!arg->is_array) {
			if (fill || seed || out || rest)
				err_at(L, mark_of(fill ? fill : seed ? seed : out ? out : rest),
				       "%s is a scalar (it has no 'count'), so it takes no fill, seed, output or restore", what);
			if (!val)
				err_at(L, arg->at, "%s needs 'value' (a scalar) or 'count' (a device array)", what);
			else
				get_expr(L, val, "argument value", &arg->value);
			if (elem_lanes(arg->type) > 1)
				err_at(L, arg->at, "%s: a scalar of vector type %s is not supported; pass its components", what,
				       elem_name(arg->type));
			continue;
		}
		cexpr x = {0};
		value v;
		if (get_expr(L, cnt, "argument count", &x) == 0 && eval_const(L, &x, "an array's count", &v) == 0) {
			if (v.kind != VAL_INT || v.u.i <= 0)
				err_at(L, x.at, "array count must be a positive integer");
			else
				arg->count = v.u.i;
		}
		expr_free(x.e);
		if (out)
			get_bool(L, out, "output", &arg->output);
		if (rest)
			get_bool(L, rest, "restore", &arg->restore);
		if (con && get_bool(L, con, "constant", &arg->constant) == 0 && arg->constant && arg->output)
			err_at(L, mark_of(con), "a __constant__ argument cannot be an output");
		arg->fill = arg->output ? FILL_ZEROS : FILL_RANDOM;
		arg->copy_of = -1;
		if (fill && fill->type == YAML_MAPPING_NODE && get(L, fill, "expr")) {
			/* fill: {expr: ...}: a value per element, computed from its index */
			static const char *const expr_keys[] = {"expr", NULL};
			arg->fill = FILL_EXPR;
			if (check_keys(L, fill, "fill", expr_keys) == 0 &&
			    get_expr(L, get(L, fill, "expr"), "fill expr", &arg->fill_expr) == 0)
				check_element_names(L, &arg->fill_expr, "fill expr");
		} else if (fill && fill->type == YAML_MAPPING_NODE) {
			/* fill: {copy: NAME}: starts as a copy of an earlier array of the same type */
			static const char *const copy_keys[] = {"copy", NULL};
			yaml_node_t *from = check_keys(L, fill, "fill", copy_keys) == 0 ? require(L, fill, "copy", "fill") : NULL;
			arg->fill = FILL_COPY;
			if (from && expect(L, from, YAML_SCALAR_NODE, "fill copy") == 0) {
				for (size_t i = 0; i + 1 < cfg->nargs; i++)
					if (cfg->args[i].name && !strcmp(cfg->args[i].name, scalar(from)) && cfg->args[i].is_array)
						arg->copy_of = (int)i;
				if (arg->copy_of < 0)
					err_at(L, mark_of(from), "fill copy: '%s' is not an array argument listed before this one", scalar(from));
				else if (cfg->args[arg->copy_of].type != arg->type)
					err_at(L, mark_of(from), "fill copy: '%s' has another element type", scalar(from));
			}
		} else if (fill && expect(L, fill, YAML_SCALAR_NODE, "fill") == 0) {
			int found = 0;
			for (int f = 0; f < 5; f++)
				if (!strcmp(scalar(fill), fill_names[f])) {
					arg->fill = (fill_kind)f;
					found = 1;
				}
			if (!found)
				err_at(L, mark_of(fill), "unknown fill '%s' (known: random, normal, constant, zeros, index, {copy: NAME}, {expr: ...})",
				       scalar(fill));
		}
		if (arg->fill == FILL_CONSTANT) {
			if (!val)
				err_at(L, mark_of(fill), "fill: constant needs 'value'");
			else
				get_double(L, val, "constant fill value", &arg->fill_value);
		} else if (val)
			err_at(L, mark_of(val), "'value' goes with fill: constant or with scalars");
		long long s = (long long)index;
		if (seed && get_int(L, seed, "seed", 0, LLONG_MAX, &s) == 0 && arg->fill != FILL_RANDOM && arg->fill != FILL_NORMAL)
			err_at(L, mark_of(seed), "'seed' goes with fill: random or normal");
		arg->seed = (unsigned long long)s;
	}
	if (cfg->nargs == 0)
		err_at(L, mark_of(n), "'arguments' is empty; list the kernel's arguments in order");
	warn_unrestored_inputs(L, n);
}

/* Parentheses opened minus closed in a plain scalar's text (0 for a quoted one). */
static int open_parens(const yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	int depth = 0;
	for (const char *c = scalar(n); *c; c++)
		depth += (*c == '(') - (*c == ')');
	return depth;
}

/* Inside [ ] a bare comma ends an item, so [ceil_div(n, B)] arrives as "ceil_div(n" and "B)":
 * the first item whose parentheses stay open is joined back to its close, and the message shows
 * the expression to quote. 1 when it found one. */
static int comma_cut_expression(loader *L, const yaml_node_t *n, const char *what)
{
	if (n->data.sequence.style != YAML_FLOW_SEQUENCE_STYLE)
		return 0;
	yaml_node_item_t *items = n->data.sequence.items.start, *end = n->data.sequence.items.top;
	for (yaml_node_item_t *it = items; it < end; it++) {
		int depth = open_parens(node(L, *it));
		if (depth <= 0)
			continue;
		char *joined = xstrdup(scalar(node(L, *it)));
		for (yaml_node_item_t *more = it + 1; more < end && depth > 0; more++) {
			const yaml_node_t *m = node(L, *more);
			char *longer = xasprintf("%s, %s", joined, m->type == YAML_SCALAR_NODE ? scalar(m) : "...");
			free(joined);
			joined = longer;
			depth += open_parens(m);
		}
		err_at(L, mark_of(node(L, *it)), "%s: inside [ ] a comma ends an item, which cut this expression in two: "
			  "quote it whole, \"%s\"", what, joined);
		free(joined);
		return 1;
	}
	return 0;
}

static void load_dims(loader *L, const yaml_node_t *n, const char *what, cexpr dims[3])
{
	if (!n || expect(L, n, YAML_SEQUENCE_NODE, what) || comma_cut_expression(L, n, what))
		return;
	size_t count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	if (count < 1 || count > 3) {
		err_at(L, mark_of(n), "%s takes 1 to 3 expressions (x, y, z), not %zu%s", what, count,
		       n->data.sequence.style == YAML_FLOW_SEQUENCE_STYLE && count > 3
			       ? " (inside [ ] a comma ends an item: quote expressions such as \"min(a, b)\")" : "");
		return;
	}
	for (size_t i = 0; i < count; i++)
		get_expr(L, node(L, n->data.sequence.items.start[i]), what, &dims[i]);
}

static void load_launch(loader *L, const yaml_node_t *n)
{
	static const char *const keys[] = {"block", "grid", "shared_mem", NULL};
	if (check_keys(L, n, "'launch'", keys))
		return;
	load_dims(L, require(L, n, "block", "'launch'"), "launch block", L->cfg->block);
	load_dims(L, require(L, n, "grid", "'launch'"), "launch grid", L->cfg->grid);
	yaml_node_t *sm = get(L, n, "shared_mem");
	if (sm)
		get_expr(L, sm, "launch shared_mem", &L->cfg->shared_mem);
}

static void load_build(loader *L, const yaml_node_t *n)
{
	static const char *const keys[] = {"flags", "maxrregcount", "defines", "include", NULL};
	config *cfg = L->cfg;
	if (check_keys(L, n, "'build'", keys))
		return;
	yaml_node_t *flags = get(L, n, "flags"), *inc = get(L, n, "include"), *defs0 = get(L, n, "defines");
	/* room for every flag, include directory and define that may come */
	size_t room = 1 + (flags && flags->type == YAML_SEQUENCE_NODE ? (size_t)(flags->data.sequence.items.top - flags->data.sequence.items.start) : 0) +
		      (inc && inc->type == YAML_SEQUENCE_NODE ? (size_t)(inc->data.sequence.items.top - inc->data.sequence.items.start) : 0) +
		      (defs0 && defs0->type == YAML_SEQUENCE_NODE ? (size_t)(defs0->data.sequence.items.top - defs0->data.sequence.items.start) : 0);
	cfg->nvcc_flags = xcalloc(room, sizeof *cfg->nvcc_flags);
	if (inc && expect(L, inc, YAML_SEQUENCE_NODE, "build include") == 0)
		for (yaml_node_item_t *it = inc->data.sequence.items.start; it < inc->data.sequence.items.top; it++) {
			char *dir = get_string(L, node(L, *it), "include directory");
			if (!dir)
				continue;
			/* relative to the config file, like the kernel source */
			const char *slash = strrchr(cfg->path, '/');
			if (dir[0] == '/' || !slash)
				cfg->nvcc_flags[cfg->nflags++] = xasprintf("-I%s", dir);
			else
				cfg->nvcc_flags[cfg->nflags++] = xasprintf("-I%.*s/%s", (int)(slash - cfg->path), cfg->path, dir);
			free(dir);
		}
	if (flags && expect(L, flags, YAML_SEQUENCE_NODE, "build flags") == 0) {
		size_t count = (size_t)(flags->data.sequence.items.top - flags->data.sequence.items.start);
		for (size_t i = 0; i < count; i++) {
			char *f = get_string(L, node(L, flags->data.sequence.items.start[i]), "build flag");
			if (f)
				cfg->nvcc_flags[cfg->nflags++] = f;
		}
	}
	yaml_node_t *mr = get(L, n, "maxrregcount");
	if (mr) {
		int i = find_param(L, mr, "build maxrregcount");
		if (i >= 0)
			cfg->params[i].is_maxreg = 1;
	}
	yaml_node_t *defs = get(L, n, "defines");
	if (defs && expect(L, defs, YAML_SEQUENCE_NODE, "build defines") == 0)
		for (yaml_node_item_t *it = defs->data.sequence.items.start; it < defs->data.sequence.items.top; it++) {
			yaml_node_t *dn = node(L, *it);
			/* a constant is passed as a fixed -DNAME=value */
			int constant = -1;
			for (size_t k = 0; dn->type == YAML_SCALAR_NODE && k < cfg->nconstants; k++)
				if (!strcmp(cfg->constants[k].name, scalar(dn)))
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

static void load_verify(loader *L, const yaml_node_t *n)
{
	static const char *const keys[] = {"reference", "reference_per", "kernel", "sum", "sample", "expect", "rtol", "atol", NULL};
	static const char *const kernel_keys[] = {"entry", "block", "grid", "shared_mem", NULL};
	static const char *const sum_keys[] = {"output", "input", "equals", "count", "op", NULL};
	config *cfg = L->cfg;
	if (check_keys(L, n, "'verify'", keys))
		return;
	yaml_node_t *sum = get(L, n, "sum");
	if (sum && check_keys(L, sum, "verify sum", sum_keys) == 0) {
		int *slots[2] = {&cfg->sum_out, &cfg->sum_in};
		const char *names[2] = {"output", "input"};
		yaml_node_t *eq = get(L, sum, "equals"), *op = get(L, sum, "op");
		if (op && expect(L, op, YAML_SCALAR_NODE, "verify sum op") == 0) {
			if (!strcmp(scalar(op), "max") || !strcmp(scalar(op), "sum"))
				cfg->sum_max = !strcmp(scalar(op), "max");
			else
				err_at(L, mark_of(op), "verify sum op must be sum or max, not '%s'", scalar(op));
		}
		if (eq && get(L, sum, "input"))
			err_at(L, mark_of(eq), "verify sum takes 'input' or 'equals', not both");
		if (eq)
			get_expr(L, eq, "verify sum equals", &cfg->sum_equals);
		for (int k = 0; k < 2; k++) {
			if (k == 1 && eq)
				continue;
			yaml_node_t *v = require(L, sum, names[k], "verify sum");
			if (!v || expect(L, v, YAML_SCALAR_NODE, names[k]))
				continue;
			for (size_t i = 0; i < cfg->nargs; i++)
				if (cfg->args[i].name && !strcmp(cfg->args[i].name, scalar(v)) && cfg->args[i].is_array)
					*slots[k] = (int)i;
			if (*slots[k] < 0)
				err_at(L, mark_of(v), "verify sum %s '%s' is not an array argument", names[k], scalar(v));
		}
		yaml_node_t *c = require(L, sum, "count", "verify sum");
		if (c)
			get_expr(L, c, "verify sum count", &cfg->sum_count);
		if (cfg->sum_out >= 0 && !cfg->args[cfg->sum_out].output)
			err_at(L, mark_of(sum), "verify sum output '%s' must be marked output: true", cfg->args[cfg->sum_out].name);
	}
	yaml_node_t *per = get(L, n, "reference_per");
	if (per && expect(L, per, YAML_SEQUENCE_NODE, "verify reference_per") == 0) {
		size_t count = (size_t)(per->data.sequence.items.top - per->data.sequence.items.start);
		cfg->ref_per = xcalloc(count, sizeof *cfg->ref_per);
		for (yaml_node_item_t *it = per->data.sequence.items.start; it < per->data.sequence.items.top; it++) {
			int i = find_param(L, node(L, *it), "verify reference_per");
			if (i >= 0)
				cfg->ref_per[cfg->nref_per++] = (size_t)i;
		}
		if (get(L, n, "reference"))
			err_at(L, mark_of(per), "verify takes 'reference' or 'reference_per', not both");
	}
	yaml_node_t *r = get(L, n, "reference"), *rt = get(L, n, "rtol"), *at = get(L, n, "atol");
	yaml_node_t *rk = get(L, n, "kernel");
	if (rk && check_keys(L, rk, "verify kernel", kernel_keys) == 0) {
		/* a reference kernel of the same source, launched on its own geometry: its outputs are
		 * what every configuration is checked against */
		yaml_node_t *e = require(L, rk, "entry", "verify kernel");
		if (e && (cfg->ref_entry = get_string(L, e, "verify kernel entry")) && !is_identifier(cfg->ref_entry))
			err_at(L, mark_of(e), "verify kernel entry '%s' is not a C identifier", cfg->ref_entry);
		load_dims(L, require(L, rk, "block", "verify kernel"), "verify kernel block", cfg->ref_block);
		load_dims(L, require(L, rk, "grid", "verify kernel"), "verify kernel grid", cfg->ref_grid);
		yaml_node_t *sm = get(L, rk, "shared_mem");
		if (sm)
			get_expr(L, sm, "verify kernel shared_mem", &cfg->ref_smem);
		for (int i = 0; i < 3; i++) {
			check_names(L, &cfg->ref_block[i], 0, "the reference kernel's block");
			check_names(L, &cfg->ref_grid[i], 0, "the reference kernel's grid");
		}
		check_names(L, &cfg->ref_smem, 0, "the reference kernel's shared_mem");
		if (get(L, n, "reference") || get(L, n, "reference_per"))
			err_at(L, mark_of(rk), "verify kernel replaces the reference configuration: not with 'reference' or 'reference_per'");
	}
	yaml_node_t *exp = get(L, n, "expect");
	if (exp && check_keys(L, exp, "verify expect", NULL) == 0)
		for (yaml_node_pair_t *p = exp->data.mapping.pairs.start; p < exp->data.mapping.pairs.top; p++) {
			yaml_node_t *k = node(L, p->key);
			kernel_arg *a = NULL;
			for (size_t i = 0; k->type == YAML_SCALAR_NODE && i < cfg->nargs; i++)
				if (cfg->args[i].name && !strcmp(cfg->args[i].name, scalar(k)))
					a = &cfg->args[i];
			if (!a || !a->is_array || !a->output) {
				err_at(L, mark_of(k), "verify expect: '%s' is not an output array argument",
				       k->type == YAML_SCALAR_NODE ? scalar(k) : "?");
				continue;
			}
			if (get_expr(L, node(L, p->value), "verify expect", &a->expect) == 0)
				check_element_names(L, &a->expect, "verify expect");
		}
	yaml_node_t *smp = get(L, n, "sample");
	if (smp)
		get_int(L, smp, "verify sample", 1, LLONG_MAX, &cfg->sample);
	if (rt && get_double(L, rt, "rtol", &cfg->rtol) == 0 && cfg->rtol < 0)
		err_at(L, mark_of(rt), "rtol must not be negative");
	if (at && get_double(L, at, "atol", &cfg->atol) == 0 && cfg->atol < 0)
		err_at(L, mark_of(at), "atol must not be negative");
	if (!r || check_keys(L, r, "verify reference", NULL))
		return;
	cfg->has_reference = 1;
	cfg->reference_at = mark_of(r);
	cfg->reference = xcalloc(cfg->nparams, sizeof *cfg->reference);
	for (size_t i = 0; i < cfg->nparams; i++) {
		yaml_node_t *v = get(L, r, cfg->params[i].name);
		cexpr x = {0};
		if (!v)
			err_at(L, mark_of(r), "verify reference does not give parameter '%s'", cfg->params[i].name);
		else if (get_expr(L, v, "reference value", &x) == 0)
			eval_const(L, &x, "a reference value", &cfg->reference[i]);
		expr_free(x.e);
	}
	for (yaml_node_pair_t *p = r->data.mapping.pairs.start; p < r->data.mapping.pairs.top; p++)
		find_param(L, node(L, p->key), "verify reference");
}

/* The measure keys that are plain values: one row each, read by load_plain, defaulted by
 * config_load, and checked against docs/config.md's key table by a test. A new such key is a row
 * here and a field in config.h. */
const plain_key measure_keys[] = {
	{"warmup", KEY_INT, 0, 1000, "3", offsetof(config, warmup)},
	{"min_samples", KEY_INT, 1, 100000, "10", offsetof(config, min_samples)},
	{"max_samples", KEY_INT, 1, 100000, "1000", offsetof(config, max_samples)},
	{"noise", KEY_FRACTION, 0, 0, "0.01", offsetof(config, noise_target)},
	{"time_cap", KEY_SECONDS, 0, 0, "2.0", offsetof(config, time_cap)},
	{"finalists", KEY_INT, 0, 100, "3", offsetof(config, finalists)},
	{"timeout", KEY_SECONDS, 0, 0, "20", offsetof(config, timeout)},
	{"verify_every_sample", KEY_BOOL, 0, 0, "false", offsetof(config, verify_every)},
};
const size_t nmeasure_keys = sizeof measure_keys / sizeof measure_keys[0];

const char *plain_key_type(key_kind k)
{
	static const char *const names[] = {"integer", "fraction", "seconds", "bool"};
	return names[k];
}

/* Each row's default into cfg. */
static void plain_defaults(config *cfg, const plain_key *rows, size_t n)
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
		yaml_node_t *x = get(L, n, k->name);
		char *field = (char *)L->cfg + k->offset;
		long long v;
		if (!x)
			continue;
		if (k->kind == KEY_INT && get_int(L, x, k->name, k->lo, k->hi, &v) == 0)
			*(int *)field = (int)v;
		else if (k->kind == KEY_BOOL)
			get_bool(L, x, k->name, (int *)field);
		else if (k->kind == KEY_FRACTION && get_double(L, x, k->name, (double *)field) == 0 &&
			 (*(double *)field <= 0 || *(double *)field >= 1))
			err_at(L, mark_of(x), "%s is a fraction between 0 and 1 (0.01 = 1%%)", k->name);
		else if (k->kind == KEY_SECONDS && get_double(L, x, k->name, (double *)field) == 0 && *(double *)field <= 0)
			err_at(L, mark_of(x), "%s must be positive (seconds)", k->name);
	}
}

static void load_measure(loader *L, const yaml_node_t *n)
{
	const char *keys[sizeof measure_keys / sizeof measure_keys[0] + 3] = {0};
	for (size_t i = 0; i < nmeasure_keys; i++)
		keys[i] = measure_keys[i].name;
	keys[nmeasure_keys] = "cache";
	keys[nmeasure_keys + 1] = "metrics";
	config *cfg = L->cfg;
	yaml_node_t *x;
	if (check_keys(L, n, "'measure'", keys))
		return;
	load_plain(L, n, measure_keys, nmeasure_keys);
	if (cfg->max_samples < cfg->min_samples)
		err_at(L, mark_of(n), "max_samples (%d) is below min_samples (%d)", cfg->max_samples, cfg->min_samples);
	if ((x = get(L, n, "cache")) && expect(L, x, YAML_SCALAR_NODE, "cache") == 0) {
		if (!strcmp(scalar(x), "warm") || !strcmp(scalar(x), "cold"))
			cfg->cache_warm = !strcmp(scalar(x), "warm");
		else
			err_at(L, mark_of(x), "cache must be cold or warm, not '%s'", scalar(x));
	}
	if ((x = get(L, n, "metrics")) && expect(L, x, YAML_SCALAR_NODE, "metrics") == 0) {
		const char *m = scalar(x);
		char *end;
		if (!strcmp(m, "all"))
			cfg->metrics = METRICS_ALL;
		else if (!strcmp(m, "none"))
			cfg->metrics = METRICS_NONE;
		else if (!strncmp(m, "top:", 4) && (cfg->metrics_top = (int)strtol(m + 4, &end, 10)) > 0 && !*end)
			cfg->metrics = METRICS_TOP;
		else
			err_at(L, mark_of(x), "metrics must be all, none or top:K, not '%s'", m);
	}
}

static void load_select(loader *L, const yaml_node_t *n)
{
	static const char *const keys[] = {"policy", "weights", "noise_band", NULL};
	static const char *const wkeys[] = {"occupancy", "load_efficiency", NULL};
	config *cfg = L->cfg;
	yaml_node_t *x;
	if (check_keys(L, n, "'select'", keys))
		return;
	if ((x = get(L, n, "policy")) && expect(L, x, YAML_SCALAR_NODE, "policy") == 0) {
		if (!strcmp(scalar(x), "balanced") || !strcmp(scalar(x), "fastest"))
			cfg->policy = !strcmp(scalar(x), "fastest") ? POLICY_FASTEST : POLICY_BALANCED;
		else
			err_at(L, mark_of(x), "policy must be balanced or fastest, not '%s'", scalar(x));
	}
	if ((x = get(L, n, "noise_band")) && get_double(L, x, "noise_band", &cfg->tie_k) == 0 && cfg->tie_k < 0)
		err_at(L, mark_of(x), "noise_band must not be negative");
	if ((x = get(L, n, "weights")) && check_keys(L, x, "select weights", wkeys) == 0) {
		yaml_node_t *w;
		if ((w = get(L, x, "occupancy")))
			get_double(L, w, "occupancy weight", &cfg->w_occupancy);
		if ((w = get(L, x, "load_efficiency")))
			get_double(L, w, "load_efficiency weight", &cfg->w_load_efficiency);
	}
}

static void load_output(loader *L, const yaml_node_t *n)
{
	static const char *const keys[] = {"csv", "header", NULL};
	if (check_keys(L, n, "'output'", keys))
		return;
	yaml_node_t *c = get(L, n, "csv"), *h = get(L, n, "header");
	if (c)
		L->cfg->csv_path = get_string(L, c, "output csv");
	if (h)
		L->cfg->header_path = get_string(L, h, "output header");
}

int pragma_unroll_name(const char *line, size_t *start, size_t *len)
{
	const char *p = line;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p++ != '#')
		return 0;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "pragma", 6) || (p[6] != ' ' && p[6] != '\t'))
		return 0;
	p += 6;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "unroll", 6) || (p[6] != ' ' && p[6] != '\t'))
		return 0;
	p += 6;
	while (*p == ' ' || *p == '\t')
		p++;
	const char *q = p;
	if (!(*q == '_' || (*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z')))
		return 0; /* a number, or nothing: nvcc handles it */
	while (*q == '_' || (*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9'))
		q++;
	*start = (size_t)(p - line);
	*len = (size_t)(q - p);
	return 1;
}

int budget_parse(const char *text, size_t count, size_t *evaluations, double *seconds)
{
	*evaluations = 0;
	*seconds = 0;
	char *end;
	double v = strtod(text, &end);
	int pct = *end == '%', secs = *end == 's';
	if (end == text || (*end && !pct && !secs) || ((pct || secs) && end[1]) || !(v > 0) || !isfinite(v) ||
	    (!pct && !secs && v != floor(v)))
		return -1;
	if (secs)
		*seconds = v;
	else {
		double n = pct ? ceil(v / 100 * (double)count) : v;
		*evaluations = n < (double)count ? (size_t)n : count;
	}
	return 0;
}

/* nvcc does not macro-expand `#pragma unroll NAME` (NVRTC does): the compile stage rewrites the
 * pragma in a private copy of the source. Here: which parameters it names (they become
 * compile-time) and whether any rewriting is needed. */
static void scan_pragmas(loader *L)
{
	config *cfg = L->cfg;
	FILE *f = L->source_ok ? fopen(cfg->source, "rb") : NULL;
	if (!f)
		return;
	/* read whole, counting bytes, since a "line" may never end (/dev/zero) */
	size_t n = 0, got, cap = 1 << 16;
	char *text = xmalloc(cap + 1);
	/* one byte past the limit tells a source over it */
	while ((got = fread(text + n, 1, cap - n, f)) && (n += got) <= MAX_SOURCE_BYTES)
		if (n == cap)
			text = xrealloc(text, (cap = cap * 2 > MAX_SOURCE_BYTES ? MAX_SOURCE_BYTES + 1 : cap * 2) + 1);
	fclose(f);
	text[n] = 0;
	if (n > MAX_SOURCE_BYTES) {
		err_at(L, cfg->source_at, "kernel source '%s' is over %lu MiB: not a CUDA source file", cfg->source,
		       MAX_SOURCE_BYTES >> 20);
		free(text);
		return;
	}
	size_t start, len;
	for (char *line = text, *next; line < text + n; line = next) {
		char *nl = memchr(line, '\n', (size_t)(text + n - line));
		next = nl ? nl + 1 : text + n;
		if (nl)
			*nl = 0;
		if (!pragma_unroll_name(line, &start, &len))
			continue;
		for (size_t i = 0; i < cfg->nparams; i++)
			if (strlen(cfg->params[i].name) == len && !strncmp(cfg->params[i].name, line + start, len))
				cfg->params[i].is_pragma = cfg->rewrite_pragmas = 1;
		for (size_t i = 0; i < cfg->nconstants; i++)
			if (strlen(cfg->constants[i].name) == len && !strncmp(cfg->constants[i].name, line + start, len))
				cfg->rewrite_pragmas = 1;
	}
	free(text);
}

/* "mathKernel${variant}": each placeholder names a parameter, which becomes compile-time (one
 * binary per value, each with its own entry point); the rest must make an identifier. */
static void check_entry_template(loader *L)
{
	config *cfg = L->cfg;
	if (!cfg->entry || !strstr(cfg->entry, "${"))
		return;
	char plain[512];
	size_t used = 0;
	for (const char *p = cfg->entry; *p && used < sizeof plain - 2;) {
		if (p[0] != '$' || p[1] != '{') {
			plain[used++] = *p++;
			continue;
		}
		const char *end = strchr(p, '}');
		if (!end) {
			err_at(L, cfg->entry_at, "kernel entry '%s': '${' without '}'", cfg->entry);
			return;
		}
		int found = 0;
		for (size_t i = 0; i < cfg->nparams; i++)
			if (strlen(cfg->params[i].name) == (size_t)(end - p - 2) && !strncmp(cfg->params[i].name, p + 2, (size_t)(end - p - 2))) {
				cfg->params[i].is_entry = 1;
				found = 1;
			}
		if (!found)
			err_at(L, cfg->entry_at, "kernel entry '%s': '%.*s' is not a parameter of the space", cfg->entry,
			       (int)(end - p - 2), p + 2);
		plain[used++] = 'x';
		p = end + 1;
	}
	plain[used] = 0;
	if (!is_identifier(plain))
		err_at(L, cfg->entry_at, "kernel entry '%s' does not make a C identifier", cfg->entry);
}

char *config_entry(const config *cfg, const value *params)
{
	size_t cap = strlen(cfg->entry) + 64, len = 0;
	char *out = xmalloc(cap);
	for (const char *p = cfg->entry; *p;) {
		const char *end = p[0] == '$' && p[1] == '{' ? strchr(p, '}') : NULL;
		char piece[128];
		size_t n = 1;
		piece[0] = *p;
		piece[1] = 0;
		if (end) {
			for (size_t i = 0; i < cfg->nparams; i++)
				if (strlen(cfg->params[i].name) == (size_t)(end - p - 2) &&
				    !strncmp(cfg->params[i].name, p + 2, (size_t)(end - p - 2)))
					value_format(params[i], piece, sizeof piece);
			n = strlen(piece);
			p = end + 1;
		} else
			p++;
		grow(&out, &cap, len + n + 1, 1);
		memcpy(out + len, piece, n);
		len += n;
	}
	out[len] = 0;
	return out;
}

static char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	const char *dot = strrchr(b, '.');
	size_t n = dot && dot != b ? (size_t)(dot - b) : strlen(b);
	char *s = xmalloc(n + 1);
	memcpy(s, b, n);
	s[n] = 0;
	return s;
}

static void load_root(loader *L, const yaml_node_t *root)
{
	static const char *const keys[] = {"name", "kernel", "constants", "arguments", "space", "constraints",
					   "launch", "build", "verify", "measure", "select", "search", "bytes", "flops", "output", NULL};
	config *cfg = L->cfg;
	if (check_keys(L, root, "the config", keys))
		return;
	yaml_node_t *n;
	if ((n = get(L, root, "name"))) {
		cfg->name = get_string(L, n, "name");
		if (cfg->name && !is_identifier(cfg->name))
			err_at(L, mark_of(n), "name '%s' must be an identifier: it prefixes the header's macros", cfg->name);
	}
	if (!cfg->name)
		cfg->name = base_name(cfg->path);
	if ((n = require(L, root, "kernel", "the config")))
		load_kernel(L, n);
	/* Order matters: constants before everything that uses them, the space before the
	 * expressions that may name its parameters. */
	if ((n = get(L, root, "constants")))
		load_constants(L, n);
	if ((n = require(L, root, "space", "the config")))
		load_space(L, n);
	if ((n = require(L, root, "arguments", "the config")))
		load_arguments(L, n);
	if ((n = get(L, root, "constraints")) && expect(L, n, YAML_SEQUENCE_NODE, "'constraints'") == 0 &&
	    !comma_cut_expression(L, n, "constraints")) {
		size_t count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
		cfg->constraints = xcalloc(count, sizeof *cfg->constraints);
		for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++)
			if (get_expr(L, node(L, *it), "constraint", &cfg->constraints[cfg->nconstraints]) == 0)
				cfg->nconstraints++;
	}
	if ((n = require(L, root, "launch", "the config")))
		load_launch(L, n);
	if ((n = get(L, root, "build")))
		load_build(L, n);
	if ((n = get(L, root, "verify")))
		load_verify(L, n);
	if ((n = get(L, root, "measure")))
		load_measure(L, n);
	if ((n = get(L, root, "select")))
		load_select(L, n);
	if ((n = get(L, root, "search"))) {
		static const char *const search_keys[] = {"strategy", "budget", "seed", NULL};
		yaml_node_t *x;
		long long seed;
		if (check_keys(L, n, "'search'", search_keys) == 0) {
			if ((x = get(L, n, "strategy"))) {
				static const char *const strategies[] = {"exhaustive", "random", "local", "anneal", "genetic", "model", NULL};
				cfg->search_strategy = get_string(L, x, "search strategy");
				int known = 0;
				for (const char *const *k = strategies; cfg->search_strategy && *k; k++)
					known |= !strcmp(*k, cfg->search_strategy);
				if (cfg->search_strategy && !known)
					err_at(L, mark_of(x), "unknown search strategy '%s' (exhaustive, random, local, anneal, genetic, model)",
					       cfg->search_strategy);
			}
			if ((x = get(L, n, "budget")) && (cfg->search_budget = get_string(L, x, "search budget"))) {
				size_t evaluations;
				double seconds;
				if (budget_parse(cfg->search_budget, 0, &evaluations, &seconds))
					err_at(L, mark_of(x), "search budget is evaluations (N), a fraction of the space (N%%) or seconds (Ns), not '%s'",
					       cfg->search_budget);
			}
			if ((x = get(L, n, "seed")) && get_int(L, x, "search seed", 0, LLONG_MAX, &seed) == 0)
				cfg->search_seed = (unsigned long long)seed;
		}
	}
	if ((n = get(L, root, "bytes")))
		get_expr(L, n, "bytes", &cfg->bytes);
	if ((n = get(L, root, "flops")))
		get_expr(L, n, "flops", &cfg->flops);
	if ((n = get(L, root, "output")))
		load_output(L, n);
	check_names(L, &cfg->bytes, 1, "bytes");
	check_names(L, &cfg->sum_count, 1, "verify sum count");
	check_names(L, &cfg->sum_equals, 1, "verify sum equals");
	check_names(L, &cfg->flops, 1, "flops");

	for (size_t i = 0; i < cfg->nargs; i++)
		check_names(L, &cfg->args[i].value, 1, "an argument value");
	for (size_t i = 0; i < cfg->nconstraints; i++)
		check_names(L, &cfg->constraints[i], 1, "a constraint");
	for (int i = 0; i < 3; i++) {
		check_names(L, &cfg->block[i], 1, "the launch block");
		check_names(L, &cfg->grid[i], 1, "the launch grid");
	}
	check_names(L, &cfg->shared_mem, 1, "launch shared_mem");
	check_entry_template(L);
	scan_pragmas(L);
	if (!cfg->csv_path)
		cfg->csv_path = xasprintf("results/%s.csv", cfg->name);
	if (!cfg->header_path)
		cfg->header_path = xasprintf("results/%s_tuned.h", cfg->name);
}

int config_load(const char *path, config *cfg, diags *d)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->path = xstrdup(path);
	cfg->rtol = 1e-5;
	cfg->atol = 1e-8;
	plain_defaults(cfg, measure_keys, nmeasure_keys);
	cfg->metrics = METRICS_AUTO;
	cfg->metrics_top = 10;
	cfg->policy = POLICY_BALANCED;
	cfg->w_occupancy = 1.0;
	cfg->w_load_efficiency = 1.0;
	cfg->tie_k = 2.0;
	cfg->sum_out = cfg->sum_in = -1;

	FILE *f = open_input(path, d);
	if (!f) {
		config_free(cfg);
		return -1;
	}
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, f);
	int rc = -1;
	if (!yaml_parser_load(&parser, &doc)) {
		const yaml_mark_t *m = parser.problem ? &parser.problem_mark : &parser.context_mark;
		diags_at(d, path, (int)m->line + 1, (int)m->column + 1, "YAML syntax error: %s%s%s",
			 parser.problem ? parser.problem : "unknown problem", parser.context ? " " : "",
			 parser.context ? parser.context : "");
	} else {
		yaml_node_t *root = yaml_document_get_root_node(&doc);
		loader L = {path, &doc, d, 0, cfg, 0};
		if (!root)
			diags_at(d, path, 1, 1, "the file is empty");
		else {
			load_root(&L, root);
			rc = L.errors ? -1 : 0;
		}
		yaml_document_delete(&doc);
	}
	yaml_parser_delete(&parser);
	fclose(f);
	if (rc)
		config_free(cfg);
	return rc;
}

static void cexpr_free(cexpr *x)
{
	expr_free(x->e);
	x->e = NULL;
}

void config_free(config *cfg)
{
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
	free(cfg->args);
	for (size_t i = 0; i < cfg->nparams; i++) {
		free(cfg->params[i].name);
		free(cfg->params[i].values);
	}
	free(cfg->params);
	for (size_t i = 0; i < cfg->nconstraints; i++)
		cexpr_free(&cfg->constraints[i]);
	free(cfg->constraints);
	for (int i = 0; i < 3; i++) {
		cexpr_free(&cfg->block[i]);
		cexpr_free(&cfg->grid[i]);
	}
	cexpr_free(&cfg->shared_mem);
	cexpr_free(&cfg->bytes);
	cexpr_free(&cfg->sum_count);
	cexpr_free(&cfg->sum_equals);
	cexpr_free(&cfg->flops);
	for (size_t i = 0; i < cfg->nflags; i++)
		free(cfg->nvcc_flags[i]);
	free(cfg->nvcc_flags);
	free(cfg->reference);
	free(cfg->ref_per);
	free(cfg->ref_entry);
	for (int i = 0; i < 3; i++) {
		cexpr_free(&cfg->ref_block[i]);
		cexpr_free(&cfg->ref_grid[i]);
	}
	cexpr_free(&cfg->ref_smem);
	free(cfg->csv_path);
	free(cfg->header_path);
	free(cfg->search_strategy);
	free(cfg->search_budget);
	memset(cfg, 0, sizeof *cfg);
}
