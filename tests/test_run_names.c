/* test_run_names.c: every file of a run named from its results CSV (run_names.c). */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "run_names.h"
#include "tests.h"

static void expect(char *got, const char *want)
{
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	if (strcmp(got, want))
		fprintf(stderr, "\n  got '%s', want '%s'", got, want);
	CU_ASSERT_STRING_EQUAL(got, want);
	free(got);
}

/* The extension replaced: of the last component only, added where there is none. */
static void test_files_beside_the_csv(void)
{
	const char *csv = "results/x.csv";
	expect(run_name(csv, RUN_FILE_JOURNAL), "results/x.journal");
	expect(run_name(csv, RUN_FILE_WORKER_LOG), "results/x.worker.log");
	expect(run_name(csv, RUN_FILE_REPLAY_CSV), "results/x.replay.csv");
	expect(run_name(csv, RUN_FILE_T4), "results/x.t4.json");
	expect(run_name(csv, RUN_FILE_DRY_CSV), "results/x.dry-run.csv");
	expect(run_name(csv, RUN_FILE_REPORT), "results/x.html");
	expect(run_name(csv, RUN_FILE_SPEC_LIST), "results/x.csv.spec");
	/* a dot in a directory is not an extension; the last dot of the name is */
	expect(run_name("run.d/x", RUN_FILE_JOURNAL), "run.d/x.journal");
	expect(run_name("a.b.csv", RUN_FILE_T4), "a.b.t4.json");
	/* a dry run's T4 file is named from its CSV as a run's is */
	char *dry = run_name(csv, RUN_FILE_DRY_CSV);
	expect(run_name(dry, RUN_FILE_T4), "results/x.dry-run.t4.json");
	free(dry);
	/* the report replaces ".csv" alone: another name keeps its dots */
	expect(run_name("odd.name", RUN_FILE_REPORT), "odd.name.html");
}

static void test_shards_and_parts(void)
{
	expect(run_shard_name("results/x.csv", 2, 8), "results/x.shard-2-of-8.csv");
	expect(run_part_name("results/x.csv", ".n-1024"), "results/x.n-1024.csv");
	char *dry = run_name("results/x.csv", RUN_FILE_DRY_CSV);
	expect(run_shard_name(dry, 1, 2), "results/x.dry-run.shard-1-of-2.csv");
	free(dry);
	/* and read back: the last such part of the name, whole, with I of N */
	int i = -1, n = -1;
	char *shard = run_shard_name("a.shard-9-of-9/x.csv", 3, 4);
	CU_ASSERT_EQUAL(run_shard_of_name(shard, &i, &n), 1);
	CU_ASSERT(i == 3 && n == 4);
	free(shard);
	static const char *const not_shards[] = {"x.csv", "x.shard-4-of-4.csv", "x.shard-1-of-0.csv", "x.shard-1-of-2.csv.bak",
						  "x.shard--1-of-2.csv"};
	for (size_t k = 0; k < sizeof not_shards / sizeof *not_shards; k++)
		CU_ASSERT_EQUAL(run_shard_of_name(not_shards[k], &i, &n), 0);
}

int add_run_names_suite(void)
{
	CU_pSuite s = CU_add_suite("run_names", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "files beside the CSV", test_files_beside_the_csv);
	CU_add_test(s, "shards and parts", test_shards_and_parts);
	return CU_get_error() == CUE_SUCCESS ? 0 : -1;
}
