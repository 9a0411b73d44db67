/* merge.c: `autotune merge CONFIG SHARD.csv...`: the CSVs of a job array's tasks (--shard I/N)
 * joined into the results one process would have written: rows in the space's order, the
 * winner chosen again over all of them (with the config's selection policy), and the header. */
#define _GNU_SOURCE /* open_memstream */
#include "merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "completeness.h"
#include "config.h"
#include "output.h"
#include "publish.h"
#include "run_names.h"
#include "select.h"
#include "space.h"
#include "spec_files.h"
#include "table.h"
#include "banned.h"

/* The shards' rows by their parameters' text (as output.c writes them): a configuration's row is
 * found in one probe, so that a space of millions with a search's few rows merges in a pass. */
typedef struct {
	const table *t;
	size_t row;
	char *key;
} row_slot;

typedef struct {
	row_slot *slots;
	size_t mask;
} row_index;

static size_t key_hash(const char *s)
{
	size_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* The text of a configuration: each parameter's field followed by a unit separator. Caller frees. */
static char *row_key(const table *t, size_t r, const int *cols, size_t nparams)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		diag_out_of_memory();
	for (size_t p = 0; p < nparams; p++)
		fprintf(f, "%s\x1f", table_get(t, r, cols[p]));
	fclose(f);
	return buf;
}

static char *config_key(const config *cfg, const value *vals)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		diag_out_of_memory();
	for (size_t p = 0; p < cfg->nparams; p++) {
		char v[64];
		value_format(vals[p], v, sizeof v);
		fprintf(f, "%s\x1f", v);
	}
	fclose(f);
	return buf;
}

/* Every row of the shards; a configuration two shards hold keeps the first (every_row_used
 * finds the other). */
static void index_rows(row_index *ix, const table *tables, size_t nt, const int *cols, size_t nparams)
{
	size_t rows = 0;
	for (size_t k = 0; k < nt; k++)
		rows += tables[k].nrows;
	size_t cap = 16;
	while (cap < 2 * rows + 2)
		cap *= 2;
	ix->slots = xcalloc(cap, sizeof *ix->slots);
	ix->mask = cap - 1;
	for (size_t k = 0; k < nt; k++)
		for (size_t r = 0; r < tables[k].nrows; r++) {
			char *key = row_key(&tables[k], r, cols, nparams);
			size_t h = key_hash(key) & ix->mask;
			while (ix->slots[h].key && strcmp(ix->slots[h].key, key))
				h = (h + 1) & ix->mask;
			if (ix->slots[h].key) {
				free(key);
				continue;
			}
			ix->slots[h] = (row_slot){&tables[k], r, key};
		}
}

static const row_slot *index_find(const row_index *ix, const char *key)
{
	size_t h = key_hash(key) & ix->mask;
	while (ix->slots[h].key && strcmp(ix->slots[h].key, key))
		h = (h + 1) & ix->mask;
	return ix->slots[h].key ? &ix->slots[h] : NULL;
}

static void index_free(row_index *ix)
{
	for (size_t h = 0; h <= ix->mask; h++)
		free(ix->slots[h].key);
	free(ix->slots);
}

/* The flags field without "winner", and with it for the new winner. Caller frees. */
static char *flags_for(const char *flags, int winner)
{
	char *out = xstrdup(""), *copy = xstrdup(flags), *save = NULL;
	for (char *tok = strtok_r(copy, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
		if (!strcmp(tok, "winner"))
			continue;
		char *more = xasprintf("%s%s%s", out, *out ? ";" : "", tok);
		free(out);
		out = more;
	}
	if (winner) {
		char *more = xasprintf("%s%swinner", out, *out ? ";" : "");
		free(out);
		out = more;
	}
	free(copy);
	return out;
}

/* The shards' list of the files their spec covers (they are of one spec), beside the joined CSV,
 * so that validate names what changed since; none when the first shard has none. */
static void keep_spec_files(const char *shard, const char *path)
{
	char *from = spec_files_path(shard), *to = spec_files_path(path), *text;
	size_t len;
	diags quiet = {0};
	if ((text = read_input(from, 1 << 20, "a spec's file list", &len, &quiet)) && write_output(to, text, len, &quiet))
		fprintf(stderr, "autotune merge: warning: %s is not kept: %s\n", to, quiet.n ? quiet.msgs[0] : "");
	diags_free(&quiet);
	free(text);
	free(from);
	free(to);
}

/* Writes the joined CSV: the shards' header, then row of[c] of table in[c] for every c, of a
 * space of `configurations`. */
static int write_joined(const char *path, const table *head, const table *const *in, const size_t *of, size_t n,
			long long winner, size_t configurations, diags *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		diags_add(d, "out of memory");
		return -1;
	}
	int flags = table_col(head, "flags"), space = table_fixed_col(head, "configurations");
	char count[32]; /* the merged space's size: each shard's counted its own part */
	snprintf(count, sizeof count, "%zu", configurations);
	for (size_t i = 0; i < head->ncols; i++) {
		csv_field(f, head->names[i]);
		fputs(i + 1 < head->ncols ? "," : "\r\n", f);
	}
	for (size_t c = 0; c < n; c++)
		for (size_t i = 0; i < head->ncols; i++) {
			const char *field = table_get(in[c], of[c], (int)i);
			char *own = (int)i == flags ? flags_for(field, (long long)c == winner) : NULL;
			csv_field(f, own ? own : (int)i == space ? count : field);
			free(own);
			fputs(i + 1 < head->ncols ? "," : "\r\n", f);
		}
	fclose(f);
	int rc = write_output(path, buf, len, d);
	free(buf);
	if (rc == 0)
		keep_spec_files(head->path, path);
	return rc;
}

/* The shards named as such must be N different ones of N: a missing or repeated shard is named
 * here, before any row is looked for (it would read as a configuration that no shard has). */
static int check_shard_set(char *const *paths, size_t nt, diags *d)
{
	int n0 = 0, rc = 0;
	int *i = xcalloc(nt + 1, sizeof *i), *n = xcalloc(nt + 1, sizeof *n);
	for (size_t k = 0; k < nt; k++) {
		if (!run_shard_of_name(paths[k], &i[k], &n[k]))
			goto out; /* renamed files: the rows alone tell */
		if (!n0)
			n0 = n[k];
		if (n[k] != n0) {
			diags_add(d, "%s is a shard of %d, but %s one of %d: give the shards of one run", paths[k], n[k], paths[0], n0);
			rc = -1;
			goto out;
		}
		for (size_t j = 0; j < k; j++)
			if (i[j] == i[k]) {
				diags_add(d, "%s and %s are both shard %d of %d: give each shard once", paths[j], paths[k], i[k], n0);
				rc = -1;
			}
	}
	for (int want = 0; want < n0 && !rc; want++) {
		size_t k = 0;
		while (k < nt && i[k] != want)
			k++;
		if (k == nt) {
			diags_add(d, "shard %d of %d is missing (%.*s.shard-%d-of-%d.csv): give the CSV of every shard", want, n0,
				  (int)(strstr(paths[0], ".shard-") - paths[0]), paths[0], want, n0);
			rc = -1;
		}
	}
out:
	free(i);
	free(n);
	return rc;
}

/* The shards' tables and, for each configuration of the space, the table and row that hold it. */
typedef struct {
	table *tables;
	size_t nt;
	const table **in; /* per configuration listed, in the space's order */
	size_t *of;
	size_t *config;   /* the configuration of each: its index in the space */
	size_t n;         /* configurations listed: the space's, less those the shards do not list */
	long long winner; /* chosen again over the joined rows; -1 when none passed */
	int ran;          /* 0: every row is a dry run's */
} join;

/* Loads the shards' CSVs, which must be of one run: the same columns, the same spec_hash. */
static int load_shards(char *const *paths, join *j, diags *d)
{
	table *tables = j->tables;
	for (size_t k = 0; k < j->nt; k++) {
		table *t = &tables[k];
		if (table_load(paths[k], t, d))
			return -1;
		/* every shard of one run has the same columns, in the same order */
		int same = t->ncols == tables[0].ncols;
		for (size_t i = 0; same && i < t->ncols; i++)
			same = !strcmp(t->names[i], tables[0].names[i]);
		if (!same) {
			diags_add(d, "%s: its columns differ from %s's: not shards of one run", t->path, tables[0].path);
			return -1;
		}
		const char *spec = table_field(t, 0, "spec_hash"), *spec0 = table_field(&tables[0], 0, "spec_hash");
		if (t->nrows && tables[0].nrows && strcmp(spec, spec0)) {
			diags_add(d, "%s: spec_hash %s, but %s has %s: shards of different configs or kernel sources", t->path,
				  spec, tables[0].path, spec0);
			return -1;
		}
	}
	return 0;
}

/* The column of each of the config's parameters in the shards' CSVs. */
static int param_columns(const table *t, const config *cfg, int *cols, diags *d)
{
	for (size_t p = 0; p < cfg->nparams; p++)
		if ((cols[p] = table_col(t, cfg->params[p].name)) < 0 || (size_t)cols[p] >= t->nparams) {
			diags_add(d, "%s: no column for the parameter '%s' of %s", t->path, cfg->params[p].name, cfg->path);
			return -1;
		}
	return 0;
}

/* Whether row r of t is the configuration whose text is key (NULL: none is). */
static int row_is(const table *t, size_t r, const int *cols, size_t nparams, const char *key)
{
	if (!key)
		return 0;
	char *k = row_key(t, r, cols, nparams);
	int same = !strcmp(k, key);
	free(k);
	return same;
}

/* Each configuration found once: a row left over is one another shard also holds (shards of
 * different splits, or renamed copies), or one not in this space; taking either copy would make
 * the answer depend on the order of the arguments. The named reference is the exception: every
 * shard measures it to check against (ref_key, NULL when the config names none). */
static int every_row_used(const join *j, const int *cols, size_t nparams, const char *ref_key, diags *d)
{
	size_t rows = 0;
	for (size_t k = 0; k < j->nt; k++)
		rows += j->tables[k].nrows;
	if (rows == j->n)
		return 0;
	for (size_t k = 0; k < j->nt; k++) {
		const table *t = &j->tables[k];
		char *used = xcalloc(t->nrows + 1, 1);
		for (size_t c = 0; c < j->n; c++)
			if (j->in[c] == t)
				used[j->of[c]] = 1;
		size_t r = 0;
		while (r < t->nrows && (used[r] || row_is(t, r, cols, nparams, ref_key)))
			r++;
		free(used);
		if (r < t->nrows) {
			diags_add(d, "%s:%zu: a configuration another shard also has, or one not in this space: give the "
				     "shards of one --shard split, each once", t->path, r + 2);
			return -1;
		}
	}
	return 0;
}

/* The named reference's row from the shard it belongs to in the split (index mod N, N the shards
 * given), whatever the order of the arguments: the others measured it only to check against.
 * That shard is the one whose other rows are configurations of the same residue. */
static void reference_from_its_shard(join *j, const int *cols, size_t nparams, size_t ref, const char *ref_key)
{
	size_t at = 0;
	while (at < j->n && j->config[at] != ref)
		at++;
	if (at == j->n)
		return;
	for (size_t c = 0; c < j->n; c++) {
		if (c == at || j->config[c] % j->nt != ref % j->nt)
			continue;
		const table *own = j->in[c];
		for (size_t r = 0; r < own->nrows && own != j->in[at]; r++)
			if (row_is(own, r, cols, nparams, ref_key)) {
				j->in[at] = own;
				j->of[at] = r;
			}
		return;
	}
}

/* The configurations of the shards' space that no shard lists: those of a search, which its
 * configurations column counts (completeness.h); none in shards that list all of theirs. */
static size_t unlisted_in_shards(const join *j)
{
	size_t n = 0;
	for (size_t k = 0; k < j->nt; k++) {
		run_extent r;
		table_run(&j->tables[k], &r);
		n += r.configurations - j->tables[k].nrows;
	}
	return n;
}

static int find_rows(join *j, const int *cols, const config *cfg, const space *sp, diags *d)
{
	int rc = 0;
	row_index ix;
	index_rows(&ix, j->tables, j->nt, cols, cfg->nparams);
	int unlisted = unlisted_in_shards(j) > 0;
	for (size_t c = 0; c < sp->count && !rc; c++) {
		char *key = config_key(cfg, space_config(sp, c));
		const row_slot *at = index_find(&ix, key);
		free(key);
		if (at) {
			j->in[j->n] = at->t;
			j->of[j->n] = at->row;
			j->config[j->n++] = c;
		} else if (!unlisted) {
			char *desc = space_describe(cfg, space_config(sp, c));
			diags_add(d, "no shard has %s: give the CSV of every shard of %s", desc, cfg->path);
			free(desc);
			rc = -1;
		}
	}
	index_free(&ix);
	if (rc)
		return rc;
	int has_ref = cfg->has_reference && sp->reference >= 0;
	char *ref_key = has_ref ? config_key(cfg, space_config(sp, (size_t)sp->reference)) : NULL;
	if (has_ref)
		reference_from_its_shard(j, cols, cfg->nparams, (size_t)sp->reference, ref_key);
	rc = every_row_used(j, cols, cfg->nparams, ref_key, d);
	free(ref_key);
	return rc;
}

/* Each configuration's results, read from its row the way every results reader reads them. */
static result *joined_results(join *j, size_t count)
{
	result *res = xcalloc(count + 1, sizeof *res);
	for (size_t c = 0; c < count; c++) {
		table one = *j->in[c];
		one.cells = j->in[c]->cells + j->of[c] * j->in[c]->ncols;
		one.nrows = 1;
		result *r = table_results(&one);
		res[c] = r[0];
		j->ran |= r[0].st != ST_NOT_RUN;
		free(r);
	}
	return res;
}

/* The joined CSV's rows and winner, for publish. */
typedef struct {
	const join *j;
	long long winner;
	size_t configurations;
} merged;

static int write_merged_csv(void *ctx, const char *path, diags *d)
{
	const merged *m = ctx;
	return write_joined(path, &m->j->tables[0], m->j->in, m->j->of, m->j->n, m->winner,
			    m->configurations, d);
}

/* The winner chosen again with the config's policy, then the joined CSV, the header (when
 * something passed), the report and the T4 file (when asked for), as a single run writes them. */
static int write_merged(const options *o, const config *cfg, const space *sp, join *j, diags *d)
{
	result *res = joined_results(j, j->n);
	choice pick;
	select_winner(res, j->n, &cfg->select, &pick);
	long long winner = j->winner = pick.winner;
	choice_free(&pick);
	/* dry runs' shards join into a dry run's results, beside the measured ones, not over them */
	char *csv = j->ran ? xstrdup(cfg->csv_path) : run_name(cfg->csv_path, RUN_FILE_DRY_CSV);
	merged m = {j, winner, sp->count};
	published pub;
	/* the header, report and T4 file from the joined CSV, as a single run writes them */
	int rc = publish(&(publish_opts){.cfg = cfg, .csv = csv, .write_csv = write_merged_csv, .ctx = &m,
					 .winner = winner >= 0, .t4 = o->t4 || cfg->write_t4},
			 &pub, d);
	if (pub.csv && winner >= 0 && !o->quiet) {
		char *desc = space_describe(cfg, space_config(sp, j->config[winner]));
		fprintf(stderr, "%s: %zu configurations from %zu shards; winner %s: %.4f ms\n", cfg->name, j->n, j->nt, desc,
			result_time(&res[winner]));
		free(desc);
	}
	if (!rc && !o->quiet)
		fprintf(stderr, "  wrote %s%s%s%s%s\n", csv, winner >= 0 ? ", " : "", winner >= 0 ? cfg->header_path : "",
			pub.t4 ? ", " : "", pub.t4 ? pub.t4 : "");
	free(pub.t4);
	free(csv);
	table_results_free(res, j->n);
	return rc;
}

int cmd_merge(const options *o)
{
	diags d = {0};
	config cfg;
	space sp;
	if (config_load(o->config, &cfg, &d)) {
		diags_print(&d);
		diags_free(&d);
		return EXIT_USAGE;
	}
	diags_print(&cfg.warnings);
	if (space_enumerate(&cfg, &sp, &d)) {
		config_free(&cfg);
		diags_print(&d);
		diags_free(&d);
		return EXIT_USAGE;
	}
	size_t nt = (size_t)o->ninputs - 1;
	join j = {.tables = xcalloc(nt, sizeof *j.tables), .nt = nt, .winner = -1};
	j.in = xcalloc(sp.count + 1, sizeof *j.in);
	j.of = xcalloc(sp.count + 1, sizeof *j.of);
	j.config = xcalloc(sp.count + 1, sizeof *j.config);
	int *cols = xcalloc(cfg.nparams + 1, sizeof *cols);
	int rc = check_shard_set(o->inputs + 1, nt, &d);
	for (size_t k = 0; k < nt && !rc; k++)
		if (same_file(cfg.csv_path, o->inputs[1 + k])) {
			diags_add(&d, "autotune merge: '%s' is both a part to merge and the merged CSV (output.csv of %s)",
				  o->inputs[1 + k], cfg.path);
			rc = -1;
		}
	if (!rc)
		rc = load_shards(o->inputs + 1, &j, &d);
	if (!rc)
		rc = param_columns(&j.tables[0], &cfg, cols, &d);
	if (!rc)
		rc = find_rows(&j, cols, &cfg, &sp, &d);
	if (!rc)
		rc = write_merged(o, &cfg, &sp, &j, &d);
	for (size_t k = 0; k < nt; k++)
		table_free(&j.tables[k]); /* those never loaded are empty */
	free(j.tables);
	free(j.in);
	free(j.of);
	free(j.config);
	free(cols);
	space_free(&sp);
	config_free(&cfg);
	if (d.n)
		diags_print(&d);
	diags_free(&d);
	return rc ? EXIT_USAGE : j.winner >= 0 || !j.ran ? EXIT_WINNER : EXIT_NONE_PASSED;
}
