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

/* r's objective and score (result.h) from its measurement, as measured so far: call again when
 * its time changes (the finalists' rounds). A configuration that did not pass has none. */
void objective_apply(const config *cfg, const value *params, result *r);
/* Metric i of configuration params for r into *out: 0, or -1 (nothing to write: it did not pass,
 * or a name it uses has no value, such as joules where energy was not measured). */
int objective_metric(const config *cfg, const value *params, const result *r, size_t i, double *out);
/* Why r's objective could not be evaluated (scored 2), into buf; "" otherwise. */
void objective_why(const config *cfg, const value *params, const result *r, char *buf, size_t len);

#endif
