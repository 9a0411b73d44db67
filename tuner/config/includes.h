/* includes.h: the headers of a project that a kernel source includes, found as nvcc would find
 * them but without running it, and lists of files with the hashes of their contents. */
#ifndef AUTOTUNE_INCLUDES_H
#define AUTOTUNE_INCLUDES_H

#include <stddef.h>

#include "diag.h"

typedef struct {
	char *path;    /* as the config names it, or as found through an include directory */
	char hash[17]; /* of the contents only */
} spec_file;

typedef struct {
	spec_file *v;
	size_t n, cap;
} spec_files;

/* Appends path with the hash of its contents. */
void spec_files_add(spec_files *f, const char *path);
void spec_files_free(spec_files *f);

/* The headers that source includes, directly or through another header (and the files that the
 * nvcc flags -include), found where nvcc looks before its own directories: beside the including
 * file (a quoted name) and in the flags' -I directories. Every #include line counts, whichever
 * #if it is under, so an edit under any configuration's branch is seen; one found in none of
 * those directories is a system or toolkit header, which is the compiler's (its identity, in
 * cache.h) and not the project's. A computed include (#include MACRO) is not followed. Unique, each
 * file's includes in the order written before theirs; neither source nor config_path is listed. */
void includes_of(const char *source, const char *config_path, char *const *flags, size_t nflags, spec_files *out);

#endif
