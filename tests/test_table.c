/* test_table.c: reading results CSVs back: RFC 4180 quoting, both line endings, and bad files
 * reported with the file and line that is wrong. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <string.h>

#include "table.h"
#include "tests.h"

static const char *quoted_lf =
	"p,blockDim.x,status,message\n"
	"1,32,ok,\"has, a comma\"\n"
	"2,64,crashed,\"said \"\"no\"\"\non two lines\"\n"
	"3,,ok,\n";

static void check_quoted(const char *path)
{
	table t;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(table_load(path, &t, &d), 0);
	CU_ASSERT_EQUAL(d.n, 0);
	CU_ASSERT_EQUAL(t.ncols, 4);
	CU_ASSERT_EQUAL(t.nrows, 3);
	CU_ASSERT_EQUAL(t.nparams, 1);
	CU_ASSERT_STRING_EQUAL(table_field(&t, 0, "message"), "has, a comma");
	CU_ASSERT_STRING_EQUAL(table_field(&t, 1, "message"), "said \"no\"\non two lines");
	CU_ASSERT_STRING_EQUAL(table_field(&t, 1, "status"), "crashed");
	CU_ASSERT_STRING_EQUAL(table_field(&t, 2, "p"), "3");
	CU_ASSERT_STRING_EQUAL(table_field(&t, 2, "message"), "");
	CU_ASSERT_STRING_EQUAL(table_field(&t, 2, "no such column"), "");
	CU_ASSERT_EQUAL(table_num(&t, 1, table_col(&t, "blockDim.x")), 64);
	CU_ASSERT(isnan(table_num(&t, 2, table_col(&t, "blockDim.x"))));
	CU_ASSERT(isnan(table_num(&t, 0, table_col(&t, "status"))));
	table_free(&t);
	diags_free(&d);
}

static void test_quoted_fields_with_lf(void) { check_quoted(write_temp(0, "lf.csv", quoted_lf)); }

static void test_quoted_fields_with_crlf(void)
{
	/* the same file as autotune writes it: CRLF between records, a bare LF inside the quoted one */
	const char *crlf = "p,blockDim.x,status,message\r\n"
			   "1,32,ok,\"has, a comma\"\r\n"
			   "2,64,crashed,\"said \"\"no\"\"\non two lines\"\r\n"
			   "3,,ok,\r\n";
	check_quoted(write_temp(0, "crlf.csv", crlf));
}

static void test_ragged_row_names_file_and_line(void)
{
	/* the record that spans two lines pushes the short one down to physical line 4 */
	const char *path = write_temp(0, "ragged.csv",
				      "p,blockDim.x,status,message\n"
				      "1,32,ok,\"two\nlines\"\n"
				      "2,64,ok\n");
	table t;
	diags d = {0};
	CU_ASSERT_EQUAL(table_load(path, &t, &d), -1);
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	char *want = xasprintf("%s:4:", path);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], want));
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "3 fields"));
	free(want);
	diags_free(&d);
}

static void test_missing_block_dim_is_not_a_results_file(void)
{
	const char *path = write_temp(0, "nobx.csv", "a,b,status\n1,2,ok\n");
	table t;
	diags d = {0};
	CU_ASSERT_EQUAL(table_load(path, &t, &d), -1);
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "blockDim.x"));
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], path));
	diags_free(&d);
}

static void test_unterminated_quote_and_empty_file(void)
{
	table t;
	diags d = {0};
	const char *path = write_temp(0, "open.csv", "p,blockDim.x\n1,\"32\n");
	CU_ASSERT_EQUAL(table_load(path, &t, &d), -1);
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "unterminated quote"));
	diags_free(&d);
	path = write_temp(0, "empty.csv", "");
	CU_ASSERT_EQUAL(table_load(path, &t, &d), -1);
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], ":1:"));
	diags_free(&d);
	CU_ASSERT_EQUAL(table_load("/nonexistent/x.csv", &t, &d), -1);
	CU_ASSERT_EQUAL(d.n, 1);
	diags_free(&d);
}

static void test_winner_flag_is_a_whole_word(void)
{
	const char *path = write_temp(0, "flags.csv",
				      "p,blockDim.x,flags,status\n"
				      "1,32,cold;notwinner,ok\n"
				      "2,32,cold;winners,ok\n"
				      "3,32,cold;finalist;winner,ok\n");
	table t;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(table_load(path, &t, &d), 0);
	CU_ASSERT_EQUAL(table_winner(&t), 2);
	table_free(&t);
	path = write_temp(0, "noflags.csv", "p,blockDim.x,status\n1,32,ok\n");
	CU_ASSERT_EQUAL_FATAL(table_load(path, &t, &d), 0);
	CU_ASSERT_EQUAL(table_winner(&t), -1);
	table_free(&t);
	diags_free(&d);
}

static void test_results_from_an_older_file(void)
{
	table t;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(table_load("tests/data/summatrix_h100.csv", &t, &d), 0);
	CU_ASSERT_EQUAL(t.nrows, 153);
	CU_ASSERT_EQUAL(t.nparams, 3);
	CU_ASSERT_EQUAL(table_col(&t, "gpu"), -1); /* recorded before the provenance columns */
	result *r = table_results(&t);
	CU_ASSERT_EQUAL(r[0].st, ST_OK);
	CU_ASSERT_EQUAL(r[0].block[0], 1);
	CU_ASSERT_EQUAL(r[0].block[1], 32);
	CU_ASSERT(fabs(r[0].t_median - 8.66056) < 1e-9);
	CU_ASSERT_EQUAL(r[0].have_metrics, 0);
	table_results_free(r, t.nrows);
	table_free(&t);
}

/* A plan's columns come back as its launch (streams, order, connections) and serial time, found
 * after the parameters whatever those are called; a parameter's own column does not stand in. */
static void test_a_plans_columns_come_back(void)
{
	table t;
	diags d = {0};
	const char *csv = write_temp(0, "plan.csv",
				     "plan_streams,blockDim.x,time_ms_median,samples,plan_streams,plan_order,plan_connections,"
				     "serial_ms,concurrency,status\n"
				     "99,32,2,10,8,breadth-first,32,12.5,6.250,ok\n"
				     "99,32,2,10,4,depth-first,1,8,4.000,ok\n");
	CU_ASSERT_EQUAL_FATAL(table_load(csv, &t, &d), 0);
	CU_ASSERT_EQUAL(table_fixed_col(&t, "plan_streams"), 4);
	CU_ASSERT_EQUAL(table_fixed_col(&t, "blockDim.x"), 1);
	CU_ASSERT_EQUAL(table_fixed_col(&t, "nothing"), -1);
	result *r = table_results(&t);
	CU_ASSERT(r[0].streams == 8 && r[0].breadth_first == 1 && r[0].connections == 32);
	CU_ASSERT(r[1].streams == 4 && r[1].breadth_first == 0 && r[1].connections == 1);
	CU_ASSERT_DOUBLE_EQUAL(r[0].serial_ms, 12.5, 0);
	CU_ASSERT_DOUBLE_EQUAL(result_concurrency(&r[0]), 6.25, 1e-12);
	table_results_free(r, t.nrows);
	table_free(&t);
}

/* A hand-edited file's counts and geometry that no integer holds read as absent (the fuzzer's
 * find: converting 1e34 to int is undefined behaviour); those that fit are kept. */
static void test_numbers_no_integer_holds_read_as_absent(void)
{
	table t;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(table_load(write_temp(0, "huge.csv",
						  "p,blockDim.x,blockDim.y,gridDim.x,samples,launches_per_sample,final_rounds,status\n"
						  "1,1e34,inf,-1e300,1e34,nan,2147483648,ok\n"
						  "2,64,2,4096,20,3,7,ok\n"),
				     &t, &d),
			     0);
	result *r = table_results(&t);
	/* blockDim.x, blockDim.y, gridDim.x, samples, launches_per_sample, final_rounds */
	static const long long want[2][6] = {{1, 1, 1, 0, 1, 0}, {64, 2, 4096, 20, 3, 7}};
	for (int i = 0; i < 2; i++) {
		long long got[6] = {r[i].block[0], r[i].block[1], r[i].grid[0], r[i].samples, r[i].batch, r[i].final_rounds};
		for (int k = 0; k < 6; k++)
			CU_ASSERT_EQUAL(got[k], want[i][k]);
	}
	table_results_free(r, t.nrows);
	table_free(&t);
	diags_free(&d);
}

/* What a path can name besides a results file: refused with the reason, not read as empty or
 * read until memory runs out (/dev/zero is one endless field). */
static void test_what_is_no_results_file(void)
{
	static const struct {
		const char *path, *want;
	} cases[] = {
		{"/tmp", "/tmp: cannot open: Is a directory"},
		{"/dev/zero", "/dev/zero: a NUL byte at its start: UTF-16 or UTF-32 text, or not text: results files are UTF-8 "
			      "(autotune's CSV or T4 JSON)"},
		{"/nonexistent/x.csv", "/nonexistent/x.csv: cannot open: No such file or directory"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		table t;
		diags d = {0};
		CU_ASSERT_EQUAL(table_load(cases[i].path, &t, &d), -1);
		CU_ASSERT_EQUAL_FATAL(d.n, 1);
		CU_ASSERT_STRING_EQUAL(d.msgs[0], cases[i].want);
		diags_free(&d);
	}
}

/* Today's columns but no winner flag (rows put together by hand, say): the winner is chosen again,
 * as for a file that predates the flag; a flag, where there is one, decides. */
static void test_winner_chosen_again_when_no_row_is_flagged(void)
{
	static const char *const text[2] = {
		"p,blockDim.x,time_ms_median,samples,noise_pct,status,flags,spec_hash\n"
		"1,32,2.0,20,0.1,ok,cold,0123456789abcdef\n"
		"2,64,1.0,20,0.1,ok,cold,0123456789abcdef\n"
		"3,96,0.5,0,,crashed,,0123456789abcdef\n",
		"p,blockDim.x,time_ms_median,samples,noise_pct,status,flags,spec_hash\n"
		"1,32,2.0,20,0.1,ok,cold;winner,0123456789abcdef\n"
		"2,64,1.0,20,0.1,ok,cold,0123456789abcdef\n"};
	for (int k = 0; k < 2; k++) {
		table t;
		diags d = {0};
		CU_ASSERT_EQUAL_FATAL(table_load(write_temp(0, "w.csv", text[k]), &t, &d), 0);
		result *res = table_results(&t);
		int flagged = -1;
		long long w = table_pick_winner(&t, res, &flagged, NULL);
		CU_ASSERT_EQUAL(w, k == 0 ? 1 : 0); /* unflagged: the faster that passed; flagged: the flag */
		CU_ASSERT_EQUAL(flagged, k);
		table_results_free(res, t.nrows);
		table_free(&t);
	}
}

int add_table_suite(void)
{
	CU_pSuite s = CU_add_suite("table", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "quoted fields with LF", test_quoted_fields_with_lf);
	CU_add_test(s, "quoted fields with CRLF", test_quoted_fields_with_crlf);
	CU_add_test(s, "ragged row names file and line", test_ragged_row_names_file_and_line);
	CU_add_test(s, "missing blockDim.x is not a results file", test_missing_block_dim_is_not_a_results_file);
	CU_add_test(s, "unterminated quote and empty file", test_unterminated_quote_and_empty_file);
	CU_add_test(s, "winner flag is a whole word", test_winner_flag_is_a_whole_word);
	CU_add_test(s, "results from an older file", test_results_from_an_older_file);
	CU_add_test(s, "a plan's columns come back", test_a_plans_columns_come_back);
	CU_add_test(s, "winner chosen again when no row is flagged", test_winner_chosen_again_when_no_row_is_flagged);
	CU_add_test(s, "numbers no integer holds read as absent", test_numbers_no_integer_holds_read_as_absent);
	CU_add_test(s, "what is no results file", test_what_is_no_results_file);
	return 0;
}
