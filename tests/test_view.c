/* test_view.c: one reading of a results CSV that `report` and `show` share (view.c): the time that
 * decides (the finalists' median when re-timed), the order by it (ties and failures in file
 * order), the winner the file flags or the default policy picks and why, the counts per status,
 * occupancy achieved or theoretical, shared memory, and a dry run told from a stopped one. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "view.h"

#define HEAD "p,blockDim.x,blockDim.y,theoretical_occupancy,achieved_occupancy_pct,static_smem_bytes,dynamic_smem_bytes," \
	     "registers,time_ms_median,samples,noise_pct,final_ms_median,final_noise_pct,final_rounds,flags,status,message\n"

/* b and c were re-timed (their finalists' medians decide), c is flagged, a and e tie, d crashed,
 * f has a status no one knows. */
static const char *run_csv = HEAD
	"a,32,1,0.5,,1024,2048,40,2.0,10,0.5,,,,cold,ok,\n"
	"b,64,1,1.0,80,1024,,32,1.5,10,0.4,1.8,0.2,7,cold;finalist,ok,\n"
	"c,96,1,1.0,,0,0,32,1.6,10,0.3,1.7,0.1,7,cold;finalist;winner,ok,\n"
	"d,128,1,1.0,,,,,,,,,,,,crashed,boom\n"
	"e,160,1,1.0,,,,,2.0,10,0.5,,,,cold,ok,\n"
	"f,192,1,1.0,,,,,,,,,,,,bogus,\n";

static int load(const char *csv, view *v)
{
	diags d = {0};
	int rc = view_load(write_temp(0, "view.csv", csv), v, &d);
	diags_print(&d);
	diags_free(&d);
	return rc;
}

static void test_the_time_that_decides(void)
{
	view v;
	CU_ASSERT_EQUAL_FATAL(load(run_csv, &v), 0);
	CU_ASSERT_DOUBLE_EQUAL(view_time(&v, 0), 2.0, 0);
	CU_ASSERT_DOUBLE_EQUAL(view_time(&v, 1), 1.8, 0); /* its finalists' median, not 1.5 */
	CU_ASSERT_DOUBLE_EQUAL(view_time(&v, 2), 1.7, 0);
	CU_ASSERT(isnan(view_time(&v, 3)));
	CU_ASSERT(isnan(view_time(&v, 5)));
	CU_ASSERT_DOUBLE_EQUAL(view_noise(&v, 0), 0.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(view_noise(&v, 1), 0.2, 1e-12); /* the finalists' noise with their median */
	CU_ASSERT(isnan(view_noise(&v, 3)));
	CU_ASSERT(view_passed(&v, 4) && !view_passed(&v, 3));
	view_free(&v);
}

/* Passing rows by that time, ties in file order; then the rest in file order. */
static void test_rows_by_time_ties_and_failures_in_file_order(void)
{
	view v;
	CU_ASSERT_EQUAL_FATAL(load(run_csv, &v), 0);
	size_t *order = view_by_time(&v);
	size_t want[] = {2, 1, 0, 4, 3, 5};
	for (size_t i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(order[i], want[i]);
	free(order);
	view_free(&v);
}

/* The counts per status, unknown statuses apart; the flagged winner; the columns' readings. */
static void test_counts_winner_and_columns(void)
{
	view v;
	CU_ASSERT_EQUAL_FATAL(load(run_csv, &v), 0);
	CU_ASSERT_EQUAL(v.counts[ST_OK], 4);
	CU_ASSERT_EQUAL(v.counts[ST_CRASHED], 1);
	CU_ASSERT_EQUAL(v.unknown_status, 1);
	CU_ASSERT_EQUAL(v.winner, 2);
	CU_ASSERT(v.winner_flagged);
	CU_ASSERT(!v.dry);
	CU_ASSERT_STRING_EQUAL(view_status(&v, 5), "bogus");
	/* occupancy: achieved where counters were read, else theoretical, in % */
	CU_ASSERT_DOUBLE_EQUAL(view_occupancy(&v, 1), 80, 0);
	CU_ASSERT(view_occupancy_achieved(&v, 1));
	CU_ASSERT_DOUBLE_EQUAL(view_occupancy(&v, 0), 50, 0);
	CU_ASSERT(!view_occupancy_achieved(&v, 0));
	/* shared memory: static and dynamic together; no dynamic is none; no static is unknown */
	CU_ASSERT_DOUBLE_EQUAL(view_smem(&v, 0), 3072, 0);
	CU_ASSERT_DOUBLE_EQUAL(view_smem(&v, 1), 1024, 0);
	CU_ASSERT(isnan(view_smem(&v, 3)));
	CU_ASSERT(isnan(view_num(&v, 0, "no_such_column")));
	char *s = view_describe(&v, 3);
	CU_ASSERT_STRING_EQUAL(s, "p=d");
	free(s);
	s = view_distinct(&v, "status");
	CU_ASSERT_STRING_EQUAL(s, "ok, crashed, bogus");
	free(s);
	s = view_distinct(&v, "message"); /* empty fields are not values */
	CU_ASSERT_STRING_EQUAL(s, "boom");
	free(s);
	CU_ASSERT_PTR_NULL(view_distinct(&v, "gpu"));
	view_free(&v);
	/* without parameter columns a row is its block shape */
	CU_ASSERT_EQUAL_FATAL(load("blockDim.x,blockDim.y,time_ms_median,samples,status\n32,4,1.0,10,ok\n", &v), 0);
	s = view_describe(&v, 0);
	CU_ASSERT_STRING_EQUAL(s, "blockDim.x=32 blockDim.y=4");
	free(s);
	view_free(&v);
}

/* Why the winner won: chosen again when the file flags none; the file's flag kept, and the
 * default policy's own choice named, when they differ; nothing when none passed. */
static void test_why_the_winner_won(void)
{
	view v;
	const char *unflagged = HEAD "a,32,1,1.0,,,,,1.0,10,0.1,,,,,ok,\n"
				     "b,64,1,1.0,,,,,2.0,10,0.1,,,,,ok,\n";
	CU_ASSERT_EQUAL_FATAL(load(unflagged, &v), 0);
	CU_ASSERT_EQUAL(v.winner, 0);
	CU_ASSERT(!v.winner_flagged);
	char *why = view_why(&v);
	CU_ASSERT_STRING_EQUAL(why, "chosen again from the measurements with the default balanced policy; the fastest, and no "
				    "other configuration is within the noise band (2 standard errors)");
	free(why);
	view_free(&v);
	const char *flagged_slower = HEAD "a,32,1,1.0,,,,,1.0,10,0.1,,,,,ok,\n"
					  "b,64,1,1.0,,,,,2.0,10,0.1,,,,winner,ok,\n";
	CU_ASSERT_EQUAL_FATAL(load(flagged_slower, &v), 0);
	CU_ASSERT_EQUAL(v.winner, 1);
	CU_ASSERT(v.winner_flagged);
	why = view_why(&v);
	CU_ASSERT_STRING_EQUAL(why, "marked the winner in the results file by its run's select policy; the default balanced "
				    "policy would pick p=a");
	free(why);
	view_free(&v);
	CU_ASSERT_EQUAL_FATAL(load(HEAD "a,32,1,1.0,,,,,,,,,,,,crashed,x\n", &v), 0);
	CU_ASSERT_EQUAL(v.winner, -1);
	CU_ASSERT_PTR_NULL(view_why(&v));
	view_free(&v);
}

/* A dry run: rows that compiled (registers known) and not run, or failed to compile: ordered by
 * theoretical occupancy, highest first. Not-run rows without registers are a run stopped early. */
static void test_a_dry_run_is_told_from_a_stopped_one(void)
{
	view v;
	const char *dry = HEAD "a,32,1,0.5,,0,0,40,,,,,,,,not-run,\n"
			       "b,64,1,,,,,,,,,,,,,compile-error,x\n"
			       "c,96,1,1.0,,0,0,32,,,,,,,,not-run,\n"
			       "d,128,1,0.75,,0,0,32,,,,,,,,not-run,\n";
	CU_ASSERT_EQUAL_FATAL(load(dry, &v), 0);
	CU_ASSERT(v.dry);
	CU_ASSERT_DOUBLE_EQUAL(view_dry_occupancy(&v, 2), 100, 0);
	CU_ASSERT(isnan(view_dry_occupancy(&v, 1)));
	size_t *order = view_by_time(&v);
	size_t want[] = {2, 3, 0, 1};
	for (size_t i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(order[i], want[i]);
	free(order);
	view_free(&v);
	const char *stopped = HEAD "a,32,1,0.5,,0,0,40,1.0,10,0.1,,,,,ok,\n"
				   "b,64,1,1.0,,,,,,,,,,,,not-run,\n";
	CU_ASSERT_EQUAL_FATAL(load(stopped, &v), 0);
	CU_ASSERT(!v.dry);
	view_free(&v);
	const char *never_compiled = HEAD "a,32,1,0.5,,,,,,,,,,,,not-run,\n";
	CU_ASSERT_EQUAL_FATAL(load(never_compiled, &v), 0);
	CU_ASSERT(!v.dry);
	view_free(&v);
}

static void test_an_unreadable_file_is_refused(void)
{
	view v;
	diags d = {0};
	CU_ASSERT_EQUAL(view_load("/nonexistent/r.csv", &v, &d), -1);
	CU_ASSERT_EQUAL(d.n, 1);
	diags_free(&d);
	CU_ASSERT_EQUAL(view_load(write_temp(0, "view.csv", "a,b\n1,2\n"), &v, &d), -1); /* no blockDim.x */
	CU_ASSERT_EQUAL(d.n, 1);
	diags_free(&d);
}

/* The policy the file records picks and explains the winner: of two within the noise band, the
 * balanced policy takes the better balance and the fastest policy the faster; a value that is not
 * a policy, or no column, falls back to the default, said. */
static void test_the_files_policy_decides(void)
{
	static const char *const head = "p,blockDim.x,blockDim.y,theoretical_occupancy,time_ms_median,samples,noise_pct,"
					"flags,status,policy\n";
	char csv[1024];
	view v;
	snprintf(csv, sizeof csv, "%sa,32,1,0.5,1.00,10,1,,ok,%s\nb,64,1,1.0,1.01,10,1,,ok,\n", head,
		 "fastest;noise_band=2;occupancy=1;load_efficiency=1");
	CU_ASSERT_EQUAL_FATAL(load(csv, &v), 0);
	CU_ASSERT(v.policy_recorded && v.policy.kind == POLICY_FASTEST);
	CU_ASSERT_EQUAL(v.winner, 0);
	char *why = view_why(&v), *policy = view_policy(&v);
	CU_ASSERT_STRING_EQUAL(why, "chosen again from the measurements with the fastest policy the file records; the "
				    "fastest: under the fastest policy time alone decides");
	CU_ASSERT_STRING_EQUAL(policy, "the fastest policy");
	free(why);
	free(policy);
	view_free(&v);
	/* the same figures under a recorded balanced policy: b's occupancy wins within the band */
	snprintf(csv, sizeof csv, "%sa,32,1,0.5,1.00,10,1,,ok,%s\nb,64,1,1.0,1.01,10,1,,ok,\n", head,
		 "balanced;noise_band=2;occupancy=1;load_efficiency=1");
	CU_ASSERT_EQUAL_FATAL(load(csv, &v), 0);
	CU_ASSERT_EQUAL(v.winner, 1);
	why = view_why(&v);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "with the balanced policy the file records; within the noise band of the fastest"));
	free(why);
	view_free(&v);
	/* not a policy: the default, said */
	snprintf(csv, sizeof csv, "%sa,32,1,0.5,1.00,10,1,winner,ok,quickest\nb,64,1,1.0,1.01,10,1,,ok,\n", head);
	CU_ASSERT_EQUAL_FATAL(load(csv, &v), 0);
	CU_ASSERT(!v.policy_recorded && v.policy.kind == POLICY_BALANCED && v.policy.noise_band == 2);
	why = view_why(&v);
	policy = view_policy(&v);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "marked the winner in the results file by its run's select policy; the default "
					   "balanced policy would pick p=b"));
	CU_ASSERT_STRING_EQUAL(policy, "the default balanced policy (the file records none)");
	free(why);
	free(policy);
	view_free(&v);
}

int add_view_suite(void)
{
	CU_pSuite s = CU_add_suite("view", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "the time that decides", test_the_time_that_decides);
	CU_add_test(s, "rows by time, ties and failures in file order", test_rows_by_time_ties_and_failures_in_file_order);
	CU_add_test(s, "counts, winner and columns", test_counts_winner_and_columns);
	CU_add_test(s, "why the winner won", test_why_the_winner_won);
	CU_add_test(s, "a dry run is told from a stopped one", test_a_dry_run_is_told_from_a_stopped_one);
	CU_add_test(s, "an unreadable file is refused", test_an_unreadable_file_is_refused);
	CU_add_test(s, "the file's policy decides", test_the_files_policy_decides);
	return 0;
}
