/* test_tune.c: a tuning run as tune.c runs it, stage by stage, through the autotune binary on the
 * CPU: tests/fake_worker.c stands in for the GPU worker (AUTOTUNE_WORKER), the real nvcc compiles.
 * Bad input of every kind is exit 2 with one message and nothing written; options are checked
 * before anything slow; a dry run needs a target and writes the binaries' data; SIGINT writes
 * what was measured and exits 130; SIGTERM to the whole job (a batch system's time limit) exits
 * 143, and what it stopped, a measurement or a compile, is not run rather than failed; a problem
 * too large for the device stops the run before anything is written. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "compile.h"
#include "completeness.h"
#include "proc.h"
#include "table.h"
#include "tests.h"

#define NCONFIGS 20
#define DIR "scratch/tune"

/* The config written last (write_space_config, write_named_config). */
static char *config_path;

/* The 20-configuration space at 150 ms per measurement, started in the background. */
static void start_slow_run(proc *p)
{
	config_path = write_space_config(DIR, "stop", NULL);
	fake_worker_reset(DIR, "stop");
	setenv("FAKE_SLEEP_MS", "150", 1);
	/* not quiet: the summary goes to stop.err */
	char *argv[] = {"./autotune", config_path, NULL};
	FILE *err = fopen(DIR "/stop.err", "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_EQUAL_FATAL(proc_start_fd(p, argv, PROC_STDOUT, fileno(err)), 0);
	fclose(err);
}

/* The header, make fragment, report and summary of a run stopped by sig after `done` of the
 * NCONFIGS configurations say that it is incomplete, why, and how to go on. */
static void assert_said_incomplete(int sig, int done)
{
	const char *why = sig == SIGTERM ? "stopped by SIGTERM" : "interrupted";
	char note[160], want[256];
	snprintf(note, sizeof note, "%d of %d configurations measured, %s: resume with the same command", done, NCONFIGS, why);
	char *header = slurp(DIR "/stop_tuned.h"), *mk = slurp(DIR "/stop.mk"), *html = slurp(DIR "/stop.html"),
	     *err = slurp(DIR "/stop.err");
	CU_ASSERT_PTR_NOT_NULL_FATAL(header);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mk);
	CU_ASSERT_PTR_NOT_NULL_FATAL(html);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	snprintf(want, sizeof want, "#define STOP_COMPLETE 0\n#define STOP_RUN \"%s\"\n#define STOP_MEASURED %d\n"
		 "#define STOP_CONFIGURATIONS %d\n", sig == SIGTERM ? "terminated" : "interrupted", done, NCONFIGS);
	CU_ASSERT_PTR_NOT_NULL(strstr(header, want));
	snprintf(want, sizeof want, " * INCOMPLETE: %s/stop.csv: %s.\n", DIR, note);
	CU_ASSERT_PTR_NOT_NULL(strstr(header, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(mk, "STOP_COMPLETE := 0\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(mk, note));
	snprintf(want, sizeof want, "<strong>Incomplete</strong>: %s.", note);
	CU_ASSERT_PTR_NOT_NULL(strstr(html, want));
	snprintf(want, sizeof want, "  incomplete: %s\n", note);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
	free(header);
	free(mk);
	free(html);
	free(err);
}

/* A run stopped by signal sig exited 128 + sig with every journaled result in the CSV, a row each,
 * and the rest counted (its configurations column) but not listed, none lost or invented; returns
 * how many were done. */
static int assert_stopped_run(proc *p, int sig)
{
	int timed_out;
	int st = proc_finish(p, 30, &timed_out);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 128 + sig);
	int done = count_in(DIR "/stop.journal", "done ");
	CU_ASSERT(done >= 3 && done < NCONFIGS);
	/* the binary's first configuration is listed too (its registers), measured or not */
	int listed = rows_once(DIR "/stop.csv", NCONFIGS);
	CU_ASSERT(listed == done || listed == done + 1);
	CU_ASSERT_EQUAL(count_in(DIR "/stop.csv", ",ok,"), done);
	CU_ASSERT_EQUAL(count_in(DIR "/stop.csv", ",not-run,"), listed - done);
	char count[16];
	snprintf(count, sizeof count, ",%d\r", NCONFIGS);
	CU_ASSERT_EQUAL(count_in(DIR "/stop.csv", count), listed);
	return done;
}

static void test_sigint_writes_what_was_measured_and_exits_130(void)
{
	proc p;
	start_slow_run(&p);
	double t0 = now_seconds();
	while (count_in(DIR "/stop.journal", "done ") < 3 && now_seconds() - t0 < 60)
		nap();
	kill(p.pid, SIGINT);
	assert_said_incomplete(SIGINT, assert_stopped_run(&p, SIGINT));
}

/* A batch system's time limit (Slurm) sends SIGTERM to every process of the job, in no known
 * order: the tuner writes what was measured and exits 143, and the configuration whose worker
 * fell to the signal is not run (not crashed), so the resumed run measures it. */
static void test_sigterm_to_the_whole_job_writes_results_and_resumes(void)
{
	proc p;
	start_slow_run(&p);
	double t0 = now_seconds();
	pid_t worker = 0;
	const char *j = DIR "/stop.journal";
	/* three measured, the fourth in flight */
	while (now_seconds() - t0 < 60 && !(count_in(j, "done ") >= 3 && count_in(j, "start ") > count_in(j, "done ") &&
					    (worker = child_named(p.pid, "fake_worker")) > 0))
		nap();
	CU_ASSERT(worker > 0);
	if (worker > 0)
		kill(worker, SIGTERM); /* the worker first, the harder order */
	kill(p.pid, SIGTERM);
	int done = assert_stopped_run(&p, SIGTERM);
	assert_said_incomplete(SIGTERM, done);
	CU_ASSERT_EQUAL(count_in(j, "stopped "), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/stop.csv", ",crashed,"), 0);
	/* the resumed run measures the stopped one with the rest, and counts nothing crashed */
	unsetenv("FAKE_SLEEP_MS");
	char *out;
	CU_ASSERT_EQUAL(run_autotune_on(config_path, NULL, &out), 0);
	char want[96];
	snprintf(want, sizeof want, "resuming: %d configurations measured before (", done);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
	free(out);
	CU_ASSERT(each_row_once(DIR "/stop.csv", NCONFIGS));
	CU_ASSERT_EQUAL(count_in(DIR "/stop.csv", ",ok,"), NCONFIGS);
	/* resumed to the end: complete */
	CU_ASSERT_EQUAL(count_in(DIR "/stop_tuned.h", "#define STOP_COMPLETE 1"), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/stop_tuned.h", "INCOMPLETE"), 0);
	CU_ASSERT_EQUAL(count_in(DIR "/stop.html", "Incomplete"), 0);
}

/* A search under a budget measured what it chose: its header, report and summary say it was a
 * search of 5 of the 20, not a complete run. */
static void test_a_budget_search_is_said_incomplete(void)
{
	config_path = write_space_config(DIR, "stop", NULL);
	fake_worker_reset(DIR, "stop");
	char *out;
	CU_ASSERT_EQUAL_FATAL(run_autotune_on(config_path, (char *[]){"--budget", "5", NULL}, &out), 0);
	const char *note = "a search (--budget) of 5 of 20 configurations: the best found, not necessarily the best";
	char want[256];
	snprintf(want, sizeof want, "  incomplete: %s\n", note);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
	free(out);
	CU_ASSERT_EQUAL(count_in(DIR "/stop_tuned.h", "#define STOP_COMPLETE 0"), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/stop_tuned.h", "#define STOP_RUN \"search\""), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/stop_tuned.h", "#define STOP_MEASURED 5"), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/stop_tuned.h", "a search measured what it chose"), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/stop.mk", "STOP_COMPLETE := 0"), 1);
	snprintf(want, sizeof want, "<strong>Incomplete</strong>: %s.", note);
	CU_ASSERT_EQUAL(count_in(DIR "/stop.html", want), 1);
	/* a row per configuration measured, each counting the space; show and the report say how
	 * many are not listed */
	CU_ASSERT_EQUAL(rows_once(DIR "/stop.csv", NCONFIGS), 5);
	CU_ASSERT_EQUAL(count_in(DIR "/stop.csv", ",search,20\r"), 5);
	CU_ASSERT_EQUAL(count_in(DIR "/stop.html", "5 configurations listed of 20 (the other 15 were not run)"), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/stop.html", ">15 not run, not listed</span>"), 1);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"show", DIR "/stop.csv", NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "5 configurations listed of 20 (the other 15 not run): 5 ok;"));
	free(out);
}

/* A space too large to list (10^11 configurations, no constraints) is validated and searched in
 * a sample under a budget of evaluations, and every output says it was a sample; measuring all
 * of it, or a fraction of it, is refused before anything starts. */
static void test_a_space_too_large_to_list_is_searched_in_a_sample(void)
{
	mkdir(DIR, 0777);
	put_file(DIR "/k.cu", "extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + "
			      "threadIdx.x; if (i < n) a[i] = i; }\n");
	char space[1024] = "space: {bx: {start: 32, stop: 320, step: 32}", sum[256] = "0";
	for (int p = 0; p < 10; p++) {
		snprintf(space + strlen(space), sizeof space - strlen(space), ", p%d: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]", p);
		snprintf(sum + strlen(sum), sizeof sum - strlen(sum), " + p%d", p);
	}
	/* the parameters reach only an argument: one binary serves them all */
	char text[2048];
	snprintf(text, sizeof text,
		 "name: huge\nkernel: {source: k.cu, entry: k}\narguments:\n"
		 "  - {name: a, type: float, count: 4096, output: true}\n"
		 "  - {name: n, type: int32, value: \"4096 + 0 * (%s)\"}\n%s}\n"
		 "launch: {block: [bx], grid: [\"ceil_div(4096, bx)\"]}\nmeasure: {finalists: 0, metrics: none}\n"
		 "output: {csv: %s/huge.csv, header: %s/huge_tuned.h}\n",
		 sum, space, DIR, DIR);
	put_file(DIR "/huge.yaml", text);
	fake_worker_reset(DIR, "huge");
	char *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){"validate", DIR "/huge.yaml", NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "ok: 100000000000 valid configurations of 100000000000 combinations, more "
					   "than can be listed: a run with --budget N (or Ns) searches a uniform sample of 65536"));
	free(out);
	const char *refused = "the space has 100000000000 valid configurations (of 100000000000 combinations), more "
			      "than can be listed";
	CU_ASSERT_EQUAL(run_autotune_on(DIR "/huge.yaml", (char *[]){NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, refused));
	free(out);
	CU_ASSERT_EQUAL(run_autotune_on(DIR "/huge.yaml", (char *[]){"--budget", "2%", NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, refused));
	free(out);
	CU_ASSERT_EQUAL(access(DIR "/huge.csv", F_OK), -1);
	CU_ASSERT_EQUAL_FATAL(run_autotune_on(DIR "/huge.yaml", (char *[]){"--budget", "12", NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "huge: 100000000000 valid configurations, searched in a uniform sample of 65536"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "incomplete: a search (--budget) of 12 of a uniform sample of 65536 "
					   "configurations of a space too large to list"));
	free(out);
	CU_ASSERT_EQUAL(count_in(DIR "/huge_tuned.h", "#define HUGE_RUN \"sample-search\""), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/huge_tuned.h", "#define HUGE_COMPLETE 0"), 1);
	/* the rows of what it measured (and of the one binary: its first configuration), not of the
	 * sample */
	CU_ASSERT_EQUAL(count_in(DIR "/huge.csv", ",sample-search,65536\r"), 12 + count_in(DIR "/huge.csv", ",not-run,"));
	CU_ASSERT(count_in(DIR "/huge.csv", ",not-run,") <= 1);
	CU_ASSERT_EQUAL(count_in(DIR "/huge.csv", ",ok,"), 12);
}

/* A search of a million configurations, half of them one binary that does not compile: that
 * binary's compile error is one row, not half a million, and the CSV stays small; every row counts
 * the million. */
static void test_a_failed_binary_of_a_search_is_one_row(void)
{
	mkdir(DIR, 0777);
	put_file(DIR "/kf.cu", "#if bad\n#error this variant does not build\n#endif\nextern \"C\" __global__ void k(float *a, "
			       "int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = i; }\n");
	put_file(DIR "/failing.yaml", "name: failing\nkernel: {source: kf.cu, entry: k}\narguments:\n"
				      "  - {name: a, type: float, count: 4096, output: true}\n"
				      "  - {name: n, type: int32, value: \"4096 + 0 * p\"}\n"
				      "space: {bad: [0, 1], p: {start: 0, stop: 499999}}\nbuild: {defines: [bad]}\n"
				      "launch: {block: [64], grid: [64]}\nmeasure: {finalists: 0, metrics: none}\n"
				      "output: {csv: " DIR "/failing.csv, header: " DIR "/failing_tuned.h}\n");
	fake_worker_reset(DIR, "failing");
	char *out;
	CU_ASSERT_EQUAL(run_autotune_on(DIR "/failing.yaml", (char *[]){"-q", "--strategy", "random", "--budget", "16", NULL}, &out),
			0);
	free(out);
	struct stat st;
	CU_ASSERT_EQUAL_FATAL(stat(DIR "/failing.csv", &st), 0);
	CU_ASSERT(st.st_size < 100000);
	CU_ASSERT_EQUAL(count_in(DIR "/failing.csv", ",compile-error,"), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/failing.csv", ",search,1000000\r"),
			count_in(DIR "/failing.csv", ",ok,") + 1 + count_in(DIR "/failing.csv", ",not-run,"));
	CU_ASSERT(count_in(DIR "/failing.csv", ",ok,") >= 1);
}

/* A template type parameter and kernels chosen by name tune through the whole pipeline (fake nvcc,
 * fake worker): each configuration's instance of the templated entry is compiled from the copy that
 * takes it by address and found among the binary's kernels; the CSV, the header and the T4 carry
 * the strings, and a T4 replay finds every configuration again. */
static void test_string_parameters_tune_end_to_end(void)
{
	mkdir(DIR, 0777);
	put_file(DIR "/tk.cu", "struct half_t { unsigned short bits; };\n"
			       "template <typename T, int BLOCK> __global__ void scale(const float *in, float *out, int n)\n"
			       "{ int i = blockIdx.x * BLOCK + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }\n"
			       "extern \"C\" __global__ void copy_naive(const float *in, float *out, int n) { out[0] = in[0]; }\n"
			       "extern \"C\" __global__ void copy_wide(const float *in, float *out, int n) { out[0] = in[0]; }\n");
	static const char *const args = "arguments:\n  - {name: in, type: float, count: 4096, fill: random}\n"
					"  - {name: out, type: float, count: 4096, output: true}\n  - {name: n, type: int32, value: 4096}\n"
					"measure: {finalists: 0, metrics: none}\n";
	char text[1024];
	snprintf(text, sizeof text,
		 "name: tmpl\nkernel: {source: tk.cu, entry: \"scale<${T}, ${BLOCK}>\"}\n%sspace: {T: [half_t, float], "
		 "BLOCK: [64, 128]}\nconstraints: [\"T == 'float' || BLOCK == 64\"]\nlaunch: {block: [BLOCK], grid: [\"ceil_div(4096, "
		 "BLOCK)\"]}\noutput: {csv: %s/tmpl.csv, header: %s/tmpl_tuned.h, t4: true}\n",
		 args, DIR, DIR);
	put_file(DIR "/tmpl.yaml", text);
	fake_worker_reset(DIR, "tmpl");
	char *out;
	CU_ASSERT_EQUAL(run_autotune_on(DIR "/tmpl.yaml", (char *[]){"-q", NULL}, &out), 0);
	if (count_in(DIR "/tmpl.csv", ",ok,") != 3)
		fprintf(stderr, "\n%s\n", out);
	free(out);
	CU_ASSERT_EQUAL(count_in(DIR "/tmpl.csv", ",ok,"), 3);
	CU_ASSERT_EQUAL(count_in(DIR "/tmpl.csv", "half_t,64,64,"), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/tmpl.csv", "float,128,128,"), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/tmpl_tuned.h", "#define TMPL_T half_t"), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/tmpl_tuned.cu", "= (void *)&scale<half_t, 64>;"), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/tmpl.t4.json", "\"configuration\": {\"T\": \"half_t\", \"BLOCK\": 64}"), 1);
	CU_ASSERT_EQUAL(run_autotune_on(DIR "/tmpl.yaml", (char *[]){"--replay", DIR "/tmpl.t4.json", NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "3 evaluations of 3 configurations; best found T=half_t BLOCK=64"));
	free(out);
	snprintf(text, sizeof text,
		 "name: named\nkernel: {source: tk.cu, entry: \"${KERNEL}\"}\n%sspace: {KERNEL: [copy_wide, copy_naive]}\n"
		 "launch: {block: [64], grid: [64]}\noutput: {csv: %s/named.csv, header: %s/named_tuned.h}\n",
		 args, DIR, DIR);
	put_file(DIR "/named.yaml", text);
	fake_worker_reset(DIR, "named");
	CU_ASSERT_EQUAL(run_autotune_on(DIR "/named.yaml", (char *[]){"-q", NULL}, NULL), 0);
	CU_ASSERT_EQUAL(count_in(DIR "/named.csv", ",ok,"), 2);
	CU_ASSERT_EQUAL(count_in(DIR "/named_tuned.h", "#define NAMED_KERNEL copy_wide"), 1);
}

/* A hard-coded #define tuned without editing the file: each value compiles its own code, the run
 * says which define it replaced, and the copy beside the header has the winner's value. */
static void test_a_hard_coded_define_is_tuned_as_it_is(void)
{
	mkdir(DIR, 0777);
	const char *src = "#define ITEMS 4\nextern \"C\" __global__ void k(float *out, int n) { out[0] = ITEMS * n; }\n";
	put_file(DIR "/hd.cu", src);
	put_file(DIR "/hd.yaml", "name: hd\nkernel: {source: hd.cu, entry: k}\narguments:\n"
				 "  - {name: out, type: float, count: 64, output: true}\n  - {name: n, type: int32, value: 1}\n"
				 "space: {ITEMS: [8, 4, 1]}\nlaunch: {block: [32], grid: [1]}\nmeasure: {finalists: 0, metrics: none}\n"
				 "output: {csv: " DIR "/hd.csv, header: " DIR "/hd_tuned.h}\n");
	fake_worker_reset(DIR, "hd");
	char *out;
	CU_ASSERT_EQUAL(run_autotune_on(DIR "/hd.yaml", NULL, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "hd.cu:1:1: note: parameter 'ITEMS' of "));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "#define: ITEMS of "));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "3 binaries built"));
	free(out);
	CU_ASSERT_EQUAL(count_in(DIR "/hd.csv", ",ok,"), 3);
	CU_ASSERT_EQUAL(count_in(DIR "/hd_tuned.cu", "#define ITEMS 8"), 1);
	char *now = slurp(DIR "/hd.cu");
	CU_ASSERT_STRING_EQUAL(now, src);
	free(now);
}

/* A dry run after a measured run writes files of its own: the measured CSV, header, fragment and
 * report stay byte for byte as they were (a dry run's CSV used to replace the measured one). */
static void test_a_dry_run_leaves_the_measured_results(void)
{
	config_path = write_space_config(DIR, "kept", NULL);
	fake_worker_reset(DIR, "kept");
	unlink(DIR "/kept.dry-run.csv");
	CU_ASSERT_EQUAL_FATAL(run_autotune_on(config_path, (char *[]){"-q", NULL}, NULL), 0);
	static const char *const files[] = {DIR "/kept.csv", DIR "/kept_tuned.h", DIR "/kept.mk", DIR "/kept.html"};
	char *before[4];
	for (int i = 0; i < 4; i++)
		CU_ASSERT_PTR_NOT_NULL_FATAL(before[i] = slurp(files[i]));
	char *out;
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){"--dry-run", "--arch", "sm_90", NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "  results: " DIR "/kept.dry-run.csv\n"));
	free(out);
	for (int i = 0; i < 4; i++) {
		char *after = slurp(files[i]);
		CU_ASSERT(after && !strcmp(after, before[i]));
		free(after);
		free(before[i]);
	}
	CU_ASSERT_EQUAL(count_in(DIR "/kept.dry-run.csv", ",not-run,"), NCONFIGS);
	CU_ASSERT_EQUAL(count_in(DIR "/kept.dry-run.csv", ",dry-run,20\r"), NCONFIGS);
	CU_ASSERT_EQUAL(access(DIR "/kept.dry-run.html", F_OK), 0);
}

/* A dry run takes the lock of the results as a real run does: while one holds it, the dry run is
 * refused, naming the holder, before anything is written. */
static void test_a_dry_run_takes_the_results_lock(void)
{
	config_path = write_space_config(DIR, "locked", NULL);
	fake_worker_reset(DIR, "locked");
	unlink(DIR "/locked.dry-run.csv");
	int fd = open(DIR "/locked.journal.lock", O_RDWR | O_CREAT, 0666);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(flock(fd, LOCK_EX), 0);
	CU_ASSERT_EQUAL(write(fd, "4242\n", 5), 5);
	char *out;
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){"--dry-run", "--arch", "sm_90", NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "another autotune run (pid 4242) is measuring into these results"));
	free(out);
	CU_ASSERT_NOT_EQUAL(access(DIR "/locked.dry-run.csv", F_OK), 0);
	close(fd);
	unlink(DIR "/locked.journal.lock");
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){"-q", "--dry-run", "--arch", "sm_90", NULL}, NULL), 0);
	CU_ASSERT_EQUAL(access(DIR "/locked.journal.lock", F_OK), -1); /* let go at the end */
}

/* Two configs of one name share their outputs: the second refuses to run, naming both files and
 * how to part them, and the first's results stay as they were. */
static void test_configs_of_one_name_are_refused(void)
{
	config_path = write_space_config(DIR, "twin", NULL);
	fake_worker_reset(DIR, "twin");
	CU_ASSERT_EQUAL_FATAL(run_autotune_on(config_path, (char *[]){"-q", NULL}, NULL), 0);
	char *csv = slurp(DIR "/twin.csv"), *journal = slurp(DIR "/twin.journal");
	CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
	CU_ASSERT_PTR_NOT_NULL_FATAL(journal);
	/* another file, the same name: and outputs */
	char *text = slurp(config_path);
	mkdir(DIR "/other", 0777);
	put_file(DIR "/other/k.cu", "extern \"C\" __global__ void k(float *a, int n) { if (n) a[0] = 1; }\n");
	put_file(DIR "/other/twin.yaml", text);
	free(text);
	char *out;
	CU_ASSERT_EQUAL(run_autotune_on(DIR "/other/twin.yaml", NULL, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, DIR "/twin.csv: these results belong to " DIR "/twin.yaml, and " DIR
					   "/other/twin.yaml would write over them"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "give one of the two configs another name: or output: {csv: ...}"));
	free(out);
	char *csv_after = slurp(DIR "/twin.csv"), *journal_after = slurp(DIR "/twin.journal");
	CU_ASSERT(csv_after && !strcmp(csv_after, csv));
	CU_ASSERT(journal_after && !strcmp(journal_after, journal));
	free(csv_after);
	free(journal_after);
	/* the journal alone (its CSV not yet written) says the same */
	unlink(DIR "/twin.csv");
	CU_ASSERT_EQUAL(run_autotune_on(DIR "/other/twin.yaml", NULL, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, DIR "/twin.journal: these results belong to "));
	free(out);
	journal_after = slurp(DIR "/twin.journal");
	CU_ASSERT(journal_after && !strcmp(journal_after, journal));
	free(journal_after);
	free(csv);
	free(journal);
}

/* A journal of other inputs says which of them changed (and keeps its measurements, test_reuse.c). */
static void test_starting_afresh_says_what_changed(void)
{
	config_path = write_space_config(DIR, "edited", NULL);
	fake_worker_reset(DIR, "edited");
	CU_ASSERT_EQUAL_FATAL(run_autotune_on(config_path, (char *[]){"-q", NULL}, NULL), 0);
	FILE *f = fopen(DIR "/k.cu", "a");
	fputs("// edited\n", f);
	fclose(f);
	char *out;
	CU_ASSERT_EQUAL(run_autotune_on(config_path, NULL, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "edited.journal: the kernel source changed since the last run: "));
	free(out);
	f = fopen(config_path, "a");
	fputs("# a comment\n", f);
	fclose(f);
	CU_ASSERT_EQUAL(run_autotune_on(config_path, NULL, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "edited.journal: the config file changed since the last run: "));
	free(out);
}

/* NVCC set to a wrapper at path that, for the builds capped at 64 registers, runs `action`
 * instead of nvcc (a shell command: sleep 60, exit 0), and runs the real nvcc otherwise. */
static void set_nvcc_wrapper(const char *path, const char *action)
{
	char *nvcc = find_nvcc();
	CU_ASSERT_PTR_NOT_NULL_FATAL(nvcc);
	char script[512];
	snprintf(script, sizeof script, "#!/bin/sh\ncase \"$*\" in *maxrregcount=64*) %s ;; esac\nexec %s \"$@\"\n", action, nvcc);
	free(nvcc);
	put_file(path, script);
	chmod(path, 0755);
	setenv("NVCC", path, 1);
}

/* A config whose register cap 64 builds are held back by an nvcc wrapper that sleeps for 60 s;
 * the run started with it. */
static void start_slow_compile_run(proc *p)
{
	config_path = write_capped_config(DIR, "slow", "{bx: [32, 64, 96, 128, 160, 192], cap: [0, 64]}");
	set_nvcc_wrapper(DIR "/slow_nvcc", "sleep 60");
	setenv("FAKE_SLEEP_MS", "100", 1);
	char *argv[] = {"./autotune", "-q", "--no-cache", config_path, NULL};
	CU_ASSERT_EQUAL_FATAL(proc_start(p, argv, PROC_STDOUT | PROC_MERGE_STDERR), 0);
}

/* The held-back compile, once the first configuration is measured and the pass waits on it;
 * 0 when it never showed within 60 s. */
static pid_t slow_compile(const proc *p)
{
	double t0 = now_seconds();
	pid_t compile = 0;
	while (now_seconds() - t0 < 60 && !(count_in(DIR "/slow.journal", "done ") >= 1 && (compile = child_named(p->pid, "slow_nvcc")) > 0))
		nap();
	return compile;
}

static void remove_slow_run(void)
{
	static const char *const ext[] = {".csv", ".journal", "_tuned.h", ".yaml", ".html", ".worker.log", ".mk"};
	for (int i = 0; i < 7; i++) {
		char path[256];
		snprintf(path, sizeof path, DIR "/slow%s", ext[i]);
		unlink(path);
	}
	unlink(DIR "/slow_nvcc");
}

/* The same signal stops a compile still running: its configurations are not run, not compile
 * errors. */
static void test_sigterm_to_the_whole_job_leaves_an_unfinished_compile_not_run(void)
{
	proc p;
	start_slow_compile_run(&p);
	double t0 = now_seconds();
	pid_t compile = slow_compile(&p);
	CU_ASSERT(compile > 0);
	if (compile > 0)
		kill(-compile, SIGTERM); /* its process group: the wrapper and its sleep */
	kill(p.pid, SIGTERM);
	int timed_out;
	int st = proc_finish(&p, 30, &timed_out);
	unsetenv("NVCC");
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 143);
	int done = count_in(DIR "/slow.journal", "done ");
	CU_ASSERT(done >= 1 && done <= 6);
	CU_ASSERT_EQUAL(count_in(DIR "/slow.csv", "compile-error"), 0);
	CU_ASSERT_EQUAL(count_in(DIR "/slow.csv", ",ok,"), done);
	/* the rest are counted, not listed (the built binary's first configuration aside) */
	CU_ASSERT(count_in(DIR "/slow.csv", ",not-run,") <= 1);
	CU_ASSERT_EQUAL(count_in(DIR "/slow.csv", ",terminated,12\r"), done + count_in(DIR "/slow.csv", ",not-run,"));
	CU_ASSERT(now_seconds() - t0 < 30); /* not held up by the compile that sleeps for 60 s */
	remove_slow_run();
}

/* The whole job's signal can reach nvcc before the tuner (it failed this suite once under load):
 * here it reaches nvcc alone, and the run goes on. The configurations of that build are not run,
 * not compile errors; the others are measured. */
static void test_sigterm_to_nvcc_alone_leaves_its_configurations_not_run(void)
{
	proc p;
	start_slow_compile_run(&p);
	pid_t compile = slow_compile(&p);
	CU_ASSERT(compile > 0);
	if (compile > 0)
		kill(-compile, SIGTERM);
	int timed_out;
	int st = proc_finish(&p, 60, &timed_out);
	unsetenv("NVCC");
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CU_ASSERT_EQUAL(count_in(DIR "/slow.csv", "compile-error"), 0);
	CU_ASSERT_EQUAL(count_in(DIR "/slow.csv", ",ok,"), 6);
	/* the build nvcc never finished is not listed: counted, not run */
	CU_ASSERT(count_in(DIR "/slow.csv", ",not-run,") <= 1);
	CU_ASSERT_EQUAL(count_in(DIR "/slow.csv", ",12\r"), 6 + count_in(DIR "/slow.csv", ",not-run,"));
	remove_slow_run();
}

/* Writes DIR/fx.yaml: write_named_config's with constants scale and off, a filled by fill_expr. */
static void write_expr_fill_config(const char *fill_expr)
{
	mkdir(DIR, 0777);
	put_file(DIR "/k.cu", "extern \"C\" __global__ void k(float *a, int n) { a[threadIdx.x] += 1; }\n");
	config_path = write_named_config(DIR, "fx", "k.cu", "space: {bx: [32]}\n");
	char *text = read_text(config_path), *at = text ? strstr(text, "count: 4096, output: true}") : NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	char *patched = xasprintf("constants: {scale: 0.1, off: 3}\n%.*scount: 4096, fill: {expr: \"%s\"}, output: true}%s",
				  (int)(at - text), text, fill_expr, at + strlen("count: 4096, output: true}"));
	put_file(config_path, patched);
	free(patched);
	free(text);
}

/* The line (1-based) of path on which `what` first appears, or 0. */
static int line_of(const char *path, const char *what)
{
	char *text = read_text(path), *at = text ? strstr(text, what) : NULL;
	int line = at ? 1 : 0;
	for (char *p = text; at && p < at; p++)
		line += *p == '\n';
	free(text);
	return line;
}

/* fill: {expr} is generated by the worker a slice at a time, not staged in a file: the worker
 * gets the constants the expression names, exactly (a float in hex), and the expression. An
 * element that cannot be evaluated is said at the expression's place in the config: the first
 * and last by the tuner before any worker is asked, one in between by the worker. */
static void test_expression_fills_are_generated_by_the_worker(void)
{
	char tmp[] = "/tmp/autotune-exprfill-XXXXXX", *out, *ls;
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tmp));
	setenv("TMPDIR", tmp, 1);
	write_expr_fill_config("i * scale + off");
	fake_worker_reset(DIR, "fx");
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){"-q", NULL}, &out), 0);
	free(out);
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", "let scale float 0x1.999999999999ap-4\n"), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", "let off int 3\n"), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", "fillexpr 0 fill i * scale + off\n"), 1);
	proc_capture((char *[]){"find", tmp, "-mindepth", "1", NULL}, 30, &ls);
	CU_ASSERT_STRING_EQUAL(ls ? ls : "?", ""); /* no element file */
	free(ls);

	/* element 7 of 4096 fails in the worker */
	fake_worker_reset(DIR, "fx");
	setenv("FAKE_EVAL_ERROR", "element 7, lane 0: division by zero", 1);
	CU_ASSERT_NOT_EQUAL(run_autotune_on(config_path, (char *[]){"-q", NULL}, &out), 0);
	unsetenv("FAKE_EVAL_ERROR");
	char *want = xasprintf("fx.yaml:%d:", line_of(config_path, "fill: {expr"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "cannot evaluate this for 'a': element 7, lane 0: division by zero"));
	CU_ASSERT_PTR_NULL(strstr(out, "without a GPU")); /* a GPU answered: no hint to do without */
	free(want);
	free(out);

	/* the last element fails here, before a worker is asked for anything */
	write_expr_fill_config("1 / (i - 4095)");
	fake_worker_reset(DIR, "fx");
	CU_ASSERT_NOT_EQUAL(run_autotune_on(config_path, (char *[]){"-q", NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "cannot evaluate this for element 4095 of 'a'"));
	CU_ASSERT(count_in(DIR "/runs.log", "fillexpr") <= 0); /* (-1: no worker at all) */
	free(out);
	unsetenv("TMPDIR");
	proc_capture((char *[]){"rm", "-rf", tmp, NULL}, 30, &ls);
	free(ls);
}

/* fd.yaml's path (config_path points here after write_file_config). */
static char fd_path[] = DIR "/fd.yaml";

/* Writes DIR/fd.yaml: input x (4096 floats) filled from file (relative to DIR), output a, and the
 * verify mapping's keys when given (line 9); the fake worker reset for it. */
static void write_file_config(const char *file, const char *verify)
{
	mkdir(DIR, 0777);
	mkdir(DIR "/data", 0777);
	put_file(DIR "/k.cu", "extern \"C\" __global__ void k(const float *x, float *a, int n)\n"
			      "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = 2 * x[i]; }\n");
	char *text = xasprintf("name: fd\nkernel: {source: k.cu, entry: k}\narguments:\n"
			       "  - {name: x, type: float, count: 4096, fill: {file: %s}}\n"
			       "  - {name: a, type: float, count: 4096, output: true}\n  - {name: n, type: int32, value: 4096}\n"
			       "space: {bx: [32, 64]}\nlaunch: {block: [bx], grid: [\"ceil_div(4096, bx)\"]}\n"
			       "%s%s%soutput: {csv: " DIR "/fd.csv, header: " DIR "/fd_tuned.h}\n",
			       file, verify ? "verify: {" : "", verify ? verify : "", verify ? "}\n" : "");
	put_file(fd_path, text);
	free(text);
	config_path = fd_path;
	fake_worker_reset(DIR, "fd");
}

/* The fillfile line the fake worker logged for argument idx in role from DIR/file, whose data
 * start at offset: how many times. */
static int fillfile_lines(int idx, const char *role, size_t offset, const char *file)
{
	char *path = xasprintf("%s/%s", DIR, file), *real = realpath(path, NULL);
	char *want = xasprintf("fillfile %d %s %zu %s\n", idx, role, offset, real ? real : "?");
	int n = count_in(DIR "/runs.log", want);
	free(want);
	free(real);
	free(path);
	return n;
}

#define NPY_F4_4096 "{'descr': '<f4', 'fortran_order': False, 'shape': (4096,), }"

/* fill: {file} and verify.expected are read by the worker, from the data's offset in the file
 * (0 raw, past the header .npy) and by absolute path, a slice at a time: nothing is staged in
 * TMPDIR. A file the worker cannot read is said at its place in the config. */
static void test_data_files_are_read_by_the_worker(void)
{
	char tmp[] = "/tmp/autotune-filefill-XXXXXX", *out, *ls;
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tmp));
	setenv("TMPDIR", tmp, 1);
	write_file_config("data/x.bin", NULL);
	put_bytes(DIR "/data/x.bin", 4096 * 4);
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){"-q", NULL}, &out), 0);
	free(out);
	CU_ASSERT_EQUAL(fillfile_lines(0, "fill", 0, "data/x.bin"), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", "fillfile "), 1);

	write_file_config("data/x.npy", "expected: {a: data/a.npy}");
	size_t x_at = put_npy(DIR "/data/x.npy", 1, NPY_F4_4096, 4096 * 4);
	size_t a_at = put_npy(DIR "/data/a.npy", 2, NPY_F4_4096, 4096 * 4);
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){"-q", NULL}, &out), 0);
	free(out);
	CU_ASSERT_EQUAL(fillfile_lines(0, "fill", x_at, "data/x.npy"), 1);
	CU_ASSERT_EQUAL(fillfile_lines(1, "expect", a_at, "data/a.npy"), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", "fillexpr"), 0);
	proc_capture((char *[]){"find", tmp, "-mindepth", "1", NULL}, 30, &ls);
	CU_ASSERT_STRING_EQUAL(ls ? ls : "?", ""); /* no element file */
	free(ls);

	fake_worker_reset(DIR, "fd");
	setenv("FAKE_FILE_ERROR", "data/x.npy ends 100 bytes into the array's 16384", 1);
	CU_ASSERT_NOT_EQUAL(run_autotune_on(config_path, (char *[]){"-q", NULL}, &out), 0);
	unsetenv("FAKE_FILE_ERROR");
	char *want = xasprintf("fd.yaml:4:%zu: cannot read this for 'x': data/x.npy ends 100 bytes",
			       strlen("  - {name: x, type: float, count: 4096, fill: {file: ") + 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
	free(want);
	free(out);
	unsetenv("TMPDIR");
	proc_capture((char *[]){"rm", "-rf", tmp, NULL}, 30, &ls);
	free(ls);
}

/* A data file that does not fit its argument is a config error at the file's name, exit 2,
 * before any worker starts: it says what the file holds and what the argument needs. */
static void test_data_files_that_do_not_fit_exit_2(void)
{
	static const struct {
		const char *file, *verify, *message;
	} cases[] = {
		{"data/short.bin", NULL, "data/short.bin holds 16000 bytes, but 'x' is 4096 float32 (<f4), 16384 bytes"},
		{"data/f8.npy", NULL, "data/f8.npy holds 4096 float64 (<f8), but 'x' is 4096 float32 (<f4)"},
		{"data/count.npy", NULL, "data/count.npy holds 4000 float32 (<f4), but 'x' is 4096 float32 (<f4)"},
		{"data/big.npy", NULL, "data/big.npy holds big-endian data (>f4), but 'x' is 4096 float32 (<f4)"},
		{"data/missing.npy", NULL, "cannot read data file 'data/missing.npy': No such file or directory"},
		{"data/fortran.npy", NULL, "data/fortran.npy holds a 2-D array in Fortran order, shape (64, 64), but 'x' is 4096 float32"},
		{"data/x.bin", "expect: {a: 2}, expected: {a: data/x.bin}", "verify: 'a' has both expect and expected: give one"},
	};
	write_file_config("data/x.bin", NULL);
	put_bytes(DIR "/data/x.bin", 4096 * 4);
	put_bytes(DIR "/data/short.bin", 16000);
	put_npy(DIR "/data/f8.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4096,), }", 4096 * 8);
	put_npy(DIR "/data/count.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4000,), }", 4000 * 4);
	put_npy(DIR "/data/big.npy", 1, "{'descr': '>f4', 'fortran_order': False, 'shape': (4096,), }", 4096 * 4);
	put_npy(DIR "/data/fortran.npy", 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (64, 64), }", 4096 * 4);
	unlink(DIR "/data/missing.npy");
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		write_file_config(cases[i].file, cases[i].verify);
		char *out;
		CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){"-q", NULL}, &out), 2);
		/* the file's name on line 4, or the output's on verify's line 9 */
		size_t col = cases[i].verify ? strlen("verify: {expect: {a: 2}, expected: {") + 1 :
					       strlen("  - {name: x, type: float, count: 4096, fill: {file: ") + 1;
		char *want = xasprintf("%s:%d:%zu: %s", fd_path, cases[i].verify ? 9 : 4, col, cases[i].message);
		if (!strstr(out, want))
			fprintf(stderr, "\n  got: %s  want: %s\n", out, want);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
		CU_ASSERT(count_in(DIR "/runs.log", "") <= 0); /* no worker was started (-1: no log at all) */
		free(want);
		free(out);
	}
}

/* One byte of a data file changed is another spec: its hash changes, and the journal of the
 * runs before is not trusted (the configurations are measured again). */
static void test_a_changed_data_file_is_another_spec(void)
{
	write_file_config("data/x.bin", NULL);
	put_bytes(DIR "/data/x.bin", 4096 * 4);
	char *before, *after, *out;
	char *hash[] = {"validate", "--print-spec-hash", config_path, NULL};
	CU_ASSERT_EQUAL(run_autotune(hash, &before), 0);
	CU_ASSERT_EQUAL(run_autotune_on(config_path, NULL, &out), 0);
	free(out);
	/* the same files: the journal's results stand */
	CU_ASSERT_EQUAL(run_autotune_on(config_path, NULL, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "fd.journal: resuming: 2 configurations measured before"));
	free(out);
	FILE *f = fopen(DIR "/data/x.bin", "r+b");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fseek(f, 1000, SEEK_SET);
	fputc(0xEE, f);
	fclose(f);
	CU_ASSERT_EQUAL(run_autotune(hash, &after), 0);
	CU_ASSERT_EQUAL(strlen(before), 17);
	CU_ASSERT_STRING_NOT_EQUAL(before, after);
	free(before);
	free(after);
	unlink(DIR "/runs.log");
	CU_ASSERT_EQUAL(run_autotune_on(config_path, NULL, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "fd.journal: the data files changed since the last run: "));
	CU_ASSERT_PTR_NULL(strstr(out, "resuming"));
	free(out);
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", " ref "), 1); /* measured again, from the reference on */
}

/* Copies are made once every array is filled, each after the copy it copies: here x copies y,
 * which is listed after it and itself copies z, filled from an expression. */
static void test_copies_follow_their_sources(void)
{
	mkdir(DIR, 0777);
	put_file(DIR "/k.cu", "extern \"C\" __global__ void k(float *x, float *y, float *z, float *o, int n) { o[threadIdx.x] = x[0]; }\n");
	config_path = write_named_config(DIR, "cp", "k.cu", "space: {bx: [32]}\n");
	char *text = read_text(config_path), *at = text ? strstr(text, "  - {name: a, type: float, count: 4096, output: true}\n") : NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	char *patched = xasprintf("%.*s  - {name: x, type: float, count: 64, fill: {copy: y}}\n"
				  "  - {name: y, type: float, count: 64, fill: {copy: z}}\n"
				  "  - {name: z, type: float, count: 64, fill: {expr: \"i\"}}\n%s",
				  (int)(at - text), text, at);
	put_file(config_path, patched);
	free(patched);
	free(text);
	fake_worker_reset(DIR, "cp");
	char *out;
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){"-q", NULL}, &out), 0);
	free(out);
	char *log = read_text(DIR "/runs.log");
	CU_ASSERT_PTR_NOT_NULL_FATAL(log);
	char *fill = strstr(log, "fillexpr 2 fill i"), *yz = strstr(log, "copy 1 2\n"), *xy = strstr(log, "copy 0 1\n");
	CU_ASSERT(fill && yz && xy && fill < yz && yz < xy);
	free(log);
}

static void test_problem_too_large_for_device_memory(void)
{
	config_path = write_space_config(DIR, "stop", NULL);
	fake_worker_reset(DIR, "stop");
	setenv("FAKE_MEM_BYTES", "1000", 1);
	char *out;
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "the kernel's arrays need 0.00 GiB of device memory"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "but Fake GPU has 0.00 GiB"));
	free(out);
	CU_ASSERT_NOT_EQUAL(access(DIR "/stop.csv", F_OK), 0); /* nothing written */
	/* 2^28 elements of an expression fill: refused before any element is generated (it wrote
	 * 1 GiB of them to TMPDIR first). Element 0 cannot be evaluated: had generating begun, that
	 * would be the message. */
	mkdir(DIR, 0777);
	put_file(DIR "/k.cu", "extern \"C\" __global__ void k(float *a) { a[threadIdx.x] = 1; }\n");
	config_path = write_named_config(DIR, "big", "k.cu", "space: {bx: [32]}\n");
	char *text = read_text(config_path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	char *big = strstr(text, "count: 4096, output: true}");
	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	char *patched = xasprintf("%.*scount: 268435456, fill: {expr: \"1 / i\"}}%s", (int)(big - text), text,
				  big + strlen("count: 4096, output: true}"));
	put_file(config_path, patched);
	free(patched);
	free(text);
	char tmp[] = "/tmp/autotune-bigfill-XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tmp));
	setenv("TMPDIR", tmp, 1);
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){NULL}, &out), 2);
	unsetenv("TMPDIR");
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "the kernel's arrays need 1.00 GiB of device memory"));
	free(out);
	char *ls;
	proc_capture((char *[]){"find", tmp, "-name", "autotune-elements-*", NULL}, 30, &ls);
	CU_ASSERT_STRING_EQUAL(ls ? ls : "?", "");
	free(ls);
	proc_capture((char *[]){"rm", "-rf", tmp, NULL}, 30, &ls);
	free(ls);
	unsetenv("FAKE_MEM_BYTES");
}


/* The three acceptance cases: a typo'd key, a bad expression, a syntax error. Each prints
 * exactly file:line:col: message lines and exits 2. */
static void test_config_errors_exit_2_with_positions(void)
{
	const char *base = "kernel: {source: /dev/null, entry: k}\narguments: [{name: a, type: float, count: 4}]\n"
			   "space: {x: [1]}\n";
	struct {
		const char *tail, *want;
	} cases[] = {
		{"launch: {blcok: [x], grid: [1]}\n", ":4:10: unknown key 'blcok' in 'launch'; did you mean 'block'?"},
		{"launch: {block: [x], grid: [\"x +* 2\"]}\n", ":4:33: launch grid: "},
		{"launch: {block: [x], grid: [1]\n", ":5:1: YAML syntax error: "},
	};
	for (size_t i = 0; i < 3; i++) {
		char text[1024];
		snprintf(text, sizeof text, "%s%s", base, cases[i].tail);
		const char *path = write_temp(7, "e.yaml", text);
		char *out;
		CU_ASSERT_EQUAL(run_autotune((char *[]){"--dry-run", "--arch", "sm_90", (char *)path, NULL}, &out), 2);
		char want[512];
		snprintf(want, sizeof want, "%s%s", path, cases[i].want);
		if (!strstr(out, want))
			fprintf(stderr, "\n  got: %s  want: %s\n", out, want);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
		/* every line is a positioned message: no stack dumps, no stray noise */
		for (char *line = out; *line;) {
			char *eol = strchr(line, '\n');
			CU_ASSERT(!strncmp(line, path, strlen(path)));
			line = eol ? eol + 1 : line + strlen(line);
		}
		free(out);
		unlink(path);
	}
}

static int count_lines(const char *path, int *ok_rows, int *not_run, int *with_regs)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char line[4096];
	int n = 0;
	*ok_rows = *not_run = *with_regs = 0;
	while (fgets(line, sizeof line, f)) {
		n++;
		if (n == 1)
			continue;
		*not_run += strstr(line, ",not-run,") != NULL;
		/* registers is the 11th column of summatrix's CSV (3 parameters first) */
		char *p = line;
		for (int c = 0; c < 10 && p; c++)
			p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
		*with_regs += p && *p >= '1' && *p <= '9';
	}
	fclose(f);
	return n;
}

static void test_dry_run_of_summatrix_with_real_nvcc(void)
{
	char *out;
	unlink("results/summatrix.dry-run.csv");
	int rc = run_autotune((char *[]){"--dry-run", "--arch", "sm_90", "configs/summatrix.yaml", NULL}, &out);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "153 valid configurations (of 363 combinations); 3 binaries built"));
	/* the per-configuration table names registers and occupancy */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "block_x=256 block_y=1 maxrreg=0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "100.0%"));
	free(out);
	int ok, not_run, with_regs;
	CU_ASSERT_EQUAL(count_lines("results/summatrix.dry-run.csv", &ok, &not_run, &with_regs), 154);
	CU_ASSERT_EQUAL(not_run, 153);
	CU_ASSERT_EQUAL(with_regs, 153);
	/* a dry run measures nothing, so it leaves no tuned header behind it */
}

/* A worker that fails as it does on a machine without the driver: the dynamic loader names the
 * missing library on stderr and exits 127. */
static const char *no_driver_worker(void)
{
	static char path[160];
	snprintf(path, sizeof path, "%s/autotune-worker", test_dir);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "#!/bin/sh\necho \"$0: error while loading shared libraries: libcuda.so.1: cannot open shared "
		   "object file: No such file or directory\" >&2\nexit 127\n");
	fclose(f);
	chmod(path, 0755);
	return path;
}

/* Without a GPU, one message says what to do first and quotes why no GPU answered; the loader's
 * own line is not printed raw, and no worker log of it is left in results/. */
static void test_dry_run_without_gpu_or_arch_is_a_clear_error(void)
{
	char *out;
	unlink("results/summatrix.worker.log");
	setenv("AUTOTUNE_WORKER", no_driver_worker(), 1);
	int rc = run_autotune((char *[]){"--dry-run", "configs/summatrix.yaml", NULL}, &out);
	unsetenv("AUTOTUNE_WORKER");
	CU_ASSERT_EQUAL(rc, 2);
	CU_ASSERT_EQUAL(strncmp(out, "autotune: a dry run with no GPU needs a target: give --arch sm_90", 65), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "libcuda.so.1: cannot open"));
	CU_ASSERT_PTR_NULL(strstr(out, "autotune-worker: error while loading"));
	CU_ASSERT_PTR_NULL(strchr(out, '\n') ? strchr(strchr(out, '\n') + 1, '\n') : NULL); /* one line */
	CU_ASSERT_NOT_EQUAL(access("results/summatrix.worker.log", F_OK), 0);
	free(out);
}

static void test_real_run_without_gpu_exits_2(void)
{
	char *out;
	unlink("results/summatrix.worker.log");
	setenv("AUTOTUNE_WORKER", no_driver_worker(), 1);
	int rc = run_autotune((char *[]){"configs/summatrix.yaml", NULL}, &out);
	unsetenv("AUTOTUNE_WORKER");
	CU_ASSERT_EQUAL(rc, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "libcuda.so.1: cannot open"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "--dry-run --arch sm_90"));
	CU_ASSERT_NOT_EQUAL(access("results/summatrix.worker.log", F_OK), 0);
	free(out);
}

/* Option values are checked before anything slow starts, and in a dry run too, where they were
 * ignored: a run with a worker that cannot start (/bin/false) names the option, not the GPU. */
static void test_option_values_are_checked_first(void)
{
	struct {
		const char *opt, *value, *want;
	} cases[] = {
		{"--strategy", "nope", "unknown strategy 'nope'"},
		{"--budget", "0.5", "a budget is evaluations (N), a fraction of the space (N%, at most 100%) or a time (Ns, Nm or Nh), not '0.5'"},
		{"--budget", "1e400", "not '1e400'"},
		{"--budget", "inf", "not 'inf'"},
		{"--devices", "0,,1", "--devices takes GPU numbers separated by commas (0,1), not '0,,1'"},
		{"--devices", "1,1", "--devices names GPU 1 twice"},
	};
	setenv("AUTOTUNE_WORKER", "/bin/false", 1);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		for (int dry = 0; dry < 2; dry++) {
			char *out;
			char *args[] = {dry ? "--dry-run" : "-q", "--arch", "sm_90", (char *)cases[i].opt, (char *)cases[i].value,
					"configs/summatrix.yaml", NULL};
			int rc = run_autotune(args, &out);
			if (rc != 2 || !strstr(out, cases[i].want))
				fprintf(stderr, "\n  %s %s%s: exit %d, output: %s  want: %s\n", cases[i].opt, cases[i].value,
					dry ? " (dry run)" : "", rc, out, cases[i].want);
			CU_ASSERT_EQUAL(rc, 2);
			CU_ASSERT_PTR_NOT_NULL(strstr(out, cases[i].want));
			free(out);
		}
	unsetenv("AUTOTUNE_WORKER");
}

/* Every kind of bad input from the command line: exit status 2, a message that says what is
 * wrong (and where), and no CSV written half-way. A fake worker stands in for the GPU. */
static void test_bad_input_table(void)
{
	const char *kernel = write_temp(2, "bk.cu", "extern \"C\" __global__ void k(float *a) { a[threadIdx.x] = 1; }\n");
	struct {
		const char *what, *yaml_tail, *want, *env, *env_value;
	} cases[] = {
		{"syntax", "launch: {block: [x], grid: [1]\n", ":6:1: YAML syntax error", NULL, NULL},
		/* a Latin-1 byte: where it is, not 1:1 */
		{"not UTF-8", "launch: {block: [x], grid: [1]} # caf\xe9\n", ":5:38: YAML syntax error: incomplete UTF-8 octet sequence (byte 0xE9)",
		 NULL, NULL},
		{"unknown key", "launch: {block: [x], grid: [1], shared: 4}\n", ":5:33: unknown key 'shared' in 'launch'; did you mean 'shared_mem'?", NULL, NULL},
		{"wrong type", "launch: {block: [x], grid: 1}\n", ":5:28: launch grid must be a list, not a scalar", NULL, NULL},
		{"missing key", "launch: {block: [x]}\n", ":5:9: 'launch' is missing the required key 'grid'", NULL, NULL},
		{"unknown name", "launch: {block: [y], grid: [1]}\n", ":5:18: unknown name 'y' in the launch block", NULL, NULL},
		{"division by zero", "launch: {block: [x], grid: [\"x / 0\"]}\n", ":5:32: division by zero (for x=32)", NULL, NULL},
		{"grid over 32 bits", "launch: {block: [x], grid: [\"x * 1000000000\"]}\n",
		 ":5:30: launch grid x must be at most 4294967295 (CUDA's 32-bit launch dimensions), but is 32000000000", NULL, NULL},
		{"empty space", "launch: {block: [x], grid: [1]}\nconstraints: [x > 64]\n", "no configuration satisfies the constraints (1 combination tried)", NULL, NULL},
		{"entry not in module", "launch: {block: [x], grid: [1]}\n", "entry point 'kk' not found in the compiled module; it has: k", NULL, NULL},
		{"nvcc not found", "launch: {block: [x], grid: [1]}\n", "NVCC='/nonexistent/nvcc' is not an executable file: set",
		 "NVCC", "/nonexistent/nvcc"},
		{"NVCC names no program", "launch: {block: [x], grid: [1]}\n",
		 "NVCC='no-such-nvcc' is not an executable file nor a program on PATH", "NVCC", "no-such-nvcc"},
		{"no GPU", "launch: {block: [x], grid: [1]}\n", "--dry-run --arch sm_90", "AUTOTUNE_WORKER", "/bin/false"},
		{"unwritable results", "launch: {block: [x], grid: [1]}\noutput: {csv: /proc/autotune/x.csv}\n", "cannot create the results directory '/proc/autotune'", NULL, NULL},
		{"results path is a directory", "launch: {block: [x], grid: [1]}\noutput: {csv: /tmp}\n", "cannot write '/tmp': it is a directory", NULL, NULL},
		/* a TMPDIR longer than /tmp is used too (a batch system's per-job directory) */
		{"unusable TMPDIR", "launch: {block: [x], grid: [1]}\n", "cannot create a work directory '/nonexistent/scratch/job-12345/autotune-",
		 "TMPDIR", "/nonexistent/scratch/job-12345"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		/* under AUTOTUNE_TEST_VALGRIND, valgrind itself cannot start without a TMPDIR */
		if (cases[i].env && !strcmp(cases[i].env, "TMPDIR") && getenv("AUTOTUNE_TEST_VALGRIND"))
			continue;
		char text[2048];
		snprintf(text, sizeof text,
			 "kernel: {source: %s, entry: %s}\narguments: [{name: a, type: float, count: 64, output: true}]\n"
			 "space: {x: [32]}\nmeasure: {finalists: 0}\n%s", kernel, strstr(cases[i].what, "entry") ? "kk" : "k",
			 cases[i].yaml_tail);
		const char *path = write_temp(3, "bad.yaml", text);
		setenv("AUTOTUNE_WORKER", "build/fake_worker", 1);
		if (cases[i].env)
			setenv(cases[i].env, cases[i].env_value, 1);
		unlink("results/bad.csv");
		char *out;
		int rc = run_autotune((char *[]){(char *)path, NULL}, &out);
		if (cases[i].env)
			unsetenv(cases[i].env);
		unsetenv("AUTOTUNE_WORKER");
		if (rc != 2 || !strstr(out, cases[i].want))
			fprintf(stderr, "\n  case '%s': exit %d, output: %s  want: %s\n", cases[i].what, rc, out, cases[i].want);
		CU_ASSERT_EQUAL(rc, 2);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, cases[i].want));
		CU_ASSERT_NOT_EQUAL(access("results/bad.csv", F_OK), 0);
		/* nothing measured: no journal to resume from and no empty worker log left behind */
		char sibling[320];
		const char *base = strrchr(path, '/') + 1;
		snprintf(sibling, sizeof sibling, "results/%.*s.journal", (int)(strlen(base) - 5), base);
		CU_ASSERT_NOT_EQUAL(access(sibling, F_OK), 0);
		snprintf(sibling, sizeof sibling, "results/%.*s.worker.log", (int)(strlen(base) - 5), base);
		CU_ASSERT_NOT_EQUAL(access(sibling, F_OK), 0);
		free(out);
		unlink(path);
	}
	unlink(kernel);
}

/* An nvcc that exits 0 without writing the cubin (a wrapper, a broken install): its binaries are
 * compile errors that say so, not binaries that fail later for another reason. */
static void test_nvcc_that_writes_no_cubin_is_a_compile_error(void)
{
	mkdir(DIR, 0777);
	put_file(DIR "/k.cu", "extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = i; }\n");
	config_path = write_named_config(DIR, "nocubin", "k.cu", "space: {bx: [32, 64], cap: [0, 64]}\nbuild: {maxrregcount: cap}");
	set_nvcc_wrapper(DIR "/quiet_nvcc", "exit 0");
	char *out;
	int rc = run_autotune_on(config_path, (char *[]){"--dry-run", "--arch", "sm_90", "--no-cache", NULL}, &out);
	unsetenv("NVCC");
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "nvcc exited 0 but wrote no cubin"));
	CU_ASSERT_EQUAL(count_in(DIR "/nocubin.dry-run.csv", ",compile-error,"), 2);
	CU_ASSERT_EQUAL(count_in(DIR "/nocubin.dry-run.csv", ",not-run,"), 2);
	free(out);
	unlink(DIR "/quiet_nvcc");
}

/* The summary says where the wall time went: with the register-capped builds held back 2 s by
 * nvcc, the wait shows as waiting for nvcc (not as measuring), and the stages add up to no more
 * than the whole. */
static void test_the_summary_says_where_the_time_went(void)
{
	config_path = write_capped_config(DIR, "stages", "{bx: [32, 64, 96], cap: [0, 64]}");
	set_nvcc_wrapper(DIR "/nvcc_slow", "sleep 2");
	char *out;
	CU_ASSERT_EQUAL_FATAL(run_autotune_on(config_path, (char *[]){"--fresh", "--no-cache", NULL}, &out), 0);
	unsetenv("NVCC");
	const char *line = strstr(out, "stages: ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(line);
	double all, part[7];
	int n = sscanf(line, "stages: %lf s: %lf s starting the GPU, %lf s waiting for nvcc, %lf s setting up inputs, "
			     "%lf s measuring, %lf s finalists, %lf s counters, %lf s writing",
		       &all, &part[0], &part[1], &part[2], &part[3], &part[4], &part[5], &part[6]);
	CU_ASSERT_EQUAL_FATAL(n, 8);
	double sum = 0;
	for (int i = 0; i < 7; i++) {
		CU_ASSERT(part[i] >= 0);
		sum += part[i];
	}
	CU_ASSERT(sum <= all + 0.1);
	CU_ASSERT(part[1] >= 1.5); /* the capped builds, 2 s behind (a sleep: never less) */
	/* the fake worker's arguments, set up while nvcc ran, and its answers, at once: neither takes
	 * the 2 s of nvcc's wait, however busy the machine (a bound of its own would be a race) */
	CU_ASSERT(part[2] < part[1]);
	CU_ASSERT(part[3] < part[1]);
	free(out);
}

/* The GPU's set-up (arrays, host reference, warm-up) runs while nvcc compiles, not before nvcc
 * starts: the fake worker's warm-up waits for a file the first compile makes, which it would
 * never see if nvcc waited for the set-up. */
static void test_the_gpu_is_set_up_while_nvcc_runs(void)
{
	config_path = write_space_config(DIR, "beside", NULL);
	fake_worker_reset(DIR, "beside");
	char cwd[PATH_MAX], marker[PATH_MAX + 32], script[2 * PATH_MAX + 64];
	CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
	snprintf(marker, sizeof marker, "%s/" DIR "/nvcc_started", cwd);
	unlink(marker);
	char *nvcc = find_nvcc();
	CU_ASSERT_PTR_NOT_NULL_FATAL(nvcc);
	/* a compile, not the toolchain's identity probe, which runs before the GPU opens */
	snprintf(script, sizeof script, "#!/bin/sh\ncase \"$*\" in *-cubin*) touch '%s' ;; esac\nexec %s \"$@\"\n", marker,
		 nvcc);
	free(nvcc);
	put_file(DIR "/nvcc_marks", script);
	chmod(DIR "/nvcc_marks", 0755);
	setenv("NVCC", DIR "/nvcc_marks", 1);
	setenv("FAKE_WARMUP_WAITS_FOR", marker, 1);
	char *out;
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){"--fresh", "--no-cache", NULL}, &out), 0);
	unsetenv("FAKE_WARMUP_WAITS_FOR");
	unsetenv("NVCC");
	free(out);
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", "warmup saw "), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/runs.log", "warmup gave up"), 0);
}

/* The same on two GPUs under a budget: a search measures on the first GPU only, so its wait for
 * nvcc is that lane's whole wait, not shared out over lanes that had nothing to measure (which
 * showed as seconds of "measuring" with nothing measured). */
static void test_a_search_on_two_gpus_says_where_the_time_went(void)
{
	config_path = write_capped_config(DIR, "stages2", "{bx: [32, 64, 96], cap: [0, 64]}");
	set_nvcc_wrapper(DIR "/nvcc_slow", "sleep 2");
	setenv("FAKE_GPUS", "2", 1);
	char *out;
	CU_ASSERT_EQUAL_FATAL(run_autotune_on(config_path, (char *[]){"--fresh", "--no-cache", "--budget", "4", NULL}, &out),
			      0);
	unsetenv("FAKE_GPUS");
	unsetenv("NVCC");
	const char *line = strstr(out, "stages2: ");
	while (line && !(line[9] >= '0' && line[9] <= '9')) /* the stages, not the GPUs' line */
		line = strstr(line + 1, "stages2: ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(line);
	double all, part[7];
	int n = sscanf(line, "stages2: %lf s: %lf s starting the GPUs, %lf s waiting for nvcc, %lf s setting up inputs, "
			     "%lf s measuring, %lf s finalists, %lf s counters, %lf s writing",
		       &all, &part[0], &part[1], &part[2], &part[3], &part[4], &part[5], &part[6]);
	if (n != 8)
		fprintf(stderr, "\n%s\n", out);
	CU_ASSERT_EQUAL_FATAL(n, 8);
	CU_ASSERT(part[1] >= 1.5);
	CU_ASSERT(part[3] < part[1]); /* the wait is not measuring */
	free(out);
}

/* Results in a directory two levels below any that exists: made with its parents, and the run
 * writes there. */
static void test_a_nested_results_directory_is_made(void)
{
	char *rm[] = {"rm", "-rf", DIR "/made", NULL}, *out;
	proc_capture(rm, 30, &out);
	free(out);
	mkdir(DIR, 0777);
	put_file(DIR "/k.cu", "extern \"C\" __global__ void k(float *a) { a[threadIdx.x] = 1; }\n");
	put_file(DIR "/nested.yaml", "name: nested\nkernel: {source: k.cu, entry: k}\n"
				     "arguments: [{name: a, type: float, count: 64, output: true}]\nspace: {bx: [32]}\n"
				     "launch: {block: [bx], grid: [1]}\nmeasure: {finalists: 0, metrics: none}\n"
				     "output: {csv: " DIR "/made/a/b/nested.csv, header: " DIR "/made/a/b/nested_tuned.h}\n");
	setenv("AUTOTUNE_WORKER", "build/fake_worker", 1);
	int rc = run_autotune_on(DIR "/nested.yaml", (char *[]){"--no-cache", NULL}, &out);
	unsetenv("AUTOTUNE_WORKER");
	if (rc != 0)
		fprintf(stderr, "\n  %s\n", out);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(access(DIR "/made/a/b/nested.csv", F_OK), 0);
	CU_ASSERT_EQUAL(access(DIR "/made/a/b/nested_tuned.h", F_OK), 0);
	free(out);
	proc_capture(rm, 30, &out);
	free(out);
}

/* Outputs that would replace what is not theirs (a device node, a link's target, an input, another
 * output) are refused before anything runs: exit 2, a message naming the path, and the victim as
 * it was. With the fake worker, so that a case that slipped through would write. */
static void test_outputs_that_would_destroy_files_are_refused(void)
{
	const char *dir = "scratch/outputs";
	mkdir(dir, 0777);
	put_file("scratch/outputs/k.cu", "extern \"C\" __global__ void k(float *a) { a[threadIdx.x] = 1; }\n");
	put_file("scratch/outputs/victim.txt", "precious\n");
	unlink("scratch/outputs/link.csv");
	CU_ASSERT_EQUAL_FATAL(symlink("victim.txt", "scratch/outputs/link.csv"), 0);
	unlink("scratch/outputs/fifo.csv");
	CU_ASSERT_EQUAL_FATAL(mkfifo("scratch/outputs/fifo.csv", 0600), 0);
	struct {
		const char *what, *output, *want, *victim;
	} cases[] = {
		{"a device node", "{csv: /dev/null}", "cannot write '/dev/null': it is not a regular file", NULL},
		{"a FIFO", "{csv: scratch/outputs/fifo.csv}", "it is not a regular file", NULL},
		{"a symbolic link", "{csv: scratch/outputs/link.csv}", "it is a symbolic link", "victim.txt"},
		{"the kernel source", "{csv: scratch/outputs/k.cu}", "output.csv 'scratch/outputs/k.cu' is the kernel source", "k.cu"},
		{"the config", "{csv: scratch/outputs/out.yaml}", "output.csv 'scratch/outputs/out.yaml' is the config", NULL},
		{"the header over the source", "{header: scratch/outputs/k.cu}", "output.header 'scratch/outputs/k.cu' is the kernel source", "k.cu"},
		{"two outputs, one file", "{csv: scratch/outputs/r.csv, header: scratch/outputs/r.csv}", "output.csv and output.header are both", NULL},
		{"the make fragment over the CSV", "{csv: scratch/outputs/r.mk, header: scratch/outputs/r.h}", "output.csv and the make fragment are both",
		 NULL},
		{"the report over the header", "{csv: scratch/outputs/r.csv, header: scratch/outputs/r.html}", "output.header and the report are both", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char text[1024];
		snprintf(text, sizeof text,
			 "name: out\nkernel: {source: k.cu, entry: k}\narguments: [{name: a, type: float, count: 64, output: true}]\n"
			 "space: {x: [32]}\nlaunch: {block: [x], grid: [1]}\nmeasure: {finalists: 0}\noutput: %s\n",
			 cases[i].output);
		put_file("scratch/outputs/out.yaml", text);
		char *before = NULL, victim[256];
		if (cases[i].victim) {
			snprintf(victim, sizeof victim, "%s/%s", dir, cases[i].victim);
			before = read_text(victim);
		}
		setenv("AUTOTUNE_WORKER", "build/fake_worker", 1);
		char *out;
		int rc = run_autotune((char *[]){"--no-cache", "scratch/outputs/out.yaml", NULL}, &out);
		unsetenv("AUTOTUNE_WORKER");
		if (rc != 2 || !strstr(out, cases[i].want))
			fprintf(stderr, "\n  case '%s': exit %d, output: %s  want: %s\n", cases[i].what, rc, out, cases[i].want);
		CU_ASSERT_EQUAL(rc, 2);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, cases[i].want));
		if (before) {
			char *after = read_text(victim);
			CU_ASSERT_PTR_NOT_NULL(after);
			if (after)
				CU_ASSERT_STRING_EQUAL(after, before);
			free(after);
		}
		struct stat st;
		CU_ASSERT(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
		CU_ASSERT(lstat("scratch/outputs/link.csv", &st) == 0 && S_ISLNK(st.st_mode));
		CU_ASSERT(access("scratch/outputs/out.journal", F_OK) != 0);
		free(before);
		free(out);
	}
}

/* The other commands' outputs: a report or header over its own CSV, a merged CSV over one of its
 * parts, an imported config over its spec are refused and leave it as it was; a spec in a
 * directory with a dot in its name is imported next to it. */
static void test_command_outputs_over_their_inputs_are_refused(void)
{
	const char *dir = "scratch/outputs";
	mkdir(dir, 0777);
	char *csv = read_text("tests/data/reduce_h100.csv");
	CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
	put_file("scratch/outputs/r.csv", csv);
	char *spec = read_text("tests/t1/vector_add.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(spec);
	put_file("scratch/outputs/spec.yaml", spec);
	struct {
		const char *what;
		char *argv[6];
		const char *want, *victim, *before;
	} cases[] = {
		{"report over its CSV", {"report", "scratch/outputs/r.csv", "-o", "scratch/outputs/r.csv"},
		 "it is the results CSV it reports on", "r.csv", csv},
		{"header over its CSV", {"header", "scratch/outputs/r.csv", "-o", "scratch/outputs/r.csv"},
		 "one is the results CSV", "r.csv", csv},
		{"import over its spec", {"import", "scratch/outputs/spec.yaml"}, "it is the spec being imported",
		 "spec.yaml", spec},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *out;
		int rc = run_autotune(cases[i].argv, &out);
		if (rc != 2 || !strstr(out, cases[i].want))
			fprintf(stderr, "\n  case '%s': exit %d, output: %s  want: %s\n", cases[i].what, rc, out, cases[i].want);
		CU_ASSERT_EQUAL(rc, 2);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, cases[i].want));
		char victim[256];
		snprintf(victim, sizeof victim, "%s/%s", dir, cases[i].victim);
		char *after = read_text(victim);
		CU_ASSERT(after && !strcmp(after, cases[i].before));
		free(after);
		free(out);
	}
	/* spec.d/x: the config is spec.d/x.yaml, not spec.yaml beside the directory */
	mkdir("scratch/outputs/spec.d", 0777);
	put_file("scratch/outputs/spec.d/x", spec);
	char *kernel = read_text("tests/t1/vector_add.cu");
	CU_ASSERT_PTR_NOT_NULL_FATAL(kernel);
	put_file("scratch/outputs/spec.d/vector_add.cu", kernel);
	unlink("scratch/outputs/spec.yaml.bak");
	rename("scratch/outputs/spec.yaml", "scratch/outputs/spec.yaml.bak");
	char *out;
	run_autotune((char *[]){"import", "scratch/outputs/spec.d/x", NULL}, &out);
	CU_ASSERT_EQUAL(access("scratch/outputs/spec.yaml", F_OK), -1);
	CU_ASSERT_EQUAL(access("scratch/outputs/spec.d/x.yaml", F_OK), 0);
	free(out);
	free(kernel);
	free(csv);
	free(spec);
}

/* Results that cannot be written once everything is measured (here the CSV's path turns into a
 * directory mid-run, as a full disk would fail the write): exit 4, a message that names the
 * journal and the command that writes them, and that command, once the path is free again,
 * writes every result without measuring anything again. */
static void test_measured_but_unwritable_exits_4_and_keeps_the_journal(void)
{
	proc p;
	start_slow_run(&p);
	double t0 = now_seconds();
	while (now_seconds() - t0 < 60 && count_in(DIR "/stop.journal", "done ") < 2)
		nap();
	CU_ASSERT_EQUAL(mkdir(DIR "/stop.csv", 0777), 0);
	int timed_out;
	int st = proc_finish(&p, 60, &timed_out);
	char *said = slurp(DIR "/stop.err");
	unsetenv("FAKE_SLEEP_MS");
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == EXIT_UNWRITTEN);
	CU_ASSERT_PTR_NOT_NULL(strstr(said ? said : "", "the measurements are kept in " DIR "/stop.journal"));
	free(said);
	CU_ASSERT_EQUAL(count_in(DIR "/stop.journal", "done "), NCONFIGS);
	rmdir(DIR "/stop.csv");
	unlink(DIR "/runs.log");
	char *out;
	CU_ASSERT_EQUAL(run_autotune_on(config_path, NULL, &out), 0);
	free(out);
	CU_ASSERT(count_in(DIR "/runs.log", "run ") <= 0); /* (-1: no log, nothing ran) */
	CU_ASSERT_EQUAL(count_in(DIR "/stop.csv", ",ok,"), NCONFIGS);
}

/* SIGTERM while the reference's nvcc still runs (an nvcc that takes 60 s): the run stops at once
 * with 143, says it wrote nothing, and that nvcc goes with it. */
static void test_sigterm_while_compiling_stops_nvcc_too(void)
{
	config_path = write_capped_config(DIR, "held", "{bx: [32], cap: [64]}");
	unlink(DIR "/nvcc.pid");
	set_nvcc_wrapper(DIR "/held_nvcc", "echo $$ > " DIR "/nvcc.pid; sleep 60");
	proc p;
	char *argv[] = {"./autotune", "--no-cache", config_path, NULL};
	FILE *err = fopen(DIR "/held.err", "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_EQUAL_FATAL(proc_start_fd(&p, argv, PROC_STDOUT, fileno(err)), 0);
	fclose(err);
	double t0 = now_seconds();
	char *pid_text = NULL;
	/* the file exists once the shell opened it, the pid is in once its line is */
	while (now_seconds() - t0 < 60 && !((pid_text = read_text(DIR "/nvcc.pid")) && strchr(pid_text, '\n'))) {
		free(pid_text);
		pid_text = NULL;
		nap();
	}
	unsetenv("NVCC");
	CU_ASSERT_PTR_NOT_NULL_FATAL(pid_text);
	pid_t nvcc = (pid_t)atoi(pid_text);
	free(pid_text);
	CU_ASSERT(nvcc > 0 && kill(nvcc, 0) == 0);
	kill(p.pid, SIGTERM);
	int timed_out, st = proc_finish(&p, 10, &timed_out);
	CU_ASSERT(!timed_out && WIFEXITED(st) && WEXITSTATUS(st) == EXIT_TERMINATED);
	CU_ASSERT(process_ended(nvcc));
	CU_ASSERT_EQUAL(count_in(DIR "/held.err", "autotune: terminated before anything was measured: nothing written\n"), 1);
}

/* A million configurations (bx: 32 values, p: 31,250; one binary), searched with --budget 64
 * at 20 ms a measurement, its stderr (and the trace, AUTOTUNE_TRACE) into DIR/big.err. */
static void start_big_run(proc *p)
{
	mkdir(DIR, 0777);
	put_file(DIR "/k.cu", "extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + "
			      "threadIdx.x; if (i < n) a[i] = i; }\n");
	put_file(DIR "/big.yaml", "name: big\nkernel: {source: k.cu, entry: k}\narguments:\n"
				  "  - {name: a, type: float, count: 4096, output: true}\n"
				  "  - {name: n, type: int32, value: \"4096 + 0 * p\"}\n"
				  "space: {bx: {start: 32, stop: 1024, step: 32}, p: {start: 0, stop: 31249}}\n"
				  "launch: {block: [bx], grid: [\"ceil_div(4096, bx)\"]}\n"
				  "measure: {finalists: 0, metrics: none}\n"
				  "output: {csv: " DIR "/big.csv, header: " DIR "/big_tuned.h}\n");
	fake_worker_reset(DIR, "big");
	static const char *const left[] = {DIR "/big.html", DIR "/big.mk", DIR "/big.err"};
	for (int i = 0; i < 3; i++)
		unlink(left[i]);
	setenv("FAKE_SLEEP_MS", "20", 1);
	setenv("AUTOTUNE_TRACE", "1", 1);
	char *argv[] = {"./autotune", "--no-cache", "--budget", "64", DIR "/big.yaml", NULL};
	FILE *err = fopen(DIR "/big.err", "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_EQUAL_FATAL(proc_start_fd(p, argv, PROC_STDOUT, fileno(err)), 0);
	fclose(err);
	unsetenv("AUTOTUNE_TRACE");
	unsetenv("FAKE_SLEEP_MS");
}

/* Each output of the stopped big run, when it wrote them: under 1 MB, read back as a run stopped by
 * sig (or, when the signal came once they were written, the search they say) of a million
 * configurations, some of them measured. 1 when there were results, 0 when it said it wrote
 * nothing (and left no lock behind). */
static int assert_big_outputs(int sig)
{
	struct stat st;
	if (stat(DIR "/big.csv", &st)) {
		char *err = slurp(DIR "/big.err");
		const char *word = sig == SIGTERM ? "autotune: terminated before anything was measured: nothing written\n"
						  : "autotune: interrupted before anything was measured: nothing written\n";
		CU_ASSERT_PTR_NOT_NULL(err ? strstr(err, word) : NULL);
		free(err);
		CU_ASSERT_EQUAL(access(DIR "/big.journal.lock", F_OK), -1);
		CU_ASSERT_EQUAL(access(DIR "/big.worker.log", F_OK), -1);
		return 0;
	}
	static const char *const files[] = {DIR "/big.csv", DIR "/big_tuned.h", DIR "/big.mk", DIR "/big.html"};
	for (int i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(stat(files[i], &st), 0);
		CU_ASSERT(st.st_size < 1000000);
		fprintf(stderr, " %s %lld B", strrchr(files[i], '/') + 1, (long long)st.st_size);
	}
	table t;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(table_load(DIR "/big.csv", &t, &d), 0);
	run_extent r;
	table_run(&t, &r);
	const char *word = sig == SIGTERM ? RUN_TERMINATED : RUN_INTERRUPTED;
	CU_ASSERT(!strcmp(r.state, word) || !strcmp(r.state, RUN_SEARCH));
	CU_ASSERT_EQUAL(r.configurations, 1000000);
	CU_ASSERT(r.measured >= 1 && r.measured <= 65 && t.nrows <= 66);
	char want[64];
	snprintf(want, sizeof want, "#define BIG_RUN \"%s\"", r.state);
	CU_ASSERT_EQUAL(count_in(DIR "/big_tuned.h", want), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/big_tuned.h", "#define BIG_COMPLETE 0"), 1);
	table_free(&t);
	diags_free(&d);
	return 1;
}

/* Sends sig to the big run once `event` is in its stderr (a trace line) or, with event NULL, once
 * its journal holds `done` measurements; asserts its exit, prints how long it took, and returns
 * assert_big_outputs's answer. */
static int stop_big_run_at(const char *event, int done, int sig)
{
	proc p;
	start_big_run(&p);
	double t0 = now_seconds();
	while (now_seconds() - t0 < 120 && (event ? count_in(DIR "/big.err", event) < 1 : count_in(DIR "/big.journal", "done ") < done))
		nap();
	double at = now_seconds();
	kill(p.pid, sig);
	int timed_out, st = proc_finish(&p, 120, &timed_out);
	double took = now_seconds() - at;
	CU_ASSERT(!timed_out && WIFEXITED(st) && WEXITSTATUS(st) == 128 + sig);
	fprintf(stderr, "\n    %s at %s: exit %d %.2f s after it;", sig == SIGTERM ? "SIGTERM" : "SIGINT",
		event ? event : "a measurement", WIFEXITED(st) ? WEXITSTATUS(st) : -1, took);
	/* the acceptance is 2 s on a GPU machine; here the bound only catches a run that goes on to
	 * write or rank its million configurations (a minute and more) */
	CU_ASSERT(took < 20);
	return assert_big_outputs(sig);
}

/* A search of a space of a million, stopped at each stage (enumerating, ranking, measuring,
 * writing): the exit is 128 + the signal, soon; what it measured is written, each file under 1
 * MB and saying the run was stopped, or, stopped before anything was measured, it says it wrote
 * nothing. */
static void test_a_signal_stops_a_search_of_a_million_at_any_stage(void)
{
	stop_big_run_at(": enumerated 1000000 configurations", 0, SIGTERM);
	stop_big_run_at(": journal open", 0, SIGTERM);
	CU_ASSERT(stop_big_run_at(NULL, 3, SIGTERM));
	CU_ASSERT(stop_big_run_at(NULL, 3, SIGINT));
	CU_ASSERT(stop_big_run_at(": measured", 0, SIGTERM));
	fputc('\n', stderr);
}

/* A kernel that hangs: the first Ctrl-C waits for the configuration in flight, the second stops
 * at once (130), and the hung worker does not outlive the run. */
static void test_a_second_ctrl_c_takes_the_hung_worker_along(void)
{
	config_path = write_space_config(DIR, "hang", ", timeout: 600");
	fake_worker_reset(DIR, "hang");
	setenv("FAKE_HANG_BX", "64", 1);
	proc p;
	char *argv[] = {"./autotune", "-q", config_path, NULL};
	CU_ASSERT_EQUAL_FATAL(proc_start(&p, argv, PROC_STDOUT | PROC_MERGE_STDERR), 0);
	double t0 = now_seconds();
	pid_t worker = 0;
	while (now_seconds() - t0 < 60 && !(count_in(DIR "/runs.log", "run 64 ") > 0 && (worker = child_named(p.pid, "fake_worker")) > 0))
		nap();
	unsetenv("FAKE_HANG_BX");
	CU_ASSERT_FATAL(worker > 0);
	kill(p.pid, SIGINT);
	CU_ASSERT(signal_taken(p.pid, SIGINT)); /* else the second would be the same signal still pending */
	kill(p.pid, SIGINT);
	int timed_out, st = proc_finish(&p, 10, &timed_out);
	CU_ASSERT(!timed_out && WIFEXITED(st) && WEXITSTATUS(st) == EXIT_INTERRUPTED);
	CU_ASSERT(process_ended(worker));
}

/* A full disk for real, where a tmpfs can be mounted (root): the results directory is a 64 KiB
 * tmpfs with room left for the journal but not for the CSV. Exit 4, the journal named; once room
 * is made, the same command writes every row without measuring. Skipped where mount is refused. */
static void test_a_full_disk_exits_4_and_the_rerun_writes(void)
{
	const char *fs = DIR "/fullfs";
	mkdir(DIR, 0777);
	mkdir(fs, 0777);
	char *out;
	int st = proc_capture((char *[]){"mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", (char *)fs, NULL}, 30, &out);
	free(out);
	if (!(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
		fprintf(stderr, "(no tmpfs mount here: skipped) ");
		return;
	}
	config_path = write_space_config(DIR, "full", NULL);
	char *text = read_text(config_path), *csv = strstr(text ? text : "", "output: {csv: ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
	char *patched = xasprintf("%.*soutput: {csv: %s/full.csv, header: %s/full_tuned.h}\n", (int)(csv - text), text, fs, fs);
	put_file(config_path, patched);
	free(patched);
	free(text);
	fake_worker_reset(DIR, "full");
	/* all but 8 KiB taken: the journal (3 KiB) fits, the CSV (12 KiB) does not */
	char filler[256];
	snprintf(filler, sizeof filler, "%s/filler", fs);
	size_t fill = 56 * 1024;
	char *zeros = xcalloc(fill, 1);
	FILE *f = fopen(filler, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fwrite(zeros, 1, fill, f);
	fclose(f);
	free(zeros);
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){"--no-cache", NULL}, &out), EXIT_UNWRITTEN);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "the measurements are kept in"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "No space left on device"));
	free(out);
	unlink(filler);
	unlink(DIR "/runs.log");
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){"--no-cache", NULL}, &out), 0);
	free(out);
	CU_ASSERT(count_in(DIR "/runs.log", "run ") <= 0);
	char rows[256];
	snprintf(rows, sizeof rows, "%s/full.csv", fs);
	CU_ASSERT_EQUAL(count_in(rows, ",ok,"), NCONFIGS);
	proc_capture((char *[]){"umount", (char *)fs, NULL}, 30, &out);
	free(out);
}

/* What a killed run left in TMPDIR (its work directory, an element file) goes with the next run;
 * a live process's stays. */
static void test_a_killed_runs_temporary_files_go_with_the_next_run(void)
{
	char tmp[] = "/tmp/autotune-stale-XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tmp));
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	char stale_dir[256], stale_file[300], stale_elements[256], live_dir[256];
	snprintf(stale_dir, sizeof stale_dir, "%s/autotune-%ld-abc123", tmp, (long)dead);
	snprintf(stale_file, sizeof stale_file, "%s/k.cubin", stale_dir);
	snprintf(stale_elements, sizeof stale_elements, "%s/autotune-elements-%ld-xyz789", tmp, (long)dead);
	snprintf(live_dir, sizeof live_dir, "%s/autotune-%ld-live00", tmp, (long)getpid());
	CU_ASSERT_EQUAL_FATAL(mkdir(stale_dir, 0700), 0);
	put_file(stale_file, "half a cubin");
	put_file(stale_elements, "elements");
	CU_ASSERT_EQUAL_FATAL(mkdir(live_dir, 0700), 0);
	config_path = write_space_config(DIR, "stale", NULL);
	fake_worker_reset(DIR, "stale");
	setenv("TMPDIR", tmp, 1);
	char *out;
	CU_ASSERT_EQUAL(run_autotune_on(config_path, (char *[]){"-q", NULL}, &out), 0);
	unsetenv("TMPDIR");
	free(out);
	CU_ASSERT_NOT_EQUAL(access(stale_dir, F_OK), 0);
	CU_ASSERT_NOT_EQUAL(access(stale_elements, F_OK), 0);
	CU_ASSERT_EQUAL(access(live_dir, F_OK), 0);
	rmdir(live_dir);
	CU_ASSERT_EQUAL(rmdir(tmp), 0); /* and the run's own work directory went too */
}

/* A loader warning is said once per run, not again by every later stage that loads the config
 * (the outputs' checks, the header's recipe): it was printed six times. */
static void test_a_warning_is_said_once(void)
{
	const char *kernel = write_temp(2, "warn.cu", "extern \"C\" __global__ void k(float *a) { a[threadIdx.x] += 1; }\n");
	char text[1024];
	snprintf(text, sizeof text,
		 "kernel: {source: %s, entry: k}\narguments: [{name: a, type: float, count: 64, output: true, fill: random}]\n"
		 "space: {x: [32, 64]}\nlaunch: {block: [x], grid: [1]}\nmeasure: {finalists: 0}\n"
		 "output: {csv: %s/warn/warn.csv, header: %s/warn/warn_tuned.h}\n",
		 kernel, test_dir, test_dir);
	const char *path = write_temp(3, "warn.yaml", text);
	setenv("AUTOTUNE_WORKER", "build/fake_worker", 1);
	char *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){(char *)path, NULL}, &out), 0);
	unsetenv("AUTOTUNE_WORKER");
	size_t n = 0;
	for (const char *p = out; (p = strstr(p, "is an output with a fill of its own")); p++)
		n++;
	CU_ASSERT_EQUAL(n, 1);
	free(out);
}

/* Ctrl-C in a dry run stops its compiles: exit 130 soon, no nvcc left running (the dry run
 * installed no handler, so autotune died and every nvcc it had started ran on). The nvcc here
 * answers the toolchain's probe and then compiles forever, writing its pid first. */
static void test_ctrl_c_in_a_dry_run_leaves_no_nvcc(void)
{
	char dir[96], nvcc[128], pidfile[128], yaml[128];
	snprintf(dir, sizeof dir, "%s/dryint", test_dir);
	mkdir(dir, 0777);
	snprintf(nvcc, sizeof nvcc, "%s/nvcc", dir);
	snprintf(pidfile, sizeof pidfile, "%s/nvcc.pid", dir);
	char script[512];
	snprintf(script, sizeof script,
		 "#!/bin/sh\ncase \"$*\" in *-dryrun*) echo '#$ _HERE_=/nonexistent'; exit 0 ;; esac\n"
		 "echo $$ >> %s\nexec sleep 60\n", pidfile);
	put_file(nvcc, script);
	chmod(nvcc, 0755);
	const char *kernel = write_temp(2, "dryint.cu", "extern \"C\" __global__ void k(float *a) { a[0] = 1; }\n");
	char text[512];
	snprintf(text, sizeof text,
		 "kernel: {source: %s, entry: k}\narguments: [{name: a, type: float, count: 4, output: true}]\n"
		 "space: {x: [32, 64]}\nlaunch: {block: [x], grid: [1]}\nbuild: {defines: [x]}\n"
		 "output: {csv: %s/dryint.csv}\n", kernel, dir);
	snprintf(yaml, sizeof yaml, "%s/dryint.yaml", dir);
	put_file(yaml, text);
	setenv("NVCC", nvcc, 1);
	proc p;
	char *argv[] = {"./autotune", "--dry-run", "-q", "--arch", "sm_90", "--no-cache", yaml, NULL};
	int started = proc_start(&p, argv, PROC_STDOUT | PROC_MERGE_STDERR);
	unsetenv("NVCC");
	CU_ASSERT_EQUAL_FATAL(started, 0);
	double t0 = now_seconds();
	while (count_in(pidfile, "") < 1 && now_seconds() - t0 < 30)
		nap();
	kill(p.pid, SIGINT);
	int timed_out, st = proc_finish(&p, 20, &timed_out);
	CU_ASSERT(!timed_out);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 130);
	/* every nvcc it started is gone */
	FILE *f = fopen(pidfile, "r");
	long pid;
	int alive = 0, n = 0;
	while (f && fscanf(f, "%ld", &pid) == 1) {
		n++;
		alive += !process_ended((pid_t)pid);
		kill((pid_t)pid, SIGKILL); /* this test's own leftovers, if any */
	}
	if (f)
		fclose(f);
	CU_ASSERT(n >= 1);
	CU_ASSERT_EQUAL(alive, 0);
	CU_ASSERT_NOT_EQUAL(access(dir, F_OK), -1);
}

/* The hostile-input table (tests/hostile/cases.txt, over 90 cases: inputs, exit status, what is
 * said) holds, and docs/hostile.md is the table as it is. */
static void test_the_hostile_input_table_holds(void)
{
	char *out;
	int st = proc_capture((char *[]){"sh", "tests/hostile.sh", NULL}, 600, &out);
	CU_ASSERT(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (!(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0))
		fprintf(stderr, "\n%s", out);
	int cases = 0;
	const char *n = strstr(out, "hostile inputs: ");
	CU_ASSERT(n && sscanf(n, "hostile inputs: %d cases", &cases) == 1 && cases >= 90);
	free(out);
	/* a bound on a hang, not on speed: the table's 90 inputs take minutes on a busy machine */
	st = proc_capture((char *[]){"sh", "tests/hostile.sh", "--markdown", NULL}, 600, &out);
	CU_ASSERT(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	char *whole = NULL;
	size_t len = 0;
	FILE *f = fopen("docs/hostile.md", "r");
	if (f) {
		whole = malloc(1 << 20);
		len = fread(whole, 1, (1 << 20) - 1, f);
		whole[len] = 0;
		fclose(f);
	}
	CU_ASSERT(whole && !strcmp(whole, out));
	if (!(whole && !strcmp(whole, out)))
		fprintf(stderr, "\n  docs/hostile.md is not `tests/hostile.sh --markdown`: write it again");
	free(whole);
	free(out);
}

int add_tune_suite(void)
{
	/* the runs stopped by signals, a full disk and an unwritable output wait on purpose: a suite of
	 * their own runs beside the rest */
	CU_pSuite s = CU_add_suite("tune", NULL, fake_worker_forget), g = CU_add_suite("tune signals", NULL, fake_worker_forget),
		  n = add_integration_suite("tune/nvcc", NULL, NULL);
	if (!s || !g || !n)
		return -1;
	CU_add_test(s, "expression fills are generated by the worker", test_expression_fills_are_generated_by_the_worker);
	CU_add_test(s, "a warning is said once", test_a_warning_is_said_once);
	CU_add_test(g, "Ctrl-C in a dry run leaves no nvcc", test_ctrl_c_in_a_dry_run_leaves_no_nvcc);
	CU_add_test(s, "copies follow their sources", test_copies_follow_their_sources);
	CU_add_test(s, "data files are read by the worker", test_data_files_are_read_by_the_worker);
	CU_add_test(s, "data files that do not fit exit 2", test_data_files_that_do_not_fit_exit_2);
	CU_add_test(s, "a changed data file is another spec", test_a_changed_data_file_is_another_spec);
	CU_add_test(g, "SIGINT writes what was measured and exits 130", test_sigint_writes_what_was_measured_and_exits_130);
	CU_add_test(s, "a budget search is said incomplete", test_a_budget_search_is_said_incomplete);
	CU_add_test(s, "a space too large to list is searched in a sample",
		    test_a_space_too_large_to_list_is_searched_in_a_sample);
	CU_add_test(s, "a failed binary of a search is one row", test_a_failed_binary_of_a_search_is_one_row);
	CU_add_test(s, "string parameters tune end to end", test_string_parameters_tune_end_to_end);
	CU_add_test(s, "a hard-coded define is tuned as it is", test_a_hard_coded_define_is_tuned_as_it_is);
	CU_add_test(s, "a dry run leaves the measured results", test_a_dry_run_leaves_the_measured_results);
	CU_add_test(s, "a dry run takes the results lock", test_a_dry_run_takes_the_results_lock);
	CU_add_test(s, "configs of one name are refused", test_configs_of_one_name_are_refused);
	CU_add_test(s, "starting afresh says what changed", test_starting_afresh_says_what_changed);
	CU_add_test(s, "an nvcc that writes no cubin is a compile error", test_nvcc_that_writes_no_cubin_is_a_compile_error);
	CU_add_test(g, "SIGTERM to the whole job writes results, exits 143 and resumes", test_sigterm_to_the_whole_job_writes_results_and_resumes);
	CU_add_test(g, "SIGTERM to the whole job leaves an unfinished compile not run",
		    test_sigterm_to_the_whole_job_leaves_an_unfinished_compile_not_run);
	CU_add_test(g, "SIGTERM to nvcc alone leaves its configurations not run",
		    test_sigterm_to_nvcc_alone_leaves_its_configurations_not_run);
	CU_add_test(s, "problem too large for device memory", test_problem_too_large_for_device_memory);
	CU_add_test(s, "config errors exit 2 with positions", test_config_errors_exit_2_with_positions);
	CU_add_test(n, "dry run of summatrix with real nvcc", test_dry_run_of_summatrix_with_real_nvcc);
	CU_add_test(s, "dry run without GPU or arch is a clear error", test_dry_run_without_gpu_or_arch_is_a_clear_error);
	CU_add_test(s, "real run without GPU exits 2", test_real_run_without_gpu_exits_2);
	CU_add_test(s, "option values are checked first", test_option_values_are_checked_first);
	CU_add_test(s, "bad input table: exit 2 and a message", test_bad_input_table);
	CU_add_test(s, "the summary says where the time went", test_the_summary_says_where_the_time_went);
	CU_add_test(s, "the GPU is set up while nvcc runs", test_the_gpu_is_set_up_while_nvcc_runs);
	CU_add_test(s, "a search on two GPUs says where the time went", test_a_search_on_two_gpus_says_where_the_time_went);
	CU_add_test(s, "a nested results directory is made", test_a_nested_results_directory_is_made);
	CU_add_test(s, "outputs that would destroy files are refused", test_outputs_that_would_destroy_files_are_refused);
	CU_add_test(s, "command outputs over their inputs are refused", test_command_outputs_over_their_inputs_are_refused);
	CU_add_test(g, "SIGTERM while compiling stops nvcc too", test_sigterm_while_compiling_stops_nvcc_too);
	CU_add_test(g, "a signal stops a search of a million at any stage", test_a_signal_stops_a_search_of_a_million_at_any_stage);
	CU_add_test(g, "a second Ctrl-C takes the hung worker along", test_a_second_ctrl_c_takes_the_hung_worker_along);
	CU_add_test(g, "a killed run's temporary files go with the next run",
		    test_a_killed_runs_temporary_files_go_with_the_next_run);
	CU_add_test(g, "a full disk exits 4 and the rerun writes", test_a_full_disk_exits_4_and_the_rerun_writes);
	CU_add_test(g, "measured but unwritable exits 4 and keeps the journal",
		    test_measured_but_unwritable_exits_4_and_keeps_the_journal);
	CU_add_test(s, "the hostile input table holds", test_the_hostile_input_table_holds);
	return 0;
}
