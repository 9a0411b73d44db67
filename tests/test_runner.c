/* test_runner.c: the tuner's side of the GPU worker (runner.c), through tests/fake_worker.c, which
 * times a configuration as 1 ms + blockDim.x / 1000 ms: a worker starts and describes its GPU, a
 * measurement is what the worker timed, a crash is ST_CRASHED and a hang a timeout (each costing
 * its configuration only, the next one on a fresh worker with the reference restored), a worker
 * stopped from outside leaves its configuration not run, arrays that do not fit are refused, and
 * the counters of a profiling session go to the configurations they belong to. */
#include <CUnit/CUnit.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "proc.h"
#include "runner.h"
#include "space.h"
#include "tests.h"

#define WORKER "build/fake_worker"

static config cfg;
static space sp;
static result geometry[8];
static char runs_log[128];

/* bx of 32, 64, 96, 128, 160 over one array of 1024 floats and a scalar */
static int setup(void)
{
	diags d = {0};
	/* config_load_text asserts, and there is no test to assert in yet */
	const char *path = write_temp(7, "runner.yaml", config_with_line(11, "  bx: [32, 64, 96, 128, 160]"));
	int rc = config_load(path, &cfg, &d) || space_enumerate(&cfg, &sp, &d) || space_eval_geometry(&cfg, &sp, geometry, &d);
	diags_print(&d);
	diags_free(&d);
	snprintf(runs_log, sizeof runs_log, "%s/runner-runs.log", test_dir);
	return rc ? -1 : 0;
}

static int teardown(void)
{
	space_free(&sp);
	config_free(&cfg);
	return fake_worker_forget();
}

/* The fake worker's knobs for the next worker started: name=value pairs, NULL-terminated. */
static void knobs(const char *const *pairs)
{
	fake_worker_forget();
	unlink(runs_log);
	setenv("FAKE_LOG", runs_log, 1);
	for (; pairs && pairs[0]; pairs += 2)
		setenv(pairs[0], pairs[1], 1);
}

static const sample_plan plan = {.warmup = 1,
				 .rule = {.min_samples = 10, .max_samples = 10, .time_cap_s = 1.0, .noise_target = 0.01}};

/* Measures configuration c (its bx is 32 * (c + 1)) in role; the result, its message owned. */
static result measure(runner *r, size_t c, proto_role role, double timeout_s, int *rc)
{
	binary bin = {0};
	bin.cubin = "unused.cubin";
	bin.res.symbol = "k";
	result res = geometry[c];
	res.message = NULL;
	diags d = {0};
	*rc = runner_measure(r, &cfg, space_config(&sp, c), role, &bin, &plan, &res, timeout_s, &d);
	diags_free(&d);
	return res;
}

static runner *start(int ordinal, device_info *info)
{
	diags d = {0};
	runner *r = runner_start(WORKER, ordinal, &cfg, info, NULL, &d);
	if (!r)
		diags_print(&d);
	diags_free(&d);
	return r;
}

static void test_a_worker_describes_its_gpu(void)
{
	const char *const two[] = {"FAKE_GPUS", "2", NULL};
	knobs(two);
	device_info info;
	runner *r = start(1, &info);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_STRING_EQUAL(info.name, "Fake GPU");
	CU_ASSERT_STRING_EQUAL(info.uuid, "00112233445566778899aabbccddee01"); /* the second GPU's */
	CU_ASSERT_EQUAL(info.cc, 90);
	CU_ASSERT_EQUAL(info.mem_bytes, 80ull << 30);
	CU_ASSERT_EQUAL(runner_device_count(r), 2);
	CU_ASSERT_DOUBLE_EQUAL(runner_copy_bandwidth(r), 3000.0, 0);
	runner_stop(r);
}

/* What the worker timed, its samples and clocks: the fake's 1 ms + bx / 1000 ms. */
static void test_a_measurement_is_what_the_worker_timed(void)
{
	knobs(NULL);
	runner *r = start(0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	int rc;
	result res = measure(r, 1, PROTO_ROLE_REF, 10, &rc);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(res.st, ST_OK);
	double t = 1.0 + 64 / 1000.0;
	CU_ASSERT_DOUBLE_EQUAL(res.t_median, t, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(res.t_min, 0.99 * t, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(res.t_max, 1.01 * t, 1e-9);
	CU_ASSERT_EQUAL(res.samples, 10);
	CU_ASSERT_EQUAL(res.batch, 1);
	CU_ASSERT_DOUBLE_EQUAL(res.mhz_before, 1980, 0);
	free(res.message);
	runner_stop(r);
	CU_ASSERT_EQUAL(count_in(runs_log, "run 64 ref 0"), 1);
}

/* A kernel that kills its worker costs that configuration: ST_CRASHED with the signal named; the
 * next one runs on a new worker, which first takes the reference's outputs again. */
static void test_a_crash_is_crashed_and_the_next_gets_a_new_worker(void)
{
	const char *const crash[] = {"FAKE_CRASH_BX", "96", NULL};
	knobs(crash);
	runner *r = start(0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	int rc;
	result ref = measure(r, 0, PROTO_ROLE_REF, 10, &rc), bad = measure(r, 2, PROTO_ROLE_CHECK, 10, &rc);
	CU_ASSERT_EQUAL(ref.st, ST_OK);
	CU_ASSERT_EQUAL(bad.st, ST_CRASHED);
	CU_ASSERT_PTR_NOT_NULL(bad.message ? strstr(bad.message, "the GPU worker was killed by signal 11") : NULL);
	result next = measure(r, 1, PROTO_ROLE_CHECK, 10, &rc);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(next.st, ST_OK);
	CU_ASSERT_DOUBLE_EQUAL(next.t_median, 1.064, 1e-9);
	free(ref.message);
	free(bad.message);
	free(next.message);
	runner_stop(r);
	/* the reference ran twice: once measured, once to restore its outputs on the new worker */
	CU_ASSERT_EQUAL(count_in(runs_log, "run 32 ref"), 2);
	CU_ASSERT_EQUAL(count_in(runs_log, "run "), 4);
}

/* A kernel that never returns is killed after the timeout: ST_TIMEOUT, and the run goes on. */
static void test_a_hang_is_a_timeout(void)
{
	const char *const hang[] = {"FAKE_HANG_BX", "160", NULL};
	knobs(hang);
	runner *r = start(0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	int rc;
	result ref = measure(r, 0, PROTO_ROLE_REF, 10, &rc);
	double t0 = now_seconds();
	result hung = measure(r, 4, PROTO_ROLE_CHECK, 0.5, &rc);
	double took = now_seconds() - t0;
	CU_ASSERT_EQUAL(hung.st, ST_TIMEOUT);
	CU_ASSERT_STRING_EQUAL(hung.message, "killed after 0.5 s");
	CU_ASSERT(took >= 0.5 && took < 5);
	result next = measure(r, 3, PROTO_ROLE_CHECK, 10, &rc);
	CU_ASSERT_EQUAL(next.st, ST_OK);
	free(ref.message);
	free(hung.message);
	free(next.message);
	runner_stop(r);
}

typedef struct {
	int sig;
	pid_t worker;
} stopper;

/* Sends sig to this process's fake_worker once it is running the slow configuration. */
static void *stop_worker(void *arg)
{
	stopper *s = arg;
	double t0 = now_seconds();
	while (now_seconds() - t0 < 10 && count_in(runs_log, "run 64 check") < 1)
		nap();
	s->worker = child_named(getpid(), "fake_worker");
	if (s->worker > 0)
		kill(s->worker, s->sig);
	return NULL;
}

/* A worker stopped from outside (SIGTERM: a batch system's time limit) says nothing about the
 * kernel: that configuration is not run, to be measured again. SIGKILL is no such stop: crashed. */
static void test_a_worker_stopped_from_outside_leaves_it_not_run(void)
{
	const int sigs[] = {SIGTERM, SIGKILL};
	const status want[] = {ST_NOT_RUN, ST_CRASHED};
	for (int i = 0; i < 2; i++) {
		const char *const slow[] = {"FAKE_SLEEP_MS", "1000", NULL};
		knobs(slow);
		runner *r = start(0, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		int rc;
		result ref = measure(r, 0, PROTO_ROLE_REF, 10, &rc);
		stopper s = {sigs[i], 0};
		pthread_t th;
		pthread_create(&th, NULL, stop_worker, &s);
		result res = measure(r, 1, PROTO_ROLE_CHECK, 30, &rc);
		pthread_join(th, NULL);
		CU_ASSERT(s.worker > 0);
		CU_ASSERT_EQUAL(res.st, want[i]);
		free(ref.message);
		free(res.message);
		runner_stop(r);
	}
}

/* The arrays must fit the device's memory, outputs counted twice (this run's and the
 * reference's): 1024 floats are 4 KiB, 8 KiB as an output. */
static void test_arrays_that_do_not_fit_are_refused(void)
{
	const char *const small[] = {"FAKE_MEM_BYTES", "6000", NULL};
	knobs(small);
	config out;
	char *first;
	CU_ASSERT_EQUAL_FATAL(
		config_load_text(config_with_line(8, "  - {name: a, type: float, count: n, output: true}"), &out, &first), 0);
	const config *both[] = {&cfg, &out};
	for (int i = 0; i < 2; i++) {
		diags d = {0};
		device_info info;
		runner *r = runner_start(WORKER, 0, NULL, &info, NULL, &d);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		int rc = runner_prepare(r, both[i], &info, 0, &d);
		CU_ASSERT_EQUAL(rc, i ? -1 : 0);
		if (i) {
			CU_ASSERT_EQUAL_FATAL(d.n, 1);
			CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "the kernel's arrays need 0.00 GiB of device memory (outputs and "
								 "restored inputs twice), but Fake GPU has 0.00 GiB"));
		}
		diags_free(&d);
		runner_stop(r);
	}
	config_free(&out);
}

/* No GPU of that number, or a worker that dies before it answers: no runner, and why. */
static void test_no_gpu_no_runner(void)
{
	knobs(NULL);
	diags d = {0};
	CU_ASSERT_PTR_NULL(runner_start(WORKER, 1, NULL, NULL, NULL, &d));
	CU_ASSERT_PTR_NULL(runner_start("/bin/false", 0, NULL, NULL, NULL, &d));
	CU_ASSERT_EQUAL_FATAL(d.n, 2);
	CU_ASSERT_STRING_EQUAL(d.msgs[0], "no usable GPU: CUDA_ERROR_INVALID_DEVICE invalid device ordinal");
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[1], "the GPU worker exited with status 1 before opening the device"));
	diags_free(&d);
}

/* One session for several configurations: each gets its own counters (the fake's occupancy is
 * bx / 10), or its own reason when it has none. */
static void test_counters_go_to_their_configurations(void)
{
	const char *const metrics[] = {"FAKE_METRICS", "1", "FAKE_PROFILE_FAIL_BX", "64", NULL};
	knobs(metrics);
	runner *r = start(0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	binary bin = {0};
	bin.cubin = "unused.cubin";
	bin.res.symbol = "k";
	result res[3];
	const value *params[3];
	const binary *bins[3];
	result *rp[3];
	char *why[3];
	for (size_t i = 0; i < 3; i++) {
		res[i] = geometry[i];
		params[i] = space_config(&sp, i);
		bins[i] = &bin;
		rp[i] = &res[i];
	}
	diags d = {0};
	CU_ASSERT_EQUAL(runner_profile(r, &cfg, 3, params, bins, rp, 10, why, &d), 0);
	for (size_t i = 0; i < 3; i++) {
		long long bx = 32 * (long long)(i + 1);
		if (bx == 64) {
			CU_ASSERT(!res[i].have_metrics);
			CU_ASSERT_STRING_EQUAL(why[i], "blockDim.x 64 cannot be profiled");
		} else {
			CU_ASSERT(res[i].have_metrics);
			CU_ASSERT_PTR_NULL(why[i]);
			CU_ASSERT_DOUBLE_EQUAL(res[i].metrics[METRIC_ACHIEVED_OCCUPANCY], bx / 10.0, 1e-9);
			CU_ASSERT_DOUBLE_EQUAL(res[i].metrics[METRIC_GLD_EFFICIENCY], 90, 0);
		}
		free(why[i]);
	}
	runner_stop(r);
	CU_ASSERT_EQUAL(count_in(runs_log, "profiles 3 0"), 1);
	diags_free(&d);
}

/* A plan of two launches in 4 streams, depth-first, on workers of 1 or 8 connections. */
static const char *const plan_text =
	"name: rp\nkernel: {source: /dev/null}\nconstants: {n: 1024}\n"
	"arguments:\n  - {name: a, type: float, count: n, output: true}\n  - {name: n, type: int32, value: n}\n"
	"space: {bx: [32, 64], C: [1, 8]}\nlaunch: {block: [bx], grid: [\"n / bx\"]}\n"
	"plan: {streams: 4, order: depth-first, connections: C, launches: [k1, {entry: k2, args: [n, a]}]}\n";

/* The fake worker's log of the plans it ran: their connections and the worker's pid, in order. */
static int plans_logged(char conns[][16], long *pids, char args[][64], int max)
{
	FILE *f = fopen(runs_log, "r");
	char line[512];
	int n = 0;
	while (f && n < max && fgets(line, sizeof line, f))
		if (sscanf(line, "plan 4 depth 2 %15s %ld %63[^\n]", conns[n], &pids[n], args[n]) == 3)
			n++;
	if (f)
		fclose(f);
	return n;
}

/* Each configuration runs on a worker started with its plan's CUDA_DEVICE_MAX_CONNECTIONS; a
 * worker left for another value is kept and taken again (the reference's outputs replayed on a
 * new one), and the plan's serial time comes back with its result. */
static void test_a_plan_runs_on_a_worker_of_its_connections(void)
{
	knobs(NULL);
	config pc;
	space ps;
	result pg[4];
	memset(pg, 0, sizeof pg);
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(config_load(write_temp(6, "rp.yaml", plan_text), &pc, &d), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&pc, &ps, &d) || space_eval_geometry(&pc, &ps, pg, &d), 0);
	runner *r = runner_start(WORKER, 0, &pc, NULL, NULL, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	kernel_resources kr[2] = {{.symbol = "k1"}, {.symbol = "k2"}};
	binary bin = {0};
	bin.cubin = "unused.cubin";
	bin.res.symbol = "k1";
	bin.plan_res = kr;
	bin.nplan = 2;
	/* bx=32 C=1, bx=32 C=8, bx=64 C=1, bx=64 C=8 */
	const proto_role roles[4] = {PROTO_ROLE_REF, PROTO_ROLE_CHECK, PROTO_ROLE_CHECK, PROTO_ROLE_CHECK};
	const int conns[4] = {1, 8, 1, 8};
	for (size_t c = 0; c < 4; c++) {
		result res = pg[c];
		res.message = NULL;
		CU_ASSERT_EQUAL(runner_measure(r, &pc, space_config(&ps, c), roles[c], &bin, &plan, &res, 10, &d), 0);
		CU_ASSERT_EQUAL(res.st, ST_OK);
		/* the fake's: serial 2 launches x 4 streams x t; depth-first overlaps all 4 streams only
		 * with a queue each */
		double t = 1 + (c < 2 ? 32 : 64) / 1000.0;
		CU_ASSERT_DOUBLE_EQUAL(res.serial_ms, 8 * t, 1e-6);
		CU_ASSERT_DOUBLE_EQUAL(result_concurrency(&res), conns[c] == 8 ? 4 : 1, 1e-6);
		free(res.message);
	}
	runner_stop(r);
	char got[8][16], args[8][64];
	long pid[8];
	/* the reference on 1; on the new worker of 8 the reference again, then its own; back to the
	 * worker of 1 (which holds the reference), and to that of 8 */
	CU_ASSERT_EQUAL_FATAL(plans_logged(got, pid, args, 8), 5);
	static const char *const want[5] = {"1", "8", "8", "1", "8"};
	for (int i = 0; i < 5; i++) {
		CU_ASSERT_STRING_EQUAL(got[i], want[i]);
		CU_ASSERT_STRING_EQUAL(args[i], "0,1 1,0");
	}
	CU_ASSERT(pid[0] != pid[1] && pid[1] == pid[2] && pid[3] == pid[0] && pid[4] == pid[1]);
	CU_ASSERT_EQUAL(count_in(runs_log, "ref 0"), 2);
	diags_free(&d);
	space_free(&ps);
	config_free(&pc);
}

/* A worker's log that a printing kernel floods keeps its first and last part, with a line that
 * says how much was left out; a short one is left as it is. */
static void test_a_flooded_worker_log_keeps_its_ends(void)
{
	char path[128];
	snprintf(path, sizeof path, "%s/flood.worker.log", test_dir);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("FIRST LINE\n", f);
	for (int i = 0; i < 200000; i++)
		fprintf(f, "thread %d says hello\n", i);
	fputs("LAST LINE\n", f);
	fclose(f);
	runner_trim_log(path, 64 << 10, 16 << 10);
	char *text = read_text(path); /* its first 64 KiB */
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT(!strncmp(text, "FIRST LINE\n", 11));
	free(text);
	struct stat st;
	CU_ASSERT_EQUAL_FATAL(stat(path, &st), 0);
	CU_ASSERT(st.st_size < (80 << 10) + 200);
	FILE *g = fopen(path, "r");
	char tail[64 << 10];
	fseek(g, st.st_size - (32 << 10), SEEK_SET);
	size_t n = fread(tail, 1, sizeof tail - 1, g);
	tail[n] = 0;
	fclose(g);
	CU_ASSERT_PTR_NOT_NULL(strstr(tail, "bytes of the worker's output left out here]"));
	CU_ASSERT(n > 10 && !strcmp(tail + n - 10, "LAST LINE\n"));
	/* short: untouched */
	put_file(path, "a line\n");
	runner_trim_log(path, 64 << 10, 16 << 10);
	text = read_text(path);
	CU_ASSERT_STRING_EQUAL(text, "a line\n");
	free(text);
	unlink(path);
}

int add_runner_suite(void)
{
	CU_pSuite s = CU_add_suite("runner", setup, teardown);
	if (!s)
		return -1;
	CU_add_test(s, "a worker describes its GPU", test_a_worker_describes_its_gpu);
	CU_add_test(s, "a measurement is what the worker timed", test_a_measurement_is_what_the_worker_timed);
	CU_add_test(s, "a crash is crashed and the next gets a new worker", test_a_crash_is_crashed_and_the_next_gets_a_new_worker);
	CU_add_test(s, "a hang is a timeout", test_a_hang_is_a_timeout);
	CU_add_test(s, "a worker stopped from outside leaves it not run", test_a_worker_stopped_from_outside_leaves_it_not_run);
	CU_add_test(s, "arrays that do not fit are refused", test_arrays_that_do_not_fit_are_refused);
	CU_add_test(s, "no GPU, no runner", test_no_gpu_no_runner);
	CU_add_test(s, "counters go to their configurations", test_counters_go_to_their_configurations);
	CU_add_test(s, "a plan runs on a worker of its connections", test_a_plan_runs_on_a_worker_of_its_connections);
	CU_add_test(s, "a flooded worker log keeps its ends", test_a_flooded_worker_log_keeps_its_ends);
	return 0;
}
