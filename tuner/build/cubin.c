/* cubin.c: what is known of a compiled binary: the resources its compile (and link) reported for
 * the entry point, and a hash of the code the GPU executes. */
#include "cubin.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "hash.h"
#include "mangle.h"
#include "banned.h"

/* The whole file, or NULL (*size 0) when it cannot be read or is empty. */
static unsigned char *read_whole(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *data = NULL;
	long n = -1;
	*size = 0;
	if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
		data = xmalloc((size_t)n);
		if (fread(data, 1, (size_t)n, f) == (size_t)n)
			*size = (size_t)n;
		else {
			free(data);
			data = NULL;
		}
	}
	if (f)
		fclose(f);
	return data;
}

/* A 64-bit little-endian ELF file in memory: where its section headers and section names are,
 * each checked to lie within the file (a cubin is input like any other: a cache entry, a
 * wrapper's output). Headers are copied out, since their offsets need not be aligned. */
typedef struct {
	const unsigned char *data;
	size_t size;
	size_t shoff, shnum;
	size_t names, names_len; /* the section name table */
} elf_file;

typedef struct {
	Elf64_Shdr h;
	const char *name;        /* NULL when it is not a string within the name table */
	const unsigned char *p;  /* the contents, or NULL (SHT_NOBITS, or not within the file) */
	size_t len;
} elf_section;

/* Whether [off, off + len) lies within a file of size bytes, without overflowing. */
static int within(size_t size, unsigned long long off, unsigned long long len)
{
	return off <= size && len <= size - off;
}

static void section_header(const elf_file *e, size_t i, Elf64_Shdr *h)
{
	memcpy(h, e->data + e->shoff + i * sizeof *h, sizeof *h);
}

/* 0 when data is such a file, its section table and name table within it; else -1. */
static int elf_open(elf_file *e, const unsigned char *data, size_t size)
{
	Elf64_Ehdr eh;
	memset(e, 0, sizeof *e);
	if (!data || size < sizeof eh || memcmp(data, ELFMAG, SELFMAG) || data[EI_CLASS] != ELFCLASS64 ||
	    data[EI_DATA] != ELFDATA2LSB)
		return -1;
	memcpy(&eh, data, sizeof eh);
	if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 || eh.e_shstrndx >= eh.e_shnum ||
	    !within(size, eh.e_shoff, (unsigned long long)eh.e_shnum * sizeof(Elf64_Shdr)))
		return -1;
	e->data = data;
	e->size = size;
	e->shoff = (size_t)eh.e_shoff;
	e->shnum = eh.e_shnum;
	Elf64_Shdr names;
	section_header(e, eh.e_shstrndx, &names);
	if (names.sh_type == SHT_NOBITS || !within(size, names.sh_offset, names.sh_size))
		return -1;
	e->names = (size_t)names.sh_offset;
	e->names_len = (size_t)names.sh_size;
	return 0;
}

static void elf_section_at(const elf_file *e, size_t i, elf_section *s)
{
	section_header(e, i, &s->h);
	const char *table = (const char *)e->data + e->names;
	s->name = s->h.sh_name < e->names_len && memchr(table + s->h.sh_name, 0, e->names_len - s->h.sh_name)
			  ? table + s->h.sh_name
			  : NULL;
	int has = s->h.sh_type != SHT_NOBITS && within(e->size, s->h.sh_offset, s->h.sh_size);
	s->p = has ? e->data + s->h.sh_offset : NULL;
	s->len = has ? (size_t)s->h.sh_size : 0;
}

/* The length of the .nv.info record at p, of the `left` bytes there: a format byte, an attribute
 * byte, then two bytes, which are by format padding (1, no value), a byte and padding (2), a
 * 16-bit value (3), or the size of the bytes that follow (4). Every record thus keeps the next
 * one 4-byte aligned, as the cubins of sm_80 and sm_90 show (barrier counts are format 2).
 * 0 when it is none of those or does not fit. */
static size_t nvinfo_record(const unsigned char *p, size_t left)
{
	if (left < 4 || p[0] < 1 || p[0] > 4)
		return 0;
	size_t len = p[0] == 4 ? 4 + (size_t)(p[2] | p[3] << 8) : 4;
	return len <= left ? len : 0;
}

/* .nv.info attributes read here */
enum { EIATTR_PARAM_CBANK = 0x0a, EIATTR_KPARAM_INFO = 0x17, EIATTR_CBANK_PARAM_SIZE = 0x19, EIATTR_MAXREG_COUNT = 0x1b };

/* What the GPU executes, for telling identical binaries apart: every ELF section of the cubin
 * except the toolkit note (which records the command line), the debug sections (which hold the
 * source's path as it was given) and, in the per-kernel .nv.info
 * sections, the EIATTR_MAXREG_COUNT attribute (the -maxrregcount asked for, not what was used:
 * the register count itself stays in). Caps above a kernel's natural register count thus give
 * the same hash. A file that is not ELF is hashed whole. */
void cubin_code_hash(const char *path, char out[17])
{
	size_t size;
	unsigned char *data = read_whole(path, &size);
	hasher *h = hasher_new();
	elf_file e;
	if (elf_open(&e, data, size)) {
		if (size)
			hasher_add(h, data, size);
	} else
		for (size_t i = 0; i < e.shnum; i++) {
			elf_section s;
			elf_section_at(&e, i, &s);
			/* the toolkit's note holds the command line, and debug sections (-G, -lineinfo) the
			 * source's path as given: neither is what the GPU executes */
			if (!s.name || !strcmp(s.name, ".note.nv.tkinfo") || !strncmp(s.name, ".debug_", 7) ||
			    !strncmp(s.name, ".rela.debug_", 12) || !strncmp(s.name, ".nv_debug", 9))
				continue;
			hasher_add_str(h, s.name);
			hasher_add(h, &s.h.sh_size, sizeof s.h.sh_size);
			if (!s.p)
				continue;
			if (strncmp(s.name, ".nv.info.", 9)) {
				hasher_add(h, s.p, s.len);
				continue;
			}
			for (size_t at = 0, len; at < s.len; at += len) {
				if (!(len = nvinfo_record(s.p + at, s.len - at))) {
					hasher_add(h, s.p + at, s.len - at);
					break;
				}
				if (s.p[at + 1] != EIATTR_MAXREG_COUNT)
					hasher_add(h, s.p + at, len);
			}
		}
	free(data);
	hasher_finish(h, out);
}

static unsigned read_u16(const unsigned char *p) { return (unsigned)p[0] | (unsigned)p[1] << 8; }
static unsigned long read_u32(const unsigned char *p) { return read_u16(p) | (unsigned long)read_u16(p + 2) << 16; }

/* The parameters an entry's .nv.info section records: per EIATTR_KPARAM_INFO record (12 bytes:
 * an index, the parameter's ordinal and offset (2 bytes each), then flags whose top 14 bits are
 * its size), and EIATTR_CBANK_PARAM_SIZE, the bytes of them all. 0 with *count and sizes[ordinal]
 * (caller frees) when the records make one list; -1 when they do not. */
static int kparams(const unsigned char *p, size_t len, size_t **sizes, size_t *count)
{
	size_t max = len / 16 + 1, n = 0, end = 0, *size = xcalloc(max, sizeof *size);
	char *seen = xcalloc(max, 1);
	long total = -1;
	int bad = 0;
	for (size_t at = 0, rl; at < len && !bad; at += rl) {
		if (!(rl = nvinfo_record(p + at, len - at)))
			bad = 1;
		else if (p[at + 1] == EIATTR_CBANK_PARAM_SIZE && p[at] == 3)
			total = (long)read_u16(p + at + 2);
		else if (p[at + 1] == EIATTR_KPARAM_INFO && p[at] == 4 && rl >= 16) {
			size_t ordinal = read_u16(p + at + 8), offset = read_u16(p + at + 10), bytes = read_u32(p + at + 12) >> 18;
			if (ordinal >= max || seen[ordinal] || bytes == 0)
				bad = 1;
			else {
				seen[ordinal] = 1;
				size[ordinal] = bytes;
				n++;
				if (offset + bytes > end)
					end = offset + bytes;
			}
		}
	}
	for (size_t i = 0; i < n && !bad; i++)
		bad = !seen[i]; /* ordinals 0 to n - 1, each once */
	/* parameters past the bytes of them all, or bytes of parameters but no record of them: a
	 * form this reader does not know */
	if ((total >= 0 && end > (size_t)total) || (!n && total > 0))
		bad = 1;
	free(seen);
	if (bad || !n) {
		free(size);
		size = NULL;
	}
	*sizes = size;
	*count = bad ? 0 : n;
	return bad ? -1 : 0;
}

int cubin_params(const char *path, const char *symbol, size_t **sizes, size_t *count)
{
	size_t size;
	unsigned char *data = read_whole(path, &size);
	elf_file e;
	int rc = -1;
	*sizes = NULL;
	*count = 0;
	char *want = xasprintf(".nv.info.%s", symbol);
	int elf = elf_open(&e, data, size) == 0;
	for (size_t i = 0; elf && i < e.shnum; i++) {
		elf_section s;
		elf_section_at(&e, i, &s);
		if (s.name && s.p && !strcmp(s.name, want)) {
			rc = kparams(s.p, s.len, sizes, count);
			break;
		}
	}
	free(want);
	free(data);
	return rc;
}

/* Matches a plain name or its Itanium mangling: _Z <length> <name> <anything>; a template-id
 * ("k<float, 256>") only the instance it names. */
static int entry_matches(const char *fn, const char *entry, int *mangled)
{
	*mangled = 0;
	if (mangle_is_template_id(entry))
		return *mangled = mangle_is_instance(fn, entry);
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

/* nvlink_report: the pairs of lines of the device runtime's kernels go. */
char *nvlink_report(const char *out)
{
	size_t n = strlen(out);
	char *kept = xmalloc(n + 1), *k = kept;
	int skip = 0;
	for (const char *line = out; *line;) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) + 1 : strlen(line);
		const char *props = strstr(line, "Function properties for '__nv_static");
		if (props && props < line + len)
			skip = 2;
		if (skip)
			skip--;
		else {
			memcpy(k, line, len);
			k += len;
		}
		line += len;
	}
	*k = 0;
	return kept;
}

/* ---- one kernel's code, whatever else the file holds ---- */

/* st_other's mark of an entry point in a cubin's symbol table */
enum { STO_CUDA_ENTRY = 0x10, EIATTR_EXTERNS = 0x0f, EIATTR_REGCOUNT = 0x2f };

typedef struct {
	const elf_file *e;
	elf_section sym, str;  /* .symtab and its string table */
	size_t nsyms;
	const char *kernel;    /* the entry's name, hashed as "<kernel>" wherever it appears */
	char *seen;            /* sections already hashed (a callee reached twice) */
} kernel_view;

static int sym_at(const kernel_view *v, size_t i, Elf64_Sym *s)
{
	if (i >= v->nsyms)
		return -1;
	memcpy(s, v->sym.p + i * sizeof *s, sizeof *s);
	return 0;
}

/* The symbol's name, or "" when it is not a string within the string table. */
static const char *sym_name(const kernel_view *v, const Elf64_Sym *s)
{
	const char *t = (const char *)v->str.p;
	return v->str.p && s->st_name < v->str.len && memchr(t + s->st_name, 0, v->str.len - s->st_name) ? t + s->st_name
													  : "";
}

static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* A name with the kernel's own name replaced by "<kernel>": a per-size variant is the same code
 * under another name, and its sections (.text.NAME) and local clones ($NAME$callee) are named
 * after it. */
static void add_normalised(hasher *h, const kernel_view *v, const char *name)
{
	size_t k = strlen(v->kernel);
	const char *p = name;
	for (const char *at = name; k && (at = strstr(at, v->kernel)); at++) {
		/* the name whole, not a part of another's ("k" in "bank") */
		if ((at > name && ident_char(at[-1])) || ident_char(at[k]))
			continue;
		hasher_add(h, p, (size_t)(at - p));
		hasher_add_str(h, "<kernel>");
		p = at + k;
		at = p - 1;
	}
	hasher_add_str(h, p);
	hasher_add(h, "", 1);
}

/* The section of this name, or -1. */
static long section_named(const elf_file *e, const char *name)
{
	for (size_t i = 0; i < e->shnum; i++) {
		elf_section s;
		elf_section_at(e, i, &s);
		if (s.name && !strcmp(s.name, name))
			return (long)i;
	}
	return -1;
}

static void hash_text(hasher *h, kernel_view *v, size_t idx, int depth);

/* A relocation names its target by symbol index, which another kernel in the file shifts: hash
 * the target by name instead, or for a function in a section of its own (a relocatable
 * object's callee), by its code. */
static void hash_relocations(hasher *h, kernel_view *v, const elf_section *rel, int depth)
{
	size_t n = rel->p && rel->h.sh_type == SHT_RELA ? rel->len / sizeof(Elf64_Rela) : 0;
	if (rel->p && rel->h.sh_type != SHT_RELA)
		hasher_add(h, rel->p, rel->len);
	for (size_t i = 0; i < n; i++) {
		Elf64_Rela r;
		Elf64_Sym s;
		memcpy(&r, rel->p + i * sizeof r, sizeof r);
		hasher_add(h, &r.r_offset, sizeof r.r_offset);
		unsigned type = (unsigned)ELF64_R_TYPE(r.r_info);
		hasher_add(h, &type, sizeof type);
		hasher_add(h, &r.r_addend, sizeof r.r_addend);
		if (sym_at(v, ELF64_R_SYM(r.r_info), &s)) {
			hasher_add_str(h, "?");
			continue;
		}
		elf_section target = {0};
		if (s.st_shndx != SHN_UNDEF && s.st_shndx < v->e->shnum)
			elf_section_at(v->e, s.st_shndx, &target);
		if (ELF64_ST_TYPE(s.st_info) == STT_SECTION)
			add_normalised(h, v, target.name ? target.name : "?");
		else
			add_normalised(h, v, sym_name(v, &s));
		hasher_add(h, &s.st_value, sizeof s.st_value);
		if (ELF64_ST_TYPE(s.st_info) == STT_FUNC && target.name && !strncmp(target.name, ".text.", 6))
			hash_text(h, v, s.st_shndx, depth + 1);
	}
}

/* A code section: its contents, the registers and barriers its header records, and its
 * relocations (.rela.text.NAME), each callee in turn. */
static void hash_text(hasher *h, kernel_view *v, size_t idx, int depth)
{
	if (idx >= v->e->shnum || v->seen[idx] || depth > 64)
		return;
	v->seen[idx] = 1;
	elf_section t;
	elf_section_at(v->e, idx, &t);
	unsigned long long regs = t.h.sh_info >> 24;
	hasher_add(h, &t.h.sh_flags, sizeof t.h.sh_flags);
	hasher_add(h, &regs, sizeof regs);
	hasher_add(h, &t.h.sh_size, sizeof t.h.sh_size);
	if (t.p)
		hasher_add(h, t.p, t.len);
	for (size_t i = 0; i < v->e->shnum; i++) {
		elf_section r;
		elf_section_at(v->e, i, &r);
		if ((r.h.sh_type == SHT_RELA || r.h.sh_type == SHT_REL) && r.h.sh_info == idx && r.name &&
		    strncmp(r.name, ".rela.debug", 11) && strncmp(r.name, ".rel.debug", 10) && strncmp(r.name, ".rela.nv_debug", 14)) {
			hasher_add_str(h, "rel");
			hash_relocations(h, v, &r, depth);
		}
	}
}

/* The kernel's own .nv.info.NAME records but the register cap asked for, with the symbol
 * indices some carry (the parameter bank's, the externs') as names. */
static void hash_own_info(hasher *h, const kernel_view *v, const elf_section *s)
{
	for (size_t at = 0, len; at < s->len; at += len) {
		const unsigned char *p = s->p + at;
		if (!(len = nvinfo_record(p, s->len - at))) {
			hasher_add(h, p, s->len - at);
			break;
		}
		if (p[1] == EIATTR_MAXREG_COUNT)
			continue;
		if ((p[1] == EIATTR_PARAM_CBANK && len >= 8) || (p[1] == EIATTR_EXTERNS && p[0] == 4)) {
			hasher_add(h, p, 4);
			size_t names = p[1] == EIATTR_PARAM_CBANK ? 1 : (len - 4) / 4;
			for (size_t i = 0; i < names; i++) {
				Elf64_Sym sym;
				add_normalised(h, v, sym_at(v, read_u32(p + 4 + 4 * i), &sym) ? "?" : sym_name(v, &sym));
			}
			hasher_add(h, p + 4 + 4 * names, len - 4 - 4 * names);
		} else
			hasher_add(h, p, len);
	}
}

/* The file-wide .nv.info records of the kernel's symbol (its registers, frame and stack sizes):
 * format 4 with a symbol index and a value. */
static void hash_file_info(hasher *h, const kernel_view *v, size_t symidx)
{
	long i = section_named(v->e, ".nv.info");
	if (i < 0)
		return;
	elf_section s;
	elf_section_at(v->e, (size_t)i, &s);
	for (size_t at = 0, len; s.p && at < s.len; at += len) {
		const unsigned char *p = s.p + at;
		if (!(len = nvinfo_record(p, s.len - at)))
			break;
		if (p[0] == 4 && len == 12 && read_u32(p + 4) == symidx) {
			hasher_add(h, p + 1, 1);
			hasher_add(h, p + 8, 4);
		}
	}
}

/* Sections of data every kernel of the file may read (__constant__ and __device__ variables,
 * the toolkit's tables): the code addresses them without relocations, so they are the kernel's
 * too. Another kernel's own data changes them; other kernels' code does not. */
static int shared_data(const char *name)
{
	return (!strncmp(name, ".nv.constant", 12) && !strchr(name + 12, '.')) || !strcmp(name, ".nv.global") ||
	       !strcmp(name, ".nv.global.init") || !strncmp(name, ".rela.nv.constant", 17) ||
	       !strcmp(name, ".rela.nv.global.init");
}

/* The value of the file-wide .nv.info record `attr` of symbol symidx, or -1. */
static int file_info_value(const elf_file *e, int attr, size_t symidx)
{
	long i = section_named(e, ".nv.info");
	elf_section s;
	if (i < 0)
		return -1;
	elf_section_at(e, (size_t)i, &s);
	for (size_t at = 0, len; s.p && at < s.len; at += len) {
		const unsigned char *p = s.p + at;
		if (!(len = nvinfo_record(p, s.len - at)))
			break;
		if (p[0] == 4 && p[1] == attr && len == 12 && read_u32(p + 4) == symidx)
			return (int)read_u32(p + 8);
	}
	return -1;
}

static void kernel_hash(const elf_file *e, kernel_view *v, size_t symidx, size_t text, char out[17])
{
	hasher *h = hasher_new();
	memset(v->seen, 0, e->shnum);
	hasher_add_str(h, "kernel");
	hash_text(h, v, text, 0);
	hash_file_info(h, v, symidx);
	size_t klen = strlen(v->kernel);
	for (size_t i = 0; i < e->shnum; i++) {
		elf_section s;
		elf_section_at(e, i, &s);
		if (!s.name)
			continue;
		size_t n = strlen(s.name);
		/* the kernel's own sections: .nv.info.NAME, .nv.constant0.NAME, .nv.shared.NAME ... */
		int own = n > klen + 1 && !strcmp(s.name + n - klen, v->kernel) && s.name[n - klen - 1] == '.' &&
			  strncmp(s.name, ".text.", 6) && strncmp(s.name, ".rela.", 6) && strncmp(s.name, ".rel.", 5) &&
			  strncmp(s.name, ".nv_debug", 9) && strncmp(s.name, ".debug", 6);
		if (!own && !shared_data(s.name))
			continue;
		add_normalised(h, v, s.name);
		hasher_add(h, &s.h.sh_type, sizeof s.h.sh_type);
		hasher_add(h, &s.h.sh_size, sizeof s.h.sh_size);
		if (!s.p)
			continue;
		if (!strncmp(s.name, ".nv.info.", 9))
			hash_own_info(h, v, &s);
		else if (s.h.sh_type == SHT_RELA || s.h.sh_type == SHT_REL)
			hash_relocations(h, v, &s, 64); /* names only: no callee is reached from data */
		else
			hasher_add(h, s.p, s.len);
	}
	hasher_finish(h, out);
}

/* The symbol table and its strings, checked: 0, or -1 when the file has none usable. */
static int kernel_view_open(const elf_file *e, kernel_view *v)
{
	memset(v, 0, sizeof *v);
	v->e = e;
	for (size_t i = 0; i < e->shnum; i++) {
		elf_section_at(e, i, &v->sym);
		if (v->sym.h.sh_type == SHT_SYMTAB && v->sym.p && v->sym.h.sh_link < e->shnum) {
			elf_section_at(e, v->sym.h.sh_link, &v->str);
			v->nsyms = v->sym.len / sizeof(Elf64_Sym);
			v->seen = xcalloc(e->shnum, 1);
			return 0;
		}
	}
	return -1;
}

int cubin_kernels(const unsigned char *data, size_t size, cubin_kernel **out, size_t *n)
{
	elf_file e;
	kernel_view v;
	*out = NULL;
	*n = 0;
	if (elf_open(&e, data, size) || kernel_view_open(&e, &v))
		return -1;
	for (size_t i = 0; i < v.nsyms; i++) {
		Elf64_Sym s;
		sym_at(&v, i, &s);
		const char *name = sym_name(&v, &s);
		if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || !(s.st_other & STO_CUDA_ENTRY) || !*name ||
		    s.st_shndx == SHN_UNDEF || s.st_shndx >= e.shnum)
			continue;
		elf_section t;
		elf_section_at(&e, s.st_shndx, &t);
		if (!t.name || strncmp(t.name, ".text.", 6))
			continue;
		*out = xrealloc(*out, (*n + 1) * sizeof **out);
		cubin_kernel *k = &(*out)[(*n)++];
		k->symbol = xstrdup(name);
		k->registers = file_info_value(&e, EIATTR_REGCOUNT, i);
		v.kernel = name;
		kernel_hash(&e, &v, i, s.st_shndx, k->hash);
	}
	free(v.seen);
	return 0;
}

void cubin_kernels_free(cubin_kernel *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(k[i].symbol);
	free(k);
}

void cubin_kernel_hash(const char *path, const char *symbol, char out[17])
{
	size_t size, n;
	unsigned char *data = read_whole(path, &size);
	cubin_kernel *k;
	out[0] = 0;
	if (symbol && cubin_kernels(data, size, &k, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			if (!strcmp(k[i].symbol, symbol))
				memcpy(out, k[i].hash, 17);
		cubin_kernels_free(k, n);
	}
	free(data);
}

int cubin_section(const unsigned char *data, size_t size, const char *name, const unsigned char **p, size_t *len)
{
	elf_file e;
	if (elf_open(&e, data, size))
		return -1;
	long i = section_named(&e, name);
	if (i < 0)
		return -1;
	elf_section s;
	elf_section_at(&e, (size_t)i, &s);
	if (!s.p)
		return -1;
	*p = s.p;
	*len = s.len;
	return 0;
}

unsigned char *cubin_read(const char *path, size_t *size)
{
	return read_whole(path, size);
}
