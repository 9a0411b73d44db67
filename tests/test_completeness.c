/* test_completeness.c: how far a run got, read from a results file's run column and statuses
 * (completeness.c): interrupted, terminated, stopped and search runs are not complete, merged
 * shards take the word a reader must hear first, an older file without the column is judged by its
 * statuses, and the header's macros and make variables say the same. */
#define _GNU_SOURCE /* open_memstream */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "completeness.h"
#include "tests.h"

/* The run of a CSV of these rows ("status,run" each, or "status" alone: an older file). */
static void run_of_rows(const char *head, const char *rows, run_extent *r)
{
	char *text = xasprintf("bx,blockDim.x,%s\n%s", head, rows);
	const char *path = write_temp(3, "run.csv", text);
	free(text);
	table t;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(table_load(path, &t, &d), 0);
	table_run(&t, r);
	table_free(&t);
	diags_free(&d);
}

static void test_a_run_is_complete_only_when_it_finished_everything(void)
{
	run_extent r;
	run_of_rows("status,run", "32,32,ok,complete\n64,64,crashed,complete\n96,96,compile-error,complete\n", &r);
	CU_ASSERT_STRING_EQUAL(r.state, RUN_COMPLETE);
	CU_ASSERT_EQUAL(r.measured, 3);
	CU_ASSERT_EQUAL(r.configurations, 3);
	CU_ASSERT(run_complete(&r));
	CU_ASSERT_PTR_NULL(run_note(&r));
	static const struct {
		const char *word, *note;
	} stopped[] = {
		{"interrupted", "1 of 3 configurations measured, interrupted: resume with the same command"},
		{"terminated", "1 of 3 configurations measured, stopped by SIGTERM: resume with the same command"},
		{"stopped", "1 of 3 configurations measured, stopped: the GPU worker could not be restarted: resume with "
			    "the same command"},
		{"journal-failed", "1 of 3 configurations measured, stopped: the journal could not be written: resume with "
				   "the same command"},
		{"search", "a search (--budget) of 1 of 3 configurations: the best found, not necessarily the best"},
		{"sample-search", "a search (--budget) of 1 of a uniform sample of 3 configurations of a space too large "
				  "to list: the best found, not necessarily the best"},
		{"compile-stopped", "compiling stopped once the first binaries all failed with the same error: 2 of 3 "
				    "configurations not run; fix the error (--keep-going compiles them all)"},
		{"reference-failed", "1 of 3 configurations measured: the verify reference failed, so the rest could not be "
				     "checked; fix it (the run said how) and run again"},
	};
	for (size_t i = 0; i < sizeof stopped / sizeof *stopped; i++) {
		char *rows = xasprintf("32,32,ok,%s\n64,64,not-run,%s\n96,96,not-run,%s\n", stopped[i].word, stopped[i].word,
				       stopped[i].word);
		run_of_rows("status,run", rows, &r);
		free(rows);
		CU_ASSERT_STRING_EQUAL(r.state, stopped[i].word);
		CU_ASSERT_EQUAL(r.measured, 1);
		CU_ASSERT(!run_complete(&r));
		char *note = run_note(&r);
		CU_ASSERT_STRING_EQUAL(note ? note : "", stopped[i].note);
		free(note);
	}
}

/* Shards merged keep their own words: one interrupted shard makes the whole run interrupted. */
static void test_merged_shards_take_the_word_to_hear_first(void)
{
	run_extent r;
	run_of_rows("status,run", "32,32,ok,complete\n64,64,ok,interrupted\n96,96,not-run,interrupted\n128,128,ok,search\n",
		    &r);
	CU_ASSERT_STRING_EQUAL(r.state, RUN_INTERRUPTED);
	CU_ASSERT_EQUAL(r.measured, 3);
	CU_ASSERT_EQUAL(r.configurations, 4);
	run_extent a = {.state = RUN_COMPLETE, .measured = 5, .configurations = 5},
		   b = {.state = RUN_TERMINATED, .measured = 2, .configurations = 5};
	run_extent_join(&a, &b);
	CU_ASSERT_STRING_EQUAL(a.state, RUN_TERMINATED);
	CU_ASSERT_EQUAL(a.measured, 7);
	CU_ASSERT_EQUAL(a.configurations, 10);
}

/* The configurations column counts the space: those a file does not list were not run; a
 * "complete" file that lists fewer is partial; in a joined file of instances each instance's
 * space counts once; a number no size_t holds is no count. */
static void test_the_configurations_column_counts_what_is_not_listed(void)
{
	run_extent r;
	run_of_rows("status,run,configurations", "32,32,ok,search,1867776\n64,64,ok,search,1867776\n", &r);
	CU_ASSERT_STRING_EQUAL(r.state, RUN_SEARCH);
	CU_ASSERT_EQUAL(r.measured, 2);
	CU_ASSERT_EQUAL(r.configurations, 1867776);
	char *note = run_note(&r);
	CU_ASSERT_STRING_EQUAL(note ? note : "", "a search (--budget) of 2 of 1867776 configurations: the best found, not "
						"necessarily the best");
	free(note);
	run_of_rows("status,run,configurations", "32,32,ok,complete,3\n64,64,ok,complete,3\n", &r);
	CU_ASSERT_STRING_EQUAL(r.state, RUN_PARTIAL);
	CU_ASSERT_EQUAL(r.configurations, 3);
	run_of_rows("status,run,configurations,instance,n",
		    "32,32,ok,search,10,1,1024\n64,64,ok,search,10,1,1024\n32,32,ok,search,20,2,4096\n", &r);
	CU_ASSERT_EQUAL(r.measured, 3);
	CU_ASSERT_EQUAL(r.configurations, 30);
	run_of_rows("status,run,configurations", "32,32,ok,complete,1e300\n64,64,ok,complete,\n", &r);
	CU_ASSERT(run_complete(&r));
}

/* Files written before the run column: judged by their statuses; a dry run's rows are a dry run. */
static void test_older_files_and_dry_runs(void)
{
	run_extent r;
	run_of_rows("status", "32,32,ok\n64,64,wrong-result\n", &r);
	CU_ASSERT(run_complete(&r));
	run_of_rows("status", "32,32,ok\n64,64,not-run\n", &r);
	CU_ASSERT_STRING_EQUAL(r.state, RUN_PARTIAL);
	CU_ASSERT(!run_complete(&r));
	char *note = run_note(&r);
	CU_ASSERT_PTR_NOT_NULL(note ? strstr(note, "1 of 2 configurations measured (the results do not say why") : NULL);
	free(note);
	run_of_rows("status,run", "32,32,not-run,dry-run\n64,64,compile-error,dry-run\n", &r);
	CU_ASSERT_STRING_EQUAL(r.state, RUN_DRY);
	CU_ASSERT(!run_complete(&r));
}

static char *macros_of(const run_extent *r, char **mk)
{
	char *h = NULL;
	size_t hn = 0, mn = 0;
	FILE *fh = open_memstream(&h, &hn), *fm = open_memstream(mk, &mn);
	completeness_put_macros(fh, fm, "X", r);
	fclose(fh);
	fclose(fm);
	return h;
}

static void test_the_header_says_complete_or_not(void)
{
	char *mk, *h = macros_of(&(run_extent){.state = RUN_INTERRUPTED, .measured = 2, .configurations = 52}, &mk);
	CU_ASSERT_PTR_NOT_NULL(strstr(h, "#define X_COMPLETE 0\n#define X_RUN \"interrupted\"\n#define X_MEASURED 2\n"
					 "#define X_CONFIGURATIONS 52\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(mk, "# INCOMPLETE: 2 of 52 configurations measured, interrupted: resume with the same "
					  "command\nX_COMPLETE := 0\nX_RUN := interrupted\nX_MEASURED := 2\n"));
	free(h);
	free(mk);
	h = macros_of(&(run_extent){.state = RUN_COMPLETE, .measured = 52, .configurations = 52}, &mk);
	CU_ASSERT_PTR_NOT_NULL(strstr(h, "#define X_COMPLETE 1\n#define X_RUN \"complete\"\n"));
	CU_ASSERT_PTR_NULL(strstr(mk, "INCOMPLETE"));
	CU_ASSERT_PTR_NOT_NULL(strstr(mk, "X_COMPLETE := 1\n"));
	free(h);
	free(mk);
}

int add_completeness_suite(void)
{
	CU_pSuite s = CU_add_suite("completeness", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "a run is complete only when it finished everything",
		    test_a_run_is_complete_only_when_it_finished_everything);
	CU_add_test(s, "merged shards take the word to hear first", test_merged_shards_take_the_word_to_hear_first);
	CU_add_test(s, "the configurations column counts what is not listed",
		    test_the_configurations_column_counts_what_is_not_listed);
	CU_add_test(s, "older files and dry runs", test_older_files_and_dry_runs);
	CU_add_test(s, "the header says complete or not", test_the_header_says_complete_or_not);
	return 0;
}
