/* build_flags.h: the flags that make a configuration's binary what it is, the one list that the
 * compile stage gives nvcc and that the results record for a user's build to repeat. */
#ifndef AUTOTUNE_BUILD_FLAGS_H
#define AUTOTUNE_BUILD_FLAGS_H

#include <stddef.h>

#include "expr.h"

typedef struct config config;

/* The flags that make a configuration's binary what it is, in the order nvcc gets them: -rdc=true
 * (build.rdc); per parameter its register cap and its -D (build.defines); build.include's -I when
 * with_includes; build.flags; build.defines' constants. The tuned header's recipe repeats them
 * (without the -I, which are paths of the tuning run), so a build that does compiles the same
 * binary. NULL-terminated, *n strings; caller frees each and the array. */
char **build_flags(const config *cfg, const value *vals, int with_includes, size_t *n);

/* build_flags() without the include directories, joined by spaces: what a user's build
 * must repeat to compile a configuration's binary ("-maxrregcount=64 -DTILE=16 -O3"); "" when
 * none. A flag with a character that a shell or nvcc's --options-file would split or interpret
 * is in double quotes ("-DPAIR=(1, 2)"), so the text is the same words to both. Caller frees. */
char *build_flags_text(const config *cfg, const value *vals);

#endif
