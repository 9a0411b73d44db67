/* signature.h: the config's arguments against the parameters of the compiled kernel (their count
 * and each one's size, as the binary records them: cubin_params), said before anything runs. */
#ifndef AUTOTUNE_SIGNATURE_H
#define AUTOTUNE_SIGNATURE_H

#include <stddef.h>

#include "binary.h"
#include "scope.h"

typedef struct config config;

/* The arguments a launch passes, as indexes of cfg->args, into idx (room for cfg->nargs): plan
 * launch `launch`, or with -1 the single launch's (and verify.kernel's): every argument that is
 * not constant: true, in order. Their count. */
size_t signature_args(const config *cfg, long launch, int *idx);

/* How the arguments idx[0..n) differ from the parameters of kernel `entry`, whose sizes in bytes
 * are sizes[0..nparams): NULL when they match; else the first difference (an argument whose size
 * is not its parameter's, else the counts), with the position it concerns in *at (the argument's
 * in the config; `fallback` when an argument is missing). Caller frees. */
char *signature_mismatch(const config *cfg, const int *idx, size_t n, const char *entry, const size_t *sizes,
			 size_t nparams, mark fallback, mark *at);

/* Checks the arguments each of bin's entries is passed against its parameters in the cubin; a
 * mismatch fails the binary (bad_args), its log the config's file:line:col and why. A cubin that
 * does not say is not checked (binary.unchecked). */
void signature_check_binary(const config *cfg, const build *b, binary *bin);

/* One warning on stderr, naming the kernel and how many binaries, when the parameter table of
 * any built binary could not be read (binary.unchecked): their arguments went unchecked. */
void signature_warn_unchecked(const config *cfg, const build *b);

#endif
