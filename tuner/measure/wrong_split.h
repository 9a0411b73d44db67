/* wrong_split.h: when a run's wrong-results follow its parameters (wrong_split.c). */
#ifndef AUTOTUNE_WRONG_SPLIT_H
#define AUTOTUNE_WRONG_SPLIT_H

#include "result.h"
#include "space.h"

typedef struct config config;

/* The smallest set of parameters (at most 3, and the only one of its size) whose values all the
 * ok configurations share and every wrong-result differs from: 1 with the set in set[0..*nset),
 * 0 when there is none, fewer than 2 ok or no wrong-result, or the reference is not a
 * configuration of the space (verify.host, verify.kernel, reference_per). */
int wrong_split(const config *cfg, const space *sp, const result *res, size_t *set, size_t *nset);
/* That set, said as the likely cause with the fix (verify.reference_per), on stderr. */
void summary_wrong_split(const config *cfg, const space *sp, const result *res);

#endif
