/* strategy.c: the search's words: strategy names and budgets. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strategy.h"
#include "banned.h"

static const char *const strategy_names[STRAT_COUNT_] = {"exhaustive", "random", "local", "anneal", "genetic", "model"};
const char strategy_list[] = "exhaustive, random, local, anneal, genetic, model";

const char *strategy_name(strategy s) { return strategy_names[s]; }

int strategy_parse(const char *name, strategy *s)
{
	for (int i = 0; i < STRAT_COUNT_; i++)
		if (!strcmp(name, strategy_names[i])) {
			*s = (strategy)i;
			return 0;
		}
	return -1;
}

int budget_parse(const char *text, size_t count, size_t *evaluations, double *seconds)
{
	*evaluations = 0;
	*seconds = 0;
	char *end;
	double v = strtod(text, &end);
	/* a time's unit: "until I stop it" is minutes or hours more often than seconds */
	double unit = *end == 's' ? 1 : *end == 'm' ? 60 : *end == 'h' ? 3600 : 0;
	int pct = *end == '%', time = unit > 0;
	if (end == text || (*end && !pct && !time) || ((pct || time) && end[1]) || !(v > 0) || !isfinite(v) ||
	    (!pct && !time && v != floor(v)) || (pct && v > 100) || !isfinite(v * unit))
		return -1;
	if (time)
		*seconds = v * unit;
	else {
		double n = pct ? ceil(v / 100 * (double)count) : v;
		*evaluations = n < (double)count ? (size_t)n : count;
	}
	return 0;
}

int strategy_searches(strategy s, size_t budget, double seconds, size_t count)
{
	return s != STRAT_EXHAUSTIVE || (budget && budget < count) || seconds != 0;
}
