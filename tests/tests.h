/* tests.h: one suite per engine file; tests/main.c registers them all. */
#ifndef AUTOTUNE_TESTS_H
#define AUTOTUNE_TESTS_H

int add_expr_suite(void);
int add_config_suite(void);
int add_space_suite(void);
int add_compile_suite(void);
int add_occupancy_suite(void);
int add_output_suite(void);
int add_proc_suite(void);
int add_cli_suite(void);
int add_stats_suite(void);
int add_select_suite(void);
int add_resume_suite(void);
int add_cli_bad_input_suite(void);
int add_cache_suite(void);
int add_import_suite(void);
int add_journal_suite(void);
int add_search_suite(void);
int add_gpus_suite(void);
int add_table_suite(void);
int add_report_suite(void);
int add_show_suite(void);
int add_header_suite(void);
int add_progress_suite(void);
int add_docs_suite(void);
int add_help_suite(void);

/* This run's scratch directory, removed when the tests end. */
extern char test_dir[64];

/* Writes text to a fresh file in test_dir and returns its path (static storage, overwritten by
 * the next call with the same slot). */
const char *write_temp(int slot, const char *name, const char *text);

/* Lines of the file that contain needle; -1 when it cannot be read. */
int count_in(const char *path, const char *needle);

/* Starts argv (autotune), waits until `journal` has `done` finished configurations (at most 60 s),
 * then kills its process group with SIGKILL, as a user's kill -9 or a lost node would. -1 when it
 * cannot start. */
int kill_when_journaled(char *const argv[], const char *journal, int done);

/* A file's first 64 KiB as a string (caller frees), or NULL. */
char *read_text(const char *path);

#endif
