/* test_journal.c: the journal's records survive a reopen, a torn last line (the tuner died
 * inside a write) is cut off, another key starts afresh, and a configuration left in flight comes
 * back as crashed. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "journal.h"
#include "output.h"
#include "proc.h"
#include "tests.h"

#define PATH "scratch/test.journal"

static void fresh_results(result *res, size_t n)
{
	memset(res, 0, n * sizeof *res);
	for (size_t i = 0; i < n; i++) {
		res[i].shares_with = -1;
		res[i].driver_blocks = -1;
		for (int m = 0; m < METRIC_COUNT; m++)
			res[i].metrics[m] = NAN;
	}
}

static void free_results(result *res, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(res[i].message);
}

static void test_records_replay_and_a_torn_line_is_cut(void)
{
	space sp = {.nparams = 1, .count = 4};
	result res[4];
	journal_resume jr;
	diags d = {0};
	unlink(PATH);
	fresh_results(res, 4);
	journal *j = journal_open(PATH, "00000000000000aa", 0, &sp, res, &jr, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	result ok = {.st = ST_OK, .t_median = 1.5, .t_min = 1.4, .t_max = 1.6, .samples = 20, .noise = 0.001, .batch = 1};
	memcpy(ok.code, "0123456789abcdef", 17);
	ok.message = "two\nlines \\ here";
	journal_started(j, 0);
	journal_finished(j, 0, &ok);
	ok.final_rounds = 7;
	ok.final_median = 1.45;
	ok.final_noise = 0.0005;
	journal_final(j, 0, &ok);
	journal_shared(j, 1, 0);
	journal_started(j, 2); /* in flight when "the tuner died" */
	journal_started(j, 3);
	journal_close(j);
	/* a torn record: the process died in the middle of writing it (3 finished, 2 did not) */
	FILE *f = fopen(PATH, "a");
	fputs("done 3 0123456789abcdef ok 1.0", f);
	fclose(f);

	fresh_results(res, 4);
	j = journal_open(PATH, "00000000000000aa", 0, &sp, res, &jr, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_EQUAL(jr.finished, 2); /* 0 and its sharer 1 */
	CU_ASSERT_EQUAL(jr.in_flight, 1);
	CU_ASSERT_EQUAL(res[0].st, ST_OK);
	CU_ASSERT_DOUBLE_EQUAL(res[0].t_median, 1.5, 1e-12);
	CU_ASSERT_STRING_EQUAL(res[0].code, "0123456789abcdef");
	CU_ASSERT_STRING_EQUAL(res[0].message, "two\nlines \\ here");
	CU_ASSERT_EQUAL(res[0].final_rounds, 7);
	CU_ASSERT_EQUAL(res[1].shares_with, 0);
	CU_ASSERT_EQUAL(res[2].st, ST_CRASHED);
	CU_ASSERT(res[2].lost_in_flight);
	/* the torn record did not count, and 3 is measured again: it finished, the tuner did not */
	CU_ASSERT_EQUAL(res[3].st, ST_NOT_RUN);
	CU_ASSERT_FALSE(res[3].lost_in_flight);
	journal_close(j);
	/* the torn tail is gone from the file; the crash found on replay is now a record */
	f = fopen(PATH, "r");
	char buf[4096];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = 0;
	fclose(f);
	CU_ASSERT_PTR_NULL(strstr(buf, "done 3"));
	CU_ASSERT_PTR_NULL(strstr(buf, "done 3 - crashed"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "done 2 - crashed"));
	CU_ASSERT_EQUAL(buf[n - 1], '\n');
	free_results(res, 4);
	diags_free(&d);
}

/* A binary's compile seconds come back with its result; a damaged one is dropped, not trusted. */
static void test_compile_seconds_replay(void)
{
	space sp = {.nparams = 1, .count = 3};
	result res[3];
	journal_resume jr;
	diags d = {0};
	unlink(PATH);
	fresh_results(res, 3);
	journal *j = journal_open(PATH, "00000000000000ab", 0, &sp, res, &jr, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	result ok = {.st = ST_OK, .t_median = 1.5, .t_min = 1.4, .t_max = 1.6, .samples = 20, .noise = 0.001, .batch = 1};
	memcpy(ok.code, "0123456789abcdef", 17);
	for (size_t c = 0; c < 2; c++) {
		journal_started(j, c);
		journal_finished(j, c, &ok);
	}
	CU_ASSERT_EQUAL(journal_compiled(j, 0, 12.345), 0);
	journal_close(j);
	FILE *f = fopen(PATH, "a");
	fputs("compiled 1 nan\n", f);
	fclose(f);
	fresh_results(res, 3);
	j = journal_open(PATH, "00000000000000ab", 0, &sp, res, &jr, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_DOUBLE_EQUAL(res[0].compile_s, 12.345, 1e-9);
	CU_ASSERT_EQUAL(res[1].compile_s, 0);
	CU_ASSERT_EQUAL(res[1].st, ST_OK);
	journal_close(j);
	free_results(res, 3);
	diags_free(&d);
}

static void test_another_key_starts_afresh(void)
{
	space sp = {.nparams = 1, .count = 2};
	result res[2];
	journal_resume jr;
	diags d = {0};
	fresh_results(res, 2);
	journal *j = journal_open(PATH, "00000000000000bb", 0, &sp, res, &jr, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT(jr.key_changed);
	CU_ASSERT_EQUAL(jr.finished, 0);
	CU_ASSERT_EQUAL(res[0].st, ST_NOT_RUN);
	journal_close(j);
	/* --fresh ignores a matching journal too */
	fresh_results(res, 2);
	j = journal_open(PATH, "00000000000000bb", 1, &sp, res, &jr, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_EQUAL(jr.finished, 0);
	journal_close(j);
	unlink(PATH);
	free_results(res, 2);
	diags_free(&d);
}

/* Records that parse but hold what no passing measurement can (damaged on disk) are not trusted:
 * the configuration is measured again, and nothing of the record is kept. */
static void test_implausible_records_are_measured_again(void)
{
	static const char *const lines[] = {
		"done 0 0123456789abcdef ok nan 1.4 1.6 20 4 0.001 1 1980 1980 \n",
		"done 1 0123456789abcdef ok 1.5 1.4 1.6 -3 4 0.001 1 1980 1980 \n",
		"done 2 0123456789abcdef ok 1.5 1.7 1.6 20 4 0.001 1 1980 1980 \n",
		"done 3 0123456789abcdef ok 1.5 1.4 1.6 20 4 0.001 1 1980 1980 \nfinal 3 7 inf 0.001\n",
		"done 4 0123456789abcdef wrong-result nan nan nan 0 -1 nan 1 1980 1980 out[3] = 2\n",
	};
	FILE *f = fopen(PATH, "w");
	fputs("autotune-journal 1 00000000000000cc\n", f);
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
		fputs(lines[i], f);
	fclose(f);
	space sp = {.nparams = 1, .count = 5};
	result res[5];
	journal_resume jr;
	diags d = {0};
	fresh_results(res, 5);
	stderr_begin();
	journal *j = journal_open(PATH, "00000000000000cc", 0, &sp, res, &jr, &d);
	char *err = stderr_end();
	CU_ASSERT_PTR_NOT_NULL(strstr(err, ":2: a result with impossible times"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, ":6: finalist rounds with an impossible time"));
	free(err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(res[i].st, ST_NOT_RUN);
		CU_ASSERT_EQUAL(res[i].t_median, 0); /* untouched */
		CU_ASSERT_EQUAL(res[i].samples, 0);
	}
	CU_ASSERT_EQUAL(res[3].st, ST_OK); /* its measurement stands; the final record does not */
	CU_ASSERT_EQUAL(res[3].final_rounds, 0);
	CU_ASSERT_EQUAL(res[4].st, ST_WRONG_RESULT); /* a failure has no times to check */
	CU_ASSERT_EQUAL(jr.finished, 2);
	journal_close(j);
	unlink(PATH);
	free_results(res, 5);
	diags_free(&d);
}

/* Counter values out of their range (occupancy 1e300, inf, over 100%) and clocks that no GPU has
 * are not replayed, each with a warning naming the journal's line; nan (a counter not available)
 * and values in range are. */
static void test_impossible_counters_are_refused_by_line(void)
{
	static const char *const text =
		"autotune-journal 1 00000000000000cc\n"
		"done 0 0123456789abcdef ok 1.5 1.4 1.6 20 4 0.001 1 1980 1980 \n"
		"metrics 0 1e300 50 1e9 20 100\n"
		"done 1 0123456789abcdef ok 1.5 1.4 1.6 20 4 0.001 1 1980 1980 \n"
		"metrics 1 inf 50 1e9 20 100\n"
		"done 2 0123456789abcdef ok 1.5 1.4 1.6 20 4 0.001 1 1980 1980 \n"
		"metrics 2 140 50 1e9 20 100\n"
		"done 3 0123456789abcdef ok 1.5 1.4 1.6 20 4 0.001 1 1980 1980 \n"
		"metrics 3 75 nan 1e9 -2 100\n"
		"done 4 0123456789abcdef ok 1.5 1.4 1.6 20 4 0.001 1 inf 1980 \n"
		"done 5 0123456789abcdef ok 1.5 1.4 1.6 20 4 0.001 1 1980 1980 \n"
		"metrics 5 75 nan 1e9 20 100\n";
	put_file(PATH, text);
	space sp = {.nparams = 1, .count = 6};
	result res[6];
	journal_resume jr;
	diags d = {0};
	fresh_results(res, 6);
	stderr_begin();
	journal *j = journal_open(PATH, "00000000000000cc", 0, &sp, res, &jr, &d);
	char *err = stderr_end();
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	for (int i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(res[i].st, ST_OK); /* the times stand; the counters do not */
		CU_ASSERT_EQUAL(res[i].have_metrics, 0);
	}
	CU_ASSERT_EQUAL(res[4].st, ST_NOT_RUN); /* a clock of inf MHz */
	CU_ASSERT_EQUAL(res[5].have_metrics, 1);
	CU_ASSERT_EQUAL(res[5].metrics[0], 75);
	CU_ASSERT(isnan(res[5].metrics[1]));
	static const int bad[] = {3, 5, 7, 9, 10};
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
		char at[64];
		snprintf(at, sizeof at, "%s:%d: ", PATH, bad[k]);
		if (!strstr(err, at))
			fprintf(stderr, "\n  no warning for line %d: %s\n", bad[k], err);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, at));
	}
	CU_ASSERT_PTR_NULL(strstr(err, ":12: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "counter values out of their range"));
	free(err);
	journal_close(j);
	unlink(PATH);
	free_results(res, 6);
	diags_free(&d);
}

/* A configuration in flight when a tuner died is marked crashed, and stays a crash of that kind
 * on every later resume: not measured again without --retry-failed, as the message says (its
 * journaled record has no code, which made the next resume take it for stale and measure it). */
static void test_a_crash_in_flight_stays_one_on_every_resume(void)
{
	put_file(PATH, "autotune-journal 1 00000000000000cc\n"
		       "start 0\ndone 0 0123456789abcdef ok 1.5 1.4 1.6 20 4 0.001 1 1980 1980 \nstart 1\n");
	space sp = {.nparams = 1, .count = 2};
	for (int round = 0; round < 3; round++) {
		result res[2];
		journal_resume jr;
		diags d = {0};
		fresh_results(res, 2);
		journal *j = journal_open(PATH, "00000000000000cc", 0, &sp, res, &jr, &d);
		CU_ASSERT_PTR_NOT_NULL_FATAL(j);
		CU_ASSERT_EQUAL(res[1].st, ST_CRASHED);
		CU_ASSERT_EQUAL(res[1].lost_in_flight, 1);
		CU_ASSERT_EQUAL(jr.in_flight, round == 0);
		CU_ASSERT_EQUAL(res[0].lost_in_flight, 0);
		journal_close(j);
		free_results(res, 2);
		diags_free(&d);
	}
	unlink(PATH);
}

/* A journal in a directory of its own with configuration 0 started and its result ready to be
 * journaled (res[0]): what the tests of failing writes break. */
typedef struct {
	char dir[64], path[96];
	space sp;
	result res[2];
	journal_resume jr;
	diags d;
	journal *j;
} started_one;

static void start_one(started_one *s, const char *name)
{
	memset(s, 0, sizeof *s);
	snprintf(s->dir, sizeof s->dir, "/tmp/autotune-journal-%s-XXXXXX", name);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(s->dir));
	snprintf(s->path, sizeof s->path, "%s/%s.journal", s->dir, name);
	s->sp = (space){.nparams = 1, .count = 2};
	fresh_results(s->res, 2);
	s->j = journal_open(s->path, "00000000000000cc", 0, &s->sp, s->res, &s->jr, &s->d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s->j);
	CU_ASSERT_PTR_NULL(journal_failure(s->j));
	CU_ASSERT_EQUAL(journal_started(s->j, 0), 0);
	s->res[0].st = ST_OK;
	s->res[0].t_median = s->res[0].t_min = s->res[0].t_max = 1;
	s->res[0].samples = s->res[0].batch = 1;
}

/* The journal's text as it stands (caller frees); then closed, the directory gone. */
static char *start_one_end(started_one *s)
{
	char *text = read_text(s->path);
	journal_close(s->j);
	unlink(s->path);
	rmdir(s->dir);
	free_results(s->res, 2);
	diags_free(&s->d);
	return text;
}

/* A journal that cannot be written says why in the system's words, not a guess ("disk full?"):
 * here a file size limit, EFBIG, as a full disk gives ENOSPC; the record that failed is not left
 * half-written, and a "start" whose result could not be journaled is taken back, so that the
 * configuration is measured again rather than marked crashed. */
static void test_a_failed_write_is_said_and_taken_back(void)
{
	started_one s;
	start_one(&s, "full");
	struct stat st;
	CU_ASSERT_EQUAL_FATAL(stat(s.path, &st), 0);
	/* this process's files stop growing 10 bytes on: the result's record does not fit */
	struct rlimit was, lim;
	getrlimit(RLIMIT_FSIZE, &was);
	lim = was;
	lim.rlim_cur = (rlim_t)st.st_size + 10;
	void (*old)(int) = signal(SIGXFSZ, SIG_IGN);
	setrlimit(RLIMIT_FSIZE, &lim);
	int rc = journal_finished(s.j, 0, &s.res[0]);
	setrlimit(RLIMIT_FSIZE, &was);
	signal(SIGXFSZ, old);
	CU_ASSERT_EQUAL(rc, -1);
	char *why = journal_failure(s.j);
	CU_ASSERT_PTR_NOT_NULL(why && strstr(why, "writing the journal '"));
	CU_ASSERT_PTR_NOT_NULL(why && strstr(why, "File too large (the file size limit (ulimit -f) is reached)"));
	free(why);
	char *text = start_one_end(&s);
	CU_ASSERT_PTR_NOT_NULL(text);
	CU_ASSERT_PTR_NULL(text ? strstr(text, "start 0") : NULL);
	CU_ASSERT_PTR_NULL(text ? strstr(text, "done 0") : NULL);
	CU_ASSERT(text && *text && text[strlen(text) - 1] == '\n');
	free(text);
}

/* The test runner's fsync goes through here (the Makefile links it with -Wl,--wrap=fsync): a disk
 * that fails a sync, on demand. */
int __real_fsync(int fd);
static int fsync_fails;
int __wrap_fsync(int fd)
{
	if (fsync_fails) {
		errno = EIO;
		return -1;
	}
	return __real_fsync(fd);
}

/* An EIO from fsync is the disk failing, said as such, not as a full disk; the record is taken
 * back as for a failed write. */
static void test_a_failed_sync_is_an_io_error(void)
{
	started_one s;
	start_one(&s, "eio");
	fsync_fails = 1;
	int rc = journal_finished(s.j, 0, &s.res[0]);
	fsync_fails = 0;
	CU_ASSERT_EQUAL(rc, -1);
	char *why = journal_failure(s.j);
	CU_ASSERT_PTR_NOT_NULL(why && strstr(why, "syncing the journal '"));
	CU_ASSERT_PTR_NOT_NULL(why && strstr(why, "(an I/O error: the disk or its filesystem is failing)"));
	CU_ASSERT_PTR_NULL(why ? strstr(why, "full") : NULL);
	free(why);
	char *text = start_one_end(&s);
	CU_ASSERT_PTR_NULL(text ? strstr(text, "done 0") : NULL);
	free(text);
}

/* A file size limit (ulimit -f) makes every write past it fail with EFBIG in the autotune started
 * under it, as ENOSPC does on a full disk (autotune ignores SIGXFSZ: a size limit is a write
 * that fails, not the end of the run). */
/* in test_dir: runs of the suites at once never share it */
static char full_dir[128];

/* full_dir's file `name`, in one of four buffers (so one expression may hold several) */
static const char *full(const char *name)
{
	static char paths[4][192];
	static int next;
	char *p = paths[next++ % 4];
	snprintf(p, sizeof paths[0], "%s%s", full_dir, name);
	return p;
}

/* The journal fails after some results: the run stops there, exit 4, the journal's results kept
 * and named; the same command then measures only the rest. */
static void test_a_full_disk_keeps_the_journal_and_exits_4(void)
{
	snprintf(full_dir, sizeof full_dir, "%s/full-disk", test_dir);
	remove_dir(full_dir);
	char *config = write_space_config(full_dir, "full", NULL);
	fake_worker_reset(full_dir, "full");
	char cache[192], journal_at[192], failed[320], kept[256];
	snprintf(cache, sizeof cache, "%s", full("/cache"));
	snprintf(journal_at, sizeof journal_at, "%s", full("/full.journal"));
	snprintf(failed, sizeof failed, "writing the journal '%s' failed: File too large", journal_at);
	snprintf(kept, sizeof kept, "kept in %s", journal_at);
	char *args[] = {"--cache-dir", cache, config, NULL}, *out;
	/* the cubins cached first: under the limit nothing but the journal and outputs is written */
	CU_ASSERT_EQUAL_FATAL(run_autotune(args, &out), 0);
	free(out);
	fake_worker_reset(full_dir, "full");
	int rc = run_autotune_limited(args, 3, &out);
	CU_ASSERT_EQUAL(rc, 4);
	int done = count_in(journal_at, "done ");
	CU_ASSERT(done > 0 && done < 20);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, failed));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, kept));
	CU_ASSERT_PTR_NULL(strstr(out, "disk full?"));
	/* the summary says why the run is incomplete, not that the results do not say */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "configurations measured, stopped: the journal could not be written"));
	CU_ASSERT_PTR_NULL(strstr(out, "an older file?"));
	if (rc != 4 || !(done > 0 && done < 20))
		fprintf(stderr, "\n  exit %d, %d done: %s\n", rc, done, out);
	free(out);
	CU_ASSERT_EQUAL(access(full("/full.csv"), F_OK), -1);
	/* no record cut in half: every line of the journal is whole */
	char *text = read_text(journal_at);
	CU_ASSERT(text && *text && text[strlen(text) - 1] == '\n');
	free(text);
	unlink(full("/runs.log"));
	CU_ASSERT_EQUAL(run_autotune(args, &out), 0);
	free(out);
	/* the rest, and the reference once more for its outputs */
	CU_ASSERT_EQUAL(count_in(full("/runs.log"), " check "), 20 - done);
	CU_ASSERT_EQUAL(count_in(full("/full.csv"), ",ok,"), 20);
	fake_worker_forget();
	remove_dir(full_dir);
}

/* A plan's result keeps the connections it was measured with and its serial time, written with
 * its "done" in one write; a record of other connections than the configuration's now is not
 * taken. The run key holds the connections a plan without its own takes from the environment. */
static void test_a_plans_serial_time_and_connections_replay(void)
{
	space sp = {.nparams = 1, .count = 2};
	result res[2];
	journal_resume jr;
	diags d = {0};
	unlink(PATH);
	fresh_results(res, 2);
	journal *j = journal_open(PATH, "00000000000000dd", 0, &sp, res, &jr, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	result ok = {.st = ST_OK, .t_median = 1.5, .t_min = 1.4, .t_max = 1.6, .samples = 20, .noise = 0.001, .batch = 1,
		     .streams = 8, .breadth_first = 1, .connections = 32, .serial_ms = 12.25};
	memcpy(ok.code, "0123456789abcdef", 17);
	journal_finished(j, 0, &ok);
	ok.connections = 8;
	journal_finished(j, 1, &ok);
	journal_close(j);
	char *text = read_text(PATH);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nplan 0 32 12.250000\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nplan 1 8 12.250000\n"));
	free(text);
	fresh_results(res, 2);
	res[0].connections = 32;
	res[1].connections = 1; /* measured with 8: not this configuration's plan */
	j = journal_open(PATH, "00000000000000dd", 0, &sp, res, &jr, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_EQUAL(jr.finished, 2);
	CU_ASSERT_DOUBLE_EQUAL(res[0].serial_ms, 12.25, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(res[1].serial_ms, 0, 0);
	journal_close(j);
	free_results(res, 2);
	unlink(PATH);
	/* the key: a plan's default connections count, another config's do not */
	config cfg;
	char *first;
	CU_ASSERT_EQUAL_FATAL(config_load_text(config_good, &cfg, &first), 0);
	free(first);
	device_info gpu = {.driver_version = 13000};
	snprintf(gpu.name, sizeof gpu.name, "Fake GPU");
	char *plain = journal_run_key(&cfg, "nvcc", "sm_90", &gpu, 1);
	cfg.plan.default_connections = 4;
	char *still = journal_run_key(&cfg, "nvcc", "sm_90", &gpu, 1);
	cfg.plan.nlaunches = 1;
	char *four = journal_run_key(&cfg, "nvcc", "sm_90", &gpu, 1);
	cfg.plan.default_connections = 8;
	char *eight = journal_run_key(&cfg, "nvcc", "sm_90", &gpu, 1);
	cfg.plan.nlaunches = 0;
	CU_ASSERT_STRING_EQUAL(plain, still);
	CU_ASSERT_STRING_NOT_EQUAL(four, eight);
	free(plain);
	free(still);
	free(four);
	free(eight);
	config_free(&cfg);
	diags_free(&d);
}

static void test_unwritable_journal_is_reported(void)
{
	space sp = {.nparams = 1, .count = 1};
	result res[1];
	journal_resume jr;
	diags d = {0};
	fresh_results(res, 1);
	CU_ASSERT_PTR_NULL(journal_open("/proc/autotune/x.journal", "00000000000000cc", 0, &sp, res, &jr, &d));
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "cannot write the journal '/proc/autotune/x.journal'"));
	diags_free(&d);
}

/* A journal records the config it belongs to: another config that opens it is refused, naming
 * both, and the journal stays as it was; the same config (by another path) resumes. */
static void test_a_journal_belongs_to_one_config(void)
{
	space sp = {.nparams = 1, .count = 2};
	result res[2];
	journal_resume jr;
	diags d = {0};
	unlink(PATH);
	const char *a = write_temp(4, "a.yaml", "name: x\n"), *b = write_temp(5, "b.yaml", "name: x\n");
	fresh_results(res, 2);
	journal *j = journal_lock(PATH, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_EQUAL(journal_start(j, "00000000000000ee", "config=1 kernel=2", a, 0, &sp, res, &jr, &d), 0);
	CU_ASSERT_EQUAL(journal_started(j, 0), 0);
	journal_close(j);
	char *before = slurp(PATH);
	CU_ASSERT_PTR_NOT_NULL_FATAL(before);
	j = journal_lock(PATH, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_EQUAL(journal_check_owner(j, b, &d), -1);
	CU_ASSERT_EQUAL(journal_start(j, "00000000000000ee", "config=1 kernel=2", b, 0, &sp, res, &jr, &d), -1);
	CU_ASSERT(d.n == 2 && strstr(d.msgs[0], "these results belong to ") && strstr(d.msgs[0], a) &&
		  strstr(d.msgs[0], b) && strstr(d.msgs[0], "another name: or output: {csv: ...}"));
	journal_close(j);
	char *after = slurp(PATH);
	CU_ASSERT(after && !strcmp(after, before));
	free(after);
	/* the same file, by another path: its own journal; another key says what changed */
	char *other_path = xasprintf("%s/../%s/%s", test_dir, strrchr(test_dir, '/') + 1, strrchr(a, '/') + 1);
	j = journal_open(PATH, "00000000000000ff", 0, &sp, res, &jr, &d);
	journal_close(j);
	j = journal_lock(PATH, &d);
	CU_ASSERT_EQUAL(journal_check_owner(j, other_path, &d), 0);
	journal_close(j);
	free(other_path);
	free(before);
	free_results(res, 2);
	diags_free(&d);
	unlink(PATH);
}

/* A journal started afresh under another key says which part of the inputs changed. */
static void test_another_key_says_what_changed(void)
{
	space sp = {.nparams = 1, .count = 2};
	result res[2];
	journal_resume jr;
	diags d = {0};
	unlink(PATH);
	fresh_results(res, 2);
	const char *was = "config=0000000000000001 kernel=0000000000000002 data=0000000000000003 compiler=0000000000000004 "
			  "target=0000000000000005 gpu=0000000000000006";
	const char *now = "config=0000000000000001 kernel=00000000000000aa data=0000000000000003 compiler=0000000000000004 "
			  "target=0000000000000005 gpu=00000000000000bb";
	journal *j = journal_lock(PATH, &d);
	CU_ASSERT_EQUAL(journal_start(j, "0000000000000011", was, NULL, 0, &sp, res, &jr, &d), 0);
	CU_ASSERT_EQUAL(journal_started(j, 0), 0);
	journal_close(j);
	j = journal_lock(PATH, &d);
	CU_ASSERT_EQUAL(journal_start(j, "0000000000000022", now, NULL, 0, &sp, res, &jr, &d), 0);
	CU_ASSERT(jr.key_changed);
	CU_ASSERT_STRING_EQUAL(jr.changed, "the kernel source, the GPU or its driver");
	journal_close(j);
	free_results(res, 2);
	diags_free(&d);
	unlink(PATH);
}

/* The file a link points to, after autotune wrote where the link is: as it was. */
static void target_unchanged(const char *target, const char *want)
{
	char *text = read_text(target);
	CU_ASSERT_PTR_NOT_NULL(text);
	CU_ASSERT_STRING_EQUAL(text ? text : "", want);
	free(text);
}

/* A symbolic link where autotune writes (the journal, its lock, an output's temporary file, a
 * temporary file written atomically) is never written through: the journal and its lock are
 * refused naming the link, and a temporary file is replaced by one of autotune's own. The file
 * each link points to is left as it was. */
static void test_no_file_is_written_through_a_link(void)
{
	const char *target = "scratch/precious.txt", *jpath = "scratch/linked.journal";
	char lock[64], tmp[128];
	snprintf(lock, sizeof lock, "%s.lock", jpath);
	put_file(target, "precious\n");
	space sp = {.nparams = 1, .count = 1};
	result res[1];
	journal_resume jr;
	diags d = {0};
	fresh_results(res, 1);
	unlink(jpath);
	unlink(lock);
	CU_ASSERT_EQUAL_FATAL(symlink("precious.txt", jpath), 0);
	CU_ASSERT_PTR_NULL(journal_open(jpath, "00000000000000dd", 1, &sp, res, &jr, &d));
	CU_ASSERT(d.n == 1 && strstr(d.msgs[0], "cannot write the journal 'scratch/linked.journal': it is a symbolic link"));
	target_unchanged(target, "precious\n");
	diags_free(&d);
	unlink(jpath);
	unlink(lock);
	CU_ASSERT_EQUAL_FATAL(symlink("precious.txt", lock), 0);
	CU_ASSERT_PTR_NULL(journal_open(jpath, "00000000000000dd", 1, &sp, res, &jr, &d));
	CU_ASSERT(d.n == 1 && strstr(d.msgs[0], "its lock 'scratch/linked.journal.lock': it is a symbolic link"));
	target_unchanged(target, "precious\n");
	diags_free(&d);
	unlink(lock);
	unlink(jpath);
	/* temporary files, at the names a run would use */
	const char *out = "scratch/linked.csv";
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)getpid());
	unlink(tmp);
	CU_ASSERT_EQUAL_FATAL(symlink("precious.txt", tmp), 0);
	CU_ASSERT_EQUAL(write_output(out, "a,b\n", 4, &d), 0);
	target_unchanged(target, "precious\n");
	target_unchanged(out, "a,b\n");
	CU_ASSERT_EQUAL_FATAL(symlink("precious.txt", tmp), 0);
	char *t = NULL;
	FILE *f = output_open(out, &t, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("c,d\n", f);
	CU_ASSERT_EQUAL(output_commit(f, t, out, &d), 0);
	target_unchanged(target, "precious\n");
	target_unchanged(out, "c,d\n");
	CU_ASSERT_EQUAL(d.n, 0);
	diags_free(&d);
	unlink(out);
	unlink(target);
}

/* A journal opened under another key keeps the measurements it holds by identity ("kept"
 * records after its header), through any number of further keys; one without an identity, a
 * damaged kept record, and everything under --fresh are not kept. */
static void test_measurements_are_kept_by_identity_across_keys(void)
{
	space sp = {.nparams = 1, .count = 2};
	result res[2], r;
	journal_resume jr;
	diags d = {0};
	unlink(PATH);
	fresh_results(res, 2);
	journal *j = journal_open(PATH, "00000000000000aa", 0, &sp, res, &jr, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_EQUAL(jr.kept, 0);
	result ok = {.st = ST_OK, .t_median = 1.5, .t_min = 1.4, .t_max = 1.6, .samples = 20, .noise = 0.001, .batch = 1,
		     .final_rounds = 7, .final_median = 1.45, .gpu = 1};
	memcpy(ok.code, "0123456789abcdef", 17);
	memcpy(ok.ident, "00000000000000c1", 17);
	ok.message = "a note";
	journal_finished(j, 0, &ok);
	journal_gpu(j, 0, 1);
	ok.ident[0] = 0; /* an older autotune's: no identity */
	ok.t_median = 1.55;
	journal_finished(j, 1, &ok);
	journal_close(j);
	for (int key = 0; key < 2; key++) {
		fresh_results(res, 2);
		j = journal_open(PATH, key ? "00000000000000cc" : "00000000000000bb", 0, &sp, res, &jr, &d);
		CU_ASSERT_PTR_NOT_NULL_FATAL(j);
		CU_ASSERT(jr.key_changed);
		CU_ASSERT_EQUAL(jr.kept, 1);
		CU_ASSERT_EQUAL(res[0].st, ST_NOT_RUN); /* not by its index: the key is another */
		fresh_results(&r, 1);
		CU_ASSERT_EQUAL(journal_reuse(j, "00000000000000c2", &r), 0);
		CU_ASSERT_EQUAL(journal_reuse(j, "00000000000000c1", &r), 1);
		CU_ASSERT_EQUAL(r.st, ST_OK);
		CU_ASSERT_DOUBLE_EQUAL(r.t_median, 1.5, 1e-9);
		CU_ASSERT_EQUAL(r.samples, 20);
		CU_ASSERT_EQUAL(r.gpu, 1);
		CU_ASSERT_EQUAL(r.final_rounds, 0); /* finalists are re-timed in the run */
		CU_ASSERT(r.reused);
		CU_ASSERT_STRING_EQUAL(r.ident, "00000000000000c1");
		CU_ASSERT_STRING_EQUAL(r.message, "a note");
		free(r.message);
		journal_close(j);
	}
	CU_ASSERT_EQUAL(count_in(PATH, "kept 00000000000000c1 done 0 "), 1);
	/* a damaged kept record is not taken; a result of a configuration far into a large space is */
	FILE *f = fopen(PATH, "a");
	fputs("done 1500000000 0123456789abcdef ok 1 1 1 3 8 0.1 1 0 0 \nident 1500000000 00000000000000c9\n", f);
	fputs("kept 00000000000000c3 done 0 0123456789abcdef ok nan 1 2 3 8 0.1 1 0 0 \n", f);
	fputs("kept zz done 0 0123456789abcdef ok 1 1 1 3 8 0.1 1 0 0 \n", f);
	fclose(f);
	fresh_results(res, 2);
	j = journal_open(PATH, "00000000000000dd", 0, &sp, res, &jr, &d);
	CU_ASSERT_EQUAL(jr.kept, 2);
	fresh_results(&r, 1);
	CU_ASSERT_EQUAL(journal_reuse(j, "00000000000000c9", &r), 1);
	CU_ASSERT_EQUAL(r.samples, 3);
	free(r.message);
	journal_close(j);
	fresh_results(res, 2);
	j = journal_open(PATH, "00000000000000ee", 1, &sp, res, &jr, &d);
	CU_ASSERT_EQUAL(jr.kept, 0);
	fresh_results(&r, 1);
	CU_ASSERT_EQUAL(journal_reuse(j, "00000000000000c1", &r), 0);
	journal_close(j);
	CU_ASSERT_EQUAL(count_in(PATH, "kept "), -1); /* nothing past its header: gone */
	free_results(res, 2);
	diags_free(&d);
	unlink(PATH);
}

int add_journal_suite(void)
{
	CU_pSuite s = CU_add_suite("journal", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "records replay and a torn line is cut", test_records_replay_and_a_torn_line_is_cut);
	CU_add_test(s, "compile seconds replay", test_compile_seconds_replay);
	CU_add_test(s, "another key starts afresh", test_another_key_starts_afresh);
	CU_add_test(s, "a journal belongs to one config", test_a_journal_belongs_to_one_config);
	CU_add_test(s, "another key says what changed", test_another_key_says_what_changed);
	CU_add_test(s, "an unwritable journal is reported", test_unwritable_journal_is_reported);
	CU_add_test(s, "implausible records are measured again", test_implausible_records_are_measured_again);
	CU_add_test(s, "impossible counters are refused by line", test_impossible_counters_are_refused_by_line);
	CU_add_test(s, "a crash in flight stays one on every resume", test_a_crash_in_flight_stays_one_on_every_resume);
	CU_add_test(s, "a failed write is said and taken back", test_a_failed_write_is_said_and_taken_back);
	CU_add_test(s, "a full disk keeps the journal and exits 4", test_a_full_disk_keeps_the_journal_and_exits_4);
	CU_add_test(s, "a failed sync is an I/O error", test_a_failed_sync_is_an_io_error);
	CU_add_test(s, "a plan's serial time and connections replay", test_a_plans_serial_time_and_connections_replay);
	CU_add_test(s, "no file is written through a link", test_no_file_is_written_through_a_link);
	CU_add_test(s, "measurements are kept by identity across keys", test_measurements_are_kept_by_identity_across_keys);
	return 0;
}
