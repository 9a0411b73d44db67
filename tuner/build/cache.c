/* cache.c: the cubin cache. An entry KEY is three files: KEY.cubin, KEY.log (ptxas's report, to
 * restore the resources) and KEY.deps ("<hash> <path>" per file the compile read, then the trailer
 * "end <lines> <hash of the lines>"). KEY.deps is renamed into place last: its presence is what
 * makes the entry valid, its trailer that it is whole. Hits refresh the entry's modification
 * time, which eviction uses as "last used". A compile that failed is an entry of two files,
 * KEY.error (what nvcc said) and KEY.edeps, made and checked alike. */
/* realpath is XSI */
#define _XOPEN_SOURCE 700
#include "cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hash.h"
#include "proc.h"
#include "banned.h"

struct cubin_cache {
	char *dir;
};

char *cache_default_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	if (xdg && *xdg)
		return xasprintf("%s/autotune", xdg);
	if (home && *home)
		return xasprintf("%s/.cache/autotune", home);
	/* not a shared directory such as /tmp: another user's cubins would be run as this user's */
	const struct passwd *pw = getpwuid(getuid());
	return pw && pw->pw_dir && *pw->pw_dir ? xasprintf("%s/.cache/autotune", pw->pw_dir) : NULL;
}

cubin_cache *cache_open(const char *dir, diags *d)
{
	char *cubins = xasprintf("%s/cubins", dir);
	if (make_dirs(cubins) || access(cubins, W_OK)) {
		diags_add(d, "cannot use the cache directory '%s': %s (--no-cache runs without one)", cubins, strerror(errno));
		free(cubins);
		return NULL;
	}
	/* resolved: the entries' paths, and the keys of the sources rewritten there, are then the same
	 * from every working directory */
	cubin_cache *c = xmalloc(sizeof *c);
	c->dir = cache_real_path(cubins);
	free(cubins);
	return c;
}

const char *cache_dir(const cubin_cache *c) { return c->dir; }

void cache_close(cubin_cache *c)
{
	if (!c)
		return;
	free(c->dir);
	free(c);
}

static void add_stat(hasher *h, const char *path)
{
	struct stat st;
	char real[PATH_MAX];
	const char *p = realpath(path, real) ? real : path;
	hasher_add_str(h, p);
	if (stat(p, &st) == 0) {
		long long v[3] = {(long long)st.st_size, (long long)st.st_mtim.tv_sec, (long long)st.st_mtim.tv_nsec};
		hasher_add(h, v, sizeof v);
	}
}

char *cache_compiler_identity(const char *nvcc, const char *bindir, int linker)
{
	hasher *h = hasher_new();
	add_stat(h, nvcc);
	/* nvcc drives cicc, ptxas and nvlink from its own installation: bin/ptxas, nvvm/bin/cicc,
	 * bin/nvlink (only a link's identity has it, so that the others' keys stay what they were).
	 * Through a wrapper script the nvcc binary proper counts as well. */
	if (bindir) {
		char *self = xasprintf("%s/nvcc", bindir), *ptxas = xasprintf("%s/ptxas", bindir),
		     *cicc = xasprintf("%s/../nvvm/bin/cicc", bindir);
		char real[PATH_MAX], real_self[PATH_MAX];
		if (!realpath(nvcc, real) || !realpath(self, real_self) || strcmp(real, real_self) != 0)
			add_stat(h, self);
		add_stat(h, ptxas);
		add_stat(h, cicc);
		free(self);
		free(ptxas);
		free(cicc);
		if (linker) {
			char *nvlink = xasprintf("%s/nvlink", bindir);
			hasher_add_str(h, "linker");
			add_stat(h, nvlink);
			free(nvlink);
		}
	}
	char *id = xmalloc(17);
	hasher_finish(h, id);
	return id;
}

/* path resolved (symbolic links, "..", "."), or NULL where it cannot be, or where the resolved
 * path holds what nvcc's /bin/sh steps would interpret: the loader checked the path as spelled,
 * and a link must not bring back what it refused (a directory linked to "/tmp/$(cmd)"). */
static char *resolved(const char *path)
{
	char *real = *path ? realpath(path, NULL) : NULL;
	if (real && proc_shell_special(real)) {
		free(real);
		real = NULL;
	}
	return real;
}

char *cache_real_path(const char *path)
{
	char *real = resolved(path);
	return real ? real : xstrdup(path);
}

/* The options of nvcc whose value is a path: "-Ipath", "-I path", "--include-path=path" and the
 * like; how much of `a` the option takes (its value follows), else 0. */
static size_t path_option(const char *a)
{
	static const char *const opts[] = {"--include-path", "-include-path", "--pre-include", "-pre-include",
					   "--system-include", "-isystem", "-include", "-I"};
	for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
		size_t n = strlen(opts[i]);
		if (!strncmp(a, opts[i], n) && (a[n] == '=' || !a[n] || !strcmp(opts[i], "-I")))
			return n + (a[n] == '=');
	}
	return 0;
}

void cache_resolve_paths(char **argv, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		size_t opt = path_option(argv[i]);
		if (!opt && i + 1 < n)
			continue;
		/* the value in the next argument ("-I dir") */
		int next = opt && !argv[i][opt] && i + 1 < n;
		char **slot = next ? &argv[i + 1] : &argv[i];
		const char *value = next ? argv[i + 1] : argv[i] + opt;
		char *real = resolved(value);
		if (real) {
			char *was = *slot;
			*slot = next || !opt ? real : xasprintf("%.*s%s", (int)opt, was, real);
			if (*slot != real)
				free(real);
			free(was);
		}
		i += next;
	}
}

void cache_key(const char *identity, char *const argv[], const char *source, char key[17])
{
	hasher *h = hasher_new();
	hasher_add_str(h, "autotune-cubin-2");
	hasher_add_str(h, identity);
	/* not nvcc's path as spelled (NVCC=nvcc, a toolkit's, CMake's): the identity is of the
	 * program it names; nor the link's, after its marker */
	for (char *const *a = argv + 1; *a; a++)
		if (strcmp(a[-1], "--then-link:"))
			hasher_add_str(h, *a);
	char *real = cache_real_path(source);
	hasher_add_file(h, real);
	free(real);
	hasher_finish(h, key);
}

static char *entry(const cubin_cache *c, const char *key, const char *ext)
{
	return xasprintf("%s/%s.%s", c->dir, key, ext);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, len = 0;
	char *buf = xmalloc(cap);
	size_t n;
	while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 2)
			buf = xrealloc(buf, cap *= 2);
	}
	buf[len] = 0;
	fclose(f);
	return buf;
}

static void file_hash(const char *path, char out[17])
{
	hasher *h = hasher_new();
	if (hasher_add_file(h, path))
		hasher_add_str(h, "<missing>");
	hasher_finish(h, out);
}

/* The trailer of a deps list's text: its line count and the hash of those lines. */
static void deps_trailer(const char *lines, char out[64])
{
	size_t n = 0;
	for (const char *p = lines; *p; p++)
		n += *p == '\n';
	hasher *h = hasher_new();
	hasher_add(h, lines, strlen(lines));
	char hex[17];
	hasher_finish(h, hex);
	snprintf(out, 64, "end %zu %s\n", n, hex);
}

/* Cuts a deps file's trailer off, in place, when it is there and agrees with the lines before
 * it: 0. A deps file written on a full disk, or cut short by a crash under a filesystem that
 * does not order renames after data, may end at a line boundary, and would then list fewer
 * files than the compile read: an edited header that it lost would not be noticed. */
static int deps_whole(char *deps)
{
	size_t len = strlen(deps);
	if (len < 2 || deps[len - 1] != '\n')
		return -1;
	char *last = deps + len - 1;
	while (last > deps && last[-1] != '\n')
		last--;
	char want[64];
	char save = *last;
	*last = 0;
	deps_trailer(deps, want);
	*last = save;
	if (strcmp(last, want))
		return -1;
	*last = 0;
	return 0;
}

/* Every dependency still has the contents it had when the entry was made; the entry's own
 * cubin and log are among them. *changed: the first that does not, when one is (owned by the
 * caller), else NULL. */
static int deps_unchanged(char *deps, char **changed)
{
	*changed = NULL;
	if (deps_whole(deps))
		return 0;
	for (const char *line = deps; *line;) {
		const char *eol = strchr(line, '\n');
		if (!eol)
			return 0;
		char want[17], path[PATH_MAX], now[17];
		if (eol - line < 18 || eol - line - 17 >= PATH_MAX)
			return 0;
		memcpy(want, line, 16);
		want[16] = 0;
		memcpy(path, line + 17, (size_t)(eol - line - 17));
		path[eol - line - 17] = 0;
		file_hash(path, now);
		if (strcmp(want, now)) {
			*changed = xstrdup(path);
			return 0;
		}
		line = eol + 1;
	}
	return 1;
}

int cache_lookup(cubin_cache *c, const char *key, char **cubin, char **log)
{
	char *deps_path = entry(c, key, "deps"), *cubin_path = entry(c, key, "cubin"), *log_path = entry(c, key, "log");
	char *deps = slurp(deps_path), *changed = NULL;
	int hit = 0;
	if (deps && access(cubin_path, R_OK) == 0 && deps_unchanged(deps, &changed) && (*log = slurp(log_path))) {
		hit = 1;
		*cubin = cubin_path;
		cubin_path = NULL;
		/* last used: what eviction keeps */
		utimensat(AT_FDCWD, deps_path, NULL, 0);
	}
	/* a source edited is what the cache is for; its own files edited is not, and is said */
	if (changed && (!strcmp(changed, cubin_path ? cubin_path : "") || !strcmp(changed, log_path)))
		fprintf(stderr, "autotune: cache entry %s was changed since it was stored (%s): compiled again\n", key, changed);
	free(changed);
	free(deps);
	free(deps_path);
	free(cubin_path);
	free(log_path);
	return hit;
}

int cache_lookup_failure(cubin_cache *c, const char *key, char **log)
{
	char *deps_path = entry(c, key, "edeps"), *log_path = entry(c, key, "error");
	char *deps = slurp(deps_path), *changed = NULL;
	int hit = deps && deps_unchanged(deps, &changed) && (*log = slurp(log_path));
	if (hit)
		utimensat(AT_FDCWD, deps_path, NULL, 0);
	free(changed);
	free(deps);
	free(deps_path);
	free(log_path);
	return hit;
}

char *cache_tmp_base(cubin_cache *c, const char *key)
{
	return xasprintf("%s/tmp.%ld.%s", c->dir, (long)getpid(), key);
}

void cache_clear_tmp(const char *tmp_base)
{
	static const char *const ends[] = {".cubin", ".rdc.cubin", ".d", ".log", ".deps"};
	for (size_t i = 0; i < sizeof ends / sizeof *ends; i++) {
		char *p = xasprintf("%s%s", tmp_base, ends[i]);
		unlink(p);
		free(p);
	}
}

/* "<hash> <path>\n" for every file of nvcc's make-style dependency file. */
static char *deps_from_make(const char *dfile)
{
	char *text = slurp(dfile);
	if (!text)
		return NULL;
	size_t cap = 1024, len = 0;
	char *out = xmalloc(cap);
	out[0] = 0;
	char *p = strchr(text, ':');
	for (p = p ? p + 1 : text + strlen(text); *p;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\\')
			p++;
		char *start = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n')
			p++;
		if (p == start)
			break;
		char save = *p;
		*p = 0;
		/* resolved, as nvcc found it from where it ran: checked from any directory */
		char h[17], *real = cache_real_path(start);
		file_hash(real, h);
		grow(&out, &cap, len + strlen(real) + 20, 1);
		len += (size_t)snprintf(out + len, cap - len, "%s %s\n", h, real);
		free(real);
		*p = save;
	}
	free(text);
	return out;
}

/* Written and synced: a file that is renamed into place is whole (ccache, git's lockfile). */
static int write_file(const char *path, const char *text)
{
	int fd = create_fresh(path);
	if (fd < 0)
		return -1;
	int rc = write_all(fd, text, strlen(text)) || fsync(fd) ? -1 : 0;
	return close(fd) || rc ? -1 : 0;
}

char *cache_store(cubin_cache *c, const char *key, const char *tmp_base, const char *log, const char *linked)
{
	char *tmp_cubin = xasprintf("%s.cubin", tmp_base), *tmp_d = xasprintf("%s.d", tmp_base);
	char *tmp_log = xasprintf("%s.log", tmp_base), *tmp_deps = xasprintf("%s.deps", tmp_base);
	char *cubin = entry(c, key, "cubin"), *logp = entry(c, key, "log"), *deps = entry(c, key, "deps");
	char *list = deps_from_make(tmp_d);
	if (list && linked) {
		char h[17];
		file_hash(linked, h);
		char *more = xasprintf("%s%s %s\n", list, h, linked);
		free(list);
		list = more;
	}
	/* the deps file last: until it is there the entry does not exist */
	int ok = list && write_file(tmp_log, log) == 0 && rename(tmp_cubin, cubin) == 0 && rename(tmp_log, logp) == 0;
	if (ok) {
		/* the entry's own files are checked like its sources (a file's hash covers its path): an
		 * edited cubin or log is a miss */
		char hc[17], hl[17];
		file_hash(cubin, hc);
		file_hash(logp, hl);
		char *mine = xasprintf("%s%s %s\n%s %s\n", list, hc, cubin, hl, logp);
		free(list);
		list = mine;
	}
	if (ok) {
		char end[64];
		deps_trailer(list, end);
		char *whole = xasprintf("%s%s", list, end);
		free(list);
		list = whole;
	}
	ok = ok && write_file(tmp_deps, list) == 0 && rename(tmp_deps, deps) == 0;
	unlink(tmp_d);
	unlink(tmp_log);
	unlink(tmp_deps);
	free(list);
	free(tmp_cubin);
	free(tmp_d);
	free(tmp_log);
	free(tmp_deps);
	free(logp);
	free(deps);
	if (!ok) {
		free(cubin);
		return NULL;
	}
	return cubin;
}

int cache_store_failure(cubin_cache *c, const char *key, const char *tmp_base, const char *log)
{
	char *tmp_d = xasprintf("%s.d", tmp_base), *tmp_log = xasprintf("%s.error", tmp_base);
	char *tmp_deps = xasprintf("%s.edeps", tmp_base), *logp = entry(c, key, "error"), *deps = entry(c, key, "edeps");
	char *list = deps_from_make(tmp_d);
	int ok = list && write_file(tmp_log, log) == 0 && rename(tmp_log, logp) == 0;
	if (ok) {
		/* the log is checked like the sources: an edited one is a miss */
		char hl[17], end[64];
		file_hash(logp, hl);
		char *mine = xasprintf("%s%s %s\n", list, hl, logp);
		deps_trailer(mine, end);
		free(list);
		list = xasprintf("%s%s", mine, end);
		free(mine);
	}
	ok = ok && write_file(tmp_deps, list) == 0 && rename(tmp_deps, deps) == 0;
	unlink(tmp_d);
	unlink(tmp_log);
	unlink(tmp_deps);
	free(list);
	free(tmp_d);
	free(tmp_log);
	free(tmp_deps);
	free(logp);
	free(deps);
	return ok ? 0 : -1;
}

/* The files of an entry, its deps file first (without it the entry is already invalid): a
 * compile's, and a failed compile's. */
static const char *const entry_files[2][3] = {{"deps", "cubin", "log"}, {"edeps", "error", NULL}};

typedef struct {
	char key[17];
	int failed; /* which of entry_files */
	time_t used;
	unsigned long long bytes;
} cached;

static int older_first(const void *a, const void *b)
{
	const cached *x = a, *y = b;
	return (x->used > y->used) - (x->used < y->used);
}

/* A compile's temporary file ("tmp.<pid>.<key>.<ext>") whose process is gone (killed before it
 * could clean up), or that is a day old (its pid reused since): reclaimed. */
static void reclaim_tmp(const cubin_cache *c, const char *name)
{
	char *end;
	long pid = strtol(name + 4, &end, 10);
	char *p = xasprintf("%s/%s", c->dir, name);
	struct stat st;
	if (pid > 0 && *end == '.' && lstat(p, &st) == 0 &&
	    (proc_gone(pid) || time(NULL) - st.st_mtime > 24 * 3600))
		unlink(p);
	free(p);
}

void cache_evict(cubin_cache *c, unsigned long long max_bytes)
{
	DIR *dir = opendir(c->dir);
	if (!dir)
		return;
	cached *all = NULL;
	size_t n = 0, cap = 0;
	unsigned long long total = 0;
	time_t now = time(NULL);
	struct dirent *e;
	while ((e = readdir(dir))) {
		size_t len = strlen(e->d_name);
		if (!strncmp(e->d_name, "tmp.", 4)) {
			reclaim_tmp(c, e->d_name);
			continue;
		}
		/* one record per entry, found by its deps file; the sizes of all its files count */
		int failed = len == 16 + 6 && !strcmp(e->d_name + 16, ".edeps");
		if (!failed && (len != 16 + 5 || strcmp(e->d_name + 16, ".deps")))
			continue;
		grow(&all, &cap, n + 1, sizeof *all);
		memcpy(all[n].key, e->d_name, 16);
		all[n].key[16] = 0;
		all[n].failed = failed;
		all[n].bytes = 0;
		all[n].used = 0;
		for (int i = 0; i < 3 && entry_files[failed][i]; i++) {
			char *p = entry(c, all[n].key, entry_files[failed][i]);
			struct stat st;
			if (stat(p, &st) == 0) {
				all[n].bytes += (unsigned long long)st.st_size;
				/* dated in the future (another host's clock, or this one's set back): when it
				 * was used is unknown, so it goes first rather than outliving every fresh
				 * entry; a hit dates it again */
				if (i == 0)
					all[n].used = st.st_mtime > now + 60 ? 0 : st.st_mtime;
			}
			free(p);
		}
		total += all[n].bytes;
		n++;
	}
	closedir(dir);
	if (total > max_bytes) {
		qsort(all, n, sizeof *all, older_first);
		for (size_t i = 0; i < n && total > max_bytes; i++) {
			for (int k = 0; k < 3 && entry_files[all[i].failed][k]; k++) {
				char *p = entry(c, all[i].key, entry_files[all[i].failed][k]);
				unlink(p);
				free(p);
			}
			total -= all[i].bytes;
		}
	}
	free(all);
}
