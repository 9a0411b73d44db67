/* test_compile_error.c: a failed compile's kind sets its parameter values, hashes and paths aside
 * but not the error; the likely fix names what the config lacks, and only that; the run of
 * failures alike holds and stops a build at its bound, and never once one binary built. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compile_error.h"
#include "config.h"
#include "tests.h"

/* nvcc's log of the KTT n-body kernel, as the pool keeps it: the value of WORK_GROUP_SIZE_X echoed
 * in the source line, the source a copy rewritten for `#pragma unroll` named by its hash. */
static char *nbody_log(int wgx, const char *hash, const char *name)
{
	return xasprintf("nvcc exited with status 1\n"
			 "$ nvcc -cubin -arch=sm_90 -DWORK_GROUP_SIZE_X=%d -x cu /home/u/.cache/autotune/cubins/src-%s.cu -o x\n"
			 "Nbody.cu(282): error: identifier \"%s\" is undefined\n"
			 "      __attribute__((shared)) vector bufferPosX[%s][%d];\n"
			 "                                                ^\n\n"
			 "1 error detected in the compilation of \"/home/u/.cache/autotune/cubins/src-%s.cu\".\n",
			 wgx, hash, name, name, wgx, hash);
}

static void test_kinds_set_values_and_paths_aside(void)
{
	char *a = nbody_log(64, "de8ec916df7a5478", "WORK_GROUP_SIZE_Y"), *b = nbody_log(512, "0272c6fdd4e5949d", "WORK_GROUP_SIZE_Y");
	char *c = nbody_log(64, "de8ec916df7a5478", "WORK_GROUP_SIZE_Z");
	char *ka = compile_error_kind(a), *kb = compile_error_kind(b), *kc = compile_error_kind(c);
	CU_ASSERT_STRING_EQUAL(ka, kb);
	CU_ASSERT_STRING_NOT_EQUAL(ka, kc); /* another identifier is another error */
	/* the kind is the diagnostic itself, not the echo, the count or the command */
	CU_ASSERT_PTR_NOT_NULL(strstr(ka, "identifier \"WORK_GROUP_SIZE_Y\" is undefined"));
	CU_ASSERT_PTR_NULL(strstr(ka, "bufferPosX"));
	CU_ASSERT_PTR_NULL(strstr(ka, "nvcc -cubin"));
	CU_ASSERT_STRING_EQUAL(compile_error_line(a), "Nbody.cu(282): error: identifier \"WORK_GROUP_SIZE_Y\" is undefined");
	/* ptxas's numbers, and paths of whatever directory, are set aside */
	char *p1 = compile_error_kind("ptxas error   : Entry function '_Z1kPf' uses too much shared data (0x12000 bytes, 0xc000 max)\n");
	char *p2 = compile_error_kind("ptxas error   : Entry function '_Z1kPf' uses too much shared data (0x18000 bytes, 0xc000 max)\n");
	CU_ASSERT_STRING_EQUAL(p1, p2);
	char *q1 = compile_error_kind("/a/b/k.cu(3): error: expected a \";\"\n"), *q2 = compile_error_kind("/c/k.cu(3): error: expected a \";\"\n");
	CU_ASSERT_STRING_EQUAL(q1, q2);
	/* a log whose last line has no newline gets one, within the kind's room */
	char *r1 = compile_error_kind("k.cu(3): error: x"), *r2 = compile_error_kind("1");
	CU_ASSERT_STRING_EQUAL(r1, "k.cu(#): error: x\n");
	CU_ASSERT_STRING_EQUAL(r2, "#\n");
	free(r1);
	free(r2);
	/* without diagnostics, the log less its command line: a timeout is one kind whatever the flags */
	char *t1 = compile_error_kind("nvcc timed out and was killed\n$ nvcc -DV=1 k.cu\n");
	char *t2 = compile_error_kind("nvcc timed out and was killed\n$ nvcc -DV=2 k.cu\n");
	CU_ASSERT_STRING_EQUAL(t1, t2);
	CU_ASSERT_STRING_EQUAL(t1, "nvcc timed out and was killed\n");
	char *all[] = {a, b, c, ka, kb, kc, p1, p2, q1, q2, t1, t2};
	for (size_t i = 0; i < sizeof all / sizeof *all; i++)
		free(all[i]);
}

/* The config of the fixes: two tuned parameters (one a define), a constant outside build.defines. */
static int load_fix_config(config *cfg)
{
	const char *text = "kernel: {source: /dev/null, entry: k}\narguments: [{name: a, type: float, count: 4}]\n"
			   "constants: {TILE: 16}\nlaunch: {block: [WORK_GROUP_SIZE_X], grid: [UNROLL_FACTOR]}\n"
			   "space: {WORK_GROUP_SIZE_X: [64, 128], UNROLL_FACTOR: [1, 2], blockSizeY: [1]}\n"
			   "build: {defines: [WORK_GROUP_SIZE_X, blockSizeY], flags: [-DFROM_FLAGS=1]}\n";
	char *first = NULL;
	int n = config_load_text(text, cfg, &first);
	if (n)
		fprintf(stderr, "\n  %s\n", first);
	free(first);
	return n;
}

/* The fix for an undefined identifier, "" when none is told (caller frees). */
static char *fix_for(const config *cfg, const char *name)
{
	char *log = xasprintf("k.cu(2): error: identifier \"%s\" is undefined\n", name);
	char *fix = compile_error_fix(cfg, log);
	free(log);
	return fix ? fix : xstrdup("");
}

static void test_fixes_name_what_the_config_lacks(void)
{
	config cfg;
	CU_ASSERT_EQUAL_FATAL(load_fix_config(&cfg), 0);
	/* nothing defines it: add it, as the spec never did; X is no slip for Y */
	char *f = fix_for(&cfg, "WORK_GROUP_SIZE_Y");
	CU_ASSERT_PTR_NOT_NULL(strstr(f, "the kernel uses WORK_GROUP_SIZE_Y, which neither "));
	CU_ASSERT_PTR_NOT_NULL(strstr(f, cfg.path));
	CU_ASSERT_PTR_NOT_NULL(strstr(f, "build.defines"));
	CU_ASSERT_PTR_NULL(strstr(f, "slip"));
	free(f);
	/* a tuned parameter that nvcc does not get */
	f = fix_for(&cfg, "UNROLL_FACTOR");
	CU_ASSERT_PTR_NOT_NULL(strstr(f, "UNROLL_FACTOR is a parameter of"));
	CU_ASSERT_PTR_NOT_NULL(strstr(f, "list it in build.defines"));
	free(f);
	/* a constant that nvcc does not get */
	f = fix_for(&cfg, "TILE");
	CU_ASSERT_PTR_NOT_NULL(strstr(f, "TILE is a constant of"));
	free(f);
	/* spelled otherwise in the config, or one slip away */
	f = fix_for(&cfg, "BLOCK_SIZE_Y");
	CU_ASSERT_PTR_NOT_NULL(strstr(f, "spells it blockSizeY"));
	free(f);
	f = fix_for(&cfg, "UNROL_FACTOR");
	CU_ASSERT_PTR_NOT_NULL(strstr(f, "a slip for UNROLL_FACTOR"));
	free(f);
	/* what nvcc does get is no fix to give: the kernel's own trouble */
	f = fix_for(&cfg, "WORK_GROUP_SIZE_X");
	CU_ASSERT_STRING_EQUAL(f, "");
	free(f);
	f = fix_for(&cfg, "FROM_FLAGS");
	CU_ASSERT_STRING_EQUAL(f, "");
	free(f);
	/* other errors whose fix is plain */
	char *g = compile_error_fix(&cfg, "k.cu(1): catastrophic error: cannot open source file \"tile.h\"\n");
	CU_ASSERT_PTR_NOT_NULL(g && strstr(g, "no tile.h to include: add its directory to build.include"));
	free(g);
	g = compile_error_fix(&cfg, "k.cu:1:10: fatal error: tile.h: No such file or directory\n    1 | #include \"tile.h\"\n");
	CU_ASSERT_PTR_NOT_NULL(g && strstr(g, "no tile.h to include: add its directory to build.include"));
	free(g);
	g = compile_error_fix(&cfg, "nvcc fatal   : Unsupported gpu architecture 'sm_99'\n");
	CU_ASSERT_PTR_NOT_NULL(g && strstr(g, "does not know the target"));
	free(g);
	g = compile_error_fix(&cfg, "ptxas error   : Entry function 'k' uses too much shared data (0x12000 bytes, 0xc000 max)\n");
	CU_ASSERT_PTR_NOT_NULL(g && strstr(g, "48 KiB"));
	free(g);
	CU_ASSERT_PTR_NULL(compile_error_fix(&cfg, "k.cu(2): error: expected a \";\"\n"));
	config_free(&cfg);
}

static binary failed_with(const char *log)
{
	binary b;
	memset(&b, 0, sizeof b);
	b.failed = 1;
	b.log = (char *)log;
	return b;
}

static void test_failures_alike_hold_and_stop_at_the_bound(void)
{
	binary e1 = failed_with("k.cu(2): error: identifier \"A\" is undefined\n"),
	       e2 = failed_with("/x/k.cu(2): error: identifier \"A\" is undefined\n"),
	       other = failed_with("k.cu(2): error: identifier \"B\" is undefined\n"), ok, stopped = e1;
	memset(&ok, 0, sizeof ok);
	stopped.killed = 1;
	repeat r = {.bound = 4};
	repeat_note(&r, &e1);
	repeat_note(&r, &stopped); /* a signal's, not the kernel's: not counted */
	repeat_note(&r, &e2);
	CU_ASSERT_EQUAL(r.alike, 2);
	CU_ASSERT_FALSE(repeat_holds(&r, 1));
	CU_ASSERT_TRUE(repeat_holds(&r, 2)); /* two in flight could make the bound: none starts */
	CU_ASSERT_FALSE(repeat_over(&r, 2));
	repeat_note(&r, &e1);
	repeat_note(&r, &e2);
	CU_ASSERT_TRUE(repeat_over(&r, 0));
	CU_ASSERT_FALSE(repeat_over(&r, 1)); /* not while one may still build */
	repeat_free(&r);
	/* one that builds, or fails otherwise, and the build goes on to the end */
	binary *breakers[] = {&ok, &other};
	for (int k = 0; k < 2; k++) {
		repeat s = {.bound = 4};
		repeat_note(&s, &e1);
		repeat_note(&s, breakers[k]);
		for (int i = 0; i < 8; i++)
			repeat_note(&s, &e1);
		CU_ASSERT_FALSE(repeat_holds(&s, 3));
		CU_ASSERT_FALSE(repeat_over(&s, 0));
		repeat_free(&s);
	}
	/* --keep-going: no bound */
	repeat g = {.bound = 0};
	for (int i = 0; i < 8; i++)
		repeat_note(&g, &e1);
	CU_ASSERT_FALSE(repeat_holds(&g, 3));
	CU_ASSERT_FALSE(repeat_over(&g, 0));
	repeat_free(&g);
}

/* The order a build takes while all fail alike: each binary once, the reference's first, and the
 * first few far apart. */
static void test_the_spread_order_takes_each_binary_once(void)
{
	size_t sizes[] = {1, 2, 3, 12, 15, 1568};
	for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
		size_t n = sizes[t];
		repeat r;
		repeat_start(&r, 4, n / 3, n);
		char *seen = calloc(n, 1);
		int once = 1;
		for (size_t i = 0; i < n; i++) {
			size_t k = repeat_spread(&r, i);
			once &= k < n && !seen[k];
			if (k < n)
				seen[k] = 1;
		}
		CU_ASSERT(once);
		CU_ASSERT_EQUAL(repeat_spread(&r, 0), n / 3);
		if (n >= 12) /* the second is not the first's neighbour */
			CU_ASSERT(repeat_spread(&r, 1) > n / 3 + n / 4 || repeat_spread(&r, 1) + n / 4 < n / 3);
		free(seen);
		repeat_free(&r);
	}
}

int add_compile_error_suite(void)
{
	CU_pSuite s = CU_add_suite("compile_error", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "kinds set values and paths aside", test_kinds_set_values_and_paths_aside);
	CU_add_test(s, "fixes name what the config lacks", test_fixes_name_what_the_config_lacks);
	CU_add_test(s, "failures alike hold and stop at the bound", test_failures_alike_hold_and_stop_at_the_bound);
	CU_add_test(s, "the spread order takes each binary once", test_the_spread_order_takes_each_binary_once);
	return 0;
}
