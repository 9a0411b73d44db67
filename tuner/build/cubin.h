/* cubin.h: what is known of a compiled binary: its entry point's resources, from the reports of
 * the compile (and link) that made it, a hash of what the GPU executes, and its parameters. */
#ifndef AUTOTUNE_CUBIN_H
#define AUTOTUNE_CUBIN_H

#include <stddef.h>

typedef struct {
	char *symbol;       /* the entry's name in the cubin (mangled if C++) */
	int registers;
	int spill_stores, spill_loads; /* bytes */
	int stack;          /* bytes of stack frame (linked: of the call graph) */
	int barriers;
	size_t static_smem; /* bytes */
} kernel_resources;

/* Finds the entry point's resources in `nvcc -Xptxas -v` output; when the log goes on with
 * nvlink's -v report (build.rdc's link), its registers, barriers, stack and shared memory are
 * the linked kernel's. The entry matches a function named exactly so or its C++ mangling
 * (_Z<len><name>...). 0 on success; -1 if not found, -2 if several C++ overloads match (names
 * listed in *candidates, caller frees). */
int ptxas_parse(const char *log, const char *entry, kernel_resources *out, char **candidates);

/* A hash of what the GPU executes, from the cubin at path, into out[17] (16 hex digits): equal
 * hashes, the same kernel (a register cap above what the kernel uses makes no difference). */
void cubin_code_hash(const char *path, char out[17]);

/* An entry point of a cubin and the hash of its own code (cubin_kernels). */
typedef struct {
	char *symbol;
	char hash[17];  /* 16 hex digits */
	int registers;  /* as its code section records them */
} cubin_kernel;

/* Each entry point of the cubin in memory with a hash of what the GPU executes of it: its code
 * (and that of the callees it reaches through relocations), its resources, its own .nv.info
 * records but the register cap asked for, its parameter bank, and the file's constant and global
 * data, which its code may read. Its name is hashed as a placeholder (a per-size variant renames
 * the kernel), and symbol indices as names; other kernels' code, the symbol table, line info and
 * debug sections, and the toolkit's note are left out. So a -lineinfo build, a file with other
 * kernels and a renamed variant hash alike. 0 with *out (caller frees with cubin_kernels_free),
 * or -1 when data is no ELF file with a symbol table. Every offset is checked. */
int cubin_kernels(const unsigned char *data, size_t size, cubin_kernel **out, size_t *n);
void cubin_kernels_free(cubin_kernel *k, size_t n);
/* The hash of `symbol` in the cubin at path (cubin_kernels), or "" when it has no such entry. */
void cubin_kernel_hash(const char *path, const char *symbol, char out[17]);
/* The whole file (caller frees), or NULL with *size 0 when it cannot be read or is empty. */
unsigned char *cubin_read(const char *path, size_t *size);
/* The contents of the ELF file's section of this name: 0, or -1 when data is no 64-bit ELF file
 * or has no such section within it. */
int cubin_section(const unsigned char *data, size_t size, const char *name, const unsigned char **p, size_t *len);

/* The parameters of the kernel `symbol` (its name in the cubin) as the cubin at path records them
 * (the EIATTR_KPARAM_INFO records of its .nv.info section): 0 with *count and the bytes of each in
 * order in *sizes (caller frees; NULL for none); -1 when the file does not say (not a cubin, no
 * such kernel, records this reader does not know). Every offset is checked against the file. */
int cubin_params(const char *path, const char *symbol, size_t **sizes, size_t *count);

/* nvlink's output (-Xnvlink -v) without the resources of the device runtime's own kernels (a pair
 * of lines each, some fifty in all), which would bury what matters in a log or a compile error.
 * Caller frees. */
char *nvlink_report(const char *out);

#endif
