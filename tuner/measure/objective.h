/* objective.h: what a configuration is worth beyond its time: select.objective, the expression
 * the selection and the search rank by, and metrics:, named expressions written to the CSV and
 * the report. Both may use constants, parameters and the measured names (config.h); the
 * objective may also use the metrics, a metric the ones before it. config_objective.c loads them. */
#ifndef AUTOTUNE_OBJECTIVE_H
#define AUTOTUNE_OBJECTIVE_H

#include <stddef.h>

#include "config.h"
#include "result.h"

/* the energy window's least length: the worker also waits for enough of the counter's updates
 * (worker/energy.h), so this only keeps very fine counters from reading over too few launches */
#define ENERGY_WINDOW_S 0.1
/* and the longest it runs (worker/energy.h's ENERGY_MAX_S times ENERGY_TRIES windows), besides
 * their last launches: a kernel timed with energy may take this much longer before it answers */
#define ENERGY_WINDOW_MAX_S 30.0

/* r's objective and score (result.h) from its measurement, as measured so far: call again when
 * its time changes (the finalists' rounds). A configuration that did not pass has none. */
void objective_apply(const config *cfg, const value *params, result *r);
/* What the objective of configuration params scores per millisecond of its launch when it is a
 * time scaled by what the configuration does (time per step, the reciprocal of GFLOP/s: racing
 * on time then races on it), 1 without an objective, 0 when it is not (energy, a sum). */
double objective_per_ms(const config *cfg, const value *params);
/* A best rank so far (the time, or the objective's score; 0: none) as a time of this
 * configuration's launch: what racing compares its samples with; 0 when nothing can race. */
double objective_best_ms(const config *cfg, const value *params, double best_rank);
/* Metric i of configuration params for r into *out: 0, or -1 (nothing to write: it did not pass,
 * or a name it uses has no value, such as joules where energy was not measured). */
int objective_metric(const config *cfg, const value *params, const result *r, size_t i, double *out);
/* Why r's objective could not be evaluated (scored 2), into buf; "" otherwise. */
void objective_why(const config *cfg, const value *params, const result *r, char *buf, size_t len);

#endif
