/* test_hostref.c: verify.host (hostref.c, config_data.c, the worker's hostref line). The
 * generated caller passes the kernel's arguments in order, scalars exactly, and the host compiler
 * checks the call against the user's prototype; a reference that does not take the arguments is
 * an error at verify.host, before any worker starts; what cannot work (a scalar that depends on
 * the configuration, a reference run beside it, nothing left to give) is refused at load; a
 * reference that crashes its worker is said at verify.host; the spec hash follows its source. */
#define _GNU_SOURCE /* dlsym into a function pointer, as POSIX allows */
#include <CUnit/CUnit.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "hostref.h"
#include "proc.h"
#include "tests.h"

#define DIR "scratch/hostref"

/* A config of out = f(in, n, s) with the host reference `host` (the value of verify.host) and
 * `extra` verify keys, at DIR/h.yaml; its path. Line 9 is verify. */
static const char *host_config(const char *host, const char *extra)
{
	static const char path[] = DIR "/h.yaml";
	char *text = xasprintf("name: h\n"
			       "kernel: {source: k.cu, entry: k}\n"
			       "arguments:\n"
			       "  - {name: out, type: float, count: 1000, output: true}\n"
			       "  - {name: in, type: float, count: 1000, fill: index}\n"
			       "  - {name: n, type: int32, value: 1000}\n"
			       "  - {name: s, type: float, value: 0.1}\n"
			       "space: {bx: [32, 64]}\n"
			       "verify: {host: %s%s}\n"
			       "launch: {block: [bx], grid: [\"ceil_div(1000, bx)\"]}\n"
			       "output: {csv: " DIR "/h.csv, header: " DIR "/h_tuned.h}\n",
			       host, extra);
	put_file(path, text);
	free(text);
	return path;
}

static void setup_dir(void)
{
	char *out;
	proc_capture((char *[]){"rm", "-rf", DIR, NULL}, 30, &out);
	free(out);
	mkdir(DIR, 0755);
	put_file(DIR "/k.cu", "extern \"C\" __global__ void k(float *out, const float *in, int n, float s)\n"
			      "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = in[i] * s; }\n");
	put_file(DIR "/ref.c", "void scale(float *out, const float *in, int n, float s)\n"
			       "{ for (int i = 0; i < n; i++) out[i] = in[i] * s; }\n");
}

/* Loads path; 0 and *cfg, or the first message in *first. */
static int load(const char *path, config *cfg, char **first)
{
	diags d = {0};
	int rc = config_load(path, cfg, &d);
	*first = d.n ? xstrdup(d.msgs[0]) : NULL;
	diags_free(&d);
	return rc;
}

/* The reference built and called as the worker calls it: the arguments arrive in order, the
 * scalars exactly as the config gives them (0.1 is not a float: it arrives as (float)0.1). */
static void test_the_caller_passes_the_arguments_in_order(void)
{
	setup_dir();
	config cfg;
	char *first = NULL;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(load(host_config("{source: ref.c, function: scale}", ""), &cfg, &first), 0);
	CU_ASSERT_EQUAL_FATAL(hostref_build(&cfg, DIR, &d), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg.host.so);
	void *so = dlopen(cfg.host.so, RTLD_NOW | RTLD_LOCAL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(so);
	void (*fn)(void **) = NULL;
	*(void **)&fn = dlsym(so, PROTO_HOSTREF_SYMBOL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fn);
	float out[1000], in[1000];
	for (int i = 0; i < 1000; i++) {
		in[i] = (float)i;
		out[i] = -1;
	}
	void *arrays[4] = {out, in, NULL, NULL};
	fn(arrays);
	int wrong = 0;
	for (int i = 0; i < 1000; i++)
		wrong += out[i] != in[i] * (float)0.1;
	CU_ASSERT_EQUAL(wrong, 0);
	dlclose(so);
	char *caller = hostref_caller(&cfg);
	CU_ASSERT_PTR_NOT_NULL(strstr(caller, "(float *)a[0] /* out */"));
	CU_ASSERT_PTR_NOT_NULL(strstr(caller, "(int)1000LL /* n */"));
	free(caller);
	config_free(&cfg);
	diags_free(&d);
}

/* 16-bit floats reach the reference as their bits (C has no portable half): an array as
 * unsigned short *, a pair type as void *, a scalar as its bits rounded once to nearest even
 * (0.1 is 0x2e66 in half, 0x3dcd in bfloat16); a prototype of unsigned short * builds. */
static void test_16_bit_floats_reach_the_reference_as_bits(void)
{
	setup_dir();
	put_file(DIR "/ref16.c", "void r16(unsigned short *out, const void *in, unsigned short s, unsigned short b)\n"
				 "{ (void)in; out[0] = s; out[1] = b; }\n");
	put_file(DIR "/h16.yaml", "name: h\n"
				  "kernel: {source: k.cu, entry: k}\n"
				  "arguments:\n"
				  "  - {name: out, type: half, count: 1000, output: true}\n"
				  "  - {name: in, type: bfloat162, count: 500, fill: random}\n"
				  "  - {name: s, type: half, value: 0.1}\n"
				  "  - {name: b, type: __nv_bfloat16, value: 0.1}\n"
				  "space: {bx: [32, 64]}\n"
				  "verify: {host: {source: ref16.c, function: r16}}\n"
				  "launch: {block: [bx], grid: [\"ceil_div(1000, bx)\"]}\n"
				  "output: {csv: " DIR "/h.csv, header: " DIR "/h_tuned.h}\n");
	config cfg;
	char *first = NULL;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(load(DIR "/h16.yaml", &cfg, &first), 0);
	char *caller = hostref_caller(&cfg);
	CU_ASSERT_PTR_NOT_NULL(strstr(caller, "(unsigned short *)a[0] /* out */"));
	CU_ASSERT_PTR_NOT_NULL(strstr(caller, "(void *)a[1] /* in */"));
	CU_ASSERT_PTR_NOT_NULL(strstr(caller, "(unsigned short)0x2e66 /* s */"));
	CU_ASSERT_PTR_NOT_NULL(strstr(caller, "(unsigned short)0x3dcd /* b */"));
	free(caller);
	CU_ASSERT_EQUAL(hostref_build(&cfg, DIR, &d), 0);
	void *so = cfg.host.so ? dlopen(cfg.host.so, RTLD_NOW | RTLD_LOCAL) : NULL;
	void (*fn)(void **) = NULL;
	if (so)
		*(void **)&fn = dlsym(so, PROTO_HOSTREF_SYMBOL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fn);
	unsigned short out[2] = {0, 0};
	void *arrays[4] = {out, NULL, NULL, NULL};
	fn(arrays);
	CU_ASSERT(out[0] == 0x2e66 && out[1] == 0x3dcd);
	dlclose(so);
	config_free(&cfg);
	diags_free(&d);
	free(first);
}

/* A reference whose prototype does not take the kernel's arguments does not build: said at
 * verify.host (line 9, column 17) with the compiler's own words. */
static void test_a_reference_that_does_not_fit_is_a_build_error(void)
{
	/* the compiler's own words: gcc's, or clang's where they differ (cc may be either) */
	static const struct {
		const char *source, *compiler_says, *or_says;
	} cases[] = {
		{"void scale(float *out, const float *in, int n) { (void)out; (void)in; (void)n; }\n", "too many arguments",
		 NULL},
		{"void scale(double *out, const float *in, int n, float s) { (void)out; (void)in; (void)n; (void)s; }\n",
		 "incompatible pointer", NULL},
		{"void scalar(float *out, const float *in, int n, float s) { (void)out; (void)in; (void)n; (void)s; }\n",
		 "implicit declaration of function", "undeclared function"},
		{"void scale(float *out, const float *in, int n, float s) { syntax error }\n", "error", NULL},
	};
	setup_dir();
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		put_file(DIR "/bad.c", cases[k].source);
		config cfg;
		char *first = NULL;
		diags d = {0};
		CU_ASSERT_EQUAL_FATAL(load(host_config("{source: bad.c, function: scale}", ""), &cfg, &first), 0);
		CU_ASSERT_EQUAL(hostref_build(&cfg, DIR, &d), -1);
		CU_ASSERT_PTR_NULL(cfg.host.so);
		CU_ASSERT_EQUAL_FATAL(d.n, 1);
		CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "h.yaml:9:16: verify host: "));
		CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "could not build 'scale'"));
		/* the call it promised, then the compiler's output after it */
		const char *shape = strstr(d.msgs[0], "in order, as scale(float *out, float *in, int n, float s); "
						      "the compiler says:\n");
		CU_ASSERT_PTR_NOT_NULL_FATAL(shape);
		int said = strstr(shape, cases[k].compiler_says) || (cases[k].or_says && strstr(shape, cases[k].or_says));
		if (!said)
			fprintf(stderr, "\n  case %zu: %s\n", k, d.msgs[0]);
		CU_ASSERT(said);
		config_free(&cfg);
		diags_free(&d);
	}
}

/* What cannot work is refused at load, at its place. */
static void test_verify_host_refusals(void)
{
	static const struct {
		const char *host, *extra, *message;
	} cases[] = {
		{"{source: nope.c, function: scale}", "", ":9:25: cannot read host reference 'nope.c'"},
		{"{source: ., function: scale}", "", ":9:25: host reference '.' is a directory, not a file"},
		{"{source: ref.c, function: 2x}", "", ":9:42: verify host function '2x' is not a C identifier"},
		{"{source: ref.c}", "", ":9:16: verify host is missing the required key 'function'"},
		{"{source: ref.c, function: scale, flag: [-O3]}", "", ":9:49: unknown key 'flag' in verify host; did you mean 'flags'?"},
		{"{source: ref.c, function: scale}", ", reference: {bx: 32}", ":9:16: verify host gives the expected outputs: not with 'reference'"},
		{"{source: ref.c, function: scale}", ", expect: {out: i * 0.1}", ":9:16: verify host: no output is left for it to give"},
	};
	setup_dir();
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		config cfg;
		char *first = NULL;
		CU_ASSERT_NOT_EQUAL(load(host_config(cases[k].host, cases[k].extra), &cfg, &first), 0);
		if (!first || !strstr(first, cases[k].message))
			fprintf(stderr, "\n  case %zu: got %s\n  want %s\n", k, first ? first : "(nothing)", cases[k].message);
		CU_ASSERT_PTR_NOT_NULL(first && strstr(first, cases[k].message));
		free(first);
		config_free(&cfg);
	}
	/* a scalar that depends on the configuration: the reference is called once */
	put_file(DIR "/h2.yaml", "name: h\nkernel: {source: k.cu, entry: k}\narguments:\n"
				 "  - {name: out, type: float, count: 1000, output: true}\n"
				 "  - {name: in, type: float, count: 1000}\n  - {name: n, type: int32, value: bx}\n"
				 "  - {name: s, type: float, value: 1}\nspace: {bx: [32, 64]}\n"
				 "verify: {host: {source: ref.c, function: scale}}\n"
				 "launch: {block: [bx], grid: [\"ceil_div(1000, bx)\"]}\n");
	config cfg;
	char *first = NULL;
	CU_ASSERT_NOT_EQUAL(load(DIR "/h2.yaml", &cfg, &first), 0);
	CU_ASSERT_PTR_NOT_NULL(first && strstr(first, "h2.yaml:6:35: a scalar argument passed to verify host may use constants only, but 'bx' is a parameter"));
	free(first);
	config_free(&cfg);
}

/* A changed reference is a changed spec: what was verified against the old one is measured again. */
static void test_the_spec_hash_follows_the_reference(void)
{
	setup_dir();
	config cfg;
	char *first = NULL, h1[17], h2[17];
	const char *path = host_config("{source: ref.c, function: scale}", "");
	CU_ASSERT_EQUAL_FATAL(load(path, &cfg, &first), 0);
	config_spec_hash(&cfg, h1);
	config_free(&cfg);
	put_file(DIR "/ref.c", "void scale(float *out, const float *in, int n, float s)\n"
			       "{ for (int i = 0; i < n; i++) out[i] = in[i] * s + 0; }\n");
	CU_ASSERT_EQUAL_FATAL(load(path, &cfg, &first), 0);
	config_spec_hash(&cfg, h2);
	CU_ASSERT_STRING_NOT_EQUAL(h1, h2);
	config_free(&cfg);
}

/* Whole runs on the fake worker: the worker gets the built reference after the arrays; one that
 * crashes its worker is said at verify.host, exit 2; one that does not build exits 2 before any
 * worker starts. */
static void test_runs_hand_the_reference_to_the_worker(void)
{
	setup_dir();
	char *out = NULL;
	put_file(DIR "/none.c", "void scale(float *out, const float *in, int n, float s) { (void)out; (void)in; (void)n; (void)s; }\n");
	const char *path = host_config("{source: none.c, function: scale}", "");
	fake_worker_reset(DIR, "h");
	CU_ASSERT_EQUAL(run_autotune_on((char *)path, (char *[]){"-q", NULL}, &out), 0);
	free(out);
	char *log = read_text(DIR "/runs.log");
	CU_ASSERT_PTR_NOT_NULL(log && strstr(log, "hostref /"));
	CU_ASSERT_PTR_NOT_NULL(log && strstr(log, "/hostref.so\n"));
	/* answered at once: the function ran when the first run that verifies had timed */
	const char *host = log ? strstr(log, "hostref /") : NULL, *first = host ? strstr(host, "\nrun ") : NULL;
	const char *after = first ? strchr(first + 1, '\n') : NULL;
	CU_ASSERT_PTR_NOT_NULL(after && !strncmp(after, "\nhost called\n", 13));
	free(log);

	fake_worker_reset(DIR, "h");
	path = host_config("{source: ref.c, function: scale}", ""); /* writes through NULL on the fake worker */
	CU_ASSERT_EQUAL(run_autotune_on((char *)path, (char *[]){"-q", NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "h.yaml:9:16: verify host 'scale' ended the GPU worker: killed by signal 11"));
	if (out && !strstr(out, "ended the GPU worker"))
		fprintf(stderr, "\n  got: %s\n", out);
	free(out);
	CU_ASSERT_EQUAL(access(DIR "/h.csv", F_OK), -1);

	fake_worker_reset(DIR, "h");
	put_file(DIR "/bad.c", "void scale(float *out) { (void)out; }\n");
	path = host_config("{source: bad.c, function: scale}", "");
	CU_ASSERT_EQUAL(run_autotune_on((char *)path, (char *[]){"-q", NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "h.yaml:9:16: verify host: "));
	free(out);
	CU_ASSERT_EQUAL(access(DIR "/runs.log", F_OK), -1); /* no worker started */
}

/* verify.host runs on a thread of the worker while the kernels are timed: its function ending the
 * worker during any command is said at verify.host as at set-up (exit 2, nothing written), and
 * a function slower than a run's timeout is waited for, not taken for a hung kernel. */
static void test_the_reference_runs_beside_the_timing(void)
{
	setup_dir();
	char *out = NULL;
	const char *path = host_config("{source: ref.c, function: scale}", "");
	fake_worker_reset(DIR, "h");
	setenv("FAKE_HOST_AT", "warmup", 1); /* the thread crashes while the worker warms up */
	CU_ASSERT_EQUAL(run_autotune_on((char *)path, (char *[]){"-q", NULL}, &out), 2);
	unsetenv("FAKE_HOST_AT");
	CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "h.yaml:9:16: verify host 'scale' ended the GPU worker: killed by signal 11"));
	if (out && !strstr(out, "ended the GPU worker"))
		fprintf(stderr, "\n  got: %s\n", out);
	free(out);
	CU_ASSERT_EQUAL(access(DIR "/h.csv", F_OK), -1);
	char *log = read_text(DIR "/runs.log");
	CU_ASSERT_PTR_NOT_NULL(log && strstr(log, "host called") && !strstr(log, "\nrun "));
	free(log);

	/* a run may take 0.2 s + 0.1 s here; the function takes 1.5 s after the first run timed */
	put_file(DIR "/none.c", "void scale(float *out, const float *in, int n, float s) { (void)out; (void)in; (void)n; (void)s; }\n");
	char *text = read_text(host_config("{source: none.c, function: scale}", ""));
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	char *slow = xasprintf("%smeasure: {timeout: 0.2, time_cap: 0.1}\n", text);
	put_file(DIR "/h.yaml", slow);
	free(text);
	free(slow);
	fake_worker_reset(DIR, "h");
	setenv("FAKE_HOST_SLEEP_MS", "1500", 1);
	CU_ASSERT_EQUAL(run_autotune_on((char *)path, (char *[]){"-q", NULL}, &out), 0);
	unsetenv("FAKE_HOST_SLEEP_MS");
	free(out);
	char *csv = read_text(DIR "/h.csv");
	CU_ASSERT_PTR_NOT_NULL(csv && strstr(csv, ",ok,") && !strstr(csv, "timeout"));
	if (csv && strstr(csv, "timeout"))
		fprintf(stderr, "\n  csv: %s\n", csv);
	free(csv);
}

/* The real worker's host part on the CPU (build/hostref_thread: worker/hostref.c, its transfers
 * and replies stood in for): hostref answers while the function still waits (it would never
 * answer if it ran the function itself: the timeout says so), a second one is refused meanwhile;
 * the join has the function's outputs as the reference, filled from the host's fills and a
 * copy from the GPU, with every transfer on the main thread and the large copies in 2 MB-aligned
 * mappings; an upload that fails leaves it pending (the next join copies it); a library that
 * cannot be loaded is said at once. */
static void test_the_worker_calls_the_reference_on_a_thread(void)
{
	char so[4096], *out = NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(realpath("build/hostref_thread_ref.so", so));
	int st = proc_capture((char *[]){"build/hostref_thread", so, NULL}, 60, &out);
	CU_ASSERT_EQUAL(st, 0);
	static const char *said[] = {
		"reply error host cannot load /nonexistent/ref.so: ", "reply ok\npending 1\nreply error protocol bad hostref command\n",
		"failed join 2 argument 0 pending 1 given 0\njoined 0 pending 0 given 1\n", "function off the main thread 1\n", "transfers off the main thread 0\n",
		"scalar NULL\n", "large copies at 2 MB boundaries 1\n", "reference values wrong 0\n"};
	for (size_t k = 0; k < sizeof said / sizeof *said; k++) {
		CU_ASSERT_PTR_NOT_NULL(out && strstr(out, said[k]));
		if (!out || !strstr(out, said[k]))
			fprintf(stderr, "\n  no '%s' in: %s\n", said[k], out ? out : "(nothing)");
	}
	free(out);
}

int add_hostref_suite(void)
{
	CU_pSuite s = CU_add_suite("hostref", NULL, NULL);
	return !s || !CU_add_test(s, "the caller passes the arguments in order", test_the_caller_passes_the_arguments_in_order) ||
	       !CU_add_test(s, "a reference that does not fit is a build error", test_a_reference_that_does_not_fit_is_a_build_error) ||
	       !CU_add_test(s, "verify.host refusals", test_verify_host_refusals) ||
	       !CU_add_test(s, "the spec hash follows the reference", test_the_spec_hash_follows_the_reference) ||
	       !CU_add_test(s, "runs hand the reference to the worker", test_runs_hand_the_reference_to_the_worker) ||
	       !CU_add_test(s, "the reference runs beside the timing", test_the_reference_runs_beside_the_timing) ||
	       !CU_add_test(s, "the worker calls the reference on a thread", test_the_worker_calls_the_reference_on_a_thread) ||
	       !CU_add_test(s, "16-bit floats reach the reference as bits", test_16_bit_floats_reach_the_reference_as_bits);
}
