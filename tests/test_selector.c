/* test_selector.c: the header of several instances (selector.c) and the run-time library
 * (runtime/autotune_select.c), on results tuned here on the fake worker (FAKE_SMS: the best block
 * size grows with n, and bx is a define, so the winners are two builds). The header's
 * NAME_select(), compiled into a program, and autotune_pick() pick alike for tuned and untuned
 * sizes; results of another spec are refused as stale. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../runtime/autotune_select.h"
#include "proc.h"
#include "selector.h"
#include "table.h"
#include "tests.h"

static char dir[128], csv[192], header[192];

/* Tunes n of 1024, 4096 and 16384 with bx a define; once per run of the suite. */
static int tuned(void)
{
	static int done = -1;
	if (done >= 0)
		return done;
	snprintf(dir, sizeof dir, "%s/sel", test_dir);
	mkdir(dir, 0777);
	char path[256], text[2048], cfg[256];
	snprintf(path, sizeof path, "%s/k.cu", dir);
	put_file(path, "extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * bx + threadIdx.x; "
		       "if (i < n) a[i] = i; }\n");
	snprintf(cfg, sizeof cfg, "%s/sizes.yaml", dir);
	snprintf(csv, sizeof csv, "%s/sizes.csv", dir);
	snprintf(header, sizeof header, "%s/sizes_tuned.h", dir);
	snprintf(text, sizeof text,
		 "name: sizes\nkernel: {source: k.cu, entry: k}\nconstants: {n: 4096}\ninstances: {n: [1024, 4096, 16384]}\n"
		 "arguments:\n  - {name: a, type: float, count: n, output: true}\n  - {name: n, type: int32, value: n}\n"
		 "space: {bx: [32, 64, 128, 256]}\nbuild: {defines: [bx]}\nlaunch: {block: [bx], grid: [\"ceil_div(n, bx)\"]}\n"
		 "measure: {finalists: 0, metrics: none}\noutput: {csv: %s, header: %s}\n",
		 csv, header);
	put_file(cfg, text);
	setenv("AUTOTUNE_WORKER", "build/fake_worker", 1);
	setenv("FAKE_SMS", "4", 1);
	done = run_autotune_on(cfg, (char *[]){"-q", NULL}, NULL) == 0;
	unsetenv("FAKE_SMS");
	fake_worker_forget();
	return done;
}

/* The sizes asked: tuned ones, between them (nearer either side in log scale), outside. */
static const double sizes[] = {1024, 4096, 16384, 1, 500, 2047, 2049, 3000, 8191, 8193, 12000, 1e9};
enum { NSIZES = sizeof sizes / sizeof *sizes };

/* The header's pick per size, as a program compiled with it prints them: instance, bx, variant. */
static int header_picks(int inst[NSIZES], int bx[NSIZES], int variant[NSIZES])
{
	char src[256], exe[256], text[2048];
	snprintf(src, sizeof src, "%s/picks.c", dir);
	snprintf(exe, sizeof exe, "%s/picks", dir);
	size_t used = (size_t)snprintf(text, sizeof text,
				       "#include <stdio.h>\n#include \"sizes_tuned.h\"\nint main(void)\n{\n"
				       "\tstatic const double sizes[] = {");
	for (int i = 0; i < NSIZES; i++)
		used += (size_t)snprintf(text + used, sizeof text - used, "%s%.17g", i ? ", " : "", sizes[i]);
	snprintf(text + used, sizeof text - used,
		 "};\n\tfor (int i = 0; i < %d; i++) {\n\t\tconst struct sizes_instance *s = sizes_select(sizes[i]);\n"
		 "\t\tprintf(\"%%d %%d %%d\\n\", (int)(s - sizes_instances), s->bx, s->variant);\n\t}\n"
		 "\treturn sizes_select(0) != 0;\n}\n",
		 NSIZES);
	put_file(src, text);
	char *out = NULL, inc[200];
	snprintf(inc, sizeof inc, "-I%s", dir);
	int st = proc_capture((char *[]){"cc", "-std=c99", "-Wall", "-Werror", inc, "-o", exe, src, NULL}, 60, &out);
	if (st != 0)
		fprintf(stderr, "\n%s\n", out ? out : "");
	free(out);
	out = NULL;
	if (st != 0 || proc_capture((char *[]){exe, NULL}, 30, &out) != 0) {
		free(out);
		return -1;
	}
	const char *p = out;
	int n = 0;
	for (int used_n; n < NSIZES && sscanf(p, "%d %d %d%n", &inst[n], &bx[n], &variant[n], &used_n) == 3; n++)
		p += used_n;
	free(out);
	return n == NSIZES ? 0 : -1;
}

static void test_the_header_selects_the_tuned_or_nearest_instance(void)
{
	CU_ASSERT_FATAL(tuned());
	int inst[NSIZES], bx[NSIZES], variant[NSIZES];
	CU_ASSERT_EQUAL_FATAL(header_picks(inst, bx, variant), 0);
	/* the tuned sizes: their own winners (bx 128 at 1024, 256 above) */
	CU_ASSERT_EQUAL(inst[0], 0);
	CU_ASSERT_EQUAL(inst[1], 1);
	CU_ASSERT_EQUAL(inst[2], 2);
	CU_ASSERT_EQUAL(bx[0], 128);
	CU_ASSERT_EQUAL(bx[1], 256);
	/* nearest in log scale: 2047 is nearer 1024, 2049 nearer 4096; below and above the ends */
	CU_ASSERT_EQUAL(inst[3], 0);
	CU_ASSERT_EQUAL(inst[5], 0);
	CU_ASSERT_EQUAL(inst[6], 1);
	CU_ASSERT_EQUAL(inst[8], 1);
	CU_ASSERT_EQUAL(inst[9], 2);
	CU_ASSERT_EQUAL(inst[11], 2);
	/* bx is compiled in: two builds, and the entry says which */
	CU_ASSERT_EQUAL(variant[0], 0);
	CU_ASSERT_EQUAL(variant[1], 1);
	CU_ASSERT_EQUAL(variant[2], 1);
	char *text = read_text(header), mk[200];
	CU_ASSERT_PTR_NOT_NULL(text ? strstr(text, "#define SIZES_VARIANTS 2") : NULL);
	free(text);
	snprintf(mk, sizeof mk, "%s/sizes.mk", dir);
	CU_ASSERT_EQUAL(count_in(mk, "SIZES_V1_NVCC_FLAGS := -Dbx=256"), 1);
	CU_ASSERT_EQUAL(count_in(mk, "SIZES_V1_NVCC_FLAGS += -DSIZES_VARIANT=1 -Dk=k_v1"), 1);
}

static void test_the_library_picks_as_the_header_does(void)
{
	CU_ASSERT_FATAL(tuned());
	int inst[NSIZES], bx[NSIZES], variant[NSIZES];
	CU_ASSERT_EQUAL_FATAL(header_picks(inst, bx, variant), 0);
	table t;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(table_load(csv, &t, &d), 0);
	const char *spec = table_field(&t, 0, "spec_hash");
	char err[512] = "";
	autotune_results *r = autotune_results_load(csv, spec, err, sizeof err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(autotune_constants(r), 1);
	CU_ASSERT_STRING_EQUAL(autotune_constant_name(r, 0), "n");
	CU_ASSERT_STRING_EQUAL(autotune_param_name(r, 0), "bx");
	instance_view v;
	CU_ASSERT_EQUAL_FATAL(instance_view_of(&t, &v, &d), 0);
	for (int i = 0; i < NSIZES; i++) {
		long pick = autotune_pick(r, &sizes[i], "Fake GPU");
		CU_ASSERT_EQUAL(autotune_instance(r, pick), inst[i]);
		CU_ASSERT_EQUAL(autotune_param(r, pick, 0), bx[i]);
		/* and the tuner's own reading of the results */
		CU_ASSERT_EQUAL(selector_pick(&v, &sizes[i]), inst[i]);
	}
	CU_ASSERT_EQUAL(autotune_pick(r, (double[]){0}, NULL), -1);
	CU_ASSERT(autotune_time_ms(r, autotune_pick(r, (double[]){1024}, NULL)) > 0);
	instance_view_free(&v);
	autotune_results_free(r);
	/* results of another spec: stale, refused */
	r = autotune_results_load(csv, "0123456789abcdef", err, sizeof err);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "stale results: tuned for spec_hash"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "built for 0123456789abcdef"));
	r = autotune_results_load(header, NULL, err, sizeof err);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "not autotune's results"));
	table_free(&t);
	diags_free(&d);
}

int add_selector_suite(void)
{
	CU_pSuite s = CU_add_suite("selector", NULL, fake_worker_forget);
	if (!s)
		return -1;
	CU_add_test(s, "the header selects the tuned or nearest instance", test_the_header_selects_the_tuned_or_nearest_instance);
	CU_add_test(s, "the library picks as the header does", test_the_library_picks_as_the_header_does);
	return 0;
}
