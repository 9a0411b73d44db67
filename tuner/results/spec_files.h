/* spec_files.h: the files a config's spec hash covers (the config, the kernel source, the headers
 * it includes from the project, verify.host's source, the data files), each with the hash of its
 * contents. Results keep that list beside them (NAME.csv.spec), so that `validate` and `header` can
 * name the file that made them stale. */
#ifndef AUTOTUNE_SPEC_FILES_H
#define AUTOTUNE_SPEC_FILES_H

#include <stddef.h>

#include "binary.h"
#include "diag.h"
#include "includes.h"

typedef struct config config;

/* Every file of the spec: the config, the kernel source, the headers, the data files. */
void spec_files_of(const config *cfg, spec_files *out);

/* Where results at csv_path keep their spec's files: "<csv_path>.spec". Caller frees. */
char *spec_files_path(const char *csv_path);

/* Writes the list beside the results at csv_path (NULL: none written, nothing to do) with the spec
 * hash it makes, each path relative to the list's directory, so that a checkout moved elsewhere
 * still reads it. One that cannot be written is a warning: the results stand without it. With the
 * build b (NULL: none), a file of the project that nvcc read (the cache's dependency lists) and
 * that the list lacks is warned of: an #include the spec hash cannot follow. */
void spec_files_keep(const config *cfg, const char *spec_hash, const char *csv_path, const build *b);

/* Why results tuned with spec hash `was` (at csv_path) are stale now that the spec's hash is
 * `now`: "kernels/x.h changed" and the like, from the list kept beside them; NULL when there is
 * none (results older than it) or it names no difference. Caller frees. */
char *spec_files_stale(const config *cfg, const char *csv_path, const char *was);

/* validate: when the config's results exist and are of another spec, a warning on stderr that they
 * are stale, naming the files that made them so (spec_files_stale). The config itself is valid. */
void spec_files_say_stale(const config *cfg);

#endif
