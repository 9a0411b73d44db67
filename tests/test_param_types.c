/* test_param_types.c: a C++ kernel's parameter types read from its mangled name
 * (tuner/build/param_types.c), and the arguments checked against them: a value of the right size but
 * the wrong kind (an int32 for a float, a bfloat16 array for __half *) is refused, said at the
 * argument; a name that says nothing (extern "C", a template) checks nothing. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "param_types.h"
#include "tests.h"

static void test_mangled_names_say_the_types(void)
{
	param_type t[16];
	/* (__half2 *, const __half2 *, const __half2 *, __half, int): substitutions of a pointer */
	CU_ASSERT_EQUAL_FATAL(param_types("_Z10axpy_half2P7__half2PKS_S2_6__halfi", t, 16), 5);
	CU_ASSERT(t[0].elem == ELEM_HALF2 && t[0].pointers == 1);
	CU_ASSERT(t[1].elem == ELEM_HALF2 && t[1].pointers == 1 && t[2].elem == ELEM_HALF2 && t[2].pointers == 1);
	CU_ASSERT(t[3].elem == ELEM_HALF && t[3].pointers == 0);
	CU_ASSERT(t[4].elem == ELEM_INT32 && t[4].pointers == 0);
	/* (__nv_bfloat16 *, float *, float *, const __nv_bfloat16 *, ..., int, int) */
	CU_ASSERT_EQUAL_FATAL(param_types("_Z2lnP13__nv_bfloat16PfS1_PKS_S3_S3_ii", t, 16), 8);
	CU_ASSERT(t[0].elem == ELEM_BFLOAT16 && t[1].elem == ELEM_FLOAT && t[2].elem == ELEM_FLOAT && t[2].pointers == 1);
	CU_ASSERT(t[3].elem == ELEM_BFLOAT16 && t[5].elem == ELEM_BFLOAT16 && t[5].pointers == 1 && t[7].elem == ELEM_INT32);
	/* as nvcc 13 mangles (const float4 *, float2 *, unsigned long long, double, const int *, char *,
	 * bool, __nv_bfloat162 *, const __nv_bfloat162 *): S7_ is the ninth candidate */
	CU_ASSERT_EQUAL_FATAL(param_types("_Z2k3PK6float4P6float2ydPKiPcbP14__nv_bfloat162PKS7_", t, 16), 9);
	CU_ASSERT(t[0].elem == ELEM_FLOAT4 && t[0].pointers == 1 && t[1].elem == ELEM_FLOAT2 && t[2].elem == ELEM_UINT64);
	CU_ASSERT(t[3].elem == ELEM_DOUBLE && t[4].elem == ELEM_INT32 && t[4].pointers == 1 && t[5].elem == ELEM_INT8);
	CU_ASSERT(t[6].elem == ELEM_UINT8 && t[7].elem == ELEM_BFLOAT162 && t[8].elem == ELEM_BFLOAT162 && t[8].pointers == 1);
	/* builtins (const float *, unsigned long long, double, _Float16), a struct of the program's, void * */
	CU_ASSERT_EQUAL_FATAL(param_types("_Z1kPKfydDF16_4Cell10Pv", t, 16), -1); /* 10Pv: a bad length */
	CU_ASSERT_EQUAL_FATAL(param_types("_Z1kPKfydDF16_4CellPv", t, 16), 6);
	CU_ASSERT(t[0].elem == ELEM_FLOAT && t[1].elem == ELEM_UINT64 && t[2].elem == ELEM_DOUBLE && t[3].elem == ELEM_HALF);
	CU_ASSERT(t[4].elem == -1 && t[5].elem == -1 && t[5].pointers == 1);
	CU_ASSERT_EQUAL(param_types("_Z1kv", t, 16), 0);
	/* what it does not read */
	CU_ASSERT_EQUAL(param_types("axpy_half2", t, 16), -1);             /* extern "C" */
	CU_ASSERT_EQUAL(param_types("_Z6reduceILi256EEvPiS0_j", t, 16), -1); /* a template */
	CU_ASSERT_EQUAL(param_types("_ZN2ns1kEPf", t, 16), -1);             /* a nested name */
	CU_ASSERT_EQUAL(param_types("_Z1kPFviE", t, 16), -1);               /* a function pointer */
	CU_ASSERT_EQUAL(param_types("_Z1kS_", t, 16), -1);                  /* a substitution of nothing */
}

static void test_what_fits(void)
{
	param_type f = {ELEM_FLOAT, 0}, fp = {ELEM_FLOAT, 1}, hp = {ELEM_HALF, 1}, u16 = {ELEM_UINT16, 0},
		   h = {ELEM_HALF, 0}, vp = {-1, 1}, up = {ELEM_UINT32, 1};
	CU_ASSERT(param_type_fits(ELEM_FLOAT, 0, f) && !param_type_fits(ELEM_INT32, 0, f));
	CU_ASSERT(param_type_fits(ELEM_FLOAT4, 1, fp) && !param_type_fits(ELEM_FLOAT, 0, fp) && !param_type_fits(ELEM_FLOAT, 1, f));
	CU_ASSERT(param_type_fits(ELEM_HALF2, 1, hp) && !param_type_fits(ELEM_BFLOAT16, 1, hp) && !param_type_fits(ELEM_INT16, 1, hp));
	CU_ASSERT(param_type_fits(ELEM_HALF, 0, u16) && !param_type_fits(ELEM_INT16, 0, h)); /* a half's bits, not an int as a half */
	CU_ASSERT(param_type_fits(ELEM_DOUBLE, 1, vp) && param_type_fits(ELEM_INT32, 1, up));
}

/* End to end (fake nvcc): an int32 scalar for a C++ kernel's float is refused at the argument, a
 * bfloat16 array for its __half * too; the same config with the right types tunes. */
static void test_a_wrong_kind_is_refused_at_the_argument(void)
{
	mkdir("scratch/param_types", 0755);
	put_file("scratch/param_types/k.cu", "#include <cuda_fp16.h>\n"
					      "__global__ void k(__half *out, const __half *in, float s, int n) { }\n");
	static const char *const cases[][3] = {
		{"half", "int32", "argument 's' is a scalar int32, but parameter 3 of kernel 'k' is float (its mangled name _Z1k"},
		{"bfloat16", "float", "argument 'in' is an array of bfloat16, but parameter 2 of kernel 'k' is half *"},
		{"half", "float", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char text[1024];
		snprintf(text, sizeof text,
			 "name: pt\nkernel: {source: k.cu, entry: k}\narguments:\n"
			 "  - {name: out, type: half, count: 256, output: true}\n"
			 "  - {name: in, type: %s, count: 256}\n"
			 "  - {name: s, type: %s, value: 2}\n"
			 "  - {name: n, type: int32, value: 256}\n"
			 "space: {bx: [32, 64]}\nlaunch: {block: [bx], grid: [8]}\nmeasure: {finalists: 0}\n"
			 "output: {csv: scratch/param_types/pt.csv, header: scratch/param_types/pt_tuned.h}\n",
			 cases[i][0], cases[i][1]);
		put_file("scratch/param_types/pt.yaml", text);
		setenv("AUTOTUNE_WORKER", "build/fake_worker", 1);
		char *out;
		int rc = run_autotune((char *[]){"--fresh", "-q", "scratch/param_types/pt.yaml", NULL}, &out);
		unsetenv("AUTOTUNE_WORKER");
		if (cases[i][2]) {
			CU_ASSERT_NOT_EQUAL(rc, 0);
			CU_ASSERT_PTR_NOT_NULL(strstr(out, cases[i][2]));
			CU_ASSERT_PTR_NOT_NULL(strstr(out, i == 0 ? "pt.yaml:6:5: " : "pt.yaml:5:5: "));
		} else
			CU_ASSERT_EQUAL(rc, 0);
		if (rc == 0 ? cases[i][2] != NULL : !cases[i][2] || !strstr(out, cases[i][2]))
			fprintf(stderr, "\n  case %zu: exit %d\n%s\n", i, rc, out);
		free(out);
	}
}

int add_param_types_suite(void)
{
	CU_pSuite s = CU_add_suite("param_types", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "mangled names say the types", test_mangled_names_say_the_types);
	CU_add_test(s, "what fits", test_what_fits);
	CU_add_test(s, "a wrong kind is refused at the argument", test_a_wrong_kind_is_refused_at_the_argument);
	return 0;
}
