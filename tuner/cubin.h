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
