/* test_show.c: the terminal table: its order (by time, failures last, or by any column, numbers as
 * numbers), --top, the winner's mark, and an unknown column refused with the valid names. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "cli.h"
#include "selector.h"
#include "show.h"
#include "table.h"
#include "tests.h"

/* ids name the rows; blockDim.x sorts differently as text (128 < 16 < 8) than as numbers */
static const char *csv =
	"id,blockDim.x,blockDim.y,theoretical_occupancy,time_ms_median,samples,noise_pct,gbps,flags,status,message\n"
	"rowA,16,1,1.0,3.5,10,0.2,100,cold,ok,\n"
	"rowB,128,1,1.0,1.25,10,0.2,300,cold;winner,ok,\n"
	"rowC,8,1,0.5,,,,,,crashed,\"CUDA_ERROR_ILLEGAL_ADDRESS\nat line 2\"\n"
	"rowD,64,1,1.0,2.0,10,0.2,200,cold,ok,\n";

/* The table show_print makes of text (a CSV written to a scratch file named name), without colour;
 * its exit status in *rc. Caller frees. */
static char *shown_file(const char *path, int top, const char *sort, int *rc, diags *d)
{
	FILE *f = tmpfile();
	*rc = show_print(f, path, top, sort, NULL, 0, d);
	long n = ftell(f);
	rewind(f);
	char *s = calloc(1, (size_t)n + 1);
	if (fread(s, 1, (size_t)n, f) != (size_t)n)
		s[0] = 0;
	fclose(f);
	return s;
}

static char *shown(const char *text, const char *name, int top, const char *sort, int *rc, diags *d)
{
	return shown_file(write_temp(3, name, text), top, sort, rc, d);
}

static char *run_show(int top, const char *sort, int *rc, diags *d) { return shown(csv, "show.csv", top, sort, rc, d); }

/* The order in which the ids appear: "BDAC" and so on. */
static void order_of(const char *out, char *ids, size_t n)
{
	size_t k = 0;
	const char *end = strstr(out, " configuration"); /* the footer names the winner again */
	for (const char *p = out; k + 1 < n && (p = strstr(p, "row")) && (!end || p < end); p += 4)
		ids[k++] = p[3];
	ids[k] = 0;
}

static void test_default_sort_is_by_time_failures_last(void)
{
	int rc;
	diags d = {0};
	char *out = run_show(0, NULL, &rc, &d), ids[8];
	CU_ASSERT_EQUAL(rc, EXIT_WINNER);
	order_of(out, ids, sizeof ids);
	CU_ASSERT_STRING_EQUAL(ids, "BDAC");
	/* the winner's line is marked, only it */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n* "));
	const char *mark = strstr(out, "\n* ");
	CU_ASSERT(mark && strstr(mark, "rowB") == strstr(out, "rowB") && !strstr(mark + 1, "\n* "));
	CU_ASSERT(mark && strstr(mark, "rowB") < strchr(mark + 1, '\n'));
	/* the message's first line only, and the counts below */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "CUDA_ERROR_ILLEGAL_ADDRESS"));
	CU_ASSERT_PTR_NULL(strstr(out, "at line 2"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "4 configurations: 3 ok, 1 crashed"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "winner (*): id=rowB"));
	/* within a 100-column terminal */
	for (const char *l = out; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		CU_ASSERT(len <= 100);
		l += len + (e != NULL);
	}
	free(out);
	diags_free(&d);
}

static void test_sort_numeric_string_and_descending(void)
{
	int rc;
	diags d = {0};
	char ids[8];
	char *out = run_show(0, "blockDim.x", &rc, &d);
	order_of(out, ids, sizeof ids);
	CU_ASSERT_STRING_EQUAL(ids, "CADB"); /* 8 16 64 128, not "128" < "16" < "64" < "8" */
	free(out);
	out = run_show(0, "status", &rc, &d);
	order_of(out, ids, sizeof ids);
	CU_ASSERT_STRING_EQUAL(ids, "CABD"); /* crashed before ok, file order among equals */
	free(out);
	out = run_show(0, "-gbps", &rc, &d);
	order_of(out, ids, sizeof ids);
	CU_ASSERT_STRING_EQUAL(ids, "BDAC"); /* 300 200 100, the empty one last */
	free(out);
	CU_ASSERT_EQUAL(rc, EXIT_WINNER);
	CU_ASSERT_EQUAL(d.n, 0);
	diags_free(&d);
}

static void test_top_limits_rows(void)
{
	int rc;
	diags d = {0};
	char ids[8];
	char *out = run_show(2, NULL, &rc, &d);
	order_of(out, ids, sizeof ids);
	CU_ASSERT_STRING_EQUAL(ids, "BD");
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "4 configurations (2 shown)"));
	free(out);
	diags_free(&d);
}

/* What a dry run writes: compiled, nothing measured (a, 64 did not compile). */
static const char *dry_csv =
	"variant,blockDim.x,blockDim.y,dynamic_smem_bytes,registers,spill_store_bytes,spill_load_bytes,static_smem_bytes,"
	"active_blocks_per_sm,theoretical_occupancy,occupancy_limit,flags,status,message\n"
	"a,32,1,4096,40,0,0,1024,16,0.5,registers,,not-run,\n"
	"b,32,1,0,32,8,8,1024,32,1.0,blocks,,not-run,\n"
	"a,64,1,0,,,,,,,,,compile-error,\"ptxas error: too much shared data\"\n"
	"b,64,1,0,32,0,0,0,16,1.0,blocks,,not-run,\n";

/* A dry run's table shows what the binaries say, by theoretical occupancy, and says it is one. */
static void test_dry_run_shows_the_binaries(void)
{
	diags d = {0};
	int rc;
	char *out = shown(dry_csv, "dry.csv", 0, NULL, &rc, &d);
	CU_ASSERT_EQUAL(rc, EXIT_WINNER);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "regs spills    smem   occ% blk/SM"));
	/* rows: highest occupancy first, ties in file order, the failed compile last; b, 32 spilled 8
	 * bytes each way; a, 32 has 1024 bytes of static and 4096 of dynamic shared memory */
	const char *b32 = strstr(out, "\n        b    32     16    1024  100.0     32 not-run");
	const char *b64 = strstr(out, "\n        b    32      0       0  100.0     16 not-run");
	const char *a32 = strstr(out, "\n        a    40      0    5120   50.0     16 not-run");
	const char *a64 = strstr(out, "\n        a     -      -       -      -      - compile-error ptxas error");
	CU_ASSERT(b32 && b64 && a32 && a64 && b32 < b64 && b64 < a32 && a32 < a64);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "4 configurations: 3 not-run, 1 compile-error; a dry run: compiled, nothing measured"));
	CU_ASSERT_PTR_NULL(strstr(out, "nothing passed"));
	free(out);
	diags_free(&d);
}

static void test_unknown_column_lists_the_valid_ones(void)
{
	int rc;
	diags d = {0};
	char *out = run_show(0, "tim", &rc, &d);
	CU_ASSERT_EQUAL(rc, EXIT_USAGE);
	CU_ASSERT_EQUAL(out[0], 0);
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "'tim'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "time_ms_median"));
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "show.csv"));
	free(out);
	diags_free(&d);
	/* a file that is not a results CSV is bad input too */
	FILE *f = tmpfile();
	CU_ASSERT_EQUAL(show_print(f, write_temp(3, "bad.csv", "a,b\n1,2\n"), 0, NULL, NULL, 0, &d), EXIT_USAGE);
	CU_ASSERT_EQUAL(d.n, 1);
	fclose(f);
	diags_free(&d);
}

/* A results file with no parameter columns and only blockDim.x: the block shape stands in with
 * the one column there is (it once read a second that was not). */
static void test_a_csv_of_one_column_is_shown(void)
{
	const char *csv = write_temp(4, "one.csv", "blockDim.x\n32\n64\n");
	char *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){"show", (char *)csv, NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "2 configurations"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "blockDim.x"));
	free(out);
}

/* Text from the file cannot drive the terminal: an escape sequence in a parameter, a status or a
 * message is shown with '?' for its control characters, also without colour. */
static void test_escape_sequences_are_not_passed_on(void)
{
	diags d = {0};
	int rc;
	char *out = shown("id,blockDim.x,time_ms_median,samples,status,message\n"
			  "\033[31mred,32,1.5,10,ok,\n"
			  "plain,64,2.0,10,crashed,\"boom \033]0;title\007 \033[2J\"\n",
			  "esc.csv", 0, NULL, &rc, &d);
	CU_ASSERT_EQUAL(rc, EXIT_WINNER);
	CU_ASSERT_PTR_NULL(strchr(out, '\033'));
	CU_ASSERT_PTR_NULL(strchr(out, '\007'));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "?[31mred"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "boom ?]0;title? ?[2J"));
	free(out);
	diags_free(&d);
}

/* A run tuned with select: {policy: fastest} records it in every row, and show and report explain
 * its winner by it; an older file without the column is shown with the default, said. */
static void test_a_fastest_run_is_explained_as_fastest(void)
{
	const char *dir = "scratch/fastest";
	char *out;
	const char *config = write_space_config(dir, "fast", NULL);
	FILE *f = fopen(config, "a");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("select: {policy: fastest}\n", f);
	fclose(f);
	fake_worker_reset(dir, "fast");
	CU_ASSERT_EQUAL_FATAL(run_autotune_on((char *)config, (char *[]){"-q", NULL}, NULL), 0);
	char csv[160];
	snprintf(csv, sizeof csv, "%s/fast.csv", dir);
	CU_ASSERT_EQUAL(count_in(csv, ",fastest;noise_band=2;occupancy=1;load_efficiency=1,"), 20);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"show", csv, NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "winner (*) chosen by the fastest policy\n"));
	free(out);
	char *text = read_text(csv), *html = report_of(text, NULL);
	/* (the apostrophe of "its run's" is escaped in HTML) */
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "fastest policy; the fastest: under the fastest policy time alone decides"));
	free(html);
	free(text);
	const char *old = write_temp(5, "old.csv", "id,blockDim.x,time_ms_median,samples,noise_pct,flags,status\n"
						   "rowA,64,1.0,10,0.1,winner,ok\n");
	CU_ASSERT_EQUAL(run_autotune((char *[]){"show", (char *)old, NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "winner (*) chosen by the default balanced policy (the file records none)\n"));
	free(out);
}

/* show_print's table of text (a CSV) with --baseline base, without colour. Caller frees. */
static char *shown_base(const char *text, const char *base, int *rc, diags *d)
{
	const char *path = write_temp(3, "base.csv", text);
	FILE *f = tmpfile();
	*rc = show_print(f, path, 0, NULL, base, 0, d);
	long n = ftell(f);
	rewind(f);
	char *s = calloc(1, (size_t)n + 1);
	if (fread(s, 1, (size_t)n, f) != (size_t)n)
		s[0] = 0;
	fclose(f);
	return s;
}

/* A column the table does not show is shown when the rows are sorted by it, as the file has it. */
static void test_sorting_by_a_hidden_column_shows_it(void)
{
	int rc;
	diags d = {0};
	char ids[8];
	char *out = run_show(0, "blockDim.x", &rc, &d);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "GB/s blockDim.x status"));
	/* each row's value under it: 8 16 64 128 */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "-          8 crashed"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "100.0         16 ok"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "300.0        128 ok"));
	free(out);
	out = run_show(0, "-samples", &rc, &d);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "GB/s samples status"));
	order_of(out, ids, sizeof ids);
	CU_ASSERT_STRING_EQUAL(ids, "ABDC");
	free(out);
	/* a column shown already is not shown twice: a parameter, the status */
	out = run_show(0, "id", &rc, &d);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "GB/s status"));
	free(out);
	out = run_show(0, "status", &rc, &d);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "GB/s status"));
	CU_ASSERT_PTR_NULL(strstr(out, "status status"));
	free(out);
	/* a long name with the speedup beside it: still within 100 columns, the head's too */
	FILE *f = tmpfile();
	CU_ASSERT_EQUAL(show_print(f, "tests/data/summatrix_h100.csv", 5, "-gld_throughput_gbps", "block_x=32,block_y=16,maxrreg=0",
				   0, &d),
			EXIT_WINNER);
	long n = ftell(f);
	rewind(f);
	out = calloc(1, (size_t)n + 1);
	CU_ASSERT_EQUAL(fread(out, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, " speedup gld_throughput_gbps status\n"));
	for (const char *l = out; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		if (len > 100)
			fprintf(stderr, "\n  %zu columns: %.*s", len, (int)len, l);
		CU_ASSERT(len <= 100);
		l += len + (e != NULL);
	}
	free(out);
	CU_ASSERT_EQUAL(d.n, 0);
	diags_free(&d);
}

/* A run of three problem sizes (the fake worker), once per run of the suite; its CSV's path. */
static const char *sizes_csv(void)
{
	static char csv[192];
	static int done = -1;
	if (done >= 0)
		return done ? csv : NULL;
	char dir[128], path[256], text[1024];
	snprintf(dir, sizeof dir, "%s/show-sizes", test_dir);
	mkdir(dir, 0777);
	snprintf(path, sizeof path, "%s/k.cu", dir);
	put_file(path, "extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * bx + threadIdx.x; "
		       "if (i < n) a[i] = i; }\n");
	snprintf(csv, sizeof csv, "%s/sizes.csv", dir);
	snprintf(text, sizeof text,
		 "name: sizes\nkernel: {source: k.cu, entry: k}\nconstants: {n: 4096}\ninstances: {n: [1024, 4096, 16384]}\n"
		 "arguments:\n  - {name: a, type: float, count: n, output: true}\n  - {name: n, type: int32, value: n}\n"
		 "space: {bx: [32, 64, 128, 256]}\nbuild: {defines: [bx]}\nlaunch: {block: [bx], grid: [\"ceil_div(n, bx)\"]}\n"
		 "measure: {finalists: 0, metrics: none}\noutput: {csv: %s, header: %s/sizes_tuned.h}\n",
		 csv, dir);
	snprintf(path, sizeof path, "%s/sizes.yaml", dir);
	put_file(path, text);
	setenv("AUTOTUNE_WORKER", "build/fake_worker", 1);
	setenv("FAKE_SMS", "4", 1);
	done = run_autotune_on(path, (char *[]){"-q", NULL}, NULL) == 0;
	unsetenv("FAKE_SMS");
	fake_worker_forget();
	return done ? csv : NULL;
}

/* shown_file's table after a line break, so that every line starts after one. */
static char *lines_of(const char *path, int top, const char *sort, int *rc, diags *d)
{
	char *out = shown_file(path, top, sort, rc, d), *s = malloc(strlen(out) + 2);
	sprintf(s, "\n%s", out);
	free(out);
	return s;
}

/* The table's lines (up to the footer) that hold needle. */
static int lines_with(const char *out, const char *needle)
{
	int n = 0;
	const char *end = strstr(out, " configurations");
	for (const char *l = out; l && *l && (!end || l < end); l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *e = strchr(l, '\n');
		char *line = strndup(l, e ? (size_t)(e - l) : strlen(l));
		n += strstr(line, needle) != NULL;
		free(line);
	}
	return n;
}

/* Results of several problem sizes: an instance column, the rows instance by instance, and each
 * instance's winner (the row the run flagged) marked; --top counts per instance. */
static void test_each_instance_winner_is_marked(void)
{
	const char *csv = sizes_csv();
	CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
	table t;
	instance_view iv;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(table_load(csv, &t, &d), 0);
	CU_ASSERT_EQUAL_FATAL(instance_view_of(&t, &iv, &d), 0);
	CU_ASSERT_EQUAL_FATAL(iv.ninst, 3);
	int rc;
	char *all = lines_of(csv, 0, NULL, &rc, &d);
	char *top = lines_of(csv, 1, NULL, &rc, &d);
	CU_ASSERT_EQUAL(rc, EXIT_WINNER);
	CU_ASSERT_PTR_NOT_NULL(strstr(all, "  bx instance "));
	/* three lines marked: one per instance */
	int marks = 0;
	for (const char *p = all; (p = strstr(p, "\n* ")); p += 3)
		marks++;
	CU_ASSERT_EQUAL(marks, 3);
	const char *prev = all;
	for (size_t i = 0; i < iv.ninst; i++) {
		CU_ASSERT_FATAL(iv.winner[i] >= 0);
		char *label = instance_view_label(&iv, i), line[96];
		snprintf(line, sizeof line, "\n* %3s %-8s", table_get(&t, (size_t)iv.winner[i], 0), label);
		const char *at = strstr(all, line);
		if (!at)
			fprintf(stderr, "\n  no line '%s' in\n%s", line + 1, all);
		/* the winner leads its instance's rows, which follow the previous instance's */
		CU_ASSERT(at && at > prev);
		snprintf(line, sizeof line, " %s ", label);
		CU_ASSERT_EQUAL(lines_with(all, line), 4);
		CU_ASSERT_EQUAL(lines_with(top, line), 1);
		snprintf(line, sizeof line, "\n* %3s %-8s", table_get(&t, (size_t)iv.winner[i], 0), label);
		CU_ASSERT_PTR_NOT_NULL(strstr(top, line));
		prev = at ? at : prev;
		free(label);
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(all, "12 configurations: 12 ok; winners (*) of 3 instances: below"));
	CU_ASSERT_PTR_NOT_NULL(strstr(top, "12 configurations (3 shown, 1 per instance)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(all, "winners (*) chosen by the balanced policy"));
	/* sorted by the constant, largest first: the instances in that order, by time within each */
	free(top);
	top = shown_file(csv, 1, "-n", &rc, &d);
	const char *big = strstr(top, "n=16384"), *mid = strstr(top, "n=4096 "), *small = strstr(top, "n=1024 ");
	CU_ASSERT(big && mid && small && big < mid && mid < small);
	free(top);
	/* sorted by a column it does not show: shown, the rows instance by instance still */
	top = shown_file(csv, 0, "registers", &rc, &d);
	CU_ASSERT_PTR_NOT_NULL(strstr(top, "GB/s registers status"));
	big = strstr(top, "n=16384"), mid = strstr(top, "n=4096 "), small = strstr(top, "n=1024 ");
	CU_ASSERT(big && mid && small && small < mid && mid < big);
	free(top);
	free(all);
	CU_ASSERT_EQUAL(d.n, 0);
	diags_free(&d);
	instance_view_free(&iv);
	table_free(&t);
}

/* --baseline: each row's speedup over the configuration named, the winner's against it below. */
static void test_baseline_adds_the_speedup(void)
{
	int rc;
	diags d = {0};
	/* times 1.25, 2.0, 3.5 against rowA's 3.5; the crashed one has none */
	char *out = shown_base(csv, "id=rowA", &rc, &d);
	CU_ASSERT_EQUAL(rc, EXIT_WINNER);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "GB/s speedup status"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "* rowB      1.25   0.20 100.0       -   300.0   2.80x ok"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "  rowD         2   0.20 100.0       -   200.0   1.75x ok"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "  rowA       3.5   0.20 100.0       -   100.0   1.00x ok"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "  rowC         -      -  50.0       -       -       - crashed"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "the winner: 1.2500 ms against the baseline's 3.5000 ms: 2.80x as fast, "
					   "2.2500 ms saved per launch\n"));
	free(out);
	/* the baseline won, or failed */
	out = shown_base(csv, "id=rowB", &rc, &d);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "1.00x as fast (the baseline won)"));
	free(out);
	out = shown_base(csv, "id=rowC", &rc, &d);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "the winner: the baseline: crashed\n"));
	CU_ASSERT_EQUAL(d.n, 0);
	free(out);
	diags_free(&d);
}

/* Per instance: the speedup against the baseline at the row's own instance, and each winner's;
 * a baseline that failed at an instance or was not run there is said. */
static void test_baseline_per_instance(void)
{
	const char *csv = sizes_csv();
	CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
	table t;
	instance_view iv;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(table_load(csv, &t, &d), 0);
	CU_ASSERT_EQUAL_FATAL(instance_view_of(&t, &iv, &d), 0);
	char *text = read_text(csv);
	int rc;
	char *out = shown_base(text, "bx=64", &rc, &d);
	CU_ASSERT_EQUAL(rc, EXIT_WINNER);
	int time = table_col(&t, "time_ms_median");
	for (size_t i = 0; i < iv.ninst; i++) {
		long long base = -1, w = iv.winner[i];
		for (size_t r = 0; r < t.nrows; r++)
			if (instance_of_row(&iv, &t, r) == (long)i && !strcmp(table_get(&t, r, 0), "64"))
				base = (long long)r;
		CU_ASSERT_FATAL(base >= 0 && w >= 0);
		double b = table_num(&t, (size_t)base, time), x = table_num(&t, (size_t)w, time);
		char *label = instance_view_label(&iv, i), want[256];
		snprintf(want, sizeof want, "\n  %s: %.4f ms against the baseline's %.4f ms: %.2fx as fast", label, x, b, b / x);
		if (!strstr(out, want))
			fprintf(stderr, "\n  no '%s' in\n%s", want + 1, out);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
		/* the winner's row: its speedup at its own instance */
		snprintf(want, sizeof want, "* %3s %-8s", table_get(&t, (size_t)w, 0), label);
		const char *row = strstr(out, want);
		snprintf(want, sizeof want, " %.2fx ok\n", b / x);
		CU_ASSERT(row && strstr(row, want) && strstr(row, want) < strchr(row, '\n'));
		/* the baseline's own rows: 1.00x */
		snprintf(want, sizeof want, "   64 %-8s", label);
		row = strstr(out, want);
		CU_ASSERT(row && strstr(row, " 1.00x ok\n") < strchr(row, '\n') + 1);
		free(label);
	}
	free(out);
	free(text);
	/* failed at one instance, not run at another */
	out = shown_base("bx,blockDim.x,time_ms_median,samples,flags,status,instance,n\n"
			 "32,32,2.0,10,winner,ok,1,1024\n64,64,3.0,10,,ok,1,1024\n"
			 "32,32,,,,crashed,2,4096\n64,64,1.0,10,winner,ok,2,4096\n"
			 "64,64,1.5,10,winner,ok,3,8192\n",
			 "bx=32", &rc, &d);
	CU_ASSERT_EQUAL(rc, EXIT_WINNER);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "  n=1024: 2.0000 ms against the baseline's 2.0000 ms: 1.00x as fast (the baseline won)\n"
					   "  n=4096: the baseline: crashed\n"
					   "  n=8192: the baseline was not run here\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "  64 n=1024           3 ")); /* 2.0 / 3.0 */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "0.67x ok"));
	CU_ASSERT_EQUAL(d.n, 0);
	free(out);
	diags_free(&d);
	instance_view_free(&iv);
	table_free(&t);
}

/* A baseline the file does not have is bad input, said with what it does have. */
static void test_a_baseline_not_in_the_file_is_refused(void)
{
	static const char *two = "bx,by,blockDim.x,time_ms_median,samples,status\n32,1,32,1.0,10,ok\n32,2,32,2.0,10,ok\n"
				 "64,1,64,1.5,10,ok\n";
	struct {
		const char *base, *says;
	} bad[] = {
		{"bx=100", "has no configuration with bx=100; bx takes 32, 64"},
		{"bz=1", "has no parameter 'bz'; its parameters: bx, by"},
		{"blockDim.x=32", "has no parameter 'blockDim.x'"},
		{"bx", "'bx' is not PARAMETER=VALUE"},
		{" ", "names no configuration"},
		{"bx=32", "fits several configurations"},
		{"bx=64 by=2", "has no configuration with all of these values"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		diags d = {0};
		int rc;
		char *out = shown_base(two, bad[i].base, &rc, &d);
		CU_ASSERT_EQUAL(rc, EXIT_USAGE);
		CU_ASSERT_STRING_EQUAL(out, "");
		CU_ASSERT_EQUAL_FATAL(d.n, 1);
		if (!strstr(d.msgs[0], bad[i].says))
			fprintf(stderr, "\n  --baseline '%s': %s", bad[i].base, d.msgs[0]);
		CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], bad[i].says));
		CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "base.csv"));
		free(out);
		diags_free(&d);
	}
	/* spaces or commas between, numbers as numbers */
	diags d = {0};
	int rc;
	char *out = shown_base(two, "bx=64.0,by=1", &rc, &d);
	CU_ASSERT_EQUAL(rc, EXIT_WINNER);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "(bx=64.0,by=1) time over the row's"));
	free(out);
	diags_free(&d);
}

/* Instances' winners are the rows the run flagged: a file that flags none (put together by hand)
 * marks no row and says so, apart from an instance where nothing passed. */
static void test_unflagged_instances_are_said(void)
{
	int rc;
	diags d = {0};
	char *out = shown_base("bx,blockDim.x,time_ms_median,samples,flags,status,instance,n\n"
			       "32,32,2.0,10,,ok,1,1024\n64,64,3.0,10,,ok,1,1024\n32,32,,,,crashed,2,4096\n",
			       NULL, &rc, &d);
	CU_ASSERT_EQUAL(rc, EXIT_WINNER);
	CU_ASSERT_PTR_NULL(strstr(out, "* "));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "3 configurations: 2 ok, 1 crashed; 2 instances, no winner flagged in the file\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "  n=1024: no winner flagged in the file\n  n=4096: none passed\n"));
	free(out);
	diags_free(&d);
}

int add_show_suite(void)
{
	CU_pSuite s = CU_add_suite("show", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "default sort is by time, failures last", test_default_sort_is_by_time_failures_last);
	CU_add_test(s, "sort numeric, string and descending", test_sort_numeric_string_and_descending);
	CU_add_test(s, "--top limits rows", test_top_limits_rows);
	CU_add_test(s, "unknown column lists the valid ones", test_unknown_column_lists_the_valid_ones);
	CU_add_test(s, "a dry run shows the binaries", test_dry_run_shows_the_binaries);
	CU_add_test(s, "a CSV of one column is shown", test_a_csv_of_one_column_is_shown);
	CU_add_test(s, "escape sequences are not passed on", test_escape_sequences_are_not_passed_on);
	CU_add_test(s, "a fastest run is explained as fastest", test_a_fastest_run_is_explained_as_fastest);
	CU_add_test(s, "sorting by a hidden column shows it", test_sorting_by_a_hidden_column_shows_it);
	CU_add_test(s, "each instance's winner is marked", test_each_instance_winner_is_marked);
	CU_add_test(s, "baseline adds the speedup", test_baseline_adds_the_speedup);
	CU_add_test(s, "baseline per instance", test_baseline_per_instance);
	CU_add_test(s, "a baseline not in the file is refused", test_a_baseline_not_in_the_file_is_refused);
	CU_add_test(s, "unflagged instances are said", test_unflagged_instances_are_said);
	return 0;
}
