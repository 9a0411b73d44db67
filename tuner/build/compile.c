/* compile.c: a pool of nvcc processes (argv arrays, own process groups, deadlines) that turns
 * the space into binaries; what a binary's report and code say is cubin.c's. */
/* realpath is XSI */
#define _XOPEN_SOURCE 700
#include "compile.h"

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ahead.h"
#include "cache.h"
#include "build_flags.h"
#include "compile_error.h"
#include "config.h"
#include "cubin.h"
#include "hash.h"
#include "proc.h"
#include "signature.h"
#include "banned.h"


char *find_nvcc(void)
{
	const char *env = getenv("NVCC");
	/* a bare name is a program on PATH, as make and the shell take NVCC=nvcc */
	if (env && *env)
		return strchr(env, '/') ? (access(env, X_OK) == 0 ? xstrdup(env) : NULL) : proc_find_program(env);
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

/* The directory of the nvcc binary proper: the one with nvcc.profile, which nvcc reads from its
 * own directory. A symlink is followed; a wrapper script (a distribution's /usr/bin/nvcc, or a
 * /usr/local/bin of scripts that exec the toolkit's tools) is not a path that can be resolved, so
 * nvcc is asked: its -dryrun names its own directory as _HERE_, as CMake's FindCUDAToolkit reads
 * it. NULL when neither tells. */
char *nvcc_bindir(const char *nvcc)
{
	char real[PATH_MAX];
	if (realpath(nvcc, real) && strrchr(real, '/')) {
		*strrchr(real, '/') = 0;
		char *profile = xasprintf("%s/nvcc.profile", real);
		int beside = access(profile, R_OK) == 0;
		free(profile);
		if (beside)
			return xstrdup(real);
	}
	char *argv[] = {(char *)nvcc, "-dryrun", "-x", "cu", "-c", "/dev/null", "-o", "/dev/null", NULL}, *out = NULL;
	int st = proc_capture(argv, 30, &out);
	char *here = st == 0 && out ? strstr(out, "#$ _HERE_=") : NULL, *dir = NULL;
	if (here) {
		here += strlen("#$ _HERE_=");
		dir = xasprintf("%.*s", (int)strcspn(here, "\r\n"), here);
	}
	free(out);
	if (dir && !*dir) {
		free(dir);
		dir = NULL;
	}
	return dir;
}

/* build.rdc's device runtime, libcudadevrt.a, in the toolkit nvcc belongs to: lib64/ or lib/ beside
 * its bin/, or targets/<platform>/lib/. Named by its path in the link, the library is part of the
 * cache key and its contents part of the entry's validity. NULL when none is there: the link
 * then asks nvcc for -lcudadevrt. */
static char *find_devrt(const char *nvcc)
{
	char *bin = nvcc_bindir(nvcc);
	if (!bin)
		return NULL;
	char *pattern[] = {"%s/../lib64/libcudadevrt.a", "%s/../lib/libcudadevrt.a", "%s/../targets/*/lib/libcudadevrt.a"};
	char *found = NULL;
	for (size_t i = 0; i < sizeof pattern / sizeof *pattern && !found; i++) {
		char *want = xasprintf(pattern[i], bin), lib[PATH_MAX];
		glob_t g;
		int rc = glob(want, 0, NULL, &g);
		if (rc == 0 && g.gl_pathc > 0 && realpath(g.gl_pathv[0], lib))
			found = xstrdup(lib);
		if (rc == 0)
			globfree(&g);
		free(want);
	}
	free(bin);
	return found;
}

char *compile_rewrite_pragmas(const config *cfg, const value *vals, size_t *len)
{
	FILE *in = fopen(cfg->source, "r");
	if (!in)
		return NULL;
	char *text = NULL;
	FILE *out = open_memstream(&text, len);
	if (!out) {
		fclose(in);
		return NULL;
	}
	char *named = cache_real_path(cfg->source);
	fprintf(out, "#line 1 \"%s\"\n", named);
	free(named);
	char *line = NULL;
	size_t cap = 0, start, n;
	while (getline(&line, &cap, in) > 0) {
		value v;
		int known = 0;
		if (pragma_unroll_name(line, &start, &n)) {
			char name[128];
			snprintf(name, sizeof name, "%.*s", (int)n, line + start);
			scope sc = {cfg, vals};
			known = scope_lookup(&sc, name, &v) == 0;
		}
		if (!known) {
			if (!source_define_put(cfg, vals, line, out))
				fputs(line, out);
			continue;
		}
		char num[64];
		value_format(v, num, sizeof num);
		if (v.kind == VAL_INT && v.u.i == 0)
			fputs("\n", out); /* 0: no pragma; the line stays so line numbers do */
		else
			fprintf(out, "%.*s%s%s", (int)start, line, num, line + start + n);
	}
	free(line);
	source_entry_put(cfg, vals, out);
	fclose(in);
	fclose(out);
	return text;
}

/* The rewritten source (compile_rewrite_pragmas) written to dir under a name derived from its
 * contents, so cache keys stay stable. NULL when it cannot be written. */
static char *rewritten_source(const config *cfg, const value *vals, const char *dir)
{
	size_t tlen;
	char *text = compile_rewrite_pragmas(cfg, vals, &tlen);
	if (!text)
		return NULL;
	hasher *h = hasher_new();
	hasher_add(h, text, tlen);
	char key[17];
	hasher_finish(h, key);
	char *path = xasprintf("%s/src-%s.cu", dir, key);
	int ok = write_atomically(path, text, tlen) == 0;
	free(text);
	if (!ok) {
		free(path);
		return NULL;
	}
	return path;
}

/* The argument vector for one binary, room left for 6 more (output options); every string is
 * owned by the returned array. */
static char **nvcc_argv(const config *cfg, const value *vals, const char *nvcc, const char *arch, const char *srcdir,
			size_t *count)
{
	size_t nrecipe;
	char **recipe = build_flags(cfg, vals, 1, &nrecipe);
	size_t n = 0;
	char **argv = xcalloc(nrecipe + 16, sizeof *argv);
	argv[n++] = xstrdup(nvcc);
	argv[n++] = xstrdup("-cubin");
	argv[n++] = xasprintf("-arch=%s", arch);
	argv[n++] = xstrdup("-Xptxas");
	argv[n++] = xstrdup("-v");
	/* what the tuned header's recipe repeats: one list, so a user's build cannot drift from it */
	for (size_t i = 0; i < nrecipe; i++)
		argv[n++] = recipe[i];
	free(recipe);
	/* compiled as CUDA whatever its extension (a .h or .cuh file, say) */
	argv[n++] = xstrdup("-x");
	argv[n++] = xstrdup("cu");
	char *copy = cfg->rewrite_pragmas ? rewritten_source(cfg, vals, srcdir) : NULL;
	if (copy) {
		/* quoted includes are searched beside the original, as they would have been */
		const char *slash = strrchr(cfg->source, '/');
		argv[n++] = slash ? xasprintf("-I%.*s", (int)(slash - cfg->source), cfg->source) : xstrdup("-I.");
		argv[n++] = copy;
	} else
		argv[n++] = xstrdup(cfg->source);
	cache_resolve_paths(argv, n);
	argv[n] = NULL;
	*count = n;
	return argv;
}

static void free_argv(char **argv)
{
	for (char **a = argv; a && *a; a++)
		free(*a);
	free(argv);
}

/* build.rdc's second step: the relocatable cubin `obj` linked with the device runtime (`devrt`,
 * or NULL: nvcc's own -lcudadevrt) into `out`, an image the driver loads as it is. nvlink's report
 * (-v) gives the resources of the kernels as linked. */
static char **link_argv(const char *nvcc, const char *arch, const char *devrt, const char *obj, const char *out)
{
	char *list[] = {(char *)nvcc, "-dlink", "-cubin", NULL, "-Xnvlink", "-v", (char *)obj,
			devrt ? (char *)devrt : "-lcudadevrt", "-o", (char *)out, NULL};
	size_t n = sizeof list / sizeof *list;
	char **argv = xcalloc(n, sizeof *argv);
	for (size_t i = 0; i + 1 < n; i++)
		argv[i] = i == 3 ? xasprintf("-arch=%s", arch) : xstrdup(list[i]);
	return argv;
}

/* The compile's arguments followed by the link's (NULL: none), for the cache key: the same
 * compile linked otherwise is another entry. The strings stay the callers'. */
static char **keyed_argv(char **compile, char **link)
{
	size_t n = 0, m = 0;
	while (compile[n])
		n++;
	while (link && link[m])
		m++;
	char **all = xcalloc(n + m + 2, sizeof *all);
	memcpy(all, compile, n * sizeof *all);
	if (link) {
		all[n] = "--then-link:";
		memcpy(all + n + 1, link, m * sizeof *all);
	}
	return all;
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
	char key[17];
	char *tmp_base; /* cache entry in the making, or NULL without a cache */
	/* build.rdc: the relocatable cubin the compile writes and the link reads (removed once
	 * linked), what the compile said, and whether the link is what runs now */
	char *obj, *compile_log;
	int linking;
} job;

/* A plan's launches: each entry's resources from the ptxas report; a missing one fails the
 * binary. */
static void plan_resources(binary *bin)
{
	bin->plan_res = xcalloc(bin->plan->nlaunches, sizeof *bin->plan_res);
	for (size_t k = 0; k < bin->plan->nlaunches && !bin->failed; k++) {
		const char *entry = bin->plan->launches[k].entry;
		char *cands = NULL;
		int r = ptxas_parse(bin->log, entry, &bin->plan_res[bin->nplan], &cands);
		if (r == 0)
			bin->nplan++;
		else {
			bin->failed = 1;
			char *old = bin->log;
			bin->log = xasprintf("plan launch entry '%s' %s in the compiled module%s%s", entry,
					     r == -1 ? "not found" : "is ambiguous", cands ? (r == -1 ? "; it has: " : ": ") : "",
					     cands ? cands : "");
			free(old);
		}
		free(cands);
	}
}

/* The entry point's resources from the ptxas report; a missing entry fails the binary. */
static void resources_from_log(binary *bin)
{
	char *cands = NULL, *old = bin->log;
	int r = ptxas_parse(bin->log, bin->entry, &bin->res, &cands);
	if (r == -1 || r == -2) {
		bin->failed = 1;
		bin->log = r == -1 ? xasprintf("entry point '%s' not found in the compiled module%s%s", bin->entry,
					       cands ? "; it has: " : "", cands ? cands : "")
				   : xasprintf("entry point '%s' is ambiguous: %s", bin->entry, cands);
		free(old);
	}
	free(cands);
	if (!bin->failed && bin->plan && bin->plan->nlaunches)
		plan_resources(bin);
	if (!bin->failed) {
		cubin_code_hash(bin->cubin, bin->code);
		cubin_kernel_hash(bin->cubin, bin->res.symbol, bin->kernel);
	}
}

/* Ends the job's process. 1 when it was build.rdc's compile and wrote its relocatable cubin: the
 * link is to follow (bin->log holds what the compile said); else 0, the binary done: stored in
 * the cache, its resources read, or failed with the reason. */
static int finish_job(build *b, job *j, double timeout_s, const char *devrt)
{
	binary *bin = &b->bins[j->bin];
	int timed_out;
	/* Output is at EOF, so nvcc is exiting: the wait is short. */
	int status = proc_finish(&j->p, timeout_s, &timed_out);
	bin->seconds = now_seconds() - j->started;
	trace_event("nvcc done %zu in %.3f s", j->bin, bin->seconds);
	/* a wrapper or a broken install can exit 0 without the cubin: a compile error, said so */
	const char *target = j->obj && !j->linking ? j->obj : bin->cubin;
	struct stat out;
	int exited_0 = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	int wrote = exited_0 && stat(target, &out) == 0 && out.st_size > 0;
	if (wrote && target == j->obj)
		return 1;
	if (j->linking) {
		/* the entry's log is both steps' reports: ptxas's, then nvlink's */
		char *linked = nvlink_report(bin->log ? bin->log : ""), *both = xasprintf("%s%s", j->compile_log, linked);
		free(linked);
		free(bin->log);
		bin->log = both;
	}
	if (j->obj)
		unlink(j->obj);
	if (wrote && j->tmp_base) {
		char *stored = cache_store(b->cache, j->key, j->tmp_base, bin->log, j->linking ? devrt : NULL);
		if (stored) {
			free(bin->cubin);
			bin->cubin = stored;
		}
	}
	if (wrote)
		resources_from_log(bin);
	else {
		bin->failed = 1;
		/* what batch systems and terminals send to a whole job, possibly to nvcc before the tuner:
		 * not a compile error whether or not the run has stopped yet; a crash (SIGSEGV) or the
		 * kernel's OOM killer (SIGKILL) is */
		int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
		bin->killed = !timed_out && (sig == SIGTERM || sig == SIGINT || sig == SIGHUP);
		const char *who = j->linking ? "nvcc -dlink (the device runtime's link)" : "nvcc";
		char *old = bin->log, *said = exited_0 ? xasprintf("%s exited 0 but wrote no cubin ('%s')", who, target)
				    : timed_out ? xasprintf("%s timed out and was killed", who)
						: xasprintf("%s %s", who, proc_describe_end(status));
		bin->log = xasprintf("%s\n$ %s\n%s", said, j->cmdline, old ? old : "");
		/* what the kernel and its flags make nvcc say, not a signal, a deadline or an odd wrapper */
		if (j->tmp_base && WIFEXITED(status) && !exited_0 && !j->linking)
			cache_store_failure(b->cache, j->key, j->tmp_base, bin->log);
		free(said);
		free(old);
	}
	free(j->tmp_base);
	j->tmp_base = NULL;
	free(j->cmdline);
	j->cmdline = NULL;
	free(j->obj);
	j->obj = NULL;
	free(j->compile_log);
	j->compile_log = NULL;
	return 0;
}

/* Looks the binary up in the cache; on a miss starts nvcc for it (build.rdc: its compile step).
 * 1: a job started, 0: done without one (a hit), -1: nvcc cannot be run. */
static int start_binary(const config *cfg, const space *s, build *b, size_t k, const char *nvcc, const char *arch,
			const char *devrt, const char *workdir, job *j, diags *d)
{
	binary *bin = &b->bins[k];
	size_t n;
	char **argv = nvcc_argv(cfg, space_config(s, bin->first_config), nvcc, arch,
				b->cache ? cache_dir(b->cache) : workdir, &n);
	memset(j, 0, sizeof *j);
	if (b->cache) {
		char **link = cfg->rdc ? link_argv(nvcc, arch, devrt, "", "") : NULL, **keyed = keyed_argv(argv, link);
		cache_key(b->identity, keyed, cfg->source, j->key);
		free(keyed);
		free_argv(link);
		char *log = NULL;
		int hit = cache_lookup(b->cache, j->key, &bin->cubin, &log);
		if (hit || (!b->retry_failures && cache_lookup_failure(b->cache, j->key, &log))) {
			bin->log = log;
			bin->cached = 1;
			bin->failed = !hit;
			b->cache_hits++;
			if (hit)
				resources_from_log(bin);
			free_argv(argv);
			return 0;
		}
		/* nvcc writes next to the entry and lists what it read (-MD -MF) for the entry's key */
		/* binaries that differ only in their entry point share one compile's key */
		char *base = cache_tmp_base(b->cache, j->key);
		j->tmp_base = xasprintf("%s.%zu", base, k);
		free(base);
		cache_clear_tmp(j->tmp_base);
		argv[n++] = xstrdup("-MD");
		argv[n++] = xstrdup("-MF");
		argv[n++] = xasprintf("%s.d", j->tmp_base);
		bin->cubin = xasprintf("%s.cubin", j->tmp_base);
		if (cfg->rdc)
			j->obj = xasprintf("%s.rdc.cubin", j->tmp_base);
	} else {
		bin->cubin = xasprintf("%s/%s_%zu.cubin", workdir, cfg->name, k);
		if (cfg->rdc)
			j->obj = xasprintf("%s/%s_%zu.rdc.cubin", workdir, cfg->name, k);
	}
	argv[n++] = xstrdup("-o");
	argv[n++] = xstrdup(j->obj ? j->obj : bin->cubin);
	argv[n] = NULL;
	if (proc_start(&j->p, argv, PROC_STDOUT | PROC_MERGE_STDERR)) {
		diags_add(d, "cannot run %s: %s", nvcc, strerror(errno));
		free_argv(argv);
		free(j->tmp_base);
		j->tmp_base = NULL;
		free(j->obj);
		j->obj = NULL;
		return -1;
	}
	b->nvcc_runs++;
	j->bin = k;
	j->started = now_seconds();
	j->cmdline = join_argv(argv);
	free_argv(argv);
	return 1;
}

/* build.rdc: the compile of job j wrote its relocatable cubin; the link takes its place in the
 * pool: 1. 0 when nvcc cannot be started again: the binary failed, saying why, and is done. */
static int start_link(build *b, job *j, const char *nvcc, const char *arch, const char *devrt)
{
	binary *bin = &b->bins[j->bin];
	j->compile_log = bin->log ? bin->log : xstrdup("");
	bin->log = NULL;
	j->linking = 1;
	free(j->cmdline);
	char **argv = link_argv(nvcc, arch, devrt, j->obj, bin->cubin);
	j->cmdline = join_argv(argv);
	int rc = proc_start(&j->p, argv, PROC_STDOUT | PROC_MERGE_STDERR);
	free_argv(argv);
	if (rc == 0)
		return 1;
	bin->failed = 1;
	bin->log = xasprintf("cannot run nvcc to link the device runtime: %s\n$ %s\n%s", strerror(errno), j->cmdline,
			     j->compile_log);
	unlink(j->obj);
	if (j->tmp_base) {
		char *deps = xasprintf("%s.d", j->tmp_base);
		unlink(deps);
		free(deps);
	}
	free(j->obj);
	free(j->compile_log);
	free(j->cmdline);
	free(j->tmp_base);
	j->obj = j->compile_log = j->cmdline = j->tmp_base = NULL;
	return 0;
}

/* The pool in flight: jobs running, which binaries have started and finished. */
struct builder {
	const config *cfg;
	const space *s;
	build *b;
	const char *nvcc, *arch, *workdir;
	char *devrt;      /* build.rdc: the device runtime library found beside nvcc, or NULL */
	double timeout_s;
	build_progress_fn progress;
	void *ctx;
	diags *d;
	job *running;
	struct pollfd *pfds;
	size_t jobs, nrun, next, done;
	char *started, *finished;
	double t0, t_last; /* begin, and when the last binary was done */
	int rc;
	const volatile sig_atomic_t *stop[2]; /* either set: what is not compiled yet never will be */
	repeat rep;                        /* the first binaries' failures alike */
	size_t spread;                     /* how far repeat_spread's order has been started */
	/* on demand (a search): only what was waited for, committed or hinted (ahead.h's order) */
	int on_demand;
	ahead *plan;
};

/* Starts binary k now (it has a free slot); a cache hit finishes at once. */
static void launch(builder *bd, size_t k)
{
	bd->started[k] = 1;
	ahead_started(bd->plan, k);
	int r = start_binary(bd->cfg, bd->s, bd->b, k, bd->nvcc, bd->arch, bd->devrt, bd->workdir, &bd->running[bd->nrun],
			     bd->d);
	if (r < 0) {
		bd->rc = -1;
		bd->finished[k] = 1;
		ahead_done(bd->plan, k, -1);
		return;
	}
	if (r > 0) {
		trace_event("nvcc start %zu (%zu running)", k, bd->nrun + 1);
		bd->nrun++;
		return;
	}
	if (!bd->b->bins[k].failed)
		signature_check_binary(bd->cfg, bd->b, &bd->b->bins[k]);
	repeat_note(&bd->rep, &bd->b->bins[k]);
	bd->finished[k] = 1;
	ahead_done(bd->plan, k, -1);
	bd->done++;
	bd->t_last = now_seconds();
	if (bd->progress)
		bd->progress(bd->ctx, bd->done, bd->b->nbins);
}

/* What a free slot builds next: `want`, else what ahead.h's order says, else (building
 * everything) the next in the plan's order; -1 when nothing. *urgent as ahead_next's. */
static long long next_binary(builder *bd, long long want, int *urgent)
{
	*urgent = 1;
	if (bd->b->held_after)
		return -1;
	if (!bd->on_demand && bd->rep.bound && !bd->rep.broken) {
		/* building everything while each binary done failed alike: repeat_spread's order */
		while (bd->spread < bd->b->nbins && bd->started[repeat_spread(&bd->rep, bd->spread)])
			bd->spread++;
		return bd->spread < bd->b->nbins ? (long long)repeat_spread(&bd->rep, bd->spread) : -1;
	}
	if (want >= 0 && !bd->started[want])
		return want;
	long long k = ahead_next(bd->plan, urgent);
	if (k >= 0 || bd->on_demand)
		return k;
	while (bd->next < bd->b->nbins && bd->started[bd->next])
		bd->next++;
	return bd->next < bd->b->nbins ? (long long)bd->next : -1;
}

/* A job killed: its relocatable cubin removed (a work directory must be empty to go), what it
 * holds freed. */
static void forget_job(job *j)
{
	if (j->obj)
		unlink(j->obj);
	free(j->obj);
	free(j->compile_log);
	free(j->cmdline);
	free(j->tmp_base);
	j->obj = j->compile_log = j->cmdline = j->tmp_base = NULL;
}

/* Job i stops before its binary is built, which may start again later: what it wrote goes. */
static void kill_job(builder *bd, size_t i)
{
	job *j = &bd->running[i];
	binary *bin = &bd->b->bins[j->bin];
	proc_kill(&j->p);
	/* what nvcc left half written (in a work directory it goes with the directory) */
	if (j->tmp_base) {
		char *deps = xasprintf("%s.d", j->tmp_base);
		unlink(bin->cubin);
		unlink(deps);
		free(deps);
	}
	forget_job(j);
	bd->started[j->bin] = 0;
	ahead_stopped(bd->plan, j->bin);
	free(bin->cubin);
	bin->cubin = NULL;
	bd->running[i] = bd->running[--bd->nrun];
}

/* A search's urgent binary takes the slot of the latest started of those only hinted. */
static int make_room(builder *bd)
{
	long long v = bd->on_demand ? ahead_victim(bd->plan) : -1;
	for (size_t i = 0; v >= 0 && i < bd->nrun; i++)
		if (bd->running[i].bin == (size_t)v) {
			trace_event("nvcc stop %zu (a committed binary takes its slot)", (size_t)v);
			kill_job(bd, i);
			return 1;
		}
	return 0;
}

/* Why binaries are left unbuilt (stop_all): a signal stopped the run, a search did not need them,
 * or the first binaries all failed alike. */
enum { LEFT_STOPPED, LEFT_SKIPPED, LEFT_HELD };

/* Compiles in flight are killed, and every binary not built is failed and killed (skipped or held
 * too, as why says), so that its configurations read as not run rather than as compile errors. */
static void stop_all(builder *bd, int why)
{
	static const char *const said[] = {"not compiled: the run was stopped", "not compiled: the search did not need it"};
	while (bd->nrun)
		kill_job(bd, bd->nrun - 1);
	if (why == LEFT_HELD)
		bd->b->held_after = bd->rep.alike;
	for (size_t k = 0; k < bd->b->nbins; k++)
		if (!bd->finished[k]) {
			binary *bin = &bd->b->bins[k];
			bin->failed = bin->killed = 1;
			bin->skipped = why == LEFT_SKIPPED;
			bin->held = why == LEFT_HELD;
			free(bin->log);
			bin->log = why == LEFT_HELD ? xasprintf("not compiled: the first %zu binaries all failed with the same "
								"error (--keep-going compiles the rest)", bd->rep.alike)
						    : xstrdup(said[why]);
			bd->finished[k] = 1;
			ahead_done(bd->plan, k, -1);
			bd->done++;
		}
}

/* Fills free slots, `want` first when it has not started; then waits up to wait_ms for output
 * and collects the jobs that ended. */
static void step(builder *bd, long long want, int wait_ms)
{
	int urgent;
	long long k;
	if (repeat_over(&bd->rep, bd->nrun) && !bd->b->held_after)
		stop_all(bd, LEFT_HELD);
	while (bd->rc == 0 && !repeat_holds(&bd->rep, bd->nrun) && (k = next_binary(bd, want, &urgent)) >= 0) {
		if (bd->nrun >= bd->jobs && !(urgent && make_room(bd)))
			break;
		launch(bd, (size_t)k);
	}
	if (bd->rc || bd->nrun == 0)
		return;
	for (size_t i = 0; i < bd->nrun; i++)
		bd->pfds[i] = (struct pollfd){bd->running[i].p.out, POLLIN, 0};
	if (poll(bd->pfds, bd->nrun, wait_ms) < 0 && errno != EINTR)
		return;
	for (size_t i = 0; i < bd->nrun;) {
		job *j = &bd->running[i];
		int eof = 0;
		if (bd->pfds[i].revents) {
			ssize_t r = proc_read_some(&j->p);
			eof = r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR);
		}
		int late = bd->timeout_s > 0 && now_seconds() - j->started > bd->timeout_s;
		if (!eof && !late) {
			i++;
			continue;
		}
		binary *bin = &bd->b->bins[j->bin];
		bin->log = j->p.dropped ? xasprintf("%s\n[%zu more bytes of nvcc's output not kept]", j->p.buf, j->p.dropped)
					: xstrdup(j->p.buf ? j->p.buf : "");
		if (finish_job(bd->b, j, late ? 0 : -1, bd->devrt) && start_link(bd->b, j, bd->nvcc, bd->arch, bd->devrt)) {
			i++;
			continue;
		}
		if (!bin->failed)
			signature_check_binary(bd->cfg, bd->b, bin);
		repeat_note(&bd->rep, bin);
		bd->finished[j->bin] = 1;
		ahead_done(bd->plan, j->bin, bin->failed ? -1 : bin->seconds);
		bd->done++;
		bd->t_last = now_seconds();
		if (bd->progress)
			bd->progress(bd->ctx, bd->done, bd->b->nbins);
		/* keep the running list dense; pfds is rebuilt before the next poll */
		bd->running[i] = bd->running[--bd->nrun];
		bd->pfds[i] = bd->pfds[bd->nrun];
	}
}

static builder *new_builder(const config *cfg, const space *s, build *b, const build_opts *opt, int on_demand)
{
	builder *bd = xcalloc(1, sizeof *bd);
	bd->cfg = cfg;
	bd->s = s;
	bd->b = b;
	bd->nvcc = opt->nvcc;
	bd->arch = opt->arch;
	bd->workdir = opt->workdir;
	bd->devrt = cfg->rdc ? find_devrt(opt->nvcc) : NULL;
	bd->timeout_s = opt->timeout_s;
	bd->progress = opt->progress;
	bd->ctx = opt->ctx;
	bd->d = opt->d;
	bd->jobs = opt->jobs < 1 ? 1 : (size_t)opt->jobs;
	repeat_start(&bd->rep, opt->keep_going ? 0 : 2 * bd->jobs,
		     s->reference >= 0 && (size_t)s->reference < s->count ? b->of_config[s->reference] : 0, b->nbins);
	bd->t0 = now_seconds();
	bd->on_demand = on_demand;
	bd->running = xcalloc(bd->jobs, sizeof *bd->running);
	bd->pfds = xcalloc(bd->jobs, sizeof *bd->pfds);
	bd->started = xcalloc(b->nbins + 1, 1);
	bd->finished = xcalloc(b->nbins + 1, 1);
	/* building everything: hints in order, nothing held back */
	bd->plan = ahead_new(cfg, s, b, bd->jobs, on_demand ? ahead_enabled() : 1);
	return bd;
}

builder *build_begin(const config *cfg, const space *s, build *b, const build_opts *opt)
{
	builder *bd = new_builder(cfg, s, b, opt, 0);
	step(bd, -1, 0);
	return bd;
}

void build_stop_when(builder *bd, const volatile sig_atomic_t *flag, const volatile sig_atomic_t *also) { bd->stop[0] = flag, bd->stop[1] = also; }
#define STOP_ASKED(bd) (((bd)->stop[0] && *(bd)->stop[0]) || ((bd)->stop[1] && *(bd)->stop[1]))

builder *build_begin_on_demand(const config *cfg, const space *s, build *b, const build_opts *opt)
{
	return new_builder(cfg, s, b, opt, 1);
}

void build_hint(builder *bd, const size_t *bins, size_t n)
{
	ahead_hint(bd->plan, bins, n);
	step(bd, -1, 0); /* start them now; the caller goes on at once */
}

int build_poll(builder *bd, size_t bin, int wait_ms)
{
	ahead_want(bd->plan, bin);
	if (bd->rc == 0 && !bd->finished[bin] && STOP_ASKED(bd))
		stop_all(bd, LEFT_STOPPED);
	else if (bd->rc == 0 && !bd->finished[bin])
		step(bd, (long long)bin, wait_ms);
	return bd->rc;
}

int build_wait(builder *bd, size_t bin)
{
	while (build_poll(bd, bin, 200) == 0 && !bd->finished[bin])
		continue;
	return bd->rc;
}

void build_commit(builder *bd, const size_t *bins, size_t n)
{
	ahead_commit(bd->plan, bins, n);
	step(bd, -1, 0);
}

int build_done(const builder *bd, size_t bin) { return bd->finished[bin]; }

ahead *build_ahead(builder *bd) { return bd->plan; }

int build_end(builder *bd, double *seconds)
{
	if (bd->on_demand && bd->rc == 0)
		stop_all(bd, STOP_ASKED(bd) ? LEFT_STOPPED : LEFT_SKIPPED); /* what the search did not wait for */
	while (bd->rc == 0 && bd->done < bd->b->nbins) {
		if (STOP_ASKED(bd))
			stop_all(bd, LEFT_STOPPED);
		else
			step(bd, -1, 200);
	}
	int rc = bd->rc;
	if (seconds)
		*seconds = (bd->t_last > 0 ? bd->t_last : now_seconds()) - bd->t0;
	for (size_t i = 0; i < bd->nrun; i++) {
		proc_kill(&bd->running[i].p);
		forget_job(&bd->running[i]);
	}
	repeat_free(&bd->rep);
	free(bd->devrt);
	free(bd->running);
	free(bd->pfds);
	ahead_free(bd->plan);
	free(bd->started);
	free(bd->finished);
	free(bd);
	return rc;
}

int build_run(const config *cfg, const space *s, build *b, const build_opts *opt)
{
	return build_end(build_begin(cfg, s, b, opt), NULL);
}
