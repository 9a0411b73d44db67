/* test_compile.c: compiling with the real nvcc: every shipped config builds,
 * a compile error costs its configurations only, no shell sees a flag, `#pragma unroll PARAM` is
 * rewritten per value, and kernels that launch kernels (build.rdc) are linked, their registers
 * and occupancy known. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compile.h"
#include "config.h"
#include "proc.h"
#include "space.h"
#include "tests.h"

/* A compile error in some configurations marks them and the run goes on. */
static void test_compile_error_marks_configurations_and_continues(void)
{
	char csv[128];
	const char *path = defines_config("cerr", "#if V == 2\n#error V=2 is not supported\n#endif\n"
						  "extern \"C\" __global__ void k(float *a) { a[threadIdx.x] = V; }\n",
					  "{V: [1, 2, 3], bx: [32, 64]}", "[V]", csv, sizeof csv);
	char *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){"--dry-run", "--arch", "sm_90", (char *)path, NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "6 valid configurations"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "3 binaries built"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "(1 failed;"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "V=2 is not supported"));
	free(out);
	FILE *f = fopen(csv, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	char line[4096];
	int errors = 0, not_run = 0;
	while (fgets(line, sizeof line, f)) {
		errors += strstr(line, ",compile-error,") != NULL;
		not_run += strstr(line, ",not-run,") != NULL;
	}
	fclose(f);
	CU_ASSERT_EQUAL(errors, 2);
	CU_ASSERT_EQUAL(not_run, 4);
	/* the CSV keeps nvcc's words, not its command line (which would fill the message's room) */
	char *text = read_text(csv);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "V=2 is not supported"));
	CU_ASSERT_PTR_NULL(strstr(text, "\n$ "));
	free(text);
	/* nothing compiles: the dry run fails as a run in which nothing passed, its CSV still written */
	write_temp(0, "cerr.cu", "#error no variant builds\nextern \"C\" __global__ void k(float *a) { a[threadIdx.x] = V; }\n");
	unlink(csv);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"--dry-run", "--arch", "sm_90", (char *)path, NULL}, &out), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "(3 failed;"));
	free(out);
	CU_ASSERT_EQUAL(access(csv, F_OK), 0);
	unlink(csv);
	unlink(path);
}

/* No shell anywhere: a flag that nvcc's own /bin/sh steps would run is refused before nvcc
 * starts (test_noshell.c has every field); ';' alone is one literal argument that nvcc refuses. */
static void test_shell_metacharacters_stay_literal(void)
{
	const char *marker = "scratch/injected";
	unlink(marker);
	const char *kernel = write_temp(2, "sk.cu", "extern \"C\" __global__ void k(float *a) { a[threadIdx.x] = 1; }\n");
	char text[1024], csv[128];
	snprintf(csv, sizeof csv, "%s/inject.csv", test_dir);
	snprintf(text, sizeof text,
		 "name: inject\nkernel: {source: %s, entry: k}\narguments: [{name: a, type: float, count: 64, output: true}]\n"
		 "space: {x: [32]}\nlaunch: {block: [x], grid: [1]}\n"
		 "build: {flags: [\"$(touch %s)\", \"`touch %s`\", \"; touch %s\"]}\n"
		 "output: {csv: %s}\n", kernel, marker, marker, marker, csv);
	const char *path = write_temp(3, "inject.yaml", text);
	char *out;
	int rc = run_autotune((char *[]){"--dry-run", "--arch", "sm_90", (char *)path, NULL}, &out);
	CU_ASSERT_EQUAL(rc, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "build flag '$(touch"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "build flag '`touch"));
	CU_ASSERT_NOT_EQUAL(access(marker, F_OK), 0);
	free(out);
	snprintf(text, sizeof text,
		 "name: inject\nkernel: {source: %s, entry: k}\narguments: [{name: a, type: float, count: 64, output: true}]\n"
		 "space: {x: [32]}\nlaunch: {block: [x], grid: [1]}\nbuild: {flags: [\"; touch %s\"]}\noutput: {csv: %s}\n",
		 kernel, marker, csv);
	path = write_temp(3, "inject.yaml", text);
	rc = run_autotune((char *[]){"--dry-run", "--arch", "sm_90", (char *)path, NULL}, &out);
	CU_ASSERT_EQUAL(rc, 1); /* nvcc rejects the flag: a compile-error, not a shell's run; none compiled */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "; touch"));
	CU_ASSERT_NOT_EQUAL(access(marker, F_OK), 0);
	free(out);
	unlink(path);
	unlink(kernel);
	unlink(csv);
}

/* Every shipped config and the feature kernels of tests/kernels compile with the real nvcc, with
 * no compile error: the pragma rewriting, the templated entry point, the __constant__ table,
 * entry points named by a parameter, kernels that launch kernels (build.rdc). */
static void test_every_config_compiles(void)
{
	const char *configs[] = {"configs/summatrix.yaml", "configs/summatrix1d.yaml", "configs/divergence.yaml",
				 "configs/regpressure.yaml", "configs/transpose.yaml", "configs/reduce.yaml",
				 "configs/reduce_template.yaml", "configs/nested_reduce.yaml", "configs/streams.yaml",
				 "tests/kernels/unroll.yaml", "tests/kernels/lookup.yaml", "tests/kernels/scaled.yaml",
				 "tests/kernels/features.yaml", "tests/kernels/vectors.yaml", "tests/kernels/expect.yaml",
				 "tests/kernels/refkernel.yaml", "tests/gpu/nested_faults.yaml"};
	for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++) {
		char *out;
		int rc = run_autotune((char *[]){"--dry-run", "--arch", "sm_90", (char *)configs[i], NULL}, &out);
		if (rc != 0 || !strstr(out, " failed; ") || strstr(out, "(0 failed;") == NULL)
			fprintf(stderr, "\n  %s: exit %d\n%s\n", configs[i], rc, out);
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, "(0 failed;"));
		CU_ASSERT_PTR_NULL(strstr(out, "compile-error"));
		free(out);
	}
}

/* A plan's launches: each entry's own resources from the one compile, and its occupancy on its own
 * launch in the dry run's table; an entry the module lacks fails the binary, naming it. */
static void test_each_plan_launch_gets_its_resources(void)
{
	const char *kernel = write_temp(5, "pl.cu",
					"extern \"C\" __global__ void k1(float *a) { a[threadIdx.x] = 1; }\n"
					"extern \"C\" __global__ void k2(float *a, int n) {\n"
					"  __shared__ float s[256]; s[threadIdx.x] = a[threadIdx.x] * n; __syncthreads();\n"
					"  a[threadIdx.x] = s[255 - threadIdx.x]; }\n");
	char text[1024];
	snprintf(text, sizeof text,
		 "name: pl\nkernel: {source: %s}\narguments:\n  - {name: a, type: float, count: 256, output: true}\n"
		 "  - {name: n, type: int32, value: 3}\nspace: {bx: [128, 256]}\nlaunch: {block: [bx], grid: [1]}\n"
		 "plan: {streams: 2, launches: [{entry: k1, args: [a]}, {entry: k2, block: [256]}]}\n",
		 kernel);
	const char *path = write_temp(6, "pl.yaml", text);
	config cfg;
	space sp;
	build b;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(config_load(path, &cfg, &d), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	build_plan(&cfg, &sp, &b);
	char *nvcc = find_nvcc();
	CU_ASSERT_EQUAL_FATAL(build_run(&cfg, &sp, &b, &(build_opts){.nvcc = nvcc, .arch = "sm_90", .workdir = test_dir,
								.jobs = 1, .timeout_s = 120, .d = &d}), 0);
	CU_ASSERT_EQUAL_FATAL(b.nbins, 1);
	const binary *bin = &b.bins[0];
	CU_ASSERT_FATAL(!bin->failed && bin->nplan == 2);
	CU_ASSERT_STRING_EQUAL(bin->res.symbol, "k1");
	CU_ASSERT_STRING_EQUAL(bin->plan_res[0].symbol, "k1");
	CU_ASSERT_STRING_EQUAL(bin->plan_res[1].symbol, "k2");
	CU_ASSERT_EQUAL(bin->plan_res[1].static_smem, 1024);
	CU_ASSERT_EQUAL(bin->plan_res[0].static_smem, 0);
	build_free(&b);
	char *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){"--dry-run", "--arch", "sm_90", (char *)path, NULL}, &out), 0);
	/* k2's line under each configuration: its own block of 256 and its shared memory */
	CU_ASSERT_EQUAL(occurrences(out, "  + k2 "), 2);
	const char *k2 = strstr(out, "  + k2 ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(k2);
	char line[128];
	snprintf(line, sizeof line, "%.*s", (int)strcspn(k2, "\n"), k2);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, " 1024 ")); /* its static shared memory */
	free(out);
	/* an entry the module does not have */
	space_free(&sp);
	config_free(&cfg);
	char *k9 = strstr(text, "entry: k2");
	k9[8] = '9';
	path = write_temp(6, "pl.yaml", text);
	CU_ASSERT_EQUAL_FATAL(config_load(path, &cfg, &d), 0);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	build_plan(&cfg, &sp, &b);
	CU_ASSERT_EQUAL_FATAL(build_run(&cfg, &sp, &b, &(build_opts){.nvcc = nvcc, .arch = "sm_90", .workdir = test_dir,
								.jobs = 1, .timeout_s = 120, .d = &d}), 0);
	CU_ASSERT(b.bins[0].failed);
	/* the entries in ptxas's order */
	const char *has = strstr(b.bins[0].log, "plan launch entry 'k9' not found in the compiled module; it has: ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(has);
	CU_ASSERT(strstr(has, "k1") && strstr(has, "k2"));
	build_free(&b);
	space_free(&sp);
	config_free(&cfg);
	free(nvcc);
	diags_free(&d);
}

/* configs/nested_reduce.yaml (build.rdc) in a dry run: every configuration's binary linked, with
 * its registers, and so its occupancy, known without a GPU. */
static void test_a_linked_dry_run_knows_registers_and_occupancy(void)
{
	char *out;
	int rc = run_autotune((char *[]){"--dry-run", "--arch", "sm_90", "configs/nested_reduce.yaml", NULL}, &out);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "(0 failed;"));
	free(out);
	FILE *f = fopen("results/nested_reduce.dry-run.csv", "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	char line[8192];
	int cols[3] = {-1, -1, -1}, rows = 0, known = 0;
	const char *names[3] = {"registers", "theoretical_occupancy", "active_blocks_per_sm"};
	while (fgets(line, sizeof line, f)) {
		/* the columns wanted come before any quoted field */
		char *field = line;
		for (int c = 0; field; c++) {
			char *comma = strchr(field, ',');
			if (comma)
				*comma = 0;
			for (int k = 0; k < 3; k++) {
				if (!rows && !strcmp(field, names[k]))
					cols[k] = c;
				else if (rows && c == cols[k] && atof(field) > 0)
					known++;
			}
			field = comma ? comma + 1 : NULL;
		}
		rows++;
	}
	fclose(f);
	CU_ASSERT(cols[0] >= 0 && cols[1] >= 0 && cols[2] >= 0);
	CU_ASSERT(rows > 1);
	CU_ASSERT_EQUAL(known, 3 * (rows - 1));
}

/* `#pragma unroll UNROLL`: one binary per value, each from a rewritten copy that still names the
 * original file in messages; 0 drops the pragma. */
static void test_pragma_unroll_parameter_is_rewritten(void)
{
	char *out;
	int rc = run_autotune((char *[]){"--dry-run", "--arch", "sm_90", "--cache-dir", "scratch/pragma",
				"tests/kernels/unroll.yaml", NULL}, &out);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "5 binaries built"));
	free(out);
	char *ls[] = {"sh", "-c", "grep -h 'pragma unroll [0-9]' scratch/pragma/cubins/src-*.cu | sort | tr '\\n' ' ';"
				  " grep -c '^#line 1 \".*/tests/kernels/unroll.cu\"' scratch/pragma/cubins/src-*.cu | grep -c ':1$'",
		      NULL};
	proc_capture(ls, 30, &out);
	/* values 1, 16, 2, 4 appear; 0 left no pragma; all five copies start with the #line */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "#pragma unroll 1 #pragma unroll 16 #pragma unroll 2 #pragma unroll 4 5"));
	free(out);
	char *rm[] = {"rm", "-rf", "scratch/pragma", NULL};
	proc_capture(rm, 30, &out);
	free(out);
}

/* NVCC as make takes it: a path, or a bare name found on PATH. */
static void test_nvcc_may_be_a_name_on_path(void)
{
	const char *saved = getenv("NVCC");
	char *keep = saved ? xstrdup(saved) : NULL;
	setenv("NVCC", "sh", 1);
	char *found = find_nvcc();
	CU_ASSERT_PTR_NOT_NULL(found && strchr(found, '/') ? found : NULL);
	CU_ASSERT(found && !strcmp(strrchr(found, '/'), "/sh"));
	free(found);
	setenv("NVCC", "no-such-program-here", 1);
	CU_ASSERT_PTR_NULL(find_nvcc());
	setenv("NVCC", "/nonexistent/nvcc", 1);
	CU_ASSERT_PTR_NULL(find_nvcc());
	if (keep)
		setenv("NVCC", keep, 1);
	else
		unsetenv("NVCC");
	free(keep);
}

#define FDIR "scratch/compilefail"

/* FDIR/f.yaml over `space` (defines WG_X and V) of FDIR/f.cu, kernel_text: results in FDIR; the
 * fake worker, should anything be measured. */
static void write_failing(const char *kernel_text, const char *space, const char *verify)
{
	mkdir(FDIR, 0777);
	put_file(FDIR "/f.cu", kernel_text);
	char text[1024];
	snprintf(text, sizeof text,
		 "name: f\nkernel: {source: f.cu, entry: k}\narguments: [{name: a, type: float, count: 1024, output: true}]\n"
		 "space: %s\nlaunch: {block: [WG_X], grid: [1]}\nbuild: {defines: [WG_X, V]}\n%s"
		 "measure: {finalists: 0, metrics: none}\noutput: {csv: " FDIR "/f.csv, header: " FDIR "/f_tuned.h}\n",
		 space, verify);
	put_file(FDIR "/f.yaml", text);
	fake_worker_reset(FDIR, "f");
}

/* The 12 binaries of a kernel whose shared array's extent WG_Y nothing defines. */
static const char *const undefined_kernel =
	"extern \"C\" __global__ void k(float *a)\n{\n\t__shared__ float s[WG_Y][WG_X];\n"
	"\ts[0][threadIdx.x] = a[threadIdx.x];\n\ta[threadIdx.x] = s[0][threadIdx.x] * V;\n}\n";

/* ./autotune -j 2 with extra options (at most 4) on FDIR/f.yaml, nvcc counted through a wrapper of the
 * suite's: the exit status, its output (caller frees) and in *runs the compiles it started. */
static int run_counted(char *const extra[], char **out, int *runs)
{
	/* written once: the compiler's identity, and so every cache key, is of the file's date too */
	if (access(FDIR "/nvcc", X_OK)) {
		char *real = find_nvcc(), wrapper[512];
		snprintf(wrapper, sizeof wrapper, "#!/bin/sh\n[ \"$1\" = -dryrun ] || echo x >> " FDIR "/nvcc.log\nexec %s \"$@\"\n",
			 real);
		free(real);
		put_file(FDIR "/nvcc", wrapper);
		chmod(FDIR "/nvcc", 0755);
	}
	unlink(FDIR "/nvcc.log");
	char *keep = getenv("NVCC") ? strdup(getenv("NVCC")) : NULL;
	setenv("NVCC", FDIR "/nvcc", 1);
	char *args[12] = {"-j", "2", "--cache-dir", FDIR "/cache"};
	int n = 4;
	for (; extra && *extra && n < 8; extra++)
		args[n++] = *extra;
	args[n++] = FDIR "/f.yaml";
	args[n] = NULL;
	int rc = run_autotune(args, out);
	if (keep)
		setenv("NVCC", keep, 1);
	free(keep);
	char *log = read_text(FDIR "/nvcc.log");
	*runs = log ? (int)occurrences(log, "x\n") : 0;
	free(log);
	return rc;
}

/* The same error in every binary: said once, with its fix, after at most 2 x jobs compiles; the
 * rest not run, and the results say why. Run again it costs no nvcc and says the same, from the
 * cache; an edit of the kernel, --fresh or --no-cache compile again; --keep-going compiles all. */
static void test_a_repeated_error_is_said_once_and_costs_once(void)
{
	remove_dir(FDIR);
	write_failing(undefined_kernel, "{WG_X: [32, 64, 128], V: [1, 2, 3, 4]}", "");
	char *out;
	int runs;
	CU_ASSERT_EQUAL(run_counted(NULL, &out, &runs), 1);
	CU_ASSERT_EQUAL(runs, 4);
	CU_ASSERT_EQUAL(occurrences(out, "identifier \"WG_Y\" is undefined"), 1);
	CU_ASSERT_EQUAL(occurrences(out, "the kernel uses WG_Y, which neither " FDIR "/f.yaml nor the kernel defines"), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "compile-error for WG_X=32 V=1 and 3 more binaries alike"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "compiling stopped: the first 4 binaries all failed with this error"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "the other 8 binaries were not compiled, their 8 configurations not run"));
	CU_ASSERT_PTR_NULL(strstr(out, "earlier run"));
	CU_ASSERT_PTR_NULL(strstr(out, "from the cache:"));
	char *csv = read_text(FDIR "/f.csv");
	CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
	CU_ASSERT_EQUAL(occurrences(csv, ",compile-error,"), 4);
	/* the 8 never compiled are counted, not listed: the results say why (completeness.c) */
	CU_ASSERT_EQUAL(occurrences(csv, "not compiled: the first 4 binaries all failed with the same error"), 0);
	CU_ASSERT_EQUAL(occurrences(csv, ",compile-stopped,12\r\n"), 4);
	free(csv);
	/* the same command: nothing compiled, the same words, from the cache */
	char *again;
	CU_ASSERT_EQUAL(run_counted(NULL, &again, &runs), 1);
	CU_ASSERT_EQUAL(runs, 0);
	CU_ASSERT_EQUAL(occurrences(again, "identifier \"WG_Y\" is undefined"), 1);
	CU_ASSERT_EQUAL(occurrences(again, "the kernel uses WG_Y, which neither"), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(again, "compiling stopped: the first 4 binaries"));
	CU_ASSERT_PTR_NOT_NULL(strstr(again, "(from the cache: these compiles failed"));
	CU_ASSERT_PTR_NOT_NULL(strstr(again, "0 nvcc runs, 4 from the cache"));
	free(again);
	free(out);
	/* --keep-going: every binary, the cached four from the cache */
	CU_ASSERT_EQUAL(run_counted((char *[]){"--keep-going", NULL}, &out, &runs), 1);
	CU_ASSERT_EQUAL(runs, 8);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "compile-error for WG_X=32 V=1 and 11 more binaries alike"));
	CU_ASSERT_PTR_NULL(strstr(out, "compiling stopped"));
	free(out);
	/* --fresh and --no-cache compile again; so does an edit of the kernel */
	CU_ASSERT_EQUAL(run_counted((char *[]){"--fresh", NULL}, &out, &runs), 1);
	CU_ASSERT_EQUAL(runs, 4);
	free(out);
	CU_ASSERT_EQUAL(run_counted((char *[]){"--no-cache", NULL}, &out, &runs), 1);
	CU_ASSERT_EQUAL(runs, 4);
	free(out);
	put_file(FDIR "/f.cu", undefined_kernel);
	FILE *f = fopen(FDIR "/f.cu", "a");
	fputs("// edited\n", f);
	fclose(f);
	CU_ASSERT_EQUAL(run_counted(NULL, &out, &runs), 1);
	CU_ASSERT_EQUAL(runs, 4);
	free(out);
	/* a failure is valid while the files the compile read are: the header that fixes it is seen */
	char *with_header = xasprintf("#include \"wg.h\"\n%s", undefined_kernel);
	put_file(FDIR "/f.cu", with_header);
	free(with_header);
	put_file(FDIR "/wg.h", "/* WG_Y to come */\n");
	CU_ASSERT_EQUAL(run_counted(NULL, &out, &runs), 1);
	CU_ASSERT_EQUAL(runs, 4);
	free(out);
	CU_ASSERT_EQUAL(run_counted(NULL, &out, &runs), 1);
	CU_ASSERT_EQUAL(runs, 0);
	free(out);
	put_file(FDIR "/wg.h", "#define WG_Y 2\n");
	CU_ASSERT_EQUAL(run_counted(NULL, &out, &runs), 0);
	CU_ASSERT_EQUAL(runs, 12);
	CU_ASSERT_PTR_NULL(strstr(out, "compile-error"));
	free(out);
	fake_worker_forget();
}

/* A value that fails alone is no kernel that fails: the first binaries compiled while all fail
 * alike are spread over the space, not its first value's, and the build goes on to the end. */
static void test_a_value_that_fails_alone_does_not_stop_the_build(void)
{
	remove_dir(FDIR);
	write_failing("#if V == 1\n#error one is refused\n#endif\nextern \"C\" __global__ void k(float *a) { a[threadIdx.x] = V; }\n",
		      "{V: [1, 2, 3], WG_X: [32, 64, 128, 256, 512]}", "");
	char *out;
	int runs;
	CU_ASSERT_EQUAL(run_counted((char *[]){"--dry-run", "--arch", "sm_90", NULL}, &out, &runs), 0);
	CU_ASSERT_EQUAL(runs, 15);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "(5 failed;"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "every binary with V = 1 failed to compile"));
	CU_ASSERT_PTR_NULL(strstr(out, "compiling stopped"));
	free(out);
	fake_worker_forget();
}

/* A named reference that does not compile, on a first run: said so, with nvcc's words, never as
 * a failure of an earlier run; the other binaries build. */
static void test_a_first_run_never_speaks_of_an_earlier_one(void)
{
	remove_dir(FDIR);
	write_failing("#if V == 2\n#error two is refused\n#endif\nextern \"C\" __global__ void k(float *a) { a[threadIdx.x] = V; }\n",
		      "{WG_X: [32, 64], V: [1, 2, 3]}", "verify: {reference: {WG_X: 32, V: 2}}\n");
	char *out;
	int runs;
	CU_ASSERT_EQUAL(run_counted(NULL, &out, &runs), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "the verify reference (WG_X=32 V=2) did not compile: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "two is refused"));
	CU_ASSERT_PTR_NULL(strstr(out, "earlier run"));
	CU_ASSERT_PTR_NULL(strstr(out, "compiling stopped"));
	/* nor of an older file: the run says why it is incomplete, and so do its results */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "incomplete: 2 of 6 configurations measured: the verify reference failed"));
	CU_ASSERT_PTR_NULL(strstr(out, "older file"));
	char *csv = read_text(FDIR "/f.csv");
	CU_ASSERT_PTR_NOT_NULL(csv && strstr(csv, ",reference-failed"));
	free(csv);
	free(out);
	fake_worker_forget();
}

int add_compile_suite(void)
{
	CU_pSuite s = CU_add_suite("compile", NULL, NULL), n = add_integration_suite("compile/nvcc", NULL, NULL);
	if (!s || !n)
		return -1;
	CU_add_test(s, "NVCC may be a name on PATH", test_nvcc_may_be_a_name_on_path);
	CU_add_test(s, "compile error marks configurations and continues", test_compile_error_marks_configurations_and_continues);
	CU_add_test(s, "a repeated error is said once and costs once", test_a_repeated_error_is_said_once_and_costs_once);
	CU_add_test(n, "a repeated error is said once and costs once (nvcc)", test_a_repeated_error_is_said_once_and_costs_once);
	CU_add_test(s, "a first run never speaks of an earlier one", test_a_first_run_never_speaks_of_an_earlier_one);
	CU_add_test(s, "a value that fails alone does not stop the build", test_a_value_that_fails_alone_does_not_stop_the_build);
	CU_add_test(s, "shell metacharacters stay literal", test_shell_metacharacters_stay_literal);
	CU_add_test(n, "every config compiles", test_every_config_compiles);
	CU_add_test(s, "each plan launch gets its resources", test_each_plan_launch_gets_its_resources);
	CU_add_test(s, "#pragma unroll PARAM is rewritten", test_pragma_unroll_parameter_is_rewritten);
	CU_add_test(n, "a linked dry run knows registers and occupancy", test_a_linked_dry_run_knows_registers_and_occupancy);
	return 0;
}
