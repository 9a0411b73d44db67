/* t4.c: the T4 results format written from a results CSV, and T4 files and Kernel Tuner cache
 * files read back as a config's results table. JSON is read with libyaml (JSON is YAML's flow
 * syntax), as import.c reads T1 specs, so every error keeps its file:line:col.
 *
 * Writing: the schema requires per result configuration, times, invalidity and correctness;
 * autotune adds measurements (every numeric column, with its unit) and an "autotune" object with
 * the CSV's other fields, which the schema allows and other readers ignore. */
#include "t4.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "build_flags.h"
#include "config.h"
#include "document.h"
#include "output.h"
#include "banned.h"

/* Columns of words, not numbers: the "autotune" object holds them (tuned_at is the timestamp). */
static const char *const word_columns[] = {"occupancy_limit", "flags", "shares_with", "status", "message",
					   "gpu", "gpu_uuid", "arch", "nvcc_flags", "code_hash", "spec_hash", "policy", "config", "run",
					   "configurations", NULL};

/* The schema's invalidity per status; not-run rows are not written. */
static const char *const invalidity_of[ST_COUNT_] = {
	[ST_OK] = "correct",     [ST_COMPILE_ERROR] = "compile", [ST_LAUNCH_ERROR] = "runtime",
	[ST_WRONG_RESULT] = "correctness", [ST_CRASHED] = "runtime", [ST_TIMEOUT] = "timeout",
};

static int listed(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return 1;
	return 0;
}

/* A JSON string of any bytes. Control characters, and the ones YAML does not allow unescaped (DEL,
 * C1 controls, U+FFFE, U+FFFF), are escaped, so that libyaml reads the file back; a byte that is
 * not UTF-8 becomes U+FFFD. */
static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		unsigned cp;
		int n = utf8_char((const char *)p, &cp);
		if (!n)
			fputs("\\ufffd", f);
		else if (cp == '"' || cp == '\\')
			fprintf(f, "\\%c", (char)cp);
		else if (cp == '\n' || cp == '\r' || cp == '\t')
			fputs(cp == '\n' ? "\\n" : cp == '\r' ? "\\r" : "\\t", f);
		else if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0xFFFE || cp == 0xFFFF)
			fprintf(f, "\\u%04x", cp);
		else
			fwrite(p, 1, (size_t)n, f);
		p += n ? n : 1;
	}
	fputc('"', f);
}

/* A field as a JSON value: the number as written when it is one, else a string. */
static void json_value(FILE *f, const char *s)
{
	if (document_json_number(s))
		fputs(s, f);
	else
		json_string(f, s);
}

/* The unit of a numeric column, from its name. */
static const char *unit_of(const char *col)
{
	size_t n = strlen(col);
	if (strstr(col, "_ms_") || !strcmp(col, "time"))
		return "ms";
	if ((n > 4 && !strcmp(col + n - 4, "_pct")) || !strcmp(col, "pct_of_copy"))
		return "%";
	if (n >= 4 && !strcmp(col + n - 4, "gbps"))
		return "GB/s";
	if (!strcmp(col, "gflops"))
		return "GFLOP/s";
	if (!strcmp(col, "joules_per_launch"))
		return "J";
	if (!strcmp(col, "watts"))
		return "W";
	if (n > 4 && !strcmp(col + n - 4, "_mhz"))
		return "MHz";
	if (n > 2 && !strcmp(col + n - 2, "_s"))
		return "s";
	if (n > 6 && !strcmp(col + n - 6, "_bytes"))
		return "bytes";
	return "";
}

/* Whether column i of a row holding v goes into the measurements (else, when not empty, into the
 * "autotune" object; tuned_at is the timestamp). */
static int measured(const table *t, size_t i, const char *v)
{
	return !listed(word_columns, t->names[i]) && strcmp(t->names[i], "tuned_at") && document_json_number(v);
}

static void put_measurement(FILE *f, int *first, const char *name, const char *number)
{
	fputs(*first ? "" : ", ", f);
	*first = 0;
	fputs("{\"name\": ", f);
	json_string(f, name);
	fprintf(f, ", \"value\": %s, \"unit\": ", number);
	json_string(f, unit_of(name));
	fputc('}', f);
}

/* Row r's numeric columns as measurements, the time that decides first as "time" (the name
 * Kernel Tuner gives its objective), and its words in the "autotune" object. */
static void put_fields(FILE *f, const table *t, size_t r, const char *time)
{
	int first = 1;
	fputs(", \"objectives\": [\"time\"], \"measurements\": [", f);
	if (time)
		put_measurement(f, &first, "time", time);
	for (size_t i = t->nparams; i < t->ncols; i++) {
		const char *v = table_get(t, r, (int)i);
		if (measured(t, i, v))
			put_measurement(f, &first, t->names[i], v);
	}
	fputs("], \"autotune\": {", f);
	first = 1;
	for (size_t i = t->nparams; i < t->ncols; i++) {
		const char *v = table_get(t, r, (int)i);
		if (!*v || measured(t, i, v) || !strcmp(t->names[i], "tuned_at"))
			continue;
		fputs(first ? "" : ", ", f);
		first = 0;
		json_string(f, t->names[i]);
		fputs(": ", f);
		json_string(f, v);
	}
	fputc('}', f);
}

/* One result: row r of the CSV, whose status is st. */
static void put_result(FILE *f, const table *t, size_t r, status st)
{
	const char *when = table_field(t, r, "tuned_at"), *fin = table_field(t, r, "final_ms_median");
	const char *time = *fin ? fin : table_field(t, r, "time_ms_median");
	if (st != ST_OK || !document_json_number(time))
		time = NULL;
	fputs("    {", f);
	if (*when) {
		fputs("\"timestamp\": ", f);
		json_string(f, when);
		fputs(", ", f);
	}
	fputs("\"configuration\": {", f);
	for (size_t p = 0; p < t->nparams; p++) {
		json_string(f, t->names[p]);
		fputs(": ", f);
		json_value(f, table_get(t, r, (int)p));
		fputs(p + 1 < t->nparams ? ", " : "", f);
	}
	/* the CSV keeps no samples: the one runtime is the time that decides */
	fprintf(f, "}, \"times\": {\"runtimes\": [%s]}, \"invalidity\": \"%s\", \"correctness\": %d", time ? time : "",
		invalidity_of[st], st == ST_OK);
	put_fields(f, t, r, time);
	fputc('}', f);
}

int t4_write(const char *csv_path, const char *path, diags *d)
{
	if (same_file(csv_path, path)) {
		diags_add(d, "cannot write the T4 file '%s': it is the results CSV", path);
		return -1;
	}
	table t;
	if (table_load(csv_path, &t, d))
		return -1;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		diag_out_of_memory();
	fputs("{\n  \"schema_version\": \"1.0.0\",\n  \"results\": [", f);
	int first = 1;
	int st_col = table_col(&t, "status");
	for (size_t r = 0; r < t.nrows; r++) {
		status st;
		if (status_parse(table_get(&t, r, st_col), &st) || st == ST_NOT_RUN)
			continue;
		fputs(first ? "\n" : ",\n", f);
		first = 0;
		put_result(f, &t, r, st);
	}
	fputs(first ? "]\n}\n" : "\n  ]\n}\n", f);
	fclose(f);
	int rc = write_output(path, buf, len, d);
	free(buf);
	table_free(&t);
	return rc;
}

/* ---- reading T4 and Kernel Tuner cache files ---- */

typedef struct {
	const char *path;
	yaml_document_t *doc;
	const config *cfg;
	const space *sp;
	result *geometry;  /* per configuration of sp: its launch, from the config */
	table *t;
	diags *d;
	char **row;        /* the row being filled: t->ncols cells, NULL where not (yet) known */
	size_t cap;        /* of t->cells */
	double *vals;      /* the parameters of the result being read */
	size_t hint;       /* where the search for the next configuration starts: files come in space order */
	const yaml_node_t **first; /* per configuration of sp: where its result is, NULL before one is read */
	size_t results, outside; /* results read, and those whose configuration is not in the space */
	int errors;
} reader;

static yaml_node_t *node(reader *R, int id) { return yaml_document_get_node(R->doc, id); }

static void err(reader *R, const yaml_node_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void err(reader *R, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	diags_at(R->d, R->path, (int)n->start_mark.line + 1, (int)n->start_mark.column + 1, "%s", msg);
	R->errors++;
}

static yaml_node_t *get(reader *R, const yaml_node_t *map, const char *key) { return document_get(R->doc, map, key); }

/* A scalar's text, or NULL for a list, an object or nothing. */
static const char *text_of(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* "block_x, block_y, maxrreg": the config's parameters, for messages (static storage). */
static const char *param_list(const config *cfg)
{
	static char list[512];
	list[0] = 0;
	for (size_t p = 0; p < cfg->nparams; p++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", p ? ", " : "", cfg->params[p].name);
	return list;
}

/* The column of a result's field (never a parameter's), or -1. */
static int column(const reader *R, const char *name)
{
	for (size_t i = R->cfg->nparams; i < R->t->ncols; i++)
		if (!strcmp(R->t->names[i], name))
			return (int)i;
	return -1;
}

/* Sets a field of the row being filled; when keep, only where it is not known yet. */
static void set_cell(reader *R, const char *name, const char *text, int keep)
{
	int c = column(R, name);
	if (c < 0 || !text || (keep && R->row[c]))
		return;
	free(R->row[c]);
	R->row[c] = xstrdup(text);
}

static const char *cell(const reader *R, const char *name)
{
	int c = column(R, name);
	return c >= 0 && R->row[c] ? R->row[c] : "";
}

/* A parameter's value as a number into *out: a JSON number, a string that holds one, or
 * true/false (1/0). -1, said at n, for anything else. */
static int param_number(reader *R, const yaml_node_t *n, const char *name, double *out)
{
	const char *s = text_of(n);
	char *end = NULL;
	int plain = n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	if (s && plain && (!strcmp(s, "true") || !strcmp(s, "false"))) {
		*out = !strcmp(s, "true");
		return 0;
	}
	if (s && *s)
		*out = strtod(s, &end);
	if (!s || !*s || *end || !isfinite(*out)) {
		err(R, n, "the parameter '%s' is %s%s%s, not a number (autotune's parameters are numbers)", name,
		    s ? "'" : "a list or object", s ? s : "", s ? "'" : "");
		return -1;
	}
	return 0;
}

/* The configuration whose parameters mapping m gives (by name, as the config's): its index in the
 * space; -1 when it is not in the space, -2 after an error. */
static long long find_config(reader *R, const yaml_node_t *m)
{
	const config *cfg = R->cfg;
	for (size_t p = 0; p < cfg->nparams; p++) {
		yaml_node_t *v = get(R, m, cfg->params[p].name);
		if (!v) {
			err(R, m, "no value for the parameter '%s' of %s: not a run of this config", cfg->params[p].name,
			    cfg->path);
			return -2;
		}
		const param *pm = &cfg->params[p];
		if (param_is_string(pm) && text_of(v))
			R->vals[p] = param_value_key(pm, text_of(v), pm->values[0]);
		else if (param_number(R, v, cfg->params[p].name, &R->vals[p]))
			return -2;
	}
	for (size_t k = 0; k < R->sp->count; k++) {
		size_t c = (R->hint + k) % R->sp->count;
		const value *v = space_config(R->sp, c);
		size_t p = 0;
		while (p < cfg->nparams && R->vals[p] == param_value_key(&cfg->params[p], NULL, v[p]))
			p++;
		if (p == cfg->nparams) {
			R->hint = c + 1;
			return (long long)c;
		}
	}
	R->outside++;
	return -1;
}

/* Configuration c's result is at n: -1, said at n, when c had one already (two times for one
 * configuration: which one counts would be a guess). */
static int claim(reader *R, long long c, const yaml_node_t *n)
{
	const yaml_node_t *was = R->first[c];
	if (!was) {
		R->first[c] = n;
		return 0;
	}
	char *desc = space_describe(R->cfg, space_config(R->sp, (size_t)c));
	err(R, n, "a second result for %s (the first is at line %d, column %d)", desc, (int)was->start_mark.line + 1,
	    (int)was->start_mark.column + 1);
	free(desc);
	return -1;
}

/* A status's name into *st; -1, said at n, for a name status.h does not have. */
static int known_status(reader *R, const yaml_node_t *n, const char *name, status *st)
{
	if (status_parse(name, st) == 0)
		return 0;
	char list[256] = "";
	for (int i = 0; i < ST_COUNT_; i++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", status_names[i]);
	err(R, n, "autotune status '%s' is none of %s", name, list);
	return -1;
}

/* Every key of mapping m (a T4 configuration, a cache's tune_params_keys) must be a parameter. */
static int only_params(reader *R, const yaml_node_t *m)
{
	yaml_node_item_t *items = m->type == YAML_SEQUENCE_NODE ? m->data.sequence.items.start : NULL;
	size_t n = items ? (size_t)(m->data.sequence.items.top - items)
			 : (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start);
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *k = node(R, items ? items[i] : m->data.mapping.pairs.start[i].key);
		const char *name = text_of(k);
		size_t p = 0;
		while (name && p < R->cfg->nparams && strcmp(name, R->cfg->params[p].name))
			p++;
		if (!name || p == R->cfg->nparams) {
			err(R, k, "'%s' is not a parameter of %s (%s): not a run of this config", name ? name : "(a list or object)",
			    R->cfg->path, param_list(R->cfg));
			return -1;
		}
	}
	return 0;
}

/* Starts the row of configuration c: its parameters as output.c writes them. */
static void row_begin(reader *R, size_t c)
{
	R->row = xcalloc(R->t->ncols, sizeof *R->row);
	for (size_t p = 0; p < R->cfg->nparams; p++) {
		char v[64];
		value_format(space_config(R->sp, c)[p], v, sizeof v);
		R->row[p] = xstrdup(v);
	}
}

/* Ends the row: what the file did not say and the config decides (the launch, the nvcc flags, the
 * config), then the row joins the table. */
static void row_end(reader *R, size_t c)
{
	static const char *const geom[7] = {"blockDim.x", "blockDim.y", "blockDim.z", "gridDim.x",
					    "gridDim.y",  "gridDim.z",  "dynamic_smem_bytes"};
	const result *g = &R->geometry[c];
	const long long v[7] = {g->block[0], g->block[1], g->block[2], g->grid[0], g->grid[1], g->grid[2], g->smem};
	for (int i = 0; i < 7; i++) {
		char text[32];
		snprintf(text, sizeof text, "%lld", v[i]);
		set_cell(R, geom[i], text, 1);
	}
	char *flags = build_flags_text(R->cfg, space_config(R->sp, c));
	set_cell(R, "nvcc_flags", flags, 1);
	free(flags);
	set_cell(R, "config", R->cfg->path, 1);
	table *t = R->t;
	grow(&t->cells, &R->cap, (t->nrows + 1) * t->ncols, sizeof *t->cells);
	for (size_t i = 0; i < t->ncols; i++)
		t->cells[t->nrows * t->ncols + i] = R->row[i] ? R->row[i] : xstrdup("");
	t->nrows++;
	free(R->row);
	R->row = NULL;
}

static void row_drop(reader *R)
{
	for (size_t i = 0; R->row && i < R->t->ncols; i++)
		free(R->row[i]);
	free(R->row);
	R->row = NULL;
}

/* A number as a whole text into *x: -1 when it is none (or not finite). */
static int number(const char *s, double *x)
{
	char *end;
	if (!s || !*s)
		return -1;
	*x = strtod(s, &end);
	return *end || !isfinite(*x) ? -1 : 0;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* A list of runtimes in ms (T4's times.runtimes, a cache entry's times) as the CSV's sampled
 * columns where the file did not give them: the median, the fastest, the slowest, how many. */
static int put_runtimes(reader *R, const yaml_node_t *list)
{
	if (!list || list->type != YAML_SEQUENCE_NODE)
		return 0;
	size_t n = (size_t)(list->data.sequence.items.top - list->data.sequence.items.start), k = 0;
	double *x = xcalloc(n + 1, sizeof *x);
	for (; k < n; k++) {
		yaml_node_t *v = node(R, list->data.sequence.items.start[k]);
		if (number(text_of(v), &x[k])) {
			err(R, v, "a runtime is %s%s%s, not a number of milliseconds", text_of(v) ? "'" : "",
			    text_of(v) ? text_of(v) : "a list or object", text_of(v) ? "'" : "");
			free(x);
			return -1;
		}
	}
	if (n) {
		qsort(x, n, sizeof *x, by_value);
		double at[4] = {n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2, x[0], x[n - 1], (double)n};
		static const char *const cols[4] = {"time_ms_median", "time_ms_min", "time_ms_max", "samples"};
		for (int i = 0; i < 4; i++) {
			/* the shortest text that reads back as the same double */
			char text[32];
			for (int prec = 1; prec <= 17; prec++) {
				snprintf(text, sizeof text, "%.*g", prec, at[i]);
				if (strtod(text, NULL) == at[i])
					break;
			}
			set_cell(R, cols[i], text, 1);
		}
	}
	free(x);
	return 0;
}

/* The schema's invalidity as a status: 0, or -1 for a word it does not have. */
static int invalidity_status(const char *s, status *st)
{
	static const struct {
		const char *name;
		status st;
	} map[] = {{"correct", ST_OK},          {"compile", ST_COMPILE_ERROR},   {"runtime", ST_CRASHED},
		   {"timeout", ST_TIMEOUT},      {"correctness", ST_WRONG_RESULT}, {"constraints", ST_NOT_RUN}};
	for (size_t i = 0; s && i < sizeof map / sizeof *map; i++)
		if (!strcmp(s, map[i].name)) {
			*st = map[i].st;
			return 0;
		}
	return -1;
}

/* The measurements and "autotune" fields of a T4 result into the row; the one named "time" (the
 * objective as Kernel Tuner writes it) into *time. */
static void t4_fields(reader *R, const yaml_node_t *res, const char **time)
{
	yaml_node_t *m = get(R, res, "measurements"), *ext = get(R, res, "autotune");
	for (yaml_node_item_t *i = m && m->type == YAML_SEQUENCE_NODE ? m->data.sequence.items.start : NULL;
	     i && i < m->data.sequence.items.top; i++) {
		yaml_node_t *item = node(R, *i);
		const char *name = text_of(get(R, item, "name")), *v = text_of(get(R, item, "value"));
		if (name && v && !strcmp(name, "time"))
			*time = v;
		else if (name && v)
			set_cell(R, name, v, 0);
	}
	for (yaml_node_pair_t *p = ext && ext->type == YAML_MAPPING_NODE ? ext->data.mapping.pairs.start : NULL;
	     p && p < ext->data.mapping.pairs.top; p++)
		set_cell(R, text_of(node(R, p->key)) ? text_of(node(R, p->key)) : "", text_of(node(R, p->value)), 0);
	set_cell(R, "tuned_at", text_of(get(R, res, "timestamp")), 1);
}

/* A result that passed has a time that decides (the finalists' median where re-timed) and it is a
 * positive number of ms: -1, said at n, when not. */
static int timed(reader *R, const yaml_node_t *n)
{
	const char *t = *cell(R, "final_ms_median") ? cell(R, "final_ms_median") : cell(R, "time_ms_median");
	double x;
	if (!*t)
		err(R, n, "a correct result without a time (no \"time\" measurement, no runtimes)");
	else if (number(t, &x) || x <= 0)
		err(R, n, "a correct result's time is '%s', not a positive number of milliseconds", t);
	else
		return 0;
	return -1;
}

/* One result of a T4 file as a row: autotune's own fields where the file has them (an autotune
 * T4 gives its CSV row back), else the status from the invalidity and the time from the "time"
 * measurement or the runtimes' median. */
static void t4_result(reader *R, const yaml_node_t *res)
{
	yaml_node_t *conf = get(R, res, "configuration");
	if (!conf || conf->type != YAML_MAPPING_NODE) {
		err(R, res, "a result without a \"configuration\" object");
		return;
	}
	long long c = only_params(R, conf) ? -2 : find_config(R, conf);
	if (c < 0 || claim(R, c, conf))
		return;
	row_begin(R, (size_t)c);
	const char *time = NULL;
	double x;
	t4_fields(R, res, &time);
	status st;
	yaml_node_t *said = get(R, get(R, res, "autotune"), "status");
	if (*cell(R, "status") && known_status(R, said ? said : res, cell(R, "status"), &st)) {
		row_drop(R);
		return;
	}
	if (!*cell(R, "status")) {
		yaml_node_t *inv = get(R, res, "invalidity");
		if (invalidity_status(text_of(inv), &st)) {
			err(R, inv ? inv : res, "invalidity '%s' is none of correct, compile, runtime, timeout, correctness, constraints",
			    text_of(inv) ? text_of(inv) : "(missing)");
			row_drop(R);
			return;
		}
		set_cell(R, "status", status_name(st), 0);
	}
	if (st == ST_OK) {
		if (number(time, &x) == 0)
			set_cell(R, "time_ms_median", time, 1);
		if (put_runtimes(R, get(R, get(R, res, "times"), "runtimes"))) {
			row_drop(R);
			return;
		}
		if (*cell(R, "time_ms_median"))
			set_cell(R, "samples", "1", 1);
		if (timed(R, res)) {
			row_drop(R);
			return;
		}
	}
	row_end(R, (size_t)c);
}

/* Kernel Tuner's words for a configuration it could not time, as statuses. */
static const struct {
	const char *name, *why;
	status st;
} kt_errors[] = {
	{"CompilationFailedConfig", "did not compile", ST_COMPILE_ERROR},
	{"RuntimeFailedConfig", "failed when run", ST_CRASHED},
	{"InvalidConfig", "refused as invalid (its launch, or a restriction)", ST_LAUNCH_ERROR},
};

/* One entry of a cache file as a row: "time" (ms) or the error Kernel Tuner recorded instead. */
static void cache_entry(reader *R, const yaml_node_t *key, const yaml_node_t *e, const char *device)
{
	const char *name = text_of(key) ? text_of(key) : "";
	if (e->type != YAML_MAPPING_NODE) {
		err(R, e, "the cache entry '%s' is not an object", name);
		return;
	}
	long long c = find_config(R, e);
	if (c < 0 || claim(R, c, e))
		return;
	yaml_node_t *time = get(R, e, "time");
	const char *tt = text_of(time);
	double x;
	if (!tt) {
		err(R, time ? time : e, "the cache entry '%s' has no \"time\" (a number of ms, or the error Kernel Tuner recorded)", name);
		return;
	}
	row_begin(R, (size_t)c);
	set_cell(R, "gpu", device, 0);
	set_cell(R, "tuned_at", text_of(get(R, e, "timestamp")), 0);
	if (time->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && number(tt, &x) == 0) {
		if (x <= 0) {
			err(R, time, "the cache entry '%s' has a time of %s, not a positive number of milliseconds", name, tt);
			row_drop(R);
			return;
		}
		set_cell(R, "status", "ok", 0);
		set_cell(R, "time_ms_median", tt, 0);
		if (put_runtimes(R, get(R, e, "times"))) {
			row_drop(R);
			return;
		}
		set_cell(R, "samples", "1", 1);
	} else {
		size_t k = 0, n = sizeof kt_errors / sizeof *kt_errors;
		while (k < n && strcmp(tt, kt_errors[k].name))
			k++;
		char *msg = xasprintf("Kernel Tuner: %s%s%s", tt, k < n ? ": " : "", k < n ? kt_errors[k].why : "");
		set_cell(R, "status", status_name(k < n ? kt_errors[k].st : ST_CRASHED), 0);
		set_cell(R, "message", msg, 0);
		free(msg);
	}
	row_end(R, (size_t)c);
}

/* A cache file: its parameters (tune_params_keys) must be the config's, then every entry. */
static void read_cache(reader *R, const yaml_node_t *root, const yaml_node_t *cache)
{
	yaml_node_t *keys = get(R, root, "tune_params_keys");
	if (keys && keys->type == YAML_SEQUENCE_NODE) {
		if (only_params(R, keys))
			return;
		for (size_t p = 0; p < R->cfg->nparams; p++) {
			yaml_node_item_t *i = keys->data.sequence.items.start;
			while (i < keys->data.sequence.items.top && strcmp(text_of(node(R, *i)), R->cfg->params[p].name))
				i++;
			if (i == keys->data.sequence.items.top) {
				err(R, keys, "no parameter '%s' among tune_params_keys: not a run of %s", R->cfg->params[p].name,
				    R->cfg->path);
				return;
			}
		}
	}
	const char *device = text_of(get(R, root, "device_name"));
	for (yaml_node_pair_t *p = cache->data.mapping.pairs.start; p < cache->data.mapping.pairs.top && !R->errors; p++) {
		R->results++;
		cache_entry(R, node(R, p->key), node(R, p->value), device);
	}
}

static int read_doc(reader *R)
{
	yaml_node_t *root = yaml_document_get_root_node(R->doc);
	yaml_node_t *results = get(R, root, "results"), *cache = get(R, root, "cache");
	if (results && results->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *i = results->data.sequence.items.start; i < results->data.sequence.items.top && !R->errors;
		     i++) {
			R->results++;
			t4_result(R, node(R, *i));
		}
	} else if (cache && cache->type == YAML_MAPPING_NODE)
		read_cache(R, root, cache);
	else if (!root) {
		diags_at(R->d, R->path, 1, 1, "empty file: not a T4 results file or a Kernel Tuner cache file");
		R->errors++;
	} else
		err(R, root, "neither a T4 results file (a \"results\" list) nor a Kernel Tuner cache file (a \"cache\" object)");
	if (!R->errors && R->outside)
		fprintf(stderr, "%s: note: %zu of %zu results are of configurations outside the space of %s: left out\n", R->path,
			R->outside, R->results, R->cfg->path);
	return R->errors ? -1 : 0;
}

/* autotune's T4 file of a run that did not measure everything (its results' run is interrupted,
 * search, ...) leaves out what was not measured, as its CSV does; an older one, whose results do
 * not count the space (configurations), is of this space: so that how far the run got
 * (completeness.h) reads as from its CSV, with no row per configuration left out. */
static void count_unmeasured(reader *R)
{
	table *t = R->t;
	int run = column(R, "run"), space = column(R, "configurations");
	int stopped = 0;
	for (size_t r = 0; r < t->nrows && !stopped; r++) {
		const char *w = table_get(t, r, run);
		stopped = *w && strcmp(w, "complete");
	}
	char count[32];
	snprintf(count, sizeof count, "%zu", R->sp->count);
	for (size_t r = 0; stopped && space >= 0 && r < t->nrows; r++) {
		char **cellp = &t->cells[r * t->ncols + (size_t)space];
		if (!**cellp) {
			free(*cellp);
			*cellp = xstrdup(count);
		}
	}
}

/* The document as cfg's results table (t4_load). */
static int to_table(const char *path, yaml_document_t *doc, const config *cfg, const space *sp, table *t, diags *d)
{
	memset(t, 0, sizeof *t);
	size_t nout = 0;
	while (output_columns[nout])
		nout++;
	t->path = xstrdup(path);
	t->ncols = cfg->nparams + nout;
	t->nparams = cfg->nparams;
	t->names = xcalloc(t->ncols, sizeof *t->names);
	for (size_t i = 0; i < t->ncols; i++)
		t->names[i] = xstrdup(i < cfg->nparams ? cfg->params[i].name : output_columns[i - cfg->nparams]);
	reader R = {.path = path, .doc = doc, .cfg = cfg, .sp = sp, .t = t, .d = d};
	R.geometry = xcalloc(sp->count + 1, sizeof *R.geometry);
	R.vals = xcalloc(cfg->nparams + 1, sizeof *R.vals);
	R.first = xcalloc(sp->count + 1, sizeof *R.first);
	int rc = space_eval_geometry(cfg, sp, R.geometry, d) ? -1 : read_doc(&R);
	if (rc == 0)
		count_unmeasured(&R);
	row_drop(&R);
	free(R.geometry);
	free(R.vals);
	free(R.first);
	if (rc)
		table_free(t);
	return rc;
}

/* The whole file into memory (caller frees), NULL when it cannot be read. */
static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0, n;
	*len = 0;
	do {
		grow(&buf, &cap, *len + 65536, 1);
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
	} while (n);
	fclose(f);
	return buf;
}

/* Text as a Kernel Tuner cache file closed where the run stopped: without the trailing comma of
 * its last entry, with the braces of "cache" and the file; when cut, the last line (an entry the
 * run was writing) left out too. 0 with doc loaded when that reads as a cache file. */
static int closed_cache(const char *path, const char *text, size_t len, int cut, yaml_document_t *doc)
{
	size_t n = len;
	while (cut && n && text[n - 1] != '\n')
		n--;
	while (n && isspace((unsigned char)text[n - 1]))
		n--;
	n -= n && text[n - 1] == ',';
	char *closed = xmalloc(n + 4);
	memcpy(closed, text, n);
	memcpy(closed + n, "}\n}", 4);
	diags quiet = {0};
	int rc = document_read_text(path, closed, n + 3, "JSON", doc, &quiet);
	diags_free(&quiet);
	free(closed);
	if (rc == 0 && !get(&(reader){.doc = doc}, yaml_document_get_root_node(doc), "cache")) {
		yaml_document_delete(doc);
		rc = -1;
	}
	return rc;
}

/* The JSON document of path. Kernel Tuner appends each result to its cache file as it goes and
 * closes the file at the end, so one from a run that stopped lacks its closing braces (and may
 * end inside an entry): it is read as if closed, with a note. */
static int load_json(const char *path, yaml_document_t *doc, diags *d)
{
	diags first = {0};
	if (document_read(path, "JSON", doc, &first) == 0)
		return 0;
	size_t len;
	char *text = read_all(path, &len);
	int rc = -1, cut = 0;
	for (; text && cut < 2 && rc; cut++)
		rc = closed_cache(path, text, len, cut, doc);
	free(text);
	if (rc == 0)
		fprintf(stderr, "%s: note: a Kernel Tuner cache file without its closing braces (a run that did not finish): "
				"read as if closed%s\n",
			path, cut == 2 ? ", its last, incomplete line left out" : "");
	for (size_t i = 0; rc && i < first.n; i++)
		diags_add(d, "%s", first.msgs[i]);
	diags_free(&first);
	return rc;
}

int results_is_json(const char *path, diags *d)
{
	FILE *f = open_input(path, d);
	if (!f)
		return -1;
	const char *wide = table_not_utf8(f);
	if (wide) {
		diags_add(d, "%s: %s", path, wide);
		fclose(f);
		return -1;
	}
	int c = getc(f);
	if (c == 0xEF && getc(f) == 0xBB && getc(f) == 0xBF) /* a byte order mark */
		c = getc(f);
	while (c != EOF && isspace(c))
		c = getc(f);
	fclose(f);
	return c == '{';
}

int t4_load(const char *path, const config *cfg, const space *sp, table *t, diags *d)
{
	yaml_document_t doc;
	memset(t, 0, sizeof *t);
	if (load_json(path, &doc, d))
		return -1;
	int rc = to_table(path, &doc, cfg, sp, t, d);
	yaml_document_delete(&doc);
	return rc;
}

/* The config the results of an autotune T4 name ("autotune": {"config": ...}); caller frees. */
static char *named_config(yaml_document_t *doc)
{
	reader R = {.doc = doc};
	yaml_node_t *results = get(&R, yaml_document_get_root_node(doc), "results");
	for (yaml_node_item_t *i = results && results->type == YAML_SEQUENCE_NODE ? results->data.sequence.items.start : NULL;
	     i && i < results->data.sequence.items.top; i++) {
		const char *cfg = text_of(get(&R, get(&R, node(&R, *i), "autotune"), "config"));
		if (cfg && *cfg)
			return xstrdup(cfg);
	}
	return NULL;
}

int results_load(const char *path, const char *config_path, table *t, diags *d)
{
	memset(t, 0, sizeof *t);
	int json = results_is_json(path, d);
	if (json <= 0)
		return json ? -1 : table_load(path, t, d);
	yaml_document_t doc;
	if (load_json(path, &doc, d))
		return -1;
	char *cfg_path = config_path ? xstrdup(config_path) : named_config(&doc);
	config cfg;
	space sp;
	int rc = -1;
	if (!cfg_path)
		diags_add(d, "%s: a T4 or Kernel Tuner cache file that does not name its config: give --config CONFIG.yaml", path);
	else if (config_load(cfg_path, &cfg, d) == 0) {
		diags_print(&cfg.warnings);
		if (space_enumerate(&cfg, &sp, d) == 0) {
			rc = to_table(path, &doc, &cfg, &sp, t, d);
			space_free(&sp);
		}
		config_free(&cfg);
	}
	free(cfg_path);
	yaml_document_delete(&doc);
	return rc;
}
