/* cubin.c: what is known of a compiled binary: the resources its compile (and link) reported for
 * the entry point, and a hash of the code the GPU executes. */
#include "cubin.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "hash.h"
#include "banned.h"

/* What the GPU executes, for telling identical binaries apart: every ELF section of the cubin
 * except the toolkit note (which records the command line), the debug sections (which hold the
 * source's path as it was given) and, in the per-kernel .nv.info
 * sections, the EIATTR_MAXREG_COUNT attribute (the -maxrregcount asked for, not what was used:
 * the register count itself stays in). Caps above a kernel's natural register count thus give
 * the same hash. A file that is not ELF is hashed whole. */
void cubin_code_hash(const char *path, char out[17])
{
	FILE *f = fopen(path, "rb");
	hasher *h = hasher_new();
	unsigned char *data = NULL;
	long size = -1;
	if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
		data = xmalloc((size_t)size);
		if (fread(data, 1, (size_t)size, f) != (size_t)size)
			size = -1;
	}
	if (f)
		fclose(f);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)data;
	int elf = size >= (long)sizeof *eh && !memcmp(data, ELFMAG, SELFMAG) && data[EI_CLASS] == ELFCLASS64 &&
		  eh->e_shoff + (unsigned long)eh->e_shnum * sizeof(Elf64_Shdr) <= (unsigned long)size &&
		  eh->e_shstrndx < eh->e_shnum;
	if (!elf) {
		if (size > 0)
			hasher_add(h, data, (size_t)size);
	} else {
		const Elf64_Shdr *sh = (const Elf64_Shdr *)(data + eh->e_shoff);
		const Elf64_Shdr *names = &sh[eh->e_shstrndx];
		for (int i = 0; i < eh->e_shnum; i++) {
			const Elf64_Shdr *sec = &sh[i];
			if (names->sh_offset + sec->sh_name >= (unsigned long)size)
				continue;
			const char *name = (const char *)data + names->sh_offset + sec->sh_name;
			/* the toolkit's note holds the command line, and debug sections (-G, -lineinfo) the
			 * source's path as given: neither is what the GPU executes */
			if (!memchr(name, 0, (size_t)size - (names->sh_offset + sec->sh_name)) || !strcmp(name, ".note.nv.tkinfo") ||
			    !strncmp(name, ".debug_", 7) || !strncmp(name, ".rela.debug_", 12) || !strncmp(name, ".nv_debug", 9))
				continue;
			hasher_add_str(h, name);
			hasher_add(h, &sec->sh_size, sizeof sec->sh_size);
			if (sec->sh_type == SHT_NOBITS || sec->sh_offset + sec->sh_size > (unsigned long)size)
				continue;
			const unsigned char *p = data + sec->sh_offset, *end = p + sec->sh_size;
			if (strncmp(name, ".nv.info.", 9)) {
				hasher_add(h, p, sec->sh_size);
				continue;
			}
			/* .nv.info records: format byte, attribute byte, then by format: none (1),
			 * 1 byte (2), 2 bytes (3) or a 2-byte size and that many bytes (4) */
			while (p + 2 <= end) {
				size_t len = p[0] == 1 ? 2 : p[0] == 2 ? 3 : p[0] == 3 ? 4 : p[0] == 4 && p + 4 <= end ? 4 + (size_t)(p[2] | p[3] << 8) : 0;
				if (!len || p + len > end) {
					hasher_add(h, p, (size_t)(end - p));
					break;
				}
				if (p[1] != 0x1b) /* EIATTR_MAXREG_COUNT */
					hasher_add(h, p, len);
				p += len;
			}
		}
	}
	free(data);
	hasher_finish(h, out);
}

/* Matches a plain name or its Itanium mangling: _Z <length> <name> <anything>. */
static int entry_matches(const char *fn, const char *entry, int *mangled)
{
	*mangled = 0;
	if (!strcmp(fn, entry))
		return 1;
	char prefix[320];
	snprintf(prefix, sizeof prefix, "_Z%zu%s", strlen(entry), entry);
	if (!strncmp(fn, prefix, strlen(prefix))) {
		*mangled = 1;
		return 1;
	}
	return 0;
}

/* The decimal number that ends just before `at` in line (0 when none does). */
static long number_before(const char *line, const char *at)
{
	const char *num = at;
	while (num > line && num[-1] >= '0' && num[-1] <= '9')
		num--;
	return strtol(num, NULL, 10);
}

static void append_name(char **list, const char *name)
{
	char *old = *list;
	*list = old ? xasprintf("%s, %s", old, name) : xstrdup(name);
	free(old);
}

/* nvlink's -v report (build.rdc's link) of the entry `out->symbol`, when the log has one: the
 * registers, barriers, stack (the call graph's) and static shared memory of the kernel as
 * linked, which is what the driver loads; ptxas's numbers for a relocatable kernel lack what its
 * callees in other objects add. The report names a function on one line and its resources, as
 * "used N registers, used N barriers, N stack, N bytes smem, ...", on the next. */
static void linked_resources(const char *log, kernel_resources *out)
{
	char *head = xasprintf("Function properties for '%s':", out->symbol);
	for (const char *p = log; (p = strstr(p, "nvlink info")); p++) {
		const char *eol = strchr(p, '\n'), *at = strstr(p, head);
		if (!eol || !at || at > eol)
			continue;
		const char *next = eol + 1, *end = strchr(next, '\n');
		char line[512];
		snprintf(line, sizeof line, "%.*s", (int)(end ? end - next : (long)strlen(next)), next);
		const char *q;
		int v;
		if (!strstr(line, "nvlink info") || !(q = strstr(line, "used ")) || sscanf(q, "used %d registers", &v) != 1)
			continue;
		out->registers = v;
		if ((q = strstr(line, ", used ")) && sscanf(q, ", used %d barriers", &v) == 1)
			out->barriers = v;
		if ((q = strstr(line, " stack")))
			out->stack = number_before(line, q);
		if ((q = strstr(line, " bytes smem")))
			out->static_smem = (size_t)number_before(line, q);
		break;
	}
	free(head);
}

int ptxas_parse(const char *log, const char *entry, kernel_resources *out, char **candidates)
{
	memset(out, 0, sizeof *out);
	*candidates = NULL;
	char *all = NULL, *matched = NULL;
	int nmatch = 0, exact = 0, in_entry = 0;
	for (const char *line = log; line && *line;) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		char buf[1024];
		snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), line);
		line = eol ? eol + 1 : NULL;

		const char *p;
		char name[512];
		if ((p = strstr(buf, "Compiling entry function '")) && sscanf(p + 26, "%511[^']", name) == 1) {
			append_name(&all, name);
			int mangled;
			in_entry = entry_matches(name, entry, &mangled) && !(exact && mangled);
			if (in_entry) {
				/* an exact (extern "C") match wins over manglings */
				if (!mangled && !exact) {
					exact = 1;
					nmatch = 0;
					free(matched);
					matched = NULL;
					memset(out, 0, sizeof *out);
				}
				nmatch++;
				append_name(&matched, name);
				free(out->symbol);
				out->symbol = xstrdup(name);
			}
			continue;
		}
		if (!in_entry)
			continue;
		int a, b2, c;
		if ((p = strstr(buf, "bytes stack frame")) && sscanf(buf, " %d bytes stack frame, %d bytes spill stores, %d bytes spill loads", &a, &b2, &c) == 3) {
			out->stack = a;
			out->spill_stores = b2;
			out->spill_loads = c;
		}
		if ((p = strstr(buf, "Used ")) && sscanf(p, "Used %d registers", &a) == 1) {
			out->registers = a;
			const char *q;
			if ((q = strstr(p, "used ")) && sscanf(q, "used %d barriers", &b2) == 1)
				out->barriers = b2;
			/* "N bytes smem" follows the register count when the kernel has static shared memory */
			for (q = p; (q = strstr(q, " bytes smem")); q++) {
				const char *num = q;
				while (num > p && num[-1] >= '0' && num[-1] <= '9')
					num--;
				out->static_smem = strtoul(num, NULL, 10);
				break;
			}
		}
	}
	int rc = 0;
	if (nmatch == 1)
		linked_resources(log, out);
	if (nmatch == 0) {
		rc = -1;
		*candidates = all;
		all = NULL;
		free(out->symbol);
		out->symbol = NULL;
	} else if (nmatch > 1) {
		rc = -2;
		*candidates = matched;
		matched = NULL;
		free(out->symbol);
		memset(out, 0, sizeof *out);
	}
	free(all);
	free(matched);
	return rc;
}
