/* test_unchanged.c: compile-time parameters whose values all compile to the same code
 * (unchanged.c): found only from builds that differ in the parameter alone; and with the real
 * nvcc, a kernel that defines its parameter itself (#ifndef/#define) is warned about, naming the
 * source's line, while a parameter it uses is not. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compile.h"
#include "config.h"
#include "space.h"
#include "tests.h"
#include "unchanged.h"

static config cfg;
static space sp;
static build b;

/* D and E defines, R the register cap, bx launch-only; `more` appended. */
static void plan(const char *more)
{
	char text[1024];
	snprintf(text, sizeof text,
		 "kernel: {source: /dev/null, entry: k}\narguments: [{name: a, type: float, count: 4, output: true}]\n"
		 "launch: {block: [bx], grid: [1]}\nspace: {D: [1, 2, 3], E: [1, 2], R: [0, 64], bx: [32, 64]}\n"
		 "build: {defines: [D, E], maxrregcount: R}\n%s",
		 more);
	const char *path = write_temp(2, "u.yaml", text);
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(config_load(path, &cfg, &d), 0);
	unlink(path);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	diags_free(&d);
	build_plan(&cfg, &sp, &b);
}

static void done(void)
{
	build_free(&b);
	space_free(&sp);
	config_free(&cfg);
}

/* Each binary's code: "same" for all, except those whose parameter `p` has value v. */
static void codes(int p, long long v)
{
	for (size_t k = 0; k < b.nbins; k++) {
		const value *x = space_config(&sp, b.bins[k].first_config);
		snprintf(b.bins[k].code, sizeof b.bins[k].code, "%s", p >= 0 && x[p].u.i == v ? "other" : "same");
	}
}

static void test_a_parameter_whose_values_give_one_code(void)
{
	plan("");
	CU_ASSERT_EQUAL_FATAL(b.nbins, 12);
	codes(-1, 0);
	CU_ASSERT(param_unchanged(&cfg, &sp, &b, 0));
	CU_ASSERT(param_unchanged(&cfg, &sp, &b, 1));
	/* the register cap changing nothing is known and measured once: not said */
	CU_ASSERT(!param_unchanged(&cfg, &sp, &b, 2));
	CU_ASSERT(!param_unchanged(&cfg, &sp, &b, 3));
	/* D=3 compiles to other code: D changes something, E still nothing */
	codes(0, 3);
	CU_ASSERT(!param_unchanged(&cfg, &sp, &b, 0));
	CU_ASSERT(param_unchanged(&cfg, &sp, &b, 1));
	done();
}

/* Only builds that differ in the parameter alone are compared: when D and E move together, no
 * pair tells either apart, and nothing is said; failed builds are left out. */
static void test_only_builds_that_differ_in_it_alone(void)
{
	plan("constraints: [D == E]\n");
	codes(-1, 0);
	CU_ASSERT(!param_unchanged(&cfg, &sp, &b, 0));
	CU_ASSERT(!param_unchanged(&cfg, &sp, &b, 1));
	done();
	plan("");
	codes(0, 3);
	for (size_t k = 0; k < b.nbins; k++)
		if (space_config(&sp, b.bins[k].first_config)[0].u.i == 3)
			b.bins[k].failed = 1;
	CU_ASSERT(param_unchanged(&cfg, &sp, &b, 0));
	/* nothing built, nothing compared */
	for (size_t k = 0; k < b.nbins; k++)
		b.bins[k].failed = 1;
	CU_ASSERT(!param_unchanged(&cfg, &sp, &b, 0));
	done();
}

/* With the real nvcc: block_size_x, which the kernel defines itself unless kernel_tuner is
 * defined, is warned about with the line that defines it; tile, which it uses, is not. */
static void test_a_kernel_that_defines_its_parameter_is_warned_about(void)
{
	char dir[128], path[192];
	snprintf(dir, sizeof dir, "%s/unchanged", test_dir);
	mkdir(dir, 0777);
	snprintf(path, sizeof path, "%s/k.cu", dir);
	put_file(path, "#ifndef kernel_tuner\n#define block_size_x 16\n#endif\n"
		       "extern \"C\" __global__ void k(float *a, int n)\n"
		       "{ int i = (blockIdx.x * block_size_x + threadIdx.x) * tile; if (i < n) a[i] = 1; }\n");
	snprintf(path, sizeof path, "%s/k.yaml", dir);
	char text[1024];
	snprintf(text, sizeof text,
		 "name: k\nkernel: {source: k.cu, entry: k}\narguments:\n  - {name: a, type: float, count: 1024, output: true}\n"
		 "  - {name: n, type: int32, value: 1024}\nspace: {block_size_x: [16, 32], tile: [1, 2]}\n"
		 "launch: {block: [block_size_x], grid: [\"1024 / block_size_x / tile\"]}\n"
		 "build: {defines: [block_size_x, tile]}\noutput: {csv: %s/k.csv}\n",
		 dir);
	put_file(path, text);
	char *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){"--dry-run", "--arch", "sm_90", "--no-cache", "-q", path, NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "k.yaml:6:9: warning: parameter 'block_size_x' changes nothing"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "k.cu:2 defines 'block_size_x' itself (#ifndef/#define?)"));
	CU_ASSERT_EQUAL(occurrences(out, "changes nothing"), 1);
	free(out);
}

int add_unchanged_suite(void)
{
	CU_pSuite s = CU_add_suite("unchanged", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "a parameter whose values give one code", test_a_parameter_whose_values_give_one_code);
	CU_add_test(s, "only builds that differ in it alone", test_only_builds_that_differ_in_it_alone);
	CU_add_test(s, "a kernel that defines its parameter is warned about",
		    test_a_kernel_that_defines_its_parameter_is_warned_about);
	return 0;
}
