/* config.h: a tuning problem as read from its YAML file, every value checked and every
 * expression parsed, with the file position of each so later stages can still point at it. */
#ifndef AUTOTUNE_CONFIG_H
#define AUTOTUNE_CONFIG_H

#include <stddef.h>
#include <stdio.h>

#include "diag.h"
#include "elem.h"
#include "expr.h"
#include "scope.h"
#include "select_policy.h"

/* Bytes one array may take: far beyond any GPU, and small enough that no sum of a config's
 * arrays (each held up to three times) overflows. */
#define MAX_ARRAY_BYTES (1ull << 48)

typedef struct config config;

typedef enum { FILL_RANDOM, FILL_CONSTANT, FILL_ZEROS, FILL_NORMAL, FILL_INDEX, FILL_COPY, FILL_EXPR, FILL_FILE } fill_kind;
const char *fill_name(fill_kind f);

/* A data file of an array's elements (fill: {file}, verify.expected), checked at load against
 * the argument's type and count. */
typedef struct {
	char *path;               /* absolute, so the worker reads it wherever it runs; NULL: none */
	unsigned long long offset; /* bytes before the first element: an .npy file's header, or 0 */
	mark at;                  /* the file's name in the config */
} data_file;

typedef struct {
	char *name;
	mark at;
	elem_type type;
	int is_array;
	/* arrays: allocated and filled once per tuning session, so the count may use constants only */
	long long count;
	fill_kind fill;
	double fill_value;        /* constant fill */
	unsigned long long seed;  /* random and normal fills */
	int copy_of;              /* fill: copy: the argument whose contents this one starts with */
	cexpr fill_expr;          /* fill: {expr: ...} of the element index i (and vector lane) */
	data_file fill_file;      /* fill: {file: PATH} */
	cexpr expect;             /* verify.expect: the value every element must have, of i and lane */
	data_file expected;       /* verify.expected: the file of what the output must equal */
	int output;               /* compared against the reference run */
	int restore;              /* the kernel overwrites it: restored before every launch */
	int constant;             /* copied into the module's __constant__ symbol of its name, not passed */
	/* scalars: evaluated per configuration (may use parameters) */
	cexpr value;
} kernel_arg;

typedef struct param {
	char *name;
	mark at;
	value *values;
	size_t nvalues;
	int is_define;  /* passed to nvcc as -DNAME=value */
	int is_maxreg;  /* passed to nvcc as -maxrregcount=value */
	int is_entry;   /* named in the kernel entry ("mathKernel${variant}") */
	int is_pragma;  /* named by a `#pragma unroll NAME` in the source */
	int is_srcdef;  /* the line of the source's own `#define NAME value`, which the compile stage
			 * rewrites with each value (NAME not in build.defines); 0: none */
} param;

/* Whether a parameter's values reach the compiler (a define, the register cap, the entry's
 * placeholder, a `#pragma unroll` name, a #define of the source): each distinct value is
 * another binary. */
static inline int param_is_compile_time(const param *p)
{
	return p->is_define || p->is_maxreg || p->is_entry || p->is_pragma || p->is_srcdef;
}

typedef struct {
	char *name;
	value v;
	mark at;
} constant;

/* instances: the problems a run tunes, each a value for every constant named (config_instances.c):
 * a grid ({n: [1024, 4096]}) or a list of maps ([{nx: 1024, ny: 512}, ...]), of at most
 * INSTANCES_MAX (docs/config.md: each instance is a whole tuning run). */
#define INSTANCES_MAX 1000000
typedef struct {
	char **names;   /* the constants that vary, in the order written */
	size_t nnames;
	value *vals;    /* ninst rows of nnames values, each positive */
	size_t ninst;   /* 0: none, one problem of the constants as written */
	mark at;
} instance_set;

/* plan: a sequence of launches of one source, run in every one of `streams` streams, depth-first
 * (each stream's launches before the next stream's) or breadth-first (each launch in every
 * stream before the next launch), timed as a whole (config_plan.c loads it, launch_plan.c
 * evaluates it per configuration). */
#define PLAN_MAX_LAUNCHES 64
#define PLAN_MAX_STREAMS 1024
/* CUDA_DEVICE_MAX_CONNECTIONS: the hardware work queues a context gets, 1 to 32 */
#define PLAN_MAX_CONNECTIONS 32
/* without plan.connections and without CUDA_DEVICE_MAX_CONNECTIONS set: CUDA's own default */
#define PLAN_DEFAULT_CONNECTIONS 8

typedef struct plan_launch {
	char *entry;
	mark at;
	/* NULL e and has_* 0: the plan's default geometry (launch:, else the first launch's) */
	cexpr block[3], grid[3], shared_mem;
	int has_block, has_grid, has_smem;
	int *args;      /* the kernel's parameters in order, as indexes of cfg->args */
	size_t nargs;
} plan_launch;

typedef struct launch_plan_cfg {
	plan_launch *launches; /* none: no plan, one launch per configuration */
	size_t nlaunches;
	cexpr streams;         /* NULL e: 1 */
	cexpr order;           /* 0 depth-first, 1 breadth-first; NULL e: order_word */
	int order_word;        /* the order as written, when a word: 0 depth-first, 1 breadth-first */
	cexpr connections;     /* NULL e: default_connections */
	int default_connections; /* CUDA_DEVICE_MAX_CONNECTIONS of autotune's environment, else 8 */
	mark at;
} launch_plan_cfg;

enum { METRICS_ALL, METRICS_NONE, METRICS_TOP, METRICS_AUTO };

/* metrics: one named expression (objective.h) */
typedef struct {
	char *name;
	cexpr x;
} user_metric;

/* measure.energy: auto (measured when the objective or a metric uses joules or watts), always,
 * never */
enum { ENERGY_AUTO, ENERGY_ALWAYS, ENERGY_NEVER };

struct config {
	char *path;    /* the config file as given */
	char *name;    /* `name:` or the file's base name; prefixes the header's macros */

	char *source;  /* kernel source, resolved against the config file's directory */
	mark source_at;
	char *entry;
	mark entry_at;
	int rewrite_pragmas;  /* the source has `#pragma unroll NAME` with NAME a parameter or constant,
			      * or a #define of a parameter (is_srcdef): compiled from a rewritten copy */
	char *arch;    /* "sm_90" or NULL: the GPU found, or --arch */

	constant *constants;
	size_t nconstants;
	instance_set instances;
	long instance;  /* the instance these constants are (config_load_instance), -1: as written */
	kernel_arg *args;
	size_t nargs;
	param *params;
	size_t nparams;
	cexpr *constraints;
	size_t nconstraints;

	cexpr block[3], grid[3], shared_mem;
	launch_plan_cfg plan;  /* plan: several launches over several streams; none: one launch */

	char **nvcc_flags;        /* -I for build.include, then build.flags, -D for constants in build.defines */
	size_t nflags;
	size_t nincludes;         /* the first nincludes of nvcc_flags are build.include's -I */
	int rdc;                  /* build.rdc: relocatable device code, linked with the device runtime */

	/* verify */
	int has_reference;
	value *reference;  /* one value per parameter */
	mark reference_at;
	int sum_out, sum_in;   /* verify.sum: argument indexes, or -1 */
	int sum_max;           /* verify.sum.op: max compares maxima instead of sums */
	cexpr sum_count;       /* how many elements of the output count (may use parameters) */
	cexpr sum_equals;      /* or the value the sum must equal, instead of an input's sum */
	long long sample;      /* verify.sample: compare about this many evenly spaced elements; 0: all */
	long long max_mismatches; /* verify.max_mismatches: integer outputs may differ in this many elements */
	char *ref_entry;       /* verify.kernel: a reference kernel in the same source, or NULL */
	cexpr ref_block[3], ref_grid[3], ref_smem; /* its launch (constants only) */
	size_t *ref_per;       /* verify.reference_per: parameter indexes; a reference per group */
	size_t nref_per;
	double rtol, atol;     /* NaN when not set: each output's type's default (elem_default_rtol) */
	/* verify.host: a C function of the kernel's arguments, built with the host compiler and
	 * called once on the inputs: the outputs it writes are what every configuration must equal */
	struct {
		char *source;   /* absolute; NULL: none */
		char *function;
		char **flags;   /* more host compiler arguments */
		size_t nflags;
		value *scalars; /* per argument: a scalar's value (constants only: one call serves the run) */
		mark at;
		char *so;       /* the shared object this run built (hostref_build), for the workers */
	} host;

	/* measure */
	int warmup;
	int min_samples, max_samples;
	double noise_target;   /* relative noise of the median to reach */
	double time_cap;       /* seconds of sampling per configuration */
	double race;           /* raced out: fastest of the first samples over race x the best so far (0: off) */
	int cache_warm;        /* measure.cache: 0 (cold) flushes L2 between samples */
	int metrics;           /* METRICS_* */
	int metrics_top;       /* K for METRICS_TOP */
	int finalists;         /* re-timed interleaved at the end; 0 or 1: none */
	int verify_every;      /* verify after every timed sample */
	int pending_launches;  /* device-side launches the device runtime holds at once; 0: the driver's */
	double timeout;        /* seconds: the floor of the hung-kernel timeout */

	select_policy select;  /* select: how the winner is chosen */
	value *baseline;       /* select.baseline: the configuration the user shipped (one value per
				 * parameter), what the report compares the winner with; NULL: none named */

	/* search: which configurations to measure (search.h); NULL/0: everything */
	char *search_strategy;
	char *search_budget;   /* "N", "N%" or "Ns" */
	unsigned long long search_seed;

	/* optional work per launch, for GB/s and GFLOP/s */
	cexpr bytes, flops;

	/* select.objective (its text and direction are in select) and metrics: (objective.h) */
	cexpr objective;       /* NULL e: time decides */
	user_metric *umetrics; /* metrics: named expressions, written to the CSV and the report */
	size_t numetrics;
	int energy;            /* measure.energy: ENERGY_* */
	int measure_energy;    /* measure.energy resolved: always, or auto and named by the objective or a metric */

	char *csv_path, *header_path;
	int write_t4;          /* output.t4: the results also as a T4 file beside the CSV (NAME.t4.json) */

	/* what the loader warns of, each "file:line:col: warning: ...": legal but likely a slip (no
	 * output, an output the kernel may read); the caller shows them (diags_print) */
	diags warnings;
};

/* Names a metric may not take: the results CSV's own columns, which it would repeat, and the
 * measured names objectives and metrics use: time_ms and time_s (the deciding time of one launch),
 * gbps and gflops (with bytes: and flops:), joules (per launch) and watts (with measure.energy). */
int config_reserved_name(const char *name);

/* build.maxrregcount: parameter i with value v becomes "-maxrregcount=V" in buf (1), unless it is
 * not that parameter or V is 0, no cap (0). */
int config_maxreg_flag(const config *cfg, size_t i, value v, char *buf, size_t len);

/* measure.metrics' value (all, none, top:K) into *mode (METRICS_*) and *top: 0, or -1. */
int config_parse_metrics(const char *text, int *mode, int *top);

/* The command line's overrides of a loaded config, applied by config_override in one place,
 * right after loading: from then on the config is read-only. */
typedef struct {
	const char *metrics;  /* --metrics, or NULL */
	int shard, nshards;   /* --shard I/N (nshards 0: none): the CSV becomes NAME.shard-I-of-N.csv */
} config_overrides;
int config_override(config *cfg, const config_overrides *ov, diags *d);

/* 0 on success, the loader's warnings in cfg->warnings for the caller to show. On failure returns
 * -1 with every problem found in d (file:line:col: message) and leaves *cfg empty; config_free is
 * safe either way. */
int config_load(const char *path, config *cfg, diags *d);
/* The same without the warnings a config's first load collects: for a later stage that loads the
 * config again (the header, an output check), so that each is said once. */
int config_load_quietly(const char *path, config *cfg, diags *d);
void config_free(config *cfg);
/* config_load_quietly with the constants of instance i of the config's instances: (its CSV is still
 * output.csv: the run names each instance's part, config_instance_suffix). */
int config_load_instance(const char *path, size_t i, config *cfg, diags *d);
/* Whether cfg is one instance of several (config_load_instance): a part of the run. */
static inline int config_is_instance(const config *cfg) { return cfg->instances.ninst && cfg->instance >= 0; }
/* Instance i as "nx=1024 ny=512", for messages and reports; as ".nx-1024-ny-512", for the names
 * of its part files. Caller frees. */
char *config_instance_label(const config *cfg, size_t i);
char *config_instance_suffix(const config *cfg, size_t i);

/* The spec hash (hash_spec) of a loaded config: the config file, the kernel source and the
 * contents of its data files, host reference and the headers the source includes (includes_of). */
void config_spec_hash(const config *cfg, char out[17]);

/* Whether verify.host gives output argument i: an output no expect, expected or sum check gives. */
int config_host_gives(const config *cfg, size_t i);

/* If line is `#pragma unroll NAME` (any spacing), the offsets of NAME in it; else 0. */
int pragma_unroll_name(const char *line, size_t *start, size_t *len);
/* Whether line is `#define NAME ...` (any spacing): NAME's offset and length. */
int define_name(const char *line, size_t *start, size_t *len);
/* When line is the #define of a parameter the copy rewrites (is_srcdef), that define with the
 * parameter's value in vals written to out instead: 1; else 0, nothing written. */
int source_define_put(const config *cfg, const value *vals, const char *line, FILE *out);

/* Whether parameter p's values are strings (types, kernel names; config_source.c). */
static inline int param_is_string(const param *p) { return p->nvalues && p->values[0].kind == VAL_STR; }
/* A value of p as results files are matched against the space: a number as itself, a string
 * parameter's value (given as text, or as v when text is NULL) as its index in p's list, -1 when
 * the list lacks it. */
double param_value_key(const param *p, const char *text, value v);

/* After the copy's source: a template-id entry's instance taken by address, so that nvcc compiles
 * it (config_source.c). */
void source_entry_put(const config *cfg, const value *vals, FILE *out);

/* The entry point for these parameter values: the entry with its ${param} placeholders filled.
 * Caller frees. */
char *config_entry(const config *cfg, const value *params);

/* A config key that is a plain value (config_keys.c's tables): its name within its section,
 * kind, bounds (integers) or words (an enumerated setting: the field is the word's index), default
 * as docs/config.md writes it, and the config field it lands in. */
typedef enum { KEY_INT, KEY_FRACTION, KEY_SECONDS, KEY_BOOL, KEY_NONNEGATIVE, KEY_ENUM } key_kind;
typedef struct {
	const char *name;
	key_kind kind;
	long long lo, hi;
	const char *dflt;
	size_t offset;
	const char *const *words; /* KEY_ENUM: NULL-ended */
} plain_key;
/* Every section's table of plain keys, up to one with a NULL section. A section of a section is
 * named with a dot ("select.weights"). */
typedef struct {
	const char *section;
	const plain_key *rows;
	size_t n;
} key_table;
extern const key_table config_key_tables[];
/* The kind as docs/config.md's table names it: integer, fraction, seconds, bool, number; for
 * KEY_ENUM the words ("`balanced` or `fastest`") into buf. */
const char *plain_key_type(const plain_key *k, char *buf, size_t len);

/* The selection policy of a config that says nothing under select: the key table's defaults. */
select_policy config_select_defaults(void);

#endif
