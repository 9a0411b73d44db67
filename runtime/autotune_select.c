/* autotune_select.c: the run-time library (autotune_select.h). It reads autotune's results CSV
 * on its own (RFC 4180: quoted fields may hold commas, quotes and line breaks), or hands a T4
 * file to select_t4.c, keeps each instance's winner (the rows flagged "winner"), and picks as the
 * tuned header does. No part of the tuner is linked: a program needs these files, libc and
 * libyaml (the T4 file's JSON) alone. */
#include "autotune_select.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select_results.h"

void select_say(char *err, size_t len, const char *fmt, ...)
{
	if (!err || !len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

static void *enough(void *p)
{
	if (!p) {
		fputs("autotune_select: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *select_alloc(size_t n) { return enough(malloc(n ? n : 1)); }
void *select_zalloc(size_t n, size_t size) { return enough(calloc(n ? n : 1, size ? size : 1)); }
void *select_grow(void *p, size_t n) { return enough(realloc(p, n ? n : 1)); }
char *select_strdup(const char *s) { return memcpy(select_alloc(strlen(s) + 1), s, strlen(s) + 1); }

/* One record of f: its fields (NULL at the end of the file). */
static char **read_record(FILE *f, size_t *n)
{
	size_t cap = 8, len = 0, flen = 0, fcap = 64;
	char **out = select_alloc(cap * sizeof *out), *field = select_alloc(fcap);
	int c, quoted = 0, any = 0;
	*n = 0;
	for (;;) {
		c = getc(f);
		if (c == EOF && !any) {
			free(field);
			free(out);
			return NULL;
		}
		any = 1;
		if (quoted) {
			if (c == EOF)
				break;
			if (c == '"') {
				int d = getc(f);
				if (d != '"') {
					quoted = 0;
					ungetc(d, f);
					continue;
				}
			}
		} else if (c == '"' && flen == 0) {
			quoted = 1;
			continue;
		} else if (c == ',' || c == '\n' || c == EOF) {
			field[flen] = 0;
			if (len + 1 >= cap)
				out = select_grow(out, (cap *= 2) * sizeof *out);
			out[len++] = field;
			if (c != ',') {
				*n = len;
				return out;
			}
			fcap = 64;
			flen = 0;
			field = select_alloc(fcap);
			continue;
		} else if (c == '\r')
			continue;
		if (flen + 2 >= fcap)
			field = select_grow(field, fcap *= 2);
		field[flen++] = (char)c;
	}
	/* an unterminated quote: what there is, as the last field */
	field[flen] = 0;
	out[len++] = field;
	*n = len;
	return out;
}

void select_free_row(char **r, size_t n)
{
	for (size_t i = 0; r && i < n; i++)
		free(r[i]);
	free(r);
}

static int col_of(const autotune_results *r, const char *name, size_t from)
{
	for (size_t i = from; i < r->ncols; i++)
		if (!strcmp(r->names[i], name))
			return (int)i;
	return -1;
}

void autotune_results_free(autotune_results *r)
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

int select_add_winner(autotune_results *r, char **cells, const char *where, char *err, size_t errlen)
{
	select_winner w = {cells, -1, select_zalloc(r->nconsts + 1, sizeof(double))};
	if (r->inst_col >= 0) {
		char *end;
		w.instance = strtol(cells[r->inst_col], &end, 10) - 1;
		if (end == cells[r->inst_col])
			w.instance = -1;
		for (size_t k = 0; k < r->nconsts && !*end && w.instance >= 0; k++) {
			const char *v = cells[r->const_col[k]];
			w.consts[k] = strtod(v, &end);
			if (end == v)
				w.instance = -1;
		}
		if (*end || w.instance < 0) {
			select_say(err, errlen, "%s: the instance or its constants are not numbers", where);
			select_free_row(cells, r->ncols);
			free(w.consts);
			return -1;
		}
	}
	r->w = select_grow(r->w, (r->nw + 1) * sizeof *r->w);
	r->w[r->nw++] = w;
	return 0;
}

/* Keeps row (ncols fields) when it is a winner; -1 with the reason in err for a bad row. */
static int keep(autotune_results *r, char **row, size_t line, const char *path, int flags, char *err, size_t errlen)
{
	if (!strstr(row[flags], "winner")) {
		select_free_row(row, r->ncols);
		return 0;
	}
	char where[4096];
	snprintf(where, sizeof where, "%s:%zu", path, line);
	return select_add_winner(r, row, where, err, errlen);
}

/* The spec_hash check: every row's, against the program's. */
int select_check_spec(const char *path, const char *want, const char *got, char *err, size_t errlen)
{
	if (!want || !*got || !strcmp(want, got))
		return 0;
	select_say(err, errlen, "%s: stale results: tuned for spec_hash %s, but this program was built for %s (another version "
			 "of the config or kernel): re-tune, or rebuild against these results' header",
	    path, got, want);
	return -1;
}

/* The results CSV f: its winners (none when no configuration passed); NULL, said in err, for a
 * file that is not autotune's CSV, a bad row or stale results. */
static autotune_results *load_csv(FILE *f, const char *path, const char *spec_hash, char *err, size_t errlen)
{
	autotune_results *r = select_zalloc(1, sizeof *r);
	r->names = read_record(f, &r->ncols);
	int bx = r->names ? col_of(r, "blockDim.x", 0) : -1, flags = bx >= 0 ? col_of(r, "flags", (size_t)bx) : -1;
	int spec = bx >= 0 ? col_of(r, "spec_hash", (size_t)bx) : -1;
	if (flags < 0 || spec < 0) {
		select_say(err, errlen, "%s: not autotune's results (no blockDim.x, flags or spec_hash column)", path);
		autotune_results_free(r);
		return NULL;
	}
	r->nparams = (size_t)bx;
	r->inst_col = col_of(r, "instance", (size_t)bx);
	r->nconsts = r->inst_col >= 0 ? r->ncols - (size_t)r->inst_col - 1 : 0;
	r->const_col = select_zalloc(r->nconsts, sizeof *r->const_col);
	for (size_t k = 0; k < r->nconsts; k++)
		r->const_col[k] = (size_t)r->inst_col + 1 + k;
	size_t n, line = 1;
	char **row;
	int rc = 0;
	while (!rc && (row = read_record(f, &n))) {
		line++;
		if (n == 1 && !*row[0]) { /* a blank line */
			select_free_row(row, n);
			continue;
		}
		if (n != r->ncols) {
			select_say(err, errlen, "%s:%zu: %zu fields, the header has %zu", path, line, n, r->ncols);
			select_free_row(row, n);
			rc = -1;
		} else if ((rc = select_check_spec(path, spec_hash, row[spec], err, errlen)) == 0)
			rc = keep(r, row, line, path, flags, err, errlen);
		else
			select_free_row(row, n);
	}
	if (rc) {
		autotune_results_free(r);
		return NULL;
	}
	return r;
}

/* Whether f holds JSON (a T4 file), as the tuner decides: its first byte that is not space (after
 * a UTF-8 byte order mark) is '{'. f is rewound. */
static int is_json(FILE *f)
{
	int c = getc(f);
	if (c == 0xEF && getc(f) == 0xBB && getc(f) == 0xBF)
		c = getc(f);
	while (c != EOF && isspace(c))
		c = getc(f);
	rewind(f);
	return c == '{';
}

autotune_results *autotune_results_load(const char *path, const char *spec_hash, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		select_say(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	autotune_results *r = is_json(f) ? select_t4_load(f, path, spec_hash, err, errlen)
					 : load_csv(f, path, spec_hash, err, errlen);
	fclose(f);
	if (r && !r->nw) {
		select_say(err, errlen, "%s: no configuration passed: nothing to pick", path);
		autotune_results_free(r);
		return NULL;
	}
	return r;
}

size_t autotune_constants(const autotune_results *r) { return r->nconsts; }
const char *autotune_constant_name(const autotune_results *r, size_t k)
{
	return k < r->nconsts ? r->names[r->const_col[k]] : NULL;
}
size_t autotune_params(const autotune_results *r) { return r->nparams; }
const char *autotune_param_name(const autotune_results *r, size_t p) { return p < r->nparams ? r->names[p] : NULL; }

double autotune_ln(double x)
{
	double k = 0;
	while (x >= 2) {
		x /= 2;
		k++;
	}
	while (x < 1) {
		x *= 2;
		k--;
	}
	double z = (x - 1) / (x + 1), z2 = z * z, term = z, sum = 0;
	for (int i = 1; i < 40; i += 2) {
		sum += term / i;
		term *= z2;
	}
	return 2 * sum + k * 0.69314718055994530942;
}

long autotune_pick(const autotune_results *r, const double *constants, const char *device)
{
	for (size_t k = 0; k < r->nconsts; k++)
		if (!(constants[k] > 0) || isinf(constants[k]))
			return -1;
	int gpu = col_of(r, "gpu", r->nparams), on_device = 0;
	for (size_t i = 0; device && gpu >= 0 && i < r->nw; i++)
		on_device |= !strcmp(r->w[i].cells[gpu], device);
	long best = -1;
	double best_d = 0;
	for (size_t i = 0; i < r->nw; i++) {
		if (on_device && strcmp(r->w[i].cells[gpu], device))
			continue;
		double dist = 0;
		for (size_t k = 0; k < r->nconsts; k++) {
			double d = autotune_ln(constants[k]) - autotune_ln(r->w[i].consts[k]);
			dist += d * d;
		}
		/* the header's table is in instance order: the first of equals is the lowest instance */
		if (best < 0 || dist < best_d || (dist == best_d && r->w[i].instance < r->w[best].instance)) {
			best = (long)i;
			best_d = dist;
		}
	}
	return best;
}

double autotune_param(const autotune_results *r, long pick, size_t p)
{
	if (pick < 0 || (size_t)pick >= r->nw || p >= r->nparams)
		return NAN;
	char *end;
	double v = strtod(r->w[pick].cells[p], &end);
	return *end || end == r->w[pick].cells[p] ? NAN : v;
}

double autotune_time_ms(const autotune_results *r, long pick)
{
	const char *t = autotune_field(r, pick, "time_ms_median");
	return *t ? strtod(t, NULL) : NAN;
}

long autotune_instance(const autotune_results *r, long pick)
{
	return pick < 0 || (size_t)pick >= r->nw ? -1 : r->w[pick].instance;
}

const char *autotune_field(const autotune_results *r, long pick, const char *column)
{
	int c = col_of(r, column, 0);
	return pick < 0 || (size_t)pick >= r->nw || c < 0 ? "" : r->w[pick].cells[c];
}
