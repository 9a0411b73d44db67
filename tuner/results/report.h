/* report.h: `autotune report`: a self-contained HTML report of a results CSV (inline SVG and CSS,
 * no scripts, nothing fetched), also written at the end of every tuning run. */
#ifndef AUTOTUNE_REPORT_H
#define AUTOTUNE_REPORT_H

/* in every report's head: a file a rewrite may replace */
#define REPORT_SIGNATURE "<title>autotune report: "

#include "cli.h"
#include "diag.h"

/* Runs the subcommand; returns the exit status (cli.h), messages on stderr. */
int cmd_report(const options *o);

/* Writes the report of csv_path to html_path (NULL: the CSV's path with .html for .csv), to a
 * temporary name then renamed. params: "X,Y", the heat map's two columns, or NULL for the block
 * shape (or the first columns that vary). 0 on success; -1 with the reason in d. */
int report_write(const char *csv_path, const char *html_path, const char *params, diags *d);

/* The default report path of a results CSV; caller frees. */
char *report_default_path(const char *csv_path);

#endif
