/* merge.h: `autotune merge`: joins the CSVs of sharded runs (--shard I/N) into one run's outputs. */
#ifndef AUTOTUNE_MERGE_H
#define AUTOTUNE_MERGE_H

#include "cli.h"

/* Runs the subcommand; returns the exit status (cli.h), messages on stderr. */
int cmd_merge(const options *o);

#endif
