/* bought.h: what tuning bought, the report's first section: per problem size, the winner against
 * the baseline (the row flagged `baseline`: select.baseline, else the named verify reference), the
 * speedup and the time saved per launch, and the recipe that builds the winner. */
#ifndef AUTOTUNE_BOUGHT_H
#define AUTOTUNE_BOUGHT_H

#include <stdio.h>

#include "view.h"

/* The section, for results that were measured (not a dry run's). */
void bought_report(FILE *f, const view *v);

#endif
