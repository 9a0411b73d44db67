/* import_out.h: the config `autotune import` writes, for import.c. */
#ifndef AUTOTUNE_IMPORT_OUT_H
#define AUTOTUNE_IMPORT_OUT_H

#include <stddef.h>

#include "diag.h"

/* The first line of every config an import writes: a later import may replace such a file. */
#define IMPORT_MARK "# Imported from the T1 spec "

/* Writes text (len bytes) to yaml_path, unless that is a file an import did not write, then
 * checks it as `validate` does: 0, or -1 with the messages in d (the file is kept when it fails
 * the check, since the messages point into it). */
int import_write(const char *json_path, const char *yaml_path, const char *text, size_t len, diags *d);

#endif
