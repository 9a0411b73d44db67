/* setting.c: what every measurement of a run shares beyond its configuration's own binary and
 * launch (plan_identity folds it in): a measurement of an earlier run is taken only under the
 * same setting. Read from the config as YAML, so that comments, quoting and layout, and the
 * sections that only choose which configurations there are, do not count. */
#include "setting.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "config.h"
#include "hash.h"
#include "banned.h"

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
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char buf[1 << 16];
	ssize_t n;
	hasher_add_str(h, fd < 0 ? "unreadable" : "file");
	while (fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0)
		hasher_add(h, buf, (size_t)n);
	if (fd < 0)
		hasher_add_str(h, path);
	else
		close(fd);
}

char *run_setting(const config *cfg, const device_info *gpu0, size_t ngpus)
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
