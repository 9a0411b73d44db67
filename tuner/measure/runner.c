/* runner.c: drives autotune-worker over a line protocol on its stdin/stdout. The worker
 * holds the GPU context; this side holds the state needed to rebuild it (the set-up commands
 * and the reference run), so a crashed or hung kernel costs one configuration, not the run. */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "launch_plan.h"
#include "proc.h"
#include "protocol.h"
#include "banned.h"

/* Opening a context and filling gigabytes of arguments takes seconds, not minutes. */
#define SETUP_TIMEOUT 120.0
/* Workers kept for other CUDA_DEVICE_MAX_CONNECTIONS values while one measures: finalist rounds
 * alternate between configurations, and a new context each time would cost tenths of a second. */
#define MAX_PARKED 4

extern char **environ;

struct runner {
	char *worker_path;
	int ordinal;
	proc p;
	int alive;
	int quitting; /* "quit" sent: the worker is closing its context */
	/* replayed on a fresh worker: "device", "array" lines, and the reference "run" line */
	char **setup;
	size_t nsetup, cap;
	char *ref_scalars; /* the scalar lines of the reference run */
	char *ref_run;
	char *log_path;    /* the worker's stderr, or NULL */
	/* per setup line: where in the config its expression or data file was written (fillexpr,
	 * fillfile), or path NULL */
	struct where {
		char *path, *arg;
		mark at;
	} *where;
	/* CUDA_DEVICE_MAX_CONNECTIONS the worker was started with (a plan's), 0: autotune's own
	 * environment; workers of other values, idle, each with the reference run it last saw
	 * (ref_gen counts reference runs) */
	int conns;
	unsigned ref_gen, have_gen;
	/* the worker answered hostref, and no run that verifies has answered since: verify.host's
	 * function may still run in it (a death is its; setup line host_line says where it is) */
	int host_pending, host_failed;
	size_t host_line;
	struct parked {
		proc p;
		int conns;
		unsigned gen;
		int host_pending;
	} parked[MAX_PARKED];
	size_t nparked;
};

static int send(runner *r, const char *line)
{
	size_t n = strlen(line);
	return proc_write(&r->p, line, n) || proc_write(&r->p, "\n", 1) ? -1 : 0;
}

/* The line for one message; running out of memory ends the run as xmalloc does. */
static char *encode(const proto_msg *m, const void *msg)
{
	char *line = proto_encode(m, msg);
	if (!line)
		diag_out_of_memory();
	return line;
}

/* Sends a command and reads its one-line answer; *answer is owned by the caller. */
static int ask(runner *r, const char *line, double timeout_s, char **answer)
{
	*answer = NULL;
	if (send(r, line))
		return LINE_EOF;
	return proc_read_line(&r->p, timeout_s, answer);
}

/* This process's environment with CUDA_DEVICE_MAX_CONNECTIONS=conns: the driver reads it when
 * the worker creates its context, so it is set before the worker starts. Free with free_env. */
static char **env_with_connections(int conns)
{
	static const char name[] = "CUDA_DEVICE_MAX_CONNECTIONS=";
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = xcalloc(n + 2, sizeof *env);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], name, sizeof name - 1))
			env[k++] = environ[i];
	env[k] = xasprintf("%s%d", name, conns);
	return env;
}

/* Frees what env_with_connections made: the one string it wrote (the last) and the array. */
static void free_env(char **env)
{
	size_t n = 0;
	while (env[n])
		n++;
	free(env[n - 1]);
	free(env);
}

/* A worker's log past head + tail bytes keeps its first head and its last tail bytes, with a
 * line between that says how much was left out: a kernel that prints in a loop (device printf
 * goes to the log) made a 51 MiB log. The worker appends (O_APPEND), so what it writes after
 * the cut lands after the kept tail. */
void runner_trim_log(const char *path, size_t head, size_t tail)
{
	struct stat st;
	if (!path || stat(path, &st) || (size_t)st.st_size <= head + tail + 4096)
		return;
	int fd = open(path, O_RDWR | O_CLOEXEC);
	char *keep = xmalloc(tail + 1);
	ssize_t got = fd >= 0 ? pread(fd, keep, tail, st.st_size - (off_t)tail) : -1;
	if (got == (ssize_t)tail && ftruncate(fd, (off_t)head) == 0 && lseek(fd, 0, SEEK_END) >= 0) {
		char note[160];
		int n = snprintf(note, sizeof note, "\n[autotune: %lld bytes of the worker's output left out here]\n",
				 (long long)st.st_size - (long long)(head + tail));
		if (write_all(fd, note, (size_t)n) == 0)
			write_all(fd, keep, tail);
	}
	if (fd >= 0)
		close(fd);
	free(keep);
}

/* The answer to a run: a plan's serial time first (into *serial_ms when not NULL), then the
 * result's line. */
/* the energy window's note, when it has one (room for it) */
#define ENERGY_NOTE_MAX 240

static int run_answer(runner *r, double timeout_s, char **ans, double *serial_ms, result *res, char *note, int *hostwait)
{
	int rc = proc_read_line(&r->p, timeout_s, ans);
	proto_serial got;
	proto_joules j;
	*hostwait = 0;
	/* before the result: a plan's serial time, the energy window's reading; the wait for
	 * verify.host's thread, which has the set-up's time (the kernel's part is done) */
	while (rc == LINE_OK && (proto_is(&PROTO_SERIAL, *ans) || proto_is(&PROTO_JOULES, *ans) || proto_is(&PROTO_HOSTWAIT, *ans))) {
		if (proto_is(&PROTO_HOSTWAIT, *ans)) {
			*hostwait = 1;
			timeout_s = SETUP_TIMEOUT;
		}
		else if (proto_is(&PROTO_SERIAL, *ans) && serial_ms && proto_decode(&PROTO_SERIAL, *ans, &got) == 0)
			*serial_ms = got.ms;
		else if (res && proto_is(&PROTO_JOULES, *ans) && proto_decode(&PROTO_JOULES, *ans, &j) == 0) {
			/* never a zero: no reading is no energy, and the note says why */
			res->have_energy = j.joules > 0 && j.watts > 0;
			res->joules = res->have_energy ? j.joules : 0;
			res->watts = res->have_energy ? j.watts : 0;
			snprintf(note, ENERGY_NOTE_MAX, "%s", j.note);
		}
		free(*ans);
		*ans = NULL; /* a worker that dies before the result leaves no line */
		rc = proc_read_line(&r->p, timeout_s, ans);
	}
	runner_trim_log(r->log_path, RUNNER_LOG_HEAD, RUNNER_LOG_TAIL);
	return rc;
}

static int spawn(runner *r, diags *d)
{
	char *argv[] = {r->worker_path, NULL};
	int log = r->log_path ? open_no_link(r->log_path, O_CREAT | O_APPEND, 0666) : -1;
	if (log < 0 && r->log_path && errno == ELOOP) {
		diags_add(d, "cannot write the worker log '%s': %s", r->log_path, write_error(errno));
		return -1;
	}
	char **env = r->conns ? env_with_connections(r->conns) : NULL;
	int rc = proc_start_env(&r->p, argv, PROC_STDIN | PROC_STDOUT, log, env ? env : environ);
	if (env)
		free_env(env);
	if (log >= 0)
		close(log);
	if (rc) {
		diags_add(d, "cannot start the GPU worker '%s': %s", r->worker_path, strerror(errno));
		return -1;
	}
	/* a worker that dies must not kill us with SIGPIPE on the next write */
	signal(SIGPIPE, SIG_IGN);
	r->alive = 1;
	r->host_pending = 0;
	return 0;
}

static void kill_worker(runner *r)
{
	if (r->alive)
		proc_kill(&r->p);
	r->alive = 0;
}

/* How the worker went away, for messages: its wait status once reaped. */
static int worker_death(runner *r)
{
	int timed_out;
	int st = proc_finish(&r->p, 5.0, &timed_out);
	r->alive = 0;
	return st;
}

/* The last non-empty line of a small text file (a worker's log), without its path prefix when it
 * starts with one ("/x/autotune-worker: error while loading ..."), or NULL. */
static char *last_line(const char *path)
{
	char buf[1024];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	off_t end = lseek(fd, 0, SEEK_END);
	off_t from = end > (off_t)sizeof buf - 1 ? end - (off_t)sizeof buf + 1 : 0;
	ssize_t n = pread(fd, buf, sizeof buf - 1, from);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = 0;
	char *line = strrchr(buf, '\n');
	line = line ? line + 1 : buf;
	if (!*line)
		return NULL;
	const char *skip = strstr(line, "autotune-worker: ");
	return xstrdup(skip ? skip + strlen("autotune-worker: ") : line);
}

static int open_device(runner *r, device_info *info, diags *d)
{
	char *ans = NULL;
	int rc = ask(r, r->setup[0], SETUP_TIMEOUT, &ans);
	proto_device_info got;
	proto_error err;
	if (rc == LINE_OK && proto_decode(&PROTO_DEVICE_INFO, ans, &got) == 0) {
		device_info di = {
			.cc = (int)got.cc, .sms = (int)got.sms, .l2_bytes = (int)got.l2_bytes, .mem_bytes = got.mem_bytes,
			.clock_khz = (int)got.clock_khz, .driver_version = (int)got.driver_version,
		};
		snprintf(di.uuid, sizeof di.uuid, "%s", got.uuid);
		snprintf(di.name, sizeof di.name, "%s", got.name);
		if (info)
			*info = di;
		free(ans);
		return 0;
	}
	if (rc == LINE_OK && proto_decode(&PROTO_ERROR, ans, &err) == 0)
		diags_add(d, "no usable GPU: %s %s", err.code, err.message);
	else if (rc == LINE_TIMEOUT)
		diags_add(d, "the GPU worker did not answer within %.0f s", SETUP_TIMEOUT);
	else {
		const char *why = proc_describe_end(worker_death(r));
		/* the usual cause: libcuda.so.1 is missing, so the dynamic loader stops the worker and
		 * says so in the log, which the message quotes: the caller removes a log of no GPU */
		char *said = r->log_path ? last_line(r->log_path) : NULL;
		diags_add(d, "the GPU worker %s before opening the device%s%s (is the NVIDIA driver installed?)", why,
			  said ? ": " : "", said ? said : "");
		free(said);
	}
	free(ans);
	return -1;
}

static void remember(runner *r, char *line)
{
	size_t cap = r->cap;
	grow(&r->setup, &r->cap, r->nsetup + 1, sizeof *r->setup);
	grow(&r->where, &cap, r->nsetup + 1, sizeof *r->where);
	r->where[r->nsetup] = (struct where){0};
	r->setup[r->nsetup++] = line;
}

/* remember, for a line whose failure is argument i's, written at `at` in the config */
static void remember_at(runner *r, char *line, const config *cfg, const char *name, mark at)
{
	remember(r, line);
	r->where[r->nsetup - 1] = (struct where){xstrdup(cfg->path), xstrdup(name), at};
}

typedef struct {
	runner *r;
	const config *cfg;
} lets;

/* A "let" line for a constant that an element expression names. */
static int let_constant(void *ctx, const char *name, int offset)
{
	(void)offset;
	const lets *l = ctx;
	for (size_t k = 0; k < l->cfg->nconstants; k++) {
		const constant *c = &l->cfg->constants[k];
		if (strcmp(c->name, name))
			continue;
		char text[64];
		if (c->v.kind == VAL_INT)
			snprintf(text, sizeof text, "%lld", c->v.u.i);
		else
			snprintf(text, sizeof text, "%a", c->v.u.f);
		remember(l->r, encode(&PROTO_LET, &(proto_let){c->name, c->v.kind == VAL_INT ? "int" : "float", text}));
		break;
	}
	return 0;
}

/* Has the worker generate argument i's elements (role fill: fill: {expr}) or what it must equal
 * (expect: verify.expect) from x: the constants x names, then x itself. Its first and last
 * elements are evaluated here first, so that most expressions that cannot be evaluated are said
 * before a worker starts; one failing in between is said by the worker, at the same place. */
static int element_lines(runner *r, const config *cfg, size_t i, const char *role, const cexpr *x, diags *d)
{
	const kernel_arg *a = &cfg->args[i];
	long long ends[2] = {0, a->count - 1};
	for (int k = 0; k < 2; k++)
		for (int lane = 0; lane < elem_lanes(a->type); lane++) {
			value v;
			if (element_eval(cfg, x, ends[k], lane, &v)) {
				diags_at(d, cfg->path, x->at.line, x->at.col, "cannot evaluate this for element %lld of '%s'",
					 ends[k], a->name);
				return -1;
			}
		}
	lets l = {r, cfg};
	expr_foreach_name(x->e, let_constant, &l);
	/* one protocol line: the expression's own line breaks are spaces to it */
	char *text = xstrdup(expr_source(x->e));
	for (char *p = text; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	remember_at(r, encode(&PROTO_FILLEXPR, &(proto_fillexpr){(long long)i, role, text}), cfg, a->name, x->at);
	free(text);
	return 0;
}

/* Has the worker read argument i's elements (role fill: fill: {file}) or what it must equal
 * (expect: verify.expected) from a data file, which the loader checked holds them. */
static void file_line(runner *r, const config *cfg, size_t i, const char *role, const data_file *f)
{
	remember_at(r, encode(&PROTO_FILLFILE, &(proto_fillfile){(long long)i, role, f->offset, f->path}), cfg, cfg->args[i].name,
		    f->at);
}

/* verify.host's function ended or stalled the worker: said at the config's verify.host. */
static void host_death(runner *r, int rc, const struct where *w, diags *d)
{
	if (rc == LINE_TIMEOUT) {
		proc_kill(&r->p);
		r->alive = 0;
		diags_at(d, w->path, w->at.line, w->at.col, "verify host '%s' did not return within %.0f s", w->arg, SETUP_TIMEOUT);
		return;
	}
	diags_at(d, w->path, w->at.line, w->at.col, "verify host '%s' ended the GPU worker: %s", w->arg,
		 proc_describe_status(worker_death(r)));
}

/* Says why setup line i failed: at the config's place for an expression, a data file or the
 * host reference; else as the worker said it. */
static void setup_failed(runner *r, size_t i, int rc, char *ans, diags *d)
{
	const struct where *w = &r->where[i];
	proto_error e;
	int host = proto_is(&PROTO_HOSTREF, r->setup[i]) || (rc != LINE_OK && r->host_pending);
	if (rc != LINE_OK && r->host_pending) /* a later line, while verify.host's thread ran */
		w = &r->where[r->host_line];
	int placed = rc == LINE_OK && w->path && !proto_decode(&PROTO_ERROR, ans, &e) &&
		     (!strcmp(e.code, "eval") || !strcmp(e.code, "file") || !strcmp(e.code, "host"));
	if (placed && host)
		diags_at(d, w->path, w->at.line, w->at.col, "verify host '%s': %s", w->arg, e.message);
	else if (placed)
		diags_at(d, w->path, w->at.line, w->at.col, "cannot %s this for '%s': %s",
			 !strcmp(e.code, "eval") ? "evaluate" : "read", w->arg, e.message);
	else if (rc == LINE_OK)
		diags_add(d, "setting up the kernel's arguments failed: %s", ans);
	else if (host) /* the user's own code runs in the worker */
		host_death(r, rc, w, d);
	else
		diags_add(d, "the GPU worker died while setting up the kernel's arguments");
}

/* Replays setup lines [from, to): measurement settings, arrays, the host reference, warm-up. */
static int setup_lines(runner *r, size_t from, size_t to, diags *d)
{
	for (size_t i = from; i < to; i++) {
		char *ans = NULL;
		int rc = ask(r, r->setup[i], SETUP_TIMEOUT, &ans);
		int ok = rc == LINE_OK && proto_is(&PROTO_OK, ans);
		if (!ok)
			setup_failed(r, i, rc, ans, d);
		else if (proto_is(&PROTO_HOSTREF, r->setup[i]))
			r->host_pending = 1, r->host_line = i;
		free(ans);
		if (!ok)
			return -1;
	}
	return 0;
}

runner *runner_start(const char *worker_path, int ordinal, const config *cfg, device_info *info,
		     const char *log_path, diags *d)
{
	runner *r = xcalloc(1, sizeof *r);
	r->worker_path = xstrdup(worker_path);
	r->log_path = log_path ? xstrdup(log_path) : NULL;
	r->ordinal = ordinal;
	remember(r, encode(&PROTO_DEVICE, &(proto_device){ordinal}));
	device_info mine;
	if (spawn(r, d) || open_device(r, &mine, d) ||
	    (cfg && (runner_prepare(r, cfg, &mine, 1, d) || runner_warm_up(r, d)))) {
		runner_stop(r);
		return NULL;
	}
	if (info)
		*info = mine;
	return r;
}

/* fill: {copy}: once every array is filled, each copy after the copy it copies (the loader
 * refused circles), so a source listed after its copy is filled first. */
static void copy_lines(runner *r, const config *cfg)
{
	char *sent = xcalloc(cfg->nargs + 1, 1);
	for (int more = 1; more;) {
		more = 0;
		for (size_t i = 0; i < cfg->nargs; i++) {
			const kernel_arg *a = &cfg->args[i];
			if (a->fill != FILL_COPY || a->copy_of < 0 || sent[i])
				continue;
			const kernel_arg *from = &cfg->args[a->copy_of];
			if (from->fill == FILL_COPY && from->copy_of >= 0 && !sent[a->copy_of])
				continue; /* its source is a copy still to be made */
			remember(r, encode(&PROTO_COPY, &(proto_copy){(long long)i, a->copy_of}));
			sent[i] = more = 1;
		}
	}
	free(sent);
}

int runner_arrays_fit(const config *cfg, const device_info *info, diags *d)
{
	size_t need = 0;
	for (size_t i = 0; i < cfg->nargs; i++)
		if (cfg->args[i].is_array) /* outputs are held twice: this run's and the reference's */
			need += (size_t)cfg->args[i].count * elem_size(cfg->args[i].type) *
				(1 + cfg->args[i].output + cfg->args[i].restore);
	if (need > info->mem_bytes) {
		diags_add(d, "%s: the kernel's arrays need %.2f GiB of device memory (outputs and restored inputs twice), but %s has %.2f GiB",
			  cfg->path, need / 1073741824.0, info->name, info->mem_bytes / 1073741824.0);
		return -1;
	}
	return 0;
}

int runner_prepare(runner *r, const config *cfg, const device_info *info, int profiler, diags *d)
{
	remember(r, encode(&PROTO_MEASURE, &(proto_measure){cfg->cache_warm ? "warm" : "cold", cfg->verify_every,
							     (unsigned long long)cfg->sample, cfg->max_mismatches,
							     cfg->pending_launches}));
	/* first, before any element is generated: an array too large is said at once */
	if (runner_arrays_fit(cfg, info, d))
		return -1;
	for (size_t i = 0; i < cfg->nargs; i++) {
		const kernel_arg *a = &cfg->args[i];
		if (!a->is_array)
			continue;
		proto_array array = {.idx = (long long)i, .type = elem_name(a->type), .count = (unsigned long long)a->count,
				     .fill = fill_name(a->fill), .value = a->fill_value, .seed = a->seed, .output = a->output,
				     .restore = a->restore, /* a word, or none */
				     .name = *a->name && !a->name[strcspn(a->name, " \t\n")] ? a->name : NULL};
		remember(r, encode(&PROTO_ARRAY, &array));
		if (a->constant)
			remember(r, encode(&PROTO_CONSTANT, &(proto_constant){(long long)i, a->name}));
		if (a->fill == FILL_EXPR && element_lines(r, cfg, i, "fill", &a->fill_expr, d))
			return -1;
		if (a->fill == FILL_FILE && a->fill_file.path)
			file_line(r, cfg, i, "fill", &a->fill_file);
		if (a->expect.e && element_lines(r, cfg, i, "expect", &a->expect, d))
			return -1;
		if (a->expected.path)
			file_line(r, cfg, i, "expect", &a->expected);
	}
	copy_lines(r, cfg);
	if (cfg->sum_out >= 0)
		remember(r, encode(&PROTO_SUMCHECK, &(proto_sumcheck){cfg->sum_out, cfg->sum_equals.e ? -1 : cfg->sum_in,
								       cfg->sum_max ? "max" : "sum"}));
	if (cfg->host.so) /* the inputs are all there now, and the worker knows which output is summed */
		remember_at(r, encode(&PROTO_HOSTREF, &(proto_hostref){cfg->host.so}), cfg, cfg->host.function, cfg->host.at);
	if (profiler && cfg->metrics != METRICS_NONE)
		/* auto reads only the counters that can change the winner */
		remember(r, encode(&PROTO_COUNTERS, &(proto_counters){cfg->metrics == METRICS_AUTO ? "decide" : "all"}));
	remember(r, encode(&PROTO_WARMUP, NULL)); /* last: runner_warm_up() */
	return setup_lines(r, 1, r->nsetup - 1, d);
}

int runner_warm_up(runner *r, diags *d) { return setup_lines(r, r->nsetup - 1, r->nsetup, d); }

/* The reference run again, on a worker that does not hold its outputs. */
static int replay_reference(runner *r, diags *d)
{
	char *ans = NULL;
	int rc = LINE_EOF, hostwait;
	if ((!*r->ref_scalars || send(r, r->ref_scalars) == 0) && send(r, r->ref_run) == 0)
		rc = run_answer(r, SETUP_TIMEOUT, &ans, NULL, NULL, NULL, &hostwait);
	r->host_pending = r->host_pending && rc != LINE_OK;
	proto_result got;
	int ok = rc == LINE_OK && proto_decode(&PROTO_RESULT, ans, &got) == 0 && !strcmp(got.status, "ok");
	free(ans);
	if (!ok) {
		diags_add(d, "the reference configuration failed on a restarted GPU worker");
		return -1;
	}
	r->have_gen = r->ref_gen;
	return 0;
}

/* A fresh worker with the arguments set up; the reference's outputs come with the next run that
 * checks against them (runner_measure). */
static int restart(runner *r, diags *d)
{
	kill_worker(r);
	r->have_gen = 0;
	return spawn(r, d) || open_device(r, NULL, d) || setup_lines(r, 1, r->nsetup, d) ? -1 : 0;
}

/* Asks a worker to exit and waits for it. */
static void quit_and_reap(proc *p)
{
	int timed_out;
	if (proc_write(p, PROTO_QUIT.keyword, strlen(PROTO_QUIT.keyword)) == 0)
		proc_write(p, "\n", 1);
	proc_finish(p, 10.0, &timed_out);
}

/* A plan's configuration runs on a worker started with its connections: the one running if it
 * was, a parked one, else a new one. The worker it leaves is parked (the one started in
 * autotune's own environment no plan wants: it exits). 0, or -1 when no worker can start. A
 * worker taken again may hold an older reference: runner_measure replays it when it matters. */
static int use_connections(runner *r, int conns, diags *d)
{
	if (conns == r->conns)
		return 0;
	if (r->alive && r->conns && r->nparked == MAX_PARKED) {
		quit_and_reap(&r->parked[0].p);
		memmove(r->parked, r->parked + 1, (MAX_PARKED - 1) * sizeof *r->parked);
		r->nparked--;
	}
	if (r->alive && r->conns)
		r->parked[r->nparked++] = (struct parked){r->p, r->conns, r->have_gen, r->host_pending};
	else if (r->alive)
		quit_and_reap(&r->p);
	r->alive = 0;
	r->conns = conns;
	for (size_t i = 0; i < r->nparked; i++) {
		if (r->parked[i].conns != conns)
			continue;
		r->p = r->parked[i].p;
		r->have_gen = r->parked[i].gen;
		r->host_pending = r->parked[i].host_pending;
		r->alive = 1;
		memmove(r->parked + i, r->parked + i + 1, (r->nparked - i - 1) * sizeof *r->parked);
		r->nparked--;
		return 0;
	}
	return restart(r, d);
}

/* "scalar" lines for every scalar argument, evaluated for this configuration. */
static char *scalar_lines(const config *cfg, const value *params, result *res, diags *d)
{
	char *out = xstrdup("");
	for (size_t i = 0; i < cfg->nargs; i++) {
		const kernel_arg *a = &cfg->args[i];
		if (a->is_array)
			continue;
		value v;
		diags tmp = {0};
		if (cexpr_eval(cfg, &a->value, params, &v, &tmp, NULL)) {
			result_set_message(res, xasprintf("argument '%s': %s", a->name, tmp.msgs[0]));
			diags_free(&tmp);
			free(out);
			return NULL;
		}
		char text[64];
		if (elem_is_float(a->type))
			snprintf(text, sizeof text, "%.17g", value_as_double(v));
		else if (v.kind != VAL_INT) {
			result_set_message(res, xasprintf("argument '%s' is %s but its value is not an integer", a->name, elem_name(a->type)));
			free(out);
			return NULL;
		} else
			snprintf(text, sizeof text, "%lld", v.u.i);
		char *line = encode(&PROTO_SCALAR, &(proto_scalar){(long long)i, elem_name(a->type), text});
		char *old = out;
		out = xasprintf("%s%s%s", old, *old ? "\n" : "", line);
		free(old);
		free(line);
	}
	if (cfg->sum_count.e) {
		value v;
		diags tmp = {0};
		if (cexpr_eval(cfg, &cfg->sum_count, params, &v, &tmp, NULL) || v.kind != VAL_INT || v.u.i < 0) {
			result_set_message(res, xasprintf("verify sum count: %s", tmp.n ? tmp.msgs[0] : "not a non-negative integer"));
			diags_free(&tmp);
			free(out);
			return NULL;
		}
		char expected[64] = "";
		value e;
		if (cfg->sum_equals.e) {
			if (cexpr_eval(cfg, &cfg->sum_equals, params, &e, &tmp, NULL)) {
				result_set_message(res, xasprintf("verify sum equals: %s", tmp.msgs[0]));
				diags_free(&tmp);
				free(out);
				return NULL;
			}
			value_format(e, expected, sizeof expected);
		}
		char *line = encode(&PROTO_SUMCOUNT, &(proto_sumcount){(unsigned long long)v.u.i, *expected ? expected : NULL});
		char *old = out;
		out = xasprintf("%s%s%s", old, *old ? "\n" : "", line);
		free(old);
		free(line);
	}
	(void)d;
	return out;
}

/* A worker that went away (EOF) or stopped answering (timeout) costs this configuration, unless
 * a signal from outside stopped it: then the configuration is not run. */
static void lost_worker(runner *r, int rc, result *res, double timeout_s)
{
	if (rc == LINE_TIMEOUT) {
		kill_worker(r);
		res->st = ST_TIMEOUT;
		result_set_message(res, xasprintf("killed after %.1f s", timeout_s));
	} else {
		int st = worker_death(r);
		/* stopped from outside (kill, a batch system's time limit signalling the whole job):
		 * that says nothing about the kernel */
		int stopped = WIFSIGNALED(st) && (WTERMSIG(st) == SIGTERM || WTERMSIG(st) == SIGINT || WTERMSIG(st) == SIGHUP);
		res->st = stopped ? ST_NOT_RUN : ST_CRASHED;
		result_set_message(res, xasprintf("the GPU worker %s%s%s%s", proc_describe_end(st),
						  r->log_path ? " (its messages: " : "", r->log_path ? r->log_path : "",
						  r->log_path ? ")" : ""));
	}
}

static proto_launch launch_of(const result *res)
{
	return (proto_launch){{res->grid[0], res->grid[1], res->grid[2]}, {res->block[0], res->block[1], res->block[2]}, res->smem};
}

_Static_assert(sizeof((proto_metrics *)0)->v / sizeof(double) == METRIC_COUNT, "the counters on the wire");

/* The worker's answer to a run, into res; a malformed one counts as a crash. */
static void take_result(char *ans, result *res)
{
	proto_result got;
	char *copy = xstrdup(ans);
	if (proto_decode(&PROTO_RESULT, copy, &got) == 0 && status_parse(got.status, &res->st) == 0) {
		res->t_median = got.median;
		res->t_min = got.min;
		res->t_max = got.max;
		res->samples = (int)got.samples;
		res->driver_blocks = (int)got.driver_blocks;
		res->noise = got.noise;
		res->batch = (int)got.batch;
		res->mhz_before = got.mhz_before;
		res->mhz_after = got.mhz_after;
		if (*got.message)
			result_set_message(res, xstrdup(got.message));
	} else {
		res->st = ST_CRASHED;
		result_set_message(res, xasprintf("unexpected answer from the GPU worker: %s", ans));
	}
	free(copy);
}

/* A plan's lines for the worker, after the scalars: the plan, then each launch as a step. */
static char *with_plan_lines(char *scalars, const config *cfg, const value *params, const binary *bin, const result *res)
{
	char *out = scalars;
	proto_plan pl = {res->streams, res->breadth_first ? "breadth" : "depth", (long long)cfg->plan.nlaunches};
	char *line = encode(&PROTO_PLAN, &pl);
	for (size_t k = 0; k <= cfg->plan.nlaunches; k++) {
		char *old = out;
		out = xasprintf("%s%s%s", old, *old ? "\n" : "", line);
		free(old);
		free(line);
		if (k == cfg->plan.nlaunches)
			break;
		plan_geometry g = {{1, 1, 1}, {1, 1, 1}, 0};
		launch_plan_geometry(cfg, params, k, &g); /* checked when the space was evaluated */
		char *args = launch_plan_args(&cfg->plan.launches[k]);
		proto_step st = {{{g.grid[0], g.grid[1], g.grid[2]}, {g.block[0], g.block[1], g.block[2]}, g.smem}, args,
				 bin->plan_res[k].symbol};
		line = encode(&PROTO_STEP, &st);
		free(args);
	}
	return out;
}

int runner_measure(runner *r, const config *cfg, const value *params, proto_role role, const binary *bin,
		   const sample_plan *plan, result *res, double timeout_s, diags *d)
{
	int has_plan = cfg->plan.nlaunches && bin->nplan == cfg->plan.nlaunches;
	if (has_plan && use_connections(r, res->connections, d))
		return -1;
	if (!r->alive && restart(r, d))
		return -1;
	/* a new worker (after a crash, or for other connections) gets the reference's outputs before
	 * it checks against them; a finalist's timing needs none */
	if (role == PROTO_ROLE_CHECK && r->ref_run && r->have_gen != r->ref_gen && replay_reference(r, d))
		return -1;
	char *scalars = scalar_lines(cfg, params, res, d);
	if (!scalars) {
		res->st = ST_LAUNCH_ERROR;
		return 0;
	}
	if (has_plan)
		scalars = with_plan_lines(scalars, cfg, params, bin, res);
	proto_run ask_run = {.role = proto_role_name(role), .warmup = plan->warmup, .launch = launch_of(res),
			     .rtol = cfg->rtol, .atol = cfg->atol, .symbol = bin->res.symbol, .cubin = bin->cubin};
	proto_run_set_rule(&ask_run, &plan->rule);
	char *run = encode(&PROTO_RUN, &ask_run);
	char *ans = NULL, note[ENERGY_NOTE_MAX] = "";
	int rc = LINE_EOF, hostwait = 0;
	/* (not among the lines a fresh worker's reference replays: that needs no energy) */
	char *energy = plan->energy_s > 0 ? encode(&PROTO_ENERGY, &(proto_energy){plan->energy_s}) : NULL;
	res->have_energy = 0;
	if ((!*scalars || send(r, scalars) == 0) && (!energy || send(r, energy) == 0) && send(r, run) == 0)
		rc = run_answer(r, timeout_s, &ans, &res->serial_ms, res, note, &hostwait);
	free(energy);
	/* the worker died while verify.host's function could be running, or it hung in it: said
	 * there, as a failure of the set-up (a kernel that hangs times out before the wait) */
	int host = rc != LINE_OK && r->host_pending && (rc != LINE_TIMEOUT || hostwait);
	if (host) {
		host_death(r, rc, &r->where[r->host_line], d);
		r->host_failed = 1;
	}
	r->host_pending = r->host_pending && (rc != LINE_OK || role == PROTO_ROLE_TIME);
	if (rc == LINE_OK) {
		take_result(ans, res);
		if (*note && res->st == ST_OK)
			result_set_message(res, res->message ? xasprintf("%s; %s", res->message, note) : xstrdup(note));
		if (res->st == ST_OK && role == PROTO_ROLE_REF) {
			free(r->ref_run);
			free(r->ref_scalars);
			r->ref_run = xstrdup(run);
			r->ref_scalars = xstrdup(scalars);
			r->have_gen = ++r->ref_gen;
		}
		/* a worker that reported a crash exits by itself; reap it now */
		if (res->st == ST_CRASHED)
			worker_death(r);
	} else if (!host)
		lost_worker(r, rc, res, timeout_s);
	free(ans);
	free(run);
	free(scalars);
	return host ? -1 : 0;
}

int runner_profile(runner *r, const config *cfg, size_t n, const value *const *params, const binary *const *bins,
		   result *const *res, double timeout_s, char **why, diags *d)
{
	for (size_t i = 0; i < n; i++)
		why[i] = NULL;
	if (!r->alive && restart(r, d))
		return -1;
	/* each launch is queued with its scalars; "profiles" answers a line for each queued one */
	char *batch = xstrdup("");
	char *asked = xcalloc(n + 1, 1);
	for (size_t i = 0; i < n; i++) {
		result scratch = *res[i];
		scratch.message = NULL;
		char *scalars = scalar_lines(cfg, params[i], &scratch, d);
		free(scratch.message);
		if (!scalars)
			continue; /* its arguments cannot be evaluated: its first-pass result says so */
		char *line = encode(&PROTO_PROFILE, &(proto_profile){launch_of(res[i]), bins[i]->res.symbol, bins[i]->cubin});
		char *old = batch;
		batch = xasprintf("%s%s%s%s\n", old, scalars, *scalars ? "\n" : "", line);
		free(old);
		free(line);
		free(scalars);
		asked[i] = 1;
	}
	char *old = batch;
	batch = xasprintf("%s%s", old, PROTO_PROFILES.keyword);
	free(old);
	size_t i = 0;
	int rc = send(r, batch) ? LINE_EOF : LINE_OK;
	for (; i < n && rc == LINE_OK; i++) {
		char *ans = NULL;
		if (!asked[i] || (rc = proc_read_line(&r->p, timeout_s, &ans)) != LINE_OK) {
			free(ans);
			continue;
		}
		char *copy = xstrdup(ans);
		proto_metrics got;
		proto_unavailable no;
		if (proto_decode(&PROTO_METRICS, copy, &got) == 0) {
			memcpy(res[i]->metrics, got.v, sizeof got.v);
			res[i]->have_metrics = 1;
		} else if (proto_decode(&PROTO_UNAVAILABLE, copy, &no) == 0)
			why[i] = xstrdup(no.why);
		else
			why[i] = xasprintf("unexpected answer from the GPU worker: %s", ans);
		free(copy);
		free(ans);
	}
	if (rc != LINE_OK) {
		/* the session's launches that got no answer share the reason */
		result lost = {0};
		lost_worker(r, rc, &lost, timeout_s);
		for (i = i ? i - 1 : 0; i < n; i++)
			if (asked[i] && !res[i]->have_metrics && !why[i])
				why[i] = xstrdup(lost.message);
		free(lost.message);
	}
	free(asked);
	free(batch);
	return 0;
}

int runner_host_failed(const runner *r) { return r && r->host_failed; }

int runner_device_count(runner *r)
{
	char *ans = NULL;
	int n = -1;
	proto_count got;
	if (ask(r, PROTO_COUNT_ASK.keyword, SETUP_TIMEOUT, &ans) == LINE_OK && proto_decode(&PROTO_COUNT, ans, &got) == 0)
		n = (int)got.n;
	free(ans);
	return n;
}

double runner_copy_bandwidth(runner *r)
{
	char *ans = NULL;
	double gbps = -1;
	proto_copybw got;
	if (r->alive && ask(r, PROTO_COPYBW_ASK.keyword, SETUP_TIMEOUT, &ans) == LINE_OK &&
	    proto_decode(&PROTO_COPYBW, ans, &got) == 0)
		gbps = got.gbps;
	free(ans);
	return gbps;
}

void runner_quit(runner *r)
{
	if (r && r->alive && !r->quitting)
		r->quitting = send(r, PROTO_QUIT.keyword) == 0;
	for (size_t i = 0; r && i < r->nparked; i++)
		if (proc_write(&r->parked[i].p, PROTO_QUIT.keyword, strlen(PROTO_QUIT.keyword)) == 0)
			proc_write(&r->parked[i].p, "\n", 1);
}

void runner_stop(runner *r)
{
	if (!r)
		return;
	int timed_out;
	runner_quit(r); /* the parked workers too, so that they close their contexts side by side */
	if (r->alive)
		proc_finish(&r->p, 10.0, &timed_out);
	for (size_t i = 0; i < r->nparked; i++)
		proc_finish(&r->parked[i].p, 10.0, &timed_out);
	for (size_t i = 0; i < r->nsetup; i++)
		free(r->setup[i]);
	for (size_t i = 0; i < r->nsetup; i++) {
		free(r->where[i].path);
		free(r->where[i].arg);
	}
	free(r->where);
	free(r->setup);
	free(r->ref_run);
	free(r->ref_scalars);
	free(r->worker_path);
	free(r->log_path);
	free(r);
}
