/* fatbin.h: the cubins a built program, object file or fatbinary carries, for `autotune check`. */
#ifndef AUTOTUNE_FATBIN_H
#define AUTOTUNE_FATBIN_H

#include <stddef.h>

typedef struct {
	const unsigned char *elf; /* the cubin: within the data given, or decompressed into owned;
				   * NULL when compressed in a way this build does not read */
	size_t size;
	unsigned arch;            /* 90 for sm_90; 0 when not said */
	const char *compressed;   /* "zstd", "lz4", or NULL */
	unsigned char *owned;     /* the decompressed cubin, or NULL */
} fatbin_cubin;

/* The cubins in data: a host ELF file's (.nv_fatbin and __nv_relfatbin sections: a program, a
 * shared library, an object file), a static library's objects', a fatbinary's, or data itself
 * when it is a cubin. PTX
 * entries are skipped. A cubin compressed with Zstandard (nvcc's default for -G and -rdc
 * objects) is decompressed where autotune is built with libzstd (HAVE_ZSTD); LZ4
 * (-compress-mode=speed) is not read. 0 with *out (free with fatbin_free), or -1 with why in
 * *why: no ELF file, a fatbinary that does not parse (every length is checked). */
int fatbin_cubins(const unsigned char *data, size_t size, fatbin_cubin **out, size_t *n, const char **why);
void fatbin_free(fatbin_cubin *c, size_t n);

#endif
