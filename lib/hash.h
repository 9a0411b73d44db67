/* hash.h: content hashes for the keys that decide whether earlier results can be reused
 * (XXH3 from libxxhash: fast, well kept, not ours to write). */
#ifndef AUTOTUNE_HASH_H
#define AUTOTUNE_HASH_H

#include <stddef.h>

typedef struct hasher hasher;

hasher *hasher_new(void);
void hasher_add(hasher *h, const void *data, size_t len);
/* Adds a string and its terminating NUL, so "ab","c" and "a","bc" differ. */
void hasher_add_str(hasher *h, const char *s);
/* Adds a file's bytes alone, not its name (how many into *bytes when not NULL); -1 (and a marker)
 * when it cannot be read. */
int hasher_add_contents(hasher *h, const char *path, unsigned long long *bytes);
/* Adds a file's name and contents; -1 (and the name with a marker) when it cannot be read. */
int hasher_add_file(hasher *h, const char *path);
/* 16 hex digits; buf holds at least 17 bytes. Frees the hasher. */
void hasher_finish(hasher *h, char *buf);

/* What a tuned result was derived from: the config file, the kernel source and the ndata data
 * files the config names (16 hex digits into out). A build compares it with the header's to
 * refuse stale tuning. */
void hash_spec(const char *config_path, const char *source, const char *const *data, size_t ndata, char out[17]);

#endif
