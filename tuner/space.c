/* space.c: enumerates the cartesian product of parameter values and keeps those that satisfy
 * every constraint. */
#include "space.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch_plan.h"
#include "banned.h"

/* The product of the value lists may be any size: constraints are checked as parameters are
 * bound, so a large space that they make small is walked quickly. What is kept is bounded (a
 * configuration is a row of values in memory), and so is the walk, for constraints that decide
 * only at the last parameters. */
size_t space_max_values = (size_t)1 << 25; /* 512 MiB of values */
#define SPACE_MAX_CHECKS 20000000000ULL

static int same_values(const value *a, const value *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (a[i].kind == VAL_INT && b[i].kind == VAL_INT ? a[i].u.i != b[i].u.i
								 : value_as_double(a[i]) != value_as_double(b[i]))
			return 0;
	}
	return 1;
}

/* The deepest parameter a constraint names (-1: none): it can be checked as soon as the
 * parameters up to that one are bound, pruning every combination below a failing prefix. */
typedef struct {
	const config *cfg;
	int deepest;
} depth_walk;

static int note_depth(void *ctx, const char *name, int offset)
{
	depth_walk *w = ctx;
	(void)offset;
	for (size_t i = 0; i < w->cfg->nparams; i++)
		if (!strcmp(w->cfg->params[i].name, name) && (int)i > w->deepest)
			w->deepest = (int)i;
	return 0;
}

/* The first configuration of the product with the values bound so far (levels 0..k), the later
 * parameters at their first values: a whole configuration to name, as other messages do. */
static char *describe_first(const config *cfg, const value *cur, size_t k)
{
	value *full = xcalloc(cfg->nparams + 1, sizeof *full);
	for (size_t j = 0; j < cfg->nparams; j++)
		full[j] = j <= k ? cur[j] : cfg->params[j].values[0];
	char *desc = space_describe(cfg, full);
	free(full);
	return desc;
}

/* Whether the constraints decided at level k hold for the values bound so far: 1, 0, or -1 when
 * one cannot be evaluated (reported in d). */
static int holds_at(const config *cfg, const int *depth, size_t k, const value *cur, diags *d)
{
	for (size_t c = 0; c < cfg->nconstraints; c++) {
		if (depth[c] != (int)k)
			continue;
		value v;
		if (cexpr_eval(cfg, &cfg->constraints[c], cur, &v, d, NULL)) {
			char *desc = describe_first(cfg, cur, k);
			diags_add(d, "  (while checking the configuration %s)", desc);
			free(desc);
			return -1;
		}
		if (!value_truth(v))
			return 0;
	}
	return 1;
}

static int fail(space *s);
static int check_result(const config *cfg, space *s, diags *d);

int space_enumerate(const config *cfg, space *s, diags *d)
{
	memset(s, 0, sizeof *s);
	s->nparams = cfg->nparams;
	s->reference = -1;
	unsigned long long total = 1, checks = 0;
	size_t np = cfg->nparams;
	for (size_t i = 0; i < cfg->nparams; i++)
		if (__builtin_mul_overflow(total, (unsigned long long)cfg->params[i].nvalues, &total))
			total = ULLONG_MAX;
	s->total = total > SIZE_MAX ? SIZE_MAX : (size_t)total;
	if (cfg->nconstraints == 0 && np && total > space_max_values / np) { /* all of it valid: said at once */
		diags_at(d, cfg->path, cfg->params[0].at.line, cfg->params[0].at.col,
			 "the space has %llu%s valid configurations (no constraints), over the %zu this can hold; narrow "
			 "it or add constraints", total, total == ULLONG_MAX ? " or more" : "", space_max_values / np);
		return -1;
	}
	size_t cap = 0;
	/* constraints by the depth at which they can be decided; depth -1 (constants only) goes to 0 */
	int *depth = xcalloc(cfg->nconstraints + 1, sizeof *depth);
	for (size_t c = 0; c < cfg->nconstraints; c++) {
		depth_walk w = {cfg, -1};
		expr_foreach_name(cfg->constraints[c].e, note_depth, &w);
		depth[c] = w.deepest < 0 ? 0 : w.deepest;
	}
	size_t *idx = xcalloc(np + 1, sizeof *idx);
	value *cur = xcalloc(np + 1, sizeof *cur);
	int rc = 0;
	/* depth-first over the parameters, first outermost: bind level k, check the constraints
	 * decided there, descend on success, else try the next value; the order of the result is the
	 * cartesian product's */
	size_t k = 0;
	int done = np == 0 || total == 0;
	while (!done && rc == 0) {
		if (++checks > SPACE_MAX_CHECKS) {
			diags_add(d, "%s: the constraints leave too much to check (over %llu partial configurations); "
				  "list the parameters they name first, or narrow the space", cfg->path, SPACE_MAX_CHECKS);
			rc = -1;
			break;
		}
		cur[k] = cfg->params[k].values[idx[k]];
		int keep = holds_at(cfg, depth, k, cur, d);
		if (keep < 0) {
			rc = -1;
			break;
		}
		if (keep && k + 1 < np) {
			idx[++k] = 0;
			continue;
		}
		if (keep && (s->count + 1) * np > space_max_values) {
			diags_at(d, cfg->path, cfg->params[0].at.line, cfg->params[0].at.col,
				 "the space has over %zu valid configurations (of %llu%s combinations); narrow it or "
				 "add constraints", s->count, total, total == ULLONG_MAX ? " or more" : "");
			rc = -1;
			break;
		}
		if (keep) {
			grow(&s->vals, &cap, (s->count + 1) * np, sizeof *s->vals);
			memcpy(s->vals + s->count * np, cur, np * sizeof *cur);
			if (cfg->has_reference && s->reference < 0 && same_values(cur, cfg->reference, np))
				s->reference = (long long)s->count;
			s->count++;
		}
		/* next value at this level, climbing up past exhausted levels */
		while (++idx[k] == cfg->params[k].nvalues) {
			if (k == 0) {
				done = 1;
				break;
			}
			k--;
		}
	}
	free(depth);
	free(idx);
	free(cur);
	return rc ? fail(s) : check_result(cfg, s, d);
}

/* Frees what a failed enumeration holds: -1. */
static int fail(space *s)
{
	space_free(s);
	return -1;
}

/* An enumeration that found no configuration, or not the named reference, fails. */
static int check_result(const config *cfg, space *s, diags *d)
{
	int rc = 0;
	if (s->count == 0) {
		diags_add(d, "%s: no configuration satisfies the constraints (%zu %s tried)", cfg->path, s->total,
			  plural(s->total, "combination", "combinations"));
		rc = -1;
	}
	if (rc == 0 && cfg->has_reference && s->reference < 0) {
		char *desc = space_describe(cfg, cfg->reference);
		diags_at(d, cfg->path, cfg->reference_at.line, cfg->reference_at.col,
			 "the verify reference (%s) is not a valid configuration of the space", desc);
		free(desc);
		rc = -1;
	}
	if (rc == 0 && !cfg->has_reference)
		s->reference = 0;
	return rc ? fail(s) : 0;
}

void space_free(space *s)
{
	free(s->vals);
	memset(s, 0, sizeof *s);
	s->reference = -1;
}

void space_shard(space *s, int has_reference, int shard, int nshards)
{
	size_t kept = 0, np = s->nparams;
	long long ref = -1;
	for (size_t c = 0; c < s->count; c++) {
		int is_ref = has_reference && (long long)c == s->reference;
		if (c % (size_t)nshards != (size_t)shard && !is_ref)
			continue;
		if (is_ref)
			ref = (long long)kept;
		memmove(s->vals + kept * np, s->vals + c * np, np * sizeof *s->vals);
		kept++;
	}
	s->count = kept;
	s->reference = has_reference ? ref : 0;
}

/* Evaluates each configuration's launch geometry. An expression that cannot be evaluated for
 * some configuration is a config error, reported with that configuration. */
int space_eval_geometry(const config *cfg, const space *sp, result *res, diags *d)
{
	for (size_t c = 0; c < sp->count; c++) {
		const value *vals = space_config(sp, c);
		result *r = &res[c];
		r->driver_blocks = -1;
		r->shares_with = -1;
		r->occ_limit = "";
		struct {
			const cexpr *x;
			long long *out;
			const char *what;
		} items[7] = {
			{&cfg->block[0], &r->block[0], "block x"}, {&cfg->block[1], &r->block[1], "block y"},
			{&cfg->block[2], &r->block[2], "block z"}, {&cfg->grid[0], &r->grid[0], "grid x"},
			{&cfg->grid[1], &r->grid[1], "grid y"},   {&cfg->grid[2], &r->grid[2], "grid z"},
			{&cfg->shared_mem, &r->smem, "shared_mem"},
		};
		for (int i = 0; i < 7; i++) {
			value v;
			if (!items[i].x->e) {
				*items[i].out = i == 6 ? 0 : 1;
				continue;
			}
			/* the configuration is described only for a message: evaluating it again says why */
			diags quiet = {0};
			int bad = cexpr_eval(cfg, items[i].x, vals, &v, &quiet, NULL);
			diags_free(&quiet);
			char *desc = NULL;
			if (bad) {
				desc = space_describe(cfg, vals);
				cexpr_eval(cfg, items[i].x, vals, &v, d, desc);
			} else if (v.kind != VAL_INT || v.u.i < (i == 6 ? 0 : 1) || v.u.i > UINT_MAX) {
				desc = space_describe(cfg, vals);
				char text[64];
				value_format(v, text, sizeof text);
				/* a whole number too large is said as such, not as one that is not positive */
				if (v.kind == VAL_INT && v.u.i > UINT_MAX)
					diags_at(d, cfg->path, items[i].x->at.line, items[i].x->at.col,
						 "launch %s must be at most %u (CUDA's 32-bit launch dimensions), but is %s (for %s)",
						 items[i].what, UINT_MAX, text, desc);
				else
					diags_at(d, cfg->path, items[i].x->at.line, items[i].x->at.col,
						 "launch %s must be a %s integer, but is %s (for %s)", items[i].what,
						 i == 6 ? "non-negative" : "positive", text, desc);
				bad = 1;
			}
			free(desc);
			if (bad)
				return -1;
			*items[i].out = v.u.i;
		}
		if (launch_plan_eval(cfg, vals, r, d))
			return -1;
	}
	return 0;
}

/* GEOMETRY_SLICE configurations at a time: a result is 300 bytes, twice what the space holds of
 * a configuration. */
#define GEOMETRY_SLICE 4096
int space_check_geometry(const config *cfg, const space *sp, diags *d)
{
	result *scratch = xcalloc(GEOMETRY_SLICE, sizeof *scratch);
	int rc = 0;
	for (size_t from = 0; from < sp->count && !rc; from += GEOMETRY_SLICE) {
		space slice = *sp;
		slice.vals = sp->vals + from * sp->nparams;
		slice.count = sp->count - from < GEOMETRY_SLICE ? sp->count - from : GEOMETRY_SLICE;
		memset(scratch, 0, GEOMETRY_SLICE * sizeof *scratch);
		rc = space_eval_geometry(cfg, &slice, scratch, d);
	}
	free(scratch);
	return rc;
}
