/* t4.h: results interchange with other autotuners. A results CSV is written as a T4 results file
 * (the autotuning community's JSON format: odgaard/TuningSchema, results-schema.json), and T4
 * files and Kernel Tuner cache files are read back as a config's results table, with the CSV's
 * columns, so that replay and `autotune header` take them as they take a CSV. */
#ifndef AUTOTUNE_T4_H
#define AUTOTUNE_T4_H

/* near the start of every T4 file (autotune's, or another tool's): a file a rewrite may replace */
#define T4_SIGNATURE "\"schema_version\""

#include "diag.h"
#include "space.h"
#include "table.h"

typedef struct config config;

/* Writes the T4 file of the results CSV at csv_path to path (to a temporary name, then renamed):
 * one result per row that was compiled or measured (not-run rows are left out), its invalidity
 * from the status (ok: "correct"), runtimes the time that decides, every numeric column as a
 * measurement with its unit, and the CSV's other fields in an "autotune" object, from which
 * t4_load gives the CSV's row back. -1 with the reason in d. */
int t4_write(const char *csv_path, const char *path, diags *d);

/* 1 when path holds JSON (its first byte other than white space is '{'), 0 when it does not,
 * -1 when it cannot be read (d says why). */
int results_is_json(const char *path, diags *d);

/* A T4 results file or a Kernel Tuner cache file (one left unclosed by an interrupted run
 * included, with a note on stderr) as the results table of cfg: one row per result whose
 * configuration is in sp, parameters in the config's order and then the CSV's columns. Values
 * the file lacks come from the config where it decides them (launch geometry, nvcc flags, the
 * config's path). -1 with "file:line:col: reason" in d: not JSON, neither format, a parameter
 * missing or not the config's, a value that is not a number. */
int t4_load(const char *path, const config *cfg, const space *sp, table *t, diags *d);

/* Any results file as a table: a CSV as table_load reads it; a T4 or cache file through t4_load
 * with the config at config_path, or, when NULL, the one its results name (autotune's T4). */
int results_load(const char *path, const char *config_path, table *t, diags *d);

#endif
