/* output.c: the results CSV (RFC 4180), written atomically; header.c makes the tuned header from it. */
#include "output.h"

#include <ctype.h>
#include <dirent.h>
#include <signal.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "stats.h"
#include "completeness.h"
#include "build_flags.h"
#include "objective.h"
#include "banned.h"

const char *const output_columns[] = {
	"blockDim.x", "blockDim.y", "blockDim.z", "gridDim.x", "gridDim.y", "gridDim.z", "dynamic_smem_bytes",
	"registers", "spill_store_bytes", "spill_load_bytes", "stack_bytes", "static_smem_bytes", "barriers",
	"compile_s", "active_blocks_per_sm", "theoretical_occupancy", "occupancy_limit", "driver_active_blocks_per_sm",
	"time_ms_median", "time_ms_min", "time_ms_max", "samples", "noise_pct", "launches_per_sample", "sm_mhz",
	"final_ms_median", "final_noise_pct", "final_rounds", "achieved_occupancy_pct", "gld_efficiency_pct",
	"gld_throughput_gbps", "dram_pct", "branch_efficiency_pct", "gbps", "pct_of_copy", "gflops", "flags",
	"shares_with", "status", "message", "gpu", "gpu_uuid", "arch", "nvcc_flags", "code_hash", "kernel_hash", "spec_hash", "policy", "tuned_at", "config",
	"run", "configurations", NULL,
};

void csv_field(FILE *f, const char *s)
{
	if (!s)
		s = "";
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* Opens "<path>.tmp.<pid>" next to the target so the final rename stays on one file system. */
FILE *output_open(const char *path, char **tmp, diags *d)
{
	const char *why = output_refusal(path);
	*tmp = NULL;
	if (why) {
		diags_add(d, "cannot write '%s': %s", path, why);
		return NULL;
	}
	*tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	int fd = create_fresh(*tmp);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		diags_add(d, "cannot write '%s': %s", *tmp, write_error(errno));
		if (fd >= 0)
			close(fd);
		free(*tmp);
		*tmp = NULL;
	}
	return f;
}

void output_reclaim(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xasprintf("%.*s", (int)(slash - path == 0 ? 1 : slash - path), path) : xstrdup(".");
	const char *base = slash ? slash + 1 : path;
	size_t len = strlen(base);
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));) {
		const char *name = e->d_name, *p = name + len + 5;
		if (strncmp(name, base, len) || strncmp(name + len, ".tmp.", 5) || !*p || strspn(p, "0123456789") != strlen(p))
			continue;
		/* a live process's file is its own: another autotune's `report`, say, holds no lock */
		long pid = strtol(p, NULL, 10);
		if (pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
			char *full = xasprintf("%s/%s", dir, name);
			unlink(full);
			free(full);
		}
	}
	if (d)
		closedir(d);
	free(dir);
}

int output_commit(FILE *f, char *tmp, const char *path, diags *d)
{
	int bad = ferror(f) || fflush(f) || fsync(fileno(f));
	int e = errno;
	if (fclose(f))
		bad = 1;
	if (!bad && rename(tmp, path) == 0) {
		free(tmp);
		return 0;
	}
	if (!bad)
		e = errno;
	diags_add(d, "cannot write '%s': %s", path, strerror(e));
	unlink(tmp);
	free(tmp);
	return -1;
}

/* A row that met a GPU: measured, or refused or killed by it. */
static int timed_or_failed(const result *res) { return res->st != ST_NOT_RUN && res->st != ST_COMPILE_ERROR; }

static void csv_num(FILE *f, double v, int have)
{
	if (have)
		fprintf(f, "%.6g", v);
}

/* The first columns of row c: its parameters, launch shape, what the compiler and the occupancy
 * calculator said of its binary, and the driver's occupancy. */
static void put_build(FILE *f, const outputs *r, size_t c)
{
	const value *vals = space_config(r->sp, c);
	const result *res = &r->res[c];
	const binary *bin = &r->b->bins[r->b->of_config[c]];
	int compiled = bin->cubin && !bin->failed;
	for (size_t i = 0; i < r->cfg->nparams; i++) {
		char v[64];
		value_format(vals[i], v, sizeof v);
		fprintf(f, "%s,", v);
	}
	fprintf(f, "%lld,%lld,%lld,%lld,%lld,%lld,%lld,", res->block[0], res->block[1], res->block[2], res->grid[0],
		res->grid[1], res->grid[2], res->smem);
	if (compiled)
		fprintf(f, "%d,%d,%d,%d,%zu,%d,", bin->res.registers, bin->res.spill_stores, bin->res.spill_loads,
			bin->res.stack, bin->res.static_smem, bin->res.barriers);
	else
		fputs(",,,,,,", f);
	/* nvcc's time for the binary (a compile error's too): what the pool's predictions learn from */
	if (res->compile_s > 0)
		fprintf(f, "%.3f", res->compile_s);
	fputc(',', f);
	if (compiled)
		fprintf(f, "%d,%.4f,", res->occ_blocks, res->occupancy);
	else
		fputs(",,", f);
	csv_field(f, compiled ? res->occ_limit : "");
	fputc(',', f);
	/* the driver's own answer (cuOccupancyMaxActiveBlocksPerMultiprocessor), a cross-check */
	if (res->driver_blocks >= 0)
		fprintf(f, "%d", res->driver_blocks);
}

/* The measurement: times, samples, the finalists' re-timing, counters and rates. */
static void put_times(FILE *f, const result *res)
{
	int timed = result_passed(res);
	csv_num(f, res->t_median, timed);
	fputc(',', f);
	csv_num(f, res->t_min, timed);
	fputc(',', f);
	csv_num(f, res->t_max, timed);
	fputc(',', f);
	if (timed)
		fprintf(f, "%d,%.4f,%d,%.0f", res->samples, 100 * res->noise, res->batch, res->mhz_after);
	else
		fputs(",,,", f);
	fputc(',', f);
	if (res->final_rounds)
		fprintf(f, "%.6g,%.4f,%d", res->final_median, 100 * res->final_noise, res->final_rounds);
	else
		fputs(",,", f);
	/* counters in the units ncu prints them; throughput in GB/s */
	for (int m = 0; m < METRIC_COUNT; m++) {
		fputc(',', f);
		if (res->have_metrics && !isnan(res->metrics[m]))
			fprintf(f, "%.4g", m == METRIC_GLD_THROUGHPUT ? res->metrics[m] / 1e9 : res->metrics[m]);
	}
	fputc(',', f);
	csv_num(f, res->gbps, res->gbps > 0);
	fputc(',', f);
	csv_num(f, res->pct_of_copy, res->pct_of_copy > 0);
	fputc(',', f);
	csv_num(f, res->gflops, res->gflops > 0);
}

/* A plan's columns (config.plan): its streams, order and connections, and what it achieved. */
static void put_plan(FILE *f, const result *res)
{
	fprintf(f, ",%d,%s,%d,", res->streams, res->breadth_first ? "breadth-first" : "depth-first", res->connections);
	int timed = result_passed(res) && res->serial_ms > 0;
	csv_num(f, res->serial_ms, timed);
	fputc(',', f);
	if (timed)
		fprintf(f, "%.3f", result_concurrency(res));
}

/* Energy, the user's metrics and the objective (objective.h): empty where there is no value,
 * never a zero that was not measured. */
static void put_scores(FILE *f, const outputs *r, size_t c)
{
	const result *res = &r->res[c];
	fputc(',', f);
	csv_num(f, res->joules, result_passed(res) && res->have_energy);
	fputc(',', f);
	csv_num(f, res->watts, result_passed(res) && res->have_energy);
	for (size_t i = 0; i < r->cfg->numetrics; i++) {
		double v = 0;
		int have = objective_metric(r->cfg, space_config(r->sp, c), res, i, &v) == 0;
		fputc(',', f);
		csv_num(f, v, have);
	}
	fputc(',', f);
	csv_num(f, res->objective, result_passed(res) && res->scored == 1);
}

/* Whether row c is the baseline the report compares the winner with: select.baseline, else the
 * named verify reference (a reference chosen by vote is no configuration the user shipped). */
static int is_baseline(const outputs *r, size_t c)
{
	const config *cfg = r->cfg;
	const value *b = cfg->baseline ? cfg->baseline : cfg->has_reference ? cfg->reference : NULL;
	const value *v = space_config(r->sp, c);
	for (size_t i = 0; b && i < cfg->nparams; i++)
		if (!value_equal(b[i], v[i]))
			return 0;
	return b != NULL;
}

/* How row c's numbers were obtained, the row whose measurement it repeats, its status and message. */
static void put_outcome(FILE *f, const outputs *r, size_t c)
{
	const result *res = &r->res[c];
	if (result_passed(res)) {
		/* how the numbers were obtained: cache state, batching, clock */
		fprintf(f, "%s", r->cfg->cache_warm ? "warm" : "cold");
		if (res->batch > 1)
			fprintf(f, ";batched");
		if (res->throttled)
			fprintf(f, ";throttled");
		if (stats_raced(res->samples, r->cfg->min_samples, res->message))
			fprintf(f, ";raced");
		if (res->final_rounds)
			fprintf(f, ";finalist");
		if ((long long)c == r->winner)
			fprintf(f, ";winner");
		if (is_baseline(r, c))
			fprintf(f, ";baseline");
	}
	fputc(',', f);
	if (res->shares_with >= 0) {
		/* measured once for both: the configuration whose measurement this row repeats */
		char *twin = space_describe(r->cfg, space_config(r->sp, (size_t)res->shares_with));
		csv_field(f, twin);
		free(twin);
	}
	fprintf(f, ",%s,", status_name(res->st));
	csv_field(f, res->message);
}

/* Where and from what row c was measured: a results file stands on its own (header, report, merge). */
static void put_origin(FILE *f, const outputs *r, size_t c)
{
	const result *res = &r->res[c];
	int known = res->gpu >= 0 && (size_t)res->gpu < r->ngpus && timed_or_failed(res);
	const gpu_id *g = known ? &r->gpus[res->gpu] : NULL;
	csv_field(f, g ? g->name : "");
	fputc(',', f);
	csv_field(f, g ? g->uuid : "");
	fputc(',', f);
	csv_field(f, r->arch);
	fputc(',', f);
	char *flags = build_flags_text(r->cfg, space_config(r->sp, c));
	csv_field(f, flags);
	free(flags);
	fputc(',', f);
	/* what the GPU executes: a build from the tuned header's recipe hashes the same */
	const binary *bin = &r->b->bins[r->b->of_config[c]];
	csv_field(f, bin->cubin && !bin->failed ? bin->code : "");
	fputc(',', f);
	csv_field(f, bin->cubin && !bin->failed ? bin->kernel : "");
	fputc(',', f);
	csv_field(f, r->spec_hash);
	fputc(',', f);
	/* how the winner was chosen: report and show explain it, and pick again, by the same */
	char policy[POLICY_TEXT_MAX];
	select_policy_text(&r->cfg->select, policy);
	csv_field(f, policy);
	fputc(',', f);
	csv_field(f, r->ngpus ? r->date : "");
	fputc(',', f);
	csv_field(f, r->cfg->path);
	fputc(',', f);
	/* on every row: shards keep their own when merged, and a header made long after the run tells
	 * a complete run from one that stopped */
	csv_field(f, r->run ? r->run : RUN_COMPLETE);
	/* the space's size, rows or not: a search lists what it did, and this counts the rest */
	fprintf(f, ",%zu", r->sp->count);
}

int output_listed(const outputs *r, size_t c)
{
	const binary *bin = &r->b->bins[r->b->of_config[c]];
	const result *res = &r->res[c];
	int built = (bin->cubin || bin->failed) && !bin->killed;
	/* what a binary says of every configuration that shares it (it failed, or the device must
	 * refuse their launches) is a complete run's work, and a dry run's; another's lists it once,
	 * on the binary's first configuration: a shared binary may stand for a million */
	int complete = !r->run || !strcmp(r->run, RUN_COMPLETE) || !strcmp(r->run, RUN_DRY);
	int derived = (res->st == ST_COMPILE_ERROR && bin->failed) || res->predicted;
	if ((res->st != ST_NOT_RUN && (complete || !derived)) || (long long)c == r->winner ||
	    (long long)c == r->sp->reference)
		return 1;
	/* a dry run's work is each configuration's occupancy; a run's, the binary nvcc built (its
	 * registers and compile time, once) */
	if (r->run && !strcmp(r->run, RUN_DRY))
		return built;
	return built && bin->first_config == c;
}

/* A row per configuration listed (output_listed), in the space's order, its columns in four
 * groups as the head line names them. */
int output_csv(const outputs *r, const char *path, diags *d)
{
	char *tmp;
	FILE *f = output_open(path, &tmp, d);
	if (!f)
		return -1;
	const config *cfg = r->cfg;
	for (size_t i = 0; i < cfg->nparams; i++) {
		csv_field(f, cfg->params[i].name);
		fputc(',', f);
	}
	/* a plan's columns go before the flags, which start the columns every file ends with */
	for (const char *const *col = output_columns; *col; col++) {
		if (!strcmp(*col, "flags") && cfg->plan.nlaunches)
			fputs(OUTPUT_PLAN_COLUMNS ",", f);
		if (!strcmp(*col, "flags")) {
			fputs("joules_per_launch,watts,", f);
			for (size_t i = 0; i < cfg->numetrics; i++)
				fprintf(f, "%s,", cfg->umetrics[i].name);
			fputs("objective,", f);
		}
		fprintf(f, "%s%s", *col, col[1] ? "," : "\r\n");
	}
	for (size_t c = 0; c < r->sp->count; c++) {
		if (!output_listed(r, c))
			continue;
		put_build(f, r, c);
		fputc(',', f);
		put_times(f, &r->res[c]);
		if (cfg->plan.nlaunches)
			put_plan(f, &r->res[c]);
		put_scores(f, r, c);
		fputc(',', f);
		put_outcome(f, r, c);
		fputc(',', f);
		put_origin(f, r, c);
		fputs("\r\n", f);
	}
	return output_commit(f, tmp, path, d);
}
