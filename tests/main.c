/* main.c: the CUnit runner for everything that needs no GPU (`make test`). */
#include <CUnit/Basic.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc.h"
#include "tests.h"

#define SUITE(f) int f(void);
#include "suites.h"
#undef SUITE

char test_dir[64];

/* The suites run in a mirror of the checkout: each of its top-level entries a symbolic link, but
 * results/ a directory of its own. A run under test that writes its default outputs
 * (results/NAME.csv, relative to where it runs) writes them there, never over the measured results
 * of the checkout. 0, or -1 with the reason on stderr. */
static int enter_mirror(void)
{
	char root[PATH_MAX], mirror[128], link[PATH_MAX + 300], target[PATH_MAX + 300];
	snprintf(mirror, sizeof mirror, "%s/checkout", test_dir);
	DIR *dir = getcwd(root, sizeof root) && mkdir(mirror, 0700) == 0 ? opendir(root) : NULL;
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
	snprintf(link, sizeof link, "%s/results", mirror);
	if (rc == 0 && (mkdir(link, 0700) || chdir(mirror))) {
		perror(link);
		rc = -1;
	}
	return rc;
}

int main(int argc, char **argv)
{
	/* the runs under test keep their cubin cache, copy-bandwidth note and files to themselves,
	 * in one directory removed at the end */
	snprintf(test_dir, sizeof test_dir, "/tmp/autotune-test-%ld", (long)getpid());
	if (mkdir(test_dir, 0700) != 0) {
		perror(test_dir);
		return 1;
	}
	char cache[96];
	snprintf(cache, sizeof cache, "%s/cache", test_dir);
	setenv("XDG_CACHE_HOME", cache, 1);
	if (enter_mirror()) {
		char *out = NULL;
		proc_capture((char *[]){"rm", "-rf", test_dir, NULL}, 30, &out);
		free(out);
		return 1;
	}
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	/* every tests/test_*.c's add_*_suite, as the Makefile finds them (suites.h) */
	int (*suites[])(void) = {
#define SUITE(f) f,
#include "suites.h"
#undef SUITE
	};
	for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++)
		if (suites[i]()) {
			fprintf(stderr, "cannot register a test suite: %s\n", CU_get_error_msg());
			CU_cleanup_registry();
			return 1;
		}
	/* each test is named as it starts: the suites run for half a minute, some tests for seconds */
	CU_basic_set_mode(CU_BRM_VERBOSE);
	setvbuf(stdout, NULL, _IOLBF, 0); /* under make and CI stdout is a pipe */
	/* `run_tests SUITE...` runs only those suites (their names as CU_add_suite gives them) */
	unsigned earlier = 0; /* each run counts only its own failures */
	if (argc > 1)
		for (int a = 1; a < argc; a++) {
			if (a > 1)
				earlier += CU_get_number_of_failures() + CU_get_number_of_tests_failed();
			CU_pSuite s = CU_get_suite(argv[a]);
			if (!s) {
				fprintf(stderr, "run_tests: no suite named '%s'\n", argv[a]);
				CU_cleanup_registry();
				rmdir(test_dir);
				return 2;
			}
			CU_basic_run_suite(s);
		}
	else
		CU_basic_run_tests();
	/* again at the end, where a log's tail (CI's) has them */
	if (CU_get_number_of_failures()) {
		printf("\nFailures:");
		CU_basic_show_failures(CU_get_failure_list());
		printf("\n");
	}
	unsigned failed = earlier + CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	char *out = NULL;
	proc_capture((char *[]){"rm", "-rf", test_dir, NULL}, 30, &out);
	free(out);
	return failed ? 1 : 0;
}
