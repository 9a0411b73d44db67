/* table.c: reading a results CSV back (RFC 4180), for the commands that work from results alone. */
#include "table.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "banned.h"

typedef struct {
	char *s;
	size_t len, cap;
} sbuf;

static void sb_put(sbuf *b, char c)
{
	grow(&b->s, &b->cap, b->len + 2, 1);
	b->s[b->len++] = c;
	b->s[b->len] = 0;
}

/* a results file's longest field is a message of a few KiB; past this it is no results file
 * (/dev/zero, a binary) and reading on would only fill memory */
#define MAX_FIELD_BYTES (1 << 20)

/* One record's fields appended to *fields; the count, 0 at end of file, -1 for an unterminated
 * quote, -2 for a field over MAX_FIELD_BYTES. *line advances over the physical lines read. */
static int read_record(FILE *f, char ***fields, size_t *nf, size_t *cap, int *line)
{
	int c = fgetc(f), n = 0;
	if (c == EOF)
		return 0;
	for (;;) {
		sbuf b = {0};
		sb_put(&b, 0); /* an empty field is "" */
		b.len = 0;
		if (c == '"') {
			for (;;) {
				c = fgetc(f);
				if (c == EOF) {
					free(b.s);
					return -1;
				}
				if (c == '"' && (c = fgetc(f)) != '"')
					break;
				if (c == '\n')
					(*line)++;
				sb_put(&b, (char)c);
				if (b.len > MAX_FIELD_BYTES) {
					free(b.s);
					return -2;
				}
			}
		} else
			while (c != ',' && c != '\r' && c != '\n' && c != EOF) {
				sb_put(&b, (char)c);
				if (b.len > MAX_FIELD_BYTES) {
					free(b.s);
					return -2;
				}
				c = fgetc(f);
			}
		grow(fields, cap, *nf + 1, sizeof **fields);
		(*fields)[(*nf)++] = b.s;
		n++;
		if (c != ',')
			break;
		c = fgetc(f);
	}
	if (c == '\r')
		c = fgetc(f);
	if (c != '\n' && c != EOF)
		ungetc(c, f);
	(*line)++;
	return n;
}

int table_load(const char *path, table *t, diags *d) { return table_read(path, 1, t, d); }

const char *table_not_utf8(FILE *f)
{
	/* UTF-16 or UTF-32 (a spreadsheet's "Unicode text"): a byte order mark, or a NUL among the
	 * first bytes of what should be ASCII; read as UTF-8 it was a file of no known columns */
	unsigned char head[4] = {0};
	if (fseek(f, 0, SEEK_SET)) /* a pipe: what is read cannot be put back */
		return NULL;
	size_t n = fread(head, 1, sizeof head, f);
	rewind(f);
	int bom = n >= 2 && ((head[0] == 0xFF && head[1] == 0xFE) || (head[0] == 0xFE && head[1] == 0xFF) ||
			     (n == 4 && !head[0] && !head[1] && head[2] == 0xFE && head[3] == 0xFF));
	if (bom)
		return "the file is UTF-16 or UTF-32 (it starts with that byte order mark): results files are UTF-8 "
		       "(autotune's CSV or T4 JSON); convert it (iconv -f UTF-16 -t UTF-8)";
	if (memchr(head, 0, n))
		return "a NUL byte at its start: UTF-16 or UTF-32 text, or not text: results files are UTF-8 (autotune's "
		       "CSV or T4 JSON)";
	return NULL;
}

int table_read(const char *path, int autotune_csv, table *t, diags *d)
{
	memset(t, 0, sizeof *t);
	FILE *f = open_input(path, d);
	if (!f)
		return -1;
	const char *wide = table_not_utf8(f);
	if (wide) {
		diags_add(d, "%s: %s", path, wide);
		fclose(f);
		return -1;
	}
	t->path = xstrdup(path);
	size_t cap = 0, ncap = 0;
	int line = 1, n = read_record(f, &t->names, &t->ncols, &ncap, &line);
	int rc = 0;
	if (n <= 0) {
		diags_add(d, "%s:1: %s", path, n == 0 ? "empty file: not an autotune results CSV" : n == -1 ? "unterminated quote"
									    : "a field over 1 MiB: not an autotune results CSV");
		rc = -1;
	}
	while (rc == 0) {
		int at = line;
		size_t before = t->nrows * t->ncols;
		size_t nf = before;
		n = read_record(f, &t->cells, &nf, &cap, &line);
		if (n == 0)
			break;
		if (n == 1 && !*t->cells[before]) { /* a blank line, at the end say */
			free(t->cells[before]);
			continue;
		}
		if (n < 0 || (size_t)n != t->ncols) {
			if (n == -2)
				diags_add(d, "%s:%d: a field over 1 MiB: not an autotune results CSV", path, at);
			else if (n < 0)
				diags_add(d, "%s:%d: unterminated quote", path, at);
			else
				diags_add(d, "%s:%d: %d fields, but the header has %zu", path, at, n, t->ncols);
			for (size_t i = before; i < nf; i++)
				free(t->cells[i]);
			rc = -1;
			break;
		}
		t->nrows++;
	}
	fclose(f);
	int bx = rc ? -1 : table_col(t, "blockDim.x");
	if (rc == 0 && bx < 0 && autotune_csv) {
		diags_add(d, "%s:1: no blockDim.x column: not an autotune results CSV", path);
		rc = -1;
	}
	if (rc) {
		table_free(t);
		return -1;
	}
	t->nparams = bx < 0 ? 0 : (size_t)bx;
	return 0;
}

void table_free(table *t)
{
	for (size_t i = 0; i < t->ncols; i++)
		free(t->names[i]);
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->names);
	free(t->cells);
	free(t->path);
	memset(t, 0, sizeof *t);
}

int table_col(const table *t, const char *name)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (!strcmp(t->names[i], name))
			return (int)i;
	return -1;
}

int table_fixed_col(const table *t, const char *name)
{
	for (size_t i = t->nparams; i < t->ncols; i++)
		if (!strcmp(t->names[i], name))
			return (int)i;
	return -1;
}

const char *table_get(const table *t, size_t row, int col)
{
	return col < 0 || row >= t->nrows ? "" : t->cells[row * t->ncols + (size_t)col];
}

double table_num(const table *t, size_t row, int col)
{
	const char *s = table_get(t, row, col);
	char *end;
	double v = strtod(s, &end);
	return end == s || *end ? NAN : v;
}

const char *table_field(const table *t, size_t row, const char *name) { return table_get(t, row, table_col(t, name)); }

static double num_or(const table *t, size_t row, int col, double dflt)
{
	double v = table_num(t, row, col);
	return isnan(v) ? dflt : v;
}

/* A count or a geometry: a number outside [lo, hi] (1e34, inf in a hand-edited file) cannot be
 * converted and reads as absent, like an empty field. */
static long long whole_or(const table *t, size_t row, int col, long long dflt, double lo, double hi)
{
	double v = table_num(t, row, col);
	return isnan(v) || v < lo || v > hi ? dflt : (long long)v;
}

#define INT_OR(t, r, col, dflt) ((int)whole_or(t, r, col, dflt, INT_MIN, INT_MAX))

result *table_results(const table *t)
{
	result *res = xcalloc(t->nrows + 1, sizeof *res);
	static const char *const geom[7] = {"blockDim.x", "blockDim.y", "blockDim.z", "gridDim.x",
					    "gridDim.y",  "gridDim.z",  "dynamic_smem_bytes"};
	static const char *const metric[METRIC_COUNT] = {"achieved_occupancy_pct", "gld_efficiency_pct",
							 "gld_throughput_gbps", "dram_pct", "branch_efficiency_pct"};
	int gcol[7], mcol[METRIC_COUNT];
	for (int i = 0; i < 7; i++)
		gcol[i] = table_col(t, geom[i]);
	for (int m = 0; m < METRIC_COUNT; m++)
		mcol[m] = table_col(t, metric[m]);
	int st = table_col(t, "status"), msg = table_col(t, "message"), occ = table_col(t, "theoretical_occupancy"),
	    blocks = table_col(t, "active_blocks_per_sm"), med = table_col(t, "time_ms_median"),
	    tmin = table_col(t, "time_ms_min"), tmax = table_col(t, "time_ms_max"), samples = table_col(t, "samples"),
	    noise = table_col(t, "noise_pct"), batch = table_col(t, "launches_per_sample"),
	    mhz = table_col(t, "sm_mhz"), fmed = table_col(t, "final_ms_median"),
	    fnoise = table_col(t, "final_noise_pct"), frounds = table_col(t, "final_rounds"),
	    gbps = table_col(t, "gbps"), pct = table_col(t, "pct_of_copy"), gflops = table_col(t, "gflops"),
	    flags = table_col(t, "flags"), drv = table_col(t, "driver_active_blocks_per_sm");
	int pstreams = table_fixed_col(t, "plan_streams"), porder = table_fixed_col(t, "plan_order"),
	    pconns = table_fixed_col(t, "plan_connections"), serial = table_fixed_col(t, "serial_ms");
	int joules = table_fixed_col(t, "joules_per_launch"), watts = table_fixed_col(t, "watts"),
	    objective = table_fixed_col(t, "objective");
	select_policy policy;
	table_policy(t, &policy);
	for (size_t r = 0; r < t->nrows; r++) {
		result *x = &res[r];
		long long *g[7] = {&x->block[0], &x->block[1], &x->block[2], &x->grid[0], &x->grid[1], &x->grid[2], &x->smem};
		for (int i = 0; i < 7; i++)
			*g[i] = whole_or(t, r, gcol[i], i == 6 ? 0 : 1, -0x1p62, 0x1p62);
		status s = ST_NOT_RUN;
		status_parse(table_get(t, r, st), &s);
		x->st = s;
		x->message = *table_get(t, r, msg) ? xstrdup(table_get(t, r, msg)) : NULL;
		x->occupancy = num_or(t, r, occ, 0);
		x->occ_blocks = INT_OR(t, r, blocks, 0);
		x->occ_limit = "";
		x->driver_blocks = INT_OR(t, r, drv, -1);
		x->t_median = num_or(t, r, med, 0);
		x->t_min = num_or(t, r, tmin, 0);
		x->t_max = num_or(t, r, tmax, 0);
		x->samples = INT_OR(t, r, samples, 0);
		x->noise = num_or(t, r, noise, 0) / 100;
		x->batch = INT_OR(t, r, batch, 1);
		x->mhz_after = num_or(t, r, mhz, 0);
		x->final_rounds = INT_OR(t, r, frounds, 0);
		x->final_median = num_or(t, r, fmed, 0);
		x->final_noise = num_or(t, r, fnoise, 0) / 100;
		x->gbps = num_or(t, r, gbps, 0);
		x->pct_of_copy = num_or(t, r, pct, 0);
		x->gflops = num_or(t, r, gflops, 0);
		x->shares_with = -1;
		for (int m = 0; m < METRIC_COUNT; m++) {
			double v = table_num(t, r, mcol[m]);
			x->metrics[m] = m == METRIC_GLD_THROUGHPUT && !isnan(v) ? v * 1e9 : v;
			x->have_metrics |= !isnan(v);
		}
		x->throttled = strstr(table_get(t, r, flags), "throttled") != NULL;
		/* a plan's: part of its launch shape, and its serial time */
		x->streams = INT_OR(t, r, pstreams, 0);
		x->breadth_first = !strcmp(table_get(t, r, porder), "breadth-first");
		x->connections = INT_OR(t, r, pconns, 0);
		x->serial_ms = num_or(t, r, serial, 0);
		x->joules = table_num(t, r, joules);
		x->watts = table_num(t, r, watts);
		x->have_energy = !isnan(x->joules) && !isnan(x->watts);
		/* the run's objective ranks again as it ranked there: a row without its value cannot win */
		double v = table_num(t, r, objective);
		if (*policy.objective && result_passed(x)) {
			x->scored = isnan(v) || v <= 0 ? 2 : 1;
			x->objective = v;
			x->score = policy.maximize ? 1 / v : v;
		}
	}
	return res;
}

void table_results_free(result *res, size_t n)
{
	for (size_t i = 0; res && i < n; i++)
		free(res[i].message);
	free(res);
}

long long table_winner(const table *t)
{
	int flags = table_col(t, "flags");
	for (size_t r = 0; r < t->nrows && flags >= 0; r++) {
		const char *f = table_get(t, r, flags), *w = strstr(f, "winner");
		if (w && (w == f || w[-1] == ';') && (w[6] == 0 || w[6] == ';'))
			return (long long)r;
	}
	return -1;
}

int table_policy(const table *t, select_policy *p)
{
	*p = config_select_defaults();
	int col = table_fixed_col(t, "policy");
	for (size_t r = 0; r < t->nrows && col >= 0; r++)
		if (*table_get(t, r, col))
			return select_policy_parse(table_get(t, r, col), p) == 0;
	return 0;
}

long long table_pick_winner(const table *t, const result *res, int *flagged, choice *pick)
{
	select_policy policy;
	table_policy(t, &policy);
	choice own;
	choice *c = pick ? pick : &own;
	select_winner(res, t->nrows, &policy, c);
	long long w = table_winner(t);
	*flagged = w >= 0;
	if (w < 0)
		w = c->winner;
	if (!pick)
		choice_free(&own);
	return w;
}
