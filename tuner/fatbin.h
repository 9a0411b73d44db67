/* fatbin.h: the cubins a built program, object file or fatbinary carries, for `autotune check`. */
#ifndef AUTOTUNE_FATBIN_H
#define AUTOTUNE_FATBIN_H

#include <stddef.h>

typedef struct {
	const unsigned char *elf; /* the cubin, within the data given (NULL when compressed) */
	size_t size;
	unsigned arch;            /* 90 for sm_90; 0 when not said */
	const char *compressed;   /* "zstd", "lz4", or NULL */
} fatbin_cubin;

/* The cubins in data: a host ELF file's (.nv_fatbin and __nv_relfatbin sections: a program, a
 * shared library, an object file), a fatbinary's, or data itself when it is a cubin. PTX
 * entries are skipped. 0 with *out (caller frees the array; the cubins point into data), or -1
 * with why in *why: no ELF file, a fatbinary that does not parse (every length is checked). */
int fatbin_cubins(const unsigned char *data, size_t size, fatbin_cubin **out, size_t *n, const char **why);

#endif
