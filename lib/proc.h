/* proc.h: child processes started from argument vectors (never through a shell), each in its
 * own process group so a deadline or Ctrl-C can stop it and everything it started. */
#ifndef AUTOTUNE_PROC_H
#define AUTOTUNE_PROC_H

#include <stddef.h>
#include <sys/types.h>

enum { PROC_STDIN = 1, PROC_STDOUT = 2, PROC_MERGE_STDERR = 4 };

typedef struct {
	pid_t pid;
	int in;  /* write end of the child's stdin, or -1 */
	int out; /* read end of the child's stdout (and stderr when merged), or -1 */
	/* bytes read from out but not yet returned as a line */
	char *buf;
	size_t len, cap;
	size_t dropped; /* bytes read past PROC_KEEP and not kept */
} proc;

/* Output kept per child: one that prints without end is drained, not stored. */
#define PROC_KEEP ((size_t)1 << 20)

/* The executable a name refers to: a path with a slash as it is, else the first match in PATH.
 * NULL when there is none. Caller frees. */
char *proc_find_program(const char *name);

/* 0 on success; -1 with errno set (ENOENT: argv[0] not found in PATH). */
int proc_start(proc *p, char *const argv[], unsigned flags);
/* The same, with the child's stderr sent to stderr_fd (when >= 0). */
int proc_start_fd(proc *p, char *const argv[], unsigned flags, int stderr_fd);
/* The same, with the environment envp ("NAME=value" strings, NULL-terminated) instead of this
 * process's. */
int proc_start_env(proc *p, char *const argv[], unsigned flags, int stderr_fd, char *const envp[]);

/* Reads whatever is available on out into p->buf (past PROC_KEEP bytes buffered, reads and
 * counts them in p->dropped); returns bytes read, 0 at end of file, -1 on error (EAGAIN when
 * nothing was ready). */
ssize_t proc_read_some(proc *p);

enum { LINE_OK = 0, LINE_EOF = -1, LINE_TIMEOUT = -2 };
/* The next line of output, without its newline, in a buffer owned by the caller (free it). */
int proc_read_line(proc *p, double timeout_s, char **line);

/* Writes all of s to the child's stdin. -1 if the child is gone. */
int proc_write(proc *p, const char *s, size_t n);

/* Closes stdin and waits up to timeout_s (< 0: no limit). On expiry the group gets SIGTERM,
 * then SIGKILL after a grace period. Returns the waitpid status; *timed_out says whether the
 * deadline killed it. Frees the buffers. */
int proc_finish(proc *p, double timeout_s, int *timed_out);

/* Kills the group at once and reaps the child. */
void proc_kill(proc *p);
/* SIGKILL to the group of every child started and not yet reaped: for a signal handler about to
 * _exit, so that no nvcc or worker outlives the process (async-signal-safe). */
void proc_kill_all(void);

/* Whether no process has this pid any more: what a killed run left, named after its pid, is then
 * nobody's. */
int proc_gone(long pid);

/* "exited with status 1", "killed by signal 11 (Segmentation fault)"; static storage. */
const char *proc_describe_status(int status);
/* The same after its subject ("the GPU worker ..."): "exited with status 1", "was killed by signal
 * 11 (Segmentation fault)"; static storage. */
const char *proc_describe_end(int status);

/* Runs argv to completion (at most timeout_s), capturing stdout and stderr together into
 * *output (caller frees). Returns the wait status, or -1 when it could not start (errno). */
int proc_capture(char *const argv[], double timeout_s, char **output);

/* nvcc runs its own steps (the preprocessor, cicc, ptxas) through /bin/sh, each argument in
 * double quotes: inside them '$', '`', '\\' and '"' are still the shell's, and a newline or other
 * control character splits or garbles its command line. The first such character of s, or NULL:
 * text that reaches nvcc's argv (a path, a flag) must have none. */
const char *proc_shell_special(const char *s);
/* NULL when s (the `what`, such as "build flag") may reach nvcc's argv; else why not, naming the
 * character and where it stands (the text shown up to a control character), ending "...: fix"
 * with the fix given. Caller frees. */
char *proc_shell_refusal(const char *what, const char *s, const char *fix);

double now_seconds(void);

/* AUTOTUNE_TRACE set (not 0): a line "trace main <monotonic seconds>: <what>" on stderr, to line
 * up this process's steps with the workers' (whose trace lines carry the same clock). */
void trace_event(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
