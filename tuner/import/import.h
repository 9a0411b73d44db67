/* import.h: `autotune import FILE.json`: a Kernel Tuner / KTT "T1" tuning spec turned into an
 * autotune config, so existing specs can be reused. */
#ifndef AUTOTUNE_IMPORT_H
#define AUTOTUNE_IMPORT_H

#include "diag.h"

/* Reads the T1 JSON at json_path and writes the equivalent YAML config to yaml_path (next to it,
 * so relative kernel paths keep working), then checks it as `autotune validate` does. 0 on
 * success; -1 with every problem in d, as file:line:col where it has one. A spec that cannot be
 * converted writes nothing; a config that was written but is not valid (a kernel file that is not
 * there, a constraint that overflows) stays, for the messages name its lines. */
int import_t1(const char *json_path, const char *yaml_path, diags *d);

#endif
