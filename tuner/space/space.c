/* space.c: enumerates the cartesian product of parameter values and keeps those that satisfy
 * every constraint. */
#include "space.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "launch_plan.h"
#include "random.h"
#include "banned.h"

/* The product of the value lists may be any size: constraints are checked as parameters are
 * bound, so a large space that they make small is walked quickly. What is kept is bounded (a
 * configuration is a row of values in memory), and so is the walk, for constraints that decide
 * only at the last parameters. */
size_t space_max_values = (size_t)1 << 25; /* 512 MiB of values */
#define SPACE_MAX_CHECKS 20000000000ULL
/* A space too large to list is counted only for saying how large: a few seconds' walk at most */
unsigned long long space_max_count_checks = 50000000ULL;

static int same_values(const value *a, const value *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!value_equal(a[i], b[i]))
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

/* What a walk does with each valid configuration: keep it, or only count it. */
enum { WALK_HOLD, WALK_COUNT };
/* walk's answer when the valid configurations are more than space_max_values can hold */
#define TOO_MANY 1

typedef struct {
	const config *cfg;
	const int *depth;	  /* each constraint's level */
	int last;		  /* the deepest level any constraint is decided at, -1: none */
	unsigned long long total; /* the product of the value lists, saturated */
} shape;

/* The combinations of the levels after k: what a prefix that passed every constraint adds to a
 * count once no constraint is left below it. */
static unsigned long long below_level(const config *cfg, size_t k)
{
	unsigned long long n = 1;
	for (size_t j = k + 1; j < cfg->nparams; j++)
		if (__builtin_mul_overflow(n, (unsigned long long)cfg->params[j].nvalues, &n))
			return ULLONG_MAX;
	return n;
}

/* Keeps (WALK_HOLD) or counts (WALK_COUNT, into *valid) the valid configurations: 0, TOO_MANY
 * when holding them would pass space_max_values or counting them would take more than
 * space_max_count_checks (what was counted is then a lower bound), -1 when a constraint cannot be
 * evaluated. */
static int walk(const shape *sh, int mode, space *s, unsigned long long *valid, diags *d)
{
	const config *cfg = sh->cfg;
	size_t np = cfg->nparams, k = 0, cap = 0;
	size_t *idx = xcalloc(np + 1, sizeof *idx);
	value *cur = xcalloc(np + 1, sizeof *cur);
	unsigned long long checks = 0, most = mode == WALK_COUNT ? space_max_count_checks : SPACE_MAX_CHECKS;
	int rc = 0, done = np == 0 || sh->total == 0;
	/* depth-first over the parameters, first outermost: bind level k, check the constraints
	 * decided there, descend on success, else try the next value; the order of the result is the
	 * cartesian product's */
	while (!done && rc == 0) {
		if (++checks > most && mode == WALK_COUNT) {
			rc = TOO_MANY;
			break;
		}
		if (checks > most) {
			diags_add(d, "%s: the constraints leave too much to check (over %llu partial configurations); "
				  "list the parameters they name first, or narrow the space", cfg->path, SPACE_MAX_CHECKS);
			rc = -1;
			break;
		}
		cur[k] = cfg->params[k].values[idx[k]];
		int keep = holds_at(cfg, sh->depth, k, cur, d);
		if (keep < 0) {
			rc = -1;
			break;
		}
		/* a count needs no level below the last constraint: they all pass */
		if (keep && k + 1 < np && (mode == WALK_HOLD || (int)k < sh->last)) {
			idx[++k] = 0;
			continue;
		}
		if (keep && mode == WALK_COUNT) {
			if (__builtin_add_overflow(*valid, below_level(cfg, k), valid))
				*valid = ULLONG_MAX;
		} else if (keep && (s->count + 1) * np > space_max_values) {
			rc = TOO_MANY;
			break;
		} else if (keep) {
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
	free(idx);
	free(cur);
	return rc;
}

static int refuse_size(const config *cfg, const space *s, diags *d);
static int sample(const shape *sh, space *s, diags *d);

static int enumerate(const config *cfg, space *s, int may_sample, diags *d)
{
	memset(s, 0, sizeof *s);
	s->nparams = cfg->nparams;
	s->reference = -1;
	size_t np = cfg->nparams;
	unsigned long long total = 1;
	for (size_t i = 0; i < np; i++)
		if (__builtin_mul_overflow(total, (unsigned long long)cfg->params[i].nvalues, &total))
			total = ULLONG_MAX;
	s->total = total > SIZE_MAX ? SIZE_MAX : (size_t)total;
	/* constraints by the depth at which they can be decided; depth -1 (constants only) goes to 0 */
	int *depth = xcalloc(cfg->nconstraints + 1, sizeof *depth);
	shape sh = {cfg, depth, -1, total};
	for (size_t c = 0; c < cfg->nconstraints; c++) {
		depth_walk w = {cfg, -1};
		expr_foreach_name(cfg->constraints[c].e, note_depth, &w);
		depth[c] = w.deepest < 0 ? 0 : w.deepest;
		if (depth[c] > sh.last)
			sh.last = depth[c];
	}
	/* all of it valid and too much to hold: known without walking */
	int rc = cfg->nconstraints == 0 && np && total > space_max_values / np ? TOO_MANY
									 : walk(&sh, WALK_HOLD, s, NULL, d);
	if (rc == TOO_MANY) {
		space_free(s);
		s->nparams = np;
		s->total = total > SIZE_MAX ? SIZE_MAX : (size_t)total;
		rc = walk(&sh, WALK_COUNT, s, &s->valid, d);
		s->valid_over = rc == TOO_MANY || s->valid == ULLONG_MAX;
		if (rc == TOO_MANY)
			rc = 0;
		if (rc == 0)
			rc = may_sample ? sample(&sh, s, d) : refuse_size(cfg, s, d);
	} else
		s->valid = s->count;
	free(depth);
	return rc ? fail(s) : check_result(cfg, s, d);
}

int space_enumerate(const config *cfg, space *s, diags *d) { return enumerate(cfg, s, 0, d); }

int space_enumerate_sampled(const config *cfg, space *s, diags *d) { return enumerate(cfg, s, 1, d); }

/* The configurations a space holds: SPACE_SAMPLE, or fewer where a test lowers space_max_values. */
static size_t sample_size(size_t np) { return np && space_max_values / np < SPACE_SAMPLE ? space_max_values / np : SPACE_SAMPLE; }

static int refuse_size(const config *cfg, const space *s, diags *d)
{
	diags_at(d, cfg->path, cfg->params[0].at.line, cfg->params[0].at.col,
		 "the space has %s%llu valid configurations (of %llu%s combinations), more than can be listed: "
		 "search a uniform sample of %zu of them with --budget N or --budget Ns, or narrow the space or "
		 "add constraints",
		 s->valid_over ? "over " : "", s->valid, (unsigned long long)s->total, s->total == SIZE_MAX ? " or more" : "",
		 sample_size(cfg->nparams));
	return -1;
}

/* A sample is drawn by rejection, so each valid configuration is as likely as any other; a space
 * whose valid configurations are rarer than this among the combinations says so instead. */
unsigned long long space_max_draws = 20000000ULL;
/* The same sample for every run of a spec: the journal and the results name configurations by
 * their place in it. */
#define SAMPLE_SEED 0x5A3D1EULL

/* The position of configuration v in the product (first parameter most significant), or -1 when
 * some value is not in its list. */
static long long product_code(const config *cfg, const value *v)
{
	unsigned long long code = 0;
	for (size_t k = 0; k < cfg->nparams; k++) {
		size_t i = 0;
		while (i < cfg->params[k].nvalues && !same_values(&cfg->params[k].values[i], &v[k], 1))
			i++;
		if (i == cfg->params[k].nvalues)
			return -1;
		code = code * cfg->params[k].nvalues + i;
	}
	return (long long)code;
}

/* An open-addressed set of product codes (stored plus one: 0 is empty); 1 when code is new. */
static int set_add(unsigned long long *set, size_t mask, unsigned long long code)
{
	size_t h = (size_t)((code + 1) * 0x9E3779B97F4A7C15ull) & mask;
	while (set[h] && set[h] != code + 1)
		h = (h + 1) & mask;
	if (set[h])
		return 0;
	set[h] = code + 1;
	return 1;
}

/* Whether every constraint holds for a whole configuration: 1, 0, -1 (d). */
static int holds(const shape *sh, const value *cur, diags *d)
{
	for (size_t k = 0; k < sh->cfg->nparams; k++) {
		int keep = holds_at(sh->cfg, sh->depth, k, cur, d);
		if (keep <= 0)
			return keep;
	}
	return 1;
}

/* Keeps a uniform sample of the valid configurations, in the order drawn (so that ties in a
 * search's ranking fall at random, not on the first values of the first parameters); a named
 * reference first. s->valid is already counted, and over what the sample keeps. */
static int sample(const shape *sh, space *s, diags *d)
{
	const config *cfg = sh->cfg;
	size_t np = cfg->nparams, want = sample_size(np), mask = 1;
	if (sh->total == ULLONG_MAX) {
		/* the sample draws combinations by their 64-bit index: constraints, checked on what is
		 * drawn, cannot bring the product under it */
		double bits = 0;
		for (size_t k = 0; k < np; k++)
			bits += log2((double)cfg->params[k].nvalues);
		diags_at(d, cfg->path, cfg->params[0].at.line, cfg->params[0].at.col,
			 "the space has about 2^%.0f combinations (the product of its %zu parameters' numbers of values), "
			 "past the 2^64 its sample can draw from, whatever the constraints: give parameters fewer values (a "
			 "coarser step), or tune fewer at once (fix some in constants:, tune the rest, then the others "
			 "with those winners fixed)",
			 bits, np);
		return -1;
	}
	while (mask < 2 * want)
		mask <<= 1;
	unsigned long long *set = xcalloc(mask, sizeof *set), rng = SAMPLE_SEED, draws = 0;
	value *cur = xcalloc(np + 1, sizeof *cur);
	s->vals = xcalloc(want * np + 1, sizeof *s->vals);
	mask--;
	long long ref = cfg->has_reference ? product_code(cfg, cfg->reference) : -1;
	int rc = ref >= 0 ? holds(sh, cfg->reference, d) : 0;
	if (rc > 0) {
		set_add(set, mask, (unsigned long long)ref);
		memcpy(s->vals, cfg->reference, np * sizeof *cur);
		s->reference = 0;
		s->count = 1;
	}
	for (rc = rc < 0 ? -1 : 0; rc == 0 && s->count < want;) {
		if (++draws > space_max_draws) {
			diags_at(d, cfg->path, cfg->params[0].at.line, cfg->params[0].at.col,
				 "the space's valid configurations (%s%llu of %llu combinations) are too rare to sample: "
				 "narrow the space, or add constraints on its first parameters",
				 s->valid_over ? "over " : "", s->valid, sh->total);
			rc = -1;
			break;
		}
		unsigned long long code = 0;
		for (size_t k = 0; k < np; k++) {
			size_t i = (size_t)random_below(&rng, cfg->params[k].nvalues);
			cur[k] = cfg->params[k].values[i];
			code = code * cfg->params[k].nvalues + i;
		}
		int keep = holds(sh, cur, d);
		if (keep < 0)
			rc = -1;
		else if (keep && set_add(set, mask, code))
			memcpy(s->vals + s->count++ * np, cur, np * sizeof *cur);
	}
	s->sampled = rc == 0;
	free(set);
	free(cur);
	return rc;
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
