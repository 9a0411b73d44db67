/* test_check.c: `autotune check` with the real nvcc: the tuned kernel's code is found in objects
 * and a program built as make and CMake build them, with line info, with another kernel beside
 * it and renamed as a per-size variant; a build without the tuned -use_fast_math or for another
 * target differs and says how; results without kernel hashes are refused. The unit suite, without
 * nvcc: a program with no device code, and the bad input check refuses. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <CUnit/CUnit.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "diag.h"

#include "check.h"
#include "cubin.h"
#include "proc.h"
#include "tests.h"

/* sinf and the division: code -use_fast_math changes; a second kernel and a renamed entry by
 * macro, as the recipe's per-size variants rename theirs */
static const char *kernel_src =
	"extern \"C\" __global__ void scale(float *y, const float *x, int n)\n"
	"{\n"
	"	int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"	if (i < n)\n"
	"		y[i] = sinf(x[i]) / (x[i] + 1.0f);\n"
	"}\n"
	"#ifdef OTHER\n"
	"extern \"C\" __global__ void other(float *y) { y[threadIdx.x] = cosf(y[threadIdx.x]) * 3.0f; }\n"
	"#endif\n";

static const char *tuned_flags = "-use_fast_math -maxrregcount=64";

/* nvcc with these arguments (a shell word list, test_dir's files named by name); the path of
 * out in test_dir. */
static char *nvcc(const char *args, const char *out)
{
	char *path = xasprintf("%s/%s", test_dir, out);
	char *cmd = xasprintf("cd '%s' && exec \"${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}\" %s -o %s",
			      test_dir, args, out);
	char *argv[] = {"sh", "-c", cmd, NULL}, *log;
	int st = proc_capture(argv, 300, &log);
	CU_ASSERT(st == 0);
	if (st)
		fprintf(stderr, "\n  nvcc %s: %s\n", args, log);
	free(log);
	free(cmd);
	return path;
}

/* The results of the tuned build: its kernel_hash as compile.c records it, from the cubin of
 * `nvcc -cubin` with the winner's flags. */
static char *results(void)
{
	write_temp(0, "k.cu", kernel_src);
	char *args = xasprintf("-cubin -arch=sm_90 %s t0-k.cu", tuned_flags);
	char *cubin = nvcc(args, "tuned.cubin"), hash[17];
	cubin_kernel_hash(cubin, "scale", hash);
	CU_ASSERT_EQUAL(strlen(hash), 16);
	char *csv = xasprintf("blockDim.x,registers,flags,arch,nvcc_flags,code_hash,kernel_hash,config\n"
			      "128,20,cold;winner,sm_90,%s,0123456789abcdef,%s,configs/scale.yaml\n"
			      "256,20,,sm_90,%s,0123456789abcdef,0000000000000000,configs/scale.yaml\n",
			      tuned_flags, hash, tuned_flags);
	char *path = xstrdup(write_temp(1, "scale.csv", csv));
	free(csv);
	free(cubin);
	free(args);
	return path;
}

/* check_binary's status on the binary that nvcc builds with args, its report in *report. */
static int checked(const char *csv, const char *args, const char *out, char **report)
{
	char *bin = nvcc(args, out), *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	diags d = {0};
	char *list[] = {(char *)csv};
	int rc = check_binary(bin, list, 1, f, &d);
	fclose(f);
	if (d.n)
		fprintf(stderr, "\n  check %s: %s\n", out, d.msgs[0]);
	diags_free(&d);
	free(bin);
	*report = text;
	return rc;
}

static void test_builds_of_the_recipe_are_the_tuned_code(void)
{
	char *csv = results(), *report;
	char *recipe = xasprintf("-c -arch=sm_90 %s t0-k.cu", tuned_flags);
	/* make's object from the recipe */
	CU_ASSERT_EQUAL(checked(csv, recipe, "make.o", &report), CHECK_TUNED);
	CU_ASSERT_PTR_NOT_NULL(strstr(report, "scale: tuned: scale in "));
	free(report);
	/* line info: the same code, other sections */
	char *args = xasprintf("%s -lineinfo", recipe);
	CU_ASSERT_EQUAL(checked(csv, args, "lineinfo.o", &report), CHECK_TUNED);
	free(report);
	free(args);
	/* another kernel in the same file */
	args = xasprintf("%s -DOTHER", recipe);
	CU_ASSERT_EQUAL(checked(csv, args, "other.o", &report), CHECK_TUNED);
	free(report);
	free(args);
	/* a per-size variant: the recipe renames its entry */
	args = xasprintf("%s -Dscale=scale_v1", recipe);
	CU_ASSERT_EQUAL(checked(csv, args, "variant.o", &report), CHECK_TUNED);
	CU_ASSERT_PTR_NOT_NULL(strstr(report, "tuned: scale_v1 in "));
	free(report);
	free(args);
	/* a linked program, as CMake builds one: host code, the fatbinary in .nv_fatbin */
	write_temp(2, "main.cu", "#include \"t0-k.cu\"\nint main(void) { return 0; }\n");
	args = xasprintf("-arch=sm_90 %s -DOTHER t2-main.cu", tuned_flags);
	CU_ASSERT_EQUAL(checked(csv, args, "program", &report), CHECK_TUNED);
	free(report);
	free(args);
	/* its cubin compressed (nvcc does so for -G and -rdc objects): read where built with libzstd,
	 * else refused as unreadable, never called other code */
	args = xasprintf("%s -compress-mode=size", recipe);
#ifdef HAVE_ZSTD
	CU_ASSERT_EQUAL(checked(csv, args, "compressed.o", &report), CHECK_TUNED);
#else
	CU_ASSERT_EQUAL(checked(csv, args, "compressed.o", &report), CHECK_BAD_INPUT);
#endif
	free(report);
	free(args);
	/* a static library of it, as CMake's add_library builds one */
	args = xasprintf("-lib -arch=sm_90 %s -DOTHER t0-k.cu", tuned_flags);
	CU_ASSERT_EQUAL(checked(csv, args, "libk.a", &report), CHECK_TUNED);
	free(report);
	free(args);
	/* the cubin itself */
	args = xasprintf("-cubin -arch=sm_90 %s -lineinfo t0-k.cu", tuned_flags);
	CU_ASSERT_EQUAL(checked(csv, args, "k.cubin", &report), CHECK_TUNED);
	free(report);
	free(args);
	free(recipe);
	free(csv);
}

static void test_another_build_differs_and_says_how(void)
{
	char *csv = results(), *report;
	/* without -use_fast_math: other code, which no binary records the reason for */
	CU_ASSERT_EQUAL(checked(csv, "-c -arch=sm_90 -maxrregcount=64 t0-k.cu", "slow.o", &report), CHECK_DIFFERS);
	CU_ASSERT_PTR_NOT_NULL(strstr(report, "scale: differs: no kernel in "));
	CU_ASSERT_PTR_NOT_NULL(strstr(report, "built without -use_fast_math?"));
	CU_ASSERT_PTR_NOT_NULL(strstr(report, "kernels there for sm_90: scale ("));
	CU_ASSERT_PTR_NOT_NULL(strstr(report, "$(SCALE_NVCC_FLAGS)"));
	free(report);
#ifdef HAVE_ZSTD
	/* the same, compressed: read, and other code (not "cannot be read") */
	CU_ASSERT_EQUAL(checked(csv, "-c -arch=sm_90 -maxrregcount=64 -compress-mode=size t0-k.cu", "slowz.o", &report),
			CHECK_DIFFERS);
	CU_ASSERT_PTR_NOT_NULL(strstr(report, "built without -use_fast_math?"));
	free(report);
	/* relocatable device code (a CMake target made separable) of a kernel tuned without: said */
	char *rdc = xasprintf("-c -rdc=true -arch=sm_90 %s t0-k.cu", tuned_flags);
	CU_ASSERT_EQUAL(checked(csv, rdc, "rdc.o", &report), CHECK_DIFFERS);
	CU_ASSERT_PTR_NOT_NULL(strstr(report, "built as relocatable device code (-rdc, CMake's CUDA_SEPARABLE_COMPILATION)"));
	free(report);
	free(rdc);
#endif
	/* another register cap, which the binary records (ptxas's options): said beside the rest */
	CU_ASSERT_EQUAL(checked(csv, "-c -arch=sm_90 -maxrregcount=16 t0-k.cu", "capped.o", &report), CHECK_DIFFERS);
	CU_ASSERT_PTR_NOT_NULL(strstr(report, "built with -maxrregcount=16; the tuned build had -maxrregcount=64"));
	free(report);
	/* another target */
	char *args = xasprintf("-c -arch=sm_80 %s t0-k.cu", tuned_flags);
	CU_ASSERT_EQUAL(checked(csv, args, "sm80.o", &report), CHECK_DIFFERS);
	CU_ASSERT_PTR_NOT_NULL(strstr(report, "has no code for sm_90"));
	CU_ASSERT_PTR_NOT_NULL(strstr(report, "sm_80"));
	free(report);
	free(args);
	free(csv);
}

/* The command: its exit statuses, and results that predate kernel hashes refused (2), as is a
 * file that is no binary. */
static void test_the_command_s_exit_statuses(void)
{
	char *csv = results(), *out;
	char *args = xasprintf("-c -arch=sm_90 %s t0-k.cu", tuned_flags);
	char *obj = nvcc(args, "cmd.o"), *slow = nvcc("-c -arch=sm_90 t0-k.cu", "cmdslow.o");
	int st = proc_capture((char *[]){"./autotune", "check", obj, csv, NULL}, 60, &out);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	free(out);
	st = proc_capture((char *[]){"./autotune", "check", slow, csv, NULL}, 60, &out);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	free(out);
	const char *old = write_temp(3, "old.csv", "blockDim.x,flags,arch,nvcc_flags,code_hash\n128,winner,sm_90,,0123456789abcdef\n");
	st = proc_capture((char *[]){"./autotune", "check", obj, (char *)old, NULL}, 60, &out);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "no kernel_hash"));
	free(out);
	st = proc_capture((char *[]){"./autotune", "check", csv, csv, NULL}, 60, &out);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "not an ELF file"));
	free(out);
	free(obj);
	free(slow);
	free(args);
	free(csv);
}

/* autotune check's status and output, run in dir (NULL: here). */
static int run_check(const char *dir, const char *binary, const char *csv, char **out)
{
	char self[4096];
	CU_ASSERT_FATAL(realpath("./autotune", self) != NULL);
	char *cmd = xasprintf("cd '%s' && exec '%s' check '%s'%s%s%s", dir ? dir : ".", self, binary, csv ? " '" : "",
			      csv ? csv : "", csv ? "'" : "");
	int st = proc_capture((char *[]){"sh", "-c", cmd, NULL}, 60, out);
	free(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* What needs no nvcc: a program without device code holds no tuned kernel (1, said); results
 * that predate kernel_hash, results without a winner, a file that is no binary, and no results
 * at all are bad input (2, said). */
static void test_what_check_says_without_a_kernel(void)
{
	char self[4096], *out;
	CU_ASSERT_FATAL(realpath("./autotune", self) != NULL);
	const char *csv = write_temp(0, "x.csv",
				     "blockDim.x,flags,arch,nvcc_flags,kernel_hash,config\n"
				     "128,cold;winner,sm_90,-use_fast_math,0123456789abcdef,configs/x.yaml\n");
	CU_ASSERT_EQUAL(run_check(NULL, self, csv, &out), CHECK_DIFFERS);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "x: differs: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "has no code for sm_90"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "no device code"));
	free(out);
	const char *old = write_temp(1, "old.csv", "blockDim.x,flags,arch,code_hash\n128,winner,sm_90,0123456789abcdef\n");
	CU_ASSERT_EQUAL(run_check(NULL, self, old, &out), CHECK_BAD_INPUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "no kernel_hash"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "tune again"));
	free(out);
	const char *none = write_temp(2, "none.csv", "blockDim.x,flags,arch,kernel_hash\n128,cold,sm_90,0123456789abcdef\n");
	CU_ASSERT_EQUAL(run_check(NULL, self, none, &out), CHECK_BAD_INPUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "has no winner"));
	free(out);
	CU_ASSERT_EQUAL(run_check(NULL, csv, csv, &out), CHECK_BAD_INPUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "not an ELF file"));
	free(out);
	/* no RESULTS and no results/ where it runs */
	CU_ASSERT_EQUAL(run_check(test_dir, self, NULL, &out), CHECK_BAD_INPUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "no results/*.csv here"));
	free(out);
}

int add_check_suite(void)
{
	CU_pSuite s = CU_add_suite("check", NULL, NULL), n = add_integration_suite("check/nvcc", NULL, NULL);
	if (!s || !n)
		return -1;
	CU_add_test(s, "what check says without a kernel", test_what_check_says_without_a_kernel);
	CU_add_test(n, "builds of the recipe are the tuned code", test_builds_of_the_recipe_are_the_tuned_code);
	CU_add_test(n, "another build differs and says how", test_another_build_differs_and_says_how);
	CU_add_test(n, "the command's exit statuses", test_the_command_s_exit_statuses);
	return 0;
}
