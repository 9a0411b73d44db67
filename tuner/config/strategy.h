/* strategy.h: how a search is asked for (search.strategy and search.budget, --strategy and
 * --budget): the strategies by name, and a budget's three spellings. search.c runs them. */
#ifndef AUTOTUNE_STRATEGY_H
#define AUTOTUNE_STRATEGY_H

#include <stddef.h>

typedef enum { STRAT_EXHAUSTIVE, STRAT_RANDOM, STRAT_LOCAL, STRAT_ANNEAL, STRAT_GENETIC, STRAT_MODEL, STRAT_COUNT_ } strategy;
/* 0 and *s set for a strategy's name; -1 for another word. */
int strategy_parse(const char *name, strategy *s);
const char *strategy_name(strategy s);
/* "exhaustive, random, ...": for messages about an unknown name. */
extern const char strategy_list[];

/* Whether a run with strategy s and this budget searches (a strategy within a budget of
 * evaluations or seconds) rather than measuring the whole space of `count` configurations: the
 * compile pool then builds on demand, and a run that stops short is a search, not partial. */
int strategy_searches(strategy s, size_t budget, double seconds, size_t count);

/* A search budget: N evaluations (a whole number), N% of a space of `count` configurations
 * (rounded up; N at most 100), or a time, Ns, Nm or Nh (seconds, minutes, hours). Into
 * *evaluations (at most count) or *seconds, the other 0; -1 when it is none of those. */
int budget_parse(const char *text, size_t count, size_t *evaluations, double *seconds);
/* What a budget may be, for the messages that refuse one (a printf format: its % doubled). */
#define BUDGET_FORMS "evaluations (N), a fraction of the space (N%%, at most 100%%) or a time (Ns, Nm or Nh)"

#endif
