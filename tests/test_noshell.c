/* test_noshell.c: nothing a config or a spec says runs on the host. nvcc runs its own steps
 * through /bin/sh with each argument in double quotes, so '$', '`', '\' and '"' (and control
 * characters) in a kernel path, a build flag or an include directory would be the shell's: each
 * is refused at its place before anything runs, an imported spec's CompilerOptions too. What
 * double quotes do hold (spaces, ';', '\'', parentheses) compiles exactly as written, and the
 * make fragment and header quote it so that a user's build passes the same words. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "proc.h"
#include "tests.h"

/* The file a command substitution would create, in the directory of the test. */
static char *pwned(const char *dir) { return xasprintf("%s/PWNED", dir); }

static const char kernel[] =
	"#define STR_(x) #x\n#define STR(x) STR_(x)\n"
	"#ifdef PAIR\nstatic_assert(sizeof(STR(PAIR)) == 7, \"PAIR as written\");\n#endif\n"
	"#ifdef SEMI\nstatic_assert(sizeof(STR(SEMI)) == 4, \"SEMI as written\");\n#endif\n"
	"#ifdef QUOTE\nstatic_assert(sizeof(STR(QUOTE)) == 4, \"QUOTE as written\");\n#endif\n"
	"#ifdef SPACED\nstatic_assert(sizeof(STR(SPACED)) == 4, \"SPACED as written\");\n#endif\n"
	"extern \"C\" __global__ void k(float *a) { a[threadIdx.x] = 1.0f; }\n";

/* A config in dir whose kernel is at src (relative to dir) with the build section given. */
static char *config_in(const char *dir, const char *src, const char *build)
{
	char *path = xasprintf("%s/c.yaml", dir), *text = xasprintf(
		"name: noshell\nkernel: {source: \"%s\", entry: k}\narguments:\n"
		"  - {name: a, type: float, count: 64, output: true}\nspace: {bx: [32, 64]}\n"
		"launch: {block: [bx], grid: [\"64 / bx\"]}\n%s\noutput: {csv: %s/n.csv, header: %s/n_tuned.h}\n",
		src, build, dir, dir);
	put_file(path, text);
	free(text);
	return path;
}

/* Writes text to dir/name. */
static void put_in(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	put_file(path, text);
	free(path);
}

static char *fresh_dir(const char *name)
{
	char *dir = xasprintf("%s/%s", test_dir, name);
	remove_dir(dir);
	mkdir(dir, 0777);
	return dir;
}

/* Every field that reaches nvcc's argv, given shell syntax: refused at its line and column,
 * exit 2, and nothing ran (with the real nvcc in the nvcc suite, where a shell would run it). */
static void shell_syntax_is_refused_at_its_place(void)
{
	char *dir = fresh_dir("refused"), *x = pwned(dir);
	static const char *const bad[] = {"$(touch PWNED)", "`touch PWNED`", "a\\\"; touch PWNED; \\\"", "a\\\\b", "a\\nb"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		/* the kernel's path: a directory so named */
		char *sub = xasprintf("%s/d%s", dir, bad[i]);
		mkdir(sub, 0777);
		char *kpath = xasprintf("%s/k.cu", sub);
		put_file(kpath, kernel);
		const struct {
			const char *src, *build, *where;
		} cases[] = {
			{NULL, "", ":2:18: kernel source"},
			{"k.cu", NULL, ":7:17: build flag"},
			{"k.cu", NULL, ":7:41: include directory"},
		};
		put_in(dir, "k.cu", kernel);
		for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
			char *src = cases[c].src ? xstrdup(cases[c].src) : xasprintf("d%s/k.cu", bad[i]);
			char *build = c == 1 ? xasprintf("build: {flags: [\"-DV=%s\"], include: [\".\"]}", bad[i])
				     : c == 2 ? xasprintf("build: {flags: [\"-O3\"],       include: [\"i%s\"]}", bad[i])
					      : xstrdup(cases[c].build);
			char *cfg = config_in(dir, src, build), *out;
			int rc = run_autotune((char *[]){"--dry-run", "--arch", "sm_90", "--no-cache", cfg, NULL}, &out);
			CU_ASSERT_EQUAL(rc, 2);
			int said = strstr(out, cases[c].where) && strstr(out, "nvcc's own /bin/sh steps would interpret");
			if (!said || rc != 2)
				fprintf(stderr, "\n  %s (%s): exit %d: %s\n", bad[i], cases[c].where, rc, out);
			CU_ASSERT(said);
			CU_ASSERT_NOT_EQUAL(access(x, F_OK), 0);
			free(out);
			free(cfg);
			free(build);
			free(src);
		}
		free(kpath);
		free(sub);
	}
	free(x);
	free(dir);
}

static void test_shell_syntax_is_refused_at_its_place(void) { shell_syntax_is_refused_at_its_place(); }

/* The directories nvcc writes into: the cache (--cache-dir) and the work directory (TMPDIR). */
static void test_the_directories_nvcc_writes_into_are_checked(void)
{
	char *dir = fresh_dir("dirs"), *x = pwned(dir);
	put_in(dir, "k.cu", kernel);
	char *cfg = config_in(dir, "k.cu", ""), *cache = xasprintf("%s/$(touch PWNED)", dir), *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){"--dry-run", "--arch", "sm_90", "--cache-dir", cache, cfg, NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "autotune: the cache directory"));
	free(out);
	const char *was = getenv("TMPDIR");
	char *saved = was ? xstrdup(was) : NULL;
	mkdir(cache, 0777); /* there, so that a tool around autotune (valgrind) can use it */
	setenv("TMPDIR", cache, 1);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"--dry-run", "--arch", "sm_90", "--no-cache", cfg, NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "autotune: TMPDIR"));
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(saved);
	free(out);
	CU_ASSERT_NOT_EQUAL(access(x, F_OK), 0);
	free(cache);
	free(cfg);
	free(x);
	free(dir);
}

/* A value of the space or a constant is a number: text is an error of the expression, never a flag. */
static void test_a_defines_value_is_a_number(void)
{
	char *dir = fresh_dir("values"), *x = pwned(dir);
	put_in(dir, "k.cu", kernel);
	char *cfg = config_in(dir, "k.cu", "build: {defines: [V]}\nconstants: {V: \"$(touch PWNED)\"}"), *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){"--dry-run", "--arch", "sm_90", "--no-cache", cfg, NULL}, &out), 2);
	CU_ASSERT_NOT_EQUAL(access(x, F_OK), 0);
	free(out);
	free(cfg);
	free(x);
	free(dir);
}

/* What double quotes hold goes through as written: a run (the fake worker) records the flags as
 * words that make and a shell split back into exactly those flags. */
static void test_the_fragment_gives_make_the_flags_as_written(void)
{
	char *dir = fresh_dir("fragment");
	put_in(dir, "k.cu", kernel);
	char *inc = xasprintf("%s/inc dir", dir);
	mkdir(inc, 0777);
	free(inc);
	char *cfg = config_in(dir, "k.cu", "build: {flags: [\"-DPAIR=(1<<3)\", \"-DSEMI=a;b\", \"-DQUOTE='q'\", \"-O3\"], "
					    "include: [\"inc dir\"]}"),
	     *out;
	fake_worker_reset(dir, "noshell");
	int rc = run_autotune((char *[]){"--no-cache", cfg, NULL}, &out);
	CU_ASSERT_EQUAL(rc, 0);
	free(out);
	fake_worker_forget();
	char *mk = xasprintf("%s/Makefile", dir);
	put_file(mk, "include n.mk\nshow:\n\t@for w in $(NOSHELL_NVCC_FLAGS) $(NOSHELL_INCLUDE_FLAGS); do echo \"[$$w]\"; done\n");
	char *argv[] = {"make", "-s", "-C", dir, "show", NULL};
	int st = proc_capture(argv, 60, &out);
	CU_ASSERT_EQUAL(st, 0);
	static const char *const want[] = {"[-DPAIR=(1<<3)]\n", "[-DSEMI=a;b]\n", "[-DQUOTE='q']\n", "[-O3]\n", "inc dir]\n"};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		if (!strstr(out, want[i]))
			fprintf(stderr, "\n  no %s in: %s\n", want[i], out);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, want[i]));
	}
	free(out);
	char *hpath = xasprintf("%s/n_tuned.h", dir), *h = read_text(hpath);
	free(hpath);
	CU_ASSERT_PTR_NOT_NULL(h && strstr(h, "\\\"-DPAIR=(1<<3)\\\" \\\"-DSEMI=a;b\\\" \\\"-DQUOTE='q'\\\" -O3"));
	free(h);
	free(mk);
	free(cfg);
	free(dir);
}

/* An imported spec's CompilerOptions with shell syntax: refused at its place in the JSON, no
 * config written; one the double quotes hold is imported as written. */
static void test_an_imported_compiler_option_is_refused_at_its_place(void)
{
	char *dir = fresh_dir("import"), *x = pwned(dir);
	put_in(dir, "k.cu", kernel);
	static const char *const opts[] = {"\"-DV=$(touch PWNED)\"", "\"-DV=`touch PWNED`\"", "\"-DSEMI=a;b\""};
	for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
		char *spec = xasprintf("%s/s.json", dir), *yaml = xasprintf("%s/s.yaml", dir);
		char *text = xasprintf(
			"{\"General\": {\"FormatVersion\": 1},\n"
			" \"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"bx\", \"Type\": \"int\", \"Values\": \"[32, 64]\"}],\n"
			"  \"Conditions\": []},\n"
			" \"KernelSpecification\": {\"Language\": \"CUDA\", \"KernelName\": \"k\", \"KernelFile\": \"k.cu\",\n"
			"  \"CompilerOptions\": [\"-O3\",\n    %s],\n"
			"  \"GlobalSize\": {\"X\": \"64\"}, \"LocalSize\": {\"X\": \"bx\"},\n"
			"  \"Arguments\": [{\"Name\": \"a\", \"Type\": \"float\", \"Size\": 64, \"MemoryType\": \"Vector\", "
			"\"AccessType\": \"WriteOnly\", \"FillType\": \"Constant\", \"FillValue\": 0}]}}\n",
			opts[i]);
		put_file(spec, text);
		unlink(yaml);
		char *out;
		int rc = run_autotune((char *[]){"import", spec, "-o", yaml, NULL}, &out);
		if (i < 2) {
			CU_ASSERT_EQUAL(rc, 2);
			CU_ASSERT_PTR_NOT_NULL(strstr(out, "s.json:6:5: KernelSpecification.CompilerOptions[1]"));
			CU_ASSERT_NOT_EQUAL(access(yaml, F_OK), 0);
		} else {
			char *y = read_text(yaml);
			CU_ASSERT_EQUAL(rc, 0);
			CU_ASSERT_PTR_NOT_NULL(y && strstr(y, "-DSEMI=a;b"));
			free(y);
		}
		if ((i < 2) != (rc == 2))
			fprintf(stderr, "\n  %s: exit %d: %s\n", opts[i], rc, out);
		CU_ASSERT_NOT_EQUAL(access(x, F_OK), 0);
		free(out);
		free(text);
		free(yaml);
		free(spec);
	}
	free(x);
	free(dir);
}

/* With the real nvcc, whose steps would run a command substitution: the refusals stand, and
 * what the quotes hold compiles exactly as written (the kernel's static_asserts check it). A
 * clean path that a symbolic link leads to a directory a shell would read compiles by its clean
 * name: resolving it (for the cache's key) must not hand nvcc what the loader refused. */
static void test_the_real_nvcc_runs_nothing(void)
{
	shell_syntax_is_refused_at_its_place();
	char *linked = fresh_dir("linked"), *x = pwned(linked), *target = xasprintf("%s/$(touch PWNED)", linked),
	     *link = xasprintf("%s/clean", linked), *out;
	mkdir(target, 0777);
	put_in(target, "k.cu", kernel);
	CU_ASSERT_EQUAL(symlink(target, link), 0);
	char *lcfg = config_in(linked, "clean/k.cu", "build: {include: [clean]}");
	CU_ASSERT_EQUAL(run_autotune((char *[]){"--dry-run", "--arch", "sm_90", "--no-cache", lcfg, NULL}, &out), 0);
	CU_ASSERT_NOT_EQUAL(access(x, F_OK), 0);
	free(out);
	free(lcfg);
	free(link);
	free(target);
	free(x);
	free(linked);
	char *dir = fresh_dir("exact");
	put_in(dir, "k.cu", kernel);
	char *cfg = config_in(dir, "k.cu", "build: {flags: [\"-DPAIR=(1<<3)\", \"-DSEMI=a;b\", \"-DQUOTE='q'\", \"-DSPACED=a b\"]}");
	int rc = run_autotune((char *[]){"--dry-run", "--arch", "sm_90", "--no-cache", cfg, NULL}, &out);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NULL(strstr(out, "compile-error"));
	if (rc)
		fprintf(stderr, "\n  %s\n", out);
	free(out);
	free(cfg);
	free(dir);
}

int add_noshell_suite(void)
{
	CU_pSuite s = CU_add_suite("noshell", NULL, NULL), n = add_integration_suite("noshell/nvcc", NULL, NULL);
	if (!s || !n)
		return -1;
	CU_add_test(s, "shell syntax is refused at its place", test_shell_syntax_is_refused_at_its_place);
	CU_add_test(s, "a define's value is a number", test_a_defines_value_is_a_number);
	CU_add_test(s, "the directories nvcc writes into are checked", test_the_directories_nvcc_writes_into_are_checked);
	CU_add_test(s, "the fragment gives make the flags as written", test_the_fragment_gives_make_the_flags_as_written);
	CU_add_test(s, "an imported compiler option is refused at its place", test_an_imported_compiler_option_is_refused_at_its_place);
	CU_add_test(n, "the real nvcc runs nothing", test_the_real_nvcc_runs_nothing);
	return 0;
}
