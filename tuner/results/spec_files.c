/* spec_files.c: the files a spec hash covers, and the list of them that results keep beside them
 * to say which one changed. */
/* realpath is XSI */
#define _XOPEN_SOURCE 700
#include "spec_files.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "config.h"
#include "run_names.h"
#include "table.h"
#include "banned.h"

#define SPEC_FILES_MAGIC "autotune spec files 1"

void spec_files_of(const config *cfg, spec_files *out)
{
	memset(out, 0, sizeof *out);
	spec_files_add(out, cfg->path);
	spec_files_add(out, cfg->source);
	includes_of(cfg->source, cfg->path, cfg->nvcc_flags, cfg->nflags, out);
	if (cfg->host.source)
		spec_files_add(out, cfg->host.source);
	for (size_t i = 0; i < cfg->nargs; i++) {
		if (cfg->args[i].fill_file.path)
			spec_files_add(out, cfg->args[i].fill_file.path);
		if (cfg->args[i].expected.path)
			spec_files_add(out, cfg->args[i].expected.path);
	}
}

char *spec_files_path(const char *csv_path) { return run_name(csv_path, RUN_FILE_SPEC_LIST); }

/* path relative to the directory `dir` (resolved), "../" where it must climb; as it is when it
 * cannot be resolved. Caller frees. */
static char *relative_to(const char *dir, const char *path)
{
	char *real = realpath(path, NULL);
	if (!real)
		return xstrdup(path);
	/* the last '/' up to which both are the same directories */
	size_t i = 0, common = 0;
	while (dir[i] && dir[i] == real[i]) {
		i++;
		if (dir[i] == '/' && real[i] == '/')
			common = i;
	}
	if (!dir[i] && real[i] == '/')
		common = i;
	if (!strcmp(dir, "/"))
		common = 0;
	size_t ups = 0;
	for (const char *p = dir + common; *p && strcmp(dir, "/"); p++)
		ups += *p == '/';
	char *rel = xmalloc(3 * ups + strlen(real) + 1), *w = rel;
	for (size_t k = 0; k < ups; k++, w += 3)
		memcpy(w, "../", 3);
	memcpy(w, real + common + 1, strlen(real + common + 1) + 1);
	free(real);
	return rel;
}

/* Whether path lies in the resolved directory dir. */
static int under(const char *path, const char *dir)
{
	size_t len = strlen(dir);
	return !strncmp(path, dir, len) && (path[len] == '/' || !strcmp(dir, "/"));
}

/* The project's directories, resolved: the config's, the source's and the -I directories. */
static size_t project_dirs(const config *cfg, char **dirs)
{
	size_t n = 0;
	dirs[n++] = dir_of(cfg->path);
	dirs[n++] = dir_of(cfg->source);
	for (size_t i = 0; i < cfg->nflags; i++) {
		const char *f = cfg->nvcc_flags[i], *dir = NULL;
		if (!strcmp(f, "-I") && i + 1 < cfg->nflags)
			dir = cfg->nvcc_flags[++i];
		else if (!strncmp(f, "-I", 2))
			dir = f + 2;
		char *real = dir ? realpath(dir, NULL) : NULL;
		if (real)
			dirs[n++] = real;
	}
	return n;
}

/* Whether nvcc's dependency `path` is a file of the project (not the cache's, not the system's)
 * that the spec hash does not cover. */
static int uncovered(const char *path, char *const *dirs, size_t ndirs, const char *cache, const spec_files *covered)
{
	size_t d = 0;
	while (d < ndirs && !under(path, dirs[d]))
		d++;
	if (d == ndirs || under(path, cache))
		return 0;
	for (size_t i = 0; i < covered->n; i++)
		if (same_file(covered->v[i].path, path))
			return 0;
	return 1;
}

/* What nvcc read for the binaries (the cache entries' dependency lists) that lies in the project
 * and that the spec hash does not cover: a file named by an #include that includes_of cannot
 * follow (#include MACRO). Said once each: a build's stale check would miss its edits. */
static void say_uncovered(const config *cfg, const spec_files *covered, const build *b)
{
	if (!b || !b->cache)
		return;
	const char *cache = cache_dir(b->cache);
	char **dirs = xcalloc(cfg->nflags + 3, sizeof *dirs), **said = NULL, line[PATH_MAX + 32];
	size_t ndirs = project_dirs(cfg, dirs), nsaid = 0, cap = 0;
	for (size_t k = 0; k < b->nbins; k++) {
		const char *cubin = b->bins[k].cubin;
		size_t len = cubin ? strlen(cubin) : 0;
		if (b->bins[k].failed || len < 6 || strcmp(cubin + len - 6, ".cubin") || !under(cubin, cache))
			continue;
		char *deps = xasprintf("%.*s.deps", (int)(len - 6), cubin);
		FILE *f = fopen(deps, "r");
		free(deps);
		while (f && fgets(line, sizeof line, f) && strncmp(line, "end ", 4)) {
			line[strcspn(line, "\n")] = 0;
			if (strlen(line) <= 17 || !uncovered(line + 17, dirs, ndirs, cache, covered))
				continue;
			size_t s = 0;
			while (s < nsaid && strcmp(said[s], line + 17))
				s++;
			if (s < nsaid)
				continue;
			grow(&said, &cap, nsaid + 1, sizeof *said);
			said[nsaid++] = xstrdup(line + 17);
			fprintf(stderr, "autotune: warning: nvcc read %s, which the spec hash does not cover (an #include that "
					"autotune cannot follow, such as #include MACRO): an edit of it will not make these "
					"results stale; #include it by name\n", line + 17);
		}
		if (f)
			fclose(f);
	}
	for (size_t i = 0; i < nsaid; i++)
		free(said[i]);
	free(said);
	for (size_t i = 0; i < ndirs; i++)
		free(dirs[i]);
	free(dirs);
}

/* Whether the file at path may be replaced by a list: absent, or one autotune wrote. */
static int ours(const char *path)
{
	char head[sizeof SPEC_FILES_MAGIC] = "";
	FILE *f = fopen(path, "rb");
	if (!f)
		return 1;
	size_t n = fread(head, 1, sizeof head - 1, f);
	fclose(f);
	head[n] = 0;
	return !strcmp(head, SPEC_FILES_MAGIC);
}

void spec_files_keep(const config *cfg, const char *spec_hash, const char *csv_path, const build *b)
{
	if (!csv_path)
		return;
	spec_files f;
	spec_files_of(cfg, &f);
	say_uncovered(cfg, &f, b);
	char *path = spec_files_path(csv_path);
	if (!ours(path)) {
		fprintf(stderr, "autotune: warning: %s is not a list autotune wrote: kept as it is, so validate cannot say "
				"which file makes these results stale\n", path);
		free(path);
		spec_files_free(&f);
		return;
	}
	char *dir = dir_of(path), *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		diag_out_of_memory();
	fprintf(m, "%s\n%s\n", SPEC_FILES_MAGIC, spec_hash);
	for (size_t i = 0; i < f.n; i++) {
		char *rel = relative_to(dir, f.v[i].path);
		fprintf(m, "%s %s\n", f.v[i].hash, rel);
		free(rel);
	}
	fclose(m);
	diags d = {0};
	if (write_output(path, text, len, &d)) {
		fprintf(stderr, "autotune: warning: the list of the files the results were tuned from is not kept, so "
				"validate cannot say which one changes: ");
		diags_print(&d);
	}
	diags_free(&d);
	free(text);
	free(dir);
	free(path);
	spec_files_free(&f);
}

/* The recorded list of `path` made for spec hash `was`: "<hash> <path>" lines after the magic and
 * the hash; NULL when absent, of another spec, or not one. Caller frees. */
static char *recorded(const char *path, const char *was)
{
	diags quiet = {0};
	size_t len;
	char *text = read_input(path, 1 << 20, "a spec's file list", &len, &quiet);
	diags_free(&quiet);
	if (!text)
		return NULL;
	char *head = xasprintf("%s\n%s\n", SPEC_FILES_MAGIC, was);
	int ok = !strncmp(text, head, strlen(head)) && strlen(text) == len;
	if (ok)
		memmove(text, text + strlen(head), len - strlen(head) + 1);
	free(head);
	if (!ok) {
		free(text);
		return NULL;
	}
	return text;
}

/* The recorded hash of rel, or NULL when the list has no such file (it is new). */
static const char *recorded_hash(const char *list, const char *rel, char out[17])
{
	for (const char *line = list; *line;) {
		const char *eol = strchr(line, '\n');
		size_t n = eol ? (size_t)(eol - line) : strlen(line);
		if (n > 17 && line[16] == ' ' && n - 17 == strlen(rel) && !strncmp(line + 17, rel, n - 17)) {
			memcpy(out, line, 16);
			out[16] = 0;
			return out;
		}
		line += n + (eol != NULL);
	}
	return NULL;
}

static void say(char **why, const char *fmt, const char *path)
{
	char *part = xasprintf(fmt, path);
	char *joined = *why ? xasprintf("%s, %s", *why, part) : xstrdup(part);
	free(part);
	free(*why);
	*why = joined;
}

char *spec_files_stale(const config *cfg, const char *csv_path, const char *was)
{
	char *path = spec_files_path(csv_path), *list = recorded(path, was);
	if (!list) {
		free(path);
		return NULL;
	}
	char *dir = dir_of(path), *why = NULL;
	spec_files now;
	spec_files_of(cfg, &now);
	char **rels = xcalloc(now.n + 1, sizeof *rels);
	for (size_t i = 0; i < now.n; i++) {
		rels[i] = relative_to(dir, now.v[i].path);
		char h[17];
		if (!recorded_hash(list, rels[i], h))
			say(&why, "%s is read now and was not then", now.v[i].path);
		else if (strcmp(h, now.v[i].hash))
			say(&why, "%s changed", now.v[i].path);
	}
	/* and what was read then and no longer is (an #include taken out) */
	for (const char *line = list; *line;) {
		const char *eol = strchr(line, '\n');
		size_t n = eol ? (size_t)(eol - line) : strlen(line);
		char *rel = n > 17 ? xasprintf("%.*s", (int)(n - 17), line + 17) : NULL;
		size_t i = 0;
		while (rel && i < now.n && strcmp(rels[i], rel))
			i++;
		if (rel && i == now.n) {
			/* named as the files read now are: a path from here */
			char *joined = xasprintf("%s/%s", dir, rel), *real = realpath(joined, NULL);
			say(&why, "%s is no longer read", real ? real : joined);
			free(real);
			free(joined);
		}
		free(rel);
		line += n + (eol != NULL);
	}
	for (size_t i = 0; i < now.n; i++)
		free(rels[i]);
	free(rels);
	spec_files_free(&now);
	free(dir);
	free(list);
	free(path);
	return why;
}

void spec_files_say_stale(const config *cfg)
{
	table t;
	diags quiet = {0};
	int loaded = access(cfg->csv_path, F_OK) == 0 && table_load(cfg->csv_path, &t, &quiet) == 0;
	diags_free(&quiet);
	if (!loaded)
		return;
	const char *was = t.nrows ? table_field(&t, 0, "spec_hash") : "";
	char now[17];
	config_spec_hash(cfg, now);
	if (*was && strcmp(was, now)) {
		char *why = spec_files_stale(cfg, cfg->csv_path, was);
		fprintf(stderr, "autotune: warning: the results in %s are stale: tuned for spec_hash %s, now %s: %s; run "
				"`autotune %s` to tune again\n",
			cfg->csv_path, was, now,
			why ? why : "the config, its kernel source, a header it includes or a data file changed (the results "
				    "do not list which file they were tuned from)",
			cfg->path);
		free(why);
	}
	table_free(&t);
}
