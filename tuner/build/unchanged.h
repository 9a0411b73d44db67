/* unchanged.h: compile-time parameters whose values all compile to the same code: a define that
 * the kernel source sets for itself (`#ifndef block_size_x` / `#define block_size_x 16`, as
 * published Kernel Tuner kernels do) or never uses. */
#ifndef AUTOTUNE_UNCHANGED_H
#define AUTOTUNE_UNCHANGED_H

#include <stddef.h>

#include "binary.h"
#include "space.h"

typedef struct config config;

/* Parameter i (a define or a #pragma unroll name; not the register cap, whose caps above the
 * kernel's registers are known to change nothing and are measured once, nor an entry placeholder,
 * whose binaries share one module of every entry) is unchanged when some built binaries differ in its value alone, and every such pair's code
 * hashes are equal. 1 then; 0 when a pair differs, or there is no such pair to tell. */
int param_unchanged(const config *cfg, const space *s, const build *b, size_t i);

/* Says on stderr, once per parameter, each that param_unchanged finds, at its place in the
 * config, with the likely cause (the source's own #define of it, by its line when there is one). */
void warn_unchanged_params(const config *cfg, const space *s, const build *b);

#endif
