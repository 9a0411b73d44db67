/* select_t4.c: a T4 file that autotune wrote (--t4; tuner/results/t4.c) read back as its CSV's
 * winners, for the run-time library. A result's row is its parameters ("configuration"), its
 * measurements by name (but "time", a copy of the time that decides), the "autotune" object's
 * fields (status, flags, gpu, spec_hash, ...) and its timestamp (tuned_at); the instance's
 * constants are the measurements after "instance", as in the CSV they are the columns after it.
 *
 * The JSON goes through libyaml one event at a time, so a hostile file costs no more than its
 * size: only the winners' rows are kept, nesting deeper than a T4 file's is refused as soon as it
 * is seen, and what JSON has not (anchors, aliases, tags) is refused, never expanded. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "select_results.h"

/* A T4 file nests four deep (the results, a result, its measurements, a measurement). */
#define MAX_DEPTH 16
/* Fields of one result, and columns in all: a row of autotune's CSV has about sixty. */
#define MAX_FIELDS 4096
#define NONE ((size_t)-1)

typedef struct {
	char **name, **val;
	size_t n, cap;
} fields;

/* One result: its parameters, its other fields; rest's "instance" measurement (NONE: none) and
 * where its measurements end, so that those between are the constants. */
typedef struct {
	fields params, rest;
	size_t inst, meas_end;
	yaml_mark_t at;
} row;

typedef struct {
	yaml_parser_t parser;
	yaml_event_t ev; /* the current event, when have */
	int have, depth, failed;
	FILE *f;
	long long bytes; /* read so far, against SELECT_MAX_FILE_BYTES */
	const char *path, *spec_hash;
	char *err;
	size_t errlen;
	row *wins; /* the winners, in file order */
	size_t nwins;
	int spec_seen;
} reader;

static int fail_at(reader *R, yaml_mark_t m, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_at(reader *R, yaml_mark_t m, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	select_say(R->err, R->errlen, "%s:%lu:%lu: %s", R->path, (unsigned long)m.line + 1, (unsigned long)m.column + 1, msg);
	R->failed = 1;
	return -1;
}

static int out_of_memory(reader *R)
{
	select_say(R->err, R->errlen, "%s: out of memory", R->path);
	R->failed = 1;
	return -1;
}

static int syntax_error(reader *R)
{
	const yaml_parser_t *p = &R->parser;
	R->failed = 1;
	if (R->bytes > SELECT_MAX_FILE_BYTES) {
		select_say(R->err, R->errlen, "%s: more bytes than a results file may have (" SELECT_MAX_FILE_TEXT ")", R->path);
		return -1;
	}
	if (p->error == YAML_MEMORY_ERROR)
		return out_of_memory(R);
	if (p->error == YAML_READER_ERROR) {
		select_say(R->err, R->errlen, "%s: byte %lu: %s: the file must be UTF-8 JSON", R->path,
			   (unsigned long)p->problem_offset, p->problem ? p->problem : "unreadable text");
		return -1;
	}
	return fail_at(R, p->problem ? p->problem_mark : p->context_mark,
		       "JSON syntax error: %s%s%s (a file cut short, or not JSON)",
		       p->problem ? p->problem : "unknown problem", p->context ? " " : "", p->context ? p->context : "");
}

/* The next event into R->ev, the one before deleted; -1, said, at the first problem. */
static int next(reader *R)
{
	if (R->have)
		yaml_event_delete(&R->ev);
	R->have = 0;
	if (R->failed)
		return -1;
	if (!yaml_parser_parse(&R->parser, &R->ev))
		return syntax_error(R);
	R->have = 1;
	const yaml_event_t *e = &R->ev;
	int yaml_only = 0;
	switch (e->type) {
	case YAML_ALIAS_EVENT:
		yaml_only = 1;
		break;
	case YAML_SCALAR_EVENT:
		yaml_only = e->data.scalar.anchor || e->data.scalar.tag;
		if (memchr(e->data.scalar.value, 0, e->data.scalar.length))
			return fail_at(R, e->start_mark, "a NUL character (\\0) in a string: not allowed");
		if (e->data.scalar.length > SELECT_MAX_RECORD_BYTES)
			return fail_at(R, e->start_mark, "a string longer than %d bytes: not a T4 file of autotune",
				       SELECT_MAX_RECORD_BYTES);
		break;
	case YAML_SEQUENCE_START_EVENT:
		yaml_only = e->data.sequence_start.anchor || e->data.sequence_start.tag;
		R->depth++;
		break;
	case YAML_MAPPING_START_EVENT:
		yaml_only = e->data.mapping_start.anchor || e->data.mapping_start.tag;
		R->depth++;
		break;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		R->depth--;
		break;
	default:
		break;
	}
	if (yaml_only)
		return fail_at(R, e->start_mark, "JSON syntax error: a YAML anchor, alias or tag (&, *, !): not JSON");
	if (R->depth > MAX_DEPTH)
		return fail_at(R, e->start_mark, "lists and objects nested more than %d deep: not a T4 file", MAX_DEPTH);
	return 0;
}

static const char *scalar(const reader *R)
{
	return R->ev.type == YAML_SCALAR_EVENT ? (const char *)R->ev.data.scalar.value : NULL;
}

/* Past the value that the current event starts. */
static int skip(reader *R)
{
	int level = R->depth;
	if (R->ev.type != YAML_SEQUENCE_START_EVENT && R->ev.type != YAML_MAPPING_START_EVENT)
		return 0;
	while (R->depth >= level)
		if (next(R))
			return -1;
	return 0;
}

static const char *field(const fields *f, const char *name)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->name[i], name))
			return f->val[i];
	return NULL;
}

static void fields_free(fields *f)
{
	select_free_row(f->name, f->n);
	select_free_row(f->val, f->n);
}

static void row_free(row *w)
{
	fields_free(&w->params);
	fields_free(&w->rest);
}

/* name = val into f of row w: -1, said at m, when w has that name already or too many. */
static int add(reader *R, row *w, fields *f, const char *name, const char *val, yaml_mark_t m)
{
	if (field(&w->params, name) || field(&w->rest, name))
		return fail_at(R, m, "'%s' twice in one result", name);
	if (w->params.n + w->rest.n >= MAX_FIELDS)
		return fail_at(R, m, "more than %d fields in one result: not a T4 file of autotune", MAX_FIELDS);
	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 16;
		char **n = select_grow(f->name, cap * sizeof *f->name);
		if (n)
			f->name = n;
		char **v = n ? select_grow(f->val, cap * sizeof *f->val) : NULL;
		if (!v)
			return out_of_memory(R);
		f->val = v;
		f->cap = cap;
	}
	char *n = select_strdup(name), *v = select_strdup(val);
	if (!n || !v) {
		free(n);
		free(v);
		return out_of_memory(R);
	}
	f->name[f->n] = n;
	f->val[f->n++] = v;
	return 0;
}

/* The object the current event starts, of names to strings or numbers (the configuration, the
 * "autotune" object), into f; what names it in messages. */
static int read_pairs(reader *R, row *w, fields *f, const char *what)
{
	if (R->ev.type != YAML_MAPPING_START_EVENT)
		return fail_at(R, R->ev.start_mark, "%s is not an object", what);
	while (!next(R) && R->ev.type != YAML_MAPPING_END_EVENT) {
		if (!scalar(R))
			return fail_at(R, R->ev.start_mark, "a key of %s that is not a string", what);
		char *name = select_strdup(scalar(R));
		if (!name)
			return out_of_memory(R);
		int rc = next(R);
		if (!rc && !scalar(R))
			rc = fail_at(R, R->ev.start_mark, "'%s' of %s is a list or object, not a string or number", name, what);
		if (!rc)
			rc = add(R, w, f, name, scalar(R), R->ev.start_mark);
		free(name);
		if (rc)
			return -1;
	}
	return R->failed ? -1 : 0;
}

/* One measurement ({"name", "value", "unit"}): its name and value, NULL where it has none. */
static int read_measurement(reader *R, char **name, char **value)
{
	if (R->ev.type != YAML_MAPPING_START_EVENT)
		return fail_at(R, R->ev.start_mark, "a measurement is not an object");
	while (!next(R) && R->ev.type != YAML_MAPPING_END_EVENT) {
		const char *k = scalar(R);
		char **into = !k ? NULL : !strcmp(k, "name") ? name : !strcmp(k, "value") ? value : NULL;
		if (!k)
			return fail_at(R, R->ev.start_mark, "a key of a measurement that is not a string");
		if (next(R))
			return -1;
		if (into && !scalar(R))
			return fail_at(R, R->ev.start_mark, "a measurement's %s is a list or object", into == name ? "name" : "value");
		if (into) {
			free(*into);
			if (!(*into = select_strdup(scalar(R))))
				return out_of_memory(R);
		} else if (skip(R))
			return -1;
	}
	return R->failed ? -1 : 0;
}

/* The measurements, in order; "instance" and where they end noted. */
static int read_measurements(reader *R, row *w)
{
	if (R->ev.type != YAML_SEQUENCE_START_EVENT)
		return fail_at(R, R->ev.start_mark, "\"measurements\" is not a list");
	while (!next(R) && R->ev.type != YAML_SEQUENCE_END_EVENT) {
		char *name = NULL, *value = NULL;
		yaml_mark_t at = R->ev.start_mark;
		int rc = read_measurement(R, &name, &value);
		if (!rc && name && value && strcmp(name, "time")) {
			if (!strcmp(name, "instance"))
				w->inst = w->rest.n;
			rc = add(R, w, &w->rest, name, value, at);
		}
		free(name);
		free(value);
		if (rc)
			return -1;
	}
	w->meas_end = w->rest.n;
	return R->failed ? -1 : 0;
}

/* A result read: its spec checked, kept when it is a winner (1), else 0; -1 for a result that is
 * not autotune's or of another spec. */
static int take(reader *R, row *w, int autotune)
{
	if (!autotune)
		return fail_at(R, w->at,
			       "a result without autotune's fields (no \"autotune\" object, so no spec_hash, flags or "
			       "instance information): not a T4 file that autotune wrote; give autotune's results CSV, or the "
			       "T4 file of `autotune --t4`");
	const char *spec = field(&w->rest, "spec_hash"), *flags = field(&w->rest, "flags");
	R->spec_seen |= spec != NULL;
	if (select_check_spec(R->path, R->spec_hash, spec ? spec : "", R->err, R->errlen)) {
		R->failed = 1;
		return -1;
	}
	if (!flags || !strstr(flags, "winner"))
		return 0;
	row *g = select_grow(R->wins, (R->nwins + 1) * sizeof *R->wins);
	if (!g)
		return out_of_memory(R);
	R->wins = g;
	R->wins[R->nwins++] = *w;
	return 1;
}

static int read_result(reader *R)
{
	if (R->ev.type != YAML_MAPPING_START_EVENT)
		return fail_at(R, R->ev.start_mark, "a result is not an object");
	row w = {.inst = NONE, .at = R->ev.start_mark};
	int autotune = 0, rc = 0;
	while (!rc && !(rc = next(R)) && R->ev.type != YAML_MAPPING_END_EVENT) {
		const char *k = scalar(R);
		if (!k) {
			rc = fail_at(R, R->ev.start_mark, "a key of a result that is not a string");
			break;
		}
		enum { OTHER, CONF, MEAS, OURS, WHEN } which = !strcmp(k, "configuration") ? CONF
							       : !strcmp(k, "measurements")  ? MEAS
							       : !strcmp(k, "autotune")      ? OURS
							       : !strcmp(k, "timestamp")     ? WHEN
											     : OTHER;
		if ((rc = next(R)))
			break;
		if (which == CONF)
			rc = read_pairs(R, &w, &w.params, "the configuration");
		else if (which == MEAS)
			rc = read_measurements(R, &w);
		else if (which == OURS) {
			autotune = 1;
			rc = read_pairs(R, &w, &w.rest, "the \"autotune\" object");
		} else if (which == WHEN && scalar(R))
			rc = add(R, &w, &w.rest, "tuned_at", scalar(R), R->ev.start_mark);
		else
			rc = skip(R);
	}
	if (!rc && take(R, &w, autotune) == 1)
		return 0;
	row_free(&w);
	return R->failed ? -1 : 0;
}

/* The root object: its "results", each read; anything else skipped. */
static int read_root(reader *R)
{
	int results = 0, cache = 0;
	if (next(R) || next(R) || next(R)) /* the stream, the document, the root */
		return -1;
	if (R->ev.type != YAML_MAPPING_START_EVENT)
		return fail_at(R, R->ev.start_mark, "not a T4 results file (not a JSON object)");
	while (!next(R) && R->ev.type != YAML_MAPPING_END_EVENT) {
		const char *k = scalar(R);
		int is_results = k && !strcmp(k, "results");
		cache |= k && !strcmp(k, "cache");
		if (!k)
			return fail_at(R, R->ev.start_mark, "a key that is not a string");
		if (next(R))
			return -1;
		if (!is_results) {
			if (skip(R))
				return -1;
			continue;
		}
		if (results++)
			return fail_at(R, R->ev.start_mark, "a second \"results\" list");
		if (R->ev.type != YAML_SEQUENCE_START_EVENT)
			return fail_at(R, R->ev.start_mark, "\"results\" is not a list");
		while (!next(R) && R->ev.type != YAML_SEQUENCE_END_EVENT)
			if (read_result(R))
				return -1;
	}
	if (R->failed || next(R) || next(R))
		return -1;
	if (R->ev.type != YAML_STREAM_END_EVENT)
		return fail_at(R, R->ev.start_mark, "JSON syntax error: a second document: the file must hold one");
	if (!results) {
		select_say(R->err, R->errlen,
			   cache ? "%s: a Kernel Tuner cache file, not autotune's results: it has no spec or instance information; "
				   "give autotune's results CSV, or the T4 file of `autotune --t4`"
				 : "%s: not a T4 results file (no \"results\" list)",
			   R->path);
		return -1;
	}
	return 0;
}

/* The column of name among r's, added when new; -1, said at w, past MAX_FIELDS. */
static long column(reader *R, autotune_results *r, const char *name, const row *w)
{
	for (size_t c = r->nparams; c < r->ncols; c++)
		if (!strcmp(r->names[c], name))
			return (long)c;
	if (r->ncols >= MAX_FIELDS)
		return fail_at(R, w->at, "more than %d fields in the results: not a T4 file of autotune", MAX_FIELDS);
	char **g = select_grow(r->names, (r->ncols + 1) * sizeof *r->names);
	if (g)
		r->names = g;
	if (!g || !(r->names[r->ncols] = select_strdup(name)))
		return out_of_memory(R);
	return (long)r->ncols++;
}

/* The columns: the first winner's parameters, which every winner must have, then every field
 * any winner has; the instance's and its constants' noted. */
static int columns(reader *R, autotune_results *r)
{
	const fields *p = &R->wins[0].params;
	r->nparams = r->ncols = p->n;
	if (!(r->names = select_zalloc(p->n, sizeof *r->names)))
		return out_of_memory(R);
	for (size_t i = 0; i < p->n; i++)
		if (!(r->names[i] = select_strdup(p->name[i])))
			return out_of_memory(R);
	const row *with_inst = NULL;
	for (size_t k = 0; k < R->nwins; k++) {
		const row *w = &R->wins[k];
		int same = w->params.n == p->n;
		for (size_t i = 0; same && i < p->n; i++)
			same = !strcmp(w->params.name[i], p->name[i]);
		if (!same)
			return fail_at(R, w->at, "a winner whose parameters are not the first winner's");
		for (size_t i = 0; i < w->rest.n; i++)
			if (column(R, r, w->rest.name[i], w) < 0)
				return -1;
		if (!with_inst && w->inst != NONE)
			with_inst = w;
	}
	r->inst_col = -1;
	if (!with_inst)
		return 0;
	long c = column(R, r, "instance", with_inst);
	if (c < 0)
		return -1;
	r->inst_col = (int)c;
	r->nconsts = with_inst->meas_end - with_inst->inst - 1;
	if (!(r->const_col = select_zalloc(r->nconsts, sizeof *r->const_col)))
		return out_of_memory(R);
	for (size_t k = 0; k < r->nconsts; k++) {
		if ((c = column(R, r, with_inst->rest.name[with_inst->inst + 1 + k], with_inst)) < 0)
			return -1;
		r->const_col[k] = (size_t)c;
	}
	return 0;
}

/* The winners as r's rows, each with a cell per column ("" where it has no such field). */
static int rows(reader *R, autotune_results *r)
{
	for (size_t k = 0; k < R->nwins; k++) {
		row *w = &R->wins[k];
		char **cells = select_zalloc(r->ncols, sizeof *cells);
		if (!cells)
			return out_of_memory(R);
		for (size_t i = 0; i < w->params.n; i++) {
			cells[i] = w->params.val[i];
			w->params.val[i] = NULL;
		}
		for (size_t i = 0; i < w->rest.n; i++) {
			size_t c = (size_t)column(R, r, w->rest.name[i], w);
			cells[c] = w->rest.val[i];
			w->rest.val[i] = NULL;
		}
		for (size_t c = 0; c < r->ncols; c++)
			if (!cells[c] && !(cells[c] = select_strdup(""))) {
				select_free_row(cells, r->ncols);
				return out_of_memory(R);
			}
		char where[4096];
		snprintf(where, sizeof where, "%s:%lu:%lu", R->path, (unsigned long)w->at.line + 1, (unsigned long)w->at.column + 1);
		if (select_add_winner(r, cells, where, R->err, R->errlen))
			return -1;
	}
	return 0;
}

/* libyaml's input: f, counted, refused past SELECT_MAX_FILE_BYTES (a file that grows as it is read). */
static int read_some(void *data, unsigned char *buf, size_t size, size_t *got)
{
	reader *R = data;
	*got = fread(buf, 1, size, R->f);
	R->bytes += (long long)*got;
	return R->bytes <= SELECT_MAX_FILE_BYTES && !ferror(R->f);
}

autotune_results *select_t4_load(FILE *f, const char *path, const char *spec_hash, char *err, size_t errlen)
{
	reader R = {.path = path, .spec_hash = spec_hash, .err = err, .errlen = errlen, .f = f};
	if (!yaml_parser_initialize(&R.parser)) {
		select_say(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	yaml_parser_set_input(&R.parser, read_some, &R);
	int rc = read_root(&R);
	if (R.have)
		yaml_event_delete(&R.ev);
	yaml_parser_delete(&R.parser);
	if (!rc && R.nwins && !R.spec_seen) {
		select_say(err, errlen, "%s: no result has a spec_hash: not autotune's results, or of an autotune too old to "
					"record its spec; tune again",
			   path);
		rc = -1;
	}
	autotune_results *r = select_zalloc(1, sizeof *r);
	if (!r && !rc)
		rc = out_of_memory(&R);
	if (r)
		r->inst_col = -1;
	if (!rc && R.nwins)
		rc = columns(&R, r) || rows(&R, r) ? -1 : 0;
	for (size_t k = 0; k < R.nwins; k++)
		row_free(&R.wins[k]);
	free(R.wins);
	if (rc) {
		select_results_free(r);
		return NULL;
	}
	return r;
}
