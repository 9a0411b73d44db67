/* proc.c: posix_spawn with pipes and process groups, line reading with deadlines, and the
 * TERM-then-KILL escalation that no library we use provides. */
#define _GNU_SOURCE /* pipe2 */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "banned.h"

/* The children started and not yet reaped, each the leader of its own group, for
 * proc_kill_all (a signal handler): lock-free slots, 0 when free. */
#define MAX_LIVE 1024
static _Atomic int live[MAX_LIVE];

static void remember_child(pid_t pid)
{
	for (int i = 0; i < MAX_LIVE; i++) {
		int none = 0;
		if (atomic_compare_exchange_strong(&live[i], &none, (int)pid))
			return;
	}
}

static void forget_child(pid_t pid)
{
	for (int i = 0; i < MAX_LIVE; i++) {
		int mine = (int)pid;
		if (atomic_compare_exchange_strong(&live[i], &mine, 0))
			return;
	}
}

void proc_kill_all(void)
{
	for (int i = 0; i < MAX_LIVE; i++) {
		int pid = atomic_load(&live[i]);
		if (pid > 0)
			kill(-pid, SIGKILL);
	}
}

extern char **environ;

/* A child that ignores SIGTERM this long gets SIGKILL. */
#define GRACE_SECONDS 2.0

double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void trace_event(const char *fmt, ...)
{
	const char *on = getenv("AUTOTUNE_TRACE");
	if (!on || !*on || !strcmp(on, "0"))
		return;
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "trace main %.3f: %s\n", now_seconds(), msg);
}

/* Atomically close-on-exec: with workers spawned from several threads, a pipe marked a moment
 * late could leak into another thread's child and hide its worker's death (no end of file). */
static int cloexec_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

char *proc_find_program(const char *name)
{
	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (;;) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);
		char *cand = xasprintf("%.*s/%s", (int)n, n ? path : ".", name);
		if (access(cand, X_OK) == 0)
			return cand;
		free(cand);
		if (!colon)
			return NULL;
		path = colon + 1;
	}
}

int proc_start(proc *p, char *const argv[], unsigned flags) { return proc_start_fd(p, argv, flags, -1); }

int proc_start_fd(proc *p, char *const argv[], unsigned flags, int stderr_fd)
{
	return proc_start_env(p, argv, flags, stderr_fd, environ);
}

int proc_start_env(proc *p, char *const argv[], unsigned flags, int stderr_fd, char *const envp[])
{
	/* Resolved here rather than by posix_spawnp, so "not found" is an error of this call on
	 * every libc and under valgrind, not an exit status 127 of a child. */
	char *program = proc_find_program(argv[0]);
	memset(p, 0, sizeof *p);
	p->in = p->out = -1;
	if (!program) {
		errno = ENOENT;
		return -1;
	}
	int inp[2] = {-1, -1}, outp[2] = {-1, -1};
	if (((flags & PROC_STDIN) && cloexec_pipe(inp)) || ((flags & PROC_STDOUT) && cloexec_pipe(outp))) {
		int e = errno;
		free(program);
		for (int i = 0; i < 2; i++) {
			if (inp[i] >= 0)
				close(inp[i]);
			if (outp[i] >= 0)
				close(outp[i]);
		}
		errno = e;
		return -1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	if (flags & PROC_STDIN)
		posix_spawn_file_actions_adddup2(&fa, inp[0], 0);
	if (flags & PROC_STDOUT) {
		posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
		if (flags & PROC_MERGE_STDERR)
			posix_spawn_file_actions_adddup2(&fa, outp[1], 2);
	}
	if (stderr_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, stderr_fd, 2);
	/* Own process group: terminal signals reach only us, and a deadline can kill the tree.
	 * Default dispositions and an empty mask, whatever this process has installed. */
	sigset_t none, all;
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &all);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	int rc = posix_spawn(&p->pid, program, &fa, &attr, argv, envp);
	free(program);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (inp[0] >= 0)
		close(inp[0]);
	if (outp[1] >= 0)
		close(outp[1]);
	if (rc) {
		if (inp[1] >= 0)
			close(inp[1]);
		if (outp[0] >= 0)
			close(outp[0]);
		p->pid = 0;
		errno = rc;
		return -1;
	}
	remember_child(p->pid);
	p->in = inp[1];
	p->out = outp[0];
	return 0;
}

ssize_t proc_read_some(proc *p)
{
	grow(&p->buf, &p->cap, p->len + 4096 + 1, 1);
	p->buf[p->len] = 0; /* a string even when nothing arrives */
	ssize_t n;
	if (p->len >= PROC_KEEP) {
		char sink[4096];
		do
			n = read(p->out, sink, sizeof sink);
		while (n < 0 && errno == EINTR);
		if (n > 0)
			p->dropped += (size_t)n;
		return n;
	}
	size_t room = p->cap - p->len - 1;
	if (room > PROC_KEEP - p->len)
		room = PROC_KEEP - p->len;
	do
		n = read(p->out, p->buf + p->len, room);
	while (n < 0 && errno == EINTR);
	if (n > 0) {
		p->len += (size_t)n;
		p->buf[p->len] = 0;
	}
	return n;
}

int proc_read_line(proc *p, double timeout_s, char **line)
{
	double deadline = now_seconds() + timeout_s;
	for (;;) {
		char *nl = p->len ? memchr(p->buf, '\n', p->len) : NULL;
		if (nl) {
			size_t n = (size_t)(nl - p->buf);
			*line = xmalloc(n + 1);
			memcpy(*line, p->buf, n);
			(*line)[n] = 0;
			p->len -= n + 1;
			memmove(p->buf, nl + 1, p->len);
			return LINE_OK;
		}
		double left = deadline - now_seconds();
		if (timeout_s >= 0 && left <= 0)
			return LINE_TIMEOUT;
		struct pollfd pfd = {p->out, POLLIN, 0};
		int ms = timeout_s < 0 ? -1 : (int)(left * 1000) + 1;
		int r = poll(&pfd, 1, ms);
		if (r < 0 && errno == EINTR)
			continue;  /* a signal (SIGINT) arrived: the caller's flag decides */
		if (r == 0)
			continue;
		if (proc_read_some(p) <= 0)
			return LINE_EOF;
	}
}

int proc_write(proc *p, const char *s, size_t n) { return write_all(p->in, s, n); }

static int wait_until(pid_t pid, double deadline, int *status)
{
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
		if (deadline >= 0 && now_seconds() >= deadline)
			return 1;
		struct timespec ts = {0, 5 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

static void release(proc *p)
{
	if (p->pid > 0)
		forget_child(p->pid);
	if (p->in >= 0)
		close(p->in);
	if (p->out >= 0)
		close(p->out);
	free(p->buf);
	p->buf = NULL;
	p->len = p->cap = 0;
	p->in = p->out = -1;
	p->pid = 0;
}

int proc_finish(proc *p, double timeout_s, int *timed_out)
{
	int status = 0;
	*timed_out = 0;
	if (p->in >= 0) {
		close(p->in);
		p->in = -1;
	}
	if (p->pid > 0) {
		int r = wait_until(p->pid, timeout_s < 0 ? -1 : now_seconds() + timeout_s, &status);
		if (r == 1) {
			*timed_out = 1;
			kill(-p->pid, SIGTERM);
			if (wait_until(p->pid, now_seconds() + GRACE_SECONDS, &status) == 1) {
				kill(-p->pid, SIGKILL);
				wait_until(p->pid, -1, &status);
			}
		}
		/* whatever the leader left behind in its group goes too */
		kill(-p->pid, SIGKILL);
	}
	release(p);
	return status;
}

void proc_kill(proc *p)
{
	int status;
	if (p->pid > 0) {
		kill(-p->pid, SIGKILL);
		wait_until(p->pid, -1, &status);
	}
	release(p);
}

int proc_gone(long pid) { return pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH; }

const char *proc_describe_status(int status)
{
	static _Thread_local char buf[128]; /* one per thread: workers are reaped from several */
	if (WIFEXITED(status))
		snprintf(buf, sizeof buf, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, sizeof buf, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(buf, sizeof buf, "ended with wait status %d", status);
	return buf;
}

const char *proc_describe_end(int status)
{
	static _Thread_local char buf[136];
	snprintf(buf, sizeof buf, "%s%s", WIFSIGNALED(status) ? "was " : "", proc_describe_status(status));
	return buf;
}

int proc_capture(char *const argv[], double timeout_s, char **output)
{
	proc p;
	*output = NULL;
	if (proc_start(&p, argv, PROC_STDOUT | PROC_MERGE_STDERR))
		return -1;
	double deadline = now_seconds() + timeout_s;
	for (;;) {
		struct pollfd pfd = {p.out, POLLIN, 0};
		double left = deadline - now_seconds();
		if (left <= 0)
			break;
		int r = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || proc_read_some(&p) <= 0)
			break;
	}
	*output = xstrdup(p.buf ? p.buf : "");
	int timed_out;
	return proc_finish(&p, deadline - now_seconds() > 0 ? deadline - now_seconds() : 0, &timed_out);
}

const char *proc_shell_special(const char *s)
{
	for (; s && *s; s++)
		if (strchr("$`\\\"", *s) || (unsigned char)*s < 0x20 || *s == 0x7f)
			return s;
	return NULL;
}

char *proc_shell_refusal(const char *what, const char *s, const char *fix)
{
	const char *at = proc_shell_special(s);
	if (!at)
		return NULL;
	unsigned char c = (unsigned char)*at;
	size_t pos = (size_t)(at - s) + 1;
	char which[32];
	if (c >= 0x20 && c != 0x7f)
		snprintf(which, sizeof which, "'%c'", c);
	else
		snprintf(which, sizeof which, "%s", c == '\n' ? "a newline" : c == '\t' ? "a tab" : "a control character");
	/* a control character is not printed: the text is shown up to it */
	int shown = c >= 0x20 && c != 0x7f ? (int)strlen(s) : (int)(at - s);
	return xasprintf("%s '%.*s%s' holds %s (character %zu), which nvcc's own /bin/sh steps would interpret: %s", what,
			 shown, s, shown < (int)strlen(s) ? "..." : "", which, pos, fix);
}
