/* mangle.h: which compiled entry symbol a templated kernel entry names. ptxas reports entries by
 * their Itanium-mangled symbols (`_Z1kI6__halfLi256EEvPKT_PS1_i`); a config names the instance as
 * C++ writes it (`k<__half, 256>`), so the two are compared by reading the symbol's name and
 * template arguments back as C++ text. */
#ifndef AUTOTUNE_MANGLE_H
#define AUTOTUNE_MANGLE_H

#include <stddef.h>

/* Whether entry is a template-id: a name (with :: scopes) followed by <arguments>. */
int mangle_is_template_id(const char *entry);

/* Whether symbol is the kernel instance that the template-id entry names: the same (scoped) name
 * and the same arguments, types by their C++ spelling (a typedef of the CUDA headers, half for
 * __half, and the fixed-width integers of x86-64 Linux are known), numbers by value. 0 when they
 * differ or when symbol uses what this reader does not know (class templates as arguments, packs,
 * standard-library abbreviations). */
int mangle_is_instance(const char *symbol, const char *entry);

#endif
