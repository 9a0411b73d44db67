/* test_docs.c: every YAML example of README.md and docs/ loads as a config and enumerates, as a
 * reader who copies it would find; one that a paragraph presents as a shipped config
 * ("`configs/x.yaml`" in the lines before it) is that file, byte for byte. And the house rules
 * a reader relies on: the wings call only below, files and functions stay readable, and every
 * module has its test file (tests mirror the modules one to one). */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "space.h"
#include "tests.h"

/* The tuner's folders: its stages in pipeline order (the Makefile's STAGES), then the driver. */
static const char *const tuner_dirs[] = {"tuner/config", "tuner/space", "tuner/build", "tuner/search", "tuner/measure",
					  "tuner/import", "tuner/results", "tuner"};
enum { NTUNER = sizeof tuner_dirs / sizeof *tuner_dirs, NSTAGES = NTUNER - 1 };

/* The shipped config that the text before a fence names, as "`configs/NAME.yaml`": the last one
 * within the paragraph that leads to it (no blank line between). NULL when none. */
static char *named_config(const char *doc, const char *fence)
{
	const char *para = fence;
	while (para > doc + 1 && !(para[-1] == '\n' && para[-2] == '\n'))
		para--;
	if (fence - para < 2) /* the fence right after a blank line: the paragraph before it */
		for (para -= 2; para > doc + 1 && !(para[-1] == '\n' && para[-2] == '\n'); para--)
			;
	char *found = NULL;
	for (const char *p = para; p < fence && *p; p++) {
		if (strncmp(p, "`configs/", 9) && strncmp(p, "`examples/", 10))
			continue;
		const char *end = strchr(p + 1, '`');
		if (end && end < fence && end - p > 14 && !strncmp(end - 5, ".yaml", 5)) {
			free(found);
			found = strndup(p + 1, (size_t)(end - p - 1));
		}
	}
	return found;
}

/* Checks the ```yaml blocks of one Markdown file; returns how many there were. */
static int check_file(const char *md, const char *dir)
{
	char *doc = read_text(md);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	int n = 0;
	for (const char *p = doc; (p = strstr(p, "```yaml\n"));) {
		const char *body = p + 8, *end = strstr(body, "\n```");
		CU_ASSERT_PTR_NOT_NULL_FATAL(end);
		char path[512];
		snprintf(path, sizeof path, "%s/configs/doc-%d-%s", dir, ++n, strrchr(md, '/') ? strrchr(md, '/') + 1 : md);
		strcpy(path + strlen(path) - 3, ".yaml");
		FILE *f = fopen(path, "w");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		fprintf(f, "%.*s\n", (int)(end - body), body);
		fclose(f);
		config cfg;
		space sp;
		diags d = {0};
		int loaded = config_load(path, &cfg, &d) == 0;
		int enumerated = loaded && space_enumerate(&cfg, &sp, &d) == 0;
		if (!enumerated) {
			int line = 1;
			for (const char *c = doc; c < p; c++)
				line += *c == '\n';
			fprintf(stderr, "\n  %s:%d: YAML example %d does not load:\n", md, line, n);
			diags_print(&d);
		}
		CU_ASSERT(enumerated);
		if (enumerated)
			space_free(&sp);
		if (loaded)
			config_free(&cfg);
		diags_free(&d);
		char *shipped = named_config(doc, p);
		if (shipped) {
			char *want = read_text(shipped), *got = read_text(path);
			CU_ASSERT_PTR_NOT_NULL(want);
			if (want && got && strcmp(want, got))
				fprintf(stderr, "\n  %s, YAML example %d differs from %s\n", md, n, shipped);
			CU_ASSERT(want && got && !strcmp(want, got));
			free(want);
			free(got);
			free(shipped);
		}
		p = end + 4;
	}
	free(doc);
	return n;
}

static void test_every_yaml_example_loads(void)
{
	/* configs/ beside kernels/, as in the repository: the examples' paths are relative to it */
	char dir[256], sub[300], link[300], kernels[4096];
	snprintf(dir, sizeof dir, "%s/docs", test_dir);
	snprintf(sub, sizeof sub, "%s/configs", dir);
	snprintf(link, sizeof link, "%s/kernels", dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(kernels, sizeof kernels - 9));
	strcat(kernels, "/kernels");
	mkdir(dir, 0700);
	mkdir(sub, 0700);
	unlink(link);
	CU_ASSERT_EQUAL_FATAL(symlink(kernels, link), 0);
	/* an example's kernel is beside its config (examples/saxpy) */
	char kernel[4200];
	snprintf(kernel, sizeof kernel, "%.*s/examples/saxpy/saxpy.cu", (int)(strlen(kernels) - 8), kernels);
	char beside[320];
	snprintf(beside, sizeof beside, "%s/saxpy.cu", sub);
	unlink(beside);
	CU_ASSERT_EQUAL(symlink(kernel, beside), 0);
	int n = check_file("README.md", dir);
	DIR *docs = opendir("docs");
	CU_ASSERT_PTR_NOT_NULL_FATAL(docs);
	for (struct dirent *e; (e = readdir(docs));) {
		size_t len = strlen(e->d_name);
		if (len > 3 && !strcmp(e->d_name + len - 3, ".md")) {
			char md[300];
			snprintf(md, sizeof md, "docs/%s", e->d_name);
			n += check_file(md, dir);
		}
	}
	closedir(docs);
	CU_ASSERT(n >= 2); /* the complete example at least, and the ones beside it */
}

/* Whether every `#include "x.h"` of the files in dir names a header in one of the allowed folders. */
static int includes_stay_within(const char *dir, const char *const *allowed, size_t nallowed)
{
	DIR *d = opendir(dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	int ok = 1;
	for (struct dirent *e; (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len < 3 || (strcmp(e->d_name + len - 2, ".c") && strcmp(e->d_name + len - 2, ".h")))
			continue;
		char path[512], line[512];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "r");
		while (f && fgets(line, sizeof line, f)) {
			char name[256];
			if (sscanf(line, "#include \"%255[^\"]\"", name) != 1)
				continue;
			int found = 0;
			for (size_t i = 0; i < nallowed && !found; i++) {
				char there[600];
				snprintf(there, sizeof there, "%s/%s", allowed[i], name);
				found = access(there, F_OK) == 0 || !strcmp(allowed[i], name);
			}
			if (!found) {
				fprintf(stderr, "\n  %s includes %s, outside what its folder may call\n", path, name);
				ok = 0;
			}
		}
		if (f)
			fclose(f);
	}
	closedir(d);
	return ok;
}

/* The house rules a reader can rely on, in one file: how many problems it breaks (each printed).
 * No .c over 900 lines; no function body over 80 lines unless the comment just above its
 * signature gives the reason on a line with "Long:". A function is a signature at column 0 and
 * a body from "{" to "}", both at column 0 (the style every source here is in). */
static int size_problems(const char *path, int loud)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 1;
	char line[1024], comment[4096] = "", sig[256] = "";
	int n = 0, problems = 0, start = 0, in_comment = 0, long_ok = 0;
	while (fgets(line, sizeof line, f)) {
		n++;
		if (!strncmp(line, "/*", 2)) {
			in_comment = 1;
			comment[0] = 0;
		}
		if (in_comment) {
			if (strlen(comment) + strlen(line) < sizeof comment)
				strcat(comment, line);
			in_comment = !strstr(line, "*/");
			continue;
		}
		if (line[0] == '{') {
			start = n;
			continue;
		}
		if (line[0] == '}' && start) {
			if (n - start > 80 && !long_ok) {
				if (loud)
					fprintf(stderr, "\n  %s: %s  is %d lines, and its comment gives no \"Long:\" reason", path,
						sig, n - start);
				problems++;
			}
			start = 0;
			comment[0] = 0;
			continue;
		}
		if (!start && (line[0] == '_' || (line[0] >= 'a' && line[0] <= 'z')) && !strchr(line, ';')) {
			long_ok = strstr(comment, "Long:") != NULL;
			snprintf(sig, sizeof sig, "%.*s", (int)strcspn(line, "("), line);
		}
		if (!start && line[0] == '\n')
			comment[0] = 0;
	}
	fclose(f);
	if (n > 900) {
		if (loud)
			fprintf(stderr, "\n  %s: %d lines, over 900", path, n);
		problems++;
	}
	return problems;
}

static void test_files_and_functions_stay_readable(void)
{
	const char *dirs[NTUNER + 3] = {"lib", "worker", "runtime"};
	for (int i = 0; i < NTUNER; i++)
		dirs[3 + i] = tuner_dirs[i];
	int problems = 0, files = 0;
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
		DIR *d = opendir(dirs[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		for (struct dirent *e; (e = readdir(d));) {
			size_t len = strlen(e->d_name);
			if (len < 3 || strcmp(e->d_name + len - 2, ".c"))
				continue;
			char path[512];
			snprintf(path, sizeof path, "%s/%s", dirs[i], e->d_name);
			problems += size_problems(path, 1);
			files++;
		}
		closedir(d);
	}
	CU_ASSERT(files > 40);
	CU_ASSERT_EQUAL(problems, 0);
	/* the rule itself: a long function without a reason is found, and one with a reason is not */
	char body[8192] = "/* f: no reason */\nstatic int f(void)\n{\n";
	for (int i = 0; i < 85; i++)
		strcat(body, "\tx++;\n");
	strcat(body, "}\n");
	CU_ASSERT_EQUAL(size_problems(write_temp(0, "long.c", body), 0), 1);
	char reason[8192] = "/* g: one case per option.\n * Long: a flat switch reads best whole. */\nstatic int g(void)\n";
	strcat(reason, strchr(body, '{'));
	CU_ASSERT_EQUAL(size_problems(write_temp(1, "reason.c", reason), 0), 0);
}

/* The layout of docs/reference.md's "How it works": lib/ calls nothing above it, the worker only
 * lib/, each stage of the tuner only itself, the stages before it and lib/ (the results, the last,
 * also runtime/: autotune_ln), and runtime/ nothing else. */
static void test_the_wings_call_only_below(void)
{
	const char *lib[] = {"lib"};
	CU_ASSERT(includes_stay_within("lib", lib, 1));
	const char *worker[] = {"worker", "lib"};
	CU_ASSERT(includes_stay_within("worker", worker, 2));
	for (int k = 0; k < NSTAGES; k++) {
		const char *below[NSTAGES + 2];
		int n = 0;
		for (int i = k; i >= 0; i--)
			below[n++] = tuner_dirs[i];
		below[n++] = "lib";
		if (!strcmp(tuner_dirs[k], "tuner/results"))
			below[n++] = "runtime";
		CU_ASSERT(includes_stay_within(tuner_dirs[k], below, (size_t)n));
	}
	/* the rule itself: the search, held to its own folder and lib/, is found including the earlier
	 * stages' headers */
	const char *alone[] = {"tuner/search", "lib"};
	fprintf(stderr, "\n  (includes found on purpose follow)");
	CU_ASSERT(!includes_stay_within("tuner/search", alone, 2));
	const char *runtime[] = {"runtime"};
	CU_ASSERT(includes_stay_within("runtime", runtime, 1));
}

/* docs/config.md's key table gives each plain key (every section's table) with the kind and default that the
 * loader's table has, and the loader defaults to it. */
static void test_key_table_matches_the_loaders(void)
{
	char *doc = read_text("docs/config.md");
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	const char *kernel = write_temp(0, "kt.cu", "extern \"C\" __global__ void k(float *a) { a[0] = 1; }\n");
	char text[512];
	snprintf(text, sizeof text, "kernel: {source: %s, entry: k}\narguments: [{name: a, type: float, count: 4, output: true}]\n"
		 "space: {x: [32]}\nlaunch: {block: [x], grid: [1]}\n", kernel);
	config cfg;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(config_load(write_temp(1, "kt.yaml", text), &cfg, &d), 0);
	for (const key_table *t = config_key_tables; t->section; t++)
	for (size_t i = 0; i < t->n; i++) {
		const plain_key *k = &t->rows[i];
		char row[200], words[128];
		const char *q = k->kind == KEY_ENUM ? "`" : ""; /* words are code */
		snprintf(row, sizeof row, "| `%s.%s` | %s | %s%s%s |", t->section, k->name,
			 plain_key_type(k, words, sizeof words), q, k->dflt, q);
		if (!strstr(doc, row))
			fprintf(stderr, "\n  docs/config.md has no row '%s'\n", row);
		CU_ASSERT_PTR_NOT_NULL(strstr(doc, row));
		const char *field = (const char *)&cfg + k->offset;
		double got = k->kind == KEY_INT || k->kind == KEY_BOOL || k->kind == KEY_ENUM ? *(const int *)field
											       : *(const double *)field;
		double want = k->kind == KEY_BOOL ? !strcmp(k->dflt, "true") : strtod(k->dflt, NULL);
		for (int w = 0; k->kind == KEY_ENUM && k->words[w]; w++)
			if (!strcmp(k->words[w], k->dflt))
				want = w;
		CU_ASSERT_DOUBLE_EQUAL(got, want, 0);
	}
	config_free(&cfg);
	diags_free(&d);
	free(doc);
}

/* The modules without a test file of their own, each with the reason. worker/ is not walked at
 * all: it needs a GPU, and tests/gpu.sh (make test-gpu) runs it. */
static const char *const exempt[][2] = {
	{"main", "it only dispatches each command to the module that does it, whose file tests it"},
};
/* Test files that mirror no module, each with the reason. */
static const char *const cross_cutting[][2] = {
	{"docs", "the documents and the house rules, across every module"},
	{"help", "every command's --help, the man page and README.md agreeing"},
	{"layers", "the layers of docs/reference.md: the include paths, no include or call circles"},
	{"noshell", "no text of a config or spec reaches nvcc's shell: the loader, the import, the results, the run"},
	{"half", "lib/half.h, a header alone: the host and the worker's helper kernels (nvcc) share its conversions"},
};

static int listed(const char *const list[][2], size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i][0], name))
			return 1;
	return 0;
}

/* Whether tests/test_<name>.c (under tests_dir) defines add_<name>_suite as the Makefile finds
 * suites: "int add_<name>_suite(void)" on a line of its own. */
static int has_suite(const char *tests_dir, const char *name)
{
	char path[1024], want[300], line[512];
	snprintf(path, sizeof path, "%s/test_%s.c", tests_dir, name);
	snprintf(want, sizeof want, "int add_%s_suite(void)\n", name);
	FILE *f = fopen(path, "r");
	int found = 0;
	while (f && !found && fgets(line, sizeof line, f))
		found = !strcmp(line, want);
	if (f)
		fclose(f);
	return found;
}

/* The modules of dirs (root/lib, ...) without their test file in root/tests, each printed when
 * loud: how many. */
static int modules_without_tests(const char *root, const char *const *dirs, size_t ndirs, int loud)
{
	char tests_dir[512];
	snprintf(tests_dir, sizeof tests_dir, "%s/tests", root);
	int missing = 0;
	for (size_t i = 0; i < ndirs; i++) {
		char dir[512];
		snprintf(dir, sizeof dir, "%s/%s", root, dirs[i]);
		DIR *d = opendir(dir);
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		for (struct dirent *e; (e = readdir(d));) {
			size_t len = strlen(e->d_name);
			if (len < 3 || strcmp(e->d_name + len - 2, ".c"))
				continue;
			char name[256];
			snprintf(name, sizeof name, "%.*s", (int)(len - 2), e->d_name);
			if (listed(exempt, sizeof exempt / sizeof *exempt, name) || has_suite(tests_dir, name))
				continue;
			if (loud)
				fprintf(stderr, "\n  %s/%s has no tests/test_%s.c defining add_%s_suite", dirs[i], e->d_name, name, name);
			missing++;
		}
		closedir(d);
	}
	return missing;
}

static void test_every_module_has_its_test_file(void)
{
	const char *dirs[NTUNER + 1] = {"lib"};
	for (int i = 0; i < NTUNER; i++)
		dirs[1 + i] = tuner_dirs[i];
	CU_ASSERT_EQUAL(modules_without_tests(".", dirs, NTUNER + 1, 1), 0);
	/* every exemption is a module still there, and no test file stands for nothing */
	for (size_t i = 0; i < sizeof exempt / sizeof *exempt; i++) {
		char path[256];
		snprintf(path, sizeof path, "tuner/%s.c", exempt[i][0]);
		CU_ASSERT_EQUAL(access(path, F_OK), 0);
	}
	DIR *d = opendir("tests");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	for (struct dirent *e; (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len < 8 || strncmp(e->d_name, "test_", 5) || strcmp(e->d_name + len - 2, ".c"))
			continue;
		char name[256], module[300];
		snprintf(name, sizeof name, "%.*s", (int)(len - 7), e->d_name + 5);
		int mirrors = 0;
		for (int i = 0; i < NTUNER + 1 && !mirrors; i++) {
			snprintf(module, sizeof module, "%s/%s.c", dirs[i], name);
			mirrors = !access(module, F_OK);
		}
		if (!mirrors && !listed(cross_cutting, sizeof cross_cutting / sizeof *cross_cutting, name))
			fprintf(stderr, "\n  tests/%s mirrors no module of lib/ or tuner/'s folders", e->d_name);
		CU_ASSERT(mirrors || listed(cross_cutting, sizeof cross_cutting / sizeof *cross_cutting, name));
	}
	closedir(d);
	/* the rule itself, on a tree of its own: a module without a test file is found, one whose test
	 * file defines no suite of its name too, and one with both is not */
	char root[128], path[300];
	snprintf(root, sizeof root, "%s/mirror", test_dir);
	static const char *const sub[] = {"", "/lib", "/tests"};
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s%s", root, sub[i]);
		mkdir(path, 0700);
	}
	static const char *const files[][2] = {
		{"lib/alone.c", ""},
		{"lib/nosuite.c", ""},
		{"tests/test_nosuite.c", "int add_other_suite(void)\n"},
		{"lib/good.c", ""},
		{"tests/test_good.c", "/* test_good.c */\nint add_good_suite(void)\n{\n}\n"},
	};
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		snprintf(path, sizeof path, "%s/%s", root, files[i][0]);
		FILE *f = fopen(path, "w");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		fputs(files[i][1], f);
		fclose(f);
	}
	const char *lib[] = {"lib"};
	CU_ASSERT_EQUAL(modules_without_tests(root, lib, 1, 0), 2);
	snprintf(path, sizeof path, "%s/lib/alone.c", root);
	unlink(path);
	snprintf(path, sizeof path, "%s/lib/nosuite.c", root);
	unlink(path);
	CU_ASSERT_EQUAL(modules_without_tests(root, lib, 1, 0), 0);
}

int add_docs_suite(void)
{
	CU_pSuite s = CU_add_suite("docs", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "every YAML example loads", test_every_yaml_example_loads);
	CU_add_test(s, "the wings call only below", test_the_wings_call_only_below);
	CU_add_test(s, "files and functions stay readable", test_files_and_functions_stay_readable);
	CU_add_test(s, "the key table matches the loader's", test_key_table_matches_the_loaders);
	CU_add_test(s, "every module has its test file", test_every_module_has_its_test_file);
	return CU_get_error() == CUE_SUCCESS ? 0 : -1;
}
