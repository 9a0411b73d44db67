/* test_output.c: RFC 4180 quoting and the CSV's shape (the header: test_header.c). */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compile.h"
#include "completeness.h"
#include "config.h"
#include "output.h"
#include "proc.h"
#include "tests.h"

static char *field(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	csv_field(f, s);
	fclose(f);
	return buf;
}

static void test_csv_quoting(void)
{
	const char *cases[][2] = {
		{"plain", "plain"},
		{"a,b", "\"a,b\""},
		{"say \"hi\"", "\"say \"\"hi\"\"\""},
		{"two\nlines", "\"two\nlines\""},
		{"cr\r", "\"cr\r\""},
		{"", ""},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *got = field(cases[i][0]);
		CU_ASSERT_STRING_EQUAL(got, cases[i][1]);
		free(got);
	}
}

/* A two-configuration report: one winner, one failure with an awkward message. */
static void make_report(config *cfg, space *sp, build *b, result *res, outputs *rep)
{
	diags d = {0};
	const char *text = "name: demo\nkernel: {source: /dev/null, entry: k}\narguments: [{name: a, type: float, count: 4}]\n"
			   "launch: {block: [bx], grid: [1]}\nspace: {bx: [64, 128], f: [0.5]}\nconstraints: [f > 0]\n";
	const char *path = write_temp(3, "o.yaml", text);
	CU_ASSERT_EQUAL_FATAL(config_load(path, cfg, &d), 0);
	unlink(path);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(cfg, sp, &d), 0);
	build_plan(cfg, sp, b);
	b->bins[0].cubin = strdup("/tmp/x.cubin");
	memcpy(b->bins[0].code, "fedcba9876543210", 17);
	memcpy(b->bins[0].kernel, "0011223344556677", 17);
	b->bins[0].res.registers = 16;
	memset(res, 0, 2 * sizeof *res);
	for (int i = 0; i < 2; i++) {
		res[i].block[0] = i ? 128 : 64;
		res[i].block[1] = res[i].block[2] = res[i].grid[0] = res[i].grid[1] = res[i].grid[2] = 1;
		res[i].driver_blocks = -1;
		res[i].shares_with = -1;
		res[i].occ_limit = "warps";
	}
	res[0].st = ST_OK;
	res[0].t_median = 1.25;
	res[0].t_min = 1.0;
	res[0].t_max = 2.0;
	res[0].samples = 20;
	res[0].noise = 0.001;
	res[0].batch = 1;
	res[0].mhz_after = 1980;
	res[1].st = ST_WRONG_RESULT;
	res[1].message = strdup("argument 1: 3 of 4 differ, \"badly\"");
	static const gpu_id gpu = {"Test GPU */ evil", "GPU-0000"};
	*rep = (outputs){.cfg = cfg, .sp = sp, .b = b, .res = res, .winner = 0, .arch = "sm_90", .date = "2026-11-22T00:00:00Z",
			 .gpus = &gpu, .ngpus = 1, .spec_hash = "0123456789abcdef"};
	diags_free(&d);
}

static void drop_report(config *cfg, space *sp, build *b, result *res)
{
	free(res[1].message);
	build_free(b);
	space_free(sp);
	config_free(cfg);
}

static void test_csv_rows_and_columns(void)
{
	config cfg;
	space sp;
	build b;
	result res[2];
	outputs rep;
	diags d = {0};
	make_report(&cfg, &sp, &b, res, &rep);
	const char *path = write_temp(4, "o.csv", "");
	CU_ASSERT_EQUAL(output_csv(&rep, path, &d), 0);
	char *csv = read_text(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
	/* header + 2 rows, CRLF line ends */
	int lines = 0;
	for (char *p = csv; (p = strstr(p, "\r\n")); p += 2)
		lines++;
	CU_ASSERT_EQUAL(lines, 3);
	CU_ASSERT(!strncmp(csv, "bx,f,blockDim.x,", 16));
	CU_ASSERT_PTR_NOT_NULL(strstr(csv, "\r\n64,0.5,64,1,1,1,1,1,0,16,"));
	/* timing, then 3 empty finalist, 5 counter, 3 throughput and 3 energy and objective fields, how
	 * it was measured (the
	 * winner marked), no twin; then where and from what: GPU, UUID, target, flags, the binary's
	 * code hash, spec, the selection policy (the defaults), date, config, and what the run was */
	CU_ASSERT_PTR_NOT_NULL(strstr(csv, ",message,gpu,gpu_uuid,arch,nvcc_flags,code_hash,kernel_hash,spec_hash,policy,tuned_at,config,run,"
					   "configurations\r\n"));
	/* what the run was, and the space's size */
	CU_ASSERT_PTR_NOT_NULL(strstr(csv, ",complete,2\r\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(csv, ",1.25,1,2,20,0.1000,1,1980,,,,,,,,,,,,,,,cold;winner,,ok,,Test GPU */ evil,"
					   "GPU-0000,sm_90,,fedcba9876543210,0011223344556677,0123456789abcdef,"
					   "balanced;noise_band=2;occupancy=1;load_efficiency=1,2026-11-22T00:00:00Z,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(csv, ",wrong-result,\"argument 1: 3 of 4 differ, \"\"badly\"\"\",Test GPU */ evil,"));
	free(csv);
	unlink(path);
	drop_report(&cfg, &sp, &b, res);
}

/* A plan's rows have its columns after gflops: streams, order, connections, serial time and the
 * concurrency it achieved (serial time over the time that decides), then energy and the
 * objective; a failed row has no measurement of its own; a config without a plan has no such
 * columns. */
static void test_a_plans_columns(void)
{
	config cfg;
	space sp;
	build b;
	result res[2];
	outputs rep;
	diags d = {0};
	make_report(&cfg, &sp, &b, res, &rep);
	const char *path = write_temp(4, "o.csv", "");
	CU_ASSERT_EQUAL(output_csv(&rep, path, &d), 0);
	char *csv = read_text(path);
	CU_ASSERT_PTR_NOT_NULL(csv && !strstr(csv, "concurrency"));
	free(csv);
	/* the same rows as a plan's: 8 streams, breadth-first, 32 connections */
	cfg.plan.nlaunches = 1;
	for (int i = 0; i < 2; i++) {
		res[i].streams = 8;
		res[i].breadth_first = i == 0;
		res[i].connections = 32;
		res[i].serial_ms = 6.25;
	}
	res[0].final_rounds = 7;
	res[0].final_median = 1.0; /* the time that decides: 6.25 / 1.0 */
	res[0].final_noise = 0.001;
	CU_ASSERT_EQUAL(output_csv(&rep, path, &d), 0);
	cfg.plan.nlaunches = 0;
	csv = read_text(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
	CU_ASSERT_PTR_NOT_NULL(strstr(csv, ",gbps,pct_of_copy,gflops,plan_streams,plan_order,plan_connections,serial_ms,"
					   "concurrency,joules_per_launch,watts,objective,flags,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(csv, ",,,,8,breadth-first,32,6.25,6.250,,,,cold;finalist;winner,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(csv, ",,,,8,depth-first,32,,,,,,,,wrong-result,"));
	free(csv);
	unlink(path);
	drop_report(&cfg, &sp, &b, res);
	diags_free(&d);
}

/* A search of a space of 1000 configurations (10 binaries of 100 each) that compiled three
 * binaries, one of them in vain, and measured the reference and two configurations: its CSV
 * lists those, the first configuration of each binary built (what nvcc said of it: the failed
 * one's compile error once, not once per configuration of it) and no other; every row counts
 * the space, and read back the run is a search of 4 of 1000. */
static void test_a_search_lists_what_it_did_and_counts_the_rest(void)
{
	diags d = {0};
	config cfg;
	space sp;
	build b;
	const char *text = "name: wide\nkernel: {source: /dev/null, entry: k}\narguments: [{name: a, type: float, count: 4}]\n"
			   "launch: {block: [bx], grid: [1]}\nspace: {d: {start: 0, stop: 9}, bx: {start: 1, stop: 100}}\n"
			   "build: {defines: [d]}\n";
	const char *path = write_temp(3, "w.yaml", text);
	CU_ASSERT_EQUAL_FATAL(config_load(path, &cfg, &d), 0);
	unlink(path);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	CU_ASSERT_EQUAL_FATAL(sp.count, 1000);
	build_plan(&cfg, &sp, &b);
	CU_ASSERT_EQUAL_FATAL(b.nbins, 10);
	result *res = calloc(sp.count, sizeof *res);
	for (size_t c = 0; c < sp.count; c++) {
		res[c].block[0] = (long long)(c % 100 + 1);
		res[c].block[1] = res[c].block[2] = res[c].grid[0] = res[c].grid[1] = res[c].grid[2] = 1;
		res[c].driver_blocks = -1;
		res[c].shares_with = -1;
		res[c].occ_limit = "";
		res[c].st = ST_NOT_RUN;
	}
	for (size_t k = 0; k < b.nbins; k++)
		b.bins[k].killed = b.bins[k].skipped = 1; /* never needed */
	/* the reference (the first configuration), and d=3 built, d=7 failed; d=3 bx=8 and bx=50
	 * measured, the first the winner */
	CU_ASSERT_EQUAL(sp.reference, 0);
	b.bins[0] = (binary){.first_config = 0, .cubin = strdup("/tmp/r.cubin"), .code = "0123456789abcdef"};
	res[0].st = ST_OK;
	res[0].t_median = res[0].t_min = res[0].t_max = 3.5;
	res[0].samples = 10;
	b.bins[3] = (binary){.first_config = 300, .cubin = strdup("/tmp/x.cubin"), .code = "fedcba9876543210"};
	b.bins[7] = (binary){.first_config = 700, .failed = 1, .log = strdup("error: no")};
	for (size_t c = 700; c < 800; c++) /* what plan_apply_binary says of its configurations */
		res[c].st = ST_COMPILE_ERROR;
	res[307].st = res[349].st = ST_OK;
	res[307].t_median = res[307].t_min = res[307].t_max = 1.5;
	res[349].t_median = res[349].t_min = res[349].t_max = 2.5;
	res[307].samples = res[349].samples = 10;
	outputs rep = {.cfg = &cfg, .sp = &sp, .b = &b, .res = res, .winner = 307, .arch = "sm_90", .date = "2026-11-22T00:00:00Z",
		       .spec_hash = "0123456789abcdef", .run = RUN_SEARCH};
	const char *csv = write_temp(4, "w.csv", "");
	CU_ASSERT_EQUAL(output_csv(&rep, csv, &d), 0);
	CU_ASSERT_EQUAL(count_in(csv, "\n"), 1 + 5);
	CU_ASSERT_EQUAL(count_in(csv, ",search,1000\r"), 5);
	static const char *const rows[] = {"\n0,1,", "\n3,1,", "\n3,8,", "\n3,50,", "\n7,1,"};
	char *all = read_text(csv);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_PTR_NOT_NULL(all ? strstr(all, rows[i]) : NULL);
	free(all);
	table t;
	CU_ASSERT_EQUAL_FATAL(table_load(csv, &t, &d), 0);
	run_extent r;
	table_run(&t, &r);
	CU_ASSERT_STRING_EQUAL(r.state, RUN_SEARCH);
	CU_ASSERT_EQUAL(r.measured, 4);
	CU_ASSERT_EQUAL(r.configurations, 1000);
	table_free(&t);
	/* a complete run's work is every configuration: each of the failed binary's is listed */
	rep.run = RUN_COMPLETE;
	CU_ASSERT_EQUAL(output_csv(&rep, csv, &d), 0);
	CU_ASSERT_EQUAL(count_in(csv, ",compile-error,"), 100);
	CU_ASSERT_EQUAL(count_in(csv, "\n"), 1 + 5 + 99);
	unlink(csv);
	free(res);
	build_free(&b);
	space_free(&sp);
	config_free(&cfg);
	diags_free(&d);
}

static void test_unwritable_directory_is_reported(void)
{
	config cfg;
	space sp;
	build b;
	result res[2];
	outputs rep;
	diags d = {0};
	make_report(&cfg, &sp, &b, res, &rep);
	CU_ASSERT_EQUAL(output_csv(&rep, "/nonexistent-dir/x.csv", &d), -1);
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "cannot write '/nonexistent-dir/x.csv.tmp."));
	diags_free(&d);
	drop_report(&cfg, &sp, &b, res);
}

/* A process that has exited and been waited for: its pid is gone. */
static long dead_pid(void)
{
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return (long)p;
}

/* What a run killed while renaming its outputs left ("<output>.tmp.<pid>", the pid gone) is
 * removed by the next run of those results, under their lock; a live process's file, and a
 * file of another name, are left alone. */
static void test_a_killed_runs_temporary_outputs_are_removed(void)
{
	char dir[] = "/tmp/autotune-reclaim-XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	char yaml[128], text[512], dead[4][160], live[160], other[160];
	snprintf(yaml, sizeof yaml, "%s/r.yaml", dir);
	snprintf(text, sizeof text,
		 "kernel: {source: /dev/null, entry: k}\narguments: [{name: a, type: float, count: 4, output: true}]\n"
		 "space: {x: [32, 64]}\nlaunch: {block: [x], grid: [1]}\noutput: {csv: %s/r.csv, header: %s/r_tuned.h}\n",
		 dir, dir);
	put_file(yaml, text);
	long gone = dead_pid();
	static const char *const names[] = {"r.csv", "r.html", "r_tuned.h", "r.mk"};
	for (int i = 0; i < 4; i++) {
		snprintf(dead[i], sizeof dead[i], "%s/%s.tmp.%ld", dir, names[i], gone);
		put_file(dead[i], "half a file");
	}
	snprintf(live, sizeof live, "%s/r.csv.tmp.%ld", dir, (long)getppid());
	put_file(live, "a live writer's");
	snprintf(other, sizeof other, "%s/notes.tmp.%ld", dir, gone);
	put_file(other, "not ours");
	/* the run stops early (no nvcc), after it took the lock */
	setenv("NVCC", "/nonexistent/nvcc", 1);
	char *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){yaml, NULL}, &out), 2);
	unsetenv("NVCC");
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "NVCC='/nonexistent/nvcc'"));
	free(out);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(access(dead[i], F_OK), -1);
	CU_ASSERT_EQUAL(access(live, F_OK), 0);
	CU_ASSERT_EQUAL(access(other, F_OK), 0);
	char *rm[] = {"rm", "-rf", dir, NULL};
	proc_capture(rm, 30, &out);
	free(out);
}

int add_output_suite(void)
{
	CU_pSuite s = CU_add_suite("output", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "CSV quoting", test_csv_quoting);
	CU_add_test(s, "CSV rows and columns", test_csv_rows_and_columns);
	CU_add_test(s, "a plan's columns", test_a_plans_columns);
	CU_add_test(s, "a search lists what it did and counts the rest", test_a_search_lists_what_it_did_and_counts_the_rest);
	CU_add_test(s, "unwritable directory is reported", test_unwritable_directory_is_reported);
	CU_add_test(s, "a killed run's temporary outputs are removed", test_a_killed_runs_temporary_outputs_are_removed);
	return 0;
}
