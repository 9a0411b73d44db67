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

#include "config.h"
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

const char *const config_good =
	"name: tiny\n"                                       /* 1 */
	"kernel:\n"                                          /* 2 */
	"  source: /dev/null\n"                              /* 3 */
	"  entry: k\n"                                       /* 4 */
	"constants:\n"                                       /* 5 */
	"  n: 1 << 10\n"                                     /* 6 */
	"arguments:\n"                                       /* 7 */
	"  - {name: a, type: float, count: n}\n"             /* 8 */
	"  - {name: n, type: int32, value: n}\n"             /* 9 */
	"space:\n"                                           /* 10 */
	"  bx: [32, 64, 128]\n"                              /* 11 */
	"launch:\n"                                          /* 12 */
	"  block: [bx]\n"                                    /* 13 */
	"  grid: [\"ceil_div(n, bx)\"]\n";                   /* 14 */

/* Loads text; returns the number of diagnostics and the first in *first (caller frees). */
int config_load_text(const char *text, config *cfg, char **first)
{
	diags d = {0};
	const char *path = write_temp(0, "c.yaml", text);
	int rc = config_load(path, cfg, &d);
	*first = d.n ? strdup(d.msgs[0]) : NULL;
	int n = (int)d.n;
	diags_free(&d);
	unlink(path);
	CU_ASSERT_EQUAL(rc == 0, n == 0);
	return n;
}

char *config_with_line(int line, const char *replacement)
{
	static char buf[4096];
	const char *p = config_good;
	size_t used = 0;
	for (int l = 1; *p; l++) {
		const char *eol = strchr(p, '\n');
		size_t n = (size_t)(eol - p) + 1;
		if (l == line)
			used += (size_t)snprintf(buf + used, sizeof buf - used, "%s\n", replacement);
		else
			used += (size_t)snprintf(buf + used, sizeof buf - used, "%.*s", (int)n, p);
		p += n;
	}
	return buf;
}

void config_expect_error(const char *text, int line, int col, const char *message)
{
	config cfg;
	char *first;
	int n = config_load_text(text, &cfg, &first);
	CU_ASSERT(n >= 1);
	if (!first)
		return;
	char want[256];
	snprintf(want, sizeof want, ":%d:%d: %s", line, col, message);
	if (!strstr(first, want))
		fprintf(stderr, "\n  got: %s\n want: ...%s\n", first, want);
	CU_ASSERT_PTR_NOT_NULL(strstr(first, want));
	free(first);
	config_free(&cfg);
}
