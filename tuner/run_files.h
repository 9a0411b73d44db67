/* run_files.h: the files a tuning run writes, for tune.c. */
#ifndef AUTOTUNE_RUN_FILES_H
#define AUTOTUNE_RUN_FILES_H

#include "cli.h"
#include "diag.h"

typedef struct config config;

/* Whether path may be written: not a file autotune refuses to replace, its directory made and
 * writable; -1 with the reason in d. */
int run_check_output_path(const char *path, diags *d);
/* The T4 file beside the CSV when --t4 or output.t4 asks for one (caller frees), else NULL. */
char *run_t4_path(const config *cfg, const options *o);
/* Every file the run writes may be written, none is one of its inputs, no two are one file, and
 * the CSV there is not another config's: -1 with the first problem in d. */
int run_check_outputs(const config *cfg, const options *o, diags *d);
/* Removes the "<output>.tmp.<pid>" files of runs that were killed while they renamed their
 * outputs (their process is gone); call it under the results' lock. */
void run_reclaim_outputs(const config *cfg, const options *o);
/* Removes what this user's killed runs left in tmp (their process is gone): their work
 * directories and the element files of older versions. */
void run_reclaim_workdirs(const char *tmp);

#endif
