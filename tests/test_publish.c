/* test_publish.c: a run's outputs in one order (publish.c): all of them for a whole run, the CSV
 * alone for a part, nothing after a CSV that fails, and the others still written when one fails. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compile.h"
#include "config.h"
#include "output.h"
#include "publish.h"
#include "run_names.h"
#include "header.h"
#include "tests.h"

/* A run of two configurations, one winner, as test_output.c makes one. */
typedef struct {
	config cfg;
	space sp;
	build b;
	result res[2];
	outputs rep;
	char csv[256];
} run;

static void make_run(run *r, const char *name)
{
	diags d = {0};
	const char *text = "name: pub\nkernel: {source: /dev/null, entry: k}\narguments: [{name: a, type: float, count: 4}]\n"
			   "launch: {block: [bx], grid: [1]}\nspace: {bx: [64, 128]}\n";
	CU_ASSERT_EQUAL_FATAL(config_load(write_temp(3, "pub.yaml", text), &r->cfg, &d), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&r->cfg, &r->sp, &d), 0);
	build_plan(&r->cfg, &r->sp, &r->b);
	memcpy(r->b.bins[0].code, "fedcba9876543210", 17);
	memset(r->res, 0, sizeof r->res);
	for (int i = 0; i < 2; i++) {
		r->res[i].block[0] = i ? 128 : 64;
		r->res[i].block[1] = r->res[i].block[2] = r->res[i].grid[0] = r->res[i].grid[1] = r->res[i].grid[2] = 1;
		r->res[i].driver_blocks = -1;
		r->res[i].shares_with = -1;
		r->res[i].occ_limit = "warps";
		r->res[i].st = ST_OK;
		r->res[i].t_median = i ? 2.0 : 1.0;
		r->res[i].samples = 10;
		r->res[i].batch = 1;
	}
	static const gpu_id gpu = {"Test GPU", "GPU-0000"};
	r->rep = (outputs){.cfg = &r->cfg, .sp = &r->sp, .b = &r->b, .res = r->res, .winner = 0, .arch = "sm_90",
			   .date = "2026-11-22T00:00:00Z", .gpus = &gpu, .ngpus = 1, .spec_hash = "0123456789abcdef"};
	snprintf(r->csv, sizeof r->csv, "%s/%s.csv", test_dir, name);
	free(r->cfg.header_path);
	r->cfg.header_path = xasprintf("%s/%s_tuned.h", test_dir, name);
	diags_free(&d);
}

static void drop_run(run *r)
{
	build_free(&r->b);
	space_free(&r->sp);
	config_free(&r->cfg);
}

static int write_csv(void *rep, const char *path, diags *d) { return output_csv(rep, path, d); }

static int fail_csv(void *rep, const char *path, diags *d)
{
	(void)rep;
	diags_add(d, "%s: no room", path);
	return -1;
}

/* Whether the run's file `which` exists. */
static int there(const run *r, run_file which)
{
	char *path = run_name(r->csv, which);
	int yes = access(path, F_OK) == 0;
	free(path);
	return yes;
}

static int header_there(const run *r)
{
	char *mk = header_mk_path(r->cfg.header_path);
	int yes = access(r->cfg.header_path, F_OK) == 0 && access(mk, F_OK) == 0;
	free(mk);
	return yes;
}

static void test_a_whole_run_writes_everything(void)
{
	run r;
	make_run(&r, "whole");
	diags d = {0};
	published pub;
	CU_ASSERT_EQUAL(publish(&(publish_opts){.cfg = &r.cfg, .csv = r.csv, .write_csv = write_csv, .ctx = &r.rep,
						.winner = 1, .t4 = 1, .spec_hash = "0123456789abcdef"},
				&pub, &d),
			0);
	CU_ASSERT(pub.csv && pub.header && pub.report);
	char *t4 = run_name(r.csv, RUN_FILE_T4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pub.t4);
	CU_ASSERT_STRING_EQUAL(pub.t4, t4);
	CU_ASSERT_EQUAL(access(r.csv, F_OK), 0);
	CU_ASSERT(header_there(&r));
	CU_ASSERT(there(&r, RUN_FILE_REPORT));
	CU_ASSERT(there(&r, RUN_FILE_T4));
	CU_ASSERT(there(&r, RUN_FILE_SPEC_LIST));
	CU_ASSERT_EQUAL(d.n, 0);
	free(t4);
	free(pub.t4);
	diags_free(&d);
	drop_run(&r);
}

/* A shard's or an instance's CSV: the whole run's header, report and T4 file come later. No winner:
 * no header, the rest as before. */
static void test_a_part_is_its_csv_alone(void)
{
	run r;
	make_run(&r, "part");
	diags d = {0};
	published pub;
	CU_ASSERT_EQUAL(publish(&(publish_opts){.cfg = &r.cfg, .csv = r.csv, .write_csv = write_csv, .ctx = &r.rep,
						.part = 1, .winner = 1, .t4 = 1},
				&pub, &d),
			0);
	CU_ASSERT(pub.csv && !pub.header && !pub.report && !pub.t4);
	CU_ASSERT_EQUAL(access(r.csv, F_OK), 0);
	CU_ASSERT(!header_there(&r) && !there(&r, RUN_FILE_REPORT) && !there(&r, RUN_FILE_T4));
	CU_ASSERT(!there(&r, RUN_FILE_SPEC_LIST)); /* none asked for */
	CU_ASSERT_EQUAL(publish(&(publish_opts){.cfg = &r.cfg, .csv = r.csv, .write_csv = write_csv, .ctx = &r.rep},
				&pub, &d),
			0);
	CU_ASSERT(pub.csv && !pub.header && pub.report && !pub.t4);
	CU_ASSERT(!header_there(&r) && there(&r, RUN_FILE_REPORT) && !there(&r, RUN_FILE_T4));
	diags_free(&d);
	drop_run(&r);
}

/* A CSV that cannot be written: nothing is made of it, and the reason is said. */
static void test_nothing_after_a_csv_that_fails(void)
{
	run r;
	make_run(&r, "failed");
	diags d = {0};
	published pub;
	CU_ASSERT_EQUAL(publish(&(publish_opts){.cfg = &r.cfg, .csv = r.csv, .write_csv = fail_csv, .ctx = &r.rep,
						.winner = 1, .t4 = 1, .spec_hash = "0123456789abcdef"},
				&pub, &d),
			-1);
	CU_ASSERT(!pub.csv && !pub.header && !pub.report && !pub.t4);
	CU_ASSERT(access(r.csv, F_OK) != 0 && !header_there(&r) && !there(&r, RUN_FILE_REPORT));
	CU_ASSERT(!there(&r, RUN_FILE_T4) && !there(&r, RUN_FILE_SPEC_LIST));
	CU_ASSERT(d.n == 1 && strstr(d.msgs[0], "no room"));
	diags_free(&d);
	drop_run(&r);
}

/* A header that cannot be written (its directory is a file): the report and the T4 file still
 * are, and publish says it failed. */
static void test_one_that_fails_leaves_the_others(void)
{
	run r;
	make_run(&r, "nohdr");
	char *blocker = xasprintf("%s/blocker", test_dir);
	put_file(blocker, "not a directory\n");
	free(r.cfg.header_path);
	r.cfg.header_path = xasprintf("%s/nohdr_tuned.h", blocker);
	free(blocker);
	diags d = {0};
	published pub;
	CU_ASSERT_EQUAL(publish(&(publish_opts){.cfg = &r.cfg, .csv = r.csv, .write_csv = write_csv, .ctx = &r.rep,
						.winner = 1, .t4 = 1},
				&pub, &d),
			-1);
	CU_ASSERT(pub.csv && !pub.header && pub.report && pub.t4);
	CU_ASSERT(there(&r, RUN_FILE_REPORT) && there(&r, RUN_FILE_T4));
	CU_ASSERT(d.n >= 1);
	free(pub.t4);
	diags_free(&d);
	drop_run(&r);
}

int add_publish_suite(void)
{
	CU_pSuite s = CU_add_suite("publish", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "a whole run writes everything", test_a_whole_run_writes_everything);
	CU_add_test(s, "a part is its CSV alone", test_a_part_is_its_csv_alone);
	CU_add_test(s, "nothing after a CSV that fails", test_nothing_after_a_csv_that_fails);
	CU_add_test(s, "one that fails leaves the others", test_one_that_fails_leaves_the_others);
	return CU_get_error() == CUE_SUCCESS ? 0 : -1;
}
