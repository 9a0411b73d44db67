/* tests.h: one suite per engine file (tests/test_<module>.c); tests/main.c registers them all,
 * and tests/tests.c holds the helpers below that several suites share. */
#ifndef AUTOTUNE_TESTS_H
#define AUTOTUNE_TESTS_H

#include <CUnit/CUnit.h>
#include <sys/types.h>

#include "expr.h"
typedef struct space space;

typedef struct config config;

/* This run's scratch directory (mkdtemp), removed when the tests end. The suites run in its
 * checkout/, a mirror of the repository: their own files go under scratch/ there. */
extern char test_dir[64];

/* Two tiers. A suite of the unit tier (CU_add_suite) compiles with tests/fake_nvcc.c, which the
 * runner names in NVCC as the suite starts: no CUDA toolkit, no GPU. A suite of the integration
 * tier, registered here and named "NAME/nvcc" by convention, gets the real nvcc (the runner's NVCC,
 * else found as autotune finds it). `make unit` runs the first, `make test` both. */
CU_pSuite add_integration_suite(const char *name, CU_InitializeFunc init, CU_CleanupFunc cleanup);
int suite_is_integration(CU_pSuite s);

/* Writes text to a fresh file in test_dir and returns its path (static storage, overwritten by
 * the next call with the same slot). */
const char *write_temp(int slot, const char *name, const char *text);

/* Lines of the file that contain needle; -1 when it cannot be read. */
int count_in(const char *path, const char *needle);
/* Unsets every knob of tests/fake_worker.c (and AUTOTUNE_WORKER): a suite that sets them leaves
 * the next one as it found it, whatever the order the suites run in. */
int fake_worker_forget(void);

/* Starts argv (autotune), waits until `journal` has `done` finished configurations (at most 60 s),
 * then kills its process group with SIGKILL, as a user's kill -9 or a lost node would. -1 when it
 * cannot start. */
int kill_when_journaled(char *const argv[], const char *journal, int done);

/* A file's first 64 KiB as a string (caller frees), or NULL. */
char *read_text(const char *path);

/* This process's CPU seconds so far: for tests of how time grows with the input, which the wall
 * clock of a machine loaded by other processes would make flaky. */
double cpu_seconds(void);

/* Sleeps 20 ms: the step of a test's polling loop. */
void nap(void);
/* Whether process pid has ended (gone, or dead and not yet reaped: a zombie whose parent, often
 * init, reaps it when it gets to it), waiting for that up to 60 s: an event, not a time. */
int process_ended(pid_t pid);
/* Whether process pid took signal sig sent to it (no longer pending: its handler runs), waiting for
 * that up to 60 s. Two of one signal sent before the first is taken are one. */
int signal_taken(pid_t pid, int sig);

/* A child of parent whose command name is comm, from /proc; 0 when there is none. */
pid_t child_named(pid_t parent, const char *comm);

/* What this process writes on stderr from stderr_begin() to stderr_end() goes to a scratch file,
 * and stderr_end() returns it (caller frees); messages a test checks, or noise it expects. */
void stderr_begin(void);
char *stderr_end(void);

/* A minimal valid config of 14 lines (the loader's suites replace one line to make one problem):
 * a kernel of /dev/null, the constant n, an array and a scalar, bx in [32, 64, 128], a launch. */
extern const char *const config_good;
/* config_good with line `line` (1-based) replaced (static storage, overwritten by the next call). */
char *config_with_line(int line, const char *replacement);
/* Loads text as a config; the number of diagnostics, the first in *first (caller frees, NULL when
 * none). */
int config_load_text(const char *text, config *cfg, char **first);
/* Asserts that loading text fails, its first error ending in ":line:col: <message...>". */
void config_expect_error(const char *text, int line, int col, const char *message);

/* Writes text to path, replacing what was there. */
void put_file(const char *path, const char *text);
/* Writes n bytes to path (byte k is k % 251), replacing what was there. */
void put_bytes(const char *path, size_t n);
/* Writes an .npy file of format version major (1, 2 or 3) to path as numpy would: the magic,
 * the header dict (a Python dict's text) padded to 64 bytes, then data_bytes bytes as
 * put_bytes writes them. Returns the data's offset in the file. */
size_t put_npy(const char *path, int major, const char *dict, size_t data_bytes);

/* Runs ./autotune args (at most 19) with files limited to blocks * 512 bytes each (ulimit -f),
 * SIGXFSZ left at its default: its exit status (128 + signal when killed) or -1; output in *out. */
int run_autotune_limited(char *const args[], int blocks, char **out);
/* rm -rf dir */
void remove_dir(const char *dir);
/* Runs ./autotune args (at most 14): its exit status or -1; its output in *output (NULL: dropped). */
int run_autotune(char *const args[], char **output);
/* run_autotune of extra (NULL, or at most 13 arguments) and then config. */
int run_autotune_on(char *config, char *const extra[], char **output);

/* Writes dir/NAME.yaml: k(float *a, int n = 4096) of dir/KERNEL, the space_build lines; no results. */
char *write_named_config(const char *dir, const char *name, const char *kernel, const char *space_build);
/* Writes dir/k.cu (one store per thread) and dir/NAME.yaml of it over `space` (YAML: the
 * parameters bx and cap), capped at cap registers, no finalists or counters; the results reset
 * for the fake worker. Returns the config's path (static storage). */
char *write_capped_config(const char *dir, const char *name, const char *space);
/* Writes dir/NAME.yaml and dir/k.cu: one binary, bx 32..640 by 32, extra_measure (NULL or ", k: v"). */
char *write_space_config(const char *dir, const char *name, const char *extra_measure);
/* Removes dir/NAME's results and dir/runs.log; the fake worker, no knob set, logs to dir/runs.log. */
void fake_worker_reset(const char *dir, const char *name);
/* Whether csv has exactly one row for each bx of 32, 64, .., 32 * nconfigs, and no other. */
int each_row_once(const char *csv, int nconfigs);
/* How many rows such a CSV lists (a run that stopped, or a search, lists fewer), each bx at most
 * once; -1 when one repeats or is not of the space. */
int rows_once(const char *csv, int nconfigs);
/* The CSV's winning row's first two fields ("bx,cap"), or "" (static storage). */
const char *winner_of(const char *path);
/* Writes config NAME of kernel_text, space and defines (slots 0, 1); its dry run's CSV in csv; the
 * config's path. */
const char *defines_config(const char *name, const char *kernel_text, const char *space, const char *defines,
			   char *csv, size_t csvlen);

/* Names for expressions (nx 1024, ny 768, zero 0, scale 0.5, BLOCK_M 64); counts calls in *(int *)ctx. */
int table_lookup(void *ctx, const char *name, value *out);
/* Parses and evaluates src with table_lookup: 0, else non-zero and the error in *err. */
int expr_run(const char *src, value *out, expr_error *err);
/* The value of src, asserted (fatally) to be an int. */
long long eval_int(const char *src);
/* The value of src, asserted (fatally) to be a float. */
double eval_float(const char *src);
/* Asserts that src fails to parse, at `offset`, with a message containing `msg`. */
void check_parse_error(const char *src, int offset, const char *msg);

/* A results CSV of 2 x 3 block shapes: three pass ((32,1) twice), two only fail, (64,4) is absent. */
extern const char *const crafted_csv;
/* A whole file as a string (caller frees), or NULL. */
char *slurp(const char *path);
/* How many times needle stands in hay, not overlapping. */
size_t occurrences(const char *hay, const char *needle);
/* The text of the element that starts with open, up to close (caller frees; "" when none). */
char *between(const char *hay, const char *open, const char *close);
/* The HTML report of csv (--params params, NULL: the default), asserted written (caller frees). */
char *report_of(const char *csv, const char *params);

/* The search strategies' synthetic space, written to the temporary file name and loaded (0, else
 * -1 with the diagnostics printed), and a bowl over it: its minimum 1.0 at x=16, y=4, z=3, plus
 * failing configurations (x * y == 32, INFINITY). */
int search_bowl_space(const char *name, config *cfg, space *sp);
double search_bowl(const space *sp, size_t c);

/* Copies tests/t1/published/DIR/SPEC into test_dir/published/DIR/, with its KernelFile (the copy
 * in tests/ where there is one, else empty) and KTT's tutorial's data file (zeros): the path of
 * the copy (static storage). */
const char *published_copy(const char *dir, const char *spec);

/* Every recorded exhaustive run in tests/data and the config it is a run of: {config, CSV}. */
#define TEST_RECORDINGS 10
extern const char *const test_recordings[TEST_RECORDINGS][2];
/* The H200's recordings of three of those spaces, transfer's sources: {config, CSV, its twin}. */
#define TEST_TRANSFERS 3
extern const char *const test_transfers[TEST_TRANSFERS][3];

#endif
