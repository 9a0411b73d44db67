/* journal.h: the record of a tuning run on disk, appended and synced one configuration at a
 * time, so that a crash, kill -9 or power cut loses at most the configuration in flight, and
 * the same command resumes where the last one stopped. */
#ifndef AUTOTUNE_JOURNAL_H
#define AUTOTUNE_JOURNAL_H

#include "diag.h"
#include "result.h"
#include "reuse.h"
#include "runner.h"
#include "space.h"

typedef struct journal journal;


/* What a run is measured from, part by part ("config=H kernel=H data=H compiler=H target=H gpu=H"):
 * earlier results count only under the same config file, kernel source, data files, compiler
 * (identity), target, first GPU and driver, and number of GPUs. Caller frees. */
char *journal_run_inputs(const config *cfg, const char *identity, const char *arch, const device_info *gpu0,
			 size_t ngpus);
/* The key of a run's journal: the hash of its inputs. Caller frees. */
char *journal_key_of(const char *inputs);
/* journal_key_of(journal_run_inputs(...)). Caller frees. */
char *journal_run_key(const config *cfg, const char *identity, const char *arch, const device_info *gpu0, size_t ngpus);

/* Takes the lock of the results whose journal is at path (PATH.lock, holding this process's id)
 * for as long as the journal is open: one run at a time, real or dry, writes a set of results.
 * NULL with the reason (the other run's pid) in d when another run holds it. The journal itself
 * is not opened: journal_start does that. */
journal *journal_lock(const char *path, diags *d);

/* -1 with both named in d when the locked journal j belongs to another config than config_path
 * that still exists (two configs of one name, or one output.csv); else 0. */
int journal_check_owner(const journal *j, const char *config_path, diags *d);

/* Opens (creates) the locked journal j for results identified by key, as journal_open does, and
 * records inputs (journal_run_inputs) and the config at config_path it belongs to (each may be
 * NULL); a journal of another config that still exists is refused, naming both. 0, or -1 with the
 * reason in d (j stays locked; journal_close lets go of it). */
int journal_start(journal *j, const char *key, const char *inputs, const char *config_path, int fresh, const space *sp,
		  result *res, journal_resume *resume, diags *d);

/* journal_lock, then journal_start. Opens (creates) the journal at path for results identified by
 * key. Unless fresh, a journal
 * with the same key is replayed into res: finished results are restored and a configuration that
 * was in flight is marked crashed (and journaled so). NULL with the reason in d when the file
 * cannot be written. */
journal *journal_open(const char *path, const char *key, int fresh, const space *sp, result *res,
		      journal_resume *resume, diags *d);

/* Whether an earlier run, whatever its key (an edit of the config or kernel since), measured
 * something of identity ident (plan_identity): then its measurement (status, times, counters,
 * the GPU that ran it, its code and identity; not finalist rounds) into r, r->reused set, and 1;
 * else 0. What --fresh opened finds nothing. */
int journal_reuse(journal *j, const char *ident, result *r);

/* Each appends one line and syncs it to disk; -1 when the write fails (disk full), the record
 * then taken back whole. */
int journal_started(journal *j, size_t config);
int journal_finished(journal *j, size_t config, const result *r);
int journal_final(journal *j, size_t config, const result *r);
int journal_metrics(journal *j, size_t config, const result *r);
/* config was measured on the run's GPU number gpu (not the first) */
int journal_gpu(journal *j, size_t config, int gpu);
/* config's binary took nvcc `seconds` (this run compiled it) */
int journal_compiled(journal *j, size_t config, double seconds);
/* config was in flight when a signal from outside stopped its worker: measured again on resume,
 * not counted as crashed */
int journal_stopped(journal *j, size_t config);
/* config was not measured: it runs the same binary and launch as `twin`, whose result it shares */
int journal_shared(journal *j, size_t config, size_t twin);

/* Why the first append that failed did, in words ("writing the journal 'P' failed: No space left
 * on device (the disk is full)"; an fsync's EIO is said to be an I/O error), or NULL while none
 * has. Caller frees. */
char *journal_failure(const journal *j);

void journal_close(journal *j);

#endif
