/* autotune_select.c: the run-time library (autotune_select.h). It reads autotune's results CSV
 * on its own (RFC 4180: quoted fields may hold commas, quotes and line breaks), or hands a T4
 * file to select_t4.c, keeps each instance's winner (the rows flagged "winner"), and picks as the
 * tuned header does. No part of the tuner is linked: a program needs these files, libc and
 * libyaml (the T4 file's JSON) alone. */
#include "autotune_select.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "select_results.h"

/* The CSV as it is read: where (path, line) for messages, and the bytes so far against the limit. */
typedef struct {
	FILE *f;
	const char *path;
	size_t line; /* the line the next byte is on, 1-based */
	size_t bytes;
	char *err;
	size_t errlen;
} csv_reader;

static int next_byte(csv_reader *C)
{
	int c = getc(C->f);
	if (c != EOF)
		C->bytes++;
	return c;
}

/* buf[*len] = c, buf growing to at most SELECT_MAX_RECORD_BYTES; -1 past that or out of memory. */
static int push(csv_reader *C, char **buf, size_t *len, size_t *cap, char c, size_t at)
{
	if (*len + 1 >= *cap) {
		if (*cap >= SELECT_MAX_RECORD_BYTES) {
			select_say(C->err, C->errlen, "%s:%zu: a row longer than %d bytes: not autotune's results", C->path, at,
				   SELECT_MAX_RECORD_BYTES);
			return -1;
		}
		size_t ncap = *cap ? 2 * *cap : 256;
		char *g = select_grow(*buf, ncap);
		if (!g) {
			select_say(C->err, C->errlen, "%s:%zu: out of memory", C->path, at);
			return -1;
		}
		*buf = g;
		*cap = ncap;
	}
	(*buf)[(*len)++] = c;
	return 0;
}

/* nf fields of buf, each ended by a NUL, as a row of their own strings; NULL when out of memory. */
static char **split(const char *buf, size_t nf)
{
	char **out = select_zalloc(nf, sizeof *out);
	for (size_t i = 0; out && i < nf; buf += strlen(buf) + 1, i++)
		if (!(out[i] = select_strdup(buf))) {
			select_free_row(out, i);
			return NULL;
		}
	return out;
}

/* One record into *row (*n fields): 1, 0 at the end of the file, -1 (said in err, at path:line)
 * for a NUL byte, a row or file past the limits, or a file cut short: a last row without its line
 * break, an unclosed quote. Every record autotune writes ends with a line break. */
static int read_record(csv_reader *C, char ***row, size_t *n)
{
	size_t len = 0, cap = 0, nf = 0, fstart = 0, at = C->line;
	char *buf = NULL;
	const char *why = NULL;
	int quoted = 0, c = next_byte(C);
	if (c == EOF && !ferror(C->f))
		return 0;
	for (;; c = next_byte(C)) {
		if (C->bytes > SELECT_MAX_FILE_BYTES)
			why = "more bytes than a results file may have (" SELECT_MAX_FILE_TEXT ")";
		else if (c == EOF && ferror(C->f))
			why = strerror(errno);
		else if (c == EOF)
			why = quoted ? "a quoted field without its closing quote: a file cut short"
				     : "the last row has no line break at its end: a file cut short";
		else if (c == 0)
			why = "a NUL byte: not a text file (UTF-16, or not a results file)";
		if (why) {
			select_say(C->err, C->errlen, "%s:%zu: %s", C->path, C->line, why);
			free(buf);
			return -1;
		}
		if (c == '\n')
			C->line++;
		if (quoted) {
			if (c == '"') {
				int d = next_byte(C);
				if (d != '"') {
					quoted = 0;
					if (d != EOF) {
						ungetc(d, C->f);
						C->bytes--;
					}
					continue;
				}
			}
		} else if (c == '"' && len == fstart) {
			quoted = 1;
			continue;
		} else if (c == ',' || c == '\n') {
			if (push(C, &buf, &len, &cap, 0, at)) {
				free(buf);
				return -1;
			}
			fstart = len;
			if (++nf > SELECT_MAX_COLUMNS) {
				select_say(C->err, C->errlen, "%s:%zu: more than %d fields in a row: not autotune's results",
					   C->path, at, SELECT_MAX_COLUMNS);
				free(buf);
				return -1;
			}
			if (c == '\n')
				break;
			continue;
		} else if (c == '\r')
			continue;
		if (push(C, &buf, &len, &cap, (char)c, at)) {
			free(buf);
			return -1;
		}
	}
	*row = split(buf, nf);
	free(buf);
	if (!*row) {
		select_say(C->err, C->errlen, "%s:%zu: out of memory", C->path, at);
		return -1;
	}
	*n = nf;
	return 1;
}

static int col_of(const autotune_results *r, const char *name, size_t from)
{
	for (size_t i = from; i < r->ncols; i++)
		if (!strcmp(r->names[i], name))
			return (int)i;
	return -1;
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

/* The results CSV f: its winners (none when no configuration passed); NULL, said in err, for a
 * file that is not autotune's CSV, a bad row or stale results. */
static autotune_results *load_csv(FILE *f, const char *path, const char *spec_hash, char *err, size_t errlen)
{
	csv_reader C = {f, path, 1, 0, err, errlen};
	autotune_results *r = select_zalloc(1, sizeof *r);
	if (!r) {
		select_say(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	int rc = read_record(&C, &r->names, &r->ncols);
	if (rc < 0) {
		free(r);
		return NULL;
	}
	int bx = rc ? col_of(r, "blockDim.x", 0) : -1, flags = bx >= 0 ? col_of(r, "flags", (size_t)bx) : -1;
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
	if (!r->const_col) {
		select_say(err, errlen, "%s: out of memory", path);
		autotune_results_free(r);
		return NULL;
	}
	for (size_t k = 0; k < r->nconsts; k++)
		r->const_col[k] = (size_t)r->inst_col + 1 + k;
	size_t n, line;
	char **row;
	for (;;) {
		line = C.line;
		if ((rc = read_record(&C, &row, &n)) <= 0)
			break;
		if (n == 1 && !*row[0]) { /* a blank line */
			select_free_row(row, n);
			continue;
		}
		if (n != r->ncols) {
			select_say(err, errlen, "%s:%zu: %zu fields, the header has %zu: a row cut short, or not autotune's", path,
				   line, n, r->ncols);
			select_free_row(row, n);
			rc = -1;
		} else if ((rc = select_check_spec(path, spec_hash, row[spec], err, errlen)) == 0)
			rc = keep(r, row, line, path, flags, err, errlen);
		else
			select_free_row(row, n);
		if (rc)
			break;
	}
	if (rc) {
		autotune_results_free(r);
		return NULL;
	}
	return r;
}

/* Whether f starts as UTF-16 or UTF-32 text does: a byte order mark of theirs, or a NUL among
 * its first bytes. f is rewound. */
static int is_wide(FILE *f)
{
	unsigned char head[4] = {0};
	size_t n = fread(head, 1, sizeof head, f);
	rewind(f);
	return (n >= 2 && ((head[0] == 0xFF && head[1] == 0xFE) || (head[0] == 0xFE && head[1] == 0xFF))) ||
	       memchr(head, 0, n) != NULL;
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

/* path opened for reading when it is a regular file within the size limit; NULL, said in err,
 * else. A FIFO or a device (/dev/zero) would block or never end: opened without waiting, refused. */
static FILE *open_results(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st)) {
		select_say(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	const char *why = S_ISREG(st.st_mode) ? NULL
			  : S_ISDIR(st.st_mode) ? "a directory"
			  : S_ISFIFO(st.st_mode) ? "a pipe"
			  : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
								      : "a socket";
	if (why)
		select_say(err, errlen, "%s: %s, not a regular file: give the results file itself", path, why);
	else if (st.st_size > SELECT_MAX_FILE_BYTES)
		select_say(err, errlen, "%s: %lld bytes, more than a results file may have (" SELECT_MAX_FILE_TEXT ")", path,
			   (long long)st.st_size);
	int fl = why || st.st_size > SELECT_MAX_FILE_BYTES ? -1 : fcntl(fd, F_GETFL);
	FILE *f = fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) ? NULL : fdopen(fd, "r");
	if (!f) {
		if (fl >= 0)
			select_say(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

autotune_results *autotune_results_load(const char *path, const char *spec_hash, char *err, size_t errlen)
{
	FILE *f = open_results(path, err, errlen);
	if (!f)
		return NULL;
	if (is_wide(f)) {
		select_say(err, errlen, "%s: UTF-16 or UTF-32 text (a byte order mark or a NUL byte at its start): results "
					"files are UTF-8 (autotune's CSV or T4 JSON)",
			   path);
		fclose(f);
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

void autotune_results_free(autotune_results *r) { select_results_free(r); }

size_t autotune_constants(const autotune_results *r) { return r->nconsts; }
const char *autotune_constant_name(const autotune_results *r, size_t k)
{
	return k < r->nconsts ? r->names[r->const_col[k]] : NULL;
}
size_t autotune_params(const autotune_results *r) { return r->nparams; }
const char *autotune_param_name(const autotune_results *r, size_t p) { return p < r->nparams ? r->names[p] : NULL; }

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
