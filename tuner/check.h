/* check.h: `autotune check`: is the kernel in a built program, object or cubin the tuned one? */
#ifndef AUTOTUNE_CHECK_H
#define AUTOTUNE_CHECK_H

#include <stdio.h>

#include "cli.h"
#include "diag.h"

/* Exit statuses of check (README.md, autotune.1 and its help say the same) */
enum { CHECK_TUNED = 0, CHECK_DIFFERS = 1, CHECK_BAD_INPUT = 2 };

/* Finds each winner of the results files (CSV, nresults of them) in the binary at path (a host
 * program or object with embedded device code, a fatbinary, a cubin) by its kernel_hash, whatever
 * the kernel is called there. A line per winner on out: "tuned", or what differs. Returns
 * CHECK_TUNED when every winner is there, CHECK_DIFFERS when one is not, CHECK_BAD_INPUT with
 * the reason in d when a file cannot be read or results do not record kernel hashes. */
int check_binary(const char *path, char *const *results, size_t nresults, FILE *out, diags *d);

/* Runs the subcommand: operands BINARY [RESULTS ...] (default: results/ *.csv). */
int cmd_check(const options *o);

#endif
