/* test_signals.c: how SIGINT and SIGTERM stop a tuning run (signals.c), each case in a child
 * process of its own: the first signal is noted and the second ends the run; while nothing is
 * being written, the first ends it at once (128 + the signal), saying so, with the journal's lock
 * and an empty worker log removed; a signal noted before that stretch ends the run as it begins.
 * (Whole runs stopped at each stage: test_tune.c.) */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "signals.h"
#include "tests.h"

/* The exit status of a child that runs body (its stderr into err when given); -1 when it was not
 * an exit. */
static int child_status(void (*body)(void), const char *err)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = err ? open(err, O_WRONLY | O_CREAT | O_TRUNC, 0666) : -1;
		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		body();
		_exit(0);
	}
	int st;
	CU_ASSERT_FATAL(pid > 0 && waitpid(pid, &st, 0) == pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char lock[256], empty_log[256], full_log[256];

static void at_once_term(void)
{
	signals_lock_file(lock);
	signals_worker_log(empty_log);
	signals_install(0);
	signals_at_once(1);
	raise(SIGTERM);
	_exit(1); /* not reached */
}

static void at_once_int_quiet(void)
{
	signals_worker_log(full_log);
	signals_install(1);
	signals_at_once(1);
	raise(SIGINT);
	_exit(1);
}

static void test_a_signal_while_nothing_is_written_ends_the_run_at_once(void)
{
	snprintf(lock, sizeof lock, "%s/x.journal.lock", test_dir);
	snprintf(empty_log, sizeof empty_log, "%s/x.worker.log", test_dir);
	snprintf(full_log, sizeof full_log, "%s/y.worker.log", test_dir);
	char err[256];
	snprintf(err, sizeof err, "%s/err", test_dir);
	put_file(lock, "4242\n");
	put_file(empty_log, "");
	put_file(full_log, "the worker said something\n");
	CU_ASSERT_EQUAL(child_status(at_once_term, err), 143);
	CU_ASSERT_EQUAL(access(lock, F_OK), -1);
	CU_ASSERT_EQUAL(access(empty_log, F_OK), -1);
	char *said = slurp(err);
	CU_ASSERT_STRING_EQUAL(said ? said : "", "autotune: terminated before anything was measured: nothing written\n");
	free(said);
	/* quiet: nothing said; a log with something in it stays */
	CU_ASSERT_EQUAL(child_status(at_once_int_quiet, err), 130);
	CU_ASSERT_EQUAL(access(full_log, F_OK), 0);
	said = slurp(err);
	CU_ASSERT_STRING_EQUAL(said ? said : "", "");
	free(said);
}

static void noted_then_second(void)
{
	signals_install(1);
	signals_at_once(0);
	raise(SIGTERM);
	if (interrupted != SIGTERM)
		_exit(1);
	raise(SIGTERM);
	_exit(2); /* not reached */
}

static void noted_then_at_once(void)
{
	signals_install(1);
	signals_at_once(0);
	raise(SIGINT);
	if (interrupted != SIGINT)
		_exit(1);
	signals_at_once(1);
	_exit(2);
}

static void test_the_first_signal_is_noted_and_the_second_ends_the_run(void)
{
	CU_ASSERT_EQUAL(child_status(noted_then_second, NULL), 143);
	/* noted while the run wrote; the stretch where nothing is written ends it as it begins */
	CU_ASSERT_EQUAL(child_status(noted_then_at_once, NULL), 130);
}

int add_signals_suite(void)
{
	CU_pSuite s = CU_add_suite("signals", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "a signal while nothing is written ends the run at once",
		    test_a_signal_while_nothing_is_written_ends_the_run_at_once);
	CU_add_test(s, "the first signal is noted and the second ends the run",
		    test_the_first_signal_is_noted_and_the_second_ends_the_run);
	return 0;
}
