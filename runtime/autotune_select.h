/* autotune_select.h: choosing a tuned configuration at run time, without rebuilding. A program
 * loads autotune's results, the CSV or the run's T4 file (--t4), once (autotune_results_load) and
 * asks, for each problem it runs, which configuration to use (autotune_pick): the winner of the
 * tuned instance whose constants these are, else of the nearest tuned instance, as the tuned
 * header's NAME_select() picks: the least sum over the constants of (ln value - ln tuned)^2, the
 * first of equals. Results of one problem (no instances) have one winner, picked for every problem.
 *
 * Link with -lautotune_select, and -lyaml after the static library (pkg-config [--static]
 * autotune-select; CMake: Autotune::select). C and C++. */
#ifndef AUTOTUNE_RUNTIME_SELECT_H
#define AUTOTUNE_RUNTIME_SELECT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct autotune_results autotune_results;

/* Loads the results at path: autotune's CSV, or its T4 file (JSON: the first non-space character
 * is '{'), which give the same picks and fields. spec_hash: the spec the program was built for
 * (the header's NAME_SPEC_HASH, or `autotune validate --print-spec-hash CONFIG`); results of
 * another spec are stale and refused. NULL skips that check. NULL on failure, with the reason in
 * err (errlen bytes, err may be NULL): among them, a T4 file of another tool or a Kernel Tuner
 * cache file (no spec or instance information), a file cut short (path:line:col), a result without
 * a spec_hash when spec_hash is given, an instance's constant that is not a positive finite
 * number, what is not a regular file (a pipe, /dev/zero), a NUL byte, a file past 1 GiB or a row
 * past 1 MiB, and running out of memory: the library never hangs, aborts or exits its host
 * program. Free with autotune_results_free. */
autotune_results *autotune_results_load(const char *path, const char *spec_hash, char *err, size_t errlen);
void autotune_results_free(autotune_results *r);

/* The instance's constants, in the order autotune_pick takes them (none for results of one
 * problem), and the tuned parameters. */
size_t autotune_constants(const autotune_results *r);
const char *autotune_constant_name(const autotune_results *r, size_t k);
size_t autotune_params(const autotune_results *r);
const char *autotune_param_name(const autotune_results *r, size_t p);

/* The pick for a problem of these constants (autotune_constants(r) values) on device (the GPU's
 * name as the results write it, cudaGetDeviceProperties' name; NULL: any): the tuned instance, or
 * the nearest; among instances measured on that device when there are any. An index for the
 * functions below, or -1 when a value is not a positive finite number or nothing passed. */
long autotune_pick(const autotune_results *r, const double *constants, const char *device);

/* The picked configuration's value of parameter p; its median time; its instance (0-based, -1 for
 * results of one problem); any column of its row as written ("" when absent). */
double autotune_param(const autotune_results *r, long pick, size_t p);
double autotune_time_ms(const autotune_results *r, long pick);
long autotune_instance(const autotune_results *r, long pick);
const char *autotune_field(const autotune_results *r, long pick, const char *column);

/* ln as the tuned header computes it (no libm), so the picks are the same bit for bit; NaN for a
 * value not positive (or NaN), infinity for infinity. */
double autotune_ln(double x);

#ifdef __cplusplus
}
#endif

#endif
