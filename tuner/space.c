/* space.c: enumerates the cartesian product of parameter values and keeps those that satisfy
 * every constraint. */
#include "space.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

/* Beyond this an exhaustive list stops being sensible; search strategies take over there. */
#define SPACE_MAX_COMBINATIONS 50000000ULL

char *space_describe(const config *cfg, const value *params)
{
	size_t cap = 64, len = 0;
	char *s = xmalloc(cap);
	s[0] = 0;
	for (size_t i = 0; i < cfg->nparams; i++) {
		char v[64];
		value_format(params[i], v, sizeof v);
		size_t need = len + strlen(cfg->params[i].name) + strlen(v) + 3;
		grow(&s, &cap, need, 1);
		len += (size_t)snprintf(s + len, cap - len, "%s%s=%s", i ? " " : "", cfg->params[i].name, v);
	}
	return s;
}

static int same_values(const value *a, const value *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (a[i].kind == VAL_INT && b[i].kind == VAL_INT ? a[i].u.i != b[i].u.i
								 : value_as_double(a[i]) != value_as_double(b[i]))
			return 0;
	}
	return 1;
}

int space_enumerate(const config *cfg, space *s, diags *d)
{
	memset(s, 0, sizeof *s);
	s->nparams = cfg->nparams;
	s->reference = -1;
	unsigned long long total = 1;
	for (size_t i = 0; i < cfg->nparams; i++) {
		total *= cfg->params[i].nvalues;
		if (total > SPACE_MAX_COMBINATIONS) {
			diags_at(d, cfg->path, cfg->params[i].at.line, cfg->params[i].at.col,
				 "the space has over %llu combinations; narrow it", SPACE_MAX_COMBINATIONS);
			return -1;
		}
	}
	s->total = (size_t)total;
	size_t cap = 0;
	size_t *idx = xcalloc(cfg->nparams + 1, sizeof *idx);
	value *cur = xcalloc(cfg->nparams + 1, sizeof *cur);
	int rc = 0;
	for (size_t n = 0; n < s->total && rc == 0; n++) {
		for (size_t i = 0; i < cfg->nparams; i++)
			cur[i] = cfg->params[i].values[idx[i]];
		int keep = 1;
		for (size_t c = 0; c < cfg->nconstraints && keep; c++) {
			value v;
			if (cexpr_eval(cfg, &cfg->constraints[c], cur, &v, d, NULL)) {
				char *desc = space_describe(cfg, cur);
				diags_add(d, "  (while checking the configuration %s)", desc);
				free(desc);
				rc = -1;
				break;
			}
			keep = value_truth(v);
		}
		if (rc == 0 && keep) {
			grow(&s->vals, &cap, (s->count + 1) * s->nparams, sizeof *s->vals);
			memcpy(s->vals + s->count * s->nparams, cur, s->nparams * sizeof *cur);
			if (cfg->has_reference && s->reference < 0 && same_values(cur, cfg->reference, s->nparams))
				s->reference = (long long)s->count;
			s->count++;
		}
		/* odometer: the last parameter turns fastest */
		for (size_t i = cfg->nparams; i-- > 0;) {
			if (++idx[i] < cfg->params[i].nvalues)
				break;
			idx[i] = 0;
		}
	}
	free(idx);
	free(cur);
	if (rc == 0 && s->count == 0) {
		diags_add(d, "%s: no configuration satisfies the constraints (%zu combinations tried)", cfg->path, s->total);
		rc = -1;
	}
	if (rc == 0 && cfg->has_reference && s->reference < 0) {
		char *desc = space_describe(cfg, cfg->reference);
		diags_at(d, cfg->path, cfg->reference_at.line, cfg->reference_at.col,
			 "the verify reference (%s) is not a valid configuration of the space", desc);
		free(desc);
		rc = -1;
	}
	if (rc == 0 && !cfg->has_reference)
		s->reference = 0;
	if (rc)
		space_free(s);
	return rc;
}

void space_free(space *s)
{
	free(s->vals);
	memset(s, 0, sizeof *s);
	s->reference = -1;
}
