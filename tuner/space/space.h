/* space.h: the configurations to tune: every combination of parameter values that satisfies
 * the constraints, in a fixed order (first parameter outermost). */
#ifndef AUTOTUNE_SPACE_H
#define AUTOTUNE_SPACE_H

#include "diag.h"
#include "expr.h"
#include "names.h" /* space_describe: a configuration in messages */
#include "result.h"

typedef struct config config;

typedef struct space {
	size_t nparams;
	size_t count;      /* configurations held: the valid ones, or a sample of them */
	size_t total;      /* combinations before constraints */
	unsigned long long valid; /* valid configurations: count, unless sampled */
	int valid_over;    /* valid is a lower bound: there were too many to count */
	int sampled;       /* vals is a uniform sample of the valid configurations (space_enumerate_sampled) */
	value *vals;       /* count x nparams */
	long long reference; /* index of the verification reference, -1 if none */
} space;

static inline const value *space_config(const space *s, size_t i) { return s->vals + i * s->nparams; }

/* What an enumeration may keep, in parameter values (a configuration is nparams of them); the
 * product of the value lists has no ceiling. Tests lower it. */
extern size_t space_max_values;
/* How far a space too large to hold is walked to count it (past that, its count is a lower
 * bound), and how many draws its sample may take; tests lower them. */
extern unsigned long long space_max_count_checks, space_max_draws;

/* 0 on success. -1 when a constraint cannot be evaluated, the space is empty or the named
 * reference is not in it, or its valid configurations are more than can be held, with the reason
 * in d. */
int space_enumerate(const config *cfg, space *s, diags *d);

/* A space with more valid configurations than can be held is searched in a sample of them. */
#define SPACE_SAMPLE 65536
/* space_enumerate, except that a space too large to hold keeps a uniform sample of SPACE_SAMPLE of
 * its valid configurations (counted in valid), the same for every run of the config, the verify
 * reference first; sampled says so. */
int space_enumerate_sampled(const config *cfg, space *s, diags *d);
void space_free(space *s);

/* Keeps shard `shard` of `nshards`: the configurations whose index in the whole space is
 * shard modulo nshards (interleaved, so neighbours of similar cost spread over the shards),
 * plus a named verify reference, which every shard measures to check against. */
void space_shard(space *s, int has_reference, int shard, int nshards);

/* Each configuration's launch geometry (block, grid, dynamic shared memory) into res. An
 * expression that cannot be evaluated for some configuration is a config error, reported with
 * that configuration; -1 then. */
int space_eval_geometry(const config *cfg, const space *sp, result *res, diags *d);
/* The same check without keeping the geometry (what `validate` and `import` need): 0, or -1
 * with the first configuration whose launch does not evaluate. */
int space_check_geometry(const config *cfg, const space *sp, diags *d);

#endif
