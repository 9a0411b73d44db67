/* wrong_split.c: when a run's wrong-results follow its parameters. Against a reference that is a
 * configuration of the space, every wrong-result may be a kernel that computes something else on
 * purpose: a layout flag that reads other arrays (BAT's nbody USE_SOA), a tile that is the whole
 * problem (BAT's hotspot). When the ok configurations all share their values of a few parameters
 * and every wrong-result differs from them in one of those, the run says so and names the fix. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "diag.h"
#include "wrong_split.h"
#include "banned.h"

#define MAX_SET 3

/* The value of parameter p in configuration c, as text (compared as such: 2 and 2.0 differ in
 * a space only when they are different values). */
static void text_of(const config *cfg, const space *sp, size_t c, size_t p, char *buf, size_t len)
{
	(void)cfg;
	value_format(space_config(sp, c)[p], buf, len);
}

/* Whether the set P (n parameters) splits the verified configurations: every ok one has the
 * first ok one's values of P, every wrong-result differs from them in at least one. */
static int splits(const config *cfg, const space *sp, const result *res, const size_t *P, size_t n, size_t first_ok)
{
	for (size_t c = 0; c < sp->count; c++) {
		if (res[c].st != ST_OK && res[c].st != ST_WRONG_RESULT)
			continue;
		int same = 1;
		for (size_t k = 0; k < n && same; k++) {
			char a[64], b[64];
			text_of(cfg, sp, c, P[k], a, sizeof a);
			text_of(cfg, sp, first_ok, P[k], b, sizeof b);
			same = !strcmp(a, b);
		}
		if (same != (res[c].st == ST_OK))
			return 0;
	}
	return 1;
}

/* The parameters whose values differ among the verified configurations: only they can split. */
static size_t varying(const config *cfg, const space *sp, const result *res, size_t first_ok, size_t *out)
{
	size_t n = 0;
	for (size_t p = 0; p < cfg->nparams; p++)
		for (size_t c = 0; c < sp->count; c++) {
			if (res[c].st != ST_OK && res[c].st != ST_WRONG_RESULT)
				continue;
			char a[64], b[64];
			text_of(cfg, sp, c, p, a, sizeof a);
			text_of(cfg, sp, first_ok, p, b, sizeof b);
			if (strcmp(a, b)) {
				out[n++] = p;
				break;
			}
		}
	return n;
}

/* Walks the sets of size n over cand[0..m) in order, counting those that split (up to 2: one is an
 * explanation, two are none); the first is kept in best. */
typedef struct {
	const config *cfg;
	const space *sp;
	const result *res;
	size_t first_ok, n, found;
	const size_t *cand;
	size_t m;
	size_t set[MAX_SET], best[MAX_SET];
} walk;

static void search(walk *w, size_t depth, size_t from)
{
	if (depth == w->n) {
		if (splits(w->cfg, w->sp, w->res, w->set, w->n, w->first_ok) && !w->found++)
			memcpy(w->best, w->set, sizeof w->set);
		return;
	}
	for (size_t i = from; i < w->m && w->found < 2; i++) {
		w->set[depth] = w->cand[i];
		search(w, depth + 1, i + 1);
	}
}

int wrong_split(const config *cfg, const space *sp, const result *res, size_t *set, size_t *nset)
{
	size_t ok = 0, wrong = 0, first_ok = 0;
	for (size_t c = 0; c < sp->count; c++) {
		if (res[c].st == ST_OK && !ok++)
			first_ok = c;
		wrong += res[c].st == ST_WRONG_RESULT;
	}
	/* a reference of its own (host, file, kernel, per group) is not a configuration to differ from */
	if (ok < 2 || !wrong || cfg->host.source || cfg->ref_entry || cfg->nref_per)
		return 0;
	size_t *cand = xcalloc(cfg->nparams + 1, sizeof *cand);
	walk w = {.cfg = cfg, .sp = sp, .res = res, .first_ok = first_ok, .cand = cand};
	w.m = varying(cfg, sp, res, first_ok, cand);
	int told = 0;
	for (w.n = 1; w.n <= MAX_SET && w.n <= w.m && !w.found; w.n++) {
		search(&w, 0, 0);
		if (w.found == 1) {
			memcpy(set, w.best, w.n * sizeof *set);
			*nset = w.n;
			told = 1;
		}
	}
	free(cand);
	return told;
}

void summary_wrong_split(const config *cfg, const space *sp, const result *res)
{
	size_t set[MAX_SET], n = 0;
	if (!wrong_split(cfg, sp, res, set, &n))
		return;
	size_t ok = 0, wrong = 0, first_ok = 0;
	for (size_t c = 0; c < sp->count; c++) {
		if (res[c].st == ST_OK && !ok++)
			first_ok = c;
		wrong += res[c].st == ST_WRONG_RESULT;
	}
	char names[256] = "", values[512] = "";
	for (size_t k = 0; k < n; k++) {
		char v[64];
		text_of(cfg, sp, first_ok, set[k], v, sizeof v);
		const char *sep = !k ? "" : k + 1 == n ? (n > 2 ? ", or " : " or ") : ", ";
		const char *comma = k ? ", " : "";
		snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", sep, cfg->params[set[k]].name);
		snprintf(values + strlen(values), sizeof values - strlen(values), "%s%s=%s", comma,
			 cfg->params[set[k]].name, v);
	}
	char list[256] = "";
	for (size_t k = 0; k < n; k++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", cfg->params[set[k]].name);
	fprintf(stderr,
		"  the %zu wrong-result%s %s exactly the configurations whose %s differ%s from the reference's (%s), "
		"and the %zu with %s are all ok: if %s change%s what the kernel computes or reads, each value needs a "
		"reference of its own: verify: {reference_per: [%s]}\n",
		wrong, wrong == 1 ? "" : "s", wrong == 1 ? "is" : "are", names, n == 1 ? "s" : "", values, ok,
		n == 1 ? "that value" : "those values", n == 1 ? "it" : "they", n == 1 ? "s" : "", list);
}
