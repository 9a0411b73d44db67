/* summary.h: the tuning run's closing words on stderr (summary.c). */
#ifndef AUTOTUNE_SUMMARY_H
#define AUTOTUNE_SUMMARY_H

#include "cli.h"
#include "binary.h"
#include "result.h"
#include "select.h"
#include "completeness.h"
#include "space.h"

typedef struct config config;

/* A dry run's table: each configuration's registers, spills, shared memory and occupancy (for
 * compute capability cc), and with a plan each further launch's on a line of its own. */
void summary_dry_run(const options *o, const config *cfg, const space *sp, const build *b, const result *res, int cc);
/* One compile log per failed binary (not per configuration), the stopped ones left out. */
void summary_failures(const config *cfg, const space *sp, const build *b);
/* The space, the binaries and the compile time; of a run, the count per status. */
void summary_counts(const config *cfg, const space *sp, const build *b, const result *res, double compile_s, int dry);
/* One or two lines on why the winner won: its numbers, and who was tied with it and lost. */
void summary_winner(const config *cfg, const space *sp, const result *res, const choice *c, const select_policy *p);
/* Which configuration the outputs were checked against and how it was chosen, and whether it may
 * be the odd one out (measure_opts.reference_note's lines; nothing for NULL). */
void summary_reference(const char *note);
/* A run that did not measure its whole space says so, and how to go on: "2 of 52 configurations
 * measured, interrupted: resume with the same command" (nothing for a complete or dry run). */
void summary_run(const run_extent *run);
/* The last lines: where the results, the header, the report and the T4 file (NULL: none) went
 * (so they end the screen). */
void summary_paths(const config *cfg, int header, int report, const char *t4, const options *o);

#endif
