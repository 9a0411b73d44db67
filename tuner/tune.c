/* tune.c: a tuning run, stage by stage: load the config and its space, check what the run needs,
 * find the target and start the GPUs, compile (and measure, overlapped), select, write. */
#define _GNU_SOURCE
#include "tune.h"
#include "tune_opts.h"

#include <errno.h>
#include <math.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "hostref.h"
#include "wrong_split.h"
#include "compile.h"
#include "config.h"
#include "devices.h"
#include "inputs.h"
#include "instances.h"
#include "journal.h"
#include "reuse.h"
#include "measure.h"
#include "plan.h"
#include "occupancy.h"
#include "output.h"
#include "plan.h"
#include "proc.h"
#include "progress.h"
#include "publish.h"
#include "replay.h"
#include "result.h"
#include "run_names.h"
#include "run_files.h"
#include "runner.h"
#include "gpu_guess.h"
#include "search.h"
#include "select.h"
#include "stages.h"
#include "signals.h"
#include "signature.h"
#include "space.h"
#include "spec_files.h"
#include "summary.h"
#include "completeness.h"
#include "unchanged.h"
#include "banned.h"

/* the cubin cache is trimmed to this after every build (least recently used first) */
#define CACHE_MAX_BYTES (1ULL << 30)
/* nvcc of one kernel takes about a second; a minute means something is wrong */
#define NVCC_TIMEOUT 300.0

/* A signal that stops jobs stopped this binary's nvcc (under a batch system's time limit it reaches
 * the whole job, nvcc perhaps before the tuner), or the run stopped before it started: what it
 * compiles is unknown, not in error, and its configurations are not run. */
static int stopped_compile(const binary *b) { return b->killed; }

/* Configuration r of binary bin: what compiling it made of it. One never compiled, as the first
 * binaries all failed alike, says so in the results (not run, not a compile error). */
static void apply_binary(int cc, const binary *bin, result *r)
{
	if (!stopped_compile(bin))
		plan_apply_binary(bin, cc, r);
	else if (bin->held && r->st == ST_NOT_RUN && !r->message)
		result_set_message(r, xstrdup(bin->log));
}

/* An entry point that the module does not have, or whose parameters the arguments do not fit,
 * is a config error, not a space of compile errors: said of the reference's binary, before
 * anything runs. (Another binary that does not fit, an entry of its own, fails alone.) */
static int missing_entry(const config *cfg, const binary *bin, diags *d)
{
	if (bin->failed && bin->bad_args) {
		diags_add(d, "%s", bin->log); /* file:line:col: why */
		return 1;
	}
	if (!bin->failed || !strstr(bin->log, "' not found in the compiled module"))
		return 0;
	diags_at(d, cfg->path, cfg->entry_at.line, cfg->entry_at.col, "%s", bin->log);
	return 1;
}


static void compile_progress(void *ctx, size_t done, size_t total) { progress_compile(ctx, done, total); }

/* Only the work directory's own cubins go; cached ones stay. */
static void remove_workdir(const char *dir, const build *b)
{
	size_t n = strlen(dir);
	for (size_t i = 0; i < b->nbins; i++)
		if (b->bins[i].cubin && !strncmp(b->bins[i].cubin, dir, n) && b->bins[i].cubin[n] == '/')
			unlink(b->bins[i].cubin);
	rmdir(dir);
}

static void iso_date(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static runner *join_gpu(void *set, size_t lane) { return devices_join(set, lane); }

/* One tuning run's state, stage to stage; tune() runs the stages and tuning_free() lets go of
 * whatever was made, however far the run got. */
typedef struct {
	const options *o;
	instance_run *ir;    /* one instance of several (instances.c), or NULL */
	diags d;
	int code;            /* the exit status so far */
	config cfg;
	space sp;
	int loaded, enumerated; /* cfg and sp hold what is theirs to free */
	build b;
	result *res;
	/* the checks before anything slow */
	strategy strat;
	size_t budget;
	double seconds;
	char *nvcc, *identity;
	cubin_cache *cache;
	/* the target and the GPUs */
	const char *arch;
	char gpu_arch[16], guess_arch[16];
	int cc;
	char *wpath, *wlog;
	runner *rn;          /* a dry run's look at the GPU, for its architecture */
	gpu_set gs;
	device_info dev;
	double start_s;      /* when the run began (now_seconds) */
	double setup_s;      /* starting the first GPU's worker: the driver and a context */
	double ref_wait_s;   /* waiting for the reference's binary before measuring */
	double inputs_wait_s; /* then for the first GPU's arguments and warm-up (devices_ready) */
	measure_opts mo;     /* the measuring stage's options and what it says of its time */
	char workdir[PATH_MAX];
	int have_workdir;
	/* compiling and measuring */
	progress compiles;
	builder *bd;         /* the compiles, from when the target is known (a guess: gpu_guess.h) */
	int prior_refused;   /* --prior named a recording that cannot rank this space */
	char *jpath;
	journal *jr;
	double *prior;
	size_t start[1], nstart; /* an instance's search starts there (instance_seed) */
	double compile_s;
	choice pick;
	char *counters_note, *journal_note, *reference_note;
	char *setting; /* reuse_setting: what every measurement's identity shares */
} tuning;

/* Stops the run with this status (the reason already in t->d): the stages return it as 1. */
static int stop(tuning *t, int code)
{
	t->code = code;
	return 1;
}

/* Stops a run that a signal stopped before it measured anything: nothing is written. */
static int stopped(tuning *t)
{
	if (!t->o->quiet)
		fprintf(stderr, "autotune: %s before anything was measured: nothing written\n",
			interrupted == SIGTERM ? "terminated" : "interrupted");
	return stop(t, interrupted == SIGTERM ? EXIT_TERMINATED : EXIT_INTERRUPTED);
}

/* Whether a space too large to list may be searched in a sample of it: by `validate` (which checks
 * the sample a run would search) and by a budget of evaluations or seconds, not by a fraction of
 * a space whose whole is out of reach, nor by measuring everything. */
static int may_sample(const options *o, const config *cfg)
{
	const char *b = o->budget ? o->budget : cfg->search_budget;
	return o->cmd == CMD_VALIDATE || (b && !strchr(b, '%'));
}

/* The config, its space (a shard's slice), each configuration's launch geometry and the plan of
 * binaries. */
static int load(tuning *t)
{
	const options *o = t->o;
	if (t->ir ? config_load_instance(o->config, t->ir->index, &t->cfg, &t->d) : config_load(o->config, &t->cfg, &t->d))
		return stop(t, EXIT_USAGE);
	diags_print(&t->cfg.warnings);
	t->loaded = 1;
	/* several instances: each is a run of its own (instances.c); only the hash is of them all */
	int one_line = o->cmd == CMD_VALIDATE && (o->print_spec_hash || o->print_instances);
	if (!t->ir && t->cfg.instances.ninst && !one_line) {
		signals_at_once(0); /* each instance writes its part */
		return stop(t, instances_tune(o, &t->cfg, tune_instance, &t->d));
	}
	if (t->ir)
		instance_use_part(&t->cfg, t->ir);
	/* a dry run's results are files of their own (NAME.dry-run.csv, a shard's
	 * NAME.dry-run.shard-I-of-N.csv): it never replaces what a run measured */
	char *dry = o->dry_run && o->cmd != CMD_VALIDATE && !o->replay ? run_name(t->cfg.csv_path, RUN_FILE_DRY_CSV) : NULL;
	/* before the workers start: whether they prepare the profiler depends on the metrics */
	int rc = config_override(&t->cfg, &(config_overrides){o->metrics, o->shard, o->nshards}, &t->d);
	/* the journal, and its lock, of the results the config names: a dry run takes that lock too */
	t->jpath = run_name(t->cfg.csv_path, RUN_FILE_JOURNAL);
	if (dry && rc == 0) {
		free(t->cfg.csv_path);
		t->cfg.csv_path = dry;
		dry = NULL;
		rc = config_override(&t->cfg, &(config_overrides){NULL, o->shard, o->nshards}, &t->d);
	}
	free(dry);
	if (rc)
		return stop(t, EXIT_USAGE);
	if ((may_sample(o, &t->cfg) ? space_enumerate_sampled : space_enumerate)(&t->cfg, &t->sp, &t->d))
		return stop(t, EXIT_USAGE);
	t->enumerated = 1;
	trace_event("enumerated %zu configurations", t->sp.count);
	if (o->nshards) {
		/* a job array's task: its own slice of the space, its own CSV, journal and worker log;
		 * `autotune merge` joins the CSVs and writes the header */
		size_t whole = t->sp.count;
		space_shard(&t->sp, t->cfg.has_reference, o->shard, o->nshards);
		if (!t->sp.count) {
			diags_add(&t->d, "autotune: shard %d/%d is empty: %s has only %zu configurations", o->shard, o->nshards,
				  t->cfg.path, whole);
			return stop(t, EXIT_USAGE);
		}
	}
	if (o->cmd == CMD_VALIDATE && !o->replay) {
		/* validate keeps no results: each launch is checked, a slice at a time */
		if (space_check_geometry(&t->cfg, &t->sp, &t->d))
			return stop(t, EXIT_USAGE);
	} else {
		t->res = xcalloc(t->sp.count, sizeof *t->res);
		if (space_eval_geometry(&t->cfg, &t->sp, t->res, &t->d))
			return stop(t, EXIT_USAGE);
	}
	trace_event("launch geometry evaluated");
	build_plan(&t->cfg, &t->sp, &t->b);
	trace_event("planned %zu binaries", t->b.nbins);
	return 0;
}

/* `autotune validate`: the size of the space, the spec's hash, or the instances' problems. */
static void validate(tuning *t)
{
	const options *o = t->o;
	if (o->print_instances) {
		for (size_t i = 0; i < t->cfg.instances.ninst; i++) {
			char *label = config_instance_label(&t->cfg, i);
			printf(o->ninputs > 1 ? "%s  %s\n" : "%s\n", label, o->config);
			free(label);
		}
		return;
	}
	if (o->print_spec_hash) {
		char spec[17];
		config_spec_hash(&t->cfg, spec);
		/* one config: the bare hash, for a build to compare; several: which is which */
		if (o->ninputs > 1)
			printf("%s  %s\n", spec, o->config);
		else
			printf("%s\n", spec);
		return;
	}
	spec_files_say_stale(&t->cfg);
	if (t->sp.sampled) {
		printf("%s: ok: %s%llu valid configurations of %zu combinations, more than can be listed: a run with "
		       "--budget N (or Ns) searches a uniform sample of %zu of them (%zu distinct %s, each launch checked)\n",
		       o->config, t->sp.valid_over ? "over " : "", t->sp.valid, t->sp.total, t->sp.count, t->b.nbins, plural(t->b.nbins, "binary", "binaries"));
		return;
	}
	printf("%s: ok: %zu valid %s of %zu %s, %zu distinct %s\n", o->config, t->sp.count,
	       plural(t->sp.count, "configuration", "configurations"), t->sp.total,
	       plural(t->sp.total, "combination", "combinations"), t->b.nbins, plural(t->b.nbins, "binary", "binaries"));
}

/* What the run needs, checked before anything slow starts: options that make sense (a dry run
 * too, where they would only be ignored), somewhere to write, nvcc, the cache. */
static int check_inputs(tuning *t)
{
	const options *o = t->o;
	if (tune_budget(o, &t->cfg, t->sp.count, &t->budget, &t->seconds, &t->d) ||
	    tune_strategy(o, &t->cfg, t->budget, t->seconds, &t->strat, &t->d) ||
	    (o->devices && devices_check(o->devices, &t->d)) || run_check_outputs(&t->cfg, o, &t->d))
		return stop(t, EXIT_USAGE);
	/* before anything is started or written (a worker log, a work directory): one run at a time */
	if (!(t->jr = journal_lock(t->jpath, &t->d)) || journal_check_owner(t->jr, t->cfg.path, &t->d))
		return stop(t, EXIT_USAGE);
	char *lock = xasprintf("%s.lock", t->jpath);
	signals_lock_file(lock);
	free(lock);
	run_reclaim_outputs(&t->cfg, o);
	if (!(t->nvcc = find_nvcc())) {
		const char *env = getenv("NVCC");
		if (env && *env)
			diags_add(&t->d, "autotune: NVCC='%s' is not an executable file%s: set NVCC to nvcc's path, or unset it",
				  env, strchr(env, '/') ? "" : " nor a program on PATH");
		else
			diags_add(&t->d, "autotune: nvcc not found: install the CUDA toolkit, or set NVCC or CUDA_HOME");
		return stop(t, EXIT_USAGE);
	}
	if (!o->no_cache) {
		char *dir = o->cache_dir ? xstrdup(o->cache_dir) : cache_default_dir();
		if (!dir)
			diags_add(&t->d, "autotune: no cache directory: set XDG_CACHE_HOME or HOME, or give --cache-dir DIR "
					 "(--no-cache runs without one)");
		/* cubins are written there by nvcc, whose steps run through /bin/sh */
		char *why = dir ? proc_shell_refusal("autotune: the cache directory", dir,
						      "give --cache-dir DIR elsewhere, or --no-cache") : NULL;
		if (why) {
			diags_add(&t->d, "%s", why);
			free(why);
			free(dir);
			return stop(t, EXIT_USAGE);
		}
		t->cache = dir ? cache_open(dir, &t->d) : NULL;
		free(dir);
		if (!t->cache)
			return stop(t, EXIT_USAGE);
	}
	char *bindir = nvcc_bindir(t->nvcc);
	t->identity = cache_compiler_identity(t->nvcc, bindir, t->cfg.rdc);
	free(bindir);
	return 0;
}

/* The GPUs of a run, or a dry run's look at one for its architecture when none is given. */
static int start_gpus(tuning *t)
{
	const options *o = t->o;
	t->wpath = devices_worker_path();
	/* a dry run's worker only names the GPU: what it says goes to the log too, so that a missing
	 * driver is one line of the message instead of the loader's raw complaint */
	t->wlog = run_name(t->cfg.csv_path, RUN_FILE_WORKER_LOG);
	unlink(t->wlog);
	signals_worker_log(t->wlog);
	if (o->dry_run) {
		diags why = {0};
		if (!(t->rn = runner_start(t->wpath, o->device < 0 ? 0 : o->device, NULL, &t->dev, t->wlog, &why)))
			diags_add(&t->d, "autotune: a dry run with no GPU needs a target: give --arch sm_90 (or kernel.arch); "
					 "no GPU answered: %s", why.n ? why.msgs[0] : "unknown reason");
		diags_free(&why);
	} else {
		double t0 = now_seconds();
		int rc = devices_start(o, t->wpath, &t->cfg, t->wlog, &t->gs, &t->d);
		if (rc == 0)
			t->dev = t->gs.info[0];
		else if (rc == -1) /* no GPU answered at all */
			diags_add(&t->d, "autotune: without a GPU, `autotune --dry-run --arch sm_90 %s` compiles every variant and "
					 "reports registers, spills and occupancy", o->config);
		t->setup_s = now_seconds() - t0;
	}
	if (!t->rn && !t->gs.n) {
		/* the message quotes the log of a worker that found no GPU: nothing worth keeping */
		unlink(t->wlog);
		return stop(t, EXIT_USAGE);
	}
	return 0;
}

static builder *begin_build(tuning *t);

/* The build plan's cubin cache, as the run found it (--fresh retries cached failures). */
static void builds_use_cache(tuning *t)
{
	t->b.cache = t->cache;
	t->b.identity = t->identity;
	t->b.retry_failures = t->o->fresh;
}


/* When NVML names the GPUs' architecture, nvcc starts on it while the worker opens the GPU. */
static void guess_target(tuning *t)
{
	int cc;
	if (t->arch || t->o->dry_run || (cc = gpu_guess_cc()) <= 0)
		return;
	snprintf(t->guess_arch, sizeof t->guess_arch, "sm_%d", cc);
	trace_event("NVML says %s", t->guess_arch);
	t->arch = t->guess_arch;
	t->cc = cc;
	t->bd = begin_build(t);
}

/* Compiles begun before the GPU answered that the run no longer wants: stopped, none left running. */
static void abandon_build(tuning *t)
{
	static const volatile sig_atomic_t stop_now = 1;
	if (!t->bd)
		return;
	build_stop_when(t->bd, &stop_now, NULL);
	build_end(t->bd, NULL);
	t->bd = NULL;
}

/* A wrong guess: the compiles begun on it stop, and the plan starts afresh (those done stay in
 * the cache). */
static void check_guess(tuning *t)
{
	if (!t->bd || !strcmp(t->guess_arch, t->gpu_arch))
		return;
	trace_event("the GPU is %s, not %s: compiles begun again", t->gpu_arch, t->guess_arch);
	abandon_build(t);
	progress_end(&t->compiles);
	build_free(&t->b);
	memset(&t->b, 0, sizeof t->b);
	build_plan(&t->cfg, &t->sp, &t->b);
	builds_use_cache(t);
	free(t->prior);
	t->prior = NULL;
	t->arch = NULL;
}

/* A work directory, with verify.host built in it; the target: --arch, else the config's, else
 * the GPU's (asked of a worker, so this process never loads the driver). */
static int find_target(tuning *t)
{
	const options *o = t->o;
	const char *tmp = getenv("TMPDIR");
	/* the work directory is nvcc's output directory, and nvcc's steps run through /bin/sh */
	char *why = tmp ? proc_shell_refusal("autotune: TMPDIR", tmp, "set TMPDIR to another directory") : NULL;
	if (why) {
		diags_add(&t->d, "%s", why);
		free(why);
		return stop(t, EXIT_USAGE);
	}
	run_reclaim_workdirs(tmp && *tmp ? tmp : "/tmp");
	snprintf(t->workdir, sizeof t->workdir, "%s/autotune-%ld-XXXXXX", tmp && *tmp ? tmp : "/tmp", (long)getpid());
	if (!mkdtemp(t->workdir)) {
		diags_add(&t->d, "autotune: cannot create a work directory '%s': %s", t->workdir, strerror(errno));
		return stop(t, EXIT_USAGE);
	}
	t->have_workdir = 1;
	builds_use_cache(t);
	t->arch = o->arch ? o->arch : t->cfg.arch;
	guess_target(t); /* nvcc beside verify.host's compiler too */
	/* before the workers start: they call it once the arrays are filled */
	if (t->cfg.host.source && hostref_build(&t->cfg, t->workdir, &t->d))
		return stop(t, EXIT_USAGE);
	if (!o->dry_run || !t->arch) {
		if (start_gpus(t))
			return 1;
		snprintf(t->gpu_arch, sizeof t->gpu_arch, "sm_%d", t->dev.cc);
		check_guess(t);
		if (!t->arch)
			t->arch = t->gpu_arch;
		else if (strcmp(t->arch, t->gpu_arch))
			fprintf(stderr, "autotune: warning: compiling for %s but the GPU is %s (%s)\n", t->arch, t->gpu_arch,
				t->dev.name);
		if (o->dry_run) {
			runner_stop(t->rn);
			t->rn = NULL;
		}
	}
	t->cc = arch_parse(t->arch);
	if (t->cc < 0) {
		diags_add(&t->d, "autotune: '%s' is not an architecture like sm_90", t->arch);
		return stop(t, EXIT_USAGE);
	}
	if (!arch_known(t->cc))
		fprintf(stderr, "autotune: warning: no occupancy table for %s; occupancy is left empty\n", t->arch);
	return 0;
}


/* verify.kernel, launched first, whose arguments do not fit its parameters: said (a config error,
 * as for the reference configuration's entry). Its binary is built by then. */
static int reference_kernel_unfit(tuning *t)
{
	if (t->b.ref_bin < 0 || !t->b.bins[t->b.ref_bin].bad_args)
		return 0;
	diags_add(&t->d, "%s (the reference kernel, verify.kernel)", t->b.bins[t->b.ref_bin].log);
	return 1;
}

/* A dry run: every binary, then what each says (resources, occupancy, launches known to fail). */
static int dry_run(tuning *t)
{
	const options *o = t->o;
	progress bar;
	signals_at_once(0); /* the cache is written from here */
	progress_begin(&bar, !o->quiet, NULL, 0);
	double t0 = now_seconds();
	builder *bd = build_begin(&t->cfg, &t->sp, &t->b, &(build_opts){.nvcc = t->nvcc, .arch = t->arch,
		.workdir = t->workdir, .jobs = tune_jobs(o), .keep_going = o->keep_going, .timeout_s = NVCC_TIMEOUT,
		.progress = compile_progress, .ctx = &bar, .d = &t->d});
	/* a signal stops the compiles in flight: none is left running */
	build_stop_when(bd, &interrupted, NULL);
	int rc = build_end(bd, NULL);
	progress_end(&bar);
	t->compile_s = now_seconds() - t0;
	if (interrupted)
		return stopped(t);
	if (rc || missing_entry(&t->cfg, &t->b.bins[t->b.of_config[t->sp.reference]], &t->d))
		return stop(t, EXIT_USAGE);
	if (reference_kernel_unfit(t))
		return stop(t, EXIT_USAGE);
	warn_unchanged_params(&t->cfg, &t->sp, &t->b);
	signature_warn_unchecked(&t->cfg, &t->b);
	size_t compiled = 0;
	for (size_t c = 0; c < t->sp.count; c++) {
		apply_binary(t->cc, &t->b.bins[t->b.of_config[c]], &t->res[c]);
		compiled += !t->b.bins[t->b.of_config[c]].failed && !t->res[c].predicted;
	}
	if (!o->quiet)
		summary_failures(&t->cfg, &t->sp, &t->b);
	summary_dry_run(o, &t->cfg, &t->sp, &t->b, t->res, t->cc);
	/* a dry run checks in CI that the space builds: none built (or none that can launch) is a
	 * failure, as none passing is */
	if (!compiled)
		t->code = EXIT_NONE_PASSED;
	return 0;
}

/* The journal of earlier results: resumed from, or started afresh. */
static int open_journal(tuning *t)
{
	const options *o = t->o;
	journal_resume resume;
	signals_at_once(0); /* the journal is written from here */
	t->setting = reuse_setting(&t->cfg, &t->gs.info[0], t->gs.n);
	char *inputs = journal_run_inputs(&t->cfg, t->identity, t->arch, &t->gs.info[0], t->gs.n);
	char *key = journal_key_of(inputs);
	int rc = journal_start(t->jr, key, inputs, t->cfg.path, o->fresh, &t->sp, t->res, &resume, &t->d);
	free(key);
	free(inputs);
	if (rc)
		return stop(t, EXIT_USAGE);
	if (!o->quiet)
		reuse_say(t->jpath, &resume, o->fresh, o->retry_failed);
	trace_event("journal open");
	return 0;
}

/* A search's first proposals depend on no result (the model's first half, a random sequence): they
 * compile beside the reference's binary rather than after it. A seconds budget sizes the search
 * from the reference's compile time, so it waits. */
static void compile_first_proposals(tuning *t, builder *bd)
{
	if (!t->budget || !strategy_searches(t->strat, t->budget, t->seconds, t->sp.count)) {
		signals_at_once(0); /* the exhaustive pass compiles from here */
		return;
	}
	size_t budget = t->budget < t->sp.count ? t->budget : t->sp.count, cap = budget + t->nstart;
	size_t *first = xcalloc(cap + 1, sizeof *first), *bins = xcalloc(cap + 3, sizeof *bins), nb = 0;
	char *seen = xcalloc(t->b.nbins + 1, 1);
	/* the reference's binaries first: the run waits for them before anything else */
	bins[nb++] = t->b.of_config[t->sp.reference];
	seen[bins[0]] = 1;
	if (t->b.ref_bin >= 0 && !seen[t->b.ref_bin]++)
		bins[nb++] = (size_t)t->b.ref_bin;
	size_t n = search_first(&t->cfg, &t->sp, &(search_opts){.strategy = t->strat, .prior = t->prior, .budget = budget,
				.seed = tune_seed(t->o, &t->cfg), .start = t->start, .nstart = t->nstart}, first, cap);
	for (size_t i = 0; i < n; i++)
		if (!seen[t->b.of_config[first[i]]]++)
			bins[nb++] = t->b.of_config[first[i]];
	signals_at_once(0); /* the compiles start, and their binaries go into the cache */
	build_hint(bd, bins, nb);
	free(seen);
	free(bins);
	free(first);
}

/* Once measuring ends: the compiles' end, what the binaries tell, the winner, the exit status. */
static void measured(tuning *t, builder *bd)
{
	const measure_opts *mo = &t->mo;
	if (build_end(bd, &t->compile_s) && t->code == EXIT_WINNER)
		t->code = EXIT_USAGE;
	progress_end(&t->compiles);
	warn_unchanged_params(&t->cfg, &t->sp, &t->b);
	signature_warn_unchecked(&t->cfg, &t->b);
	for (size_t c = 0; c < t->sp.count; c++)
		apply_binary(t->cc, &t->b.bins[t->b.of_config[c]], &t->res[c]);
	if (!t->o->quiet)
		summary_failures(&t->cfg, &t->sp, &t->b);
	t->jr = mo->journal; /* NULL if writing it failed */
	select_winner(t->res, t->sp.count, &t->cfg.select, &t->pick);
	t->counters_note = mo->counters_note;
	t->journal_note = mo->journal_note;
	t->reference_note = mo->reference_note;
	if (t->code == EXIT_WINNER && t->pick.winner < 0)
		t->code = EXIT_NONE_PASSED;
	if (mo->journal_failed)
		t->code = EXIT_UNWRITTEN;
	else if (interrupted)
		t->code = interrupted == SIGTERM ? EXIT_TERMINATED : EXIT_INTERRUPTED;
}

/* --prior: another GPU's or size's recording ranks in place of the built-in model (the search
 * checks it against its first measurements and sets it aside if it misleads, search_prior.h). */
static int transfer_prior(tuning *t)
{
	double *transfer = replay_prior(&t->cfg, &t->sp, t->o->prior, t->prior, &t->d);
	if (!transfer)
		return -1;
	free(t->prior);
	t->prior = transfer;
	return 0;
}

/* The compiles begin: every binary, or a search's first proposals (the rest on demand). A prior
 * that cannot be used is said, and t->prior_refused set: the run stops before measuring. */
static builder *begin_build(tuning *t)
{
	const options *o = t->o;
	/* counts compiles until the measure bar takes the line, which then shows them too */
	progress_begin(&t->compiles, !o->quiet, NULL, 0);
	build_opts bo = {.nvcc = t->nvcc, .arch = t->arch, .workdir = t->workdir, .jobs = tune_jobs(o),
			 .keep_going = o->keep_going, .timeout_s = NVCC_TIMEOUT, .progress = compile_progress,
			 .ctx = &t->compiles, .d = &t->d};
	builder *bd = strategy_searches(t->strat, t->budget, t->seconds, t->sp.count)
			      ? build_begin_on_demand(&t->cfg, &t->sp, &t->b, &bo)
			      : build_begin(&t->cfg, &t->sp, &t->b, &bo);
	build_stop_when(bd, &interrupted, &t->mo.journal_failed);
	/* the model's ranking: the order of an exhaustive pass, and the search's first proposals */
	signals_at_once(!t->ir); /* not an instance of several: its run writes those before it */
	t->prior = search_model_prior(&t->cfg, &t->sp, t->res, t->cc);
	t->prior_refused = o->prior && transfer_prior(t);
	/* an instance's search starts from the nearest instance's winner, when one is tuned */
	if (t->ir && t->strat != STRAT_EXHAUSTIVE && strategy_searches(t->strat, t->budget, t->seconds, t->sp.count))
		t->nstart = instance_seed(t->ir, &t->cfg, &t->sp, t->start, o->quiet);
	compile_first_proposals(t, bd);
	return bd;
}

/* Compiles overlap with measuring: a configuration is measured as soon as its binary exists.
 * The reference's binary comes first, and tells whether the entry point exists. Then the
 * winner is chosen. */
static int compile_and_measure(tuning *t)
{
	const options *o = t->o;
	if (open_journal(t))
		return 1;
	builder *bd = t->bd ? t->bd : t->prior_refused ? NULL : begin_build(t);
	t->bd = NULL;
	if (t->prior_refused) {
		if (bd)
			build_end(bd, NULL);
		return stop(t, EXIT_USAGE);
	}
	double t0 = now_seconds();
	int ref_failed = build_wait(bd, t->b.of_config[t->sp.reference]);
	t->ref_wait_s = now_seconds() - t0;
	if (interrupted) {
		/* nothing measured yet: nothing to write; the compiles in flight are stopped */
		build_end(bd, NULL);
		return stopped(t);
	}
	if (ref_failed || missing_entry(&t->cfg, &t->b.bins[t->b.of_config[t->sp.reference]], &t->d) ||
	    (t->b.ref_bin >= 0 && build_wait(bd, (size_t)t->b.ref_bin)) || reference_kernel_unfit(t)) {
		build_end(bd, NULL);
		return stop(t, EXIT_USAGE);
	}
	/* the fills, the host reference and the warm-up went on beside nvcc */
	t0 = now_seconds();
	if (devices_ready(&t->gs, &t->d)) {
		build_end(bd, NULL);
		return stop(t, EXIT_USAGE);
	}
	t->inputs_wait_s = now_seconds() - t0;
	t->mo = (measure_opts){
		.progress = !o->quiet,
		.interrupted = &interrupted,
		.copy_gbps = devices_copy_bandwidth(t->gs.runners[0], &t->dev),
		.max_mhz = t->dev.clock_khz / 1000,
		.journal = t->jr,
		.setting = t->setting,
		.retry_failed = (o->retry_failed ? PLAN_RETRY_FAILED : 0) |
				(t->cfg.measure_energy ? PLAN_RETRY_NO_ENERGY : 0),
		.build = bd,
		.cc = t->cc,
		.strategy = t->strat,
		.budget = t->budget,
		.seconds = t->seconds,
		.seed = tune_seed(o, &t->cfg),
		.prior = t->prior,
		.start = t->start,
		.nstart = t->nstart,
		.policy = &t->cfg.select,
		.join = join_gpu,
		.join_ctx = &t->gs,
	};
	measure_opts *mo = &t->mo;
	if (!o->quiet && t->gs.n > 1)
		fprintf(stderr, "%s: measuring on %zu GPUs (%s), each from when it is ready\n", t->cfg.name, t->gs.n,
			t->dev.name);
	trace_event("measuring");
	if (measure_space(&t->cfg, &t->sp, &t->b, t->res, t->gs.runners, t->gs.n, mo, &t->d))
		t->code = EXIT_ENV;
	for (size_t i = 0; i < t->gs.n; i++) /* verify.host's function ended a worker: as at set-up */
		if (runner_host_failed(t->gs.runners[i])) {
			build_end(bd, NULL);
			return stop(t, EXIT_USAGE);
		}
	trace_event("measured");
	measured(t, bd);
	return 0;
}

/* Where the run's wall time went, so far as a user can change it (stages.h): the inputs are set
 * up beside nvcc, so only what outlasts it counts; "other" is loading, enumerating and hashing. */
static void stages(const tuning *t, double write_s)
{
	const measure_opts *mo = &t->mo;
	double part[STAGE_COUNT] = {t->setup_s, t->ref_wait_s + mo->wait_s, t->inputs_wait_s, mo->first_pass_s - mo->wait_s,
				    mo->final_s, mo->counters_s, write_s};
	stages_say(t->cfg.name, t->gs.n, now_seconds() - t->start_s, part);
}

/* How far a run that measured `measured` configurations got (a RUN_ word of table.h), as its
 * results record it. */
static const char *run_state(const tuning *t, size_t measured)
{
	if (t->o->dry_run)
		return RUN_DRY;
	if (t->mo.journal_failed)
		return RUN_UNJOURNALED;
	if (interrupted > 0)
		return interrupted == SIGTERM ? RUN_TERMINATED : RUN_INTERRUPTED;
	if (t->code == EXIT_ENV)
		return RUN_STOPPED;
	if (t->b.held_after)
		return RUN_HELD;
	if (t->mo.reference_failed)
		return RUN_NO_REFERENCE;
	if (t->sp.sampled) /* however much of the sample was measured, the space was not */
		return RUN_SAMPLE;
	if (measured == t->sp.count)
		return RUN_COMPLETE;
	return strategy_searches(t->strat, t->budget, t->seconds, t->sp.count) ? RUN_SEARCH : RUN_PARTIAL;
}

static int write_csv(void *rep, const char *path, diags *d) { return output_csv(rep, path, d); }

/* The CSV, then the header, make fragment and report from it (one writer for this and `autotune
 * header`; a shard's CSV is a part: `autotune merge` writes the header and report of the whole),
 * then the summary. */
static void write_outputs(tuning *t)
{
	const options *o = t->o;
	double t0 = now_seconds();
	if (t->cache)
		cache_evict(t->cache, CACHE_MAX_BYTES);
	char date[32];
	iso_date(date, sizeof date);
	char spec[17];
	config_spec_hash(&t->cfg, spec);
	gpu_id *gpus = xcalloc(t->gs.n + 1, sizeof *gpus);
	for (size_t i = 0; i < t->gs.n; i++)
		gpus[i] = (gpu_id){t->gs.info[i].name, t->gs.info[i].uuid};
	long long winner = t->pick.winner;
	run_extent run = {.configurations = t->sp.count};
	for (size_t c = 0; c < t->sp.count; c++)
		run.measured += t->res[c].st != ST_NOT_RUN;
	run.state = run_state(t, run.measured);
	outputs rep = {.cfg = &t->cfg, .sp = &t->sp, .b = &t->b, .res = t->res, .winner = winner, .arch = t->arch,
		       .date = date, .gpus = gpus, .ngpus = t->gs.n, .spec_hash = spec, .run = run.state};
	for (size_t c = run.measured = 0; c < t->sp.count; c++) /* as the CSV will say */
		run.measured += t->res[c].st != ST_NOT_RUN && output_listed(&rep, c);
	/* a shard's CSV, or an instance's, is a part of the whole, which has the header and report */
	published pub;
	int rc = publish(&(publish_opts){.cfg = &t->cfg, .csv = t->cfg.csv_path, .write_csv = write_csv, .ctx = &rep,
					 .part = o->nshards || t->ir, .winner = winner >= 0, .t4 = o->t4 || t->cfg.write_t4,
					 .spec_hash = spec, .b = &t->b},
			 &pub, &t->d);
	if (t->ir)
		instance_run_done(t->ir, &t->cfg, &t->sp, &t->b, pub.csv, winner, t->compile_s);
	if (rc) {
		/* what was measured is safe in the journal, and a run of the same command writes it */
		const char *journal = t->jpath;
		if (!o->dry_run && t->jr && access(journal, F_OK) == 0) {
			t->code = EXIT_UNWRITTEN;
			if (t->journal_note)
				diags_add(&t->d, "autotune: the measurements made before the journal failed are kept in %s: once "
						 "there is room, `autotune %s` writes them without measuring them again, and "
						 "measures the rest",
					  journal, o->config);
			else
				diags_add(&t->d, "autotune: the measurements are kept in %s: once the results can be written, "
						 "`autotune %s` writes them without measuring again",
					  journal, o->config);
		} else
			t->code = EXIT_USAGE;
	}
	free(gpus);
	trace_event("outputs written");
	if (o->quiet) {
		free(pub.t4);
		return;
	}
	if (!o->dry_run)
		stages(t, now_seconds() - t0);
	summary_counts(&t->cfg, &t->sp, &t->b, t->res, t->compile_s, o->dry_run);
	if (t->mo.reused)
		fprintf(stderr, "  reused %zu %s (identical binaries), measured %zu\n", t->mo.reused,
			plural(t->mo.reused, "measurement", "measurements"), t->mo.measured);
	summary_reference(t->reference_note);
	if (!o->dry_run)
		summary_wrong_split(&t->cfg, &t->sp, t->res);
	summary_winner(&t->cfg, &t->sp, t->res, &t->pick, &t->cfg.select);
	summary_run(&run);
	if (t->counters_note)
		fprintf(stderr, "  no hardware counters: %s\n", t->counters_note);
	if (t->journal_note)
		fprintf(stderr, "  warning: %s: the run stopped there; the same command, once the journal can be "
				"written, goes on from what it holds\n",
			t->journal_note);
	if (pub.csv && !t->ir)
		summary_paths(&t->cfg, pub.header, pub.report, pub.t4, o);
	free(pub.t4);
}

static void tuning_free(tuning *t)
{
	abandon_build(t);
	progress_end(&t->compiles); /* the line is clear before any message */
	choice_free(&t->pick);
	free(t->counters_note);
	free(t->journal_note);
	free(t->reference_note);
	journal_close(t->jr);
	cache_close(t->cache);
	free(t->prior);
	free(t->identity);
	free(t->setting);
	free(t->jpath);
	if (t->d.n)
		diags_print(&t->d);
	diags_free(&t->d);
	runner_stop(t->rn);
	devices_stop(&t->gs);
	/* a worker that wrote nothing leaves no log (its writers are all closed now) */
	struct stat st;
	if (t->wlog && stat(t->wlog, &st) == 0 && st.st_size == 0)
		unlink(t->wlog);
	free(t->wlog);
	if (t->have_workdir)
		remove_workdir(t->workdir, &t->b);
	for (size_t c = 0; t->res && c < t->sp.count; c++)
		free(t->res[c].message);
	free(t->res);
	free(t->nvcc);
	free(t->wpath);
	build_free(&t->b);
	if (t->enumerated)
		space_free(&t->sp);
	if (t->loaded)
		config_free(&t->cfg);
}

int tune(const options *o) { return tune_instance(o, NULL); }

int tune_instance(const options *o, instance_run *ir)
{
	tuning t;
	memset(&t, 0, sizeof t);
	t.o = o;
	t.ir = ir;
	t.pick = (choice){-1, -1, NULL, 0};
	t.start_s = now_seconds();
	trace_event("start");
	/* from the start, before the first child (the toolchain's probe, a dry run's compiles): a
	 * signal stops the run at the next step, the second kills every child at once, and no nvcc is
	 * left behind */
	if (!o->replay && o->cmd != CMD_VALIDATE) {
		/* until the journal or the cache is written, nothing is: a signal ends the run at once */
		signals_at_once(!ir);
		signals_install(o->quiet);
	}
	if (load(&t) == 0) {
		if (o->replay)
			t.code = tune_replay(o, &t.cfg, &t.sp, &t.d);
		else if (o->cmd == CMD_VALIDATE)
			validate(&t);
		else if (check_inputs(&t) == 0 && (!interrupted || stopped(&t) == 0) && find_target(&t) == 0 &&
			 (!interrupted || stopped(&t) == 0) && (o->dry_run ? dry_run(&t) : compile_and_measure(&t)) == 0)
			write_outputs(&t);
	}
	tuning_free(&t);
	/* a signal after the outputs were written: they are whole, and the run still ends as asked */
	if (interrupted > 0 && (t.code == EXIT_WINNER || t.code == EXIT_NONE_PASSED))
		t.code = interrupted == SIGTERM ? EXIT_TERMINATED : EXIT_INTERRUPTED;
	trace_event("end");
	return t.code;
}
