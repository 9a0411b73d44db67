/* select_policy.h: how the winner is chosen, as a config's select: section gives it and a
 * results file's `policy` column records it; select.c chooses by it. */
#ifndef AUTOTUNE_SELECT_POLICY_H
#define AUTOTUNE_SELECT_POLICY_H

#include <stddef.h>

/* the longest select.objective the loader takes (it travels in every row's policy column) */
#define OBJECTIVE_TEXT_MAX 400

typedef enum { POLICY_BALANCED, POLICY_FASTEST } policy_kind;

typedef struct {
	policy_kind kind;        /* select.policy: fastest, or balance among the tied */
	double w_occupancy;      /* select.weights: the balance score's weights */
	double w_load_efficiency;
	double noise_band;       /* select.noise_band: k combined standard errors */
	/* select.objective's text ("" none: time decides) and whether it is maximised; the
	 * values are the results' `objective` column */
	char objective[OBJECTIVE_TEXT_MAX];
	int maximize;
} select_policy;

/* select.policy's words, in policy_kind's order, NULL-ended. */
extern const char *const policy_names[];

/* The policy as a results file records it ("balanced;noise_band=2;occupancy=1;load_efficiency=1",
 * then ";minimize=EXPR" or ";maximize=EXPR" with an objective) into buf, which holds
 * POLICY_TEXT_MAX bytes. */
#define POLICY_TEXT_MAX (160 + OBJECTIVE_TEXT_MAX)
void select_policy_text(const select_policy *p, char buf[POLICY_TEXT_MAX]);
/* That text read back into *p: 0, or -1 (p untouched) when it is not one. */
int select_policy_parse(const char *text, select_policy *p);

#endif
