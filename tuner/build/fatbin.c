/* fatbin.c: the cubins inside a fatbinary. nvcc embeds one container per compiled file in the
 * host object's .nv_fatbin section (__nv_relfatbin with -rdc), and the linker concatenates them.
 * A container is a 16-byte header (magic 0xBA55ED50, version 1, header size, then the size of
 * the entries that follow), and each entry a header of its own: kind (1 PTX, 2 ELF), version,
 * header size, padded payload size, then the compressed size, the target's major/minor at 28
 * and flags at 40, whose 0x2000 marks an LZ4 payload and 0x8000 a Zstandard one, then its size
 * unpacked at 56 (nvcc 13 compresses PTX by default, and cubins of -G and -rdc objects and with
 * -compress-mode=size). */
#include "fatbin.h"

#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

#include "cubin.h"
#include "diag.h"
#include "banned.h"

enum { FATBIN_MAGIC = 0xBA55ED50u, FATBIN_ELF = 2, FLAG_LZ4 = 0x2000, FLAG_ZSTD = 0x8000 };
/* the most a compressed cubin may claim to unpack to: beyond any kernel's, short of a bomb */
#define MAX_CUBIN ((uint64_t)1 << 30)

static uint64_t get(const unsigned char *p, int bytes)
{
	uint64_t v = 0;
	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* A Zstandard payload into c->owned when this build links libzstd and it unpacks to exactly the
 * size its header says; else c stays without a cubin. */
static void unpack(fatbin_cubin *c, const unsigned char *src, size_t packed, size_t unpacked)
{
#ifdef HAVE_ZSTD
	unsigned char *dst = xmalloc(unpacked);
	size_t got = ZSTD_decompress(dst, unpacked, src, packed);
	if (ZSTD_isError(got) || got != unpacked) {
		free(dst);
		return;
	}
	c->owned = dst;
	c->elf = dst;
	c->size = unpacked;
#else
	(void)c, (void)src, (void)packed, (void)unpacked;
#endif
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
				fatbin_cubin c = {h + ehs, (size_t)payload, (unsigned)get(h + 28, 4), NULL, NULL};
				if (flags & (FLAG_LZ4 | FLAG_ZSTD)) {
					c.compressed = flags & FLAG_ZSTD ? "zstd" : "lz4";
					c.elf = NULL;
					c.size = 0;
					/* the compressed bytes at 16, the size unpacked at 56 */
					uint64_t packed = get(h + 16, 4), unpacked = get(h + 56, 8);
					if (flags & FLAG_ZSTD && packed <= payload && unpacked && unpacked <= MAX_CUBIN)
						unpack(&c, h + ehs, (size_t)packed, (size_t)unpacked);
				}
				add(out, n, &c);
			}
			off += ehs + payload;
		}
		at += hsize + body;
	}
	return 0;
}

static int cubins_of(const unsigned char *data, size_t size, fatbin_cubin **out, size_t *n, const char **why, int depth);

/* The members of a static library (ar: "!<arch>\n", then per member a 60-byte header whose
 * size field is decimal at 48, "`\n" at 58, and the member, padded to an even length): the
 * cubins of each object in it. Members that are no ELF file (the symbol table) are passed. */
static int archive(const unsigned char *data, size_t size, fatbin_cubin **out, size_t *n, const char **why, int depth)
{
	for (size_t at = 8; at < size;) {
		if (size - at < 60 || data[at + 58] != '`' || data[at + 59] != '\n') {
			*why = "a static library's member header runs past its end or is not one";
			return -1;
		}
		size_t len = 0;
		for (size_t i = 48; i < 58 && data[at + i] >= '0' && data[at + i] <= '9'; i++)
			len = len * 10 + (size_t)(data[at + i] - '0');
		at += 60;
		if (len > size - at) {
			*why = "a static library's member runs past its end";
			return -1;
		}
		if (len >= SELFMAG && !memcmp(data + at, ELFMAG, SELFMAG) && cubins_of(data + at, len, out, n, why, depth + 1))
			return -1;
		at += len + (len & 1);
	}
	return 0;
}

int fatbin_cubins(const unsigned char *data, size_t size, fatbin_cubin **out, size_t *n, const char **why)
{
	*out = NULL;
	*n = 0;
	*why = NULL;
	if (cubins_of(data, size, out, n, why, 0)) {
		fatbin_free(*out, *n);
		*out = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}

void fatbin_free(fatbin_cubin *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(c[i].owned);
	free(c);
}

static int cubins_of(const unsigned char *data, size_t size, fatbin_cubin **out, size_t *n, const char **why, int depth)
{
	if (size >= 16 && get(data, 4) == FATBIN_MAGIC)
		return containers(data, size, out, n, why);
	if (depth == 0 && size >= 8 && !memcmp(data, "!<arch>\n", 8))
		return archive(data, size, out, n, why, depth);
	if (size < sizeof(Elf64_Ehdr) || memcmp(data, ELFMAG, SELFMAG)) {
		*why = "not an ELF file (a program, library, object or cubin), a static library nor a fatbinary";
		return -1;
	}
	if (get(data + 18, 2) == EM_CUDA) {
		fatbin_cubin c = {data, size, 0, NULL, NULL};
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
		if (cubin_section(data, size, sections[i], &p, &len) == 0 && containers(p, len, out, n, why))
			return -1;
	}
	return 0;
}
