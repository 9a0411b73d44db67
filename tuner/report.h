/* report.h: `autotune report`: a self-contained HTML report of a results CSV. */
#ifndef AUTOTUNE_REPORT_H
#define AUTOTUNE_REPORT_H

#include "cli.h"

/* Runs the subcommand; returns the exit status (cli.h), messages on stderr. */
int cmd_report(const options *o);

#endif
