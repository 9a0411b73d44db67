/* compile.h: turns the space into binaries: one nvcc run per distinct combination of
 * compile-time values (defines and the register cap), several at a time, with the resources
 * ptxas reports for the entry point. */
#ifndef AUTOTUNE_COMPILE_H
#define AUTOTUNE_COMPILE_H

#include <signal.h>

#include "binary.h"
#include "cubin.h"
#include "diag.h"
#include "expr.h"
#include "space.h"

typedef struct config config;
typedef struct param param;

/* The kernel source with every `#pragma unroll NAME` (NAME a parameter or constant) given its
 * value, or dropped for 0 ("no pragma"), after a #line directive so messages name the original (its
 * resolved path: the copy, and so its compile's cache key, is the same from every directory):
 * nvcc does not macro-expand a pragma's argument. What the tuning compiled, and what the tuned
 * header's recipe ships beside it. NULL when the source cannot be read; caller frees. */
char *compile_rewrite_pragmas(const config *cfg, const value *vals, size_t *len);

typedef void (*build_progress_fn)(void *ctx, size_t done, size_t total);

/* How a pool builds, named at the call: (build_opts){ .nvcc = n, .arch = a, .jobs = j, ... }. */
typedef struct {
	const char *nvcc;
	const char *arch;
	const char *workdir;         /* where binaries go without a cache */
	int jobs;                    /* nvcc processes at once (at least 1) */
	int keep_going;              /* build everything even when the first 2 x jobs all fail alike */
	double timeout_s;            /* per nvcc run */
	build_progress_fn progress;  /* or NULL */
	void *ctx;                   /* progress's */
	diags *d;                    /* why nvcc could not be run */
} build_opts;

/* Builds every binary of the plan: from b->cache when it has a valid entry (a compile that
 * failed too, unless b->retry_failures), else with up to `jobs` nvcc processes at once (into the
 * cache, or workdir without one). A failing compile marks its binary failed and goes on, but once
 * the first 2 x jobs binaries done all failed with one kind of error (compile_error.h) and none
 * built, the rest are not compiled (without opt->keep_going): failed, killed and held, and
 * b->held_after says so. Returns -1 only when nvcc cannot be run at all (reason in d). */
int build_run(const config *cfg, const space *s, build *b, const build_opts *opt);

/* The same pool, for overlapping compiles with measuring: build_begin starts the first jobs,
 * build_wait returns once binary `bin` is built (starting it ahead of the others if it has not
 * started), build_end finishes the rest and frees the pool (*seconds: from begin until the last
 * binary was done). The
 * wait and end return -1 when nvcc cannot be run (reason in d). */
typedef struct builder builder;
builder *build_begin(const config *cfg, const space *s, build *b, const build_opts *opt);
int build_wait(builder *bd, size_t bin);
int build_end(builder *bd, double *seconds);
/* Once *flag or *also is set (a signal, or a journal that cannot be written, stops the run; either
 * may be NULL), the wait and end kill the compiles in flight and start no more: the binaries not
 * built are failed with `killed` set. */
void build_stop_when(builder *bd, const volatile sig_atomic_t *flag, const volatile sig_atomic_t *also);

/* A pool for a search, which measures a small part of the space: it compiles only what is waited
 * for, and in the free slots what build_hint() names, at most as many binaries ahead as have been
 * waited for plus one per job; build_end then builds nothing more and marks the binaries never
 * started (or cut short) failed, killed and skipped: not run, not errors. */
builder *build_begin_on_demand(const config *cfg, const space *s, build *b, const build_opts *opt);
/* The binaries a search expects to wait for next, most likely first; replaces the last hint. A
 * pool that builds everything builds these first, in this order. */
void build_hint(builder *bd, const size_t *bins, size_t n);
/* The binaries the search will wait for next whatever their results (ahead.h): built before
 * hinted ones, the longest predicted first; replaces the last list. */
void build_commit(builder *bd, const size_t *bins, size_t n);
/* One turn of the pool for a search that waits for bin (as build_wait counts it): free slots
 * filled, then up to wait_ms for a compile to end. Returns what build_wait returns. */
int build_poll(builder *bd, size_t bin, int wait_ms);
/* Whether bin is built (or failed, or will never be). */
int build_done(const builder *bd, size_t bin);
/* The pool's order and compile-time model (ahead.h), owned by the pool. */
struct ahead *build_ahead(builder *bd);

/* The nvcc to use: $NVCC (a path, or a bare name looked up on PATH), else nvcc on PATH, else
 * $CUDA_HOME/bin/nvcc, else /usr/local/cuda/bin/nvcc. NULL if none is executable. Caller frees. */
char *find_nvcc(void);

/* The directory nvcc's own binary is in, beside ptxas and nvlink, through symlinks and wrapper
 * scripts; NULL when it cannot be told. Caller frees. */
char *nvcc_bindir(const char *nvcc);

#endif
