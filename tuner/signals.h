/* signals.h: how SIGINT and SIGTERM stop a tuning run, for tune.c. The first is noted in
 * `interrupted`: the run stops after the configuration in flight and writes what it measured.
 * The second ends it at once, taking every nvcc and worker along. While nothing is being written
 * (signals_at_once), the first ends it at once too: a step may take seconds on a space of
 * millions, and there is nothing to write. */
#ifndef AUTOTUNE_SIGNALS_H
#define AUTOTUNE_SIGNALS_H

#include <signal.h>

/* the signal that asked the run to stop, or 0 (a journal that failed is measure_opts' own) */
extern volatile sig_atomic_t interrupted;

/* Handles SIGINT and SIGTERM from now on; quiet: a run ended at once says nothing. */
void signals_install(int quiet);
/* From now (on) a signal ends the run at once, one that came before too; or (0) no longer: the
 * run writes from here (the journal, the cache, its results). */
void signals_at_once(int on);
/* What a run ended at once would leave behind, removed then: the journal's lock file (this
 * process holds it), and the worker's log when nothing is in it. */
void signals_lock_file(const char *path);
void signals_worker_log(const char *path);

#endif
