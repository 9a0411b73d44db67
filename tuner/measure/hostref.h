/* hostref.h: verify.host made loadable. The user's C function is called by a small generated
 * caller with the kernel's arguments in order; both are built by the host compiler into a shared
 * object that the worker loads and calls once, on the inputs as filled. */
#ifndef AUTOTUNE_HOSTREF_H
#define AUTOTUNE_HOSTREF_H

#include "diag.h"
#include "protocol.h"

typedef struct config config;

/* The caller's C text (exporting PROTO_HOSTREF_SYMBOL) for cfg's arguments: arrays as pointers to their element type (void * for
 * vector types), scalars as the values the config gives them, exactly (floats in hex). Caller
 * frees. */
char *hostref_caller(const config *cfg);

/* Builds cfg's verify.host into dir/hostref.so with the host compiler (`cc`, or $AUTOTUNE_HOST_CC):
 * cfg->host.so set, 0. -1 with the compiler's messages in d, said at verify.host, when it does
 * not build (a signature that does not take the kernel's arguments is such an error). */
int hostref_build(config *cfg, const char *dir, diags *d);

#endif
