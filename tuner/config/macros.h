/* macros.h: the tuned header's macro names (NAME_PARAM). The loader refuses a config whose
 * macros would clash, the header writer writes them: one rule for both, below both. */
#ifndef AUTOTUNE_MACROS_H
#define AUTOTUNE_MACROS_H

#include <stddef.h>

/* NAME_PARAM in upper case, non-alphanumerics as '_': the macro for a parameter. Caller frees. */
char *macro_name(const char *config_name, const char *param);
/* Whether a macro's suffix after NAME_ is one the header defines for itself (with a plan, its
 * host-side choices too). */
int macro_reserved(const char *suffix, int plan);
/* Why the tuned header of these parameters could not be written (a parameter's macro is one the
 * header defines, or two parameters make one macro), with the parameter in *at and the other in
 * *other (SIZE_MAX: none); NULL when it can. Caller frees. */
char *macro_clash(const char *config_name, char *const *params, size_t n, int plan, size_t *at, size_t *other);

#endif
