/* test_signature.c: the config's arguments against the kernel's parameters (signature.c): the
 * count and each size, said at the argument's line and column; and with the real nvcc, a config
 * that passes 4 arguments to a 3-parameter kernel, or a double to a float, refused (exit 2) before
 * anything runs. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "signature.h"
#include "tests.h"

/* a (array), s (float), n (int32), c (a __constant__ array), d (double), then `more` */
static const char *const sig_config =
	"name: sig\n"                                                           /* 1 */
	"kernel: {source: /dev/null, entry: k}\n"                               /* 2 */
	"arguments:\n"                                                          /* 3 */
	"  - {name: a, type: float, count: 64, output: true}\n"                 /* 4 */
	"  - {name: s, type: float, value: 2}\n"                                /* 5 */
	"  - {name: n, type: int32, value: 64}\n"                               /* 6 */
	"  - {name: c, type: float, count: 4, constant: true}\n"                /* 7 */
	"  - {name: d, type: double, value: bx}\n"                              /* 8 */
	"space: {bx: [32]}\n"                                                   /* 9 */
	"launch: {block: [bx], grid: [2]}\n";                                   /* 10 */

/* The mismatch of sig_config's passed arguments with parameters of these sizes, or NULL; *at. */
static char *mismatch(const char *text, const size_t *sizes, size_t n, mark *at)
{
	config cfg;
	char *first = NULL;
	CU_ASSERT_EQUAL_FATAL(config_load_text(text, &cfg, &first), 0);
	free(first);
	int idx[16];
	size_t passed = signature_args(&cfg, -1, idx);
	char *why = signature_mismatch(&cfg, idx, passed, "k", sizes, n, cfg.entry_at, at);
	config_free(&cfg);
	return why;
}

static void test_matching_arguments_pass(void)
{
	mark at = {0, 0};
	/* the constant: true array is not passed: a, s, n, d */
	CU_ASSERT_PTR_NULL(mismatch(sig_config, (size_t[]){8, 4, 4, 8}, 4, &at));
}

/* One more argument than parameters: said at the argument with no parameter. */
static void test_an_argument_too_many_is_said_at_it(void)
{
	mark at = {0, 0};
	char *why = mismatch(sig_config, (size_t[]){8, 4, 4}, 3, &at);
	CU_ASSERT_PTR_NOT_NULL_FATAL(why);
	CU_ASSERT_EQUAL(at.line, 8);
	CU_ASSERT_EQUAL(at.col, 5);
	CU_ASSERT_STRING_EQUAL(why, "argument 'd' has no parameter: kernel 'k' takes 3 parameters (of 8, 4 and 4 bytes) but is "
				    "passed 4 arguments (constant: true arrays are not passed)");
	free(why);
}

/* One too few: said at the entry, naming the parameter left without. */
static void test_an_argument_too_few_names_the_parameter(void)
{
	mark at = {0, 0};
	char *why = mismatch(sig_config, (size_t[]){8, 4, 4, 8, 2}, 5, &at);
	CU_ASSERT_PTR_NOT_NULL_FATAL(why);
	CU_ASSERT_EQUAL(at.line, 2);
	CU_ASSERT_EQUAL(at.col, 36);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "but is passed 4 arguments"));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, ": parameter 5 (2 bytes) gets none"));
	free(why);
}

/* A size that differs is said at its argument, with what the parameter can be given: a double
 * for a float, an array for an int, an int for a pointer, a value for a struct. */
static void test_a_size_that_differs_is_said_at_its_argument(void)
{
	const struct {
		size_t sizes[4];
		int line;
		const char *says;
	} cases[] = {
		{{8, 4, 4, 4}, 8, "argument 'd' is a scalar double (8 bytes), but parameter 4 of kernel 'k' takes 4 bytes: an "
				  "int32, uint32 or float value: declare 'd' with the type the kernel gives "
				  "parameter 4"},
		{{4, 4, 4, 8}, 4, "argument 'a' is an array (an 8-byte pointer), but parameter 1 of kernel 'k' takes 4 bytes"},
		{{8, 8, 4, 8}, 5, "argument 's' is a scalar float (4 bytes), but parameter 2 of kernel 'k' takes 8 bytes: an "
				  "array, or an int64, uint64 or double value"},
		{{8, 4, 12, 8}, 6, "takes 12 bytes: nothing a config passes: a struct or vector type"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		mark at = {0, 0};
		char *why = mismatch(sig_config, cases[i].sizes, 4, &at);
		CU_ASSERT_PTR_NOT_NULL_FATAL(why);
		CU_ASSERT_EQUAL(at.line, cases[i].line);
		CU_ASSERT_EQUAL(at.col, 5);
		CU_ASSERT_PTR_NOT_NULL(strstr(why, cases[i].says));
		free(why);
	}
	/* and the counts too, when they differ as well */
	mark at = {0, 0};
	char *why = mismatch(sig_config, (size_t[]){8, 4, 8}, 3, &at);
	CU_ASSERT_PTR_NOT_NULL_FATAL(why);
	CU_ASSERT_EQUAL(at.line, 6);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "; and kernel 'k' takes 3 parameters"));
	free(why);
}

/* A plan's launch passes the arguments it names, in its order. */
static void test_a_plan_launch_passes_its_own_arguments(void)
{
	char text[2048];
	const char *entry = strstr(sig_config, ", entry: k}");
	snprintf(text, sizeof text, "%.*s}%splan: {launches: [k, {entry: k2, args: [n, a]}]}\n", (int)(entry - sig_config),
		 sig_config, entry + strlen(", entry: k}"));
	config cfg;
	char *first = NULL;
	CU_ASSERT_EQUAL_FATAL(config_load_text(text, &cfg, &first), 0);
	free(first);
	int idx[16];
	CU_ASSERT_EQUAL(signature_args(&cfg, 0, idx), 4);
	CU_ASSERT_EQUAL(signature_args(&cfg, 1, idx), 2);
	CU_ASSERT(idx[0] == 2 && idx[1] == 0);
	mark at = {0, 0};
	char *why = signature_mismatch(&cfg, idx, 2, "k2", (size_t[]){8, 4}, 2, cfg.plan.launches[1].at, &at);
	CU_ASSERT_PTR_NOT_NULL_FATAL(why);
	CU_ASSERT_EQUAL(at.line, 6); /* n, passed first, to the pointer */
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "parameter 1 of kernel 'k2' takes 8 bytes"));
	free(why);
	why = signature_mismatch(&cfg, idx, 2, "k2", (size_t[]){4, 8, 4}, 3, cfg.plan.launches[1].at, &at);
	CU_ASSERT_PTR_NOT_NULL_FATAL(why);
	CU_ASSERT_EQUAL(at.line, 11); /* the launch */
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "parameter 3 (4 bytes) gets none"));
	free(why);
	config_free(&cfg);
}

/* With the real nvcc, a kernel with a barrier: 4 arguments for a 3-parameter kernel, then a double
 * for its float (also built with build.rdc: the linked cubin), then a reference kernel (verify.kernel) of one
 * parameter given all three: each refused at its line and column, exit 2, nothing measured; the
 * matching config compiles. */
static void test_a_config_that_does_not_fit_the_kernel_is_refused(void)
{
	char dir[128], src[160], cfgpath[160];
	snprintf(dir, sizeof dir, "%s/sig", test_dir);
	mkdir(dir, 0777);
	snprintf(src, sizeof src, "%s/k.cu", dir);
	/* a barrier and shared memory: records in the parameter table's section that are not
	 * parameters, each of its own format */
	put_file(src, "extern \"C\" __global__ void k(float *a, float s, int n)\n"
		      "{ __shared__ float t[64]; int i = blockIdx.x * blockDim.x + threadIdx.x; t[threadIdx.x] = s;\n"
		      "  __syncthreads(); if (i < n) a[i] = t[63 - threadIdx.x]; }\n"
		      "extern \"C\" __global__ void ref(float *a) { a[threadIdx.x] = 2; }\n");
	snprintf(cfgpath, sizeof cfgpath, "%s/sig.yaml", dir);
	const char *const fits = "  - {name: s, type: float, value: 2}\n  - {name: n, type: int32, value: 64}\n";
	const char *const dbl = "  - {name: s, type: double, value: 2}\n  - {name: n, type: int32, value: 64}\n";
	const struct {
		const char *args, *more, *says;
	} cases[] = {
		{"  - {name: s, type: float, value: 2}\n  - {name: n, type: int32, value: 64}\n  - {name: x, type: int32, value: 7}\n",
		 "", ":7:5: argument 'x' has no parameter: kernel 'k' takes 3 parameters (of 8, 4 and 4 bytes) but is passed 4"},
		{dbl, "", ":5:5: argument 's' is a scalar double (8 bytes), but parameter 2 of kernel 'k' takes 4 bytes"},
		{dbl, "build: {rdc: true}\n", ":5:5: argument 's' is a scalar double (8 bytes), but parameter 2 of kernel 'k' takes 4"},
		{fits, "verify: {kernel: {entry: ref, block: [64], grid: [1]}}\n",
		 ":5:5: argument 's' has no parameter: kernel 'ref' takes 1 parameter (of 8 bytes) but is passed 3 arguments "
		 "(the reference kernel, verify.kernel)"},
		{fits, "", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char text[1024];
		snprintf(text, sizeof text,
			 "name: sig\nkernel: {source: k.cu, entry: k}\narguments:\n  - {name: a, type: float, count: 64, output: true}\n"
			 "%sspace: {bx: [32, 64]}\nlaunch: {block: [bx], grid: [\"64 / bx\"]}\noutput: {csv: %s/sig.csv}\n%s",
			 cases[i].args, dir, cases[i].more);
		put_file(cfgpath, text);
		char *out;
		int rc = run_autotune((char *[]){"--dry-run", "--arch", "sm_90", "--no-cache", cfgpath, NULL}, &out);
		CU_ASSERT_EQUAL(rc, cases[i].says ? 2 : 0);
		if (cases[i].says && !strstr(out, cases[i].says))
			fprintf(stderr, "\n  got: %s\n", out);
		CU_ASSERT(!cases[i].says || strstr(out, cases[i].says));
		free(out);
	}
	/* a run (the fake worker) says the reference kernel's mismatch before it starts one */
	char text[1024], log[192];
	snprintf(text, sizeof text,
		 "name: sig\nkernel: {source: k.cu, entry: k}\narguments:\n  - {name: a, type: float, count: 64, output: true}\n"
		 "%sspace: {bx: [32, 64]}\nlaunch: {block: [bx], grid: [\"64 / bx\"]}\n"
		 "output: {csv: %s/sig.csv, header: %s/sig_tuned.h}\n%s",
		 cases[3].args, dir, dir, cases[3].more);
	put_file(cfgpath, text);
	fake_worker_reset(dir, "sig");
	char *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){"--no-cache", cfgpath, NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, cases[3].says));
	free(out);
	snprintf(log, sizeof log, "%s/runs.log", dir);
	CU_ASSERT(count_in(log, " ref ") <= 0);
	fake_worker_forget();
}

/* A parameter table this reader cannot read (a record of a format it does not know) is one
 * warning naming the kernel and how many binaries went unchecked, in a dry run and a run; a
 * table it reads is no warning. */
static void test_a_table_that_cannot_be_read_is_a_warning(void)
{
	char dir[128], src[160], cfgpath[160];
	snprintf(dir, sizeof dir, "%s/unread", test_dir);
	mkdir(dir, 0777);
	snprintf(src, sizeof src, "%s/k.cu", dir);
	put_file(src, "extern \"C\" __global__ void k(float *a, float s) { a[threadIdx.x] = s; }\n");
	snprintf(cfgpath, sizeof cfgpath, "%s/unread.yaml", dir);
	const char *const flags[] = {"[-DFAKE_NVCC_FUTURE_RECORD]", "[-O3]"};
	for (int i = 0; i < 2; i++) {
		char text[1024];
		snprintf(text, sizeof text,
			 "name: unread\nkernel: {source: k.cu, entry: k}\narguments:\n"
			 "  - {name: a, type: float, count: 64, output: true}\n  - {name: s, type: double, value: 2}\n"
			 "space: {bx: [32, 64], U: [1, 2]}\nlaunch: {block: [bx], grid: [\"64 / bx\"]}\n"
			 "build: {flags: %s, defines: [U]}\noutput: {csv: %s/unread.csv, header: %s/unread_tuned.h}\n",
			 flags[i], dir, dir);
		put_file(cfgpath, text);
		char *out;
		int rc = run_autotune((char *[]){"--dry-run", "--arch", "sm_90", "--no-cache", cfgpath, NULL}, &out);
		const char *warned = strstr(out, "warning: the parameter table of kernel 'k'");
		/* unread: the double for the float goes unchecked, said; read: refused */
		CU_ASSERT_EQUAL(rc, i == 0 ? 0 : 2);
		CU_ASSERT(i == 0 ? warned && strstr(out, "of 2 binaries were not checked") : !warned);
		if (i == 0 && !warned)
			fprintf(stderr, "\n  got: %s\n", out);
		free(out);
		if (i == 0) {
			/* a run (the fake worker) says it too, before measuring */
			fake_worker_reset(dir, "unread");
			run_autotune((char *[]){"--no-cache", cfgpath, NULL}, &out);
			CU_ASSERT_PTR_NOT_NULL(strstr(out, "warning: the parameter table of kernel 'k'"));
			free(out);
			fake_worker_forget();
		}
	}
}

int add_signature_suite(void)
{
	CU_pSuite s = CU_add_suite("signature", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "matching arguments pass", test_matching_arguments_pass);
	CU_add_test(s, "an argument too many is said at it", test_an_argument_too_many_is_said_at_it);
	CU_add_test(s, "an argument too few names the parameter", test_an_argument_too_few_names_the_parameter);
	CU_add_test(s, "a size that differs is said at its argument", test_a_size_that_differs_is_said_at_its_argument);
	CU_add_test(s, "a plan launch passes its own arguments", test_a_plan_launch_passes_its_own_arguments);
	CU_add_test(s, "a config that does not fit the kernel is refused", test_a_config_that_does_not_fit_the_kernel_is_refused);
	CU_add_test(s, "a table that cannot be read is a warning", test_a_table_that_cannot_be_read_is_a_warning);
	return 0;
}
