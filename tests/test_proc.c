/* test_proc.c: spawning without a shell, line reading, deadlines that kill. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "proc.h"
#include "tests.h"

static void test_missing_program_fails_with_enoent(void)
{
	char *argv[] = {"autotune-no-such-program", NULL};
	proc p;
	CU_ASSERT_EQUAL(proc_start(&p, argv, PROC_STDOUT), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
}

static void test_arguments_reach_the_child_verbatim(void)
{
	/* a shell would expand these; argv must not */
	char *argv[] = {"printf", "%s|%s\\n", "$HOME; rm -rf /", "a b", NULL};
	proc p;
	CU_ASSERT_EQUAL_FATAL(proc_start(&p, argv, PROC_STDOUT), 0);
	char *line = NULL;
	CU_ASSERT_EQUAL(proc_read_line(&p, 10, &line), LINE_OK);
	CU_ASSERT_STRING_EQUAL(line, "$HOME; rm -rf /|a b");
	free(line);
	CU_ASSERT_EQUAL(proc_read_line(&p, 10, &line), LINE_EOF);
	int timed_out;
	int st = proc_finish(&p, 10, &timed_out);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CU_ASSERT_EQUAL(timed_out, 0);
}

/* The environment given is the child's whole environment, not this process's. */
static void test_the_environment_given_is_the_childs(void)
{
	setenv("AUTOTUNE_TEST_OURS", "1", 1);
	char *argv[] = {"env", NULL}, *envp[] = {"CUDA_DEVICE_MAX_CONNECTIONS=32", "X=a b", NULL};
	proc p;
	CU_ASSERT_EQUAL_FATAL(proc_start_env(&p, argv, PROC_STDOUT, -1, envp), 0);
	char *lines[4] = {0};
	int n = 0;
	while (n < 4 && proc_read_line(&p, 10, &lines[n]) == LINE_OK)
		n++;
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_STRING_EQUAL(lines[0], "CUDA_DEVICE_MAX_CONNECTIONS=32");
	CU_ASSERT_STRING_EQUAL(n > 1 ? lines[1] : "", "X=a b");
	for (int i = 0; i < 4; i++)
		free(lines[i]);
	int timed_out;
	proc_finish(&p, 10, &timed_out);
	unsetenv("AUTOTUNE_TEST_OURS");
}

static void test_stdin_round_trip(void)
{
	char *argv[] = {"cat", NULL};
	proc p;
	CU_ASSERT_EQUAL_FATAL(proc_start(&p, argv, PROC_STDIN | PROC_STDOUT), 0);
	CU_ASSERT_EQUAL(proc_write(&p, "one\ntwo\n", 8), 0);
	char *line = NULL;
	CU_ASSERT_EQUAL(proc_read_line(&p, 10, &line), LINE_OK);
	CU_ASSERT_STRING_EQUAL(line, "one");
	free(line);
	CU_ASSERT_EQUAL(proc_read_line(&p, 10, &line), LINE_OK);
	CU_ASSERT_STRING_EQUAL(line, "two");
	free(line);
	int timed_out;
	proc_finish(&p, 10, &timed_out);
}

static void test_deadline_kills_a_hung_child(void)
{
	char *argv[] = {"sleep", "30", NULL};
	proc p;
	CU_ASSERT_EQUAL_FATAL(proc_start(&p, argv, PROC_STDOUT), 0);
	double t0 = now_seconds();
	char *line = NULL;
	CU_ASSERT_EQUAL(proc_read_line(&p, 0.2, &line), LINE_TIMEOUT);
	int timed_out;
	int st = proc_finish(&p, 0.3, &timed_out);
	CU_ASSERT_EQUAL(timed_out, 1);
	CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	CU_ASSERT(now_seconds() - t0 < 5);
}

static void test_status_descriptions(void)
{
	CU_ASSERT_STRING_EQUAL(proc_describe_status(3 << 8), "exited with status 3");
	CU_ASSERT_PTR_NOT_NULL(strstr(proc_describe_status(SIGSEGV), "killed by signal 11"));
	/* after a subject ("the GPU worker ..."), a verb phrase either way */
	CU_ASSERT_STRING_EQUAL(proc_describe_end(3 << 8), "exited with status 3");
	CU_ASSERT_PTR_NOT_NULL(strstr(proc_describe_end(SIGSEGV), "was killed by signal 11 ("));
}

/* A child that prints without end (an nvcc gone wrong once grew the tuner to 6 GB) is drained:
 * PROC_KEEP bytes kept, the rest counted. */
static void test_output_is_kept_up_to_a_cap(void)
{
	proc p;
	char *argv[] = {"sh", "-c", "head -c 5000000 /dev/zero | tr '\\0' x", NULL};
	CU_ASSERT_EQUAL_FATAL(proc_start(&p, argv, PROC_STDOUT | PROC_MERGE_STDERR), 0);
	while (proc_read_some(&p) != 0)
		;
	CU_ASSERT_EQUAL(p.len, PROC_KEEP);
	CU_ASSERT_EQUAL(p.dropped, 5000000 - PROC_KEEP);
	CU_ASSERT(p.cap <= 2 * PROC_KEEP + 8192); /* grown by doubling, then no more */
	CU_ASSERT_EQUAL(strlen(p.buf), PROC_KEEP);
	int timed_out;
	CU_ASSERT_EQUAL(proc_finish(&p, 10, &timed_out), 0);
}

int add_proc_suite(void)
{
	CU_pSuite s = CU_add_suite("proc", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "missing program fails with ENOENT", test_missing_program_fails_with_enoent);
	CU_add_test(s, "arguments reach the child verbatim", test_arguments_reach_the_child_verbatim);
	CU_add_test(s, "the environment given is the child's", test_the_environment_given_is_the_childs);
	CU_add_test(s, "stdin round trip", test_stdin_round_trip);
	CU_add_test(s, "deadline kills a hung child", test_deadline_kills_a_hung_child);
	CU_add_test(s, "status descriptions", test_status_descriptions);
	CU_add_test(s, "output is kept up to a cap", test_output_is_kept_up_to_a_cap);
	return 0;
}
