/* header.h: `autotune header`: the tuned header and make fragment from one or more results CSVs. */
#ifndef AUTOTUNE_HEADER_H
#define AUTOTUNE_HEADER_H

#include "cli.h"

/* Runs the subcommand; returns the exit status (cli.h), messages on stderr. */
int cmd_header(const options *o);

#endif
