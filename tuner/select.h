/* select.h: picks the winning configuration from the measured ones and says why. */
#ifndef AUTOTUNE_SELECT_H
#define AUTOTUNE_SELECT_H

#include <stddef.h>

#include "result.h"

/* The fastest configuration by median time among those with status ok (ties: the earlier one).
 * -1 when none passed. */
long long select_winner(const result *res, size_t n);

#endif
