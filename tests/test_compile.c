/* test_compile.c: ptxas report parsing (on real nvcc 13 output) and binary planning. */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compile.h"
#include "tests.h"

/* Captured from `nvcc -cubin -arch=sm_90 -Xptxas -v -maxrregcount=24` on a file with an
 * extern "C" kernel and a template instance that spills. */
static const char *log_two_kernels =
	"ptxas info    : Overriding maximum register limit 256 for '_Z2tkILi128EEvPf' with  24 of maxrregcount option\n"
	"ptxas info    : Overriding maximum register limit 256 for 'sumMatrixOnGPU2D' with  24 of maxrregcount option\n"
	"ptxas info    : 0 bytes gmem\n"
	"ptxas info    : Compiling entry function '_Z2tkILi128EEvPf' for 'sm_90'\n"
	"ptxas info    : Function properties for _Z2tkILi128EEvPf\n"
	"    640 bytes stack frame, 520 bytes spill stores, 520 bytes spill loads\n"
	"ptxas info    : Used 24 registers, used 1 barriers, 640 bytes cumulative stack size, 512 bytes smem\n"
	"ptxas info    : Compile time = 43.767 ms\n"
	"ptxas info    : Compiling entry function 'sumMatrixOnGPU2D' for 'sm_90'\n"
	"ptxas info    : Function properties for sumMatrixOnGPU2D\n"
	"    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
	"ptxas info    : Used 12 registers, used 0 barriers\n"
	"ptxas info    : Compile time = 2.547 ms\n";

static void test_ptxas_plain_entry(void)
{
	kernel_resources r;
	char *cands;
	CU_ASSERT_EQUAL(ptxas_parse(log_two_kernels, "sumMatrixOnGPU2D", &r, &cands), 0);
	CU_ASSERT_STRING_EQUAL(r.symbol, "sumMatrixOnGPU2D");
	CU_ASSERT_EQUAL(r.registers, 12);
	CU_ASSERT_EQUAL(r.barriers, 0);
	CU_ASSERT_EQUAL(r.spill_stores, 0);
	CU_ASSERT_EQUAL(r.static_smem, 0);
	free(r.symbol);
	free(cands);
}

static void test_ptxas_mangled_entry_with_spills_and_smem(void)
{
	kernel_resources r;
	char *cands;
	CU_ASSERT_EQUAL(ptxas_parse(log_two_kernels, "tk", &r, &cands), 0);
	CU_ASSERT_STRING_EQUAL(r.symbol, "_Z2tkILi128EEvPf");
	CU_ASSERT_EQUAL(r.registers, 24);
	CU_ASSERT_EQUAL(r.barriers, 1);
	CU_ASSERT_EQUAL(r.stack, 640);
	CU_ASSERT_EQUAL(r.spill_stores, 520);
	CU_ASSERT_EQUAL(r.spill_loads, 520);
	CU_ASSERT_EQUAL(r.static_smem, 512);
	free(r.symbol);
	free(cands);
}

static void test_ptxas_missing_entry_lists_the_functions(void)
{
	kernel_resources r;
	char *cands;
	CU_ASSERT_EQUAL(ptxas_parse(log_two_kernels, "sumMatrix", &r, &cands), -1);
	CU_ASSERT_PTR_NULL(r.symbol);
	CU_ASSERT_STRING_EQUAL(cands, "_Z2tkILi128EEvPf, sumMatrixOnGPU2D");
	free(cands);
}

static void test_ptxas_ambiguous_overloads(void)
{
	const char *log = "ptxas info    : Compiling entry function '_Z1kPf' for 'sm_90'\n"
			  "ptxas info    : Used 8 registers, used 0 barriers\n"
			  "ptxas info    : Compiling entry function '_Z1kPd' for 'sm_90'\n"
			  "ptxas info    : Used 10 registers, used 0 barriers\n";
	kernel_resources r;
	char *cands;
	CU_ASSERT_EQUAL(ptxas_parse(log, "k", &r, &cands), -2);
	CU_ASSERT_STRING_EQUAL(cands, "_Z1kPf, _Z1kPd");
	free(cands);
}

static void test_plan_compiles_only_distinct_compile_time_values(void)
{
	const char *text = "kernel: {source: /dev/null, entry: k}\narguments: [{name: a, type: float, count: 4}]\n"
			   "launch: {block: [x], grid: [1]}\nspace: {x: [32, 64, 128], r: [0, 32], u: [1, 2]}\n"
			   "build: {maxrregcount: r, defines: [u]}\n";
	diags d = {0};
	config cfg;
	space sp;
	build b;
	const char *path = write_temp(2, "p.yaml", text);
	CU_ASSERT_EQUAL_FATAL(config_load(path, &cfg, &d), 0);
	unlink(path);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	build_plan(&cfg, &sp, &b);
	/* 12 configurations, but the block size x never changes the binary: 2 x 2 */
	CU_ASSERT_EQUAL(sp.count, 12);
	CU_ASSERT_EQUAL(b.nbins, 4);
	for (size_t c = 0; c < sp.count; c++) {
		const value *v = space_config(&sp, c), *f = space_config(&sp, b.bins[b.of_config[c]].first_config);
		CU_ASSERT(v[1].u.i == f[1].u.i && v[2].u.i == f[2].u.i);
	}
	build_free(&b);
	space_free(&sp);
	config_free(&cfg);
	diags_free(&d);
}

int add_compile_suite(void)
{
	CU_pSuite s = CU_add_suite("compile", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "ptxas: plain entry", test_ptxas_plain_entry);
	CU_add_test(s, "ptxas: mangled entry with spills and smem", test_ptxas_mangled_entry_with_spills_and_smem);
	CU_add_test(s, "ptxas: missing entry lists functions", test_ptxas_missing_entry_lists_the_functions);
	CU_add_test(s, "ptxas: ambiguous overloads", test_ptxas_ambiguous_overloads);
	CU_add_test(s, "plan: only distinct compile-time values", test_plan_compiles_only_distinct_compile_time_values);
	return 0;
}
