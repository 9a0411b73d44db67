/* completeness.c: how far a run got, from a results file's run column and statuses, and how the
 * header, make fragment, report and summary say it. */
#include "completeness.h"

#include <stdlib.h>
#include <string.h>

#include "banned.h"

/* The words of the run column, in the order a reader must hear them: the first one any row has
 * stands for the whole file. */
static const char *const run_order[] = {RUN_INTERRUPTED, RUN_TERMINATED, RUN_STOPPED, RUN_UNJOURNALED, RUN_HELD,
					RUN_NO_REFERENCE, RUN_SAMPLE, RUN_SEARCH, RUN_PARTIAL, RUN_COMPLETE, RUN_DRY, NULL};

static int run_rank(const char *state)
{
	int k = 0;
	while (run_order[k] && strcmp(run_order[k], state))
		k++;
	return k;
}

/* The configurations t stands for: its rows, and those of its space that it does not list, which
 * its configurations column counts (in a joined file of instances, each instance's space). */
static size_t space_size(const table *t)
{
	int space = table_fixed_col(t, "configurations"), inst = table_fixed_col(t, "instance");
	if (space < 0)
		return t->nrows;
	size_t ngroups = 1;
	for (size_t row = 0; inst >= 0 && row < t->nrows; row++) {
		long k = atol(table_get(t, row, inst));
		if (k > 0 && k <= 1000000 && (size_t)k >= ngroups)
			ngroups = (size_t)k + 1;
	}
	size_t *rows = xcalloc(ngroups, sizeof *rows), *size = xcalloc(ngroups, sizeof *size), all = 0;
	for (size_t row = 0; row < t->nrows; row++) {
		long k = inst >= 0 ? atol(table_get(t, row, inst)) : 0;
		size_t g = k > 0 && (size_t)k < ngroups ? (size_t)k : 0;
		double n = table_num(t, row, space);
		rows[g]++;
		if (n > (double)size[g] && n < 1e18)
			size[g] = (size_t)n;
	}
	for (size_t g = 0; g < ngroups; g++)
		all += size[g] > rows[g] ? size[g] : rows[g];
	free(rows);
	free(size);
	return all;
}

void table_run(const table *t, run_extent *r)
{
	int st = table_col(t, "status"), run = table_fixed_col(t, "run"), best = run_rank(RUN_COMPLETE);
	size_t dry = 0;
	r->measured = 0;
	/* the configurations the file does not list (a search's) count as not run */
	r->configurations = space_size(t);
	r->why[0] = 0;
	for (size_t row = 0; row < t->nrows; row++) {
		const char *word = table_get(t, row, run);
		r->measured += strcmp(table_get(t, row, st), "not-run") != 0;
		dry += !strcmp(word, RUN_DRY);
		if (run_rank(word) < best && run_rank(word) < run_rank(RUN_PARTIAL))
			best = run_rank(word);
	}
	if (t->nrows && dry == t->nrows)
		r->state = RUN_DRY;
	else if (best < run_rank(RUN_PARTIAL))
		r->state = run_order[best];
	else
		r->state = r->measured < r->configurations ? RUN_PARTIAL : RUN_COMPLETE;
}

void run_extent_join(run_extent *a, const run_extent *b)
{
	a->measured += b->measured;
	a->configurations += b->configurations;
	if (run_rank(b->state) < run_rank(a->state)) {
		a->state = b->state;
		memcpy(a->why, b->why, sizeof a->why);
	}
}

int run_complete(const run_extent *r)
{
	return !strcmp(r->state, RUN_COMPLETE) && r->measured == r->configurations;
}

char *run_note(const run_extent *r)
{
	if (run_complete(r))
		return NULL;
	const char *s = r->state;
	if (!strcmp(s, RUN_SEARCH))
		return xasprintf("a search (--budget) of %zu of %zu configurations: the best found, not necessarily the best",
				 r->measured, r->configurations);
	if (!strcmp(s, RUN_SAMPLE))
		return xasprintf("a search (--budget) of %zu of a uniform sample of %zu configurations of a space too "
				 "large to list: the best found, not necessarily the best", r->measured, r->configurations);
	if (!strcmp(s, RUN_DRY))
		return xasprintf("a dry run: none of %zu configurations measured", r->configurations);
	if (!strcmp(s, RUN_NO_REFERENCE))
		return xasprintf("%zu of %zu configurations measured: the verify reference failed, so the rest could not be "
				 "checked; fix it (the run said how) and run again", r->measured, r->configurations);
	if (!strcmp(s, RUN_HELD))
		return xasprintf("compiling stopped once the first binaries all failed with the same error: %zu of %zu "
				 "configurations not run; fix the error (--keep-going compiles them all)",
				 r->configurations - r->measured, r->configurations);
	const char *why = !strcmp(s, RUN_INTERRUPTED)	? "interrupted"
			  : !strcmp(s, RUN_TERMINATED)	? "stopped by SIGTERM"
			  : !strcmp(s, RUN_STOPPED)	? "stopped: the GPU worker could not be restarted"
			  : !strcmp(s, RUN_UNJOURNALED) ? "stopped: the journal could not be written"
			  : r->why[0]			? r->why
							: NULL;
	if (why)
		return xasprintf("%zu of %zu configurations measured, %s: resume with the same command", r->measured,
				 r->configurations, why);
	return xasprintf("%zu of %zu configurations measured (the results do not say why: an older file?)", r->measured,
			 r->configurations);
}

void completeness_put_file_note(FILE *h, const char *lead, const char *path, const run_extent *r)
{
	char *note = run_note(r);
	if (note)
		fprintf(h, "%sINCOMPLETE: %s: %s.\n", lead, path, note);
	free(note);
}

void completeness_put_comment(FILE *h, const char *lead, const char *upper, const run_extent *all)
{
	if (run_complete(all))
		fprintf(h, "%sComplete: every one of the %zu configurations was measured (%s_COMPLETE 1).\n", lead,
			all->configurations, upper);
	else if (!strcmp(all->state, RUN_SAMPLE))
		fprintf(h, "%s%s_COMPLETE is 0: a search measured what it chose, in a sample of a space too large\n"
			   "%sto list; narrow the space to measure it whole.\n",
			lead, upper, lead);
	else if (!strcmp(all->state, RUN_SEARCH))
		fprintf(h, "%s%s_COMPLETE is 0: a search measured what it chose; re-tune without --budget for\n"
			   "%sa complete run.\n",
			lead, upper, lead);
	else
		fprintf(h, "%s%s_COMPLETE is 0: these values are the best of what was measured; once the\n"
			   "%srun is complete, rewrite this header from its results (the command below).\n",
			lead, upper, lead);
}

void completeness_put_macros(FILE *h, FILE *mk, const char *upper, const run_extent *r)
{
	int complete = run_complete(r);
	char *note = run_note(r);
	if (note)
		fprintf(mk, "# INCOMPLETE: %s\n", note);
	free(note);
	fprintf(h, "/* 1 when every configuration was measured by a run that finished; 0 for a run stopped early\n"
		   " * (RUN \"interrupted\", \"terminated\", \"stopped\") or a search (RUN \"search\") */\n"
		   "#define %s_COMPLETE %d\n#define %s_RUN \"%s\"\n#define %s_MEASURED %zu\n#define %s_CONFIGURATIONS %zu\n",
		upper, complete, upper, r->state, upper, r->measured, upper, r->configurations);
	fprintf(mk, "%s_COMPLETE := %d\n%s_RUN := %s\n%s_MEASURED := %zu\n%s_CONFIGURATIONS := %zu\n", upper, complete,
		upper, r->state, upper, r->measured, upper, r->configurations);
}
