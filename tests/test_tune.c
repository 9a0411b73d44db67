/* test_tune.c: a tuning run as tune.c runs it, stage by stage, on the CPU: tests/fake_worker.c
 * stands in for the GPU worker (AUTOTUNE_WORKER), the real nvcc compiles. SIGINT writes what was
 * measured and exits 130; SIGTERM to the whole job (a batch system's time limit) exits 143, and
 * what it stopped, a measurement or a compile, is not run rather than failed; a problem too large
 * for the device stops the run before anything is written. */
#include <CUnit/CUnit.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compile.h"
#include "proc.h"
#include "tests.h"

#define NCONFIGS 20
#define DIR "/tmp/autotune-tune-test"

static char config_path[256];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

/* A config NAME over kernel KERNEL (in DIR) with the given space, build and measure lines; the
 * kernel takes (float *a, int n) with n = 4096; results go to DIR/NAME.*, which start empty. */
static void write_named(const char *name, const char *kernel, const char *space_build)
{
	char text[2048];
	snprintf(config_path, sizeof config_path, DIR "/%s.yaml", name);
	snprintf(text, sizeof text,
		 "name: %s\nkernel: {source: %s, entry: k}\narguments:\n"
		 "  - {name: a, type: float, count: 4096, output: true}\n  - {name: n, type: int32, value: 4096}\n"
		 "%s\nlaunch: {block: [bx], grid: [\"ceil_div(4096, bx)\"]}\n"
		 "output: {csv: " DIR "/%s.csv, header: " DIR "/%s_tuned.h}\n",
		 name, kernel, space_build, name, name);
	put(config_path, text);
	char path[256];
	static const char *const ext[] = {".csv", ".journal", "_tuned.h"};
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof path, DIR "/%s%s", name, ext[i]);
		unlink(path);
	}
}

/* A one-binary space of 20 block sizes, 32..640; results under DIR. */
static void write_space(const char *extra_measure)
{
	mkdir(DIR, 0777);
	FILE *f = fopen(DIR "/k.cu", "w");
	fputs("extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = i; }\n", f);
	fclose(f);
	snprintf(config_path, sizeof config_path, DIR "/stop.yaml");
	f = fopen(config_path, "w");
	fprintf(f, "name: stop\nkernel: {source: k.cu, entry: k}\narguments:\n"
		   "  - {name: a, type: float, count: 4096, output: true}\n  - {name: n, type: int32, value: 4096}\n"
		   "space: {bx: {start: 32, stop: 640, step: 32}}\nlaunch: {block: [bx], grid: [\"ceil_div(4096, bx)\"]}\n"
		   "measure: {finalists: 0, metrics: none%s}\n"
		   "output: {csv: " DIR "/stop.csv, header: " DIR "/stop_tuned.h}\n",
		extra_measure ? extra_measure : "");
	fclose(f);
}

static void reset(void)
{
	unlink(DIR "/stop.csv");
	unlink(DIR "/stop_tuned.h");
	unlink(DIR "/stop.journal");
	unlink(DIR "/runs.log");
	fake_worker_forget();
	setenv("AUTOTUNE_WORKER", "build/fake_worker", 1);
	setenv("FAKE_LOG", DIR "/runs.log", 1);
}

static int autotune(char *const extra[], char **out)
{
	char *argv[16] = {"./autotune"};
	int n = 1;
	for (; extra && extra[n - 1] && n < 14; n++)
		argv[n] = extra[n - 1];
	argv[n++] = config_path;
	argv[n] = NULL;
	int st = proc_capture(argv, 120, out);
	return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Rows per configuration in the CSV: each bx must appear exactly once. */
static int each_row_once(void)
{
	FILE *f = fopen(DIR "/stop.csv", "r");
	if (!f)
		return 0;
	int seen[NCONFIGS] = {0}, rows = 0;
	char line[2048];
	fgets(line, sizeof line, f);
	while (fgets(line, sizeof line, f)) {
		int bx = atoi(line);
		if (bx % 32 || bx < 32 || bx > 32 * NCONFIGS)
			return 0;
		seen[bx / 32 - 1]++;
		rows++;
	}
	fclose(f);
	for (int i = 0; i < NCONFIGS; i++)
		if (seen[i] != 1)
			return 0;
	return rows == NCONFIGS;
}

/* The 20-configuration space at 150 ms per measurement, started in the background. */
static void start_slow_run(proc *p)
{
	write_space(NULL);
	reset();
	setenv("FAKE_SLEEP_MS", "150", 1);
	char *argv[] = {"./autotune", "-q", config_path, NULL};
	CU_ASSERT_EQUAL_FATAL(proc_start(p, argv, PROC_STDOUT | PROC_MERGE_STDERR), 0);
}

/* A run stopped by signal sig exited 128 + sig with every journaled result in the CSV and the
 * rest not run, none lost or invented; returns how many were done. */
static int assert_stopped_run(proc *p, int sig)
{
	int timed_out;
	int st = proc_finish(p, 30, &timed_out);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 128 + sig);
	int done = count_in(DIR "/stop.journal", "done ");
	CU_ASSERT(done >= 3 && done < NCONFIGS);
	CU_ASSERT(each_row_once());
	CU_ASSERT_EQUAL(count_in(DIR "/stop.csv", ",ok,"), done);
	CU_ASSERT_EQUAL(count_in(DIR "/stop.csv", ",not-run,"), NCONFIGS - done);
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
	assert_stopped_run(&p, SIGINT);
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
	CU_ASSERT_EQUAL(count_in(j, "stopped "), 1);
	CU_ASSERT_EQUAL(count_in(DIR "/stop.csv", ",crashed,"), 0);
	/* the resumed run measures the stopped one with the rest, and counts nothing crashed */
	unsetenv("FAKE_SLEEP_MS");
	char *out;
	CU_ASSERT_EQUAL(autotune(NULL, &out), 0);
	char want[96];
	snprintf(want, sizeof want, "resuming: %d configurations measured before (", done);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
	free(out);
	CU_ASSERT(each_row_once());
	CU_ASSERT_EQUAL(count_in(DIR "/stop.csv", ",ok,"), NCONFIGS);
}

/* A config whose register cap 64 builds are held back by an nvcc wrapper that sleeps for 60 s;
 * the run started with it. */
static void start_slow_compile_run(proc *p)
{
	mkdir(DIR, 0777);
	put(DIR "/k.cu", "extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = i; }\n");
	write_named("slow", "k.cu", "space: {bx: [32, 64, 96, 128, 160, 192], cap: [0, 64]}\nbuild: {maxrregcount: cap}\n"
				   "measure: {finalists: 0, metrics: none}");
	reset();
	char *nvcc = find_nvcc();
	CU_ASSERT_PTR_NOT_NULL_FATAL(nvcc);
	char script[512];
	snprintf(script, sizeof script, "#!/bin/sh\ncase \"$*\" in *maxrregcount=64*) sleep 60 ;; esac\nexec %s \"$@\"\n", nvcc);
	free(nvcc);
	put(DIR "/slow_nvcc", script);
	chmod(DIR "/slow_nvcc", 0755);
	setenv("NVCC", DIR "/slow_nvcc", 1);
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
	CU_ASSERT_EQUAL(count_in(DIR "/slow.csv", ",not-run,"), 12 - done);
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
	CU_ASSERT_EQUAL(count_in(DIR "/slow.csv", ",not-run,"), 6);
	remove_slow_run();
}

static void test_problem_too_large_for_device_memory(void)
{
	write_space(NULL);
	reset();
	setenv("FAKE_MEM_BYTES", "1000", 1);
	char *out;
	CU_ASSERT_EQUAL(autotune((char *[]){NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "the kernel's arrays need 0.00 GiB of device memory"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "but Fake GPU has 0.00 GiB"));
	free(out);
	CU_ASSERT_NOT_EQUAL(access(DIR "/stop.csv", F_OK), 0); /* nothing written */
}


int add_tune_suite(void)
{
	CU_pSuite s = CU_add_suite("tune", NULL, fake_worker_forget);
	if (!s)
		return -1;
	CU_add_test(s, "SIGINT writes what was measured and exits 130", test_sigint_writes_what_was_measured_and_exits_130);
	CU_add_test(s, "SIGTERM to the whole job writes results, exits 143 and resumes", test_sigterm_to_the_whole_job_writes_results_and_resumes);
	CU_add_test(s, "SIGTERM to the whole job leaves an unfinished compile not run",
		    test_sigterm_to_the_whole_job_leaves_an_unfinished_compile_not_run);
	CU_add_test(s, "SIGTERM to nvcc alone leaves its configurations not run",
		    test_sigterm_to_nvcc_alone_leaves_its_configurations_not_run);
	CU_add_test(s, "problem too large for device memory", test_problem_too_large_for_device_memory);
	return 0;
}
