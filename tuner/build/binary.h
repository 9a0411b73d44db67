/* binary.h: what the compile stage makes: a binary per distinct combination of compile-time
 * values, and the build of them all, with its plan (binary.c). Below compile.c and the stages that
 * read its binaries (signature, search, measure, the results): they need not the compile pool. */
#ifndef AUTOTUNE_BINARY_H
#define AUTOTUNE_BINARY_H

#include <stddef.h>

#include "cubin.h"

typedef struct config config;
typedef struct space space;
typedef struct launch_plan_cfg launch_plan_cfg;

typedef struct {
	size_t first_config; /* a configuration built by this binary, to name it in messages */
	char *entry;         /* the entry point it is built for (the config's, placeholders filled) */
	char *cubin;         /* path of the result */
	int cached;          /* taken from the cache: no nvcc ran (a compile that failed too) */
	char code[17];       /* hash of what the GPU executes (cubin_code_hash): equal means same kernel */
	char kernel[17];     /* the entry's own code (cubin_kernel_hash): what `autotune check` finds */
	int failed;          /* compile-error: log says why */
	int killed;          /* failed because SIGTERM, SIGINT or SIGHUP stopped nvcc, or never built: not run */
	int skipped;         /* with killed: a search never needed it, so it was never built (not run) */
	int held;            /* with killed: never built, as the first binaries all failed alike (not run) */
	int bad_args;        /* failed because the config's arguments do not fit the kernel's parameters */
	int unchecked;       /* its cubin's parameter table could not be read: arguments not checked */
	char *log;           /* nvcc's output */
	double seconds;
	kernel_resources res;
	/* with a plan (config.plan): each launch's entry, as res is the first's; plan_res[k] is
	 * launch k's (nplan of them once built) */
	const launch_plan_cfg *plan;
	kernel_resources *plan_res;
	size_t nplan;
} binary;

struct cubin_cache;

typedef struct {
	binary *bins;
	size_t nbins;
	size_t *of_config; /* configuration index -> binary index */
	struct cubin_cache *cache; /* or NULL: compile into the work directory */
	const char *identity;      /* the compiler's identity, for cache keys */
	size_t nvcc_runs, cache_hits;
	int retry_failures;        /* compile again what the cache holds as failed (--fresh) */
	size_t held_after;         /* the build stopped once this many failed alike (0: it did not) */
	long long ref_bin;         /* the reference kernel's binary (verify.kernel), or -1 */
} build;

/* Groups configurations by their compile-time values; no compiling. */
void build_plan(const config *cfg, const space *s, build *b);
void build_free(build *b);

#endif
