/* test_selector.c: the header of several instances (selector.c) and the run-time library
 * (runtime/), on results tuned here on the fake worker (FAKE_SMS: the best block size grows with
 * n, and bx is a define, so the winners are two builds). The header's NAME_select(), compiled into
 * a program, and autotune_pick() pick alike for tuned and untuned sizes, from the CSV and from the
 * run's T4 file (--t4); results of another spec are refused as stale, and JSON that is not
 * autotune's T4 (another tool's, cut short, hostile) with a message. A hostile CSV or file (bad
 * instance values, /dev/zero, a pipe, cut short, no spec_hash) is refused without hanging or
 * aborting the program that loads it. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../runtime/autotune_select.h"
#include "proc.h"
#include "selector.h"
#include "table.h"
#include "tests.h"

static char dir[128], csv[192], header[192], t4[192];

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
	snprintf(t4, sizeof t4, "%s/sizes.t4.json", dir);
	snprintf(text, sizeof text,
		 "name: sizes\nkernel: {source: k.cu, entry: k}\nconstants: {n: 4096}\ninstances: {n: [1024, 4096, 16384]}\n"
		 "arguments:\n  - {name: a, type: float, count: n, output: true}\n  - {name: n, type: int32, value: n}\n"
		 "space: {bx: [32, 64, 128, 256]}\nbuild: {defines: [bx]}\nlaunch: {block: [bx], grid: [\"ceil_div(n, bx)\"]}\n"
		 "measure: {finalists: 0, metrics: none}\noutput: {csv: %s, header: %s}\n",
		 csv, header);
	put_file(cfg, text);
	setenv("AUTOTUNE_WORKER", "build/fake_worker", 1);
	setenv("FAKE_SMS", "4", 1);
	done = run_autotune_on(cfg, (char *[]){"-q", "--t4", NULL}, NULL) == 0;
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

/* Every column of the CSV's, as the pick from the CSV has it and as the one from the T4 file. */
static void same_fields(const autotune_results *a, long pa, const autotune_results *b, long pb, const table *t)
{
	for (size_t c = 0; c < t->ncols; c++)
		if (strcmp(autotune_field(a, pa, t->names[c]), autotune_field(b, pb, t->names[c]))) {
			fprintf(stderr, "\n  %s: '%s' from the CSV, '%s' from the T4 file", t->names[c],
				autotune_field(a, pa, t->names[c]), autotune_field(b, pb, t->names[c]));
			CU_FAIL("a field of the pick differs");
		}
}

static void test_the_t4_file_picks_as_the_csv_does(void)
{
	CU_ASSERT_FATAL(tuned());
	int inst[NSIZES], bx[NSIZES], variant[NSIZES];
	CU_ASSERT_EQUAL_FATAL(header_picks(inst, bx, variant), 0);
	table t;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(table_load(csv, &t, &d), 0);
	char err[512] = "";
	const char *spec = table_field(&t, 0, "spec_hash");
	autotune_results *c = autotune_results_load(csv, spec, err, sizeof err);
	autotune_results *j = autotune_results_load(t4, spec, err, sizeof err);
	if (!j)
		fprintf(stderr, "\n  %s", err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_EQUAL(autotune_constants(j), autotune_constants(c));
	CU_ASSERT_STRING_EQUAL(autotune_constant_name(j, 0), "n");
	CU_ASSERT_EQUAL(autotune_params(j), autotune_params(c));
	CU_ASSERT_STRING_EQUAL(autotune_param_name(j, 0), "bx");
	/* the results' own GPU, any GPU, and one they were not measured on (all of them then) */
	const char *devices[] = {table_field(&t, 0, "gpu"), NULL, "NVIDIA H100 80GB HBM3"};
	CU_ASSERT_STRING_EQUAL(devices[0], "Fake GPU");
	for (size_t g = 0; g < sizeof devices / sizeof *devices; g++)
		for (int i = 0; i < NSIZES; i++) {
			long pc = autotune_pick(c, &sizes[i], devices[g]), pj = autotune_pick(j, &sizes[i], devices[g]);
			CU_ASSERT(pj >= 0);
			CU_ASSERT_EQUAL(autotune_instance(j, pj), inst[i]);
			CU_ASSERT_EQUAL(autotune_instance(j, pj), autotune_instance(c, pc));
			CU_ASSERT_EQUAL(autotune_param(j, pj, 0), bx[i]);
			CU_ASSERT_EQUAL(autotune_time_ms(j, pj), autotune_time_ms(c, pc));
			same_fields(c, pc, j, pj, &t);
		}
	CU_ASSERT_EQUAL(autotune_pick(j, (double[]){0}, NULL), -1);
	autotune_results_free(c);
	autotune_results_free(j);
	/* the spec check without a spec: loads */
	j = autotune_results_load(t4, NULL, err, sizeof err);
	CU_ASSERT_PTR_NOT_NULL(j);
	autotune_results_free(j);
	table_free(&t);
	diags_free(&d);
}

/* Loads text as a results file: NULL expected, with every one of the needles in the message. */
static void refused(const char *name, const char *text, size_t len, const char *need1, const char *need2)
{
	char path[256], err[1024] = "";
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fwrite(text, 1, len, f);
	fclose(f);
	autotune_results *r = autotune_results_load(path, NULL, err, sizeof err);
	CU_ASSERT_PTR_NULL(r);
	autotune_results_free(r);
	if (!strstr(err, path) || !strstr(err, need1) || (need2 && !strstr(err, need2))) {
		fprintf(stderr, "\n  %s: '%s'", name, err);
		CU_FAIL("not the message expected");
	}
	unlink(path);
}

static void test_a_stale_foreign_or_broken_t4_file_is_refused(void)
{
	CU_ASSERT_FATAL(tuned());
	char err[512] = "";
	autotune_results *r = autotune_results_load(t4, "0123456789abcdef", err, sizeof err);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "stale results: tuned for spec_hash"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "built for 0123456789abcdef"));
	/* another tool's T4 (Kernel Tuner's has no "autotune" object), a Kernel Tuner cache file */
	const char *kt = "{\"schema_version\": \"1.0.0\", \"results\": [{\"configuration\": {\"bx\": 32}, \"times\": "
			 "{\"runtimes\": [1.5]}, \"invalidity\": \"correct\", \"correctness\": 1, \"measurements\": "
			 "[{\"name\": \"time\", \"value\": 1.5, \"unit\": \"ms\"}], \"objectives\": [\"time\"]}]}\n";
	refused("kt.t4.json", kt, strlen(kt), "no \"autotune\" object", "no spec_hash, flags or instance information");
	const char *cache = "{\"device_name\": \"NVIDIA H100\", \"tune_params_keys\": [\"bx\"], \"cache\": "
			    "{\"32\": {\"bx\": 32, \"time\": 1.5}}}\n";
	refused("kt.cache.json", cache, strlen(cache), "a Kernel Tuner cache file", "no spec or instance information");
	refused("other.json", "  {\"a\": 1}", 10, "no \"results\" list", NULL);
	/* autotune's own T4 cut short anywhere: an error at a line and column, never a crash */
	char *text = read_text(t4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	size_t len = strlen(text);
	CU_ASSERT(len > 2000);
	for (size_t k = 1; k < 40; k++)
		refused("cut.t4.json", text, len * k / 40, "JSON syntax error", "cut short");
	free(text);
	/* hostile: nesting past any T4 file's depth, YAML's aliases, a NUL in a string, a list for an object */
	char deep[20000];
	memcpy(deep, "{\"x\": ", 6);
	memset(deep + 6, '[', sizeof deep - 6);
	refused("deep.json", deep, sizeof deep, "nested more than 16 deep", NULL);
	const char *alias = "{\"results\": &a [], \"x\": *a}";
	refused("alias.json", alias, strlen(alias), "anchor, alias or tag", NULL);
	const char *nul = "{\"results\": [{\"configuration\": {\"bx\": \"3\\u00002\"}}]}";
	refused("nul.json", nul, strlen(nul), "a NUL character", NULL);
	const char *list = "{\"results\": [{\"autotune\": [1, 2]}]}";
	refused("list.json", list, strlen(list), "is not an object", NULL);
	const char *twice = "{\"results\": [{\"autotune\": {\"flags\": \"winner\", \"flags\": \"\"}}]}";
	refused("twice.json", twice, strlen(twice), "'flags' twice in one result", NULL);
}

/* This process's address space now, in bytes (0: unknown). */
static unsigned long long address_space(void)
{
	char *statm = read_text("/proc/self/statm");
	unsigned long long pages = statm ? strtoull(statm, NULL, 10) : 0;
	free(statm);
	return pages * (unsigned long long)sysconf(_SC_PAGESIZE);
}

/* autotune_results_load(path, spec) in a child given 60 s and 2 GiB of address space (room: that
 * much more than it has, when not 0): 1 when it loaded, 0 when it refused (its message in err); -1
 * when it hung, aborted or crashed, as a host program would. */
static int load_in_child_room(const char *path, const char *spec, char *err, size_t errlen, unsigned long long room)
{
	int fd[2];
	*err = 0;
	if (pipe(fd))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(fd[0]);
		alarm(60);
		/* a reader that grows without bound fails fast (valgrind needs its own address space) */
		rlim_t as = room ? (rlim_t)(address_space() + room) : (rlim_t)2 << 30;
		struct rlimit lim = {as, as};
		if (!getenv("AUTOTUNE_TEST_VALGRIND"))
			setrlimit(RLIMIT_AS, &lim);
		char e[1024] = "", out[1100];
		autotune_results *r = autotune_results_load(path, spec, e, sizeof e);
		int n = snprintf(out, sizeof out, "%c%s", r ? '1' : '0', e);
		autotune_results_free(r);
		_exit(write(fd[1], out, (size_t)n) == n ? 0 : 1);
	}
	close(fd[1]);
	char buf[1100];
	size_t len = 0;
	ssize_t got;
	while (pid > 0 && len < sizeof buf - 1 && (got = read(fd[0], buf + len, sizeof buf - 1 - len)) > 0)
		len += (size_t)got;
	close(fd[0]);
	buf[len] = 0;
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) || !len)
		return -1;
	snprintf(err, errlen, "%.1000s", buf + 1);
	return buf[0] == '1';
}

static int load_in_child(const char *path, const char *spec, char *err, size_t errlen)
{
	return load_in_child_room(path, spec, err, errlen, 0);
}

/* A results CSV of two instances (n 1024 and 4096) whose second has n = `n`, spec_hash `spec`. */
static const char *hostile_csv(const char *name, const char *n, const char *spec)
{
	static char path[256];
	char text[1024];
	snprintf(path, sizeof path, "%s/hostile-sel", test_dir);
	mkdir(path, 0777);
	snprintf(path, sizeof path, "%s/hostile-sel/%s", test_dir, name);
	snprintf(text, sizeof text,
		 "bx,blockDim.x,gpu,time_ms_median,flags,spec_hash,instance,n\n32,32,Fake GPU,1.5,winner,abc,1,1024\n"
		 "64,64,Fake GPU,1.25,winner,%s,2,%s\n",
		 spec, n);
	put_file(path, text);
	return path;
}

/* path refused (not loaded, not hung or aborted) with both needles in the message. */
static void refused_in_child(const char *path, const char *spec, const char *need1, const char *need2)
{
	char err[1024];
	int rc = load_in_child(path, spec, err, sizeof err);
	if (rc != 0 || !strstr(err, need1) || (need2 && !strstr(err, need2))) {
		fprintf(stderr, "\n  %s: %s, '%s'", path, rc < 0 ? "hung or aborted" : rc ? "loaded" : "refused", err);
		CU_FAIL("not refused with the message expected");
	}
}

static void test_a_hostile_results_file_is_refused_never_hangs(void)
{
	char err[1024], where[320];
	/* instance values that would make autotune_ln loop, or one instance win everything */
	const char *bad[] = {"0", "-4096", "1e999", "inf", "-inf", "nan", "NaN", "0x0", "4096x"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		const char *path = hostile_csv("bad.csv", bad[i], "abc");
		snprintf(where, sizeof where, "%s:3: n of instance 2 is '%s'", path, bad[i]);
		refused_in_child(path, NULL, where, "not a positive finite number");
	}
	CU_ASSERT_EQUAL(load_in_child(hostile_csv("good.csv", "4096", "abc"), "abc", err, sizeof err), 1);
	/* autotune_ln never loops: NaN for what has no logarithm */
	pid_t pid = fork();
	if (pid == 0) {
		alarm(60);
		_exit(!(isnan(autotune_ln(0)) && isnan(autotune_ln(-1)) && isnan(autotune_ln(NAN)) &&
			isinf(autotune_ln(INFINITY)) && fabs(autotune_ln(4096) - 8.317766166719343) < 1e-12));
	}
	int st;
	CU_ASSERT_FATAL(pid > 0 && waitpid(pid, &st, 0) == pid);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* what is not a regular file: never read, never blocked on */
	refused_in_child("/dev/zero", NULL, "/dev/zero: a device, not a regular file", NULL);
	snprintf(where, sizeof where, "%s/hostile-sel", test_dir);
	refused_in_child(where, NULL, "a directory, not a regular file", NULL);
	snprintf(where, sizeof where, "%s/hostile-sel/fifo.csv", test_dir);
	CU_ASSERT_EQUAL_FATAL(mkfifo(where, 0600), 0);
	refused_in_child(where, NULL, "a pipe, not a regular file", NULL);
	/* cut short: no line break at the end, an unclosed quote, a row short of fields */
	const char *head = "bx,blockDim.x,gpu,time_ms_median,flags,spec_hash\n";
	char text[4096];
	snprintf(where, sizeof where, "%s/hostile-sel/cut.csv", test_dir);
	snprintf(text, sizeof text, "%s32,32,Fake GPU,1.5,winner,abc", head);
	put_file(where, text);
	refused_in_child(where, NULL, ":2: the last row has no line break at its end: a file cut short", NULL);
	snprintf(text, sizeof text, "%s32,32,\"Fake GPU,1.5,winner,abc\n", head);
	put_file(where, text);
	refused_in_child(where, NULL, "a quoted field without its closing quote", NULL);
	snprintf(text, sizeof text, "%s32,32,Fake GPU,1.5,winner,abc\n64,64,Fake\n", head);
	put_file(where, text);
	refused_in_child(where, NULL, ":3: 3 fields, the header has 6", NULL);
	snprintf(text, sizeof text, "%s32,32,Fake GPU,1.5,winner,abc\n", head);
	put_file(where, text);
	CU_ASSERT_EQUAL(load_in_child(where, "abc", err, sizeof err), 1);
	/* a NUL byte, a row past the limit */
	FILE *f = fopen(where, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "%s32,32,Fake", head);
	fputc(0, f);
	fprintf(f, " GPU,1.5,winner,abc\n");
	fclose(f);
	refused_in_child(where, NULL, ":2: a NUL byte", NULL);
	f = fopen(where, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "%s32,32,", head);
	for (int i = 0; i < (1 << 21); i++)
		fputc('x', f);
	fprintf(f, ",1.5,winner,abc\n");
	fclose(f);
	refused_in_child(where, NULL, ":2: a row longer than 1048576 bytes", NULL);
	/* out of memory (a host with little left): an error returned, never abort() */
	if (!getenv("AUTOTUNE_TEST_VALGRIND")) {
		f = fopen(where, "wb");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		fputs("bx,blockDim.x,gpu,time_ms_median,flags,spec_hash,instance,n\n", f);
		for (int i = 1; i <= 300000; i++)
			fprintf(f, "32,32,Fake GPU,1.5,winner,abc,%d,%d\n", i, i);
		fclose(f);
		int rc = load_in_child_room(where, NULL, err, sizeof err, 24ull << 20);
		if (rc != 0 || !strstr(err, where))
			fprintf(stderr, "\n  out of memory: %s, '%s'", rc < 0 ? "aborted" : rc ? "loaded" : "refused", err);
		CU_ASSERT(rc == 0 && strstr(err, where) && (strstr(err, "out of memory") || strstr(err, "allocate memory")));
	}
	/* UTF-16 (a BOM, then NULs): said as such, not read as a CSV */
	f = fopen(where, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fwrite("\xff\xfe{\0\"\0r\0", 1, 8, f);
	fclose(f);
	refused_in_child(where, NULL, "UTF-16 or UTF-32 text", "results files are UTF-8");
	/* no spec_hash recorded: refused when the program names its spec, loaded when it does not */
	const char *nospec = hostile_csv("nospec.csv", "4096", "");
	refused_in_child(nospec, "abc", "a result without its spec_hash", "(abc)");
	CU_ASSERT_EQUAL(load_in_child(nospec, NULL, err, sizeof err), 1);
	const char *json = "{\"results\": [{\"configuration\": {\"bx\": 32}, \"measurements\": [], \"autotune\": "
			   "{\"flags\": \"winner\", \"spec_hash\": \"\"}}]}\n";
	snprintf(where, sizeof where, "%s/hostile-sel/nospec.t4.json", test_dir);
	put_file(where, json);
	refused_in_child(where, "abc", "a result without its spec_hash", NULL);
}

/* text with every `from` replaced by `to`, and without the lines that contain `drop` (NULL: none);
 * caller frees. */
static char *edited(const char *text, const char *from, const char *to, const char *drop)
{
	char *out = malloc(strlen(text) * 2 + 1), *o = out;
	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
		char one[4096];
		snprintf(one, sizeof one, "%.*s", (int)len, line);
		line += len;
		if (drop && strstr(one, drop))
			continue;
		for (char *p = one, *hit; *p; p = hit + strlen(from)) {
			if (!(hit = strstr(p, from))) {
				o += sprintf(o, "%s", p);
				break;
			}
			o += sprintf(o, "%.*s%s", (int)(hit - p), p, to);
		}
	}
	*o = 0;
	return out;
}

/* `autotune header` of text (written as dir/NAME.csv): 0 and the header's and fragment's text. */
static int header_of(const char *name, const char *text, char **h, char **mk)
{
	char path[256], out[256], mkp[256], *said = NULL;
	snprintf(path, sizeof path, "%s/%s.csv", dir, name);
	snprintf(out, sizeof out, "%s/%s_tuned.h", dir, name);
	snprintf(mkp, sizeof mkp, "%s/%s.mk", dir, name);
	put_file(path, text);
	int rc = run_autotune((char *[]){"header", path, "-o", out, NULL}, &said);
	if (rc)
		fprintf(stderr, "\n  autotune header %s: %s", path, said ? said : "");
	free(said);
	*h = read_text(out);
	*mk = read_text(mkp);
	return rc;
}

/* A multi-instance run stopped early (SIGTERM in its last instance; or before an instance began)
 * says so in its header and fragment, as one of one problem does: NAME_COMPLETE 0 and why, which
 * CMake's REQUIRE_COMPLETE reads. They had no NAME_COMPLETE at all, so such a header passed. */
static void test_a_stopped_multi_instance_run_says_so(void)
{
	CU_ASSERT_FATAL(tuned());
	char *text = read_text(csv), *h, *mk;
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(strstr(text, ",complete,"));
	CU_ASSERT_EQUAL(count_in(header, "#define SIZES_COMPLETE 1"), 1);
	/* stopped by SIGTERM in the last instance: its rows say so */
	char *term = edited(text, ",complete,", ",terminated,", NULL);
	CU_ASSERT_EQUAL(header_of("term", term, &h, &mk), 0);
	CU_ASSERT_PTR_NOT_NULL(h ? strstr(h, "#define SIZES_COMPLETE 0\n#define SIZES_RUN \"terminated\"") : NULL);
	CU_ASSERT_PTR_NOT_NULL(h ? strstr(h, "configurations measured, stopped by SIGTERM: resume with the same command") : NULL);
	CU_ASSERT_PTR_NOT_NULL(mk ? strstr(mk, "\nSIZES_COMPLETE := 0\nSIZES_RUN := terminated\n") : NULL);
	CU_ASSERT_PTR_NOT_NULL(mk ? strstr(mk, "# INCOMPLETE: ") : NULL);
	free(h);
	free(mk);
	free(term);
	/* the last instance never began: no rows of it, however complete the others */
	char *cut = edited(text, "\r\n", "\n", ",3,16384\r");
	CU_ASSERT_EQUAL(header_of("cut", cut, &h, &mk), 0);
	CU_ASSERT_PTR_NOT_NULL(h ? strstr(h, "#define SIZES_COMPLETE 0\n#define SIZES_RUN \"partial\"") : NULL);
	CU_ASSERT_PTR_NOT_NULL(h ? strstr(h, "but 1 of 3 instances have no results (instance 3 the first)") : NULL);
	CU_ASSERT_PTR_NOT_NULL(mk ? strstr(mk, "SIZES_COMPLETE := 0") : NULL);
	free(h);
	free(mk);
	free(cut);
	free(text);
}

/* The same end to end: a run of three instances stopped by SIGTERM in its second writes a header
 * and fragment that say so (NAME_COMPLETE 0, RUN "terminated"), which REQUIRE_COMPLETE refuses. */
static void test_sigterm_in_an_instance_leaves_an_incomplete_header(void)
{
	char d2[160], path[256], text[2048], cfg[256], out[256], mk[256], journal[256];
	snprintf(d2, sizeof d2, "%s/stopi", test_dir);
	mkdir(d2, 0777);
	snprintf(path, sizeof path, "%s/k.cu", d2);
	put_file(path, "extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * bx + threadIdx.x; "
		       "if (i < n) a[i] = i; }\n");
	snprintf(cfg, sizeof cfg, "%s/stopi.yaml", d2);
	snprintf(out, sizeof out, "%s/stopi_tuned.h", d2);
	snprintf(mk, sizeof mk, "%s/stopi.mk", d2);
	snprintf(journal, sizeof journal, "%s/stopi.n-4096.journal", d2);
	snprintf(text, sizeof text,
		 "name: stopi\nkernel: {source: k.cu, entry: k}\nconstants: {n: 4096}\ninstances: {n: [1024, 4096, 16384]}\n"
		 "arguments:\n  - {name: a, type: float, count: n, output: true}\n  - {name: n, type: int32, value: n}\n"
		 "space: {bx: [32, 64, 96, 128, 160, 192, 224, 256]}\nbuild: {defines: [bx]}\n"
		 "launch: {block: [bx], grid: [\"ceil_div(n, bx)\"]}\nmeasure: {finalists: 0, metrics: none}\n"
		 "output: {csv: %s/stopi.csv, header: %s}\n",
		 d2, out);
	put_file(cfg, text);
	setenv("AUTOTUNE_WORKER", "build/fake_worker", 1);
	setenv("FAKE_SLEEP_MS", "100", 1);
	proc p;
	char *argv[] = {"./autotune", "-q", cfg, NULL};
	CU_ASSERT_EQUAL_FATAL(proc_start(&p, argv, PROC_STDOUT | PROC_MERGE_STDERR), 0);
	double t0 = now_seconds();
	while (count_in(journal, "done ") < 2 && now_seconds() - t0 < 60)
		nap();
	kill(p.pid, SIGTERM);
	int timed_out, st = proc_finish(&p, 60, &timed_out);
	unsetenv("FAKE_SLEEP_MS");
	fake_worker_forget();
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 143);
	CU_ASSERT_EQUAL(count_in(out, "#define STOPI_COMPLETE 0"), 1);
	CU_ASSERT_EQUAL(count_in(out, "#define STOPI_RUN \"terminated\""), 1);
	CU_ASSERT_EQUAL(count_in(out, "stopped by SIGTERM: resume with the same command"), 1);
	CU_ASSERT_EQUAL(count_in(mk, "STOPI_COMPLETE := 0"), 1);
	CU_ASSERT_EQUAL(count_in(mk, "STOPI_RUN := terminated"), 1);
	/* CMake's last step reads that fragment: with REQUIRE_COMPLETE it refuses the header and
	 * removes it (where cmake is installed: CI installs it) */
	char *cmake = proc_find_program("cmake");
	if (!cmake)
		return;
	free(cmake);
	char dmk[300], dflags[300], dheader[300], ddep[300];
	snprintf(dmk, sizeof dmk, "-DMK=%s", mk);
	snprintf(dflags, sizeof dflags, "-DFLAGS=%s/stopi.flags", d2);
	snprintf(dheader, sizeof dheader, "-DHEADER=%s", out);
	snprintf(ddep, sizeof ddep, "-DDEPFILE=%s/stopi.d", d2);
	char *finish[] = {"cmake", dmk, dflags, "-DNVCC=", "-DKERNEL=k.cu", "-DINCLUDES=", dheader, ddep, "-DREQUIRE_COMPLETE=ON",
			  "-P", "cmake/AutotuneFinish.cmake", NULL};
	char *said;
	int rc = proc_capture(finish, 60, &said);
	CU_ASSERT(rc != 0);
	CU_ASSERT_PTR_NOT_NULL(said && strstr(said, "REQUIRE_COMPLETE"));
	CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0);
	free(said);
}

/* A string parameter (a kernel chosen by name) tuned per instance: each variant's macro is the
 * name as a token, and the instances' table has it as a string for host code. */
static void test_a_string_parameter_per_instance(void)
{
	char d[160], path[256], text[1024], out_h[256];
	snprintf(d, sizeof d, "%s/strsel", test_dir);
	mkdir(d, 0777);
	snprintf(path, sizeof path, "%s/k.cu", d);
	put_file(path, "extern \"C\" __global__ void k_a(float *a, int n) { a[0] = n; }\n"
		       "extern \"C\" __global__ void k_b(float *a, int n) { a[0] = n; a[1] = n; }\n");
	snprintf(out_h, sizeof out_h, "%s/ss_tuned.h", d);
	snprintf(text, sizeof text,
		 "name: ss\nkernel: {source: k.cu, entry: \"${K}\"}\nconstants: {n: 4096}\ninstances: {n: [1024, 4096]}\n"
		 "arguments:\n  - {name: a, type: float, count: n, output: true}\n  - {name: n, type: int32, value: n}\n"
		 "space: {K: [k_b, k_a]}\nlaunch: {block: [64], grid: [1]}\nmeasure: {finalists: 0, metrics: none}\n"
		 "output: {csv: %s/ss.csv, header: %s}\n",
		 d, out_h);
	snprintf(path, sizeof path, "%s/ss.yaml", d);
	put_file(path, text);
	setenv("AUTOTUNE_WORKER", "build/fake_worker", 1);
	CU_ASSERT_EQUAL_FATAL(run_autotune_on(path, (char *[]){"-q", NULL}, NULL), 0);
	fake_worker_forget();
	CU_ASSERT_EQUAL(count_in(out_h, "#define SS_K k_b"), 1);
	char src[256], exe[256], inc[200], *out = NULL;
	snprintf(src, sizeof src, "%s/m.c", d);
	snprintf(exe, sizeof exe, "%s/m", d);
	snprintf(inc, sizeof inc, "-I%s", d);
	put_file(src, "#include <stdio.h>\n#include \"ss_tuned.h\"\n"
		      "int main(void) { printf(\"%s %s\\n\", ss_select(1024)->k, ss_select(4096)->k); return 0; }\n");
	CU_ASSERT_EQUAL_FATAL(proc_capture((char *[]){"cc", "-std=c99", "-Wall", "-Werror", inc, "-o", exe, src, NULL}, 60,
					   &out), 0);
	free(out);
	out = NULL;
	CU_ASSERT_EQUAL(proc_capture((char *[]){exe, NULL}, 30, &out), 0);
	CU_ASSERT_STRING_EQUAL(out ? out : "", "k_b k_b\n");
	free(out);
}

int add_selector_suite(void)
{
	CU_pSuite s = CU_add_suite("selector", NULL, fake_worker_forget);
	if (!s)
		return -1;
	CU_add_test(s, "the header selects the tuned or nearest instance", test_the_header_selects_the_tuned_or_nearest_instance);
	CU_add_test(s, "a string parameter per instance", test_a_string_parameter_per_instance);
	CU_add_test(s, "the library picks as the header does", test_the_library_picks_as_the_header_does);
	CU_add_test(s, "the T4 file picks as the CSV does", test_the_t4_file_picks_as_the_csv_does);
	CU_add_test(s, "a stale, foreign or broken T4 file is refused", test_a_stale_foreign_or_broken_t4_file_is_refused);
	CU_add_test(s, "a hostile results file is refused, never hangs", test_a_hostile_results_file_is_refused_never_hangs);
	CU_add_test(s, "a stopped multi-instance run says so", test_a_stopped_multi_instance_run_says_so);
	CU_add_test(s, "SIGTERM in an instance leaves an incomplete header",
		    test_sigterm_in_an_instance_leaves_an_incomplete_header);
	return 0;
}
