/* run_files.c: the files a tuning run writes: each checked before anything is measured (one it
 * may replace, none of its inputs, no two the same), and what a killed run left of them. */
#define _GNU_SOURCE
#include "run_files.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "header.h"
#include "inputs.h"
#include "output.h"
#include "proc.h"
#include "recipe.h"
#include "report.h"
#include "run_names.h"
#include "spec_files.h"
#include "t4.h"
#include "table.h"
#include "banned.h"

int run_check_output_path(const char *path, diags *d)
{
	struct stat st;
	const char *why = output_refusal(path);
	if (why) {
		/* found now, not once everything is measured */
		diags_add(d, "cannot write '%s': %s", path, why);
		return -1;
	}
	const char *slash = strrchr(path, '/');
	if (!slash || slash == path)
		return 0;
	char *dir = xasprintf("%.*s", (int)(slash - path), path);
	int rc = 0;
	if (stat(dir, &st) != 0 && make_dirs(dir) != 0) {
		diags_add(d, "cannot create the results directory '%s': %s", dir, strerror(errno));
		rc = -1;
	} else if (access(dir, W_OK) != 0) {
		diags_add(d, "the results directory '%s' is not writable: %s", dir, strerror(errno));
		rc = -1;
	}
	free(dir);
	return rc;
}

/* The T4 file beside the CSV when --t4 or output.t4 asks for one (caller frees), else NULL; a
 * shard's CSV is a part: `autotune merge` writes the whole run's. */
char *run_t4_path(const config *cfg, const options *o)
{
	return (o->t4 || cfg->write_t4) && !o->nshards && !config_is_instance(cfg) ? run_name(cfg->csv_path, RUN_FILE_T4) : NULL;
}

/* The results CSV there, when its rows name another config that still exists: two configs of one
 * name (or one output.csv) would take turns replacing each other's measurements. -1 with both
 * named in d. */
static int check_csv_owner(const config *cfg, diags *d)
{
	table t;
	diags quiet = {0};
	int loaded = access(cfg->csv_path, F_OK) == 0 && table_load(cfg->csv_path, &t, &quiet) == 0;
	diags_free(&quiet);
	if (!loaded)
		return 0;
	const char *recorded = t.nrows ? table_field(&t, 0, "config") : "";
	/* as given to that run, relative to where it ran, which holds the results */
	char *owner = *recorded ? find_from(recorded, cfg->csv_path) : NULL;
	int rc = 0;
	if (owner && access(owner, F_OK) == 0 && !same_file(owner, cfg->path)) {
		diags_add(d, "%s: these results belong to %s, and %s would write over them (the same name:, or the same "
			     "output.csv): give one of the two configs another name: or output: {csv: ...}",
			  cfg->csv_path, owner, cfg->path);
		rc = -1;
	}
	free(owner);
	table_free(&t);
	return rc;
}

/* Every file the run writes is one it may replace (check_output_path), none is one of its
 * inputs, and no two are one file: found before anything is measured. */
int run_check_outputs(const config *cfg, const options *o, diags *d)
{
	char *mk = header_mk_path(cfg->header_path), *report = report_default_path(cfg->csv_path);
	char *journal = run_name(cfg->csv_path, RUN_FILE_JOURNAL), *t4 = run_t4_path(cfg, o);
	const char *out[] = {cfg->csv_path, cfg->header_path, mk, report, t4, journal};
	const char *out_name[] = {"output.csv", "output.header", "the make fragment", "the report", "the T4 file",
				  "the journal"};
	/* what an output's file holds when autotune wrote it: anything else there is not replaced
	 * (the journal, journal.c's own) */
	const char *signature[] = {CSV_SIGNATURE, HEADER_SIGNATURE, HEADER_SIGNATURE, REPORT_SIGNATURE, T4_SIGNATURE, NULL};
	enum { NOUT = sizeof out / sizeof *out };
	inputs in;
	inputs_of(cfg, &in);
	int rc = 0;
	/* a shard, or an instance of several, writes its CSV alone; the journal is checked for
	 * clashes, written by journal.c */
	size_t nout = o->nshards || config_is_instance(cfg) ? 1 : NOUT - 1;
	for (size_t i = 0; i < nout && !rc; i++)
		rc = out[i] ? run_check_output_path(out[i], d) : 0;
	for (size_t i = 0; i < NOUT && !rc; i++) {
		const input_file *clash = out[i] ? inputs_find(&in, out[i]) : NULL;
		if (clash) {
			diags_add(d, "%s: %s '%s' is %s: choose another output path", cfg->path, out_name[i], out[i],
				  clash->what);
			rc = -1;
		} else if (i < nout && out[i])
			rc = inputs_check_output(NULL, out[i], out_name[i], signature[i], d);
		for (size_t j = i + 1; j < NOUT && !rc && out[i]; j++)
			if (out[j] && same_file(out[i], out[j])) {
				diags_add(d, "%s: %s and %s are both '%s': choose other output paths", cfg->path, out_name[i],
					  out_name[j], out[i]);
				rc = -1;
			}
	}
	inputs_free(&in);
	free(mk);
	free(report);
	free(journal);
	free(t4);
	return rc ? rc : check_csv_owner(cfg, d);
}

/* A run killed while it renamed its outputs into place left "<output>.tmp.<pid>" files: under
 * the results' lock, those of processes that are gone are removed. */
void run_reclaim_outputs(const config *cfg, const options *o)
{
	char *t4 = run_t4_path(cfg, o), *html = report_default_path(cfg->csv_path);
	char *mk = cfg->header_path ? header_mk_path(cfg->header_path) : NULL;
	char *replay_csv = run_name(cfg->csv_path, RUN_FILE_REPLAY_CSV);
	char *spec = spec_files_path(cfg->csv_path);
	const char *paths[] = {cfg->csv_path, html, cfg->header_path, mk, t4, replay_csv, spec};
	for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
		if (paths[i])
			output_reclaim(paths[i]);
	free(t4);
	free(html);
	free(mk);
	free(replay_csv);
	free(spec);
}

/* Work directories ("autotune-PID-XXXXXX"), and the element files of older versions
 * ("autotune-elements-PID-XXXXXX"), in tmp that this user's runs left behind when they were killed (their process is gone): the
 * next run removes them, the files of a directory first. */
void run_reclaim_workdirs(const char *tmp)
{
	DIR *dir = opendir(tmp);
	struct dirent *e;
	while (dir && (e = readdir(dir))) {
		const char *name = e->d_name, *p = name + strlen("autotune-");
		if (strncmp(name, "autotune-", strlen("autotune-")))
			continue;
		if (!strncmp(p, "elements-", strlen("elements-")))
			p += strlen("elements-");
		char *end;
		long pid = strtol(p, &end, 10);
		char *path = xasprintf("%s/%s", tmp, name);
		struct stat st;
		if (*end == '-' && proc_gone(pid) && lstat(path, &st) == 0 && st.st_uid == getuid()) {
			DIR *sub = S_ISDIR(st.st_mode) ? opendir(path) : NULL;
			struct dirent *f;
			while (sub && (f = readdir(sub)))
				if (strcmp(f->d_name, ".") && strcmp(f->d_name, "..")) {
					char *inner = xasprintf("%s/%s", path, f->d_name);
					unlink(inner);
					free(inner);
				}
			if (sub)
				closedir(sub);
			S_ISDIR(st.st_mode) ? rmdir(path) : unlink(path);
		}
		free(path);
	}
	if (dir)
		closedir(dir);
}
