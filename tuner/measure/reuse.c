/* reuse.c: measurements of earlier runs found again by identity (plan_identity): the store the
 * journal fills (journal.c reads and writes the records), the setting every identity of a run
 * shares, read from the config as YAML so that comments, quoting and layout, and the sections
 * that only choose which configurations there are, do not count, and what the run says of it. */
#include "reuse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "config.h"
#include "hash.h"
#include "banned.h"

struct reuse_store {
	reuse_entry *v;
	size_t n, cap;
};

reuse_store *reuse_new(void) { return xcalloc(1, sizeof(reuse_store)); }

reuse_entry *reuse_add(reuse_store *s, const char *ident, size_t order)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = xrealloc(s->v, s->cap * sizeof *s->v);
	}
	reuse_entry *e = &s->v[s->n++];
	memset(e, 0, sizeof *e);
	snprintf(e->ident, sizeof e->ident, "%s", ident);
	e->order = order;
	e->r.connections = -1; /* taken from its "plan" record */
	e->r.shares_with = -1;
	e->r.driver_blocks = -1;
	return e;
}

reuse_entry *reuse_last(reuse_store *s, const char *ident)
{
	for (size_t k = s->n; k-- > 0;)
		if (!strcmp(s->v[k].ident, ident))
			return &s->v[k];
	return NULL;
}

static int by_ident_then_later(const void *a, const void *b)
{
	const reuse_entry *x = a, *y = b;
	int c = strcmp(x->ident, y->ident);
	return c ? c : (x->order < y->order) - (x->order > y->order);
}

static int by_later(const void *a, const void *b)
{
	const reuse_entry *x = a, *y = b;
	return (x->order < y->order) - (x->order > y->order);
}

/* A measurement: it ran and finished, with an identity. */
static int measurement(const reuse_entry *e)
{
	return e->state == 2 && e->r.st != ST_NOT_RUN && !e->r.lost_in_flight && strlen(e->ident) == 16 &&
	       !strcmp(e->ident, e->r.ident);
}

void reuse_settle(reuse_store *s)
{
	size_t m = 0;
	for (size_t k = 0; k < s->n; k++) {
		if (measurement(&s->v[k]))
			s->v[m++] = s->v[k];
		else
			free(s->v[k].r.message);
	}
	if (m)
		qsort(s->v, m, sizeof *s->v, by_ident_then_later);
	s->n = m;
	m = 0;
	for (size_t k = 0; k < s->n; k++) {
		if (m && !strcmp(s->v[m - 1].ident, s->v[k].ident))
			free(s->v[k].r.message);
		else
			s->v[m++] = s->v[k];
	}
	/* each edit that changes code adds its configurations' measurements, and the journal is read
	 * whole at every start: the oldest go */
	if (m > REUSE_MAX) {
		qsort(s->v, m, sizeof *s->v, by_later);
		for (size_t k = REUSE_MAX; k < m; k++)
			free(s->v[k].r.message);
		m = REUSE_MAX;
		qsort(s->v, m, sizeof *s->v, by_ident_then_later);
	}
	s->n = m;
}

size_t reuse_count(const reuse_store *s) { return s ? s->n : 0; }

const reuse_entry *reuse_at(const reuse_store *s, size_t k) { return &s->v[k]; }

/* The entry of ident (the store settled: sorted), or NULL. */
static const reuse_entry *find(const reuse_store *s, const char *ident)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s->v[mid].ident, ident);
		if (!c)
			return &s->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int reuse_take(const reuse_store *s, const char *ident, result *r)
{
	const reuse_entry *e = s && ident && *ident ? find(s, ident) : NULL;
	if (!e)
		return 0;
	const result *k = &e->r;
	r->st = k->st;
	result_set_message(r, k->message ? xstrdup(k->message) : NULL);
	r->t_median = k->t_median;
	r->t_min = k->t_min;
	r->t_max = k->t_max;
	r->samples = k->samples;
	r->driver_blocks = k->driver_blocks;
	r->noise = k->noise;
	r->batch = k->batch;
	r->mhz_before = k->mhz_before;
	r->mhz_after = k->mhz_after;
	r->have_metrics = k->have_metrics;
	memcpy(r->metrics, k->metrics, sizeof r->metrics);
	r->serial_ms = k->serial_ms;
	r->gpu = k->gpu;
	memcpy(r->code, k->code, sizeof r->code);
	memcpy(r->ident, e->ident, sizeof r->ident);
	r->final_rounds = 0; /* finalists are re-timed together, in this run */
	r->lost_in_flight = 0;
	r->reused = 1;
	return 1;
}

void reuse_free(reuse_store *s)
{
	if (!s)
		return;
	for (size_t k = 0; k < s->n; k++)
		free(s->v[k].r.message);
	free(s->v);
	free(s);
}

void reuse_say(const char *jpath, const journal_resume *resume, int fresh, int retry_failed)
{
	if (resume->finished || resume->in_flight) {
		fprintf(stderr, "%s: resuming: %zu %s measured before", jpath, resume->finished,
			plural(resume->finished, "configuration", "configurations"));
		/* what the journal's replay does with them: crashed, and run again only when asked */
		if (resume->in_flight)
			fprintf(stderr, "; %zu %s in flight when that run died and %s marked crashed (%s)", resume->in_flight,
				plural(resume->in_flight, "was", "were"), plural(resume->in_flight, "is", "are"),
				retry_failed ? "--retry-failed: measured again now" : "--retry-failed measures them again");
		fprintf(stderr, " (--fresh measures all again)\n");
	} else if (resume->key_changed && fresh)
		fprintf(stderr, "%s: --fresh: starting afresh\n", jpath);
	else if (resume->key_changed && resume->kept)
		fprintf(stderr, "%s: %s changed since the last run: %zu earlier %s kept, each taken where a "
				"configuration's binary, launch, inputs and GPU are as they were; the rest are measured\n",
			jpath, *resume->changed ? resume->changed : "what it was measured from", resume->kept,
			plural(resume->kept, "measurement is", "measurements are"));
	else if (resume->key_changed && *resume->changed)
		fprintf(stderr, "%s: %s changed since the last run: starting afresh\n", jpath, resume->changed);
	else if (resume->key_changed)
		fprintf(stderr, "%s: the journal does not say what it was measured from (an older autotune): starting "
				"afresh\n", jpath);
}

/* What the setting covers of the config: every section but those that choose which
 * configurations there are (space, constraints, search), how their code is built (kernel,
 * build: the code hash covers what they do), and what is made of the measurements (select,
 * bytes, flops, output, name), and instances (the constants below are the instance's). */
static int setting_section(const char *key)
{
	static const char *const not[] = {"name",   "kernel", "space",  "constraints", "build", "select",
					  "search", "bytes",  "flops",  "output",      "instances"};
	for (size_t i = 0; i < sizeof not / sizeof *not; i++)
		if (!strcmp(key, not[i]))
			return 0;
	return 1;
}

/* Whether key, in the root's section `section`, is one that decides nothing of a first-pass
 * measurement: how many finalists are re-timed (always in the run) and which counters are read
 * (a reused measurement without them gets them). */
static int skipped(const char *section, int depth, const char *key)
{
	if (depth == 0)
		return !setting_section(key);
	return depth == 1 && !strcmp(section, "measure") && (!strcmp(key, "finalists") || !strcmp(key, "metrics"));
}

/* A YAML node as its structure and scalars: comments, quoting and layout leave it as it is.
 * section: the root's key it is under ("" for the root). */
static void add_node(hasher *h, yaml_document_t *doc, yaml_node_t *n, int depth, const char *section)
{
	if (!n || depth > 64) {
		hasher_add_str(h, "?");
		return;
	}
	if (n->type == YAML_SCALAR_NODE) {
		hasher_add_str(h, "s");
		hasher_add(h, n->data.scalar.value, n->data.scalar.length);
		hasher_add_str(h, "");
	} else if (n->type == YAML_SEQUENCE_NODE) {
		hasher_add_str(h, "[");
		for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++)
			add_node(h, doc, yaml_document_get_node(doc, *it), depth + 1, section);
		hasher_add_str(h, "]");
	} else if (n->type == YAML_MAPPING_NODE) {
		hasher_add_str(h, "{");
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(doc, p->key);
			const char *key = k && k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : "";
			if (skipped(section, depth, key))
				continue;
			add_node(h, doc, k, depth + 1, section);
			add_node(h, doc, yaml_document_get_node(doc, p->value), depth + 1, depth == 0 ? key : section);
		}
		hasher_add_str(h, "}");
	}
}

/* The config's measuring sections; the whole file when it cannot be read as YAML. */
static void add_config(hasher *h, const char *path)
{
	FILE *f = fopen(path, "rb");
	yaml_parser_t parser;
	yaml_document_t doc;
	int parsed = 0;
	if (f && yaml_parser_initialize(&parser)) {
		yaml_parser_set_input_file(&parser, f);
		parsed = yaml_parser_load(&parser, &doc);
		if (parsed && yaml_document_get_root_node(&doc))
			add_node(h, &doc, yaml_document_get_root_node(&doc), 0, "");
		else if (parsed) {
			yaml_document_delete(&doc);
			parsed = 0;
		}
		if (parsed)
			yaml_document_delete(&doc);
		yaml_parser_delete(&parser);
	}
	if (f)
		fclose(f);
	if (!parsed)
		hasher_add_file(h, path);
}

/* A file's contents, not its name: data files are inputs wherever they are. */
static void add_contents(hasher *h, const char *path)
{
	if (access(path, R_OK)) {
		hasher_add_str(h, "unreadable");
		hasher_add_str(h, path);
		return;
	}
	hasher_add_str(h, "file");
	hasher_add_contents(h, path, NULL);
}

char *reuse_setting(const config *cfg, const device_info *gpu0, size_t ngpus)
{
	hasher *h = hasher_new();
	hasher_add_str(h, "autotune setting 1");
	add_config(h, cfg->path);
	for (size_t i = 0; i < cfg->nconstants; i++) {
		const constant *k = &cfg->constants[i];
		char v[64];
		if (k->v.kind == VAL_INT)
			snprintf(v, sizeof v, "%lld", k->v.u.i);
		else
			snprintf(v, sizeof v, "%.17g", k->v.u.f);
		hasher_add_str(h, k->name);
		hasher_add_str(h, v);
	}
	for (size_t i = 0; i < cfg->nargs; i++) {
		if (cfg->args[i].fill_file.path)
			add_contents(h, cfg->args[i].fill_file.path);
		if (cfg->args[i].expected.path)
			add_contents(h, cfg->args[i].expected.path);
	}
	if (cfg->host.source)
		add_contents(h, cfg->host.source);
	char more[96];
	snprintf(more, sizeof more, "connections %d driver %d gpus %zu", cfg->plan.default_connections,
		 gpu0->driver_version, ngpus);
	hasher_add_str(h, more);
	hasher_add_str(h, gpu0->name);
	hasher_add_str(h, gpu0->uuid);
	char *hex = xmalloc(17);
	hasher_finish(h, hex);
	return hex;
}
