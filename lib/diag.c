/* diag.c: error collection and the few allocation helpers every stage uses. */
/* realpath is XSI */
#define _XOPEN_SOURCE 700
#include "diag.h"

#include <errno.h>
#include <fcntl.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void push(diags *d, char *msg)
{
	grow(&d->msgs, &d->cap, d->n + 1, sizeof *d->msgs);
	d->msgs[d->n++] = msg;
}

static char *vformat(const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int len = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (len < 0) /* past INT_MAX bytes: an empty text in its place would be silently wrong */
		diag_out_of_memory();
	char *s = xmalloc((size_t)len + 1);
	vsnprintf(s, (size_t)len + 1, fmt, ap);
	return s;
}

void diags_at(diags *d, const char *file, int line, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *body = vformat(fmt, ap);
	va_end(ap);
	push(d, xasprintf("%s:%d:%d: %s", file, line, col, body));
	free(body);
}

void diags_add(diags *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	push(d, vformat(fmt, ap));
	va_end(ap);
}

void diags_print(const diags *d)
{
	for (size_t i = 0; i < d->n; i++)
		fprintf(stderr, "%s\n", d->msgs[i]);
}

void diags_free(diags *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->msgs[i]);
	free(d->msgs);
	d->msgs = NULL;
	d->n = d->cap = 0;
}

void diag_out_of_memory(void)
{
	fputs("autotune: out of memory\n", stderr);
	exit(3);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		diag_out_of_memory();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		diag_out_of_memory();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		diag_out_of_memory();
	return p;
}

const char *plural(size_t n, const char *one, const char *many) { return n == 1 ? one : many; }

/* Edit distance (insertions, deletions, substitutions). */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row = xcalloc(lb + 1, sizeof *row);
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	size_t r = row[lb];
	free(row);
	return r;
}

const char *nearest_name(const char *word, const char *const *names)
{
	const char *best = NULL;
	size_t bestd = (size_t)-1, len = strlen(word);
	for (const char *const *a = names; *a; a++) {
		if (!strcmp(*a, word))
			return NULL;
		size_t dd = distance(*a, word);
		/* a truncated name ("shared" for "shared_mem") is as good as a near miss */
		if (len >= 3 && !strncmp(*a, word, len))
			dd = 1;
		if (dd < bestd) {
			bestd = dd;
			best = *a;
		}
	}
	return best && bestd <= 2 + len / 4 ? best : NULL;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = vformat(fmt, ap);
	va_end(ap);
	return s;
}

int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int open_no_link(const char *path, int flags, mode_t mode)
{
	return open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | flags, mode);
}

int create_fresh(const char *path)
{
	if (unlink(path) && errno != ENOENT)
		return -1;
	return open_no_link(path, O_CREAT | O_EXCL, 0666);
}

const char *write_error(int e)
{
	return e == ELOOP ? "it is a symbolic link, which autotune does not write through: remove it" : strerror(e);
}

int write_atomically(const char *path, const void *data, size_t len)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	int fd = create_fresh(tmp);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (fd >= 0 && !f)
		close(fd);
	int rc = f && fwrite(data, 1, len, f) == len ? 0 : -1;
	int e = errno;
	if (f && fclose(f))
		rc = -1, e = errno;
	if (rc == 0 && rename(tmp, path))
		rc = -1, e = errno;
	if (rc)
		unlink(tmp);
	free(tmp);
	errno = e;
	return rc;
}

const char *output_refusal(const char *path)
{
	struct stat st;
	if (lstat(path, &st))
		return NULL; /* absent, or unreadable: writing says why */
	if (S_ISLNK(st.st_mode))
		return "it is a symbolic link, which autotune would replace rather than write through: name its target";
	if (S_ISDIR(st.st_mode))
		return "it is a directory";
	if (!S_ISREG(st.st_mode))
		return "it is not a regular file (a device, FIFO or socket), which autotune would replace";
	return NULL;
}

/* One directory: made, or already one. */
static int make_dir(const char *path)
{
	struct stat st;
	if (mkdir(path, 0777) == 0)
		return 0;
	int e = errno;
	/* a directory there already, whatever mkdir says of it (EEXIST, or EACCES on some mounts) */
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	errno = e == EEXIST ? ENOTDIR : e;
	return -1;
}

int make_dirs(const char *path)
{
	char *p = xstrdup(path);
	int rc = 0;
	for (char *s = p + 1; *s && !rc; s++)
		if (*s == '/' && s[-1] != '/') {
			*s = 0;
			rc = make_dir(p);
			*s = '/';
		}
	if (!rc)
		rc = make_dir(p);
	int e = errno;
	free(p);
	errno = e;
	return rc;
}

char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xasprintf("%.*s", (int)(slash - path), path) : xstrdup(".");
	if (!*dir) {
		free(dir);
		dir = xstrdup("/");
	}
	char *real = realpath(dir, NULL);
	if (real) {
		free(dir);
		dir = real;
	}
	return dir;
}

char *find_from(const char *rel, const char *from)
{
	struct stat st;
	if (*rel == '/' || stat(rel, &st) == 0)
		return xstrdup(rel);
	char *dir = dir_of(from);
	for (;;) {
		char *p = xasprintf("%s/%s", dir, rel);
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
			free(dir);
			return p;
		}
		free(p);
		char *slash = strrchr(dir, '/');
		if (!slash)
			break;
		*slash = '\0'; /* "/a" becomes "", whose next try is the root's */
	}
	free(dir);
	return xstrdup(rel);
}

/* path with its directory resolved, as dir_of resolves it */
static char *resolved(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = dir_of(path), *out = xasprintf("%s/%s", dir, slash ? slash + 1 : path);
	free(dir);
	return out;
}

int same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	char *ra = resolved(a), *rb = resolved(b);
	int same = !strcmp(ra, rb);
	free(ra);
	free(rb);
	return same;
}

int write_output(const char *path, const void *data, size_t len, diags *d)
{
	const char *why = output_refusal(path);
	if (why) {
		diags_add(d, "cannot write '%s': %s", path, why);
		return -1;
	}
	if (write_atomically(path, data, len)) {
		diags_add(d, "cannot write '%s': %s", path, write_error(errno));
		return -1;
	}
	return 0;
}

void grow(void *v, size_t *cap, size_t n, size_t size)
{
	void **pv = v;
	if (n <= *cap)
		return;
	size_t c = *cap ? *cap : 8;
	while (c < n)
		c *= 2;
	*pv = xrealloc(*pv, c * size);
	*cap = c;
}

FILE *open_input(const char *path, diags *d)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		f = NULL;
		errno = EISDIR;
	}
	if (!f)
		diags_add(d, "%s: cannot open: %s", path, strerror(errno));
	return f;
}

char *read_input(const char *path, size_t max, const char *what, size_t *len, diags *d)
{
	FILE *f = open_input(path, d);
	if (!f)
		return NULL;
	size_t n = 0, cap = 1 << 16, got;
	char *text = xmalloc(cap + 1);
	/* one byte past max tells an input over it */
	while ((got = fread(text + n, 1, cap - n, f)) > 0 && (n += got) <= max)
		if (n == cap)
			text = xrealloc(text, (cap = cap * 2 > max ? max + 1 : cap * 2) + 1);
	int err = ferror(f) ? errno : 0;
	fclose(f);
	if (err || n > max) {
		if (err)
			diags_add(d, "%s: cannot read: %s", path, strerror(err));
		else
			diags_add(d, "%s: over %zu MiB: not %s", path, max >> 20, what);
		free(text);
		return NULL;
	}
	text[n] = 0;
	*len = n;
	return text;
}
