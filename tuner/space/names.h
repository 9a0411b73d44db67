/* names.h: a configuration as messages name it, by its parameters' values; below space and
 * launch_plan, which both name configurations. */
#ifndef AUTOTUNE_NAMES_H
#define AUTOTUNE_NAMES_H

#include "expr.h"

typedef struct config config;

/* "block_x=32 block_y=16 maxrreg=0"; the caller frees it. */
char *space_describe(const config *cfg, const value *params);

#endif
