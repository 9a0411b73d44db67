/* cache.h: a content-addressed cubin cache on disk, shared by concurrent autotune processes.
 * An entry is found by a manifest key (the compiler's identity, every argument, the source's
 * contents) and is valid only while every file the compile read (its dependency list, kept with
 * the entry) still has the contents it had: ccache's "direct mode", so a hit runs no nvcc at all. */
#ifndef AUTOTUNE_CACHE_H
#define AUTOTUNE_CACHE_H

#include <stddef.h>

#include "diag.h"

typedef struct cubin_cache cubin_cache;

/* Opens (creates) the cache directory. NULL with the reason in d. */
cubin_cache *cache_open(const char *dir, diags *d);
void cache_close(cubin_cache *c);

/* The default directory: $XDG_CACHE_HOME/autotune, else $HOME/.cache/autotune, else the
 * account's home directory's; NULL when there is none. Caller frees. */
char *cache_default_dir(void);

/* The compiler's identity without running it: path, size and modification time of nvcc, of the
 * nvcc binary in `bindir` (nvcc_bindir's, NULL when unknown) when that is another file, and of the
 * ptxas and cicc of that toolkit; with `linker` (build.rdc) of its nvlink too. Caller frees. */
char *cache_compiler_identity(const char *nvcc, const char *bindir, int linker);

/* The manifest key of one compile: identity, arguments (argv without the output path; not nvcc's
 * own path, argv[0], which the identity stands for) and the resolved path and contents of the
 * source file. 16 hex digits into key[17]. */
void cache_key(const char *identity, char *const argv[], const char *source, char key[17]);

/* path resolved (symbolic links, "..", "."), or as given when it does not resolve. Caller frees. */
char *cache_real_path(const char *path);

/* Resolves in place the paths among nvcc's n arguments: the values of -I, --include-path, -isystem,
 * -include and --pre-include, and the last argument, the source. The compile reads the same files,
 * and its arguments, so its key, are then the same from every working directory whatever the
 * spelling (the CLI's relative paths, CMake's absolute ones, a symbolic link). */
void cache_resolve_paths(char **argv, size_t n);

/* On a hit, the cached cubin's path and the compile's ptxas log (caller frees both) and 1;
 * 0 on a miss (absent, or a dependency changed). */
int cache_lookup(cubin_cache *c, const char *key, char **cubin, char **log);

/* A compile that failed (cache_store_failure): 1 with what nvcc said (caller frees) while every
 * file it read still has the contents it had; 0 on a miss. */
int cache_lookup_failure(cubin_cache *c, const char *key, char **log);

/* Where a compile for this key writes: "<dir>/tmp.<pid>.<key>" + ".cubin" / ".d". Caller frees. */
char *cache_tmp_base(cubin_cache *c, const char *key);
/* Removes whatever is at the names nvcc and cache_store write for tmp_base (a symbolic link left
 * there would be written through by nvcc, which follows it). */
void cache_clear_tmp(const char *tmp_base);

/* Moves a finished compile (tmp_base.cubin, tmp_base.d from nvcc -MD -MF) into the cache with
 * its log, renaming into place so a reader never sees half an entry. `linked`, when not NULL, is
 * a file the dependency list lacks that the entry depends on too (the library a link read).
 * Returns the cached cubin's path (caller frees), or NULL when the entry could not be written
 * (the compile still stands: the caller keeps the temporary cubin). */
char *cache_store(cubin_cache *c, const char *key, const char *tmp_base, const char *log, const char *linked);

/* Keeps a compile that failed, as cache_store keeps one that did not: its log, valid while every
 * file it read is unchanged (tmp_base.d, which nvcc writes before it fails; removed). 0, or -1 when
 * it could not be kept (no dependency list: then nothing is). */
int cache_store_failure(cubin_cache *c, const char *key, const char *tmp_base, const char *log);

/* The directory entries live in; rewritten sources (compile.c) are kept there too, named by
 * their contents, so that their paths, and so the cache keys of their compiles, stay stable. */
const char *cache_dir(const cubin_cache *c);

/* Deletes least recently used entries until the cache holds at most max_bytes. */
void cache_evict(cubin_cache *c, unsigned long long max_bytes);

#endif
