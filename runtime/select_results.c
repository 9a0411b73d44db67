/* select_results.c: what both of the run-time library's readers (autotune_select.c's CSV,
 * select_t4.c's T4 file) build their results with: messages, allocation that never aborts the
 * host program, a winner's row and the spec check. Below both, so neither calls back into the
 * other. */
#include "select_results.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void select_say(char *err, size_t len, const char *fmt, ...)
{
	if (!err || !len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/* Allocation failure is the caller's to report: a library never aborts its host program. */
void *select_alloc(size_t n) { return malloc(n ? n : 1); }
void *select_zalloc(size_t n, size_t size) { return calloc(n ? n : 1, size ? size : 1); }
void *select_grow(void *p, size_t n) { return realloc(p, n ? n : 1); }
char *select_strdup(const char *s)
{
	char *d = select_alloc(strlen(s) + 1);
	return d ? memcpy(d, s, strlen(s) + 1) : NULL;
}

void select_free_row(char **r, size_t n)
{
	for (size_t i = 0; r && i < n; i++)
		free(r[i]);
	free(r);
}

void select_results_free(autotune_results *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nw; i++) {
		select_free_row(r->w[i].cells, r->ncols);
		free(r->w[i].consts);
	}
	free(r->w);
	select_free_row(r->names, r->ncols);
	free(r->const_col);
	free(r);
}

/* An instance's constant: a positive finite number, as autotune_pick takes them (picks go by
 * logarithms); 0 when v is one, else -1. */
static int constant_of(const char *v, double *out)
{
	char *end;
	*out = strtod(v, &end);
	return end != v && !*end && isfinite(*out) && *out > 0 ? 0 : -1;
}

int select_add_winner(autotune_results *r, char **cells, const char *where, char *err, size_t errlen)
{
	select_winner w = {cells, -1, select_zalloc(r->nconsts + 1, sizeof(double))};
	if (!w.consts) {
		select_say(err, errlen, "%s: out of memory", where);
		select_free_row(cells, r->ncols);
		return -1;
	}
	if (r->inst_col >= 0) {
		char *end;
		const char *inst = cells[r->inst_col];
		w.instance = strtol(inst, &end, 10) - 1;
		if (end == inst || *end || w.instance < 0) {
			select_say(err, errlen, "%s: instance '%.64s' is not a number from 1", where, inst);
			select_free_row(cells, r->ncols);
			free(w.consts);
			return -1;
		}
		for (size_t k = 0; k < r->nconsts; k++)
			if (constant_of(cells[r->const_col[k]], &w.consts[k])) {
				select_say(err, errlen,
					   "%s: %s of instance %ld is '%.64s': not a positive finite number (an instance's constants "
					   "are sizes: picks compare their logarithms); re-tune, or correct the results",
					   where, r->names[r->const_col[k]], w.instance + 1, cells[r->const_col[k]]);
				select_free_row(cells, r->ncols);
				free(w.consts);
				return -1;
			}
	}
	select_winner *g = select_grow(r->w, (r->nw + 1) * sizeof *r->w);
	if (!g) {
		select_say(err, errlen, "%s: out of memory", where);
		select_free_row(cells, r->ncols);
		free(w.consts);
		return -1;
	}
	r->w = g;
	r->w[r->nw++] = w;
	return 0;
}

/* The spec_hash check: every row's, against the program's. */
int select_check_spec(const char *path, const char *want, const char *got, char *err, size_t errlen)
{
	if (!want || !strcmp(want, got))
		return 0;
	if (!*got)
		select_say(err, errlen, "%s: a result without its spec_hash, so not known to be of this program's spec (%s): "
					"re-tune with this autotune, or load with no spec_hash to skip the check",
			   path, want);
	else
		select_say(err, errlen, "%s: stale results: tuned for spec_hash %s, but this program was built for %s (another "
					"version of the config or kernel): re-tune, or rebuild against these results' header",
			   path, got, want);
	return -1;
}
