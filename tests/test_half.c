/* test_half.c: the 16-bit floats' conversions (lib/half.h), which the host (fills from
 * expressions, scalars, the host reference's scalars) and the worker's helper kernels share: exact
 * to double, rounded to nearest even from double in one step, with subnormals, Inf, NaN and
 * signed zeros; the element type layer's use of them (lib/elem.h); and the acceptance's kernels
 * (configs/layernorm_bf16.yaml, configs/axpy_half2.yaml) tuned end to end on the fake worker. */
#include <CUnit/CUnit.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elem.h"
#include "half.h"
#include "tests.h"

static uint64_t bits_of(double d)
{
	uint64_t b;
	memcpy(&b, &d, sizeof b);
	return b;
}

/* Every encoding comes back from its value unchanged (a NaN as a quiet NaN of its sign), and
 * the values grow with the encodings: one conversion checks the other over all 65536. */
static void test_every_encoding_round_trips(void)
{
	for (int fmt = 0; fmt < 2; fmt++) {
		int mbits = fmt ? BF16_MANT : HALF_MANT, ebits = fmt ? BF16_EXP : HALF_EXP, bad = 0;
		uint16_t inf = (uint16_t)(((1u << ebits) - 1) << mbits), quiet = (uint16_t)(1u << (mbits - 1));
		for (uint32_t h = 0; h < 0x10000; h++) {
			double d = narrow_to_double((uint16_t)h, mbits, ebits);
			uint16_t back = narrow_from_double(d, mbits, ebits);
			int nan = (h & 0x7FFF) > inf;
			if (nan ? !isnan(d) || back != ((h & 0x8000) | inf | quiet) : back != h)
				bad++;
			/* ordered: the next positive encoding is larger (up to Inf) */
			if (h < inf && !(narrow_to_double((uint16_t)(h + 1), mbits, ebits) > d))
				bad++;
		}
		CU_ASSERT_EQUAL(bad, 0);
	}
}

/* Known values: the largest, the smallest normal and subnormal, thirds, Inf, NaN, signed zero. */
static void test_known_values(void)
{
	CU_ASSERT_EQUAL(half_to_double(0x3C00), 1.0);
	CU_ASSERT_EQUAL(half_to_double(0x7BFF), 65504.0);
	CU_ASSERT_EQUAL(half_to_double(0x0400), ldexp(1, -14));
	CU_ASSERT_EQUAL(half_to_double(0x0001), ldexp(1, -24));
	CU_ASSERT_EQUAL(half_to_double(0x03FF), ldexp(1023, -24));
	CU_ASSERT_EQUAL(half_to_double(0x3555), 0.333251953125);
	CU_ASSERT_EQUAL(half_to_double(0xC000), -2.0);
	CU_ASSERT_EQUAL(half_to_double(0xFC00), -INFINITY);
	CU_ASSERT(isnan(half_to_double(0x7E00)) && isnan(half_to_double(0x7C01)));
	CU_ASSERT(half_to_double(0x8000) == 0 && signbit(half_to_double(0x8000)));
	CU_ASSERT_EQUAL(bf16_to_double(0x3F80), 1.0);
	CU_ASSERT_EQUAL(bf16_to_double(0x7F7F), 0x1.FEp127);
	CU_ASSERT_EQUAL(bf16_to_double(0x0001), ldexp(1, -133));
	CU_ASSERT_EQUAL(bf16_to_double(0x0080), ldexp(1, -126));
	CU_ASSERT_EQUAL(bf16_to_double(0xBEAB), -0.333984375);
	CU_ASSERT_EQUAL(bf16_to_double(0x7F80), INFINITY);
	CU_ASSERT(isnan(bf16_to_double(0xFFC0)) && signbit(bf16_to_double(0xFFC0)));
}

/* Rounding: ties to even at every place a tie can be (normal, subnormal, into the normals,
 * into Inf, into zero), a hair past a tie rounds away, and no double rounding. */
static void test_rounding(void)
{
	struct {
		double d;
		uint16_t half, bf16;
	} cases[] = {
		{1.0 + ldexp(1, -11), 0x3C00, 0x3F80},                  /* half's tie: to even (down) */
		{1.0 + ldexp(3, -11), 0x3C02, 0x3F80},                  /* half's tie: to even (up) */
		{1.0 + ldexp(1, -11) + ldexp(1, -40), 0x3C01, 0x3F80}, /* past the tie: up, not via float */
		{1.0 + ldexp(1, -8), 0x3C04, 0x3F80},                   /* bfloat16's tie: to even (down) */
		{1.0 + ldexp(3, -8), 0x3C0C, 0x3F82},                   /* bfloat16's tie: to even (up) */
		{1.0 + ldexp(1, -8) + ldexp(1, -30), 0x3C04, 0x3F81},  /* past it: up (float would tie) */
		{65504.0, 0x7BFF, 0x4780},
		{65519.99, 0x7BFF, 0x4780},
		{65520.0, 0x7C00, 0x4780},                              /* half's tie into Inf: Inf is even */
		{1e300, 0x7C00, 0x7F80},
		{-1e300, 0xFC00, 0xFF80},
		{0x1.FEFFFFFFFFFFFp127, 0x7C00, 0x7F7F},                /* below bfloat16's tie into Inf */
		{0x1.FFp127, 0x7C00, 0x7F80},                           /* its tie: Inf */
		{ldexp(1, -24), 0x0001, 0x3380},                        /* half's smallest subnormal */
		{ldexp(1, -25), 0x0000, 0x3300},                        /* half's tie with zero: zero */
		{ldexp(1, -25) + ldexp(1, -60), 0x0001, 0x3300},        /* past it */
		{ldexp(3, -25), 0x0002, 0x33C0},                        /* a subnormal tie: to even (up) */
		{ldexp(5, -25), 0x0002, 0x3420},                        /* a subnormal tie: to even (down) */
		{ldexp(1, -14) - ldexp(1, -25), 0x0400, 0x3880},        /* tie into the smallest normal */
		{ldexp(1, -133), 0x0000, 0x0001},                       /* bfloat16's smallest subnormal */
		{ldexp(1, -134), 0x0000, 0x0000},                       /* its tie with zero */
		{ldexp(3, -134), 0x0000, 0x0002},                       /* its subnormal tie: even (up) */
		{-ldexp(1, -200), 0x8000, 0x8000},                      /* far below: a zero of its sign */
		{4.9e-324, 0x0000, 0x0000},                             /* a double's subnormal */
		{-0.0, 0x8000, 0x8000},
		{INFINITY, 0x7C00, 0x7F80},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		CU_ASSERT_EQUAL(half_from_double(cases[i].d), cases[i].half);
		CU_ASSERT_EQUAL(bf16_from_double(cases[i].d), cases[i].bf16);
		if (half_from_double(cases[i].d) != cases[i].half || bf16_from_double(cases[i].d) != cases[i].bf16)
			fprintf(stderr, "case %zu: %a gives %04x, %04x\n", i, cases[i].d, half_from_double(cases[i].d),
				bf16_from_double(cases[i].d));
	}
	/* NaN: quiet, its sign kept */
	CU_ASSERT_EQUAL(half_from_double(NAN), 0x7E00);
	CU_ASSERT_EQUAL(half_from_double(-NAN), 0xFE00);
	CU_ASSERT_EQUAL(bf16_from_double(NAN), 0x7FC0);
}

/* Nearest, by the definition: over many doubles of every magnitude, no encoding is nearer than the
 * one given, and at a tie the one given is even. */
static void test_nearest_over_random_doubles(void)
{
	uint64_t s = 0x243F6A8885A308D3ull;
	int bad = 0;
	for (int i = 0; i < 200000; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		/* exponents around both formats' ranges, any mantissa, either sign */
		uint64_t b = (s & 0x800FFFFFFFFFFFFFull) | (uint64_t)(1023 - 140 + (int)((s >> 52) % 280)) << 52;
		if (i % 4 == 0) /* near a tie: the low mantissa bits cleared */
			b &= ~0xFFFFFFFFFull;
		double d;
		memcpy(&d, &b, sizeof d);
		for (int fmt = 0; fmt < 2; fmt++) {
			int mbits = fmt ? BF16_MANT : HALF_MANT, ebits = fmt ? BF16_EXP : HALF_EXP;
			uint16_t h = narrow_from_double(d, mbits, ebits), inf = (uint16_t)(((1u << ebits) - 1) << mbits);
			if ((h & 0x7FFF) == inf || (h >> 15) != (b >> 63))
				continue; /* overflow is checked by the known values */
			double v = narrow_to_double(h, mbits, ebits), err = fabs(d - v);
			uint16_t mag = h & 0x7FFF;
			double up = narrow_to_double((uint16_t)((h & 0x8000) | (mag + 1)), mbits, ebits);
			double down = mag ? narrow_to_double((uint16_t)(h - 1), mbits, ebits) : -v;
			if (mag + 1 < inf && (fabs(d - up) < err || (fabs(d - up) == err && (h & 1))))
				bad++;
			if (fabs(d - down) < err || (fabs(d - down) == err && (h & 1) && mag))
				bad++;
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
}

/* The element layer: the names (and CUDA's), sizes, lanes, an integer rounded once, defaults. */
static void test_element_types(void)
{
	elem_type t;
	CU_ASSERT(elem_parse("half", &t) == 0 && t == ELEM_HALF && elem_size(t) == 2 && elem_is_float(t));
	CU_ASSERT(elem_parse("__nv_bfloat16", &t) == 0 && t == ELEM_BFLOAT16);
	CU_ASSERT(elem_parse("__half2", &t) == 0 && t == ELEM_HALF2 && elem_size(t) == 4 && elem_lanes(t) == 2 &&
		  elem_base(t) == ELEM_HALF);
	CU_ASSERT(elem_parse("bfloat162", &t) == 0 && elem_base(t) == ELEM_BFLOAT16 && !strcmp(elem_name(t), "bfloat162"));
	CU_ASSERT_NOT_EQUAL(elem_parse("float16", &t), 0);
	unsigned char p[2];
	uint16_t h;
	elem_put(p, ELEM_HALF, value_int(2049)); /* a tie: to even, 2048 */
	memcpy(&h, p, 2);
	CU_ASSERT_EQUAL(h, 0x6800);
	/* 2^60 + 2^52 + 1: just past bfloat16's tie; a double rounded to nearest would land on it */
	elem_put(p, ELEM_BFLOAT16, value_int((1ll << 60) + (1ll << 52) + 1));
	memcpy(&h, p, 2);
	CU_ASSERT_EQUAL(h, 0x5D81);
	elem_put(p, ELEM_BFLOAT16, value_int(-(1ll << 60) - (1ll << 52)));
	memcpy(&h, p, 2);
	CU_ASSERT_EQUAL(h, 0xDD80);
	elem_put(p, ELEM_HALF, value_float(-0.1));
	memcpy(&h, p, 2);
	CU_ASSERT_EQUAL(h, 0xAE66);
	CU_ASSERT_EQUAL(elem_default_rtol(ELEM_HALF2), ldexp(1, -9));
	CU_ASSERT_EQUAL(elem_default_rtol(ELEM_BFLOAT16), ldexp(1, -6));
	CU_ASSERT_EQUAL(elem_default_rtol(ELEM_FLOAT), 1e-5);
	CU_ASSERT_EQUAL(elem_default_atol(ELEM_DOUBLE4), 1e-8);
	CU_ASSERT_EQUAL(bits_of(elem_int_to_odd(LLONG_MIN)), bits_of(-ldexp(1, 63)));
}

#define DIR "scratch/half"

/* The CSV's rows with this status (a status is a whole field, quoted or not). */
static int rows_with(const char *csv, const char *status)
{
	char field[64];
	snprintf(field, sizeof field, ",%s,", status);
	return (int)occurrences(csv, field);
}

/* Tunes a shipped config on the fake worker (fake nvcc), logging what reaches the worker to
 * DIR/NAME.args: the exit status; the run's output in *out. */
static int tune_shipped(const char *name, char **out)
{
	char config[128], log[128];
	snprintf(config, sizeof config, "configs/%s.yaml", name);
	snprintf(log, sizeof log, DIR "/%s.args", name);
	mkdir(DIR, 0755);
	unlink(log);
	setenv("AUTOTUNE_WORKER", "build/fake_worker", 1);
	setenv("FAKE_ARGS_LOG", log, 1);
	int rc = run_autotune((char *[]){"--fresh", "-q", "--t4", "--cache-dir", DIR "/cache", config, NULL}, out);
	unsetenv("FAKE_ARGS_LOG");
	unsetenv("AUTOTUNE_WORKER");
	return rc;
}

/* The acceptance's bf16 layernorm (llm.c's shape, 8 x 1024 rows of 768) tuned and verified on
 * the fake worker: bfloat16 arrays and float statistics reach the worker by their types, with no
 * tolerance given (each output's type's default, NaN on the wire), every configuration that
 * launches passes, and the header, make fragment and T4 file are written. */
static void test_a_bf16_layernorm_tunes(void)
{
	char *out;
	int rc = tune_shipped("layernorm_bf16", &out);
	CU_ASSERT_EQUAL(rc, 0);
	if (rc)
		fprintf(stderr, "\n%s\n", out);
	char *args = slurp(DIR "/layernorm_bf16.args"), *csv = slurp("results/layernorm_bf16.csv"),
	     *header = slurp("results/layernorm_bf16_tuned.h"), *t4 = slurp("results/layernorm_bf16.t4.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(args);
	CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
	CU_ASSERT_PTR_NOT_NULL(strstr(args, "array 0 bfloat16 6291456 zeros\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(args, "array 1 float 8192 zeros\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(args, "array 3 bfloat16 6291456 random\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(args, "array 4 bfloat16 768 normal\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(args, "tolerance nan nan\n"));
	CU_ASSERT_PTR_NULL(strstr(args, "tolerance 1e-05"));
	/* the fake registers cap 1024 threads; every other shape passes */
	CU_ASSERT_EQUAL(rows_with(csv, "ok") + rows_with(csv, "launch-error"), 30);
	CU_ASSERT(rows_with(csv, "ok") >= 20);
	CU_ASSERT_PTR_NOT_NULL(header && strstr(header, "#define LAYERNORM_BF16_VEC "));
	CU_ASSERT_PTR_NOT_NULL(t4 && strstr(t4, "\"VEC\""));
	free(args), free(csv), free(header), free(t4), free(out);
}

/* The half2 kernel: half2 arrays, a half scalar (the kernel's __half: 2 bytes, which the argument
 * check reads from the binary) and rtol 0 on the wire; all 20 configurations pass. Given as a float
 * instead, the scalar is refused at its line, saying which types a 2-byte parameter takes. */
static void test_a_half2_kernel_tunes(void)
{
	char *out;
	int rc = tune_shipped("axpy_half2", &out);
	CU_ASSERT_EQUAL(rc, 0);
	char *args = slurp(DIR "/axpy_half2.args"), *csv = slurp("results/axpy_half2.csv");
	CU_ASSERT_PTR_NOT_NULL_FATAL(args);
	CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
	CU_ASSERT_PTR_NOT_NULL(strstr(args, "array 0 half2 16777216 zeros\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(args, "array 1 half2 16777216 random\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(args, "scalar 3 half 1.25\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(args, "tolerance 0 0\n"));
	CU_ASSERT_EQUAL(rows_with(csv, "ok"), 20);
	free(args), free(csv), free(out);
	put_file(DIR "/wrong.yaml", "name: wrong_half\n"
				    "kernel: {source: ../../kernels/axpy_half2.cu, entry: axpy_half2}\n"
				    "arguments:\n"
				    "  - {name: out, type: half2, count: 1024, output: true}\n"
				    "  - {name: x, type: half2, count: 1024}\n"
				    "  - {name: y, type: half2, count: 1024}\n"
				    "  - {name: a, type: float, value: 1.25}\n"
				    "  - {name: n, type: int32, value: 1024}\n"
				    "space: {BLOCK: [64]}\n"
				    "launch: {block: [BLOCK], grid: [16]}\n"
				    "output: {csv: " DIR "/wrong.csv}\n");
	setenv("AUTOTUNE_WORKER", "build/fake_worker", 1);
	rc = run_autotune((char *[]){"--fresh", "-q", "--cache-dir", DIR "/cache", DIR "/wrong.yaml", NULL}, &out);
	unsetenv("AUTOTUNE_WORKER");
	CU_ASSERT_NOT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "argument 'a' is a scalar float (4 bytes), but parameter 4 of kernel 'axpy_half2' "
					   "takes 2 bytes: an int16, uint16, half or bfloat16 value"));
	if (!strstr(out, "half or bfloat16 value"))
		fprintf(stderr, "\n%s\n", out);
	free(out);
}

int add_half_suite(void)
{
	CU_pSuite s = CU_add_suite("half", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "every encoding round trips", test_every_encoding_round_trips);
	CU_add_test(s, "known values", test_known_values);
	CU_add_test(s, "rounding", test_rounding);
	CU_add_test(s, "nearest over random doubles", test_nearest_over_random_doubles);
	CU_add_test(s, "element types", test_element_types);
	CU_add_test(s, "a bf16 layernorm tunes", test_a_bf16_layernorm_tunes);
	CU_add_test(s, "a half2 kernel tunes", test_a_half2_kernel_tunes);
	return 0;
}
