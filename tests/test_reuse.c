/* test_reuse.c: measurements found by what decided them (plan_identity, journal_reuse): after an
 * edit of the kernel or the config, a run measures only the configurations whose binary, launch
 * or inputs changed, and never takes a measurement made on another GPU, driver or inputs. On the
 * fake nvcc, whose code hash is of the preprocessed source (comments gone, #if decided), and the
 * fake worker, which logs each run ("run BLOCK ROLE GPU"); reuse/nvcc, with the real nvcc. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "reuse.h"
#include "tests.h"

/* block = bx + TILE: every configuration launches another block size, so that the fake worker
 * times each differently (1 + block / 1000 ms) and the winner (bx=32 TILE=16) has no tie */
#define KERNEL                                                                                        \
	"/* COMMENT */\n"                                                                             \
	"extern \"C\" __global__ void k(float *a, const float *b, int n) {\n"                         \
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"                                          \
	"#if TILE == 32\n"                                                                            \
	"\tif (i < n) a[i] = TILE32_BODY;\n"                                                          \
	"#else\n"                                                                                     \
	"\tif (i < n) a[i] = b[i];\n"                                                                 \
	"#endif\n"                                                                                    \
	"}\n"

static int finalists = 3;
static char dir[128], config_path[160], journal_path[160], runs[160], csv[160], cache[160];

/* The kernel with its comment and its TILE == 32 line's expression. */
static void kernel(const char *comment, const char *tile32)
{
	char path[200], text[1024];
	snprintf(path, sizeof path, "%s/k.cu", dir);
	snprintf(text, sizeof text, "%s", KERNEL);
	char *at = strstr(text, "COMMENT"), rest[1024];
	snprintf(rest, sizeof rest, "%s", at + strlen("COMMENT"));
	snprintf(at, sizeof text - (size_t)(at - text), "%s%s", comment, rest);
	at = strstr(text, "TILE32_BODY");
	snprintf(rest, sizeof rest, "%s", at + strlen("TILE32_BODY"));
	snprintf(at, sizeof text - (size_t)(at - text), "%s%s", tile32, rest);
	put_file(path, text);
}

/* The config, with a comment line, its space and the input b's fill. */
static void write_config(const char *comment, const char *space, const char *fill, int n)
{
	char text[2048];
	snprintf(text, sizeof text,
		 "%s\nname: r\nkernel: {source: k.cu, entry: k}\narguments:\n"
		 "  - {name: a, type: float, count: 4096, output: true}\n"
		 "  - {name: b, type: float, count: 4096, fill: %s}\n"
		 "  - {name: n, type: int32, value: %d}\n"
		 "space: %s\nbuild: {defines: [TILE]}\n"
		 "launch: {block: [\"bx + TILE\"], grid: [\"ceil_div(4096, bx + TILE)\"]}\n"
		 "measure: {finalists: %d, metrics: none}\n"
		 "output: {csv: %s, header: %s/r_tuned.h}\n",
		 comment, fill, n, space, finalists, csv, dir);
	put_file(config_path, text);
}

#define SPACE "{bx: [32, 64], TILE: [16, 32]}"

static void setup(const char *name)
{
	snprintf(dir, sizeof dir, "%s/reuse-%s", test_dir, name);
	mkdir(dir, 0777);
	snprintf(config_path, sizeof config_path, "%s/r.yaml", dir);
	snprintf(journal_path, sizeof journal_path, "%s/r.journal", dir);
	snprintf(runs, sizeof runs, "%s/runs.log", dir);
	snprintf(csv, sizeof csv, "%s/r.csv", dir);
	snprintf(cache, sizeof cache, "%s/cache", dir);
	fake_worker_reset(dir, "r");
	kernel("a kernel", "b[i] * 2");
	write_config("# the config", SPACE, "random", 4096);
}

/* A run; its output, the number of configurations it measured (the journal's "start" records)
 * and the blocks of its runs checked against the reference in blocks[] (a "ref" run may load an
 * earlier run's reference's outputs; finalists are "time"). */
static char *run(int *started, int *blocks, int *nblocks)
{
	unlink(runs);
	char *out;
	int rc = run_autotune((char *[]){"--cache-dir", cache, config_path, NULL}, &out);
	CU_ASSERT_EQUAL(rc, 0);
	if (rc || getenv("REUSE_DEBUG"))
		fprintf(stderr, "\n%s\n", out);
	*started = count_in(journal_path, "start ");
	*nblocks = 0;
	FILE *f = fopen(runs, "r");
	char line[256], role[32];
	int block, gpu;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "run %d %31s %d", &block, role, &gpu) == 3 && !strcmp(role, "check") && *nblocks < 64)
			blocks[(*nblocks)++] = block;
	if (f)
		fclose(f);
	return out;
}

/* The runs of the last run whose log line has needle: none when it ran nothing (no log). */
static int runs_with(const char *needle)
{
	int n = count_in(runs, needle);
	return n < 0 ? 0 : n;
}

/* Whether every checked run was of a block in want (0-ended). */
static int only_blocks(const int *blocks, int n, const int *want)
{
	for (int i = 0; i < n; i++) {
		int found = 0;
		for (const int *w = want; *w && !found; w++)
			found = *w == blocks[i];
		if (!found)
			return 0;
	}
	return 1;
}

/* A comment-only edit of the kernel, then of the config: nothing of the first pass runs again
 * (the finalists are re-timed), the summary says so, and the winner is the same. */
static void test_a_comment_only_edit_measures_nothing_again(void)
{
	setup("comment");
	int started, blocks[64], n;
	char *out = run(&started, blocks, &n);
	CU_ASSERT_EQUAL(started, 4);
	CU_ASSERT_PTR_NULL(strstr(out, "(identical binaries)"));
	free(out);
	char winner[256];
	snprintf(winner, sizeof winner, "%s", winner_of(csv));
	CU_ASSERT_STRING_EQUAL(winner, "32,16");

	kernel("a kernel, with a longer comment\n * over two lines", "b[i] * 2");
	out = run(&started, blocks, &n);
	CU_ASSERT_EQUAL(started, 0);
	CU_ASSERT_EQUAL(runs_with(" check "), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "the kernel source changed since the last run"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "reused 4 measurements (identical binaries), measured 0"));
	/* the finalists are re-timed together in this run */
	CU_ASSERT(runs_with(" time ") > 0);
	CU_ASSERT_STRING_EQUAL(winner_of(csv), winner);
	CU_ASSERT_EQUAL(count_in(csv, ",ok,"), 4);
	free(out);

	write_config("# the config, retitled\n# and another comment", SPACE, "random", 4096);
	out = run(&started, blocks, &n);
	CU_ASSERT_EQUAL(started, 0);
	CU_ASSERT_EQUAL(runs_with(" check "), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "the config file changed since the last run"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "reused 4 measurements (identical binaries), measured 0"));
	CU_ASSERT_STRING_EQUAL(winner_of(csv), winner);
	free(out);

	/* the same command again: a resume of this run, nothing measured */
	out = run(&started, blocks, &n);
	CU_ASSERT_EQUAL(started, 0);
	CU_ASSERT_EQUAL(runs_with(" check "), 0);
	CU_ASSERT_STRING_EQUAL(winner_of(csv), winner);
	free(out);
}

/* Reordered value lists and an added value: only the new value's configurations are measured. */
static void test_a_reordered_list_and_an_added_value(void)
{
	setup("values");
	int started, blocks[64], n;
	free(run(&started, blocks, &n));
	CU_ASSERT_EQUAL(started, 4);
	char winner[256];
	snprintf(winner, sizeof winner, "%s", winner_of(csv));
	write_config("# the config", "{bx: [64, 128, 32], TILE: [32, 16]}", "random", 4096);
	char *out = run(&started, blocks, &n);
	CU_ASSERT_EQUAL(started, 2);
	/* bx=128: blocks 144 and 160 */
	CU_ASSERT(only_blocks(blocks, n, (int[]){144, 160, 0}));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "reused 4 measurements (identical binaries), measured 2"));
	CU_ASSERT_STRING_EQUAL(winner_of(csv), winner);
	CU_ASSERT_EQUAL(count_in(csv, ",ok,"), 6);
	free(out);
	/* how many finalists are re-timed decides nothing of the first pass */
	finalists = 2;
	write_config("# the config", "{bx: [64, 128, 32], TILE: [32, 16]}", "random", 4096);
	finalists = 3;
	out = run(&started, blocks, &n);
	CU_ASSERT_EQUAL(started, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "reused 6 measurements (identical binaries), measured 0"));
	CU_ASSERT_STRING_EQUAL(winner_of(csv), winner);
	free(out);
}

/* An edit inside #if TILE == 32 changes only those binaries: only they are measured again. */
static void test_an_edit_inside_an_if_measures_only_its_configurations(void)
{
	setup("tile");
	int started, blocks[64], n;
	free(run(&started, blocks, &n));
	CU_ASSERT_EQUAL(started, 4);
	kernel("a kernel", "b[i] * 3");
	char *out = run(&started, blocks, &n);
	CU_ASSERT_EQUAL(started, 2);
	/* TILE=32: blocks 64 and 96, each run once (checked, or the reference); a TILE=16 one is
	 * never checked again (a "ref" run of one may load its earlier outputs to check against) */
	CU_ASSERT(only_blocks(blocks, n, (int[]){64, 96, 0}));
	CU_ASSERT_EQUAL(runs_with("run 64 check") + runs_with("run 64 ref") + runs_with("run 96 check") +
				runs_with("run 96 ref"),
			2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "reused 2 measurements (identical binaries), measured 2"));
	CU_ASSERT_EQUAL(count_in(csv, ",ok,"), 4);
	free(out);
}

/* A header edited and taken back: the edit measures the configurations whose code it changed
 * (the same journal, resumed), taking it back finds their first measurements again. */
static void test_a_header_edit_taken_back_measures_nothing(void)
{
	setup("header");
	char path[200], header[200];
	snprintf(header, sizeof header, "%s/h.h", dir);
	put_file(header, "#define SCALE 2\n");
	snprintf(path, sizeof path, "%s/k.cu", dir);
	put_file(path, "#include \"h.h\"\nextern \"C\" __global__ void k(float *a, const float *b, int n) {\n"
		       "\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n#if TILE == 32\n\tif (i < n) a[i] = b[i] * SCALE;\n"
		       "#else\n\tif (i < n) a[i] = b[i];\n#endif\n}\n");
	int started, blocks[64], n;
	free(run(&started, blocks, &n));
	CU_ASSERT_EQUAL(started, 4);
	put_file(header, "#define SCALE 3\n");
	char *out = run(&started, blocks, &n);
	CU_ASSERT(only_blocks(blocks, n, (int[]){64, 96, 0}));
	CU_ASSERT_EQUAL(runs_with("run 64 check") + runs_with("run 64 ref") + runs_with("run 96 check") +
				runs_with("run 96 ref"),
			2);
	free(out);
	put_file(header, "#define SCALE 2\n");
	out = run(&started, blocks, &n);
	CU_ASSERT_EQUAL(runs_with(" check "), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "reused 2 measurements (identical binaries), measured 0"));
	CU_ASSERT_EQUAL(count_in(csv, ",ok,"), 4);
	free(out);
}

/* Another GPU model, another driver, other inputs (a fill, a scalar argument, a data file's
 * contents): nothing earlier is taken. Back on the first GPU, its measurements are. */
static void test_never_across_gpus_drivers_or_inputs(void)
{
	setup("gpu");
	int started, blocks[64], n;
	free(run(&started, blocks, &n));
	CU_ASSERT_EQUAL(started, 4);
	setenv("FAKE_OTHER_MODEL", "0", 1);
	char *out = run(&started, blocks, &n);
	unsetenv("FAKE_OTHER_MODEL");
	CU_ASSERT_EQUAL(started, 4);
	CU_ASSERT_PTR_NULL(strstr(out, "(identical binaries)"));
	free(out);
	setenv("FAKE_DRIVER", "13010", 1);
	out = run(&started, blocks, &n);
	unsetenv("FAKE_DRIVER");
	CU_ASSERT_EQUAL(started, 4);
	CU_ASSERT_PTR_NULL(strstr(out, "(identical binaries)"));
	free(out);
	/* the first GPU and driver again: what was measured on them is still kept */
	out = run(&started, blocks, &n);
	CU_ASSERT_EQUAL(started, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "reused 4 measurements (identical binaries), measured 0"));
	free(out);

	write_config("# the config", SPACE, "zeros", 4096);
	out = run(&started, blocks, &n);
	CU_ASSERT_EQUAL(started, 4);
	CU_ASSERT_PTR_NULL(strstr(out, "(identical binaries)"));
	free(out);
	write_config("# the config", SPACE, "zeros", 4000);
	out = run(&started, blocks, &n);
	CU_ASSERT_EQUAL(started, 4);
	CU_ASSERT_PTR_NULL(strstr(out, "(identical binaries)"));
	free(out);

	char data[200];
	snprintf(data, sizeof data, "%s/b.bin", dir);
	put_bytes(data, 4096 * 4);
	write_config("# the config", SPACE, "{file: b.bin}", 4000);
	out = run(&started, blocks, &n);
	CU_ASSERT_EQUAL(started, 4);
	free(out);
	/* the same file's name, other contents */
	char *bytes = calloc(4096, 4);
	FILE *f = fopen(data, "wb");
	CU_ASSERT_EQUAL(fwrite(bytes, 4, 4096, f), 4096);
	fclose(f);
	free(bytes);
	out = run(&started, blocks, &n);
	CU_ASSERT_EQUAL(started, 4);
	CU_ASSERT_PTR_NULL(strstr(out, "(identical binaries)"));
	free(out);
}

/* A journal of an older autotune (no identities) cannot say what its results measured: an edit
 * starts afresh, as it did, and says so. --fresh keeps nothing. */
static void test_older_journals_and_fresh_start_afresh(void)
{
	setup("older");
	int started, blocks[64], n;
	free(run(&started, blocks, &n));
	/* the journal without its "ident" records */
	char *text = read_text(journal_path), *kept = calloc(strlen(text) + 1, 1), *o = kept;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		if (strncmp(line, "ident ", 6))
			o += sprintf(o, "%s\n", line);
	put_file(journal_path, kept);
	free(kept);
	free(text);
	kernel("a kernel, edited", "b[i] * 2");
	char *out = run(&started, blocks, &n);
	CU_ASSERT_EQUAL(started, 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "the kernel source changed since the last run: starting afresh"));
	free(out);
	unlink(runs);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"--cache-dir", cache, "--fresh", config_path, NULL}, &out), 0);
	CU_ASSERT_EQUAL(count_in(journal_path, "start "), 4);
	CU_ASSERT_EQUAL(count_in(journal_path, "kept "), 0);
	CU_ASSERT_PTR_NULL(strstr(out, "(identical binaries)"));
	free(out);
}

/* The setting of a config text on GPU g (reuse_setting), into out. */
static void setting_of(const char *text, const device_info *g, char out[17])
{
	char kernel_path[128], path[128];
	snprintf(kernel_path, sizeof kernel_path, "%s/s.cu", test_dir);
	snprintf(path, sizeof path, "%s/s.yaml", test_dir);
	put_file(kernel_path, "extern \"C\" __global__ void k(float *a, int n) { a[0] = n; }\n");
	put_file(path, text);
	config cfg;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(config_load(path, &cfg, &d), 0);
	char *s = reuse_setting(&cfg, g, 1);
	snprintf(out, 17, "%s", s);
	free(s);
	config_free(&cfg);
	diags_free(&d);
}

/* The setting reads the config as YAML: comments, layout, value lists and the number of
 * finalists leave it as it is; a fill, a measurement setting, the GPU or its driver do not. */
static void test_the_setting_is_what_a_measurement_depends_on(void)
{
	device_info g = {.cc = 90, .driver_version = 13000, .uuid = "u0", .name = "Fake GPU"};
	const char *base = "kernel: {source: s.cu, entry: k}\n"
			   "arguments: [{name: a, type: float, count: 64, output: true}, {name: n, type: int32, value: 1}]\n"
			   "space: {bx: [32, 64]}\nlaunch: {block: [bx], grid: [1]}\nmeasure: {finalists: 3, warmup: 2}\n";
	char a[17], b[17];
	setting_of(base, &g, a);
	CU_ASSERT_EQUAL(strlen(a), 16);
	setting_of("# tuned on Tuesday\nkernel: {source: s.cu,   entry: k}  # the kernel\n"
		   "arguments:\n  - {name: a, type: float, count: 64, output: true}\n  - {name: n, type: int32, value: 1}\n"
		   "space: {bx: [64, 32, 128]}\nlaunch:\n  block: [bx]\n  grid: [1]\nmeasure: {finalists: 5, warmup: 2}\n",
		   &g, b);
	CU_ASSERT_STRING_EQUAL(a, b);
	static const char *const other[][2] = {
		{"count: 64, output", "count: 64, fill: zeros, output"},
		{"warmup: 2", "warmup: 3"},
	};
	for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
		char text[1024];
		const char *at = strstr(base, other[i][0]);
		snprintf(text, sizeof text, "%.*s%s%s", (int)(at - base), base, other[i][1], at + strlen(other[i][0]));
		setting_of(text, &g, b);
		CU_ASSERT_STRING_NOT_EQUAL(a, b);
	}
	device_info h = g;
	h.driver_version = 13010;
	setting_of(base, &h, b);
	CU_ASSERT_STRING_NOT_EQUAL(a, b);
	h = g;
	snprintf(h.uuid, sizeof h.uuid, "u1");
	setting_of(base, &h, b);
	CU_ASSERT_STRING_NOT_EQUAL(a, b);
}

/* With the real nvcc: a comment-only edit compiles to the same code hash, so nothing is measured
 * again; an edit inside #if TILE == 32 changes only those binaries. */
static void test_with_nvcc_a_comment_keeps_the_code_and_an_if_only_its_own(void)
{
	setup("nvcc");
	int started, blocks[64], n;
	free(run(&started, blocks, &n));
	CU_ASSERT_EQUAL(started, 4);
	kernel("a kernel,\n * its comment edited", "b[i] * 2");
	char *out = run(&started, blocks, &n);
	CU_ASSERT_EQUAL(started, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "reused 4 measurements (identical binaries), measured 0"));
	free(out);
	kernel("a kernel,\n * its comment edited", "b[i] * 3");
	out = run(&started, blocks, &n);
	CU_ASSERT_EQUAL(started, 2);
	CU_ASSERT(only_blocks(blocks, n, (int[]){64, 96, 0}));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "reused 2 measurements (identical binaries), measured 2"));
	free(out);
}

int add_reuse_suite(void)
{
	CU_pSuite s = CU_add_suite("reuse", NULL, NULL), nv = add_integration_suite("reuse/nvcc", NULL, NULL);
	if (!s || !nv)
		return -1;
	CU_add_test(s, "the setting is what a measurement depends on", test_the_setting_is_what_a_measurement_depends_on);
	CU_add_test(s, "a comment-only edit measures nothing again", test_a_comment_only_edit_measures_nothing_again);
	CU_add_test(s, "a reordered list and an added value", test_a_reordered_list_and_an_added_value);
	CU_add_test(s, "an edit inside an #if measures only its configurations",
		    test_an_edit_inside_an_if_measures_only_its_configurations);
	CU_add_test(s, "a header edit taken back measures nothing", test_a_header_edit_taken_back_measures_nothing);
	CU_add_test(s, "never across GPUs, drivers or inputs", test_never_across_gpus_drivers_or_inputs);
	CU_add_test(s, "older journals and --fresh start afresh", test_older_journals_and_fresh_start_afresh);
	CU_add_test(nv, "a comment keeps the code, an #if edit changes only its own",
		    test_with_nvcc_a_comment_keeps_the_code_and_an_if_only_its_own);
	return 0;
}
