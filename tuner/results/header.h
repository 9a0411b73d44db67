/* header.h: the tuned header (NAME_tuned.h) and make fragment (NAME.mk), written from results CSVs
 * alone: the tuning run and `autotune header` share this one writer. */
#ifndef AUTOTUNE_HEADER_H
#define AUTOTUNE_HEADER_H

#include <stddef.h>

#include "cli.h"
#include "diag.h"
#include "recipe.h" /* HEADER_SIGNATURE, header_mk_path */

/* Writes the header at out and the fragment beside it (header_mk_path) from the results CSVs.
 * One CSV: the winner's values. Several (one GPU model each): a section per GPU, chosen by
 * -DAUTOTUNE_TARGET_<GPU>, and a default for other devices: the configuration with the lowest
 * geometric mean of time / fastest time on each device among those that passed on all.
 * name: the macro prefix, or NULL for the config the results name (its `name:`, else its file
 * name; else the base name of out). out: NULL for that config's output.header.
 * Returns an exit status: 0 written, 1 a CSV has no winner, 2 bad input or not writable (d says). */
int header_write(char *const *csvs, size_t n, const char *name, const char *out, diags *d);

/* header_write for results files of any format: a CSV, or a T4 or Kernel Tuner cache file read
 * through the config at config_path (NULL: the one the file names, as autotune's T4 does). */
int header_write_results(char *const *files, size_t n, const char *config_path, const char *name, const char *out,
			 diags *d);


/* Runs the subcommand; returns the exit status (cli.h), messages on stderr. */
int cmd_header(const options *o);

#endif
