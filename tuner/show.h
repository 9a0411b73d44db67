/* show.h: `autotune show`: a results CSV as a table on the terminal. */
#ifndef AUTOTUNE_SHOW_H
#define AUTOTUNE_SHOW_H

#include "cli.h"

/* Runs the subcommand; returns the exit status (cli.h), messages on stderr. */
int cmd_show(const options *o);

#endif
