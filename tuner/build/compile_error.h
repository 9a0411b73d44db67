/* compile_error.h: what a failed compile says, read once for many: the kind of error (so that
 * binaries that fail alike, whatever their parameter values, are told as one), the fix it points
 * to, and when the first binaries all fail alike, that compiling the rest would only fail again. */
#ifndef AUTOTUNE_COMPILE_ERROR_H
#define AUTOTUNE_COMPILE_ERROR_H

#include <stddef.h>

#include "binary.h"

typedef struct config config;

/* A compile log as a kind of error: nvcc's diagnostics (without the echoed source and the count
 * of errors; the whole log when it has none), without the command line, every number and hash as
 * '#' and every path as its file name: binaries whose values differ, or whose source is a copy
 * rewritten for them, fail alike. Caller frees. */
char *compile_error_kind(const char *log);

/* The likely fix of the error in log, one clause naming what to change in the config (cfg->path)
 * or the command line; NULL when none can be told. An identifier nvcc does not know that the config
 * could define: "the kernel uses WG_Y, which neither k.yaml nor the kernel defines: ...". Caller frees. */
char *compile_error_fix(const config *cfg, const char *log);

/* The first line of log that is one of nvcc's diagnostics, or its first line (NULL for NULL), as
 * a static string (overwritten by the next call). */
const char *compile_error_line(const char *log);

/* The run of failures from the first binary on: `bound` binaries (0: no bound, --keep-going) that
 * all failed with one kind of error and none built stop the build (compile.c). */
typedef struct {
	size_t bound;
	char *kind;   /* the first failure's kind */
	size_t alike; /* binaries done that failed with it */
	int broken;   /* one built, or failed otherwise: the build goes on */
	size_t first, n, step; /* the order a build of everything takes meanwhile (repeat_spread) */
} repeat;

/* The order of n binaries in which a build of everything compiles while every one done has
 * failed alike: `first` (the reference's), then spread over the plan, so that the first few do
 * not all share the values of the slowest parameters (a value that fails alone is not a kernel
 * that fails), and so that a run again looks up in the cache the very binaries this one
 * compiled. repeat_start sets it up; repeat_spread(r, i) is the i-th binary, i < n. */
void repeat_start(repeat *r, size_t bound, size_t first, size_t n);
size_t repeat_spread(const repeat *r, size_t i);

/* A binary is done (built, failed, or from the cache): counted. Stopped ones (killed) are not. */
void repeat_note(repeat *r, const binary *bin);
/* Whether no more compiles may start with `running` in flight: each could make the bound. */
int repeat_holds(const repeat *r, size_t running);
/* Whether the bound is reached, nothing in flight: the rest is not to be compiled. */
int repeat_over(const repeat *r, size_t running);
void repeat_free(repeat *r);

#endif
