/* instances.c: a run over the config's instances. Each instance is tuned as a problem of its own by
 * tune.c's pipeline (its arrays, launches and defines follow its constants), into a part CSV and a
 * journal of its own beside output.csv, so that a run stopped in any instance resumes there and
 * measures nothing twice. Binaries that do not depend on the constants are built once: the cubin
 * cache hands the later instances the first one's. Then the parts are joined into output.csv with
 * the instance's constants as columns, and the header (with its selector) and the report are
 * written from that one file, as a single run's are. */
#define _GNU_SOURCE /* open_memstream */
#include "instances.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "header.h"
#include "output.h"
#include "proc.h"
#include "publish.h"
#include "report.h"
#include "run_names.h"
#include "selector.h"
#include "spec_files.h"
#include "table.h"
#include "autotune_select.h"
#include "banned.h"

void instance_use_part(config *cfg, const instance_run *ir)
{
	char *suffix = config_instance_suffix(cfg, ir->index), *path = run_part_name(cfg->csv_path, suffix);
	free(cfg->csv_path);
	cfg->csv_path = path;
	free(suffix);
}

void instance_run_done(instance_run *ir, const config *cfg, const space *sp, const build *b, int csv_ok,
		       long long winner, double compile_s)
{
	free(ir->part);
	ir->part = csv_ok ? xstrdup(cfg->csv_path) : NULL;
	ir->winner = winner;
	if (winner >= 0 && ir->won && ir->index < ir->ninst && sp->nparams == ir->nparams) {
		memcpy(&ir->won[ir->index * ir->nparams], space_config(sp, (size_t)winner), ir->nparams * sizeof *ir->won);
		ir->has_won[ir->index] = 1;
	}
	ir->nvcc_runs += b->nvcc_runs;
	ir->cache_hits += b->cache_hits;
	ir->compile_s += compile_s;
	for (size_t i = 0; i < b->nbins; i++) {
		const binary *bin = &b->bins[i];
		if (bin->killed || (!bin->failed && !bin->code[0]))
			continue;
		if (bin->failed) {
			ir->failed++;
			continue;
		}
		size_t k = 0;
		while (k < ir->ncodes && strcmp(ir->codes[k], bin->code))
			k++;
		if (k < ir->ncodes)
			continue;
		ir->codes = xrealloc(ir->codes, (ir->ncodes + 1) * sizeof *ir->codes);
		memcpy(ir->codes[ir->ncodes++], bin->code, sizeof *ir->codes);
	}
}

/* The instance with a winner nearest to instance i: the least sum over the constants of
 * (ln value - ln tuned)^2, as the header's selector picks (selector.c), the first of equals; -1
 * when none has a winner. */
static long nearest_tuned(const instance_run *ir, const instance_set *s, size_t i)
{
	long best = -1;
	double best_d = 0;
	for (size_t j = 0; j < s->ninst && j < ir->ninst; j++) {
		if (j == i || !ir->has_won[j])
			continue;
		double dist = 0;
		for (size_t k = 0; k < s->nnames; k++) {
			double r = autotune_ln(value_as_double(s->vals[i * s->nnames + k])) -
				   autotune_ln(value_as_double(s->vals[j * s->nnames + k]));
			dist += r * r;
		}
		if (best < 0 || dist < best_d) {
			best = (long)j;
			best_d = dist;
		}
	}
	return best;
}

/* "bx=128 by=2": the parameter values v of cfg. Caller frees. */
static char *values_text(const config *cfg, const value *v)
{
	char *out = xstrdup("");
	for (size_t p = 0; p < cfg->nparams; p++) {
		char num[64], *m;
		value_format(v[p], num, sizeof num);
		m = xasprintf("%s%s%s=%s", out, p ? " " : "", cfg->params[p].name, num);
		free(out);
		out = m;
	}
	return out;
}

size_t instance_seed(instance_run *ir, const config *cfg, const space *sp, size_t *start, int quiet)
{
	size_t i = ir->index, np = ir->nparams;
	long from = ir->won && sp->nparams == np ? nearest_tuned(ir, &cfg->instances, i) : -1;
	if (from < 0)
		return 0;
	const value *v = &ir->won[(size_t)from * np];
	long long c = -1;
	for (size_t k = 0; k < sp->count && c < 0; k++) {
		const value *w = space_config(sp, k);
		size_t p = 0;
		while (p < np && value_as_double(w[p]) == value_as_double(v[p]))
			p++;
		if (p == np)
			c = (long long)k;
	}
	char *vals = values_text(cfg, v), *label = config_instance_label(cfg, i);
	free(ir->seed_note[i]);
	ir->seed_note[i] = c >= 0 ? xasprintf("search seeded from instance %ld's winner, %s", from + 1, vals)
				  : xasprintf("search not seeded: instance %ld's winner, %s, is not in this instance's "
					      "%s", from + 1, vals, sp->sampled ? "sample of its space" : "space");
	trace_event("instance %zu: %s", i + 1, ir->seed_note[i]);
	if (!quiet)
		fprintf(stderr, "%s: instance %zu (%s): %s\n", cfg->name, i + 1, label, ir->seed_note[i]);
	free(label);
	free(vals);
	if (c < 0)
		return 0;
	start[0] = (size_t)c;
	return 1;
}

/* Row r of part t in the joined file's columns (names, ncols): each by name, "" when t has none. */
static void put_row(FILE *f, const table *t, size_t r, char *const *names, size_t ncols, const config *cfg, size_t inst)
{
	for (size_t i = 0; i < ncols; i++) {
		int col = (size_t)i < t->ncols && !strcmp(t->names[i], names[i]) ? (int)i : table_col(t, names[i]);
		csv_field(f, table_get(t, r, col));
		fputc(',', f);
	}
	fprintf(f, "%zu", inst + 1);
	const instance_set *s = &cfg->instances;
	for (size_t k = 0; k < s->nnames; k++) {
		char v[64];
		value_format(s->vals[inst * s->nnames + k], v, sizeof v);
		fprintf(f, ",%s", v);
	}
	fputs("\r\n", f);
}

int instances_join(const config *cfg, char *const *parts, const char *out, diags *d)
{
	const instance_set *s = &cfg->instances;
	table *t = xcalloc(s->ninst + 1, sizeof *t);
	int rc = 0;
	long first = -1;
	for (size_t i = 0; i < s->ninst && !rc; i++)
		if (parts[i]) {
			rc = table_load(parts[i], &t[i], d);
			if (first < 0 && !rc)
				first = (long)i;
		}
	if (!rc && first < 0) {
		diags_add(d, "%s: no instance has results to join", cfg->path);
		rc = -1;
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *f = rc ? NULL : open_memstream(&buf, &len);
	if (f) {
		const table *head = &t[first];
		for (size_t i = 0; i < head->ncols; i++) {
			csv_field(f, head->names[i]);
			fputc(',', f);
		}
		fputs(INSTANCE_COLUMN, f);
		for (size_t k = 0; k < s->nnames; k++) {
			fputc(',', f);
			csv_field(f, s->names[k]);
		}
		fputs("\r\n", f);
		for (size_t i = 0; i < s->ninst; i++)
			for (size_t r = 0; parts[i] && r < t[i].nrows; r++)
				put_row(f, &t[i], r, head->names, head->ncols, cfg, i);
		fclose(f);
		rc = write_output(out, buf, len, d);
	}
	free(buf);
	for (size_t i = 0; i < s->ninst; i++)
		if (parts[i])
			table_free(&t[i]);
	free(t);
	return rc;
}

/* Per instance: its winner and time, from the joined CSV, and what seeded its search. */
static void say_winners(const config *cfg, const char *csv, const instance_run *ir)
{
	table t;
	diags quiet = {0};
	if (table_load(csv, &t, &quiet)) {
		diags_free(&quiet);
		return;
	}
	int inst = table_fixed_col(&t, INSTANCE_COLUMN), tm = table_fixed_col(&t, "time_ms_median");
	for (size_t i = 0; i < cfg->instances.ninst; i++) {
		char *label = config_instance_label(cfg, i), num[32];
		snprintf(num, sizeof num, "%zu", i + 1);
		long long row = -1;
		for (size_t r = 0; r < t.nrows && row < 0; r++)
			if (!strcmp(table_get(&t, r, inst), num) && strstr(table_field(&t, r, "flags"), "winner"))
				row = (long long)r;
		fprintf(stderr, "  %s: ", label);
		if (row < 0)
			fputs("no winner", stderr);
		else {
			for (size_t p = 0; p < t.nparams; p++)
				fprintf(stderr, "%s%s=%s", p ? " " : "", t.names[p], table_get(&t, (size_t)row, (int)p));
			fprintf(stderr, ": %s ms", table_get(&t, (size_t)row, tm));
		}
		if (i < ir->ninst && ir->seed_note[i])
			fprintf(stderr, "; %s", ir->seed_note[i]);
		fputc('\n', stderr);
		free(label);
	}
	table_free(&t);
}

/* The run's summary: each distinct binary counted once across the instances, each winner. */
static void summary(const options *o, const config *cfg, const instance_run *ir, size_t tuned, const char *csv,
		    int header, int report, const char *t4)
{
	size_t n = cfg->instances.ninst;
	fprintf(stderr, "%s: %zu instances, %zu with a winner; %zu distinct %s built for %zu instances in %.1f s "
			"(%zu nvcc %s, %zu from the cache",
		cfg->name, n, tuned, ir->ncodes, ir->ncodes == 1 ? "binary" : "binaries", n, ir->compile_s, ir->nvcc_runs,
		ir->nvcc_runs == 1 ? "run" : "runs", ir->cache_hits);
	if (ir->failed)
		fprintf(stderr, "; %zu compiles failed", ir->failed);
	fputs(")\n", stderr);
	say_winners(cfg, csv, ir);
	if (o->dry_run)
		fputs("  dry run: nothing was measured (no GPU timings, no winner)\n", stderr);
	fprintf(stderr, "  results: %s\n", csv);
	if (header) {
		char *mk = header_mk_path(cfg->header_path);
		fprintf(stderr, "  header:  %s (make fragment %s; NAME_select() picks an instance's values)\n",
			cfg->header_path, mk);
		free(mk);
	}
	if (report) {
		char *html = report_default_path(csv);
		fprintf(stderr, "  report:  %s\n", html);
		free(html);
	}
	if (t4)
		fprintf(stderr, "  T4:      %s\n", t4);
}

/* The status of the whole run from its instances': a stop or an error first, then whether every
 * instance has a winner. */
static int worse(int code, int rc)
{
	if (code == EXIT_INTERRUPTED || code == EXIT_TERMINATED)
		return code;
	if (rc == EXIT_INTERRUPTED || rc == EXIT_TERMINATED || (rc > EXIT_NONE_PASSED && code <= EXIT_NONE_PASSED))
		return rc;
	return code ? code : rc;
}

/* The joined CSV, the header (some instance has a winner), the report and, when asked, the T4
 * file; the parts go once joined (their journals stay, for a resumed or repeated run). */
typedef struct {
	const config *cfg;
	char *const *parts;
} join_parts;

static int write_join(void *ctx, const char *path, diags *d)
{
	const join_parts *j = ctx;
	return instances_join(j->cfg, j->parts, path, d);
}

static int write_joined(const options *o, const config *cfg, char **parts, size_t tuned, const instance_run *ir,
			diags *d)
{
	char *csv = o->dry_run ? run_name(cfg->csv_path, RUN_FILE_DRY_CSV) : xstrdup(cfg->csv_path);
	char spec[17];
	config_spec_hash(cfg, spec);
	published pub;
	int t4 = o->t4 || cfg->write_t4;
	int rc = publish(&(publish_opts){.cfg = cfg, .csv = csv, .write_csv = write_join, .ctx = &(join_parts){cfg, parts},
					 .winner = tuned > 0, .t4 = t4, .spec_hash = spec},
			 &pub, d);
	/* the joined CSV, and the T4 file when asked: the parts are no longer needed */
	int joined = pub.csv && (!t4 || pub.t4);
	if (joined)
		for (size_t i = 0; i < cfg->instances.ninst; i++)
			if (parts[i] && !same_file(parts[i], csv)) {
				char *list = spec_files_path(parts[i]);
				unlink(parts[i]);
				unlink(list);
				free(list);
			}
	if (joined && !o->quiet)
		summary(o, cfg, ir, tuned, csv, pub.header, pub.report, pub.t4);
	free(pub.t4);
	free(csv);
	return rc;
}

int instances_tune(const options *o, const config *cfg, instance_tune_fn tune_one, diags *d)
{
	const instance_set *s = &cfg->instances;
	if (o->replay || o->nshards) {
		diags_add(d, "%s: %s with instances: is not supported: give a config of one instance", cfg->path,
			  o->replay ? "--replay" : "--shard");
		return EXIT_USAGE;
	}
	instance_run ir = {.ninst = s->ninst, .nparams = cfg->nparams};
	ir.won = xcalloc(s->ninst * cfg->nparams + 1, sizeof *ir.won);
	ir.has_won = xcalloc(s->ninst + 1, 1);
	ir.seed_note = xcalloc(s->ninst + 1, sizeof *ir.seed_note);
	char **parts = xcalloc(s->ninst + 1, sizeof *parts);
	int code = EXIT_WINNER;
	size_t tuned = 0, ran = 0;
	for (size_t i = 0; i < s->ninst; i++) {
		char *label = config_instance_label(cfg, i);
		if (!o->quiet || o->cmd == CMD_VALIDATE)
			fprintf(o->cmd == CMD_VALIDATE ? stdout : stderr, "%s: instance %zu of %zu: %s\n", cfg->name, i + 1,
				s->ninst, label);
		fflush(stdout);
		free(label);
		ir.index = i;
		ir.winner = -1;
		int rc = tune_one(o, &ir);
		parts[i] = ir.part;
		ir.part = NULL;
		tuned += parts[i] && ir.winner >= 0;
		ran += parts[i] != NULL;
		code = worse(code, rc);
		if (rc != EXIT_WINNER && rc != EXIT_NONE_PASSED)
			break;
	}
	if (o->cmd != CMD_VALIDATE && ran && write_joined(o, cfg, parts, tuned, &ir, d))
		code = worse(code, EXIT_UNWRITTEN);
	/* the joined results are of them all */
	if (o->cmd == CMD_VALIDATE && code == EXIT_WINNER)
		spec_files_say_stale(cfg);
	for (size_t i = 0; i < s->ninst; i++) {
		free(parts[i]);
		free(ir.seed_note[i]);
	}
	free(parts);
	free(ir.seed_note);
	free(ir.has_won);
	free(ir.won);
	free(ir.part);
	free(ir.codes);
	return code;
}
