/* select_policy.c: the selection policy's words, and the policy as a results file records it
 * (select_policy.h): what the loader reads from a config and the results read back, below the
 * measuring stage's select.c, which chooses by it. */
#include "select_policy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

const char *const policy_names[] = {"balanced", "fastest", NULL};

/* The shortest of %.15g and %.17g that reads back as v: 2 stays "2", 0.1 stays "0.1". */
static int exact(char *buf, size_t len, double v)
{
	int n = snprintf(buf, len, "%.15g", v);
	return strtod(buf, NULL) == v ? n : snprintf(buf, len, "%.17g", v);
}

void select_policy_text(const select_policy *p, char buf[POLICY_TEXT_MAX])
{
	char k[32], o[32], e[32];
	exact(k, sizeof k, p->noise_band);
	exact(o, sizeof o, p->w_occupancy);
	exact(e, sizeof e, p->w_load_efficiency);
	int n = snprintf(buf, POLICY_TEXT_MAX, "%s;noise_band=%s;occupancy=%s;load_efficiency=%s", policy_names[p->kind], k, o, e);
	if (*p->objective && n > 0 && n < POLICY_TEXT_MAX)
		snprintf(buf + n, POLICY_TEXT_MAX - (size_t)n, ";%s=%s", p->maximize ? "maximize" : "minimize", p->objective);
}

/* ";minimize=EXPR" or ";maximize=EXPR" to the end: 0 with p's objective set, -1 when at holds
 * neither (or the expression does not fit). */
static int objective_field(const char *at, select_policy *p)
{
	static const char *const dir[] = {";minimize=", ";maximize="};
	for (int k = 0; k < 2; k++) {
		size_t n = strlen(dir[k]);
		if (!strncmp(at, dir[k], n) && at[n] && strlen(at + n) < OBJECTIVE_TEXT_MAX) {
			snprintf(p->objective, sizeof p->objective, "%s", at + n);
			p->maximize = k;
			return 0;
		}
	}
	return -1;
}

/* "NAME=" and a finite, non-negative number up to the next ';' or the end: 0 with *v and *at
 * past it. */
static int field(const char **at, const char *name, double *v)
{
	size_t n = strlen(name);
	if (**at != ';' || strncmp(*at + 1, name, n) || (*at)[n + 1] != '=')
		return -1;
	const char *s = *at + n + 2;
	char *end;
	*v = strtod(s, &end);
	if (end == s || (*end && *end != ';') || !isfinite(*v) || *v < 0)
		return -1;
	*at = end;
	return 0;
}

int select_policy_parse(const char *text, select_policy *p)
{
	select_policy q;
	memset(&q, 0, sizeof q);
	size_t n = strcspn(text, ";");
	int kind = -1;
	for (int i = 0; policy_names[i]; i++)
		if (strlen(policy_names[i]) == n && !strncmp(text, policy_names[i], n))
			kind = i;
	const char *at = text + n;
	if (kind < 0 || field(&at, "noise_band", &q.noise_band) || field(&at, "occupancy", &q.w_occupancy) ||
	    field(&at, "load_efficiency", &q.w_load_efficiency) || (*at && objective_field(at, &q)))
		return -1;
	q.kind = (policy_kind)kind;
	*p = q;
	return 0;
}
