/* inputs.c: the files a tuning run reads, so that nothing autotune writes can replace one: the
 * config, the kernel source and the headers it includes from the project, data and expected
 * files, the host reference. */
#include "inputs.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "diag.h"
#include "run_names.h"
#include "banned.h"

/* quoted includes are followed this deep and this far: a project's own headers, not a system's */
#define INCLUDE_DEPTH 16
#define INCLUDE_FILES 256

static void add(inputs *in, char *path, const char *what)
{
	grow(&in->items, &in->cap, in->n + 1, sizeof *in->items);
	in->items[in->n++] = (input_file){path, what};
}

static int listed(const inputs *in, const char *path)
{
	for (size_t i = 0; i < in->n; i++)
		if (same_file(in->items[i].path, path))
			return 1;
	return 0;
}

/* The name in `#include "NAME"` on this line, into name (0), else -1. */
static int quoted_include(const char *line, char *name, size_t len)
{
	while (isspace((unsigned char)*line))
		line++;
	if (*line++ != '#')
		return -1;
	while (*line == ' ' || *line == '\t')
		line++;
	if (strncmp(line, "include", 7))
		return -1;
	line += 7;
	while (*line == ' ' || *line == '\t')
		line++;
	const char *end = *line == '"' ? strchr(line + 1, '"') : NULL;
	if (!end || (size_t)(end - line - 1) >= len || end == line + 1)
		return -1;
	snprintf(name, len, "%.*s", (int)(end - line - 1), line + 1);
	return 0;
}

/* NAME as the compiler finds a quoted include: beside the including file, then in each -I. */
static char *find_include(const char *name, const char *from, char *const *dirs, size_t ndirs)
{
	if (name[0] == '/')
		return access(name, R_OK) == 0 ? xstrdup(name) : NULL;
	const char *slash = strrchr(from, '/');
	char *p = slash ? xasprintf("%.*s/%s", (int)(slash - from), from, name) : xstrdup(name);
	for (size_t i = 0; access(p, R_OK) != 0; i++) {
		free(p);
		if (i == ndirs)
			return NULL;
		p = xasprintf("%s/%s", dirs[i], name);
	}
	return p;
}

static void add_includes(inputs *in, const char *file, char *const *dirs, size_t ndirs, int depth)
{
	FILE *f = depth < INCLUDE_DEPTH ? fopen(file, "r") : NULL;
	if (!f)
		return;
	char *line = NULL, name[4096];
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0 && in->n < INCLUDE_FILES) {
		if (quoted_include(line, name, sizeof name))
			continue;
		char *path = find_include(name, file, dirs, ndirs);
		if (!path || listed(in, path)) {
			free(path);
			continue;
		}
		add(in, path, "a header the kernel includes");
		add_includes(in, path, dirs, ndirs, depth + 1);
	}
	free(line);
	fclose(f);
}

/* The -I directories of the build flags (as nvcc gets them: "-Idir" or "-I", "dir"). */
static size_t include_dirs(const config *cfg, char ***dirs)
{
	size_t n = 0;
	*dirs = xcalloc(cfg->nflags + 1, sizeof **dirs);
	for (size_t i = 0; i < cfg->nflags; i++)
		if (!strncmp(cfg->nvcc_flags[i], "-I", 2))
			(*dirs)[n++] = cfg->nvcc_flags[i][2] ? cfg->nvcc_flags[i] + 2
							     : (i + 1 < cfg->nflags ? cfg->nvcc_flags[++i] : "");
	return n;
}

void inputs_of(const config *cfg, inputs *in)
{
	memset(in, 0, sizeof *in);
	add(in, xstrdup(cfg->path), "the config");
	if (cfg->source) {
		add(in, xstrdup(cfg->source), "the kernel source");
		char **dirs;
		size_t ndirs = include_dirs(cfg, &dirs);
		add_includes(in, cfg->source, dirs, ndirs, 0);
		free(dirs);
	}
	for (size_t i = 0; i < cfg->nargs; i++) {
		if (cfg->args[i].fill_file.path)
			add(in, xstrdup(cfg->args[i].fill_file.path), "a data file");
		if (cfg->args[i].expected.path)
			add(in, xstrdup(cfg->args[i].expected.path), "a data file");
	}
	if (cfg->host.source)
		add(in, xstrdup(cfg->host.source), "the host reference (verify.host)");
}

void inputs_free(inputs *in)
{
	for (size_t i = 0; i < in->n; i++)
		free(in->items[i].path);
	free(in->items);
	memset(in, 0, sizeof *in);
}

const input_file *inputs_find(const inputs *in, const char *path)
{
	for (size_t i = 0; i < in->n; i++)
		if (same_file(path, in->items[i].path))
			return &in->items[i];
	return NULL;
}

/* Whether the file at path, when there is one, begins (in its first 4 kB) with text holding
 * signature: a file autotune wrote, which it may replace. */
static int ours_or_absent(const char *path, const char *signature)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 1;
	char head[4097];
	size_t n = fread(head, 1, sizeof head - 1, f);
	fclose(f);
	head[n] = 0;
	return n == 0 || strstr(head, signature) != NULL;
}

int inputs_check_output(const char *config_path, const char *out, const char *out_name, const char *signature,
			diags *d)
{
	int rc = 0;
	if (config_path && *config_path) {
		config cfg;
		diags ignored = {0};
		if (config_load_quietly(config_path, &cfg, &ignored) == 0) {
			inputs in;
			inputs_of(&cfg, &in);
			add(&in, run_name(cfg.csv_path, RUN_FILE_JOURNAL), "the journal of its runs");
			const input_file *clash = inputs_find(&in, out);
			if (clash) {
				diags_add(d, "cannot write %s to '%s': it is %s of %s", out_name, out, clash->what, config_path);
				rc = -1;
			}
			inputs_free(&in);
		}
		config_free(&cfg);
		diags_free(&ignored);
	}
	if (!rc && signature && !ours_or_absent(out, signature)) {
		diags_add(d, "cannot write %s to '%s': a file autotune did not write is there; remove it or choose another path",
			  out_name, out);
		rc = -1;
	}
	return rc;
}
