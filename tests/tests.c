/* tests.c: the helpers that several suites share (tests.h): scratch files, the fake worker's
 * knobs, a run killed mid-way, a child process found by name. No suite of its own. */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "tests.h"

const char *write_temp(int slot, const char *name, const char *text)
{
	static char paths[8][256];
	snprintf(paths[slot], sizeof paths[slot], "%s/%d-%s", test_dir, slot, name);
	FILE *f = fopen(paths[slot], "w");
	if (!f)
		return NULL;
	fputs(text, f);
	fclose(f);
	return paths[slot];
}

char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = calloc(1, 1 << 16);
	size_t n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

int count_in(const char *path, const char *needle)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char line[2048];
	int n = 0;
	while (fgets(line, sizeof line, f))
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

int fake_worker_forget(void)
{
	static const char *const knobs[] = {"FAKE_SLEEP_MS", "FAKE_CRASH_BX", "FAKE_HANG_BX", "FAKE_MEM_BYTES",
					    "FAKE_GPUS", "FAKE_OTHER_MODEL", "FAKE_METRICS", "FAKE_PROFILE_FAIL_BX",
					    "FAKE_SLOW_GPU", "FAKE_LOG", "AUTOTUNE_WORKER"};
	for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++)
		unsetenv(knobs[i]);
	return 0;
}

void nap(void)
{
	struct timespec ts = {0, 20 * 1000 * 1000};
	nanosleep(&ts, NULL);
}

int kill_when_journaled(char *const argv[], const char *journal, int done)
{
	/* a killed run cannot remove its work directory: it goes in one of the test's own */
	char tmp[] = "/tmp/autotune-killed-XXXXXX";
	if (!mkdtemp(tmp))
		return -1;
	setenv("TMPDIR", tmp, 1);
	proc p;
	int rc = proc_start(&p, argv, PROC_STDOUT | PROC_MERGE_STDERR);
	unsetenv("TMPDIR");
	if (rc == 0) {
		double t0 = now_seconds();
		while (count_in(journal, "done ") < done && now_seconds() - t0 < 60)
			nap();
		kill(-p.pid, SIGKILL);
		int timed_out;
		proc_finish(&p, 10, &timed_out);
	}
	char *out = NULL;
	proc_capture((char *[]){"rm", "-rf", tmp, NULL}, 30, &out);
	free(out);
	return rc ? -1 : 0;
}

pid_t child_named(pid_t parent, const char *comm)
{
	glob_t g;
	pid_t found = 0;
	if (glob("/proc/[0-9]*/stat", 0, NULL, &g))
		return 0;
	for (size_t i = 0; i < g.gl_pathc && !found; i++) {
		char *stat = read_text(g.gl_pathv[i]);
		char *open = stat ? strchr(stat, '(') : NULL, *close = stat ? strrchr(stat, ')') : NULL;
		int ppid;
		if (open && close && (size_t)(close - open - 1) == strlen(comm) && !strncmp(open + 1, comm, strlen(comm)) &&
		    sscanf(close + 1, " %*c %d", &ppid) == 1 && ppid == parent)
			found = (pid_t)atoi(stat);
		free(stat);
	}
	globfree(&g);
	return found;
}

static int saved_stderr = -1;
static char stderr_path[96];

void stderr_begin(void)
{
	fflush(stderr);
	snprintf(stderr_path, sizeof stderr_path, "%s/stderr.txt", test_dir);
	int fd = open(stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return;
	saved_stderr = dup(2);
	dup2(fd, 2);
	close(fd);
}

char *stderr_end(void)
{
	if (saved_stderr < 0)
		return strdup("");
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	saved_stderr = -1;
	char *text = read_text(stderr_path);
	unlink(stderr_path);
	return text ? text : strdup("");
}
