/* test_t4.c: results interchange (t4.c). The T4 file of a recorded H100 run (tests/data) has what
 * the published schema requires, round-trips through libyaml and gives the CSV's rows back; a
 * replay from it, and from a Kernel Tuner cache file made here from the same CSV (closed, or left
 * open as an interrupted run leaves it), proposes exactly what a replay from the CSV proposes;
 * `autotune header` reads both; bad files are refused at their file:line:col. What the files
 * should hold is computed from the CSVs, not written down. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "completeness.h"
#include "config.h"
#include "header.h"
#include "document.h"
#include "proc.h"
#include "replay.h"
#include "t4.h"
#include "table.h"
#include "tests.h"

/* Recorded runs and their configs: one with failures of two kinds (convolution), one whose CSV
 * predates the provenance columns (summatrix), one of a small space (reduce). */
static const char *const runs[][2] = {
	{"configs/convolution.yaml", "tests/data/convolution_h100.csv"},
	{"configs/summatrix.yaml", "tests/data/summatrix_h100.csv"},
	{"configs/reduce.yaml", "tests/data/reduce_h100.csv"},
};

static char *in_dir(const char *name) { return xasprintf("%s/%s", test_dir, name); }

/* The time a CSV row decided on: the finalists' median where re-timed. */
static const char *decided(const table *t, size_t r)
{
	const char *fin = table_field(t, r, "final_ms_median");
	return *fin ? fin : table_field(t, r, "time_ms_median");
}

static int written(const table *t, size_t r) { return strcmp(table_field(t, r, "status"), "not-run") != 0; }

static yaml_node_t *member(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
	for (yaml_node_pair_t *p = map && map->type == YAML_MAPPING_NODE ? map->data.mapping.pairs.start : NULL;
	     p && p < map->data.mapping.pairs.top; p++)
		if (!strcmp((char *)yaml_document_get_node(doc, p->key)->data.scalar.value, key))
			return yaml_document_get_node(doc, p->value);
	return NULL;
}

static const char *scalar(yaml_node_t *n) { return n && n->type == YAML_SCALAR_NODE ? (char *)n->data.scalar.value : NULL; }
/* A JSON string is a double-quoted scalar; a number, a plain one that reads whole. */
static int is_string(yaml_node_t *n) { return scalar(n) && n->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE; }
static int is_number(yaml_node_t *n)
{
	char *end;
	return scalar(n) && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && *scalar(n) &&
	       (strtod(scalar(n), &end), !*end);
}
static size_t items(yaml_node_t *n) { return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start); }
static yaml_node_t *item(yaml_document_t *doc, yaml_node_t *n, size_t i)
{
	return yaml_document_get_node(doc, n->data.sequence.items.start[i]);
}

/* The schema's invalidity for a CSV status (Kernel Tuner's "correct" for ok). */
static const char *invalidity(const char *st)
{
	static const char *const map[][2] = {{"ok", "correct"},       {"compile-error", "compile"}, {"launch-error", "runtime"},
					     {"crashed", "runtime"},  {"timeout", "timeout"},        {"wrong-result", "correctness"}};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (!strcmp(st, map[i][0]))
			return map[i][1];
	return "?";
}

/* Result r of a T4 document against row `row` of the CSV: every key the schema requires, of its
 * type; the configuration the CSV's parameters; the invalidity the status's; the one runtime the
 * time that decides; measurements named, numeric, with a unit. How many checks failed. */
static int result_problems(yaml_document_t *doc, yaml_node_t *res, const table *t, size_t row)
{
	int bad = 0;
	yaml_node_t *conf = member(doc, res, "configuration"), *times = member(doc, res, "times");
	yaml_node_t *inv = member(doc, res, "invalidity"), *corr = member(doc, res, "correctness");
	yaml_node_t *meas = member(doc, res, "measurements"), *stamp = member(doc, res, "timestamp");
	yaml_node_t *runtimes = member(doc, times, "runtimes");
	bad += !conf || conf->type != YAML_MAPPING_NODE || !times || times->type != YAML_MAPPING_NODE;
	bad += !is_string(inv) || strcmp(scalar(inv), invalidity(table_field(t, row, "status")));
	bad += !is_number(corr) || strtod(scalar(corr), NULL) != !strcmp(table_field(t, row, "status"), "ok");
	bad += stamp && !is_string(stamp);
	bad += !meas || meas->type != YAML_SEQUENCE_NODE || !runtimes || runtimes->type != YAML_SEQUENCE_NODE;
	if (bad)
		return bad;
	for (size_t p = 0; p < t->nparams; p++) {
		yaml_node_t *v = member(doc, conf, t->names[p]);
		bad += !is_number(v) || strcmp(scalar(v), table_get(t, row, (int)p));
	}
	bad += (size_t)(conf->data.mapping.pairs.top - conf->data.mapping.pairs.start) != t->nparams;
	if (!strcmp(table_field(t, row, "status"), "ok"))
		bad += items(runtimes) != 1 || !is_number(item(doc, runtimes, 0)) || strcmp(scalar(item(doc, runtimes, 0)), decided(t, row));
	else
		bad += items(runtimes) != 0;
	for (size_t i = 0; i < items(meas); i++) {
		yaml_node_t *m = item(doc, meas, i);
		bad += !is_string(member(doc, m, "name")) || !is_number(member(doc, m, "value")) || !is_string(member(doc, m, "unit"));
	}
	return bad;
}

/* The T4 file of each recorded run: schema_version and results, one result per CSV row that met
 * the compiler or the GPU, each as the schema requires and as its row says. */
static void test_the_t4_of_a_recorded_run_holds_what_the_schema_requires(void)
{
	for (size_t k = 0; k < sizeof runs / sizeof *runs; k++) {
		char *path = in_dir("run.t4.json");
		diags d = {0};
		CU_ASSERT_EQUAL_FATAL(t4_write(runs[k][1], path, &d), 0);
		table t;
		CU_ASSERT_EQUAL_FATAL(table_load(runs[k][1], &t, &d), 0);
		yaml_document_t doc;
		CU_ASSERT_EQUAL_FATAL(document_read(path, "JSON", &doc, &d), 0);
		yaml_node_t *root = yaml_document_get_root_node(&doc), *version = member(&doc, root, "schema_version");
		yaml_node_t *results = member(&doc, root, "results");
		CU_ASSERT(is_string(version) && !strcmp(scalar(version), "1.0.0"));
		CU_ASSERT_FATAL(results && results->type == YAML_SEQUENCE_NODE);
		size_t n = 0, problems = 0, failures = 0;
		for (size_t r = 0; r < t.nrows; r++) {
			if (!written(&t, r))
				continue;
			failures += strcmp(table_field(&t, r, "status"), "ok") != 0;
			if (n < items(results))
				problems += (size_t)result_problems(&doc, item(&doc, results, n), &t, r);
			n++;
		}
		CU_ASSERT_EQUAL(items(results), n);
		CU_ASSERT_EQUAL(problems, 0);
		if (k == 0)
			CU_ASSERT(failures > 0); /* convolution: compile and launch errors, written as failures */
		yaml_document_delete(&doc);
		table_free(&t);
		unlink(path);
		free(path);
		diags_free(&d);
	}
}

/* Read back through the config, the T4 file gives each written row of the CSV again, field by
 * field, for every column the CSV has. */
static void test_a_t4_file_gives_the_csvs_rows_back(void)
{
	for (size_t k = 0; k < sizeof runs / sizeof *runs; k++) {
		char *path = in_dir("back.t4.json");
		config cfg;
		space sp;
		diags d = {0};
		table csv, back;
		CU_ASSERT_EQUAL_FATAL(config_load(runs[k][0], &cfg, &d) || space_enumerate(&cfg, &sp, &d), 0);
		CU_ASSERT_EQUAL_FATAL(t4_write(runs[k][1], path, &d), 0);
		CU_ASSERT_EQUAL_FATAL(table_load(runs[k][1], &csv, &d), 0);
		CU_ASSERT_EQUAL_FATAL(t4_load(path, &cfg, &sp, &back, &d), 0);
		size_t n = 0, differ = 0;
		for (size_t r = 0; r < csv.nrows; r++) {
			if (!written(&csv, r))
				continue;
			for (size_t i = 0; i < csv.ncols && n < back.nrows; i++) {
				const char *want = table_get(&csv, r, (int)i), *got = table_field(&back, n, csv.names[i]);
				if (strcmp(want, got) && differ++ < 3)
					fprintf(stderr, "\n  %s row %zu, %s: '%s' came back as '%s'", runs[k][1], r + 1, csv.names[i], want, got);
			}
			n++;
		}
		CU_ASSERT_EQUAL(back.nrows, n);
		CU_ASSERT_EQUAL(differ, 0);
		CU_ASSERT_EQUAL(back.nparams, cfg.nparams);
		table_free(&csv);
		table_free(&back);
		space_free(&sp);
		config_free(&cfg);
		diags_free(&d);
		unlink(path);
		free(path);
	}
}

/* Strings with every kind of byte survive the trip through JSON: quotes, backslashes, line
 * breaks, control characters, DEL, UTF-8; a byte that is not UTF-8 becomes U+FFFD. */
static void test_strings_are_escaped_as_json_wants(void)
{
	const char *message = "said \"\"no\"\" \\ back\nline\ttab \x01 \x7f caf\xc3\xa9 \xff end";
	char csv[512];
	snprintf(csv, sizeof csv, "\"we\"\"ird\",blockDim.x,status,message\r\n1,32,crashed,\"%s\"\r\n", message);
	const char *in = write_temp(0, "esc.csv", csv);
	char *path = in_dir("esc.t4.json");
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(t4_write(in, path, &d), 0);
	char *text = slurp(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"we\\\"ird\": 1"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\\u0001 \\u007f caf\xc3\xa9 \\ufffd end"));
	for (const char *p = text; *p; p++) /* no raw control character but the line breaks between results */
		CU_ASSERT(*p == '\n' || ((unsigned char)*p >= 0x20 && *p != 0x7f));
	yaml_document_t doc;
	CU_ASSERT_EQUAL_FATAL(document_read(path, "JSON", &doc, &d), 0);
	yaml_node_t *res = item(&doc, member(&doc, yaml_document_get_root_node(&doc), "results"), 0);
	CU_ASSERT_PTR_NOT_NULL(member(&doc, member(&doc, res, "configuration"), "we\"ird"));
	const char *back = scalar(member(&doc, member(&doc, res, "autotune"), "message"));
	CU_ASSERT_STRING_EQUAL(back ? back : "", "said \"no\" \\ back\nline\ttab \x01 \x7f caf\xc3\xa9 \xef\xbf\xbd end");
	CU_ASSERT_STRING_EQUAL(scalar(member(&doc, res, "invalidity")), "runtime");
	yaml_document_delete(&doc);
	free(text);
	unlink(path);
	free(path);
	diags_free(&d);
}

/* A Kernel Tuner cache file of the CSV's rows, as Kernel Tuner writes one: its header, then an
 * entry a line, each followed by a comma, closed at the end unless `open`; with `torn`, half an
 * entry after the last one, as a run killed while writing leaves it. Failures get the strings
 * Kernel Tuner records. */
static void write_cache(const char *csv, const char *path, int open, int torn)
{
	table t;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(table_load(csv, &t, &d), 0);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("{\n\"device_name\": \"NVIDIA H100 80GB HBM3\",\n\"kernel_name\": \"k\",\n\"problem_size\": [4096, 1, 1],\n"
	      "\"tune_params_keys\": [", f);
	for (size_t p = 0; p < t.nparams; p++)
		fprintf(f, "%s\"%s\"", p ? ", " : "", t.names[p]);
	fputs("],\n\"tune_params\": {},\n\"objective\": \"time\",\n\"cache\": {", f);
	for (size_t r = 0; r < t.nrows; r++) {
		if (!written(&t, r))
			continue;
		fputs("\n\"", f);
		for (size_t p = 0; p < t.nparams; p++)
			fprintf(f, "%s%s", p ? "," : "", table_get(&t, r, (int)p));
		fputs("\": {", f);
		for (size_t p = 0; p < t.nparams; p++)
			fprintf(f, "\"%s\": %s, ", t.names[p], table_get(&t, r, (int)p));
		const char *st = table_field(&t, r, "status");
		if (!strcmp(st, "ok"))
			fprintf(f, "\"time\": %s, \"times\": [%s], ", decided(&t, r), decided(&t, r));
		else
			fprintf(f, "\"time\": \"%s\", ", !strcmp(st, "compile-error") ? "CompilationFailedConfig"
							 : !strcmp(st, "launch-error") ? "InvalidConfig" : "RuntimeFailedConfig");
		fputs("\"compile_time\": 812.5, \"verification_time\": 0, \"benchmark_time\": 20.1, \"strategy_time\": 0, "
		      "\"framework_time\": 1.2, \"timestamp\": \"2026-01-02 03:04:05.678901+00:00\"},", f);
	}
	if (torn)
		fprintf(f, "\n\"%s,", table_get(&t, 0, 0));
	if (!open)
		fputs("}\n}\n", f);
	fclose(f);
	if (!open) { /* Kernel Tuner drops the last comma when it closes the file */
		char *text = slurp(path);
		char *last = strrchr(text, ',');
		memmove(last, last + 1, strlen(last));
		put_file(path, text);
		free(text);
	}
	table_free(&t);
	diags_free(&d);
}

/* The sequence a replay of `path` wrote (caller frees), NULL when it failed. */
static char *replayed(const config *cfg, const space *sp, const char *path, strategy s, size_t budget,
		      unsigned long long seed, replay_result *r)
{
	char *out = in_dir("seq.csv");
	diags d = {0};
	int rc = replay_run(cfg, sp, &(replay_opts){.recording = path, .strategy = s, .budget = budget, .seed = seed, .jobs = 4, .out = out},
			    r, &d);
	diags_print(&d);
	diags_free(&d);
	char *seq = rc ? NULL : slurp(out);
	unlink(out);
	free(out);
	return seq;
}

/* A replay from the T4 file of a run and from a cache file of the same times proposes exactly
 * what a replay from the CSV proposes, and finds the same: strategies and seeds, and a space with
 * failures (convolution) as well as one without. */
static void test_replay_from_t4_and_cache_is_the_csvs(void)
{
	static const strategy strategies[] = {STRAT_RANDOM, STRAT_GENETIC, STRAT_MODEL, STRAT_ANNEAL};
	for (size_t k = 0; k < 2; k++) {
		config cfg;
		space sp;
		diags d = {0};
		CU_ASSERT_EQUAL_FATAL(config_load(runs[k][0], &cfg, &d) || space_enumerate(&cfg, &sp, &d), 0);
		char *t4 = in_dir("replay.t4.json"), *cache = in_dir("replay.cache.json");
		CU_ASSERT_EQUAL_FATAL(t4_write(runs[k][1], t4, &d), 0);
		write_cache(runs[k][1], cache, 0, 0);
		for (size_t s = 0; s < sizeof strategies / sizeof *strategies; s++)
			for (unsigned long long seed = 1; seed <= 7; seed += 6) {
				replay_result a, b, c;
				size_t budget = sp.count / 5;
				char *from_csv = replayed(&cfg, &sp, runs[k][1], strategies[s], budget, seed, &a);
				char *from_t4 = replayed(&cfg, &sp, t4, strategies[s], budget, seed, &b);
				char *from_cache = replayed(&cfg, &sp, cache, strategies[s], budget, seed, &c);
				CU_ASSERT_PTR_NOT_NULL_FATAL(from_csv);
				CU_ASSERT_STRING_EQUAL(from_t4 ? from_t4 : "", from_csv);
				CU_ASSERT_STRING_EQUAL(from_cache ? from_cache : "", from_csv);
				CU_ASSERT(a.evaluations == budget && b.evaluations == budget && c.evaluations == budget);
				CU_ASSERT(a.best_found == b.best_found && a.best_found == c.best_found && a.optimum == c.optimum);
				CU_ASSERT(isfinite(a.optimum));
				free(from_csv);
				free(from_t4);
				free(from_cache);
			}
		unlink(t4);
		unlink(cache);
		free(t4);
		free(cache);
		space_free(&sp);
		config_free(&cfg);
		diags_free(&d);
	}
}

/* A cache file that an interrupted run left open (no closing braces, a comma after its last
 * entry; or half an entry after it) is read, with a note, as the closed one is; the torn entry is
 * left out. */
static void test_an_unterminated_cache_file_is_read(void)
{
	config cfg;
	space sp;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(config_load(runs[1][0], &cfg, &d) || space_enumerate(&cfg, &sp, &d), 0);
	char *closed = in_dir("closed.json"), *open = in_dir("open.json"), *torn = in_dir("torn.json");
	write_cache(runs[1][1], closed, 0, 0);
	write_cache(runs[1][1], open, 1, 0);
	write_cache(runs[1][1], torn, 1, 1);
	table want;
	CU_ASSERT_EQUAL_FATAL(t4_load(closed, &cfg, &sp, &want, &d), 0);
	CU_ASSERT_EQUAL(want.nrows, sp.count);
	const char *files[] = {open, torn};
	for (int i = 0; i < 2; i++) {
		table got;
		stderr_begin();
		int rc = t4_load(files[i], &cfg, &sp, &got, &d);
		char *said = stderr_end();
		CU_ASSERT_EQUAL_FATAL(rc, 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(said, "without its closing braces (a run that did not finish): read as if closed"));
		CU_ASSERT_EQUAL(strstr(said, "its last, incomplete line left out") != NULL, i == 1);
		CU_ASSERT_EQUAL(strncmp(said, files[i], strlen(files[i])), 0);
		CU_ASSERT_EQUAL_FATAL(got.nrows, want.nrows);
		size_t differ = 0;
		for (size_t c = 0; c < got.nrows * got.ncols; c++)
			differ += strcmp(got.cells[c], want.cells[c]) != 0;
		CU_ASSERT_EQUAL(differ, 0);
		table_free(&got);
		free(said);
	}
	CU_ASSERT_EQUAL(d.n, 0);
	table_free(&want);
	unlink(closed);
	unlink(open);
	unlink(torn);
	free(closed);
	free(open);
	free(torn);
	space_free(&sp);
	config_free(&cfg);
	diags_free(&d);
}

/* The file load_text wrote last. */
static char loaded[256];

/* Loads text (written to a file named name) through summatrix's config: 0, or -1 with the first
 * message in *msg (caller frees). */
static int load_text(const char *name, const char *text, table *t, char **msg)
{
	config cfg;
	space sp;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(config_load(runs[1][0], &cfg, &d) || space_enumerate(&cfg, &sp, &d), 0);
	snprintf(loaded, sizeof loaded, "%s", write_temp(1, name, text));
	int rc = t4_load(loaded, &cfg, &sp, t, &d);
	*msg = d.n ? xstrdup(d.msgs[0]) : NULL;
	space_free(&sp);
	config_free(&cfg);
	diags_free(&d);
	return rc;
}

/* Where text's first `needle` starts in the file load_text wrote, as "path:line:col: " (static
 * storage). */
static const char *where(const char *text, const char *needle)
{
	static char at[512];
	const char *p = strstr(text, needle);
	int line = 1, col = 1;
	for (const char *c = text; p && c < p; c++, col++)
		if (*c == '\n') {
			line++;
			col = 0;
		}
	snprintf(at, sizeof at, "%s:%d:%d: ", loaded, line, col);
	return at;
}

/* Files that are not runs of the config, or not what they claim, are refused at the place that
 * says so: a parameter the config lacks or one it has that is missing, a value that is no number,
 * an invalidity the schema lacks, malformed JSON, and JSON that is neither format. */
static void test_bad_files_are_refused_where_they_are_wrong(void)
{
	static const struct {
		const char *text, *at, *says;
	} bad[] = {
		{"{\"results\": [\n  {\"configuration\": {\"block_x\": 32, \"block_y\": 1, \"maxrreg\": 0, \"warp\": 2}, \"invalidity\": \"correct\"}]}",
		 "\"warp\"", "'warp' is not a parameter of configs/summatrix.yaml (block_x, block_y, maxrreg): not a run of this config"},
		{"{\"results\": [{\"configuration\": {\"block_x\": 32, \"block_y\": 1}, \"invalidity\": \"correct\"}]}",
		 "{\"block_x", "no value for the parameter 'maxrreg' of configs/summatrix.yaml: not a run of this config"},
		{"{\"results\": [{\"configuration\": {\"block_x\": \"wide\", \"block_y\": 1, \"maxrreg\": 0}}]}",
		 "\"wide\"", "the parameter 'block_x' is 'wide', not a number"},
		{"{\"results\": [{\"configuration\": {\"block_x\": 32, \"block_y\": 1, \"maxrreg\": 0}, \"invalidity\": \"fine\"}]}",
		 "\"fine\"", "invalidity 'fine' is none of correct, compile, runtime, timeout, correctness, constraints"},
		{"{\"results\": [\n  {\"configuration\": {\"block_x\": 32,, \"block_y\": 1}}\n]}", ", \"block_y",
		 "JSON syntax error"},
		{"{\"tune_params_keys\": [\"block_x\", \"block_y\", \"maxrreg\", \"unroll\"],\n \"cache\": {}}", "\"unroll\"",
		 "'unroll' is not a parameter of configs/summatrix.yaml"},
		{"{\"tune_params_keys\": [\"block_x\", \"block_y\"],\n \"cache\": {}}", "[\"block_x\"",
		 "no parameter 'maxrreg' among tune_params_keys"},
		{"{\"cache\": {\"32,1,0\": {\"block_x\": 32, \"block_y\": 1, \"maxrreg\": 0}}}", "{\"block_x",
		 "the cache entry '32,1,0' has no \"time\""},
		{"{\"runs\": []}", "{", "neither a T4 results file (a \"results\" list) nor a Kernel Tuner cache file"},
		/* two results for one configuration: which counts would be a guess */
		{"{\"results\": [{\"configuration\": {\"block_x\": 32, \"block_y\": 1, \"maxrreg\": 0}, \"invalidity\": \"compile\"},\n"
		 " {\"configuration\": {\"maxrreg\": 0, \"block_y\": 1, \"block_x\": 32}, \"invalidity\": \"compile\"}]}",
		 "{\"maxrreg", "a second result for block_x=32 block_y=1 maxrreg=0 (the first is at line 1, column 32)"},
		{"{\"cache\": {\"32,1,0\": {\"block_x\": 32, \"block_y\": 1, \"maxrreg\": 0, \"time\": 1.5},\n"
		 " \"32,1,0.0\": {\"block_x\": 32, \"block_y\": 1, \"maxrreg\": 0.0, \"time\": 1.2}}}",
		 "{\"block_x\": 32, \"block_y\": 1, \"maxrreg\": 0.0", "a second result for block_x=32 block_y=1 maxrreg=0"},
		/* a status autotune does not have is not read as the invalidity's */
		{"{\"results\": [{\"configuration\": {\"block_x\": 32, \"block_y\": 1, \"maxrreg\": 0}, \"invalidity\": \"correct\",\n"
		 "  \"times\": {\"runtimes\": [1.5]}, \"autotune\": {\"status\": \"bogus\"}}]}",
		 "\"bogus\"", "autotune status 'bogus' is none of not-run, ok, compile-error, launch-error, wrong-result, crashed, timeout"},
		/* a time that passed is a positive number of ms, and there is one */
		{"{\"results\": [{\"configuration\": {\"block_x\": 32, \"block_y\": 1, \"maxrreg\": 0}, \"invalidity\": \"correct\",\n"
		 "  \"times\": {\"runtimes\": [-1.5]}}]}",
		 "{\"configuration", "a correct result's time is '-1.5', not a positive number of milliseconds"},
		{"{\"results\": [{\"configuration\": {\"block_x\": 32, \"block_y\": 1, \"maxrreg\": 0}, \"invalidity\": \"correct\",\n"
		 "  \"measurements\": [{\"name\": \"time\", \"value\": 0}]}]}",
		 "{\"configuration", "a correct result's time is '0', not a positive"},
		{"{\"results\": [{\"configuration\": {\"block_x\": 32, \"block_y\": 1, \"maxrreg\": 0}, \"invalidity\": \"correct\"}]}",
		 "{\"configuration", "a correct result without a time (no \"time\" measurement, no runtimes)"},
		{"{\"cache\": {\"32,1,0\": {\"block_x\": 32, \"block_y\": 1, \"maxrreg\": 0, \"time\": -2}}}", "-2",
		 "the cache entry '32,1,0' has a time of -2, not a positive number of milliseconds"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		table t;
		char *msg;
		CU_ASSERT_EQUAL(load_text("bad.json", bad[i].text, &t, &msg), -1);
		const char *at = where(bad[i].text, bad[i].at);
		int ok = msg && !strncmp(msg, at, strlen(at)) && strstr(msg, bad[i].says);
		if (!ok)
			fprintf(stderr, "\n  case %zu: want '%s%s', got '%s'", i, at, bad[i].says, msg ? msg : "(nothing)");
		CU_ASSERT(ok);
		free(msg);
	}
}

/* A file that libyaml reads but that is not JSON is refused, naming the file and the place: a
 * YAML alias would repeat a result, a second document or trailing text would be dropped, a
 * UTF-16 file is not what Kernel Tuner or T4 write. */
static void test_yaml_in_a_json_file_is_refused(void)
{
	static const char *const one = "{\"configuration\": {\"block_x\": 32, \"block_y\": 1, \"maxrreg\": 0}, "
				       "\"invalidity\": \"correct\", \"times\": {\"runtimes\": [1.5]}}";
	char text[4][512];
	snprintf(text[0], sizeof text[0], "{\"results\": [&r %s, *r]}", one);
	snprintf(text[1], sizeof text[1], "{\"results\": [%s]}\n{\"results\": []}\n", one);
	snprintf(text[2], sizeof text[2], "{\"results\": [%s]}\n--- {\"results\": []}\n", one);
	snprintf(text[3], sizeof text[3], "results:\n  - %s\n", one);
	static const char *const says[] = {"JSON syntax error: a YAML anchor or alias (& or *): not JSON",
					   "JSON syntax error: text after the document", "JSON syntax error: a second document",
					   "JSON syntax error: YAML's indented lists or mappings: not JSON"};
	for (int i = 0; i < 4; i++) {
		table t;
		char *msg;
		CU_ASSERT_EQUAL(load_text("yaml.json", text[i], &t, &msg), -1);
		int ok = msg && !strncmp(msg, loaded, strlen(loaded)) && strstr(msg, says[i]);
		if (!ok)
			fprintf(stderr, "\n  case %d: want '%s', got '%s'", i, says[i], msg ? msg : "(nothing)");
		CU_ASSERT(ok);
		free(msg);
	}
	/* UTF-16 (little-endian, with its byte order mark): the same text, two bytes a character */
	char utf16[1200];
	size_t n = 0;
	utf16[n++] = (char)0xFF;
	utf16[n++] = (char)0xFE;
	char plain[512];
	snprintf(plain, sizeof plain, "{\"results\": [%s]}", one);
	for (const char *c = plain; *c; c++) {
		utf16[n++] = *c;
		utf16[n++] = 0;
	}
	char *path = in_dir("utf16.json");
	FILE *f = fopen(path, "wb");
	fwrite(utf16, 1, n, f);
	fclose(f);
	config cfg;
	space sp;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(config_load(runs[1][0], &cfg, &d) || space_enumerate(&cfg, &sp, &d), 0);
	table t;
	CU_ASSERT_EQUAL(t4_load(path, &cfg, &sp, &t, &d), -1);
	CU_ASSERT(d.n && strstr(d.msgs[0], path) && strstr(d.msgs[0], "UTF-16") && strstr(d.msgs[0], "must be UTF-8"));
	space_free(&sp);
	config_free(&cfg);
	diags_free(&d);
	free(path);
}

/* The strings Kernel Tuner records instead of a time are failures of their kind, with the string
 * as the message; a replay counts them failed. */
static void test_a_time_that_is_an_error_string_is_a_failure(void)
{
	const char *text = "{\"tune_params_keys\": [\"block_x\", \"block_y\", \"maxrreg\"], \"device_name\": \"GPU X\", \"cache\": {\n"
			   "\"32,1,0\": {\"block_x\": 32, \"block_y\": 1, \"maxrreg\": 0, \"time\": \"CompilationFailedConfig\"},\n"
			   "\"32,1,32\": {\"block_x\": 32, \"block_y\": 1, \"maxrreg\": 32, \"time\": \"RuntimeFailedConfig\"},\n"
			   "\"32,1,64\": {\"block_x\": 32, \"block_y\": 1, \"maxrreg\": 64, \"time\": \"InvalidConfig\"},\n"
			   "\"32,2,0\": {\"block_x\": 32, \"block_y\": 2, \"maxrreg\": 0, \"time\": \"SomethingElse\"},\n"
			   "\"32,2,32\": {\"block_x\": 32, \"block_y\": 2, \"maxrreg\": 32, \"time\": 1.25, \"times\": [1.5, 1.0, 1.25, 9]}}}";
	table t;
	char *msg;
	CU_ASSERT_EQUAL_FATAL(load_text("errors.json", text, &t, &msg), 0);
	CU_ASSERT_EQUAL_FATAL(t.nrows, 5);
	static const char *const want[][2] = {{"compile-error", "Kernel Tuner: CompilationFailedConfig: did not compile"},
					      {"crashed", "Kernel Tuner: RuntimeFailedConfig"},
					      {"launch-error", "Kernel Tuner: InvalidConfig"},
					      {"crashed", "Kernel Tuner: SomethingElse"},
					      {"ok", ""}};
	for (size_t r = 0; r < 5; r++) {
		CU_ASSERT_STRING_EQUAL(table_field(&t, r, "status"), want[r][0]);
		CU_ASSERT_EQUAL(strncmp(table_field(&t, r, "message"), want[r][1], strlen(want[r][1])), 0);
		CU_ASSERT_STRING_EQUAL(table_field(&t, r, "gpu"), "GPU X");
	}
	/* the recorded time decides; the samples give the rest; the config, the register cap */
	CU_ASSERT_STRING_EQUAL(table_field(&t, 4, "time_ms_median"), "1.25");
	CU_ASSERT_STRING_EQUAL(table_field(&t, 4, "time_ms_min"), "1");
	CU_ASSERT_STRING_EQUAL(table_field(&t, 4, "time_ms_max"), "9");
	CU_ASSERT_STRING_EQUAL(table_field(&t, 4, "samples"), "4");
	CU_ASSERT_STRING_EQUAL(table_field(&t, 4, "nvcc_flags"), "-maxrregcount=32 -O3"); /* and build.flags */
	CU_ASSERT_STRING_EQUAL(table_field(&t, 4, "blockDim.y"), "2");
	CU_ASSERT_STRING_EQUAL(table_field(&t, 4, "gridDim.y"), "8192");
	table_free(&t);
	config cfg;
	space sp;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(config_load(runs[1][0], &cfg, &d) || space_enumerate(&cfg, &sp, &d), 0);
	replay_result r;
	char *seq = replayed(&cfg, &sp, write_temp(1, "errors.json", text), STRAT_EXHAUSTIVE, sp.count, 1, &r);
	CU_ASSERT_PTR_NOT_NULL(seq);
	CU_ASSERT_DOUBLE_EQUAL(r.optimum, 1.25, 0);
	CU_ASSERT_EQUAL(occurrences(seq ? seq : "", ",\r\n"), sp.count - 1); /* every other one failed or absent */
	free(seq);
	space_free(&sp);
	config_free(&cfg);
	diags_free(&d);
}

/* The header without the lines that name the results it was written from. */
static char *without_lines_naming(const char *path, const char *name)
{
	char *text = slurp(path), *out = xstrdup("");
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		if (!strstr(line, name) || next - line > 4000) {
			char *more = xasprintf("%s%.*s", out, (int)(next - line), line);
			free(out);
			out = more;
		}
	}
	free(text);
	return out;
}

/* `autotune header` of a run's T4 file writes the header the CSV gives (the config from the file);
 * of a cache file, with --config: the fastest configuration, the register cap the config makes of
 * it, the cache's device; without --config, refused with what to do. */
static void test_header_reads_t4_and_cache_files(void)
{
	char *t4 = in_dir("hdr.t4.json"), *cache = in_dir("hdr.cache.json"), *h1 = in_dir("a/conv_tuned.h"),
	     *h2 = in_dir("b/conv_tuned.h");
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(t4_write(runs[0][1], t4, &d), 0);
	char *from_csv[] = {(char *)runs[0][1]}, *from_t4[] = {t4};
	CU_ASSERT_EQUAL_FATAL(header_write_results(from_csv, 1, NULL, NULL, h1, &d), 0);
	CU_ASSERT_EQUAL_FATAL(header_write_results(from_t4, 1, NULL, NULL, h2, &d), 0);
	char *a = without_lines_naming(h1, runs[0][1]), *b = without_lines_naming(h2, t4);
	CU_ASSERT(strlen(a) > 1000);
	CU_ASSERT_STRING_EQUAL(a, b);
	free(a);
	free(b);

	write_cache(runs[1][1], cache, 0, 0);
	char *h3 = in_dir("c/summatrix_tuned.h"), *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){"header", cache, "-o", h3, NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "does not name its config: give --config CONFIG.yaml"));
	free(out);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"header", cache, "--config", (char *)runs[1][0], "-o", h3, NULL}, &out), 0);
	free(out);
	table t;
	CU_ASSERT_EQUAL_FATAL(table_load(runs[1][1], &t, &d), 0);
	double fastest = INFINITY;
	for (size_t r = 0; r < t.nrows; r++)
		if (!strcmp(table_field(&t, r, "status"), "ok"))
			fastest = fmin(fastest, strtod(decided(&t, r), NULL));
	char *text = slurp(h3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	const char *tm = strstr(text, "#define SUMMATRIX_TIME_MS "), *cap = strstr(text, "#define SUMMATRIX_MAXRREG ");
	CU_ASSERT_FATAL(tm && cap);
	CU_ASSERT(strtod(tm + 26, NULL) <= fastest * 1.0025 + 1e-6);
	long m = strtol(cap + 26, NULL, 10);
	char flags[64];
	snprintf(flags, sizeof flags, m ? "#define SUMMATRIX_NVCC_FLAGS \"-maxrregcount=%ld -O3\"\n" : "#define SUMMATRIX_NVCC_FLAGS \"-O3\"\n", m);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, flags));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "#define SUMMATRIX_TUNED_DEVICE \"NVIDIA H100 80GB HBM3\"\n"));
	free(text);
	table_free(&t);
	unlink(t4);
	unlink(cache);
	free(t4);
	free(cache);
	free(h1);
	free(h2);
	free(h3);
	diags_free(&d);
}

/* The T4 file of an interrupted run says so on every result, and leaves out what was not measured:
 * read back, those come back as not-run, and the header from it says what the CSV's says. */
static void test_an_interrupted_runs_t4_says_how_far_it_got(void)
{
	char *csv = in_dir("cut.csv"), *t4 = in_dir("cut.t4.json"), *h1 = in_dir("cut_a/reduce_tuned.h"),
	     *h2 = in_dir("cut_b/reduce_tuned.h");
	FILE *in = fopen(runs[2][1], "r"), *out = fopen(csv, "w");
	CU_ASSERT_FATAL(in && out);
	char line[8192];
	int n = 0, cut = 0;
	for (; fgets(line, sizeof line, in); n++) {
		line[strcspn(line, "\r\n")] = 0;
		char *ok = strstr(line, ",ok,");
		/* every other row after the head was not reached, the winner aside */
		if (n && n % 2 && ok && !strstr(line, "winner")) {
			fprintf(out, "%.*s,not-run,%s,interrupted\r\n", (int)(ok - line), line, ok + 4);
			cut++;
		} else
			fprintf(out, "%s,%s\r\n", line, n ? "interrupted" : "run");
	}
	fclose(in);
	fclose(out);
	CU_ASSERT(cut > 2);
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(t4_write(csv, t4, &d), 0);
	CU_ASSERT_EQUAL(count_in(t4, "\"run\": \"interrupted\""), n - 1 - cut);
	char *from_csv[] = {csv}, *from_t4[] = {t4};
	CU_ASSERT_EQUAL_FATAL(header_write_results(from_csv, 1, runs[2][0], "reduce", h1, &d), 0);
	CU_ASSERT_EQUAL_FATAL(header_write_results(from_t4, 1, runs[2][0], "reduce", h2, &d), 0);
	char want[160];
	snprintf(want, sizeof want, "#define REDUCE_COMPLETE 0\n#define REDUCE_RUN \"interrupted\"\n#define REDUCE_MEASURED %d\n"
		 "#define REDUCE_CONFIGURATIONS %d\n", n - 1 - cut, n - 1);
	char *a = slurp(h1), *b = slurp(h2);
	CU_ASSERT_PTR_NOT_NULL(a ? strstr(a, want) : NULL);
	CU_ASSERT_PTR_NOT_NULL(b ? strstr(b, want) : NULL);
	free(a);
	free(b);
	diags_free(&d);
	free(csv);
	free(t4);
	free(h1);
	free(h2);
}

#define RUN_DIR "scratch/t4"

/* The rows of the CSV at csv and those the T4 file at t4 gives back through config cfg_path:
 * whether they are the same, field by field (the T4 file's fields that the CSV has). */
static int same_rows(const char *cfg_path, const char *csv, const char *t4)
{
	config cfg;
	space sp;
	table a, b;
	diags d = {0};
	int same = config_load(cfg_path, &cfg, &d) == 0 && space_enumerate(&cfg, &sp, &d) == 0;
	if (same && (same = table_load(csv, &a, &d) == 0)) {
		if ((same = t4_load(t4, &cfg, &sp, &b, &d) == 0 && a.nrows == b.nrows && a.nrows > 0)) {
			for (size_t r = 0; r < a.nrows; r++)
				for (size_t i = 0; i < a.ncols; i++)
					same &= !strcmp(table_get(&a, r, (int)i), table_field(&b, r, a.names[i]));
			table_free(&b);
		}
		table_free(&a);
	}
	if (cfg.path) {
		space_free(&sp);
		config_free(&cfg);
	}
	diags_print(&d);
	diags_free(&d);
	return same;
}

/* A tuning run with --t4, or with output.t4 in its config, writes NAME.t4.json beside the CSV
 * with the CSV's rows and says where; a T4 path that cannot be written stops the run before
 * anything is measured; --t4 and --config go with their commands only. */
/* A search's T4 file holds what it measured, each result counting the space; read back (the
 * header from it), it is a search of those of 20, with no row made per configuration left out. */
static void test_a_searchs_t4_counts_the_space(void)
{
	char *cfg = write_space_config(RUN_DIR, "ts", NULL), *out;
	const char *t4 = RUN_DIR "/ts.t4.json", *h = RUN_DIR "/from_t4/ts_tuned.h";
	unlink(t4);
	fake_worker_reset(RUN_DIR, "ts");
	CU_ASSERT_EQUAL_FATAL(run_autotune_on(cfg, (char *[]){"-q", "--t4", "--budget", "5", NULL}, &out), 0);
	free(out);
	CU_ASSERT_EQUAL(count_in(t4, "\"invalidity\": \"correct\""), 5);
	CU_ASSERT_EQUAL(count_in(t4, "\"configurations\": \"20\""), 5);
	config c;
	space sp;
	table t;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(config_load(cfg, &c, &d), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&c, &sp, &d), 0);
	CU_ASSERT_EQUAL_FATAL(t4_load(t4, &c, &sp, &t, &d), 0);
	CU_ASSERT_EQUAL(t.nrows, 5);
	run_extent r;
	table_run(&t, &r);
	CU_ASSERT_STRING_EQUAL(r.state, RUN_SEARCH);
	CU_ASSERT_EQUAL(r.measured, 5);
	CU_ASSERT_EQUAL(r.configurations, 20);
	table_free(&t);
	space_free(&sp);
	config_free(&c);
	char *from[] = {(char *)t4};
	CU_ASSERT_EQUAL(header_write_results(from, 1, cfg, "ts", h, &d), 0);
	CU_ASSERT_EQUAL(count_in(h, "#define TS_MEASURED 5"), 1);
	CU_ASSERT_EQUAL(count_in(h, "#define TS_CONFIGURATIONS 20"), 1);
	diags_free(&d);
	fake_worker_forget();
}

static void test_a_tuning_run_writes_the_t4_file(void)
{
	char *cfg = write_space_config(RUN_DIR, "tf", NULL), *out;
	const char *t4 = RUN_DIR "/tf.t4.json", *csv = RUN_DIR "/tf.csv";
	unlink(t4);
	fake_worker_reset(RUN_DIR, "tf");
	CU_ASSERT_EQUAL(run_autotune_on(cfg, (char *[]){"--t4", NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "  T4:      " RUN_DIR "/tf.t4.json\n"));
	free(out);
	CU_ASSERT(each_row_once(csv, 20));
	CU_ASSERT(same_rows(cfg, csv, t4));

	unlink(t4);
	fake_worker_reset(RUN_DIR, "tf");
	char *text = slurp(cfg), *at = strstr(text, "output: {");
	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	char *with_key = xasprintf("%.*soutput: {t4: true, %s", (int)(at - text), text, at + 9);
	put_file(cfg, with_key);
	CU_ASSERT_EQUAL(run_autotune_on(cfg, (char *[]){"-q", NULL}, &out), 0);
	free(out);
	CU_ASSERT(same_rows(cfg, csv, t4));

	unlink(t4);
	fake_worker_reset(RUN_DIR, "tf");
	CU_ASSERT_EQUAL_FATAL(mkdir(t4, 0700), 0);
	CU_ASSERT_EQUAL(run_autotune_on(cfg, (char *[]){"-q", NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "cannot write '" RUN_DIR "/tf.t4.json'"));
	CU_ASSERT_NOT_EQUAL(access(csv, F_OK), 0); /* refused before anything was measured */
	free(out);
	rmdir(t4);

	CU_ASSERT_EQUAL(run_autotune((char *[]){"header", (char *)csv, "--t4", NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "--t4 is not an option of header (it goes with tune, merge;"));
	free(out);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"--config", cfg, cfg, NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "--config is not an option of tune (it goes with header;"));
	free(out);
	free(text);
	free(with_key);
	fake_worker_forget();
	proc_capture((char *[]){"rm", "-rf", RUN_DIR, NULL}, 30, &out);
	free(out);
}

int add_t4_suite(void)
{
	CU_pSuite s = CU_add_suite("t4", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "an interrupted run's T4 says how far it got", test_an_interrupted_runs_t4_says_how_far_it_got);
	CU_add_test(s, "the T4 of a recorded run holds what the schema requires",
		    test_the_t4_of_a_recorded_run_holds_what_the_schema_requires);
	CU_add_test(s, "a T4 file gives the CSV's rows back", test_a_t4_file_gives_the_csvs_rows_back);
	CU_add_test(s, "strings are escaped as JSON wants", test_strings_are_escaped_as_json_wants);
	CU_add_test(s, "replay from T4 and cache files is the CSV's", test_replay_from_t4_and_cache_is_the_csvs);
	CU_add_test(s, "an unterminated cache file is read", test_an_unterminated_cache_file_is_read);
	CU_add_test(s, "bad files are refused where they are wrong", test_bad_files_are_refused_where_they_are_wrong);
	CU_add_test(s, "YAML in a JSON file is refused", test_yaml_in_a_json_file_is_refused);
	CU_add_test(s, "a time that is an error string is a failure", test_a_time_that_is_an_error_string_is_a_failure);
	CU_add_test(s, "header reads T4 and cache files", test_header_reads_t4_and_cache_files);
	CU_add_test(s, "a search's T4 counts the space", test_a_searchs_t4_counts_the_space);
	CU_add_test(s, "a tuning run writes the T4 file", test_a_tuning_run_writes_the_t4_file);
	return CU_get_error() == CUE_SUCCESS ? 0 : -1;
}
