/* signals.c: SIGINT (Ctrl-C) and SIGTERM (kill, and what Slurm sends at a job's time limit,
 * before SIGKILL) during a tuning run. */
#define _GNU_SOURCE
#include "signals.h"

#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc.h"
#include "banned.h"

volatile sig_atomic_t interrupted;
/* exit_at_once: the run has measured nothing and has nothing half-written (a file, the journal,
 * the cache); quiet_stop keeps the word such an end says */
static volatile sig_atomic_t exit_at_once, quiet_stop;
static char lock_file[PATH_MAX], worker_log[PATH_MAX];

/* Async-signal-safe throughout: kill, stat, unlink, write and _exit. */
static void on_stop_signal(int sig)
{
	if (exit_at_once) {
		static const char term[] = "autotune: terminated before anything was measured: nothing written\n",
				  intr[] = "autotune: interrupted before anything was measured: nothing written\n";
		struct stat st;
		proc_kill_all();
		if (*worker_log && stat(worker_log, &st) == 0 && st.st_size == 0)
			unlink(worker_log);
		if (*lock_file)
			unlink(lock_file);
		if (!quiet_stop) {
			ssize_t said = write(STDERR_FILENO, sig == SIGTERM ? term : intr,
					     sig == SIGTERM ? sizeof term - 1 : sizeof intr - 1);
			(void)said;
		}
		_exit(128 + sig);
	}
	/* the second one stops at once, and takes every nvcc and worker along */
	if (interrupted) {
		proc_kill_all();
		_exit(128 + sig);
	}
	interrupted = sig;
}

void signals_install(int quiet)
{
	quiet_stop = quiet;
	signal(SIGINT, on_stop_signal);
	signal(SIGTERM, on_stop_signal);
}

void signals_at_once(int on)
{
	exit_at_once = on;
	if (on && interrupted > 0)
		on_stop_signal(interrupted);
}

void signals_lock_file(const char *path) { snprintf(lock_file, sizeof lock_file, "%s", path); }

void signals_worker_log(const char *path) { snprintf(worker_log, sizeof worker_log, "%s", path); }
