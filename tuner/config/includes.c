/* includes.c: the headers a kernel source includes, found as nvcc finds them but without running
 * it (validate has none to run, and a spec hash must be the same on every machine). */
/* realpath is XSI */
#define _XOPEN_SOURCE 700
#include "includes.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hash.h"
#include "banned.h"

static void content_hash(const char *path, char out[17])
{
	hasher *h = hasher_new();
	FILE *f = fopen(path, "rb");
	if (f) {
		char buf[65536];
		size_t n;
		while ((n = fread(buf, 1, sizeof buf, f)) > 0)
			hasher_add(h, buf, n);
		fclose(f);
	} else
		hasher_add_str(h, "<unreadable>");
	hasher_finish(h, out);
}

void spec_files_add(spec_files *f, const char *path)
{
	grow(&f->v, &f->cap, f->n + 1, sizeof *f->v);
	f->v[f->n].path = xstrdup(path);
	content_hash(path, f->v[f->n].hash);
	f->n++;
}

void spec_files_free(spec_files *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i].path);
	free(f->v);
	memset(f, 0, sizeof *f);
}

static int is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The name of an #include (or #include_next) line, quoted ("x.h") or not (<x.h>); 0 for any other
 * line, and for a computed include (#include MACRO), which names no file until preprocessed. */
static int include_name(const char *line, char *name, size_t cap, int *quoted)
{
	const char *p = line + strspn(line, " \t");
	if (*p++ != '#')
		return 0;
	p += strspn(p, " \t");
	if (strncmp(p, "include", 7))
		return 0;
	p += 7;
	if (!strncmp(p, "_next", 5))
		p += 5;
	p += strspn(p, " \t");
	char close = *p == '"' ? '"' : *p == '<' ? '>' : 0;
	if (!close)
		return 0;
	const char *start = ++p, *end = strchr(p, close);
	if (!end || end == start || (size_t)(end - start) >= cap)
		return 0;
	memcpy(name, start, (size_t)(end - start));
	name[end - start] = 0;
	*quoted = close == '"';
	return 1;
}

typedef struct {
	char **dirs;        /* -I directories, in nvcc's order */
	size_t ndirs;
	char **seen;        /* resolved paths of every file listed or queued, the source's first */
	size_t nseen, cap;
} scan;

static int seen(scan *s, const char *path)
{
	char *real = realpath(path, NULL);
	if (!real)
		return 1;
	for (size_t i = 0; i < s->nseen; i++)
		if (!strcmp(s->seen[i], real)) {
			free(real);
			return 1;
		}
	grow(&s->seen, &s->cap, s->nseen + 1, sizeof *s->seen);
	s->seen[s->nseen++] = real;
	return 0;
}

/* Where nvcc finds `name` included from `from` before it looks in its own directories; NULL when
 * it does not (a system or toolkit header). Caller frees. */
static char *find_include(const scan *s, const char *from, const char *name, int quoted)
{
	if (name[0] == '/')
		return is_file(name) ? xstrdup(name) : NULL;
	if (quoted) {
		const char *slash = strrchr(from, '/');
		char *p = slash ? xasprintf("%.*s/%s", (int)(slash - from), from, name) : xstrdup(name);
		if (is_file(p))
			return p;
		free(p);
	}
	for (size_t i = 0; i < s->ndirs; i++) {
		char *p = xasprintf("%s/%s", s->dirs[i], name);
		if (is_file(p))
			return p;
		free(p);
	}
	return NULL;
}

/* The -I directories of flags (-Idir, -I dir, --include-path[=]dir), and the files they include
 * before the source (-include f, --pre-include[=]f) into *pre. */
static void flag_paths(char *const *flags, size_t nflags, scan *s, char ***pre, size_t *npre)
{
	s->dirs = xcalloc(nflags + 1, sizeof *s->dirs);
	*pre = xcalloc(nflags + 1, sizeof **pre);
	for (size_t i = 0; i < nflags; i++) {
		const char *f = flags[i], *next = i + 1 < nflags ? flags[i + 1] : NULL;
		static const char *const dir_opts[] = {"-I", "--include-path", "-include-path"};
		static const char *const pre_opts[] = {"-include", "--pre-include", "-pre-include"};
		const char *val = NULL;
		int is_pre = 0;
		for (int k = 0; k < 3 && !val; k++) {
			size_t n = strlen(pre_opts[k]);
			if (!strncmp(f, pre_opts[k], n) && (f[n] == '=' || (!f[n] && next)))
				val = f[n] ? f + n + 1 : next, is_pre = 1;
		}
		for (int k = 0; k < 3 && !val; k++) {
			size_t n = strlen(dir_opts[k]);
			if (!strncmp(f, dir_opts[k], n) && (k == 0 ? f[n] || next : f[n] == '=' || (!f[n] && next)))
				val = f[n] ? f + n + (f[n] == '=') : next;
		}
		if (!val)
			continue;
		if (is_pre)
			(*pre)[(*npre)++] = xstrdup(val);
		else
			s->dirs[s->ndirs++] = xstrdup(val);
		if (val == next)
			i++;
	}
}

/* Lists each header that file includes and that is not yet listed, and what it includes. */
static void scan_file(scan *s, const char *file, spec_files *out)
{
	FILE *f = fopen(file, "r");
	if (!f)
		return;
	char *line = NULL, name[PATH_MAX];
	size_t cap = 0;
	int quoted;
	size_t first = out->n;
	while (getline(&line, &cap, f) > 0) {
		if (!include_name(line, name, sizeof name, &quoted))
			continue;
		char *p = find_include(s, file, name, quoted);
		if (p && !seen(s, p))
			spec_files_add(out, p);
		free(p);
	}
	free(line);
	fclose(f);
	/* a file's own includes, in the order written, before theirs: the same order on every machine */
	for (size_t i = first, n = out->n; i < n; i++) {
		char *path = xstrdup(out->v[i].path);
		scan_file(s, path, out);
		free(path);
	}
}

void includes_of(const char *source, const char *config_path, char *const *flags, size_t nflags, spec_files *out)
{
	scan s = {0};
	char **pre = NULL;
	size_t npre = 0;
	flag_paths(flags, nflags, &s, &pre, &npre);
	/* the config and the source are listed on their own */
	seen(&s, config_path);
	seen(&s, source);
	for (size_t i = 0; i < npre; i++) {
		char *p = is_file(pre[i]) ? xstrdup(pre[i]) : find_include(&s, source, pre[i], 1);
		if (p && !seen(&s, p)) {
			spec_files_add(out, p);
			scan_file(&s, p, out);
		}
		free(p);
		free(pre[i]);
	}
	free(pre);
	scan_file(&s, source, out);
	for (size_t i = 0; i < s.ndirs; i++)
		free(s.dirs[i]);
	free(s.dirs);
	for (size_t i = 0; i < s.nseen; i++)
		free(s.seen[i]);
	free(s.seen);
}

