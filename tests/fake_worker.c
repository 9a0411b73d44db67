/* fake_worker.c: stands in for autotune-worker in CPU tests (no GPU). It speaks the worker's
 * line protocol and times a configuration as 1 ms + blockDim.x / 1000 ms. Behaviour is steered
 * by the environment:
 *   FAKE_SLEEP_MS    sleep this long per run (so a test can kill the tuner mid-way)
 *   FAKE_GPU0_WAITS  "K N": GPU 0's first-pass checks after its K-th wait (up to 10 s, below a run's
 *                    timeout) until FAKE_LOG holds N checks of GPU 1's (so that a test of two
 *                    GPUs sees both measure, whatever the machine's speed)
 *   FAKE_ALTERNATE   N: two GPUs take the first pass's checks in turns, whatever the machine's
 *                    speed: a check ends once the other GPU logged as many (the GPU that logged
 *                    the pass's first check), or one more (the other), or FAKE_LOG holds N checks
 *                    in all (the pass's last); the queue's odd places go to one GPU, the even to
 *                    the other
 *   FAKE_CRASH_BX    on a run with this blockDim.x, die by SIGSEGV without answering
 *   FAKE_CRASH_REF_BX  the same, on a run with role "ref" only
 *   FAKE_HANG_BX     on a run with this blockDim.x, never answer
 *   FAKE_MEM_BYTES   device memory to report (default 80 GiB)
 *   FAKE_LOG         append "run BX ROLE GPU" per run command to this file
 *   FAKE_GPUS        how many GPUs it sees (default 1); each has its own UUID
 *   FAKE_OTHER_MODEL this GPU ordinal is a different model ("Other Fake GPU")
 *   FAKE_DRIVER      the driver version to report (default 13000)
 *   FAKE_METRICS     answer profiles with counters: achieved occupancy blockDim.x / 10, load
 *                    efficiency 90 + the GPU's ordinal (else: no counters)
 *   FAKE_PROFILE_FAIL_BX  the configuration with this blockDim.x cannot be profiled
 *   FAKE_EVAL_ERROR  answer fillexpr with this "eval" error (else ok; let and fillexpr are logged)
 *   FAKE_FILE_ERROR  answer fillfile with this "file" error (else ok; fillfile is logged)
 *   FAKE_WARMUP_WAITS_FOR  the warm-up (the set-up's last command) waits, up to 60 s, until this
 *                    file exists, and logs "warmup saw" or "warmup gave up" (a test makes the
 *                    file from nvcc, to show that the set-up runs while nvcc does)
 *   FAKE_ARGS_LOG    append "array IDX TYPE COUNT FILL", "scalar IDX TYPE TEXT" and, per run,
 *                    "tolerance RTOL ATOL" to this file; an element type the worker would not know
 *                    is refused as it refuses one, whether or not it is set
 * hostref loads the shared object and answers; like the worker, it calls the function later, with
 * every array NULL (a reference that touches its arrays ends the fake worker as it would a real
 * one), logging "host called": when the first run that verifies (role ref or check) has timed,
 * after answering "hostwait" (the worker joins its thread there), or, with FAKE_HOST_AT=warmup,
 * when the warm-up comes (the thread ran that long). FAKE_HOST_SLEEP_MS: the function takes
 * this long more.
 *   FAKE_SLOW_GPU    this GPU ordinal times every first-pass run 2% slower (finalist runs, role
 *                    "time", are timed alike on any GPU)
 *   FAKE_PER_MS      a configuration takes 1 + blockDim.x / FAKE_PER_MS ms (default 1000)
 *   FAKE_ODD_BX      blockDim.x values (comma-separated) whose outputs differ from the others'
 *                    (every value: 1 + blockDim.x, where the others have 1): a run with role "ref"
 *                    keeps its outputs' value, one with role "check" that differs is a wrong-result
 *                    worded as the worker words it (verdict.h)
 *   FAKE_WATTS       with "energy" before a run, answer joules: the configuration draws
 *                    FAKE_WATTS + 6400 / blockDim.x watts (bigger blocks draw less, so that the least
 *                    energy and the least time pick different winners); unset: no counter, a note
 *   FAKE_SMS         a configuration takes 1 + 64 / blockDim.x + FAKE_SMS / gridDim.x ms instead:
 *                    small blocks cost, and so do the idle SMs of too few blocks, so that the
 *                    best block size grows with the problem (instances)
 * FAKE_LOG also gets "profiles N GPU" per profiling session of N launches, and "counters GPU"
 * when asked to get its profiler ready.
 * A plan ("plan" and its "step" lines) is logged as "plan STREAMS ORDER LAUNCHES CONNECTIONS PID
 * ARGS..." with the worker's CUDA_DEVICE_MAX_CONNECTIONS ("unset" when it has none), its process
 * and each step's arguments; the run that follows times it as LAUNCHES x STREAMS of the configuration's
 * time divided by the overlap the seed predicts on a GPU of CONNECTIONS queues (8 when unset):
 * every stream breadth-first, or depth-first with a queue each; else depth-first, as many streams
 * as there are queues. It answers its serial time (without overlap) first. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "elem.h"
#include "protocol.h"
#include "stats.h"
#include "verdict.h"

/* "energy" came: the next run answers joules */
static int energy_next;

static long env_long(const char *name, long dflt)
{
	const char *v = getenv(name);
	return v && *v ? strtol(v, NULL, 10) : dflt;
}

/* one line appended to the file named by the environment variable `var`, when set */
static void append_v(const char *var, const char *fmt, va_list ap)
{
	const char *log = getenv(var);
	FILE *f = log ? fopen(log, "a") : NULL;
	if (!f)
		return;
	vfprintf(f, fmt, ap);
	fclose(f);
}

/* one line appended to FAKE_LOG, when set */
static void log_line(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	append_v("FAKE_LOG", fmt, ap);
	va_end(ap);
}

/* FAKE_WARMUP_WAITS_FOR: polls for the file, 10 ms at a time, up to 60 s. */
static void warm_up_waits(void)
{
	const char *path = getenv("FAKE_WARMUP_WAITS_FOR");
	if (!path || !*path)
		return;
	for (int i = 0; i < 6000 && access(path, F_OK) != 0; i++)
		nanosleep(&(struct timespec){0, 10000000}, NULL);
	log_line("warmup %s %s\n", access(path, F_OK) == 0 ? "saw" : "gave up on", path);
}

/* one line appended to FAKE_ARGS_LOG, when set */
static void args_log(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	append_v("FAKE_ARGS_LOG", fmt, ap);
	va_end(ap);
}

/* Writes one reply; NULL msg for a message without fields. */
static void reply(const proto_msg *m, const void *msg)
{
	char *line = proto_encode(m, msg);
	if (!line)
		exit(1);
	puts(line);
	free(line);
}

static void error_reply(const char *code, const char *message) { reply(&PROTO_ERROR, &(proto_error){code, message}); }

/* An array or scalar command's element type, logged; 1 when the worker would not know it (the
 * error answered, as the worker answers it). */
static int unknown_type(const char *line)
{
	char *copy = strdup(line);
	proto_array arr;
	proto_scalar sc;
	elem_type t;
	int bad = 0;
	if (copy && proto_decode(&PROTO_ARRAY, copy, &arr) == 0) {
		args_log("array %lld %s %llu %s\n", arr.idx, arr.type, arr.count, arr.fill);
		if ((bad = elem_parse(arr.type, &t) != 0))
			error_reply("protocol", "bad array command");
	}
	free(copy);
	copy = strdup(line);
	if (copy && proto_decode(&PROTO_SCALAR, copy, &sc) == 0) {
		args_log("scalar %lld %s %s\n", sc.idx, sc.type, sc.text);
		if ((bad = elem_parse(sc.type, &t) != 0))
			error_reply("protocol", "bad scalar command");
	}
	free(copy);
	return bad;
}

/* verify.host's function, loaded by hostref and not yet called (NULL: none) */
static void (*host_fn)(void **);
static void *host_so;

/* hostref: the shared object's function, loaded */
static void load_host(const char *path)
{
	void *so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	void (*fn)(void **) = NULL;
	if (so)
		*(void **)&fn = dlsym(so, PROTO_HOSTREF_SYMBOL);
	if (!fn) {
		error_reply("host", dlerror());
		return;
	}
	host_fn = fn;
	host_so = so;
	reply(&PROTO_OK, NULL);
}

/* The loaded function, called on NULL arrays, when `at` is when FAKE_HOST_AT says ("run" unset). */
static void call_host(const char *at)
{
	const char *when = getenv("FAKE_HOST_AT");
	if (!host_fn || strcmp(at, when && *when ? when : "run"))
		return;
	if (!strcmp(at, "run"))
		reply(&PROTO_HOSTWAIT, NULL);
	log_line("host called\n");
	long ms = env_long("FAKE_HOST_SLEEP_MS", 0);
	nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL);
	void *arrays[64] = {0};
	host_fn(arrays);
	dlclose(host_so);
	host_fn = NULL;
}

/* Answers "profiles": counters or why not, per queued launch. */
static void profiles(const unsigned *queued, int n, int gpu, int decide_only)
{
	log_line("profiles %d %d\n", n, gpu);
	for (int i = 0; i < n; i++) {
		char why[64];
		snprintf(why, sizeof why, "blockDim.x %u cannot be profiled", queued[i]);
		if (!getenv("FAKE_METRICS"))
			reply(&PROTO_UNAVAILABLE, &(proto_unavailable){"the fake worker has no counters"});
		else if ((long)queued[i] == env_long("FAKE_PROFILE_FAIL_BX", -1))
			reply(&PROTO_UNAVAILABLE, &(proto_unavailable){why});
		else
			reply(&PROTO_METRICS, &(proto_metrics){0, {queued[i] / 10.0, 90 + gpu, decide_only ? NAN : 100,
								   decide_only ? NAN : 50, NAN}});
	}
}

/* The plan the next run executes: streams, order, steps (0: none). */
static struct {
	long long streams, steps, got;
	int breadth;
	char args[512];
} plan;

/* The CUDA_DEVICE_MAX_CONNECTIONS this worker was started with, 0 when unset. */
static long connections(void) { return env_long("CUDA_DEVICE_MAX_CONNECTIONS", 0); }

/* A plan's time relative to its serial time: 1 / the streams that overlap. */
static double plan_share(void)
{
	long conns = connections() ? connections() : 8;
	long long overlap = plan.breadth || plan.streams <= conns ? plan.streams : conns;
	return 1.0 / (double)overlap;
}

/* The first output array (its index, name and count), and the value of the reference's outputs
 * (FAKE_ODD_BX; 0: no reference run yet). */
static struct {
	long long idx;
	char name[64];
	unsigned long long count;
	double held;
} out = {-1, "", 0, 0};

/* The value every element of a configuration's outputs gets: FAKE_ODD_BX's differ. */
static double output_value(long long bx)
{
	const char *odd = getenv("FAKE_ODD_BX");
	for (const char *p = odd; p && *p; p += strcspn(p, ","), p += *p == ',')
		if (strtoll(p, NULL, 10) == bx)
			return 1.0 + (double)bx;
	return 1.0;
}

/* A run's outputs against the reference's (role check): 1 and a wrong-result answered when they
 * differ, as the worker words it. */
static int wrong_result(const proto_run *ask, proto_role role)
{
	double v = output_value(ask->launch.block[0]);
	if (role == PROTO_ROLE_REF)
		out.held = v;
	if (role != PROTO_ROLE_CHECK || out.idx < 0 || !out.held || v == out.held)
		return 0;
	char msg[512], got[32], want[32];
	snprintf(got, sizeof got, "%g", v);
	snprintf(want, sizeof want, "%g", out.held);
	verdict vd = {.arg = (int)out.idx, .name = out.name[0] ? out.name : NULL, .is_float = 1, .lanes = 1, .n = out.count,
		      .stride = 1, .bad = out.count, .first = 0, .last = out.count - 1, .finite_error = 1,
		      .max_abs = fabs(v - out.held), .max_rel = fabs(v - out.held) / out.held, .argmax = 0, .got_at = got,
		      .want_at = want};
	verdict_text(&vd, msg, sizeof msg);
	reply(&PROTO_RESULT, &(proto_result){.id = ask->id, .status = "wrong-result", .driver_blocks = 8, .message = msg});
	return 1;
}

/* FAKE_GPU0_WAITS: on GPU 0, after K checks, polls FAKE_LOG until it has N checks of GPU 1. */
static void gpu0_waits(int gpu, proto_role role)
{
	static long runs;
	long k, n;
	const char *spec = getenv("FAKE_GPU0_WAITS"), *log = getenv("FAKE_LOG");
	if (gpu != 0 || role != PROTO_ROLE_CHECK || !spec || !log || sscanf(spec, "%ld %ld", &k, &n) != 2 || ++runs <= k)
		return;
	for (int i = 0; i < 1000; i++) {
		FILE *f = fopen(log, "r");
		char line[256];
		long seen = 0;
		long long bx;
		char role_word[16];
		int g;
		while (f && fgets(line, sizeof line, f))
			seen += sscanf(line, "run %lld %15s %d", &bx, role_word, &g) == 3 && g == 1 && !strcmp(role_word, "check");
		if (f)
			fclose(f);
		if (seen >= n)
			return;
		nanosleep(&(struct timespec){0, 10000000}, NULL);
	}
}

/* FAKE_ALTERNATE: holds a check on GPU gpu (0 or 1) until its turn is over (up to 10 s). */
static void alternate(int gpu, proto_role role)
{
	long all = env_long("FAKE_ALTERNATE", 0);
	const char *log = getenv("FAKE_LOG");
	if (!all || gpu > 1 || role != PROTO_ROLE_CHECK || !log)
		return;
	for (int i = 0; i < 1000; i++) {
		FILE *f = fopen(log, "r");
		char line[256], role_word[16];
		long n[2] = {0, 0};
		int first = -1, g;
		long long bx;
		while (f && fgets(line, sizeof line, f))
			if (sscanf(line, "run %lld %15s %d", &bx, role_word, &g) == 3 && !strcmp(role_word, "check") &&
			    (g == 0 || g == 1)) {
				n[g]++;
				if (first < 0)
					first = g;
			}
		if (f)
			fclose(f);
		if (n[0] + n[1] >= all || n[1 - gpu] >= n[gpu] + (gpu != first))
			return;
		nanosleep(&(struct timespec){0, 10000000}, NULL);
	}
}

/* Answers "run": steered by FAKE_SLEEP_MS, FAKE_GPU0_WAITS, FAKE_ALTERNATE, FAKE_CRASH_BX, FAKE_HANG_BX, FAKE_SLOW_GPU
 * and FAKE_ODD_BX. */
static void run(const proto_run *ask, int gpu)
{
	long long bx = ask->launch.block[0];
	proto_role role;
	if (proto_role_parse(ask->role, &role)) {
		error_reply("protocol", "bad run command"); /* as the worker: a role it does not know is no timing */
		return;
	}
	log_line("run %lld %s %d\n", bx, ask->role, gpu);
	gpu0_waits(gpu, role);
	alternate(gpu, role);
	long ms = env_long("FAKE_SLEEP_MS", 0);
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
	if (bx == env_long("FAKE_CRASH_BX", -1) || (bx == env_long("FAKE_CRASH_REF_BX", -1) && role == PROTO_ROLE_REF))
		raise(SIGSEGV);
	if (bx == env_long("FAKE_HANG_BX", -1))
		for (;;)
			pause();
	if (role != PROTO_ROLE_TIME)
		call_host("run");
	if (wrong_result(ask, role))
		return;
	long sms = env_long("FAKE_SMS", 0);
	double t = (sms ? 1.0 + 64.0 / (double)bx + (double)sms / (double)ask->launch.grid[0]
			: 1.0 + (double)bx / env_long("FAKE_PER_MS", 1000)) *
		   (gpu == env_long("FAKE_SLOW_GPU", -1) && role != PROTO_ROLE_TIME ? 1.02 : 1);
	if (energy_next) {
		/* like the worker: after the samples, before the result */
		double w = (double)env_long("FAKE_WATTS", 0) + 6400.0 / (double)bx;
		if (getenv("FAKE_WATTS"))
			reply(&PROTO_JOULES, &(proto_joules){w * t * 1e-3, w, ""});
		else
			reply(&PROTO_JOULES, &(proto_joules){-1, -1, "no energy counter: NVML (libnvidia-ml.so.1) cannot be loaded"});
		log_line("energy %lld\n", bx);
		energy_next = 0;
	}
	if (plan.steps) {
		double serial = t * (double)(plan.steps * plan.streams);
		t = serial * plan_share();
		reply(&PROTO_SERIAL, &(proto_serial){serial});
		plan.steps = 0;
	}
	/* the worker's stopping rule on samples whose fastest is t * 0.99: the minimum, raced out,
	 * or the time cap, each sample taking FAKE_SAMPLE_MS of (pretended) time */
	stop_rule rule = proto_run_rule(ask);
	rule.noise_target = 0; /* the fake's samples have no noise to wait for */
	double sample_s = (double)env_long("FAKE_SAMPLE_MS", 0) / 1000;
	long long n = 0;
	while (!stats_should_stop(&rule, (size_t)n, 0, (double)n * sample_s, n ? t * 0.99 : 1e300))
		n++;
	char note[160] = "";
	if (n < ask->min_samples && (double)n * sample_s >= ask->time_cap && !stats_raced_out(&rule, (size_t)n, t * 0.99))
		snprintf(note, sizeof note, "%s after %.1f s: %lld of min_samples %lld samples", STATS_CAPPED,
			 (double)n * sample_s, n, ask->min_samples);
	proto_result res = {.id = ask->id, .status = "ok", .median = t, .min = t * 0.99, .max = t * 1.01, .samples = n,
			    .driver_blocks = 8, .noise = 0.001, .batch = 1, .mhz_before = 1980, .mhz_after = 1980, .message = note};
	reply(&PROTO_RESULT, &res);
}

int main(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int gpu = 0;
	unsigned queued[256];
	int nqueued = 0, decide_only = 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* the set-up commands it accepts without looking further */
	const proto_msg *const accepted[] = {&PROTO_MEASURE, &PROTO_ARRAY, &PROTO_CONSTANT, &PROTO_SUMCHECK};
	while ((n = getline(&line, &cap, stdin)) > 0) {
		line[strcspn(line, "\n")] = 0;
		proto_device dev;
		proto_profile prof;
		proto_counters ctr;
		proto_let let;
		proto_copy copy;
		proto_fillexpr fill;
		proto_fillfile file;
		proto_hostref host;
		proto_run ask;
		proto_plan pl;
		proto_step st;
		proto_array arr;
		int setup = 0;
		for (size_t i = 0; i < sizeof accepted / sizeof *accepted; i++)
			setup |= proto_is(accepted[i], line);
		if ((proto_is(&PROTO_ARRAY, line) || proto_is(&PROTO_SCALAR, line)) && unknown_type(line))
			continue;
		if (proto_is(&PROTO_ARRAY, line) && out.idx < 0) {
			char *copy = strdup(line);
			if (copy && proto_decode(&PROTO_ARRAY, copy, &arr) == 0 && arr.output) {
				out.idx = arr.idx;
				out.count = arr.count;
				snprintf(out.name, sizeof out.name, "%s", arr.name ? arr.name : "");
			}
			free(copy);
		}
		if (proto_decode(&PROTO_DEVICE, line, &dev) == 0) {
			gpu = (int)dev.ordinal;
			if (gpu >= env_long("FAKE_GPUS", 1)) {
				error_reply("CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal");
				break;
			}
			char uuid[40], name[64];
			snprintf(uuid, sizeof uuid, "00112233445566778899aabbccddee%02x", gpu & 0xff);
			snprintf(name, sizeof name, "%sFake GPU", gpu == env_long("FAKE_OTHER_MODEL", -1) ? "Other " : "");
			proto_device_info info = {.cc = 90, .sms = 132, .l2_bytes = 52428800,
						  .mem_bytes = (unsigned long long)env_long("FAKE_MEM_BYTES", 80LL << 30),
						  .clock_khz = 1980000, .driver_version = (int)env_long("FAKE_DRIVER", 13000),
						  .uuid = uuid, .name = name};
			reply(&PROTO_DEVICE_INFO, &info);
		} else if (proto_decode(&PROTO_COPY, line, &copy) == 0) {
			log_line("copy %lld %lld\n", copy.to, copy.from);
			reply(&PROTO_OK, NULL);
		} else if (proto_decode(&PROTO_LET, line, &let) == 0) {
			log_line("let %s %s %s\n", let.name, let.kind, let.value);
			reply(&PROTO_OK, NULL);
		} else if (proto_decode(&PROTO_FILLEXPR, line, &fill) == 0) {
			log_line("fillexpr %lld %s %s\n", fill.idx, fill.role, fill.expr);
			if (getenv("FAKE_EVAL_ERROR"))
				error_reply("eval", getenv("FAKE_EVAL_ERROR"));
			else
				reply(&PROTO_OK, NULL);
		} else if (proto_decode(&PROTO_FILLFILE, line, &file) == 0) {
			log_line("fillfile %lld %s %llu %s\n", file.idx, file.role, file.offset, file.path);
			if (getenv("FAKE_FILE_ERROR"))
				error_reply("file", getenv("FAKE_FILE_ERROR"));
			else
				reply(&PROTO_OK, NULL);
		} else if (proto_decode(&PROTO_HOSTREF, line, &host) == 0) {
			log_line("hostref %s\n", host.path);
			load_host(host.path);
		} else if (proto_decode(&PROTO_PLAN, line, &pl) == 0) {
			plan.streams = pl.streams;
			plan.steps = pl.launches;
			plan.got = 0;
			plan.breadth = !strcmp(pl.order, "breadth");
			plan.args[0] = 0;
		} else if (proto_decode(&PROTO_STEP, line, &st) == 0) {
			size_t used = strlen(plan.args);
			snprintf(plan.args + used, sizeof plan.args - used, " %s", st.args);
			if (++plan.got == plan.steps)
				log_line("plan %lld %s %lld %s %ld%s\n", plan.streams, plan.breadth ? "breadth" : "depth", plan.steps,
					 getenv("CUDA_DEVICE_MAX_CONNECTIONS") ? getenv("CUDA_DEVICE_MAX_CONNECTIONS") : "unset",
					 (long)getpid(), plan.args);
		} else if (proto_is(&PROTO_ENERGY, line))
			energy_next = 1;
		else if (proto_is(&PROTO_COUNT_ASK, line))
			reply(&PROTO_COUNT, &(proto_count){env_long("FAKE_GPUS", 1)});
		else if (setup)
			reply(&PROTO_OK, NULL);
		else if (proto_decode(&PROTO_COUNTERS, line, &ctr) == 0) {
			log_line("counters %d %s\n", gpu, ctr.set);
			decide_only = !strcmp(ctr.set, "decide");
			reply(&PROTO_OK, NULL);
		} else if (proto_is(&PROTO_WARMUP, line)) {
			warm_up_waits();
			call_host("warmup");
			reply(&PROTO_WARM, &(proto_warm){1980, 1980});
		}
		else if (proto_is(&PROTO_COPYBW_ASK, line))
			reply(&PROTO_COPYBW, &(proto_copybw){3000.0});
		else if (proto_is(&PROTO_SCALAR, line) || proto_is(&PROTO_SUMCOUNT, line))
			continue;
		else if (proto_decode(&PROTO_PROFILE, line, &prof) == 0) {
			if (nqueued < 256)
				queued[nqueued++] = (unsigned)prof.launch.block[0];
		} else if (proto_is(&PROTO_PROFILES, line)) {
			profiles(queued, nqueued, gpu, decide_only);
			nqueued = 0;
		} else if (proto_decode(&PROTO_RUN, line, &ask) == 0) {
			args_log("tolerance %g %g\n", ask.rtol, ask.atol);
			run(&ask, gpu);
		}
		else if (proto_is(&PROTO_QUIT, line))
			break;
		else
			error_reply("protocol", "unknown command");
	}
	free(line);
	return 0;
}
