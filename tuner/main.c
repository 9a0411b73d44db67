/* main.c: the pipeline, stage by stage: load, enumerate, compile, compute occupancy, measure on
 * the GPU worker, select, write. Only this file prints diagnostics and chooses the exit code. */
#define _GNU_SOURCE
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

#include "cli.h"
#include "compile.h"
#include "devices.h"
#include "config.h"
#include "occupancy.h"
#include "output.h"
#include "proc.h"
#include "progress.h"
#include "result.h"
#include "runner.h"
#include "cache.h"
#include "hash.h"
#include "header.h"
#include "import.h"
#include "merge.h"
#include "report.h"
#include "show.h"
#include "journal.h"
#include "replay.h"
#include "search.h"
#include "measure.h"
#include "select.h"
#include "space.h"
#include "banned.h"

#define VERSION "0.1.0"
/* the cubin cache is trimmed to this after every build (least recently used first) */
#define CACHE_MAX_BYTES (1ULL << 30)
/* nvcc of one kernel takes about a second; a minute means something is wrong */
#define NVCC_TIMEOUT 300.0

/* the signal that asked the run to stop, or 0 */
static volatile sig_atomic_t interrupted;

/* SIGINT (Ctrl-C) and SIGTERM (kill, and what Slurm sends at a job's time limit, before SIGKILL)
 * alike: stop after the configuration in flight and write what was measured. */
static void on_stop_signal(int sig)
{
	/* the second one stops at once */
	if (interrupted)
		_exit(128 + sig);
	interrupted = sig;
}

/* A signal that stops jobs stopped this binary's nvcc (under a batch system's time limit it reaches
 * the whole job, nvcc perhaps before the tuner), or the run stopped before it started: what it
 * compiles is unknown, not in error, and its configurations are not run. */
static int stopped_compile(const binary *b) { return b->killed; }

/* --metrics overrides measure.metrics. */
static int apply_metrics_option(config *cfg, const char *m, diags *d)
{
	char *end;
	long k;
	if (!strcmp(m, "all"))
		cfg->metrics = METRICS_ALL;
	else if (!strcmp(m, "none"))
		cfg->metrics = METRICS_NONE;
	else if (!strncmp(m, "top:", 4) && (k = strtol(m + 4, &end, 10)) > 0 && !*end) {
		cfg->metrics = METRICS_TOP;
		cfg->metrics_top = (int)k;
	} else {
		diags_add(d, "autotune: --metrics takes all, none or top:K, not '%s'", m);
		return -1;
	}
	return 0;
}

/* Files that live next to the CSV: results/NAME.journal, results/NAME.worker.log. */
static char *output_sibling(const config *cfg, const char *suffix)
{
	const char *dot = strrchr(cfg->csv_path, '.'), *slash = strrchr(cfg->csv_path, '/');
	size_t n = dot && (!slash || dot > slash) ? (size_t)(dot - cfg->csv_path) : strlen(cfg->csv_path);
	return xasprintf("%.*s%s", (int)n, cfg->csv_path, suffix);
}

/* What decides whether earlier results are this run's too: the config file (sizes, flags,
 * arguments), the compiler, the target, the kernel source and the GPU with its driver. Headers
 * the source includes are covered per result: each journaled result names the code it measured
 * (compile.c's hash of the binary) and is reused only for that same code. */
static char *run_key(const config *cfg, const char *identity, const char *arch, const gpu_set *gs)
{
	hasher *h = hasher_new();
	hasher_add_file(h, cfg->path);
	hasher_add_str(h, identity);
	hasher_add_str(h, arch);
	hasher_add_file(h, cfg->source);
	/* the first GPU, the driver, and how many GPUs of that model (a result names its GPU by
	 * position; the others are still starting, and must be the first one's model) */
	char drv[64];
	snprintf(drv, sizeof drv, "%d %zu", gs->info[0].driver_version, gs->n);
	hasher_add_str(h, gs->info[0].name);
	hasher_add_str(h, gs->info[0].uuid);
	hasher_add_str(h, drv);
	char *key = xmalloc(17);
	hasher_finish(h, key);
	return key;
}

/* An entry point that the module does not have is a config error, not a space of compile
 * errors: every binary comes from the same source. */
static int missing_entry(const config *cfg, const binary *bin, diags *d)
{
	if (!bin->failed || !strstr(bin->log, "' not found in the compiled module"))
		return 0;
	diags_at(d, cfg->path, cfg->entry_at.line, cfg->entry_at.col, "%s", bin->log);
	return 1;
}

static int check_output_path(const char *path, diags *d);

/* --budget (else search.budget): evaluations (N), a fraction of the space (N%) or seconds (Ns,
 * into *seconds); 0 when not given. */
static int parse_budget(const options *o, const config *cfg, size_t count, size_t *budget, double *seconds, diags *d)
{
	const char *b = o->budget ? o->budget : cfg->search_budget;
	*budget = 0;
	*seconds = 0;
	if (b && budget_parse(b, count, budget, seconds)) {
		diags_add(d, "autotune: a budget is evaluations (N), a fraction of the space (N%%) or seconds (Ns), not '%s'", b);
		return -1;
	}
	return 0;
}

/* A cheap static model, lower is more promising: occupancy not reached, a block.x that splits
 * 32-byte sectors (fewer than 32 threads across: 12.5% load efficiency at block.x = 1, seed 00),
 * block sizes that are not a multiple of the warp, and register spills. */
static double static_model(const result *r, const binary *bin)
{
	double score = 1 - r->occupancy;
	long long threads = r->block[0] * r->block[1] * r->block[2];
	if (r->block[0] < 32)
		score += 1 - (double)r->block[0] / 32;
	if (threads % 32)
		score += 0.5;
	if (bin->res.spill_stores || bin->res.spill_loads)
		score += 1;
	return bin->failed || r->predicted ? 10 : score;
}

/* --replay: a strategy against a recorded run; the sequence goes to results/NAME.replay.csv. */
static int replay(const options *o, const config *cfg, const space *sp, diags *d)
{
	strategy s = STRAT_MODEL;
	if (o->strategy && strategy_parse(o->strategy, &s)) {
		diags_add(d, "autotune: unknown strategy '%s' (exhaustive, random, local, anneal, genetic, model)", o->strategy);
		return EXIT_USAGE;
	}
	size_t budget;
	double seconds;
	if (parse_budget(o, cfg, sp->count, &budget, &seconds, d))
		return EXIT_USAGE;
	if (!budget)
		budget = sp->count; /* a replay takes no time: a time budget means all of it */
	char *out = output_sibling(cfg, ".replay.csv");
	replay_result r;
	int rc = check_output_path(out, d) ? -1 : replay_run(cfg, sp, o->replay, s, budget, o->seed, out, &r, d);
	if (rc == 0 && !o->quiet) {
		char *desc = r.best_config >= 0 ? space_describe(cfg, space_config(sp, (size_t)r.best_config)) : xstrdup("none");
		fprintf(stderr, "replay: %s, seed %llu: %zu evaluations of %zu configurations; best found %s: %.4f ms, "
				"optimum %.4f ms (ratio %.4f)\n  sequence in %s\n",
			strategy_name(s), o->seed, r.evaluations, sp->count, desc, r.best_found, r.optimum,
			r.best_found / r.optimum, out);
		free(desc);
	}
	free(out);
	return rc ? EXIT_USAGE : EXIT_WINNER;
}

static int fail(diags *d, int code)
{
	diags_print(d);
	diags_free(d);
	return code;
}

/* Evaluates each configuration's launch geometry. An expression that cannot be evaluated for
 * some configuration is a config error, reported with that configuration. */
static int eval_geometry(const config *cfg, const space *sp, result *res, diags *d)
{
	for (size_t c = 0; c < sp->count; c++) {
		const value *vals = space_config(sp, c);
		result *r = &res[c];
		r->driver_blocks = -1;
		r->shares_with = -1;
		r->occ_limit = "";
		struct {
			const cexpr *x;
			long long *out;
			const char *what;
		} items[7] = {
			{&cfg->block[0], &r->block[0], "block x"}, {&cfg->block[1], &r->block[1], "block y"},
			{&cfg->block[2], &r->block[2], "block z"}, {&cfg->grid[0], &r->grid[0], "grid x"},
			{&cfg->grid[1], &r->grid[1], "grid y"},   {&cfg->grid[2], &r->grid[2], "grid z"},
			{&cfg->shared_mem, &r->smem, "shared_mem"},
		};
		for (int i = 0; i < 7; i++) {
			value v;
			if (!items[i].x->e) {
				*items[i].out = i == 6 ? 0 : 1;
				continue;
			}
			char *desc = space_describe(cfg, vals);
			int bad = cexpr_eval(cfg, items[i].x, vals, &v, d, desc);
			if (!bad && (v.kind != VAL_INT || v.u.i < (i == 6 ? 0 : 1) || v.u.i > UINT_MAX)) {
				char text[64];
				value_format(v, text, sizeof text);
				diags_at(d, cfg->path, items[i].x->at.line, items[i].x->at.col,
					 "launch %s must be a %s integer, but is %s (for %s)", items[i].what,
					 i == 6 ? "non-negative" : "positive", text, desc);
				bad = 1;
			}
			free(desc);
			if (bad)
				return -1;
			*items[i].out = v.u.i;
		}
	}
	return 0;
}

static char *worker_path(void)
{
	const char *env = getenv("AUTOTUNE_WORKER");
	if (env && *env)
		return xstrdup(env);
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = 0;
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			char *beside = xasprintf("%s/autotune-worker", self);
			if (access(beside, X_OK) == 0)
				return beside;
			free(beside);
			char *installed = xasprintf("%s/../libexec/autotune/autotune-worker", self);
			if (access(installed, X_OK) == 0)
				return installed;
			free(installed);
		}
	}
	return xstrdup("autotune-worker");
}

static void compile_progress(void *ctx, size_t done, size_t total) { progress_compile(ctx, done, total); }

static int check_output_path(const char *path, diags *d)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		/* found now, not once everything is measured */
		diags_add(d, "cannot write '%s': it is a directory", path);
		return -1;
	}
	const char *slash = strrchr(path, '/');
	if (!slash || slash == path)
		return 0;
	char *dir = xasprintf("%.*s", (int)(slash - path), path);
	int rc = 0;
	if (stat(dir, &st) != 0 && mkdir(dir, 0777) != 0 && errno != EEXIST) {
		diags_add(d, "cannot create the results directory '%s': %s", dir, strerror(errno));
		rc = -1;
	} else if (access(dir, W_OK) != 0) {
		diags_add(d, "the results directory '%s' is not writable: %s", dir, strerror(errno));
		rc = -1;
	}
	free(dir);
	return rc;
}

/* Only the work directory's own cubins go; cached ones stay. */
static void remove_workdir(const char *dir, const build *b)
{
	size_t n = strlen(dir);
	for (size_t i = 0; i < b->nbins; i++)
		if (b->bins[i].cubin && !strncmp(b->bins[i].cubin, dir, n) && b->bins[i].cubin[n] == '/')
			unlink(b->bins[i].cubin);
	rmdir(dir);
}

static void print_dry_run(const options *o, const config *cfg, const space *sp, const build *b, const result *res)
{
	if (o->quiet)
		return;
	/* smem: per block, static (ptxas) and dynamic (the launch's) together, as the occupancy counts it */
	fprintf(stderr, "%-40s %5s %6s %6s %9s  %s\n", "configuration", "regs", "spills", "smem", "occupancy", "status");
	for (size_t c = 0; c < sp->count; c++) {
		const binary *bin = &b->bins[b->of_config[c]];
		char *desc = space_describe(cfg, space_config(sp, c));
		if (bin->failed)
			fprintf(stderr, "%-40s %5s %6s %6s %9s  %s\n", desc, "-", "-", "-", "-", status_name(res[c].st));
		else
			fprintf(stderr, "%-40s %5d %6d %6lld %8.1f%%  %s\n", desc, bin->res.registers,
				bin->res.spill_stores + bin->res.spill_loads, (long long)bin->res.static_smem + res[c].smem,
				100 * res[c].occupancy, status_name(res[c].st));
		free(desc);
	}
}

static void print_failures(const config *cfg, const space *sp, const build *b)
{
	/* one compile log per failed binary, not per configuration */
	for (size_t i = 0; i < b->nbins; i++)
		if (b->bins[i].failed && !stopped_compile(&b->bins[i])) {
			char *desc = space_describe(cfg, space_config(sp, b->bins[i].first_config));
			fprintf(stderr, "compile-error for %s:\n%s\n", desc, b->bins[i].log);
			free(desc);
		}
}

static void print_summary(const config *cfg, const space *sp, const build *b, const result *res, double compile_s,
			  int dry)
{
	size_t counts[ST_COUNT_] = {0}, failed_bins = 0, throttled = 0, predicted = 0;
	for (size_t c = 0; c < sp->count; c++) {
		/* a launch known to fail was not made: counted apart from what ran */
		if (res[c].predicted)
			predicted++;
		else
			counts[res[c].st]++;
		throttled += res[c].throttled;
	}
	size_t stopped_bins = 0;
	for (size_t i = 0; i < b->nbins; i++) {
		int stopped = stopped_compile(&b->bins[i]);
		stopped_bins += stopped;
		failed_bins += b->bins[i].failed && !stopped;
	}
	fprintf(stderr, "%s: %zu valid %s (of %zu %s); %zu %s built in %.1f s (%zu failed; ", cfg->name, sp->count,
		plural(sp->count, "configuration", "configurations"), sp->total, plural(sp->total, "combination", "combinations"),
		b->nbins - stopped_bins, plural(b->nbins - stopped_bins, "binary", "binaries"), compile_s, failed_bins);
	if (stopped_bins)
		fprintf(stderr, "%zu not, stopped by a signal; ", stopped_bins);
	fprintf(stderr, "%zu nvcc %s, %zu from the cache)\n", b->nvcc_runs, plural(b->nvcc_runs, "run", "runs"), b->cache_hits);
	if (!dry) {
		fprintf(stderr, "  ran %zu:", sp->count - counts[ST_NOT_RUN] - counts[ST_COMPILE_ERROR] - predicted);
		for (int s = 0; s < ST_COUNT_; s++)
			if (counts[s])
				fprintf(stderr, " %zu %s", counts[s], status_name((status)s));
		size_t shared = 0;
		for (size_t c = 0; c < sp->count; c++)
			shared += res[c].shares_with >= 0;
		if (shared)
			fprintf(stderr, "; %zu shared an identical binary's measurement", shared);
		if (throttled)
			fprintf(stderr, "; %zu measured with the SM clock below 85%% of its maximum (flagged)", throttled);
		fputc('\n', stderr);
	}
	if (predicted)
		fprintf(stderr, "  %zu not launched: the GPU's limits refuse %s (launch-error, the CSV says why)\n", predicted,
			predicted == 1 ? "it" : "them");
}

/* The summary ends with where everything went, so that it is the last thing on the screen. The
 * report is written beside the CSV by report.c; its name is derived the same way here. */
/* The last lines of the summary: where the results went. */
static void print_paths(const config *cfg, int header, int report, const options *o)
{
	if (o->dry_run)
		fputs("  dry run: nothing was measured (no GPU timings, no winner)\n", stderr);
	fprintf(stderr, "  results: %s\n", cfg->csv_path);
	if (header) {
		char *mk = header_mk_path(cfg->header_path);
		fprintf(stderr, "  header:  %s (make fragment %s)\n", cfg->header_path, mk);
		free(mk);
	}
	if (report) {
		char *html = report_default_path(cfg->csv_path);
		fprintf(stderr, "  report:  %s\n", html);
		free(html);
	}
	if (o->nshards)
		fprintf(stderr, "  shard %d of %d: join the shards' CSVs with `autotune merge %s CSV...`\n", o->shard,
			o->nshards, cfg->path);
}

static void iso_date(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void print_metrics(const result *r)
{
	if (r->gbps > 0)
		fprintf(stderr, ", %.0f GB/s", r->gbps);
	if (r->pct_of_copy > 0)
		fprintf(stderr, " = %.0f%% of copy", r->pct_of_copy);
	if (r->have_metrics) {
		fprintf(stderr, ", achieved occupancy %.0f%%", r->metrics[METRIC_ACHIEVED_OCCUPANCY]);
		/* a kernel without global loads has no load efficiency (0/0), as in the CSV */
		if (isnan(r->metrics[METRIC_GLD_EFFICIENCY]))
			fputs(", load efficiency n/a (no global loads)", stderr);
		else
			fprintf(stderr, ", load efficiency %.0f%%", r->metrics[METRIC_GLD_EFFICIENCY]);
	} else
		fprintf(stderr, ", theoretical occupancy %.0f%%", 100 * r->occupancy);
}

/* One or two lines on why the winner won: its numbers, and who was tied with it and lost. */
static void explain(const config *cfg, const space *sp, const result *res, const choice *c, const select_policy *p)
{
	if (c->winner < 0)
		return;
	const result *w = &res[c->winner];
	char *desc = space_describe(cfg, space_config(sp, (size_t)c->winner));
	fprintf(stderr, "  winner: %s: %.4f ms ±%.2f%%%s", desc, result_time(w), 100 * result_noise(w),
		w->final_rounds ? " (finalist, interleaved)" : "");
	print_metrics(w);
	fprintf(stderr, "\n");
	free(desc);
	size_t shown = 0;
	for (size_t k = 0; k < c->ntied && shown < 3; k++) {
		size_t i = c->tied[k];
		if ((long long)i == c->winner)
			continue;
		char *other = space_describe(cfg, space_config(sp, i));
		double si = balance_score(&res[i], p), sw = balance_score(w, p);
		fprintf(stderr, "    tied (noise band, or launch shape within %.2g%%): %s (%.4f ms ±%.2f%%, balance %.3f vs %.3f): %s\n",
			100 * SHAPE_TIE, other,
			result_time(&res[i]), 100 * result_noise(&res[i]), si, sw,
			!p->balanced ? "slower median" : si < sw - BALANCE_TIE ? "lower balance"
			: same_shape(&res[i], w) ? "the same launch shape: the winner comes first in the space"
			: "same balance within 0.01, slower median");
		free(other);
		shown++;
	}
	if (c->ntied > shown + 1)
		fprintf(stderr, "    ... and %zu more tied\n", c->ntied - shown - 1);
	if (p->balanced && c->winner != c->fastest)
		fprintf(stderr, "    (the fastest median, %.4f ms, is tied with it (within the noise band, or the same launch shape within "
				"%.2g%%): %s decided)\n",
			result_time(&res[c->fastest]), 100 * SHAPE_TIE,
			same_shape(&res[c->fastest], w) && balance_score(&res[c->fastest], p) >= balance_score(w, p) - BALANCE_TIE
				? "the space's order among builds of one launch shape" : "balance");
}

static runner *join_gpu(void *set, size_t lane) { return devices_join(set, lane); }

static int tune(const options *o)
{
	diags d = {0};
	config cfg;
	space sp;
	build b = {0};
	trace_event("start");
	if (config_load(o->config, &cfg, &d))
		return fail(&d, EXIT_USAGE);
	if (space_enumerate(&cfg, &sp, &d)) {
		config_free(&cfg);
		return fail(&d, EXIT_USAGE);
	}
	if (o->nshards) {
		/* a job array's task: its own slice of the space, its own CSV, journal and worker log;
		 * `autotune merge` joins the CSVs and writes the header */
		size_t whole = sp.count;
		space_shard(&sp, cfg.has_reference, o->shard, o->nshards);
		if (!sp.count) {
			diags_add(&d, "autotune: shard %d/%d is empty: %s has only %zu configurations", o->shard, o->nshards,
				  cfg.path, whole);
			space_free(&sp);
			config_free(&cfg);
			return fail(&d, EXIT_USAGE);
		}
		char suffix[64];
		snprintf(suffix, sizeof suffix, ".shard-%d-of-%d.csv", o->shard, o->nshards);
		char *path = output_sibling(&cfg, suffix);
		free(cfg.csv_path);
		cfg.csv_path = path;
	}
	result *res = xcalloc(sp.count, sizeof *res);
	int code = EXIT_WINNER;
	runner *rn = NULL; /* a dry run's look at the GPU, for its architecture */
	double setup_s = 0; /* starting the GPU workers: context, arguments, warm-up */
	gpu_set gs = {0};
	char *nvcc = NULL, *wpath = NULL, workdir[PATH_MAX] = "/tmp/autotune-XXXXXX";
	int have_workdir = 0;
	choice pick = {-1, -1, NULL, 0};
	char *counters_note = NULL, *journal_note = NULL, *jpath = NULL, *wlog = NULL;
	journal *jr = NULL;
	double *prior = NULL;
	cubin_cache *cache = NULL;
	char *identity = NULL;
	select_policy policy = {cfg.policy == POLICY_BALANCED, cfg.w_occupancy, cfg.w_load_efficiency, cfg.tie_k};
	device_info dev;
	memset(&dev, 0, sizeof dev);
	progress compiles = {0};
	if (eval_geometry(&cfg, &sp, res, &d)) {
		code = EXIT_USAGE;
		goto out;
	}
	build_plan(&cfg, &sp, &b);
	/* before the workers start: whether they prepare the profiler depends on it */
	if (o->metrics && apply_metrics_option(&cfg, o->metrics, &d)) {
		code = EXIT_USAGE;
		goto out;
	}
	if (o->replay) {
		code = replay(o, &cfg, &sp, &d);
		goto out;
	}
	if (o->cmd == CMD_VALIDATE) {
		if (o->print_spec_hash) {
			char spec[17];
			hash_spec(cfg.path, cfg.source, spec);
			/* one config: the bare hash, for a build to compare; several: which is which */
			if (o->ninputs > 1)
				printf("%s  %s\n", spec, o->config);
			else
				printf("%s\n", spec);
			goto out;
		}
		printf("%s: ok: %zu valid %s of %zu %s, %zu distinct %s\n", o->config, sp.count,
		       plural(sp.count, "configuration", "configurations"), sp.total,
		       plural(sp.total, "combination", "combinations"), b.nbins, plural(b.nbins, "binary", "binaries"));
		goto out;
	}

	/* What the run needs, checked before anything slow starts: options that make sense (a dry run
	 * too, where they would only be ignored), somewhere to write, nvcc. */
	strategy strat = STRAT_EXHAUSTIVE;
	size_t budget = 0;
	double seconds = 0;
	const char *sname = o->strategy ? o->strategy : cfg.search_strategy;
	if (sname && strategy_parse(sname, &strat)) {
		diags_add(&d, "autotune: unknown strategy '%s' (exhaustive, random, local, anneal, genetic, model)", sname);
		code = EXIT_USAGE;
		goto out;
	}
	if (parse_budget(o, &cfg, sp.count, &budget, &seconds, &d) || (o->devices && devices_check(o->devices, &d)) ||
	    check_output_path(cfg.csv_path, &d) || check_output_path(cfg.header_path, &d)) {
		code = EXIT_USAGE;
		goto out;
	}
	if (!(nvcc = find_nvcc())) {
		diags_add(&d, "autotune: nvcc not found: install the CUDA toolkit, or set NVCC or CUDA_HOME");
		code = EXIT_USAGE;
		goto out;
	}
	if (!o->no_cache) {
		char *dir = o->cache_dir ? xstrdup(o->cache_dir) : cache_default_dir();
		cache = cache_open(dir, &d);
		free(dir);
		if (!cache) {
			code = EXIT_USAGE;
			goto out;
		}
	}
	identity = cache_compiler_identity(nvcc);

	/* The target: --arch, else the config's, else the GPU's (asked of a worker, so this
	 * process never loads the driver). */
	const char *arch = o->arch ? o->arch : cfg.arch;
	char gpu_arch[16] = "";
	if (!o->dry_run || !arch) {
		wpath = worker_path();
		/* a dry run's worker only names the GPU: what it says goes to the log too, so that a
		 * missing driver is one line of the message instead of the loader's raw complaint */
		wlog = output_sibling(&cfg, ".worker.log");
		unlink(wlog);
		if (o->dry_run) {
			diags why = {0};
			if (!(rn = runner_start(wpath, o->device < 0 ? 0 : o->device, NULL, &dev, wlog, &why))) {
				diags_add(&d, "autotune: a dry run with no GPU needs a target: give --arch sm_90 (or kernel.arch); "
					      "no GPU answered: %s", why.n ? why.msgs[0] : "unknown reason");
			}
			diags_free(&why);
		} else {
			double t0 = now_seconds();
			if (devices_start(o, wpath, &cfg, wlog, &gs, &d) == 0)
				dev = gs.info[0];
			else
				diags_add(&d, "autotune: without a GPU, `autotune --dry-run --arch sm_90 %s` compiles every variant and "
					      "reports registers, spills and occupancy", o->config);
			setup_s = now_seconds() - t0;
		}
		if (!rn && !gs.n) {
			/* the message quotes the log of a worker that found no GPU: nothing worth keeping */
			unlink(wlog);
			code = EXIT_USAGE;
			goto out;
		}
		snprintf(gpu_arch, sizeof gpu_arch, "sm_%d", dev.cc);
		if (!arch)
			arch = gpu_arch;
		else if (strcmp(arch, gpu_arch))
			fprintf(stderr, "autotune: warning: compiling for %s but the GPU is %s (%s)\n", arch, gpu_arch, dev.name);
		if (o->dry_run) {
			runner_stop(rn);
			rn = NULL;
		}
	}
	int cc = arch_parse(arch);
	if (cc < 0) {
		diags_add(&d, "autotune: '%s' is not an architecture like sm_90", arch);
		code = EXIT_USAGE;
		goto out;
	}
	if (!arch_known(cc))
		fprintf(stderr, "autotune: warning: no occupancy table for %s; occupancy is left empty\n", arch);
	const char *tmp = getenv("TMPDIR");
	if (tmp && *tmp)
		snprintf(workdir, sizeof workdir, "%s/autotune-XXXXXX", tmp);
	if (!mkdtemp(workdir)) {
		diags_add(&d, "autotune: cannot create a work directory '%s': %s", workdir, strerror(errno));
		code = EXIT_USAGE;
		goto out;
	}
	have_workdir = 1;

	b.cache = cache;
	b.identity = identity;
	int jobs = o->jobs ? o->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
	double compile_s = 0;
	long long winner = -1;
	if (o->dry_run) {
		progress bar;
		progress_begin(&bar, !o->quiet, NULL, 0);
		double t0 = now_seconds();
		int rc = build_run(&cfg, &sp, &b, nvcc, arch, workdir, jobs, NVCC_TIMEOUT, compile_progress, &bar, &d);
		progress_end(&bar);
		compile_s = now_seconds() - t0;
		if (rc || missing_entry(&cfg, &b.bins[b.of_config[sp.reference]], &d)) {
			code = EXIT_USAGE;
			goto out;
		}
		size_t compiled = 0;
		for (size_t c = 0; c < sp.count; c++) {
			measure_apply_binary(&b.bins[b.of_config[c]], cc, &res[c]);
			compiled += !b.bins[b.of_config[c]].failed && !res[c].predicted;
		}
		if (!o->quiet)
			print_failures(&cfg, &sp, &b);
		print_dry_run(o, &cfg, &sp, &b, res);
		/* a dry run checks in CI that the space builds: none built (or none that can launch) is a
		 * failure, as none passing is */
		if (!compiled)
			code = EXIT_NONE_PASSED;
	} else {
		journal_resume resume;
		char *key = run_key(&cfg, identity, arch, &gs);
		jpath = output_sibling(&cfg, ".journal");
		jr = journal_open(jpath, key, o->fresh, &sp, res, &resume, &d);
		free(key);
		if (!jr) {
			code = EXIT_USAGE;
			goto out;
		}
		if (!o->quiet && resume.finished)
			fprintf(stderr, "%s: resuming: %zu %s measured before%s (--fresh measures all again)\n",
				jpath, resume.finished, plural(resume.finished, "configuration", "configurations"), resume.in_flight ? ", 1 was in flight and is marked crashed" : "");
		else if (!o->quiet && resume.key_changed)
			fprintf(stderr, "%s: %s: starting afresh\n", jpath,
				o->fresh ? "--fresh" : "the kernel, config, compiler or GPU changed since the last run");
		/* Compiles overlap with measuring: a configuration is measured as soon as its binary
		 * exists. The reference's binary comes first, and tells whether the entry point exists. */
		/* counts compiles until the measure bar takes the line, which then shows them too */
		progress_begin(&compiles, !o->quiet, NULL, 0);
		builder *bd = build_begin(&cfg, &sp, &b, nvcc, arch, workdir, jobs, NVCC_TIMEOUT, compile_progress, &compiles, &d);
		if (build_wait(bd, b.of_config[sp.reference]) ||
		    missing_entry(&cfg, &b.bins[b.of_config[sp.reference]], &d)) {
			build_end(bd, NULL);
			code = EXIT_USAGE;
			goto out;
		}
		signal(SIGINT, on_stop_signal);
		signal(SIGTERM, on_stop_signal);
		build_stop_when(bd, &interrupted);
		if (!sname && (budget || seconds))
			strat = STRAT_MODEL; /* a budget below the space: the default search */
		if (strat == STRAT_MODEL) {
			/* the model ranks by what the binaries say: every compile is needed first */
			for (size_t i = 0; i < b.nbins; i++)
				build_wait(bd, i);
			prior = xcalloc(sp.count + 1, sizeof *prior);
			for (size_t c = 0; c < sp.count; c++) {
				const binary *bin = &b.bins[b.of_config[c]];
				measure_apply_binary(bin, cc, &res[c]);
				prior[c] = static_model(&res[c], bin);
			}
		}
		measure_opts mo = {!o->quiet, &interrupted, devices_copy_bandwidth(gs.runners[0], &dev), dev.clock_khz / 1000, jr,
				   o->retry_failed, bd, cc, (int)strat, budget, seconds, o->seed_given ? o->seed : cfg.search_seed,
				   prior, NULL, NULL, 0, 0, 0, 0, NULL, NULL};
		mo.join = join_gpu;
		mo.join_ctx = &gs;
		if (!o->quiet && gs.n > 1)
			fprintf(stderr, "%s: measuring on %zu GPUs (%s), each from when it is ready\n", cfg.name, gs.n, dev.name);
		trace_event("measuring");
		if (measure_space(&cfg, &sp, &b, res, gs.runners, gs.n, &mo, &d))
			code = EXIT_ENV;
		trace_event("measured");
		if (build_end(bd, &compile_s) && code == EXIT_WINNER)
			code = EXIT_USAGE;
		progress_end(&compiles);
		for (size_t c = 0; c < sp.count; c++)
			if (!stopped_compile(&b.bins[b.of_config[c]]))
				measure_apply_binary(&b.bins[b.of_config[c]], cc, &res[c]);
		if (!o->quiet)
			print_failures(&cfg, &sp, &b);
		jr = mo.journal; /* NULL if writing it failed */
		if (!o->quiet)
			fprintf(stderr, "%s: %.1f s to set up %zu GPU%s, %.1f s first pass, %.1f s finalists and counters\n",
				cfg.name, setup_s, gs.n, gs.n == 1 ? "" : "s", mo.first_pass_s, mo.finish_s);
		select_winner(res, sp.count, &policy, &pick);
		winner = pick.winner;
		counters_note = mo.counters_note;
		journal_note = mo.journal_note;
		if (code == EXIT_WINNER && winner < 0)
			code = EXIT_NONE_PASSED;
		if (interrupted)
			code = interrupted == SIGTERM ? EXIT_TERMINATED : EXIT_INTERRUPTED;
	}
	if (cache)
		cache_evict(cache, CACHE_MAX_BYTES);

	char date[32];
	iso_date(date, sizeof date);
	char spec[17];
	hash_spec(cfg.path, cfg.source, spec);
	gpu_id *gpus = xcalloc(gs.n + 1, sizeof *gpus);
	for (size_t i = 0; i < gs.n; i++)
		gpus[i] = (gpu_id){gs.info[i].name, gs.info[i].uuid};
	outputs rep = {&cfg, &sp, &b, res, winner, arch, date, gpus, gs.n, spec};
	/* the header and make fragment come from the CSV just written: one writer for this and `autotune
	 * header`; a shard's CSV is a part: `autotune merge` writes the header and report of the whole */
	int csv_ok = output_csv(&rep, cfg.csv_path, &d) == 0;
	int header_ok = csv_ok && !o->nshards && winner >= 0 &&
			header_write(&cfg.csv_path, 1, cfg.name, cfg.header_path, &d) == 0;
	int report_ok = csv_ok && !o->nshards && report_write(cfg.csv_path, NULL, NULL, &d) == 0;
	if (!csv_ok || (!o->nshards && ((winner >= 0 && !header_ok) || !report_ok)))
		code = EXIT_USAGE;
	free(gpus);
	trace_event("outputs written");
	if (!o->quiet) {
		print_summary(&cfg, &sp, &b, res, compile_s, o->dry_run);
		explain(&cfg, &sp, res, &pick, &policy);
		if (counters_note)
			fprintf(stderr, "  no hardware counters: %s\n", counters_note);
		if (journal_note)
			fprintf(stderr, "  warning: %s\n", journal_note);
		if (csv_ok)
			print_paths(&cfg, header_ok, report_ok, o);
	}
out:
	progress_end(&compiles); /* the line is clear before any message */
	choice_free(&pick);
	free(counters_note);
	free(journal_note);
	journal_close(jr);
	cache_close(cache);
	free(prior);
	free(identity);
	free(jpath);
	if (d.n)
		diags_print(&d);
	diags_free(&d);
	runner_stop(rn);
	devices_stop(&gs);
	/* a worker that wrote nothing leaves no log (its writers are all closed now) */
	struct stat st;
	if (wlog && stat(wlog, &st) == 0 && st.st_size == 0)
		unlink(wlog);
	free(wlog);
	if (have_workdir)
		remove_workdir(workdir, &b);
	for (size_t c = 0; c < sp.count; c++)
		free(res[c].message);
	free(res);
	free(nvcc);
	free(wpath);
	build_free(&b);
	space_free(&sp);
	config_free(&cfg);
	trace_event("end");
	return code;
}

int main(int argc, char **argv)
{
	options o;
	if (cli_parse(argc, argv, &o))
		return EXIT_USAGE;
	switch (o.cmd) {
	case CMD_HELP:
		cli_usage(o.help_for);
		return 0;
	case CMD_HEADER:
		return cmd_header(&o);
	case CMD_REPORT:
		return cmd_report(&o);
	case CMD_SHOW:
		return cmd_show(&o);
	case CMD_MERGE:
		return cmd_merge(&o);
	case CMD_DEVICES: {
		char *wpath = worker_path();
		int rc = cmd_devices(&o, wpath);
		free(wpath);
		return rc;
	}
	case CMD_VERSION:
		printf("autotune %s\n", VERSION);
		return 0;
	case CMD_IMPORT: {
		diags d = {0};
		const char *dot = strrchr(o.config, '.');
		char *out = o.output ? xstrdup(o.output)
				     : xasprintf("%.*s.yaml", (int)(dot ? dot - o.config : (long)strlen(o.config)), o.config);
		int rc = import_t1(o.config, out, &d);
		if (rc == 0 && !o.quiet)
			fprintf(stderr, "wrote %s: tune it with `autotune %s`\n", out, out);
		free(out);
		return rc ? fail(&d, EXIT_USAGE) : 0;
	}
	case CMD_VALIDATE: {
		/* each config on its own, all of them checked: the worst status */
		int worst = 0;
		for (int i = 0; i < o.ninputs; i++) {
			o.config = o.inputs[i];
			int rc = tune(&o);
			worst = rc > worst ? rc : worst;
		}
		return worst;
	}
	default:
		return tune(&o);
	}
}
