/* plan.h: the measuring stage's decisions as pure functions (plan.c); measure.c runs them. */
#ifndef AUTOTUNE_PLAN_H
#define AUTOTUNE_PLAN_H

#include <stddef.h>

#include "binary.h"
#include "expr.h"
#include "result.h"
#include "space.h"

typedef struct config config;

/* Seconds after which a configuration that has not answered is killed: measure.timeout, plus
 * time_cap, plus a multiple of the slowest finished configuration's warm-up and first launches. */
double plan_timeout(const config *cfg, double slowest_ms);
/* What a measurement gives beyond its times: throttling (the clock against max_mhz), GB/s and %
 * of the copy bandwidth (from the config's bytes), GFLOP/s (its flops). */
void plan_derive(const config *cfg, const value *params, result *r, int max_mhz, double copy_gbps);
/* Indices of the configurations that passed, fastest first (ties in index order); those that
 * share another's measurement stand aside. *count: how many; caller frees. */
size_t *plan_ranked(const result *res, size_t n, size_t *count);
/* Finalists are within this fraction of the fastest first-pass time; so is the second race. */
#define PLAN_FINAL_WITHIN 0.05
/* The ranking with the finalists first: of those within PLAN_FINAL_WITHIN of the fastest, the
 * `want` fastest, then every build of one of their launch shapes; *k: how many finalists.
 * Caller frees. */
size_t *plan_finalists(const result *res, size_t n, int want, size_t *k);
/* A finalist round's samples for a kernel whose sample takes sample_ms: `max` of them (fewer
 * when each takes long enough that one is as steady: about `round_ms` a round), and whether a
 * warm-up launch goes first (*warmup). */
int plan_final_samples(double sample_ms, int max, double round_ms, int *warmup);
/* Whether configuration r is still to run: not run yet, or (PLAN_RETRY_FAILED) crashed or timed
 * out, or (PLAN_RETRY_NO_ENERGY, measure.energy) passed without an energy reading, as an earlier
 * run's measurements have (the journal keeps times, not energy). */
enum { PLAN_RETRY_FAILED = 1, PLAN_RETRY_NO_ENERGY = 2 };
int plan_needs_run(const result *r, int retry);
/* Whether a and c run the same code with the same launch and scalar arguments. */
int plan_same_launch(const config *cfg, const space *sp, const build *b, const result *res, size_t a, size_t c);
/* A measured configuration that c can share (the same launch, see above), or -1. */
long long plan_twin(const config *cfg, const space *sp, const build *b, const result *res, size_t c);
/* to takes from's measurement, keeping its own launch and occupancy; from_index names from. */
void plan_copy_measurement(result *to, const result *from, long long from_index);
/* An earlier result measured other code than bin's: forgotten, its launch (and plan) kept. */
void plan_forget_stale(result *r, const binary *bin);
/* The same, and also when the result names the identity it measured and that is not ident
 * (plan_identity; NULL: not known). */
void plan_forget_unlike(result *r, const binary *bin, const char *ident);
/* What decides configuration c's measurement, as 16 hex digits into out: its binary's code and
 * entry, its launch (geometry, plan, scalar arguments, what verify.sum counts), the code of the
 * binaries its outputs are checked against (the named reference, verify.kernel), and setting,
 * what every configuration of the run shares (reuse_setting: inputs, measurement settings,
 * GPU and driver). Not its parameter values nor its index: a configuration of another space, or
 * of this one after an edit, with the same identity measures the same thing. */
void plan_identity(const config *cfg, const space *sp, const build *b, const result *res, size_t c, const char *setting,
		   char out[17]);
/* group[c]: the first configuration of c's reference group (verify.reference_per) in space
 * order; every configuration is in group 0 without it. Caller frees. */
size_t *plan_reference_groups(const config *cfg, const space *sp);

/* Why the named reference c, whose result r stands without a run (a compile that failed, in this
 * run or from the cache; a failure the journal holds), cannot serve, into d: a first run never
 * hears of an earlier one. */
void plan_reference_failed(const config *cfg, const space *sp, const build *b, const result *r, size_t c, diags *d);

/* What a configuration's binary says before it runs: compile-error (with the start of the log)
 * when it failed and nothing else was recorded, else resources and theoretical occupancy; and
 * its compile seconds when nvcc built it in this run. */
void plan_apply_binary(const binary *bin, int cc, result *r);

#endif
