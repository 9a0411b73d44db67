/* show.h: `autotune show`: a results CSV as a table on the terminal. */
#ifndef AUTOTUNE_SHOW_H
#define AUTOTUNE_SHOW_H

#include <stdio.h>

#include "cli.h"
#include "diag.h"

/* Runs the subcommand; returns the exit status (cli.h), messages on stderr. */
int cmd_show(const options *o);

/* The table of csv_path on out: top rows (0: all; of each instance when the results are of
 * several) sorted by the named column (NULL: by time, failures last; a leading '-' sorts
 * descending), with a speedup column against the configuration baseline names ("bx=128 by=8";
 * NULL: none), ANSI colour when colour is set. Returns EXIT_WINNER, or EXIT_USAGE with the reason
 * in d (unreadable file, unknown column, a baseline the file does not have). */
int show_print(FILE *out, const char *csv_path, int top, const char *sort, const char *baseline, int colour,
	       diags *d);

#endif
