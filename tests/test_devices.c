/* test_devices.c: the GPUs of a run (devices.c), on the CPU: which ones (--devices, another
 * model left out), one worker each sharing one queue, their counters, and `autotune devices`
 * (sharded runs and their merge: test_merge.c).
 * tests/fake_worker.c plays any number of GPUs (FAKE_GPUS), the real nvcc compiles. The space
 * has 20 block sizes x 3 register caps; the caps build identical code, so 20 configurations are
 * measured and 40 share their twin's measurement. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "devices.h"
#include "proc.h"
#include "tests.h"

#define DIR "scratch/gpus"
#define CONFIG DIR "/mg.yaml"
#define CSV DIR "/mg.csv"
#define RUNS DIR "/runs.log"
#define NCONFIGS 60
#define DISTINCT 20

static void setup_space(void)
{
	mkdir(DIR, 0777);
	FILE *f = fopen(DIR "/k.cu", "w");
	fputs("extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = i; }\n", f);
	fclose(f);
	f = fopen(CONFIG, "w");
	fputs("name: mg\nkernel: {source: k.cu, entry: k}\narguments:\n"
	      "  - {name: a, type: float, count: 4096, output: true}\n  - {name: n, type: int32, value: 4096}\n"
	      "space: {bx: {start: 32, stop: 640, step: 32}, cap: [0, 64, 128]}\nbuild: {maxrregcount: cap}\n"
	      "launch: {block: [bx], grid: [\"ceil_div(4096, bx)\"]}\nmeasure: {metrics: none}\n"
	      "output: {csv: " CSV ", header: " DIR "/mg_tuned.h}\n",
	      f);
	fclose(f);
	/* every earlier output goes */
	static const char *const files[] = {"mg.csv", "mg.journal", "mg_tuned.h", "runs.log"};
	char path[256];
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		snprintf(path, sizeof path, DIR "/%s", files[i]);
		unlink(path);
	}
	setenv("AUTOTUNE_WORKER", "build/fake_worker", 1);
	setenv("FAKE_LOG", RUNS, 1);
	setenv("FAKE_GPUS", "2", 1);
	unsetenv("FAKE_OTHER_MODEL");
	unsetenv("FAKE_PER_MS");
	unsetenv("FAKE_CRASH_BX");
	setenv("FAKE_SLEEP_MS", "5", 1);
}

/* Measurements (not reference refreshes) that GPU g ran, from the fake worker's log. */
static int runs_on(int gpu)
{
	char check[32], ref[32];
	snprintf(check, sizeof check, " check %d", gpu);
	snprintf(ref, sizeof ref, " ref %d", gpu);
	return count_in(RUNS, check) + count_in(RUNS, ref);
}

static void test_two_gpus_share_one_queue_and_measure_each_configuration_once(void)
{
	setup_space();
	/* the reference named: the caps build identical code, so a vote among binaries would stay open
	 * and the second GPU wait for it while the first takes the queue */
	FILE *f = fopen(CONFIG, "a");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("verify: {reference: {bx: 64, cap: 0}}\n", f);
	fclose(f);
	char *out;
	/* GPU 0, set up beside nvcc, could take the whole queue before GPU 1 is ready: after 4 checks
	 * it waits for 3 of GPU 1's, so that both measure whatever the machine's speed */
	setenv("FAKE_GPU0_WAITS", "4 3", 1);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"--fresh", CONFIG, NULL}, &out), 0);
	unsetenv("FAKE_GPU0_WAITS");
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "measuring on 2 GPUs"));
	free(out);
	CU_ASSERT_EQUAL(count_in(CSV, ",ok,"), NCONFIGS);
	/* both GPUs worked; together they measured each distinct configuration once, the second GPU
	 * once more for its copy of the reference outputs */
	int on0 = runs_on(0), on1 = runs_on(1);
	CU_ASSERT(on0 >= 3 && on1 >= 3);
	CU_ASSERT(on0 + on1 <= DISTINCT + 1);
	/* each row names the GPU that measured it */
	CU_ASSERT(count_in(CSV, "00112233445566778899aabbccddee00") > 0);
	CU_ASSERT(count_in(CSV, "00112233445566778899aabbccddee01") > 0);
	char two[64];
	snprintf(two, sizeof two, "%s", winner_of(CSV));
	/* one GPU, the same space: the same winner */
	setenv("FAKE_GPUS", "1", 1);
	unlink(RUNS);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"-q", "--fresh", CONFIG, NULL}, NULL), 0);
	CU_ASSERT_EQUAL(runs_on(1), 0);
	CU_ASSERT_EQUAL(runs_on(0), DISTINCT);
	CU_ASSERT_STRING_EQUAL(winner_of(CSV), two);
}

static void test_a_gpu_of_another_model_is_left_out_or_refused(void)
{
	setup_space();
	setenv("FAKE_OTHER_MODEL", "1", 1);
	char *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){CONFIG, NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "GPU 1 (Other Fake GPU) left out"));
	free(out);
	CU_ASSERT_EQUAL(runs_on(1), 0);
	CU_ASSERT_EQUAL(count_in(CSV, ",ok,"), NCONFIGS);
	/* named explicitly, a GPU of another model is an error, before anything is measured */
	unlink(RUNS);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"--fresh", "--devices", "0,1", CONFIG, NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "tune different models separately"));
	free(out);
	CU_ASSERT_EQUAL(count_in(RUNS, "run "), -1);
}

static void test_bad_device_lists_are_usage_errors(void)
{
	setup_space();
	static const char *const bad[][2] = {{"0,0", "twice"}, {"zero", "GPU numbers"}, {"0,", "GPU numbers"},
					     {"0,5", "GPU 5"}};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char *out;
		CU_ASSERT_EQUAL(run_autotune((char *[]){"--devices", (char *)bad[i][0], CONFIG, NULL}, &out), 2);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, bad[i][1]));
		free(out);
	}
	/* --devices 1 alone: everything on the second GPU */
	CU_ASSERT_EQUAL(run_autotune((char *[]){"-q", "--devices", "1", CONFIG, NULL}, NULL), 0);
	CU_ASSERT_EQUAL(runs_on(0), 0);
	CU_ASSERT_EQUAL(runs_on(1), DISTINCT);
}

static void test_a_crash_on_the_second_gpu_costs_its_configurations_only(void)
{
	setup_space();
	setenv("FAKE_CRASH_BX", "64", 1);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"-q", CONFIG, NULL}, NULL), 0);
	/* bx=64 with its three register caps (one binary's code): crashed; the rest passed */
	CU_ASSERT_EQUAL(count_in(CSV, ",crashed,"), 3);
	CU_ASSERT_EQUAL(count_in(CSV, ",ok,"), NCONFIGS - 3);
}

static void test_kill_9_with_two_gpus_then_resume_loses_nothing(void)
{
	setup_space();
	setenv("FAKE_SLEEP_MS", "100", 1);
	char *argv[] = {"./autotune", "-q", CONFIG, NULL};
	CU_ASSERT_EQUAL_FATAL(kill_when_journaled(argv, DIR "/mg.journal", 6), 0);
	CU_ASSERT(count_in(DIR "/mg.journal", "done ") < DISTINCT);
	setenv("FAKE_SLEEP_MS", "0", 1);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"-q", CONFIG, NULL}, NULL), 0);
	/* at most one configuration per GPU was in flight */
	int crashed = count_in(CSV, ",crashed,"), ok = count_in(CSV, ",ok,");
	CU_ASSERT(crashed <= 2);
	CU_ASSERT_EQUAL(ok + crashed, NCONFIGS);
	CU_ASSERT_EQUAL(count_in(CSV, "\n"), NCONFIGS + 1);
}

/* Each row's bx, achieved occupancy and load efficiency, checked against what the fake worker
 * gives bx on GPU g (bx / 10, 90 + g); counts the rows that match, and those with no counters. */
static void check_counters(int *match, int *none, int *gpu1)
{
	*match = *none = *gpu1 = 0;
	FILE *f = fopen(CSV, "r");
	char line[4096];
	int occ = -1, eff = -1;
	while (f && fgets(line, sizeof line, f)) {
		char *field[64];
		int n = 0;
		for (char *p = line; n < 64; p = strchr(p, ',') + 1) {
			field[n++] = p;
			if (!strchr(p, ','))
				break;
		}
		if (occ < 0) {
			for (int i = 0; i < n; i++) {
				if (!strncmp(field[i], "achieved_occupancy_pct,", 23))
					occ = i;
				if (!strncmp(field[i], "gld_efficiency_pct,", 19))
					eff = i;
			}
			continue;
		}
		if (occ >= n || eff >= n || !strstr(line, ",ok,"))
			continue;
		if (field[occ][0] == ',') {
			++*none;
			continue;
		}
		double e = atof(field[eff]);
		*match += atof(field[occ]) == atoi(field[0]) / 10.0 && (e == 90 || e == 91);
		*gpu1 += e == 91;
	}
	if (f)
		fclose(f);
}

/* Configurations profiled on GPU gpu: the sum of N over its "profiles N GPU" lines. */
static int profiled_on(int gpu)
{
	FILE *f = fopen(RUNS, "r");
	char line[256];
	int total = 0, n, g;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "profiles %d %d", &n, &g) == 2 && g == gpu)
			total += n;
	if (f)
		fclose(f);
	return total;
}

/* The line number (from 1) of the first or last line of RUNS that starts with prefix and ends
 * with " gpu"; 0 when there is none. */
static int line_of(const char *prefix, int gpu, int last)
{
	FILE *f = fopen(RUNS, "r");
	char line[256], tail[16];
	int at = 0, found = 0;
	snprintf(tail, sizeof tail, " %d\n", gpu);
	while (f && fgets(line, sizeof line, f)) {
		at++;
		size_t len = strlen(line), tl = strlen(tail);
		if (!strncmp(line, prefix, strlen(prefix)) && len >= tl && !strcmp(line + len - tl, tail) &&
		    (last || !found))
			found = at;
	}
	if (f)
		fclose(f);
	return found;
}

/* The space's config with measure.metrics set to metrics ("all", "top:3") instead of none. */
static void write_config_with_metrics_of(const char *metrics)
{
	char *text = read_text(CONFIG);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	char *at = strstr(text, "metrics: none");
	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	*at = 0;
	FILE *f = fopen(CONFIG, "w");
	fprintf(f, "%smetrics: %s%s", text, metrics, at + strlen("metrics: none"));
	fclose(f);
	free(text);
}

static void write_config_with_metrics(void) { write_config_with_metrics_of("all"); }

static void test_counters_of_all_configurations_in_one_session_on_the_second_gpu(void)
{
	setup_space();
	write_config_with_metrics();
	setenv("FAKE_METRICS", "1", 1);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"-q", "--fresh", CONFIG, NULL}, NULL), 0);
	/* the 20 measured configurations, each once, on GPU 1 (which leaves the first pass as soon as
	 * the profiling would outlast it: the fake kernels take no time) while GPU 0 measures the rest
	 * and re-times the finalists; each row has its own configuration's counters (the 40 sharers
	 * their twin's) */
	CU_ASSERT_EQUAL(profiled_on(1), 20);
	CU_ASSERT_EQUAL(profiled_on(0), 0);
	/* only the GPU that profiles got its profiler ready beforehand */
	CU_ASSERT_EQUAL(count_in(RUNS, "counters 1"), 1);
	CU_ASSERT_EQUAL(count_in(RUNS, "counters 0"), 0);
	int match, none, gpu1;
	check_counters(&match, &none, &gpu1);
	CU_ASSERT_EQUAL(match, NCONFIGS);
	CU_ASSERT_EQUAL(gpu1, NCONFIGS);
	CU_ASSERT_EQUAL(none, 0);
	/* one GPU: the same, after its finalists */
	setenv("FAKE_GPUS", "1", 1);
	unlink(RUNS);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"-q", "--fresh", CONFIG, NULL}, NULL), 0);
	CU_ASSERT_EQUAL(count_in(RUNS, "profiles "), 1);
	CU_ASSERT_EQUAL(count_in(RUNS, "profiles 20 0"), 1);
	CU_ASSERT_EQUAL(count_in(RUNS, "counters 0"), 1);
	check_counters(&match, &none, &gpu1);
	CU_ASSERT_EQUAL(match, NCONFIGS);
	CU_ASSERT_EQUAL(gpu1, 0);
	unsetenv("FAKE_METRICS");
}

/* Two builds of one launch shape (a define apart, so both are measured) split between a GPU and
 * a slower one: the build the slower GPU timed falls behind another shape in the first pass, yet
 * joins its twin among the finalists, where both are timed on one GPU and tie. The split is
 * exact, not a race: the GPUs take the queue's checks in turns (FAKE_ALTERNATE), and the model
 * ranks the bx=32 builds last, side by side (64 64 128 96 96 32 32). */
static void test_a_build_timed_on_a_slower_gpu_joins_its_twin_among_the_finalists(void)
{
	setup_space();
	FILE *f = fopen(DIR "/twins.yaml", "w");
	fputs("name: twins\nkernel: {source: kv.cu, entry: k}\narguments:\n"
	      "  - {name: a, type: float, count: 4096, output: true}\n  - {name: n, type: int32, value: 4096}\n"
	      "space: {bx: [32, 64, 96, 128], V: [0, 1]}\nbuild: {defines: [V]}\n"
	      "launch: {block: [bx], grid: [\"ceil_div(4096, bx)\"]}\n"
	      "verify: {reference: {bx: 128, V: 0}}\nmeasure: {metrics: none, finalists: 2}\n"
	      "output: {csv: " DIR "/twins.csv, header: " DIR "/twins_tuned.h}\n",
	      f);
	fclose(f);
	f = fopen(DIR "/kv.cu", "w");
	fputs("extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n + V) a[i] = i; }\n", f);
	fclose(f);
	setenv("FAKE_SLOW_GPU", "1", 1);
	setenv("FAKE_PER_MS", "10000", 1); /* all within the finalists' margin */
	setenv("FAKE_ALTERNATE", "7", 1);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"-q", "--fresh", DIR "/twins.yaml", NULL}, NULL), 0);
	unsetenv("FAKE_SLOW_GPU");
	unsetenv("FAKE_ALTERNATE");
	/* the two bx=32 builds went to different GPUs (each lane takes one once the reference is in) */
	CU_ASSERT_EQUAL(count_in(RUNS, "run 32 check 0"), 1);
	CU_ASSERT_EQUAL(count_in(RUNS, "run 32 check 1"), 1);
	/* the top 2 of the first pass (the bx=32 and the bx=64 that GPU 0 timed) and their twins */
	CU_ASSERT_EQUAL(count_in(DIR "/twins.csv", "finalist"), 4);
	char *csv = read_text(DIR "/twins.csv");
	CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
	int twins_final = 0;
	for (char *line = strtok(csv, "\n"); line; line = strtok(NULL, "\n"))
		twins_final += !strncmp(line, "32,", 3) && strstr(line, "finalist") != NULL;
	free(csv);
	CU_ASSERT_EQUAL(twins_final, 2);
	CU_ASSERT_STRING_EQUAL(winner_of(DIR "/twins.csv"), "32,0");
	static const char *const files[] = {"twins.yaml", "kv.cu", "twins.csv", "twins.journal", "twins_tuned.h", "twins.mk",
					    "twins.html", "twins.worker.log"};
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		char path[256];
		snprintf(path, sizeof path, DIR "/%s", files[i]);
		unlink(path);
	}
}

static void test_the_second_gpu_starts_profiling_before_the_first_pass_ends(void)
{
	setup_space();
	write_config_with_metrics_of("top:3");
	setenv("FAKE_METRICS", "1", 1);
	setenv("FAKE_SLEEP_MS", "20", 1);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"-q", "--fresh", CONFIG, NULL}, NULL), 0);
	/* the fastest three (bx 32, 64, 96: the space's first), all on GPU 1: the fastest so far in
	 * a session begun while GPU 0 still had first-pass configurations to measure (it pays the
	 * profiler's start), the other two in one after the pass, beside the finalists (they fit) */
	CU_ASSERT_EQUAL(count_in(RUNS, "profiles "), 2);
	CU_ASSERT_EQUAL(count_in(RUNS, "profiles 1 1"), 1);
	CU_ASSERT_EQUAL(count_in(RUNS, "profiles 2 1"), 1);
	CU_ASSERT_EQUAL(profiled_on(1), 3);
	int session = line_of("profiles ", 1, 0), last_check = line_of("run ", 0, 1);
	CU_ASSERT(session > 0);
	CU_ASSERT(line_of("run ", 1, 1) < session); /* GPU 1 measured nothing after */
	CU_ASSERT(count_in(RUNS, " check 0") > 0);
	int later = 0;
	FILE *f = fopen(RUNS, "r");
	char line[256];
	for (int at = 1; f && fgets(line, sizeof line, f); at++)
		later += at > session && strstr(line, " check 0") != NULL;
	if (f)
		fclose(f);
	CU_ASSERT(later > 0);
	CU_ASSERT(last_check > session);
	int match, none, gpu1;
	check_counters(&match, &none, &gpu1);
	CU_ASSERT_EQUAL(match, 9); /* the three and their twins */
	CU_ASSERT_EQUAL(gpu1, 9);
	unsetenv("FAKE_METRICS");
}

static void test_a_configuration_that_cannot_be_profiled_costs_its_own_counters_only(void)
{
	setup_space();
	write_config_with_metrics();
	setenv("FAKE_METRICS", "1", 1);
	setenv("FAKE_PROFILE_FAIL_BX", "96", 1);
	char *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){"--fresh", CONFIG, NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "no hardware counters: blockDim.x 96 cannot be profiled"));
	free(out);
	/* bx=96 and its two twins have none; the other rows of its session have theirs */
	int match, none, gpu1;
	check_counters(&match, &none, &gpu1);
	CU_ASSERT_EQUAL(none, 3);
	CU_ASSERT_EQUAL(match, NCONFIGS - 3);
	unsetenv("FAKE_METRICS");
	unsetenv("FAKE_PROFILE_FAIL_BX");
}

/* The list --devices takes: distinct GPU numbers 0..4095, comma-separated, nothing else. */
static void test_device_lists_are_checked_alone(void)
{
	static const char *const good[] = {"0", "3", "0,2,3", "4095,0"};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		diags d = {0};
		CU_ASSERT_EQUAL(devices_check(good[i], &d), 0);
		CU_ASSERT_EQUAL(d.n, 0);
		diags_free(&d);
	}
	static const char *const bad[][2] = {{"", "GPU numbers"},   {"-1", "GPU numbers"}, {"4096", "GPU numbers"},
					     {"1 ,2", "GPU numbers"}, {"0,1,", "GPU numbers"}, {"2,0,2", "names GPU 2 twice"}};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		diags d = {0};
		CU_ASSERT_EQUAL(devices_check(bad[i][0], &d), -1);
		CU_ASSERT_EQUAL_FATAL(d.n, 1);
		CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], bad[i][1]));
		diags_free(&d);
	}
}

/* AUTOTUNE_WORKER names the worker; set but empty, it is as if unset. */
static void test_the_worker_path_comes_from_the_environment(void)
{
	setenv("AUTOTUNE_WORKER", "/opt/x/my-worker", 1);
	char *p = devices_worker_path();
	CU_ASSERT_STRING_EQUAL(p, "/opt/x/my-worker");
	free(p);
	setenv("AUTOTUNE_WORKER", "", 1);
	p = devices_worker_path();
	CU_ASSERT(strlen(p) >= strlen("autotune-worker") &&
		  !strcmp(p + strlen(p) - strlen("autotune-worker"), "autotune-worker"));
	free(p);
	unsetenv("AUTOTUNE_WORKER");
}

/* `autotune devices`: a header and one line per GPU the worker counts, each with its own UUID and
 * the copy bandwidth the fake worker measures (3000 GB/s); no GPU to count is exit 2. */
static void test_devices_lists_every_gpu(void)
{
	fake_worker_forget();
	setenv("AUTOTUNE_WORKER", "build/fake_worker", 1);
	setenv("FAKE_GPUS", "3", 1);
	char *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){"devices", NULL}, &out), 0);
	int lines = 0;
	for (char *p = out; (p = strchr(p, '\n')); p++)
		lines++;
	CU_ASSERT_EQUAL(lines, 1 + 3);
	CU_ASSERT(!strncmp(out, "gpu ", 4));
	for (int g = 0; g < 3; g++) {
		char uuid[40];
		snprintf(uuid, sizeof uuid, "00112233445566778899aabbccddee%02x", g);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, uuid));
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "Fake GPU"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "3000 GB/s"));
	free(out);
	setenv("FAKE_GPUS", "0", 1);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"devices", NULL}, &out), 2);
	free(out);
	setenv("AUTOTUNE_WORKER", "/bin/false", 1);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"devices", NULL}, &out), 2);
	CU_ASSERT_PTR_NULL(strstr(out, "gpu "));
	free(out);
	/* a worker the dynamic loader stops (no driver): its words once, in the message */
	char script[128];
	snprintf(script, sizeof script, "%s/noloader", test_dir);
	mkdir(script, 0755);
	strcat(script, "/autotune-worker");
	put_file(script, "#!/bin/sh\necho \"$0: error while loading shared libraries: libcuda.so.1: cannot open\" >&2\n"
			 "exit 127\n");
	chmod(script, 0755);
	setenv("AUTOTUNE_WORKER", script, 1);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"devices", NULL}, &out), 2);
	const char *said = strstr(out, "error while loading shared libraries");
	CU_ASSERT_PTR_NOT_NULL(said);
	CU_ASSERT(said && !strstr(said + 1, "error while loading shared libraries"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "the GPU worker exited with status 127 before opening the device: error while "
					   "loading shared libraries: libcuda.so.1: cannot open (is the NVIDIA driver installed?)"));
	free(out);
	fake_worker_forget();
}

int add_devices_suite(void)
{
	CU_pSuite s = CU_add_suite("devices", NULL, fake_worker_forget);
	if (!s)
		return -1;
	return !CU_add_test(s, "two GPUs share one queue and measure each configuration once",
			    test_two_gpus_share_one_queue_and_measure_each_configuration_once) ||
	       !CU_add_test(s, "a GPU of another model is left out, or refused when named",
			    test_a_gpu_of_another_model_is_left_out_or_refused) ||
	       !CU_add_test(s, "bad device lists are usage errors", test_bad_device_lists_are_usage_errors) ||
	       !CU_add_test(s, "a crash on the second GPU costs its configurations only",
			    test_a_crash_on_the_second_gpu_costs_its_configurations_only) ||
	       !CU_add_test(s, "kill -9 with two GPUs, then resume, loses nothing",
			    test_kill_9_with_two_gpus_then_resume_loses_nothing) ||
	       !CU_add_test(s, "counters of all configurations in one session, on the second GPU",
			    test_counters_of_all_configurations_in_one_session_on_the_second_gpu) ||
	       !CU_add_test(s, "a build timed on a slower GPU joins its twin among the finalists",
			    test_a_build_timed_on_a_slower_gpu_joins_its_twin_among_the_finalists) ||
	       !CU_add_test(s, "the second GPU starts profiling before the first pass ends",
			    test_the_second_gpu_starts_profiling_before_the_first_pass_ends) ||
	       !CU_add_test(s, "a configuration that cannot be profiled costs its own counters only",
			    test_a_configuration_that_cannot_be_profiled_costs_its_own_counters_only) ||
	       !CU_add_test(s, "device lists are checked alone", test_device_lists_are_checked_alone) ||
	       !CU_add_test(s, "the worker path comes from the environment",
			    test_the_worker_path_comes_from_the_environment) ||
	       !CU_add_test(s, "`autotune devices` lists every GPU", test_devices_lists_every_gpu)
		       ? -1
		       : 0;
}
