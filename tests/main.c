/* main.c: the CUnit runner for everything that needs no GPU: the unit tier (`make unit`, no CUDA
 * toolkit) and the integration tier (the real nvcc); `make test` runs both. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <CUnit/CUnit.h>
#include <CUnit/TestRun.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "tests.h"

#define SUITE(f) int f(void);
#include "suites.h"
#undef SUITE

char test_dir[64];

/* The suites run in a mirror of the checkout at root, made in test_dir: each of its top-level
 * entries a symbolic link, but results/ a directory of its own. A run under test that writes its
 * default outputs (results/NAME.csv, relative to where it runs) writes them there, never over the
 * measured results of the checkout. 0, or -1 with the reason on stderr. */
static int enter_mirror(const char *root)
{
	char mirror[160], link[PATH_MAX + 300], target[PATH_MAX + 300];
	snprintf(mirror, sizeof mirror, "%s/checkout", test_dir);
	DIR *dir = mkdir(mirror, 0700) == 0 ? opendir(root) : NULL;
	if (!dir) {
		perror(mirror);
		return -1;
	}
	int rc = 0;
	for (struct dirent *e; rc == 0 && (e = readdir(dir));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "results"))
			continue;
		snprintf(link, sizeof link, "%s/%s", mirror, e->d_name);
		snprintf(target, sizeof target, "%s/%s", root, e->d_name);
		if ((rc = symlink(target, link)))
			perror(link);
	}
	closedir(dir);
	/* results/, and scratch/ where the suites keep their files (DIR "scratch/NAME" in each) */
	snprintf(link, sizeof link, "%s/results", mirror);
	if (rc == 0 && (mkdir(link, 0700) || chdir(mirror) || mkdir("scratch", 0700))) {
		perror(link);
		rc = -1;
	}
	return rc;
}

/* The nvcc each suite compiles with: the unit tier's tests/fake_nvcc.c (absolute: a test may run
 * autotune elsewhere), the integration tier's the one the runner was given (NVCC), else found. */
static char fake_nvcc[PATH_MAX], *real_nvcc;
/* Where each failure is listed again (SUITE:TEST, then the assertion), for the end of the run. */
static FILE *failures;
static double test_started;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Set as each suite starts: a unit suite needs no CUDA toolkit, whatever the environment says. */
static void suite_starts(const CU_pSuite s)
{
	if (!suite_is_integration(s))
		setenv("NVCC", fake_nvcc, 1);
	else if (real_nvcc)
		setenv("NVCC", real_nvcc, 1);
	else
		unsetenv("NVCC");
	printf("Suite: %s\n", s->pName);
}

static void test_starts(const CU_pTest t, const CU_pSuite s)
{
	(void)s;
	printf("  Test: %s ...", t->pName);
	fflush(stdout);
	test_started = now();
}

/* Each test's outcome, its time when it is long enough to matter, each failed assertion. */
static void test_completes(const CU_pTest t, const CU_pSuite s, const CU_pFailureRecord first)
{
	CU_pFailureRecord f = first;
	double took = now() - test_started;
	printf("%s", f ? "FAILED" : "passed");
	if (took >= 0.5)
		printf(" (%.1f s)", took);
	printf("\n");
	for (int i = 1; f; f = f->pNext, i++) {
		printf("    %d. %s:%u  - %s\n", i, f->strFileName ? f->strFileName : "", f->uiLineNumber,
		       f->strCondition ? f->strCondition : "");
		fprintf(failures, "%s:%s\n    %s:%u  - %s\n", s->pName, t->pName, f->strFileName ? f->strFileName : "",
			f->uiLineNumber, f->strCondition ? f->strCondition : "");
	}
	fflush(failures);
}

static void suite_fails(const CU_pSuite s)
{
	printf("  the suite's set-up or clean-up FAILED\n");
	fprintf(failures, "%s: its set-up or clean-up failed\n", s->pName);
}

/* Runs suite number idx in a process of its own, with a scratch directory and a mirror of its own
 * (so that suites running at once share no file), its output to `out` (NULL: stdout). The
 * process's exit status: 0 when every test passed, 1 when any failed. */
static pid_t start_suite(CU_pSuite s, size_t idx, const char *root, const char *top, const char *out)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	char cache[96];
	snprintf(test_dir, sizeof test_dir, "%.48s/s%zu", top, idx); /* top is shorter (main) */
	snprintf(cache, sizeof cache, "%s/cache", test_dir);
	setenv("XDG_CACHE_HOME", cache, 1);
	int fd = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600) : 1;
	if (fd < 0 || (out && (dup2(fd, 1) < 0 || dup2(fd, 2) < 0)) || mkdir(test_dir, 0700) || enter_mirror(root))
		_exit(1);
	if (out)
		close(fd);
	setvbuf(stdout, NULL, _IOLBF, 0);
	CU_run_suite(s);
	const CU_RunSummary *r = CU_get_run_summary();
	fflush(stdout);
	_exit(r->nTestsFailed || r->nSuitesFailed || r->nAssertsFailed ? 1 : 0);
}

/* Each suite's time in the last run that ran it, a line "SECONDS NAME" each (as ninja keeps its
 * log): the longest start first, so that no long suite is left to run alone at the end. */
static const char times_path[] = "build/tests/suite-times";

/* The time of each of the n suites of list in times_path; one not there yet counts as the longest. */
static void load_times(CU_pSuite *list, size_t n, double *took)
{
	FILE *f = fopen(times_path, "r");
	char line[600], name[512];
	double t;
	for (size_t i = 0; i < n; i++)
		took[i] = 1e9;
	while (f && fgets(line, sizeof line, f))
		for (size_t i = 0; sscanf(line, "%lf %511[^\n]", &t, name) == 2 && i < n; i++)
			if (!strcmp(list[i]->pName, name))
				took[i] = t;
	if (f)
		fclose(f);
}

/* times_path again: the lines of suites not run kept, the n run written with their new times. */
static void save_times(CU_pSuite *list, size_t n, const double *took)
{
	char *old = read_text(times_path), tmp[64];
	snprintf(tmp, sizeof tmp, "%s.%ld", times_path, (long)getpid());
	FILE *f = fopen(tmp, "w");
	for (char *line = old, *eol; f && line && *line; line = eol ? eol + 1 : line + strlen(line)) {
		eol = strchr(line, '\n');
		char name[512];
		double t;
		int ran = 0;
		if (sscanf(line, "%lf %511[^\n]", &t, name) == 2)
			for (size_t i = 0; i < n && !ran; i++)
				ran = !strcmp(list[i]->pName, name);
		if (!ran)
			fprintf(f, "%.*s\n", (int)(eol ? eol - line : (long)strlen(line)), line);
	}
	for (size_t i = 0; f && i < n; i++)
		fprintf(f, "%.2f %s\n", took[i], list[i]->pName);
	if (f && fclose(f) == 0)
		rename(tmp, times_path);
	free(old);
}

/* Runs the suites, `jobs` at a time, each in a process of its own, the longest first (by their
 * last times); a suite's output is shown when it ends (as it goes with one job). The number of
 * suites that failed. */
static int run_suites(CU_pSuite *list, size_t n, int jobs, const char *root)
{
	char top[64];
	snprintf(top, sizeof top, "%s", test_dir);
	pid_t *pid = calloc(n, sizeof *pid);
	double *took = calloc(n, sizeof *took), *started = calloc(n, sizeof *started);
	size_t *order = calloc(n, sizeof *order), next = 0, running = 0;
	load_times(list, n, took);
	for (size_t i = 0; i < n; i++) {
		size_t k = i;
		for (; k > 0 && took[order[k - 1]] < took[i]; k--)
			order[k] = order[k - 1];
		order[k] = i;
	}
	int failed = 0;
	while (next < n || running > 0) {
		if (next < n && running < (size_t)jobs) {
			size_t i = order[next++];
			char out[128];
			snprintf(out, sizeof out, "%s/s%zu.out", top, i);
			started[i] = now();
			pid[i] = start_suite(list[i], i, root, top, jobs > 1 ? out : NULL);
			running += pid[i] > 0;
			failed += pid[i] < 0;
			continue;
		}
		int st;
		pid_t done = wait(&st);
		if (done < 0)
			break;
		for (size_t i = 0; i < n; i++)
			if (pid[i] == done) {
				running--;
				took[i] = now() - started[i];
				failed += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
				if (!WIFEXITED(st))
					fprintf(failures, "%s: its process ended by signal %d\n", list[i]->pName, WTERMSIG(st));
				char out[128], *text;
				snprintf(out, sizeof out, "%s/s%zu.out", top, i);
				if (jobs > 1 && (text = read_text(out))) {
					fputs(text, stdout);
					free(text);
				}
			}
	}
	save_times(list, n, took);
	free(pid);
	free(took);
	free(started);
	free(order);
	return failed;
}

/* Makes only the suites and tests that args name active (SUITE or SUITE:TEST), or with none named,
 * those of the tier (-1 every suite, 0 the unit tier, 1 the integration tier). 0, or -1 when a
 * name matches nothing (said on stderr). */
static int select_tests(char **names, int n, int tier)
{
	for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext) {
		CU_set_suite_active(s, n == 0 && (tier < 0 || suite_is_integration(s) == tier));
		for (CU_pTest t = s->pTest; t; t = t->pNext)
			CU_set_test_active(t, n == 0);
	}
	for (int i = 0; i < n; i++) {
		char suite[512];
		const char *colon = strchr(names[i], ':');
		snprintf(suite, sizeof suite, "%.*s", colon ? (int)(colon - names[i]) : (int)strlen(names[i]), names[i]);
		CU_pSuite s = CU_get_suite(suite);
		CU_pTest t = s && colon ? CU_get_test(s, colon + 1) : NULL;
		if (!s || (colon && !t)) {
			fprintf(stderr, "run_tests: no %s named '%s'\n", s ? "test" : "suite", s ? colon + 1 : suite);
			return -1;
		}
		CU_set_suite_active(s, CU_TRUE);
		for (CU_pTest u = s->pTest; u; u = u->pNext)
			if (!colon || u == t)
				CU_set_test_active(u, CU_TRUE);
	}
	return 0;
}

/* Registers every suite, runs those selected (select_tests) and lists the failures again at the
 * end, where a log's tail (CI's) has them. 0 when all passed, 1 when any failed, 2 for a name
 * that matches nothing. */
static int run(char **names, int n, int tier, int jobs, const char *root)
{
	/* every tests/test_*.c's add_*_suite, as the Makefile finds them (suites.h) */
	int (*suites[])(void) = {
#define SUITE(f) f,
#include "suites.h"
#undef SUITE
	};
	for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++)
		if (suites[i]()) {
			fprintf(stderr, "cannot register a test suite: %s\n", CU_get_error_msg());
			return 1;
		}
	if (select_tests(names, n, tier))
		return 2;
	CU_pSuite list[256];
	size_t count = 0, tests = 0;
	for (CU_pSuite s = CU_get_registry()->pSuite; s && count < 256; s = s->pNext)
		if (s->fActive) {
			list[count++] = s;
			for (CU_pTest t = s->pTest; t; t = t->pNext)
				tests += t->fActive != 0;
		}
	CU_set_fail_on_inactive(CU_FALSE); /* what is not selected is not a failure */
	CU_set_suite_start_handler(suite_starts);
	CU_set_test_start_handler(test_starts);
	CU_set_test_complete_handler(test_completes);
	CU_set_suite_init_failure_handler(suite_fails);
	CU_set_suite_cleanup_failure_handler(suite_fails);
	char path[128];
	snprintf(path, sizeof path, "%s/failures", test_dir);
	if (!(failures = fopen(path, "w+")))
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0); /* under make and CI stdout is a pipe */
	double t0 = now();
	int failed = run_suites(list, count, jobs, root);
	printf("\n%zu tests in %zu suites, %d suites failed, %.1f s with %d jobs\n", tests, count, failed, now() - t0, jobs);
	if (failed) {
		char *text = read_text(path);
		printf("\nFailures:\n%s", text ? text : "");
		free(text);
	}
	fclose(failures);
	return failed ? 1 : 0;
}

static const char usage[] =
	"usage: run_tests [-j JOBS] [--unit | --integration] [SUITE | SUITE:TEST]...\n"
	"  -j JOBS        suites run at once, each in a process of its own (default: twice the CPUs)\n"
	"  --unit         the suites that need no CUDA toolkit and no GPU (make unit)\n"
	"  --integration  the suites that compile with the real nvcc\n"
	"  SUITE          a suite by its name (as CU_add_suite gives it), SUITE:TEST one of its tests\n"
	"With neither tier nor name, every suite; a unit suite always compiles with build/fake_nvcc.\n";

int main(int argc, char **argv)
{
	int tier = -1, first = 1;
	/* twice the CPUs: the suites spend much of their time waiting (on children, deadlines, a
	 * worker's sleep), and on 2 CPUs 4 jobs took the unit tier from 30 s to 16 s */
	long jobs = 2 * sysconf(_SC_NPROCESSORS_ONLN);
	for (; first < argc && argv[first][0] == '-'; first++)
		if (!strcmp(argv[first], "--unit"))
			tier = 0;
		else if (!strcmp(argv[first], "--integration"))
			tier = 1;
		else if (!strcmp(argv[first], "-j") && first + 1 < argc && (jobs = atol(argv[first + 1])) > 0)
			first++;
		else if (!strncmp(argv[first], "-j", 2) && (jobs = atol(argv[first] + 2)) > 0)
			continue;
		else {
			int help = !strcmp(argv[first], "--help");
			fputs(usage, help ? stdout : stderr);
			return help ? 0 : 2;
		}
	char root[PATH_MAX];
	if (!getcwd(root, sizeof root) || !realpath("build/fake_nvcc", fake_nvcc)) {
		fprintf(stderr, "run_tests: build/fake_nvcc: %s (make build/fake_nvcc; run from the repository root)\n",
			strerror(errno));
		return 1;
	}
	const char *given = getenv("NVCC");
	real_nvcc = given && *given ? strdup(given) : NULL;
	/* the runs under test keep their cubin cache, copy-bandwidth note and files to themselves,
	 * in one directory of this run's own (a suite's in sN/ there), removed at the end */
	const char *tmp = getenv("TMPDIR");
	snprintf(test_dir, sizeof test_dir, "%s/autotune-test-XXXXXX", tmp && *tmp && strlen(tmp) < 24 ? tmp : "/tmp");
	if (!mkdtemp(test_dir)) {
		perror(test_dir);
		return 1;
	}
	int rc = 1;
	if (CU_initialize_registry() == CUE_SUCCESS) {
		rc = run(argv + first, argc - first, tier, jobs > 64 ? 64 : (int)(jobs < 1 ? 1 : jobs), root);
		CU_cleanup_registry();
	}
	char *out = NULL;
	proc_capture((char *[]){"rm", "-rf", test_dir, NULL}, 30, &out);
	free(out);
	free(real_nvcc);
	return rc;
}
