/* diag.h: error messages collected by the stages and printed by main, so a config with several
 * problems reports all of them, each as "file:line:col: message". */
#ifndef AUTOTUNE_DIAG_H
#define AUTOTUNE_DIAG_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct {
	char **msgs;
	size_t n, cap;
} diags;

/* "file:line:col: message"; line and col are 1-based. */
void diags_at(diags *d, const char *file, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* A message with no position (environment errors, a configuration's failure). */
void diags_add(diags *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diags_print(const diags *d);
void diags_free(diags *d);

/* The word for a count: plural(1, "binary", "binaries") is "binary". */
const char *plural(size_t n, const char *one, const char *many);
/* For "did you mean": the name of names (NULL-terminated) nearest to word, where it is near
 * enough to be a slip (a few edits, or word cut short to 3 or more letters), else NULL; NULL
 * too when word is one of them. */
const char *nearest_name(const char *word, const char *const *names);

/* Allocation that cannot fail politely: out of memory ends the process with a message. */
/* "autotune: out of memory" on stderr and exit 3 (what every allocation failure ends in). */
void diag_out_of_memory(void) __attribute__((noreturn));
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Writes all n bytes to fd, retrying short writes and EINTR; -1 (errno set) on failure. */
int write_all(int fd, const void *buf, size_t n);
/* Writes data to "<path>.tmp.<pid>" and renames it onto path, so a reader never sees half a
 * file and concurrent writers never mix; -1 (errno set) on failure, nothing left behind. */
int write_atomically(const char *path, const void *data, size_t len);
/* A file autotune writes, opened (O_WRONLY, O_CLOEXEC and `flags`) never through a symbolic link:
 * -1 with errno ELOOP for a link, which write_error says. */
int open_no_link(const char *path, int flags, mode_t mode);
/* A temporary file of autotune's own, made anew: whatever was at path (a link planted there) is
 * removed first and never written through. -1 with errno. */
int create_fresh(const char *path);
/* strerror(e), but a symbolic link (ELOOP) said as one. */
const char *write_error(int e);
/* Why autotune will not replace path with an output, or NULL when it may (absent, or a regular
 * file): a write-then-rename replaces whatever is there, so a symbolic link would be replaced
 * instead of its target, and a device node, FIFO or directory by a file. */
const char *output_refusal(const char *path);
/* mkdir -p: path and each missing directory above it, mode 0777 less the umask; 0 when path is
 * a directory at the end, else -1 with errno of the first that could not be made (EACCES under a
 * read-only parent, not the ENOENT of the ones below it). */
int make_dirs(const char *path);
/* The directory of path, resolved (symbolic links, "..", "."): "." for a bare name, as written
 * when it does not exist. Caller frees. */
char *dir_of(const char *path);
/* A relative path recorded in the file at `from` (relative to where it was written, which holds
 * that file): rel when it names a file here or is absolute, else the first of `from`'s directory
 * and its ancestors under which it names a regular file, else rel. Caller frees. */
char *find_from(const char *rel, const char *from);
/* Whether paths a and b name one file: the same inode when both exist, else the same path once
 * their directories are resolved. */
int same_file(const char *a, const char *b);
/* write_atomically, except where output_refusal refuses; a failure goes to d as "cannot write
 * 'path': why". */
int write_output(const char *path, const void *data, size_t len, diags *d);

/* fopen(path, "rb") for an input read whole (a config, a spec, a results file); NULL with
 * "<path>: cannot open: <reason>" in d, for a directory too (it would read as an empty file). */
FILE *open_input(const char *path, diags *d);

/* The whole of the input at path (a regular file, a pipe or a device alike), NUL-terminated, its
 * length in *len: NULL with the reason in d when it cannot be opened or read, or holds more than
 * max bytes ("over N MiB: not WHAT"), which also ends a device that never does (/dev/zero).
 * Caller frees. */
char *read_input(const char *path, size_t max, const char *what, size_t *len, diags *d);

/* Grows *v so that it holds at least n elements of the given size, doubling *cap. */
void grow(void *v, size_t *cap, size_t n, size_t size);

#endif
