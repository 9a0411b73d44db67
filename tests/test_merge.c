/* test_merge.c: `autotune merge` (merge.c) joins the CSVs of a job array's shards (--shard I/N)
 * into the results one process writes: the same CSV as one run, the winner chosen again over all
 * rows, the header; and it refuses what is not the shards of one run. The shards run on the
 * CPU: tests/fake_worker.c measures, the real nvcc compiles. The space has 20 block sizes x 3
 * register caps (each cap builds the same code). */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "tests.h"

#define DIR "scratch/merge"
#define CONFIG DIR "/mg.yaml"
#define CSV DIR "/mg.csv"
/* a dry run's, and the shards' of dry runs are mg.dry-run.shard-I-of-N.csv */
#define DRY_CSV DIR "/mg.dry-run.csv"
#define NCONFIGS 60

static const char *const kernel =
	"extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = i; }\n";

/* The config and its kernel, no earlier output of it, and the fake worker as its GPU. */
static void setup_space(void)
{
	mkdir(DIR, 0777);
	put_file(DIR "/k.cu", kernel);
	char *out = NULL;
	proc_capture((char *[]){"sh", "-c", "rm -f " DIR "/mg.* " DIR "/mg_tuned.h " DIR "/one.csv", NULL}, 30, &out);
	free(out);
	put_file(CONFIG, "name: mg\nkernel: {source: k.cu, entry: k}\narguments:\n"
		    "  - {name: a, type: float, count: 4096, output: true}\n  - {name: n, type: int32, value: 4096}\n"
		    "space: {bx: {start: 32, stop: 640, step: 32}, cap: [0, 64, 128]}\nbuild: {maxrregcount: cap}\n"
		    "launch: {block: [bx], grid: [\"ceil_div(4096, bx)\"]}\nmeasure: {metrics: none}\n"
		    "output: {csv: " CSV ", header: " DIR "/mg_tuned.h}\n");
	fake_worker_forget();
	setenv("AUTOTUNE_WORKER", "build/fake_worker", 1);
	setenv("FAKE_SLEEP_MS", "5", 1);
}

/* Runs `autotune -q --shard i/n [--dry-run --arch=sm_90] CONFIG` for every i at once, like a
 * job array's tasks; 0 when every one exits 0. */
static int run_shards(int n, int dry)
{
	proc p[8];
	int rc = 0;
	for (int i = 0; i < n; i++) {
		char shard[16];
		snprintf(shard, sizeof shard, "%d/%d", i, n);
		char *argv[] = {"./autotune", "-q", "--shard", shard, CONFIG, NULL, NULL, NULL};
		if (dry) {
			argv[4] = "--dry-run";
			argv[5] = "--arch=sm_90";
			argv[6] = CONFIG;
		}
		if (proc_start(&p[i], argv, 0))
			return -1;
	}
	for (int i = 0; i < n; i++) {
		int timed_out, st = proc_finish(&p[i], 120, &timed_out);
		rc |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	}
	return rc;
}

/* The CSV text with the field in column `name` emptied on every row below the head line (a
 * timing that differs between runs: nvcc's seconds). The fields before it hold no commas. */
static void blank_column(char *csv, const char *name)
{
	int col = -1, k = 0;
	for (const char *f = csv; *f && *f != '\r' && col < 0; k++) {
		size_t n = strcspn(f, ",\r");
		if (n == strlen(name) && !strncmp(f, name, n))
			col = k;
		f += n + (f[n] == ',');
	}
	CU_ASSERT_FATAL(col >= 0);
	char *out = csv + strcspn(csv, "\n");
	for (const char *p = out; *p;) {
		for (k = 0; *p && *p != '\r' && *p != '\n'; k++) {
			/* past col, the rest of the row, quoted fields and all */
			size_t n = k > col ? strcspn(p, "\r\n") : strcspn(p, ",\r\n");
			if (k != col)
				memmove(out, p, n), out += n;
			p += n;
			if (*p == ',')
				*out++ = *p++;
		}
		while (*p == '\r' || *p == '\n')
			*out++ = *p++;
	}
	*out = 0;
}

static void test_shards_merged_equal_one_dry_run(void)
{
	setup_space();
	CU_ASSERT_EQUAL_FATAL(run_autotune((char *[]){"-q", "--dry-run", "--arch", "sm_90", CONFIG, NULL}, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(rename(DRY_CSV, DIR "/one.csv"), 0);
	CU_ASSERT_EQUAL_FATAL(run_shards(4, 1), 0);
	/* the shards' CSVs hold a quarter each, given in any order */
	CU_ASSERT_EQUAL(count_in(DIR "/mg.dry-run.shard-2-of-4.csv", "\n"), NCONFIGS / 4 + 1);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"-q", "merge", CONFIG, DIR "/mg.dry-run.shard-3-of-4.csv", DIR "/mg.dry-run.shard-1-of-4.csv",
					    DIR "/mg.dry-run.shard-0-of-4.csv", DIR "/mg.dry-run.shard-2-of-4.csv", NULL},
				 NULL),
			0);
	char *one = read_text(DIR "/one.csv"), *merged = read_text(DRY_CSV);
	CU_ASSERT_PTR_NOT_NULL_FATAL(one);
	CU_ASSERT_PTR_NOT_NULL_FATAL(merged);
	CU_ASSERT(strlen(one) > 1000);
	blank_column(one, "compile_s");
	blank_column(merged, "compile_s");
	CU_ASSERT_STRING_EQUAL(merged, one);
	free(one);
	free(merged);
}

/* Every shard measures a named verify.reference, to check against: merged, it is one row, the
 * copy of the shard it belongs to in the split (its index mod N), whatever the order of the
 * files; the others' copies are told apart here by an edited register count. */
static void test_shards_with_a_reference_merge_as_one_run(void)
{
	setup_space();
	char *text = read_text(CONFIG), cfg[2048];
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	snprintf(cfg, sizeof cfg, "%sverify: {reference: {bx: 96, cap: 0}}\n", text);
	free(text);
	put_file(CONFIG, cfg);
	CU_ASSERT_EQUAL_FATAL(run_autotune((char *[]){"-q", "--dry-run", "--arch", "sm_90", CONFIG, NULL}, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(rename(DRY_CSV, DIR "/one.csv"), 0);
	CU_ASSERT_EQUAL_FATAL(run_shards(4, 1), 0);
	char *one = read_text(DIR "/one.csv");
	CU_ASSERT_PTR_NOT_NULL_FATAL(one);
	const char *at = strstr(one, "\n96,0,96,1,1,43,1,1,0,");
	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	int ref = -1; /* the reference's index: the line breaks up to its row's first, less the head line's */
	for (const char *p = one; p <= at; p++)
		ref += *p == '\n';
	const char *shards[4] = {DIR "/mg.dry-run.shard-0-of-4.csv", DIR "/mg.dry-run.shard-1-of-4.csv",
				 DIR "/mg.dry-run.shard-2-of-4.csv", DIR "/mg.dry-run.shard-3-of-4.csv"};
	for (int k = 0; k < 4; k++) {
		CU_ASSERT_EQUAL(count_in(shards[k], "96,0,96,1,1,43,1,1,0,"), 1);
		if (k == ref % 4)
			continue;
		char sed[512], *out = NULL;
		snprintf(sed, sizeof sed, "sed -i 's/^96,0,96,1,1,43,1,1,0,[0-9]*,/96,0,96,1,1,43,1,1,0,255,/' %s", shards[k]);
		proc_capture((char *[]){"sh", "-c", sed, NULL}, 30, &out);
		free(out);
		CU_ASSERT_EQUAL(count_in(shards[k], "96,0,96,1,1,43,1,1,0,255,"), 1);
	}
	blank_column(one, "compile_s");
	static const int orders[2][4] = {{3, 1, 0, 2}, {0, 1, 2, 3}};
	for (int o = 0; o < 2; o++) {
		const int *by = orders[o];
		CU_ASSERT_EQUAL(run_autotune((char *[]){"-q", "merge", CONFIG, (char *)shards[by[0]], (char *)shards[by[1]],
							(char *)shards[by[2]], (char *)shards[by[3]], NULL},
					     NULL),
				0);
		char *merged = read_text(DRY_CSV);
		CU_ASSERT_PTR_NOT_NULL_FATAL(merged);
		blank_column(merged, "compile_s");
		CU_ASSERT_STRING_EQUAL(merged, one);
		free(merged);
	}
	free(one);
}

/* Shards of a search (--budget 4 each) list what each did and count their part of the space;
 * merged, the rows are theirs, each counting the whole space, and the header says a search of
 * what they measured of the 60. */
static void test_shards_of_a_search_merge_what_they_did(void)
{
	setup_space();
	proc p[2];
	for (int i = 0; i < 2; i++) {
		char *argv[] = {"./autotune", "-q", "--budget", "4", "--shard", i ? "1/2" : "0/2", CONFIG, NULL};
		CU_ASSERT_EQUAL_FATAL(proc_start(&p[i], argv, 0), 0);
	}
	int rows = 0;
	for (int i = 0; i < 2; i++) {
		int timed_out, st = proc_finish(&p[i], 120, &timed_out);
		CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		const char *part = i ? DIR "/mg.shard-1-of-2.csv" : DIR "/mg.shard-0-of-2.csv";
		int n = count_in(part, "\n") - 1;
		CU_ASSERT(n >= 4 && n < NCONFIGS / 2);
		CU_ASSERT_EQUAL(count_in(part, ",search,30\r"), n);
		rows += n;
	}
	char *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){"merge", CONFIG, DIR "/mg.shard-0-of-2.csv", DIR "/mg.shard-1-of-2.csv", NULL},
				     &out),
			0);
	CU_ASSERT_PTR_NULL(out ? strstr(out, "no shard has") : NULL);
	free(out);
	CU_ASSERT_EQUAL(count_in(CSV, "\n") - 1, rows);
	CU_ASSERT_EQUAL(count_in(CSV, ",search,60\r"), rows);
	CU_ASSERT_EQUAL(count_in(CSV, "winner"), 1);
	char want[64];
	snprintf(want, sizeof want, "#define MG_MEASURED %d\n", count_in(CSV, ",ok,"));
	CU_ASSERT_EQUAL(count_in(DIR "/mg_tuned.h", want), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/mg_tuned.h", "#define MG_CONFIGURATIONS 60"), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/mg_tuned.h", "#define MG_RUN \"search\""), 1);
	/* the shards' list of the files their spec covers is the merged CSV's too */
	char *merged = read_text(CSV ".spec"), *shard = read_text(DIR "/mg.shard-0-of-2.csv.spec");
	CU_ASSERT_PTR_NOT_NULL(merged);
	CU_ASSERT(merged && shard && !strcmp(merged, shard));
	free(merged);
	free(shard);
}

static void test_shards_merged_pick_the_single_runs_winner(void)
{
	setup_space();
	CU_ASSERT_EQUAL_FATAL(run_autotune((char *[]){"-q", CONFIG, NULL}, NULL), 0);
	char one[64];
	snprintf(one, sizeof one, "%s", winner_of(CSV));
	unlink(CSV);
	unlink(DIR "/mg_tuned.h");
	CU_ASSERT_EQUAL_FATAL(run_shards(4, 0), 0);
	CU_ASSERT_EQUAL(access(DIR "/mg_tuned.h", F_OK), -1); /* shards write no header */
	CU_ASSERT_EQUAL(run_autotune((char *[]){"-q", "merge", "--t4", CONFIG, DIR "/mg.shard-0-of-4.csv", DIR "/mg.shard-1-of-4.csv",
					    DIR "/mg.shard-2-of-4.csv", DIR "/mg.shard-3-of-4.csv", NULL},
				 NULL),
			0);
	CU_ASSERT_EQUAL(count_in(CSV, ",ok,"), NCONFIGS);
	CU_ASSERT_EQUAL(count_in(CSV, "winner"), 1);
	CU_ASSERT_STRING_EQUAL(winner_of(CSV), one);
	/* --t4: the T4 file of the merged CSV, its winner flagged as there */
	CU_ASSERT_EQUAL(count_in(DIR "/mg.t4.json", "\"invalidity\": \"correct\""), NCONFIGS);
	CU_ASSERT_EQUAL(count_in(DIR "/mg.t4.json", ";winner\""), 1);
	char *header = read_text(DIR "/mg_tuned.h");
	CU_ASSERT_PTR_NOT_NULL(header);
	char macro[64];
	int bx = atoi(one);
	snprintf(macro, sizeof macro, "#define MG_BX %d\n", bx);
	CU_ASSERT_PTR_NOT_NULL(header ? strstr(header, macro) : NULL);
	free(header);
}

static void test_merge_refuses_missing_or_foreign_shards(void)
{
	setup_space();
	CU_ASSERT_EQUAL_FATAL(run_shards(4, 1), 0);
	char *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){"merge", CONFIG, DIR "/mg.dry-run.shard-0-of-4.csv", DIR "/mg.dry-run.shard-1-of-4.csv",
					    DIR "/mg.dry-run.shard-3-of-4.csv", NULL},
				 &out),
			2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "shard 2 of 4 is missing (" DIR "/mg.dry-run.shard-2-of-4.csv)"));
	free(out);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"merge", CONFIG, DIR "/mg.dry-run.shard-0-of-4.csv", DIR "/mg.dry-run.shard-1-of-4.csv",
					    DIR "/mg.dry-run.shard-2-of-4.csv", DIR "/mg.dry-run.shard-1-of-4.csv", NULL},
				 &out),
			2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "are both shard 1 of 4: give each shard once"));
	CU_ASSERT_PTR_NULL(strstr(out, "no shard has"));
	free(out);
	/* files renamed by hand: the rows tell what is missing (configuration 2 is shard 2's) */
	CU_ASSERT_EQUAL(rename(DIR "/mg.dry-run.shard-0-of-4.csv", DIR "/part0.csv"), 0);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"merge", CONFIG, DIR "/part0.csv", DIR "/mg.dry-run.shard-1-of-4.csv",
					    DIR "/mg.dry-run.shard-3-of-4.csv", NULL},
				 &out),
			2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "no shard has bx=32 cap=128"));
	CU_ASSERT_EQUAL(rename(DIR "/part0.csv", DIR "/mg.dry-run.shard-0-of-4.csv"), 0);
	free(out);
	/* a results file of another config */
	const char *other = write_temp(5, "other.csv", "x,blockDim.x,status\r\n1,32,ok\r\n");
	CU_ASSERT_EQUAL(run_autotune((char *[]){"merge", CONFIG, DIR "/mg.dry-run.shard-0-of-4.csv", (char *)other, NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "columns differ"));
	free(out);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"--shard", "4/4", CONFIG, NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "--shard needs I/N"));
	free(out);
	unlink(other);
}


/* Shards of one config split two ways and four ways are not one run's: refused before any row is
 * looked for, naming both splits. */
static void test_shards_of_different_splits_are_refused(void)
{
	setup_space();
	CU_ASSERT_EQUAL_FATAL(run_shards(4, 1), 0);
	CU_ASSERT_EQUAL_FATAL(run_shards(2, 1), 0);
	char *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){"merge", CONFIG, DIR "/mg.dry-run.shard-0-of-4.csv", DIR "/mg.dry-run.shard-1-of-2.csv",
					    DIR "/mg.dry-run.shard-2-of-4.csv", DIR "/mg.dry-run.shard-3-of-4.csv", NULL},
				 &out),
			2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, DIR "/mg.dry-run.shard-1-of-2.csv is a shard of 2, but " DIR
					   "/mg.dry-run.shard-0-of-4.csv one of 4: give the shards of one run"));
	free(out);
	CU_ASSERT_NOT_EQUAL(access(DRY_CSV, F_OK), 0); /* nothing written */
	/* the two-way split alone is whole */
	CU_ASSERT_EQUAL(run_autotune((char *[]){"-q", "merge", CONFIG, DIR "/mg.dry-run.shard-1-of-2.csv", DIR "/mg.dry-run.shard-0-of-2.csv", NULL},
				 NULL),
			0);
	CU_ASSERT_EQUAL(count_in(DRY_CSV, ",not-run,"), NCONFIGS);
	unlink(DRY_CSV);
	/* renamed by hand, names say nothing: the rows held twice tell, whatever the order */
	static const char *const from[] = {DIR "/mg.dry-run.shard-0-of-2.csv", DIR "/mg.dry-run.shard-1-of-2.csv", DIR "/mg.dry-run.shard-0-of-4.csv"};
	static const char *const to[] = {DIR "/part_a.csv", DIR "/part_b.csv", DIR "/part_c.csv"};
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(rename(from[i], to[i]), 0);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"merge", CONFIG, (char *)to[0], (char *)to[1], (char *)to[2], NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, DIR "/part_c.csv:2: a configuration another shard also has, or one not in this space"));
	free(out);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"merge", CONFIG, (char *)to[2], (char *)to[1], (char *)to[0], NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "a configuration another shard also has"));
	free(out);
	CU_ASSERT_NOT_EQUAL(access(DRY_CSV, F_OK), 0);
	for (int i = 0; i < 3; i++)
		unlink(to[i]);
}

/* A shard run after the kernel changed has another spec_hash: the shards are not of one spec. */
static void test_shards_of_another_kernel_source_are_refused(void)
{
	setup_space();
	CU_ASSERT_EQUAL_FATAL(run_autotune((char *[]){"-q", "--dry-run", "--arch", "sm_90", "--shard", "0/2", CONFIG, NULL}, NULL), 0);
	char edited[512];
	snprintf(edited, sizeof edited, "%s// edited between the shards\n", kernel);
	put_file(DIR "/k.cu", edited);
	CU_ASSERT_EQUAL_FATAL(run_autotune((char *[]){"-q", "--dry-run", "--arch", "sm_90", "--shard", "1/2", CONFIG, NULL}, NULL), 0);
	char *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){"merge", CONFIG, DIR "/mg.dry-run.shard-0-of-2.csv", DIR "/mg.dry-run.shard-1-of-2.csv", NULL}, &out),
			2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "shards of different configs or kernel sources"));
	free(out);
	CU_ASSERT_NOT_EQUAL(access(DRY_CSV, F_OK), 0);
}

/* Files with the right columns but none for the config's parameters: a run of another config. */
static void test_files_without_the_configs_parameters_are_refused(void)
{
	setup_space();
	const char *a = write_temp(5, "a.csv", "x,blockDim.x,status\r\n1,32,ok\r\n");
	const char *b = write_temp(6, "b.csv", "x,blockDim.x,status\r\n2,64,ok\r\n");
	char *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){"merge", CONFIG, (char *)a, (char *)b, NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "no column for the parameter 'bx' of " CONFIG));
	free(out);
	CU_ASSERT_NOT_EQUAL(access(CSV, F_OK), 0);
	unlink(a);
	unlink(b);
}

/* Each shard flags the winner of its own rows; the merged file flags one, the best of all, and
 * keeps every other flag of the rows it took. */
static void test_each_shards_winner_gives_way_to_one(void)
{
	setup_space();
	CU_ASSERT_EQUAL_FATAL(run_shards(4, 0), 0);
	int shard_winners = 0;
	for (int i = 0; i < 4; i++) {
		char path[128];
		snprintf(path, sizeof path, DIR "/mg.shard-%d-of-4.csv", i);
		shard_winners += count_in(path, "winner");
	}
	CU_ASSERT_EQUAL(shard_winners, 4);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"-q", "merge", CONFIG, DIR "/mg.shard-0-of-4.csv", DIR "/mg.shard-1-of-4.csv",
					    DIR "/mg.shard-2-of-4.csv", DIR "/mg.shard-3-of-4.csv", NULL},
				 NULL),
			0);
	CU_ASSERT_EQUAL(count_in(CSV, "winner"), 1);
	/* the fake worker times bx = 32 fastest: the winner is one of its builds */
	CU_ASSERT_EQUAL(strncmp(winner_of(CSV), "32,", 3), 0);
	/* every measured row keeps its cache flag */
	CU_ASSERT_EQUAL(count_in(CSV, ",cold"), NCONFIGS);
}

int add_merge_suite(void)
{
	CU_pSuite s = CU_add_suite("merge", NULL, fake_worker_forget);
	if (!s)
		return -1;
	return !CU_add_test(s, "shards merged equal one dry run", test_shards_merged_equal_one_dry_run) ||
	       !CU_add_test(s, "shards with a reference merge as one run", test_shards_with_a_reference_merge_as_one_run) ||
	       !CU_add_test(s, "shards merged pick the single run's winner", test_shards_merged_pick_the_single_runs_winner) ||
	       !CU_add_test(s, "shards of a search merge what they did", test_shards_of_a_search_merge_what_they_did) ||
	       !CU_add_test(s, "merge refuses missing or foreign shards", test_merge_refuses_missing_or_foreign_shards) ||
	       !CU_add_test(s, "shards of different splits are refused", test_shards_of_different_splits_are_refused) ||
	       !CU_add_test(s, "shards of another kernel source are refused", test_shards_of_another_kernel_source_are_refused) ||
	       !CU_add_test(s, "files without the config's parameters are refused",
			    test_files_without_the_configs_parameters_are_refused) ||
	       !CU_add_test(s, "each shard's winner gives way to one", test_each_shards_winner_gives_way_to_one)
		       ? -1
		       : 0;
}
