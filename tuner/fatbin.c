/* fatbin.c: the cubins inside a fatbinary. nvcc embeds one container per compiled file in the
 * host object's .nv_fatbin section (__nv_relfatbin with -rdc), and the linker concatenates them.
 * A container is a 16-byte header (magic 0xBA55ED50, version 1, header size, then the size of
 * the entries that follow), and each entry a header of its own: kind (1 PTX, 2 ELF), version,
 * header size, padded payload size, then the compressed size, the target's major/minor at 28
 * and flags at 40, whose 0x2000 marks an LZ4 payload and 0x8000 a Zstandard one (nvcc 13
 * compresses PTX by default, cubins with -compress-mode=size or -Xfatbin=-compress-all). */
#include "fatbin.h"

#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cubin.h"
#include "diag.h"
#include "banned.h"

enum { FATBIN_MAGIC = 0xBA55ED50u, FATBIN_ELF = 2, FLAG_LZ4 = 0x2000, FLAG_ZSTD = 0x8000 };

static uint64_t get(const unsigned char *p, int bytes)
{
	uint64_t v = 0;
	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void add(fatbin_cubin **out, size_t *n, const fatbin_cubin *c)
{
	*out = xrealloc(*out, (*n + 1) * sizeof **out);
	(*out)[(*n)++] = *c;
}

/* The containers one after another in [p, p + len), as a section holds them (zero padding
 * between them allowed): 0, or -1 when one does not parse. */
static int containers(const unsigned char *p, size_t len, fatbin_cubin **out, size_t *n, const char **why)
{
	size_t at = 0;
	while (at < len) {
		/* zeros of alignment between containers (the magic's first byte is not one) */
		if (!p[at]) {
			at++;
			continue;
		}
		if (len - at < 16) {
			*why = "a fatbinary ends in a partial header";
			return -1;
		}
		uint64_t hsize = get(p + at + 6, 2), body = get(p + at + 8, 8);
		if (get(p + at, 4) != FATBIN_MAGIC || hsize < 16 || hsize > len - at || body > len - at - hsize) {
			*why = "a fatbinary's container header is not one (bad magic or sizes past its end)";
			return -1;
		}
		const unsigned char *e = p + at + hsize;
		for (size_t off = 0; off < body;) {
			if (body - off < 64) {
				*why = "a fatbinary entry's header runs past its container";
				return -1;
			}
			const unsigned char *h = e + off;
			uint64_t ehs = get(h + 4, 4), payload = get(h + 8, 8), flags = get(h + 40, 8);
			if (ehs < 64 || ehs > body - off || payload > body - off - ehs) {
				*why = "a fatbinary entry's sizes run past its container";
				return -1;
			}
			if (get(h, 2) == FATBIN_ELF) {
				fatbin_cubin c = {h + ehs, (size_t)payload, (unsigned)get(h + 28, 4), NULL};
				if (flags & (FLAG_LZ4 | FLAG_ZSTD)) {
					c.compressed = flags & FLAG_ZSTD ? "zstd" : "lz4";
					c.elf = NULL;
					c.size = 0;
				}
				add(out, n, &c);
			}
			off += ehs + payload;
		}
		at += hsize + body;
	}
	return 0;
}

int fatbin_cubins(const unsigned char *data, size_t size, fatbin_cubin **out, size_t *n, const char **why)
{
	*out = NULL;
	*n = 0;
	*why = NULL;
	if (size >= 16 && get(data, 4) == FATBIN_MAGIC)
		return containers(data, size, out, n, why);
	if (size < sizeof(Elf64_Ehdr) || memcmp(data, ELFMAG, SELFMAG)) {
		*why = "not an ELF file (a program, object or cubin) nor a fatbinary";
		return -1;
	}
	if (get(data + 18, 2) == EM_CUDA) {
		fatbin_cubin c = {data, size, 0, NULL};
		Elf64_Ehdr eh;
		if (data[EI_CLASS] == ELFCLASS64) {
			memcpy(&eh, data, sizeof eh);
			/* the target is e_flags' second byte from ABI version 7 on, its first before */
			c.arch = data[EI_ABIVERSION] >= 7 ? (unsigned)(eh.e_flags >> 8 & 0xff) : (unsigned)(eh.e_flags & 0xff);
		}
		add(out, n, &c);
		return 0;
	}
	static const char *const sections[] = {".nv_fatbin", "__nv_relfatbin"};
	for (size_t i = 0; i < sizeof sections / sizeof *sections; i++) {
		const unsigned char *p;
		size_t len;
		if (cubin_section(data, size, sections[i], &p, &len) == 0 && containers(p, len, out, n, why)) {
			free(*out);
			*out = NULL;
			*n = 0;
			return -1;
		}
	}
	return 0;
}
