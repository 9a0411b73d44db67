/* compile.c: a pool of nvcc processes (argv arrays, own process groups, deadlines) and the
 * parser for ptxas's resource report. */
#include "compile.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hash.h"
#include "proc.h"
#include "banned.h"

static int is_compile_time(const param *p) { return p->is_define || p->is_maxreg; }

static int same_compile_values(const config *cfg, const value *a, const value *b)
{
	for (size_t i = 0; i < cfg->nparams; i++) {
		if (!is_compile_time(&cfg->params[i]))
			continue;
		if (a[i].kind != b[i].kind || (a[i].kind == VAL_INT ? a[i].u.i != b[i].u.i : a[i].u.f != b[i].u.f))
			return 0;
	}
	return 1;
}

void build_plan(const config *cfg, const space *s, build *b)
{
	memset(b, 0, sizeof *b);
	b->of_config = xcalloc(s->count, sizeof *b->of_config);
	size_t cap = 0;
	/* Spaces with millions of configurations have few distinct binaries, so a linear scan over
	 * the binaries found so far stays cheap. */
	for (size_t c = 0; c < s->count; c++) {
		size_t k;
		for (k = 0; k < b->nbins; k++)
			if (same_compile_values(cfg, space_config(s, c), space_config(s, b->bins[k].first_config)))
				break;
		if (k == b->nbins) {
			grow(&b->bins, &cap, b->nbins + 1, sizeof *b->bins);
			memset(&b->bins[k], 0, sizeof b->bins[k]);
			b->bins[k].first_config = c;
			b->nbins++;
		}
		b->of_config[c] = k;
	}
}

void build_free(build *b)
{
	for (size_t i = 0; i < b->nbins; i++) {
		free(b->bins[i].cubin);
		free(b->bins[i].log);
		free(b->bins[i].res.symbol);
	}
	free(b->bins);
	free(b->of_config);
	memset(b, 0, sizeof *b);
}

char *find_nvcc(void)
{
	const char *env = getenv("NVCC");
	if (env && *env)
		return access(env, X_OK) == 0 ? xstrdup(env) : NULL;
	char *found = proc_find_program("nvcc");
	if (found)
		return found;
	const char *home = getenv("CUDA_HOME");
	char *cand = xasprintf("%s/bin/nvcc", home && *home ? home : "/usr/local/cuda");
	if (access(cand, X_OK) == 0)
		return cand;
	free(cand);
	return NULL;
}

/* The argument vector for one binary; every string is owned by the returned array. */
static char **nvcc_argv(const config *cfg, const value *vals, const char *nvcc, const char *arch, const char *out)
{
	size_t n = 0, cap = 16 + cfg->nflags + cfg->nparams;
	char **argv = xcalloc(cap, sizeof *argv);
	argv[n++] = xstrdup(nvcc);
	argv[n++] = xstrdup("-cubin");
	argv[n++] = xasprintf("-arch=%s", arch);
	argv[n++] = xstrdup("-Xptxas");
	argv[n++] = xstrdup("-v");
	for (size_t i = 0; i < cfg->nparams; i++) {
		char v[64];
		value_format(vals[i], v, sizeof v);
		if (cfg->params[i].is_maxreg && !(vals[i].kind == VAL_INT && vals[i].u.i == 0))
			argv[n++] = xasprintf("-maxrregcount=%s", v);
		if (cfg->params[i].is_define)
			argv[n++] = xasprintf("-D%s=%s", cfg->params[i].name, v);
	}
	for (size_t i = 0; i < cfg->nflags; i++)
		argv[n++] = xstrdup(cfg->nvcc_flags[i]);
	argv[n++] = xstrdup("-o");
	argv[n++] = xstrdup(out);
	argv[n++] = xstrdup(cfg->source);
	argv[n] = NULL;
	return argv;
}

static void free_argv(char **argv)
{
	for (char **a = argv; a && *a; a++)
		free(*a);
	free(argv);
}

static char *join_argv(char **argv)
{
	size_t len = 1;
	for (char **a = argv; *a; a++)
		len += strlen(*a) + 1;
	char *s = xmalloc(len), *p = s;
	for (char **a = argv; *a; a++) {
		size_t n = strlen(*a);
		memcpy(p, *a, n);
		p += n;
		*p++ = a[1] ? ' ' : 0;
	}
	if (p == s)
		*p = 0;
	return s;
}

typedef struct {
	proc p;
	size_t bin;
	double started;
	char *cmdline;
} job;

static void finish_job(const config *cfg, build *b, job *j, double timeout_s)
{
	binary *bin = &b->bins[j->bin];
	int timed_out;
	/* Output is at EOF, so nvcc is exiting: the wait is short. */
	int status = proc_finish(&j->p, timeout_s, &timed_out);
	bin->seconds = now_seconds() - j->started;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		char *cands = NULL;
		int r = ptxas_parse(bin->log, cfg->entry, &bin->res, &cands);
		if (r == -1) {
			bin->failed = 1;
			char *old = bin->log;
			bin->log = xasprintf("entry point '%s' not found in the compiled module%s%s", cfg->entry,
					     cands ? "; it has: " : "", cands ? cands : "");
			free(old);
		} else if (r == -2) {
			bin->failed = 1;
			char *old = bin->log;
			bin->log = xasprintf("entry point '%s' is ambiguous: %s", cfg->entry, cands);
			free(old);
		}
		free(cands);
	} else {
		bin->failed = 1;
		char *old = bin->log;
		bin->log = xasprintf("%s %s\n$ %s\n%s", timed_out ? "nvcc timed out and was killed;" : "nvcc",
				     proc_describe_status(status), j->cmdline, old ? old : "");
		free(old);
	}
	free(j->cmdline);
	j->cmdline = NULL;
}

int build_run(const config *cfg, const space *s, build *b, const char *nvcc, const char *arch,
	      const char *workdir, int jobs, double timeout_s, build_progress_fn progress, void *ctx, diags *d)
{
	if (jobs < 1)
		jobs = 1;
	job *running = xcalloc((size_t)jobs, sizeof *running);
	struct pollfd *pfds = xcalloc((size_t)jobs, sizeof *pfds);
	size_t next = 0, done = 0, nrun = 0;
	int rc = 0;
	while (done < b->nbins && rc == 0) {
		while (nrun < (size_t)jobs && next < b->nbins) {
			binary *bin = &b->bins[next];
			bin->cubin = xasprintf("%s/%s_%zu.cubin", workdir, cfg->name, next);
			char **argv = nvcc_argv(cfg, space_config(s, bin->first_config), nvcc, arch, bin->cubin);
			job *j = &running[nrun];
			if (proc_start(&j->p, argv, PROC_STDOUT | PROC_MERGE_STDERR)) {
				diags_add(d, "cannot run %s: %s", nvcc, strerror(errno));
				free_argv(argv);
				rc = -1;
				break;
			}
			j->bin = next++;
			j->started = now_seconds();
			j->cmdline = join_argv(argv);
			free_argv(argv);
			nrun++;
		}
		if (rc || nrun == 0)
			break;
		for (size_t i = 0; i < nrun; i++)
			pfds[i] = (struct pollfd){running[i].p.out, POLLIN, 0};
		if (poll(pfds, nrun, 200) < 0 && errno != EINTR)
			break;
		for (size_t i = 0; i < nrun;) {
			job *j = &running[i];
			int eof = 0;
			if (pfds[i].revents) {
				ssize_t r = proc_read_some(&j->p);
				eof = r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR);
			}
			int late = timeout_s > 0 && now_seconds() - j->started > timeout_s;
			if (!eof && !late) {
				i++;
				continue;
			}
			binary *bin = &b->bins[j->bin];
			bin->log = j->p.buf ? xstrdup(j->p.buf) : xstrdup("");
			finish_job(cfg, b, j, late ? 0 : -1);
			done++;
			if (progress)
				progress(ctx, done, b->nbins);
			/* keep the running list dense; pfds is rebuilt before the next poll */
			running[i] = running[--nrun];
			pfds[i] = pfds[nrun];
		}
	}
	for (size_t i = 0; i < nrun; i++) {
		proc_kill(&running[i].p);
		free(running[i].cmdline);
	}
	free(running);
	free(pfds);
	return rc;
}

/* Matches a plain name or its Itanium mangling: _Z <length> <name> <anything>. */
static int entry_matches(const char *fn, const char *entry, int *mangled)
{
	*mangled = 0;
	if (!strcmp(fn, entry))
		return 1;
	char prefix[320];
	snprintf(prefix, sizeof prefix, "_Z%zu%s", strlen(entry), entry);
	if (!strncmp(fn, prefix, strlen(prefix))) {
		*mangled = 1;
		return 1;
	}
	return 0;
}

static void append_name(char **list, const char *name)
{
	char *old = *list;
	*list = old ? xasprintf("%s, %s", old, name) : xstrdup(name);
	free(old);
}

int ptxas_parse(const char *log, const char *entry, kernel_resources *out, char **candidates)
{
	memset(out, 0, sizeof *out);
	*candidates = NULL;
	char *all = NULL, *matched = NULL;
	int nmatch = 0, exact = 0, in_entry = 0;
	for (const char *line = log; line && *line;) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		char buf[1024];
		snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), line);
		line = eol ? eol + 1 : NULL;

		const char *p;
		char name[512];
		if ((p = strstr(buf, "Compiling entry function '")) && sscanf(p + 26, "%511[^']", name) == 1) {
			append_name(&all, name);
			int mangled;
			in_entry = entry_matches(name, entry, &mangled) && !(exact && mangled);
			if (in_entry) {
				/* an exact (extern "C") match wins over manglings */
				if (!mangled && !exact) {
					exact = 1;
					nmatch = 0;
					free(matched);
					matched = NULL;
					memset(out, 0, sizeof *out);
				}
				nmatch++;
				append_name(&matched, name);
				free(out->symbol);
				out->symbol = xstrdup(name);
			}
			continue;
		}
		if (!in_entry)
			continue;
		int a, b2, c;
		if ((p = strstr(buf, "bytes stack frame")) && sscanf(buf, " %d bytes stack frame, %d bytes spill stores, %d bytes spill loads", &a, &b2, &c) == 3) {
			out->stack = a;
			out->spill_stores = b2;
			out->spill_loads = c;
		}
		if ((p = strstr(buf, "Used ")) && sscanf(p, "Used %d registers", &a) == 1) {
			out->registers = a;
			const char *q;
			if ((q = strstr(p, "used ")) && sscanf(q, "used %d barriers", &b2) == 1)
				out->barriers = b2;
			/* "N bytes smem" follows the register count when the kernel has static shared memory */
			for (q = p; (q = strstr(q, " bytes smem")); q++) {
				const char *num = q;
				while (num > p && num[-1] >= '0' && num[-1] <= '9')
					num--;
				out->static_smem = strtoul(num, NULL, 10);
				break;
			}
		}
	}
	int rc = 0;
	if (nmatch == 0) {
		rc = -1;
		*candidates = all;
		all = NULL;
		free(out->symbol);
		out->symbol = NULL;
	} else if (nmatch > 1) {
		rc = -2;
		*candidates = matched;
		matched = NULL;
		free(out->symbol);
		memset(out, 0, sizeof *out);
	}
	free(all);
	free(matched);
	return rc;
}

int build_inputs_hash(const config *cfg, const char *nvcc, const char *arch, hasher *h, diags *d)
{
	char *out = NULL;
	char *version[] = {(char *)nvcc, "--version", NULL};
	int st = proc_capture(version, 60, &out);
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		diags_add(d, "cannot run '%s --version': %s", nvcc, st < 0 ? strerror(errno) : proc_describe_status(st));
		free(out);
		return -1;
	}
	hasher_add_str(h, out);
	free(out);
	hasher_add_str(h, arch);
	for (size_t i = 0; i < cfg->nflags; i++)
		hasher_add_str(h, cfg->nvcc_flags[i]);

	size_t n = 0;
	char **argv = xcalloc(cfg->nflags + 6, sizeof *argv);
	argv[n++] = (char *)nvcc;
	argv[n++] = "-MM";
	argv[n++] = "-x";
	argv[n++] = "cu";
	for (size_t i = 0; i < cfg->nflags; i++)
		argv[n++] = cfg->nvcc_flags[i];
	argv[n++] = cfg->source;
	st = proc_capture(argv, 120, &out);
	free(argv);
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		/* the compile stage reports the real error; the source alone keys the results */
		hasher_add_file(h, cfg->source);
		free(out);
		return 0;
	}
	/* make syntax, "x.o : a.cu b.h ..." with backslash-newline continuations: every file after
	 * the colon */
	char *p = strchr(out, ':');
	for (p = p ? p + 1 : out; *p;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\\')
			p++;
		char *start = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n')
			p++;
		if (p == start)
			break;
		char save = *p;
		*p = 0;
		hasher_add_file(h, start);
		*p = save;
	}
	free(out);
	return 0;
}
