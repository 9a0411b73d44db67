/* test_cache.c: the cubin cache decides right: a second build runs no nvcc at all; editing the
 * kernel source, a header it includes, a flag, or the library a link read invalidates exactly
 * the affected entries (build.rdc's compile and link have entries of their own); and eviction
 * keeps the most recently used. nvcc is counted through a wrapper named by NVCC. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "compile.h"
#include "proc.h"
#include "tests.h"

#define CDIR "scratch/cache"

/* The config of two binaries (V 1 and 2) with these build flags; rdc: build.rdc. */
static void write_config(const char *flags, int rdc)
{
	char text[1024];
	snprintf(text, sizeof text,
		 "name: cached\nkernel: {source: k.cu, entry: k}\narguments: [{name: a, type: float, count: 64, output: true}]\n"
		 "space: {V: [1, 2], bx: [32, 64]}\nlaunch: {block: [bx], grid: [1]}\nbuild: {defines: [V], flags: [%s], rdc: %s}\n"
		 "output: {csv: " CDIR "/cached.csv}\n", flags, rdc ? "true" : "false");
	put_file(CDIR "/cached.yaml", text);
}

/* An executable at path that logs each call's arguments as a line of CDIR/nvcc.log and hands
 * over to the suite's nvcc (NVCC, as the runner sets it: tests/fake_nvcc.c in the unit tier). */
static void make_wrapper(const char *path)
{
	char *real = find_nvcc(), wrapper[512];
	/* autotune's question of where the toolkit is (nvcc_bindir's -dryrun) is no compile */
	snprintf(wrapper, sizeof wrapper,
		 "#!/bin/sh\n[ \"$1\" = -dryrun ] || echo \"$*\" >> " CDIR "/nvcc.log\nexec %s \"$@\"\n", real);
	free(real);
	put_file(path, wrapper);
	chmod(path, 0755);
}

/* Runs a dry run against the test cache; returns how many times nvcc ran (from the wrapper's
 * log) and checks the summary agrees. */
static int nvcc_runs(void)
{
	unlink(CDIR "/nvcc.log");
	char *argv[] = {"./autotune", "--dry-run", "--arch", "sm_90", "--cache-dir", CDIR "/cache", CDIR "/cached.yaml", NULL};
	char *out;
	setenv("NVCC", CDIR "/nvcc-wrapper", 1);
	int st = proc_capture(argv, 120, &out);
	unsetenv("NVCC");
	CU_ASSERT(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	FILE *f = fopen(CDIR "/nvcc.log", "r");
	int n = 0;
	char line[4096]; /* a line per call: its arguments, paths resolved */
	while (f && fgets(line, sizeof line, f))
		n++;
	if (f)
		fclose(f);
	char want[64];
	snprintf(want, sizeof want, "%d nvcc %s, %d from the cache", n, n == 1 ? "run" : "runs", 2 - n);
	if (!strstr(out, want))
		fprintf(stderr, "\n  summary does not say '%s': %s\n", want, out);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
	free(out);
	return n;
}

static void test_cache_hits_and_invalidation(void)
{
	mkdir(CDIR, 0777);
	char *rm[] = {"rm", "-rf", CDIR "/cache", NULL};
	char *out;
	proc_capture(rm, 30, &out);
	free(out);
	make_wrapper(CDIR "/nvcc-wrapper");
	put_file(CDIR "/b.h", "#define SCALE 2.0f\n");
	put_file(CDIR "/k.cu", "#if V == 2\n#include \"b.h\"\n#else\n#define SCALE 1.0f\n#endif\n"
			  "extern \"C\" __global__ void k(float *a) { a[threadIdx.x] = SCALE * V; }\n");
	write_config("", 0);

	CU_ASSERT_EQUAL(nvcc_runs(), 2); /* cold: both binaries */
	CU_ASSERT_EQUAL(nvcc_runs(), 0); /* warm: no nvcc at all */
	put_file(CDIR "/b.h", "#define SCALE 3.0f\n");
	CU_ASSERT_EQUAL(nvcc_runs(), 1); /* only V=2 includes b.h */
	CU_ASSERT_EQUAL(nvcc_runs(), 0);
	put_file(CDIR "/k.cu", "#if V == 2\n#include \"b.h\"\n#else\n#define SCALE 1.0f\n#endif\n"
			  "extern \"C\" __global__ void k(float *a) { a[threadIdx.x] = SCALE * V + 1; }\n");
	CU_ASSERT_EQUAL(nvcc_runs(), 2); /* the source: both */
	write_config("-lineinfo", 0);
	CU_ASSERT_EQUAL(nvcc_runs(), 2); /* a flag: both */
	write_config("", 0);
	CU_ASSERT_EQUAL(nvcc_runs(), 0); /* back to the flags of before: still cached */
}

/* A dry run of CDIR/cached.yaml with `nvcc` against the test cache: the summary's line of
 * binaries into summary, what the wrapper logged (caller frees; "" when nothing ran). */
static char *dry_run_with(const char *nvcc, char *summary, size_t len)
{
	unlink(CDIR "/nvcc.log");
	char *argv[] = {"./autotune", "--dry-run", "--arch", "sm_90", "--cache-dir", CDIR "/cache", CDIR "/cached.yaml", NULL};
	char *out;
	setenv("NVCC", nvcc, 1);
	int st = proc_capture(argv, 120, &out);
	unsetenv("NVCC");
	CU_ASSERT(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	const char *line = strstr(out, "binaries built");
	snprintf(summary, len, "%.*s", line ? (int)strcspn(line, "\n") : 0, line ? line : "");
	free(out);
	char *log = read_text(CDIR "/nvcc.log");
	return log ? log : strdup("");
}

/* build.rdc, with a toolkit of its own (bin/nvcc the logging wrapper, lib64/ a copy of the real
 * device runtime): each binary is a compile with -rdc=true into a relocatable cubin, then an
 * nvcc -dlink of that with the library found beside nvcc, named by its path; the entry is another
 * than the same compile's without rdc, a warm run starts neither step, and the library is among
 * the entry's dependencies. */
static void test_rdc_compiles_then_links(void)
{
	mkdir(CDIR, 0777);
	char *out, *real = find_nvcc(), *bin = nvcc_bindir(real);
	free(real);
	CU_ASSERT_PTR_NOT_NULL_FATAL(bin);
	/* a toolkit's bin/ is where nvcc.profile is: a link to the real one makes tk/bin one */
	char *setup[] = {"sh", "-c",
			 "rm -rf " CDIR "/cache " CDIR "/tk && mkdir -p " CDIR "/tk/bin " CDIR "/tk/lib64 && "
			 "ln -s \"$1/nvcc.profile\" " CDIR "/tk/bin/nvcc.profile && "
			 "for f in \"$1\"/../lib64/libcudadevrt.a \"$1\"/../lib/libcudadevrt.a \"$1\"/../targets/*/lib/libcudadevrt.a; do "
			 "[ -f \"$f\" ] && exec cp \"$f\" " CDIR "/tk/lib64/; done; echo no libcudadevrt.a in \"$1\"/..; exit 1",
			 "setup", bin, NULL};
	int st = proc_capture(setup, 30, &out);
	if (st != 0)
		fprintf(stderr, "\n  %s\n", out);
	free(out);
	free(bin);
	CU_ASSERT_FATAL(st == 0);
	make_wrapper(CDIR "/tk/bin/nvcc");
	put_file(CDIR "/k.cu", "extern \"C\" __global__ void k(float *a) { a[threadIdx.x] = V; }\n");
	char summary[256];
	write_config("", 0);
	char *log = dry_run_with(CDIR "/tk/bin/nvcc", summary, sizeof summary);
	CU_ASSERT_EQUAL(occurrences(log, "\n"), 2);
	CU_ASSERT_PTR_NULL(strstr(log, "-rdc=true"));
	CU_ASSERT_PTR_NULL(strstr(log, "-dlink"));
	free(log);

	write_config("", 1);
	log = dry_run_with(CDIR "/tk/bin/nvcc", summary, sizeof summary);
	/* not the entries of the compiles without rdc: both binaries built again, in two steps each */
	CU_ASSERT_PTR_NOT_NULL(strstr(summary, "(0 failed; 2 nvcc runs, 0 from the cache)"));
	CU_ASSERT_EQUAL(occurrences(log, "\n"), 4);
	CU_ASSERT_EQUAL(occurrences(log, "-cubin -arch=sm_90 -Xptxas -v -rdc=true "), 2);
	CU_ASSERT_EQUAL(occurrences(log, ".rdc.cubin\n"), 2);
	CU_ASSERT_EQUAL(occurrences(log, "-dlink -cubin -arch=sm_90 -Xnvlink -v "), 2);
	/* the library named by its real path */
	char lib[PATH_MAX], want[PATH_MAX + 32];
	CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(CDIR "/tk/lib64/libcudadevrt.a", lib));
	snprintf(want, sizeof want, ".rdc.cubin %s -o ", lib);
	CU_ASSERT_EQUAL(occurrences(log, want), 2);
	free(log);
	char *deps[] = {"sh", "-c", "grep -l \" $1\\$\" " CDIR "/cache/cubins/*.deps | wc -l", "deps", lib, NULL};
	proc_capture(deps, 30, &out);
	CU_ASSERT_EQUAL(atoi(out), 2);
	free(out);
	/* nothing of either step left behind */
	char *tmp[] = {"sh", "-c", "ls " CDIR "/cache/cubins | grep -c tmp", NULL};
	proc_capture(tmp, 30, &out);
	CU_ASSERT_EQUAL(atoi(out), 0);
	free(out);

	log = dry_run_with(CDIR "/tk/bin/nvcc", summary, sizeof summary);
	CU_ASSERT_PTR_NOT_NULL(strstr(summary, "(0 failed; 0 nvcc runs, 2 from the cache)"));
	CU_ASSERT_STRING_EQUAL(log, "");
	free(log);

	/* a wrapper script outside any toolkit (as /usr/local/bin/nvcc is on some machines): the
	 * library is still named by its path, the one of the toolkit the wrapper hands over to */
	make_wrapper(CDIR "/nvcc-wrapper");
	log = dry_run_with(CDIR "/nvcc-wrapper", summary, sizeof summary);
	CU_ASSERT_EQUAL(occurrences(log, "/libcudadevrt.a -o "), 2);
	CU_ASSERT_PTR_NULL(strstr(log, "-lcudadevrt"));
	CU_ASSERT_PTR_NULL(strstr(log, CDIR "/tk/"));
	free(log);
}

/* A toolkit of its own at CDIR/fake: bin/nvcc answers -dryrun as nvcc does; bin/ptxas and
 * bin/nvcc.profile beside. */
static void make_fake_toolkit(void)
{
	char *setup[] = {"sh", "-c", "rm -rf " CDIR "/fake && mkdir -p " CDIR "/fake/bin " CDIR "/fake/nvvm/bin", NULL}, *out;
	proc_capture(setup, 30, &out);
	free(out);
	/* its own directory, absolute as nvcc gives it */
	put_file(CDIR "/fake/bin/nvcc", "#!/bin/sh\necho \"#\\$ _HERE_=$(cd \"$(dirname \"$0\")\" && pwd -P)\" >&2\n");
	put_file(CDIR "/fake/bin/ptxas", "v1\n");
	put_file(CDIR "/fake/bin/nvcc.profile", "TOP = $(_HERE_)/..\n");
	put_file(CDIR "/fake/nvvm/bin/cicc", "v1\n");
	put_file(CDIR "/wrapped-nvcc", "#!/bin/sh\nexec " CDIR "/fake/bin/nvcc \"$@\"\n");
	chmod(CDIR "/fake/bin/nvcc", 0755);
	chmod(CDIR "/fake/bin/ptxas", 0755);
	chmod(CDIR "/wrapped-nvcc", 0755);
}

/* An nvcc reached through a symlink or a wrapper script is known by the toolkit behind it: the
 * directory is the toolkit's bin/, and an upgrade of its ptxas or nvcc changes the identity, as
 * it does for the toolkit's own nvcc. */
static void test_a_wrapped_nvcc_is_known_by_its_toolkit(void)
{
	mkdir(CDIR, 0777);
	make_fake_toolkit();
	symlink("fake/bin/nvcc", CDIR "/linked-nvcc"); /* beside it */
	const char *callers[] = {CDIR "/fake/bin/nvcc", CDIR "/linked-nvcc", CDIR "/wrapped-nvcc"};
	char want[PATH_MAX];
	CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(CDIR "/fake/bin", want));
	for (size_t i = 0; i < sizeof callers / sizeof *callers; i++) {
		char *bin = nvcc_bindir(callers[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(bin);
		CU_ASSERT_STRING_EQUAL(bin, want);
		char *before = cache_compiler_identity(callers[i], bin, 0);
		struct timespec later[2] = {{0, UTIME_NOW}, {2000000000 + (time_t)i, 0}};
		CU_ASSERT_EQUAL(utimensat(AT_FDCWD, CDIR "/fake/bin/ptxas", later, 0), 0);
		char *ptxas_upgraded = cache_compiler_identity(callers[i], bin, 0);
		CU_ASSERT_STRING_NOT_EQUAL(before, ptxas_upgraded);
		CU_ASSERT_EQUAL(utimensat(AT_FDCWD, CDIR "/fake/bin/nvcc", later, 0), 0);
		char *nvcc_upgraded = cache_compiler_identity(callers[i], bin, 0);
		CU_ASSERT_STRING_NOT_EQUAL(ptxas_upgraded, nvcc_upgraded);
		free(before);
		free(ptxas_upgraded);
		free(nvcc_upgraded);
		free(bin);
	}
	/* an nvcc that says nothing of itself, away from any ptxas: not known */
	put_file(CDIR "/mute-nvcc", "#!/bin/sh\nexit 1\n");
	chmod(CDIR "/mute-nvcc", 0755);
	CU_ASSERT_PTR_NULL(nvcc_bindir(CDIR "/mute-nvcc"));
}

/* An entry of CDIR/b.h (and of `linked`, when not NULL, as a link's library), last used then. */
static void make_linked_entry(cubin_cache *c, const char *key, const char *content, time_t used, const char *linked)
{
	char *base = cache_tmp_base(c, key);
	char *cubin = malloc(strlen(base) + 8), *d = malloc(strlen(base) + 8);
	snprintf(cubin, strlen(base) + 8, "%s.cubin", base);
	snprintf(d, strlen(base) + 8, "%s.d", base);
	put_file(cubin, content);
	put_file(d, "x.o: " CDIR "/b.h\n");
	char *stored = cache_store(c, key, base, "ptxas info    : Used 8 registers\n", linked);
	CU_ASSERT_PTR_NOT_NULL(stored);
	char deps[512];
	snprintf(deps, sizeof deps, "%s/%s.deps", cache_dir(c), key);
	struct timespec t[2] = {{used, 0}, {used, 0}};
	utimensat(AT_FDCWD, deps, t, 0);
	free(stored);
	free(base);
	free(cubin);
	free(d);
}

static void make_entry(cubin_cache *c, const char *key, const char *content, time_t used)
{
	make_linked_entry(c, key, content, used, NULL);
}

/* An empty cache at dir, its entries built from CDIR/b.h. */
static cubin_cache *fresh_cache(const char *dir)
{
	diags dg = {0};
	char *rm[] = {"rm", "-rf", (char *)dir, NULL};
	char *out;
	proc_capture(rm, 30, &out);
	free(out);
	put_file(CDIR "/b.h", "#define SCALE 2.0f\n");
	cubin_cache *c = cache_open(dir, &dg);
	diags_free(&dg);
	return c;
}

static void test_eviction_keeps_the_recently_used(void)
{
	cubin_cache *c = fresh_cache(CDIR "/evict");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	char big[4001];
	memset(big, 'x', 4000);
	big[4000] = 0;
	make_entry(c, "00000000000000aa", big, 1000); /* oldest */
	make_entry(c, "00000000000000bb", big, 2000);
	make_entry(c, "00000000000000cc", big, 3000); /* newest */
	cache_evict(c, 9000); /* room for two */
	char *cubin, *log;
	CU_ASSERT_EQUAL(cache_lookup(c, "00000000000000aa", &cubin, &log), 0);
	CU_ASSERT_EQUAL(cache_lookup(c, "00000000000000cc", &cubin, &log), 1);
	free(cubin);
	free(log);
	/* a hit refreshed cc; bb is now the oldest and goes next */
	cache_evict(c, 5000);
	CU_ASSERT_EQUAL(cache_lookup(c, "00000000000000bb", &cubin, &log), 0);
	CU_ASSERT_EQUAL(cache_lookup(c, "00000000000000cc", &cubin, &log), 1);
	free(cubin);
	free(log);
	/* a changed dependency makes an entry invalid */
	put_file(CDIR "/b.h", "#define SCALE 9.0f\n");
	CU_ASSERT_EQUAL(cache_lookup(c, "00000000000000cc", &cubin, &log), 0);
	cache_close(c);
}

/* An entry whose cubin or log was edited after it was stored is a miss (served as is, a planted
 * cubin would run); one left alone is a hit. */
static void test_an_edited_entry_is_a_miss(void)
{
	cubin_cache *c = fresh_cache(CDIR "/edited");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	make_entry(c, "00000000000000aa", "a cubin", time(NULL));
	make_entry(c, "00000000000000bb", "another cubin", time(NULL));
	make_entry(c, "00000000000000cc", "a third cubin", time(NULL));
	put_file(CDIR "/edited/cubins/00000000000000aa.cubin", "a planted cubin");
	put_file(CDIR "/edited/cubins/00000000000000bb.log", "ptxas info    : Used 1 registers\n");
	char *cubin, *log;
	CU_ASSERT_EQUAL(cache_lookup(c, "00000000000000aa", &cubin, &log), 0);
	CU_ASSERT_EQUAL(cache_lookup(c, "00000000000000bb", &cubin, &log), 0);
	CU_ASSERT_EQUAL_FATAL(cache_lookup(c, "00000000000000cc", &cubin, &log), 1);
	free(cubin);
	free(log);
	cache_close(c);
}

/* The library a link read (build.rdc's device runtime) is a dependency like the compile's: other
 * contents are a miss, the same contents again a hit, whatever its modification time. */
static void test_a_linked_library_is_a_dependency(void)
{
	cubin_cache *c = fresh_cache(CDIR "/linked");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	put_file(CDIR "/libdevrt.a", "the device runtime");
	make_linked_entry(c, "00000000000000dd", "a linked cubin", time(NULL), CDIR "/libdevrt.a");
	char *cubin, *log;
	CU_ASSERT_EQUAL_FATAL(cache_lookup(c, "00000000000000dd", &cubin, &log), 1);
	free(cubin);
	free(log);
	put_file(CDIR "/libdevrt.a", "another device runtime");
	CU_ASSERT_EQUAL(cache_lookup(c, "00000000000000dd", &cubin, &log), 0);
	put_file(CDIR "/libdevrt.a", "the device runtime");
	CU_ASSERT_EQUAL_FATAL(cache_lookup(c, "00000000000000dd", &cubin, &log), 1);
	free(cubin);
	free(log);
	cache_close(c);
}

/* A deps file cut short at a line boundary (a full disk, a crash before the data reached the
 * disk) lists fewer files than the compile read: it is a miss, not a hit that would miss an
 * edited header. */
static void test_a_torn_deps_record_is_a_miss(void)
{
	cubin_cache *c = fresh_cache(CDIR "/torn");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	put_file(CDIR "/b.h", "#define SCALE 2.0f\n");
	make_entry(c, "00000000000000aa", "a cubin", time(NULL));
	make_entry(c, "00000000000000bb", "a cubin", time(NULL));
	char *cubin, *log;
	CU_ASSERT_EQUAL_FATAL(cache_lookup(c, "00000000000000aa", &cubin, &log), 1);
	free(cubin);
	free(log);
	/* aa keeps its first line (b.h) only; bb loses its trailer */
	char *deps = read_text(CDIR "/torn/cubins/00000000000000aa.deps");
	CU_ASSERT_PTR_NOT_NULL_FATAL(deps);
	CU_ASSERT_PTR_NOT_NULL(strstr(deps, "\nend 3 "));
	deps[strcspn(deps, "\n") + 1] = 0;
	put_file(CDIR "/torn/cubins/00000000000000aa.deps", deps);
	free(deps);
	deps = read_text(CDIR "/torn/cubins/00000000000000bb.deps");
	CU_ASSERT_PTR_NOT_NULL_FATAL(deps);
	char *end = strstr(deps, "end ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(end);
	*end = 0;
	put_file(CDIR "/torn/cubins/00000000000000bb.deps", deps);
	free(deps);
	CU_ASSERT_EQUAL(cache_lookup(c, "00000000000000aa", &cubin, &log), 0);
	CU_ASSERT_EQUAL(cache_lookup(c, "00000000000000bb", &cubin, &log), 0);
	cache_close(c);
}

/* Entries dated in the future (clock skew) do not outlive a fresh one: eviction takes them
 * first, so a run keeps the entry it just made. */
static void test_entries_dated_in_the_future_go_first(void)
{
	cubin_cache *c = fresh_cache(CDIR "/skew");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	char big[4001];
	memset(big, 'x', 4000);
	big[4000] = 0;
	make_entry(c, "00000000000000aa", big, time(NULL) + 86400);
	make_entry(c, "00000000000000bb", big, time(NULL) + 3600);
	make_entry(c, "00000000000000cc", big, time(NULL)); /* this run's */
	cache_evict(c, 5000); /* room for one */
	char *cubin, *log;
	CU_ASSERT_EQUAL(cache_lookup(c, "00000000000000aa", &cubin, &log), 0);
	CU_ASSERT_EQUAL(cache_lookup(c, "00000000000000bb", &cubin, &log), 0);
	CU_ASSERT_EQUAL_FATAL(cache_lookup(c, "00000000000000cc", &cubin, &log), 1);
	free(cubin);
	free(log);
	cache_close(c);
}

/* A compile's temporary files left by a process that is gone (killed before it could clean up)
 * are reclaimed by the next eviction; a live process's are not. */
static void test_a_dead_runs_temporary_files_are_reclaimed(void)
{
	diags dg = {0};
	cubin_cache *c = cache_open(CDIR "/reclaim", &dg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	/* a pid that is gone: a child that exited and was reaped */
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	char dead_tmp[256], live_tmp[256];
	snprintf(dead_tmp, sizeof dead_tmp, CDIR "/reclaim/cubins/tmp.%ld.00000000000000aa.cubin", (long)dead);
	snprintf(live_tmp, sizeof live_tmp, CDIR "/reclaim/cubins/tmp.%ld.00000000000000bb.cubin", (long)getpid());
	put_file(dead_tmp, "half a cubin");
	put_file(live_tmp, "a cubin being written");
	cache_evict(c, 1ull << 30);
	CU_ASSERT_NOT_EQUAL(access(dead_tmp, F_OK), 0);
	CU_ASSERT_EQUAL(access(live_tmp, F_OK), 0);
	unlink(live_tmp);
	cache_close(c);
}

/* The default cache: XDG_CACHE_HOME, else HOME, else the account's home, never a directory
 * other users share (with both unset it was /tmp/.cache, whose cubins anyone could plant). */
static void test_the_default_cache_is_the_users_own(void)
{
	char *xdg = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
	char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	setenv("XDG_CACHE_HOME", "/x", 1);
	char *dir = cache_default_dir();
	CU_ASSERT_STRING_EQUAL(dir, "/x/autotune");
	free(dir);
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", "/h", 1);
	dir = cache_default_dir();
	CU_ASSERT_STRING_EQUAL(dir, "/h/.cache/autotune");
	free(dir);
	unsetenv("HOME");
	const struct passwd *pw = getpwuid(getuid());
	char want[4096];
	snprintf(want, sizeof want, "%s/.cache/autotune", pw ? pw->pw_dir : "");
	dir = cache_default_dir();
	if (pw)
		CU_ASSERT_STRING_EQUAL(dir, want);
	CU_ASSERT(!dir || strncmp(dir, "/tmp/", 5));
	free(dir);
	if (xdg)
		setenv("XDG_CACHE_HOME", xdg, 1);
	if (home)
		setenv("HOME", home, 1);
	free(xdg);
	free(home);
}

/* Links planted at the cache's temporary names (a log, a deps list, the cubin nvcc writes) are
 * replaced or removed, never written through: the file they point to stays as it was. */
static void test_no_temporary_file_is_written_through_a_link(void)
{
	mkdir(CDIR, 0777);
	cubin_cache *c = fresh_cache(CDIR "/links");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	const char *precious = CDIR "/precious.txt";
	put_file(precious, "precious\n");
	char *base = cache_tmp_base(c, "00000000000000ee"), p[512], target[512];
	CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(precious, target));
	static const char *const ends[] = {".log", ".deps", ".cubin"};
	for (size_t i = 0; i < 3; i++) {
		snprintf(p, sizeof p, "%s%s", base, ends[i]);
		CU_ASSERT_EQUAL(symlink(target, p), 0);
	}
	cache_clear_tmp(base); /* as a compile does before nvcc runs */
	struct stat st;
	snprintf(p, sizeof p, "%s.cubin", base);
	CU_ASSERT(lstat(p, &st) != 0);
	for (size_t i = 0; i < 2; i++) {
		snprintf(p, sizeof p, "%s%s", base, ends[i]);
		CU_ASSERT_EQUAL(symlink(target, p), 0);
	}
	snprintf(p, sizeof p, "%s.cubin", base);
	put_file(p, "cubin");
	snprintf(p, sizeof p, "%s.d", base);
	put_file(p, "x.o: " CDIR "/b.h\n");
	char *stored = cache_store(c, "00000000000000ee", base, "ptxas info    : Used 8 registers\n", NULL);
	CU_ASSERT_PTR_NOT_NULL(stored);
	char *text = read_text(precious);
	CU_ASSERT_STRING_EQUAL(text ? text : "", "precious\n");
	free(text);
	free(stored);
	free(base);
	cache_close(c);
}

#define WDIR "scratch/cwd"

/* ./autotune's dry run of config from directory `dir` (resolved paths of autotune itself; the
 * cache and config as given), nvcc counted through the wrapper WDIR/nvcc-wrapper or a link to
 * it (`nvcc`): how many times it ran, checked against the summary. */
static int runs_from(const char *dir, const char *nvcc, const char *cache, const char *config)
{
	char autotune[PATH_MAX], log[PATH_MAX + 16], *out;
	CU_ASSERT_PTR_NOT_NULL_FATAL(realpath("autotune", autotune));
	CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(WDIR, log));
	strcat(log, "/nvcc.log");
	unlink(log);
	char *argv[] = {"sh", "-c", "cd \"$1\" && shift && exec \"$@\"", "sh", (char *)dir, autotune, "--dry-run",
			"--arch", "sm_90", "--cache-dir", (char *)cache, (char *)config, NULL};
	setenv("NVCC", nvcc, 1);
	int st = proc_capture(argv, 120, &out);
	unsetenv("NVCC");
	CU_ASSERT(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	int n = count_in(log, "-cubin");
	n = n < 0 ? 0 : n;
	char want[64];
	snprintf(want, sizeof want, "%d nvcc %s, %d from the cache", n, n == 1 ? "run" : "runs", 4 - n);
	if (!strstr(out, want))
		fprintf(stderr, "\n  from %s: the summary does not say '%s': %s\n", dir, want, out);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
	free(out);
	return n;
}

/* One config run from the checkout's root, from a directory below (as make runs it), and with
 * every path absolute from a build directory and nvcc by another name (as CMake runs it), and
 * through a linked directory: the cache is keyed by the files, not by how their paths were
 * spelled, so only the first run starts nvcc. The source includes a header from build.include
 * and one beside it, and a parameter of `#pragma unroll` has it rewritten into the cache. */
static void test_the_cache_is_shared_from_any_directory(void)
{
	char *rm[] = {"rm", "-rf", WDIR, NULL}, *out;
	proc_capture(rm, 30, &out);
	free(out);
	mkdir(WDIR, 0777);
	mkdir(WDIR "/inc", 0777);
	mkdir(WDIR "/sub", 0777);
	mkdir(WDIR "/build", 0777);
	char abs[PATH_MAX], text[2 * PATH_MAX], wrapper[3 * PATH_MAX];
	CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(WDIR, abs));
	char *real = find_nvcc();
	snprintf(wrapper, sizeof wrapper, "#!/bin/sh\n[ \"$1\" = -dryrun ] || echo \"$*\" >> %s/nvcc.log\nexec %s \"$@\"\n", abs,
		 real);
	free(real);
	put_file(WDIR "/nvcc-wrapper", wrapper);
	chmod(WDIR "/nvcc-wrapper", 0755);
	CU_ASSERT_EQUAL(symlink("nvcc-wrapper", WDIR "/nvcc"), 0);
	CU_ASSERT_EQUAL(symlink("cwd", "scratch/cwd-link"), 0);
	put_file(WDIR "/inc/scale.h", "#define SCALE 2.0f\n");
	put_file(WDIR "/near.h", "#define NEAR 1\n");
	put_file(WDIR "/k.cu", "#include <scale.h>\n#include \"near.h\"\nextern \"C\" __global__ void k(float *a) {\n"
			       "#pragma unroll U\n\tfor (int i = 0; i < 4; i++) a[i * 32 + threadIdx.x] = SCALE * V * NEAR;\n}\n");
	snprintf(text, sizeof text,
		 "name: cwd\nkernel: {source: k.cu, entry: k}\narguments: [{name: a, type: float, count: 128, output: true}]\n"
		 "space: {V: [1, 2], U: [1, 2]}\nlaunch: {block: [32], grid: [1]}\nbuild: {defines: [V], include: [inc]}\n"
		 "output: {csv: %s/cwd.csv}\n", abs);
	put_file(WDIR "/cwd.yaml", text);

	char cache[PATH_MAX + 8], config[PATH_MAX + 16], nvcc[PATH_MAX + 8];
	snprintf(cache, sizeof cache, "%s/cache", abs);
	snprintf(config, sizeof config, "%s/cwd.yaml", abs);
	snprintf(nvcc, sizeof nvcc, "%s/nvcc", abs);
	CU_ASSERT_EQUAL(runs_from(".", WDIR "/nvcc-wrapper", WDIR "/cache", WDIR "/cwd.yaml"), 4);
	CU_ASSERT_EQUAL(runs_from(WDIR "/sub", "../nvcc-wrapper", "../cache", "../cwd.yaml"), 0);
	CU_ASSERT_EQUAL(runs_from(WDIR "/build", nvcc, cache, config), 0);
	CU_ASSERT_EQUAL(runs_from("scratch", "cwd/nvcc-wrapper", "cwd-link/cache", "cwd-link/sub/../cwd.yaml"), 0);
	/* and what is cached is still checked: the header edited is compiled again, from anywhere */
	put_file(WDIR "/inc/scale.h", "#define SCALE 3.0f\n");
	CU_ASSERT_EQUAL(runs_from(WDIR "/sub", "../nvcc-wrapper", "../cache", "../cwd.yaml"), 4);
}

int add_cache_suite(void)
{
	CU_pSuite s = CU_add_suite("cache", NULL, NULL), n = add_integration_suite("cache/nvcc", NULL, NULL);
	if (!s || !n)
		return -1;
	CU_add_test(s, "hits, and edits invalidate exactly the affected entries", test_cache_hits_and_invalidation);
	CU_add_test(s, "the cache is shared from any directory", test_the_cache_is_shared_from_any_directory);
	CU_add_test(n, "build.rdc compiles, then links the device runtime", test_rdc_compiles_then_links);
	CU_add_test(s, "eviction keeps the recently used", test_eviction_keeps_the_recently_used);
	CU_add_test(s, "a dead run's temporary files are reclaimed", test_a_dead_runs_temporary_files_are_reclaimed);
	CU_add_test(s, "an edited entry is a miss", test_an_edited_entry_is_a_miss);
	CU_add_test(s, "a torn deps record is a miss", test_a_torn_deps_record_is_a_miss);
	CU_add_test(s, "entries dated in the future go first", test_entries_dated_in_the_future_go_first);
	CU_add_test(s, "a linked library is a dependency", test_a_linked_library_is_a_dependency);
	CU_add_test(s, "a wrapped nvcc is known by its toolkit", test_a_wrapped_nvcc_is_known_by_its_toolkit);
	CU_add_test(s, "the default cache is the user's own", test_the_default_cache_is_the_users_own);
	CU_add_test(s, "no temporary file is written through a link", test_no_temporary_file_is_written_through_a_link);
	return 0;
}
