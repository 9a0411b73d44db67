/* test_diag.c: the helpers every stage uses (diag.c): messages collected in order with their
 * positions, formatting of any length, growth of arrays, whole writes, the write-then-rename that
 * never leaves half a file (a failed write keeps the old one), inputs opened whole, recorded
 * relative paths found from the file that records them, and directories made with their parents. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"
#include "proc.h"
#include "tests.h"

static void test_messages_are_kept_in_order_with_positions(void)
{
	diags d = {0};
	diags_at(&d, "c.yaml", 3, 14, "unknown key '%s'", "blok");
	diags_add(&d, "no GPU: %d found", 0);
	diags_at(&d, "k.cu", 1, 1, "%s", "100% sure"); /* a message is data, not a format */
	CU_ASSERT_EQUAL_FATAL(d.n, 3);
	CU_ASSERT_STRING_EQUAL(d.msgs[0], "c.yaml:3:14: unknown key 'blok'");
	CU_ASSERT_STRING_EQUAL(d.msgs[1], "no GPU: 0 found");
	CU_ASSERT_STRING_EQUAL(d.msgs[2], "k.cu:1:1: 100% sure");
	stderr_begin();
	diags_print(&d);
	char *out = stderr_end();
	CU_ASSERT_STRING_EQUAL(out, "c.yaml:3:14: unknown key 'blok'\nno GPU: 0 found\nk.cu:1:1: 100% sure\n");
	free(out);
	diags_free(&d);
	CU_ASSERT_EQUAL(d.n, 0);
	CU_ASSERT_PTR_NULL(d.msgs);
	/* freed, it collects again */
	diags_add(&d, "again");
	CU_ASSERT_EQUAL(d.n, 1);
	diags_free(&d);
}

/* Formatting has no fixed buffer: a message of 100 000 characters comes out whole. */
static void test_formatting_has_no_length_limit(void)
{
	char *big = malloc(100001);
	memset(big, 'x', 100000);
	big[100000] = 0;
	char *s = xasprintf("<%s|%d>", big, 42);
	CU_ASSERT_EQUAL(strlen(s), 100000 + 5);
	CU_ASSERT_EQUAL(strncmp(s + 100001, "|42>", 4), 0);
	free(s);
	diags d = {0};
	diags_at(&d, "f", 1, 2, "%s", big);
	CU_ASSERT_EQUAL(strlen(d.msgs[0]), strlen("f:1:2: ") + 100000);
	diags_free(&d);
	free(big);
	s = xasprintf("%s", "");
	CU_ASSERT_STRING_EQUAL(s, "");
	free(s);
	CU_ASSERT_STRING_EQUAL(plural(1, "binary", "binaries"), "binary");
	CU_ASSERT_STRING_EQUAL(plural(0, "binary", "binaries"), "binaries");
	CU_ASSERT_STRING_EQUAL(plural(2, "binary", "binaries"), "binaries");
}

/* "Did you mean": a slip or a cut-short name gets the nearest name, an exact name or a word
 * far from all of them gets none. */
static void test_the_nearest_name_to_a_slip(void)
{
	static const char *const names[] = {"fresh", "retry-failed", "replay", "show", "shared_mem", NULL};
	CU_ASSERT_STRING_EQUAL(nearest_name("frsh", names), "fresh");
	CU_ASSERT_STRING_EQUAL(nearest_name("shwo", names), "show");
	CU_ASSERT_STRING_EQUAL(nearest_name("replya", names), "replay");
	CU_ASSERT_STRING_EQUAL(nearest_name("shared", names), "shared_mem");
	CU_ASSERT_STRING_EQUAL(nearest_name("retry", names), "retry-failed");
	CU_ASSERT_PTR_NULL(nearest_name("fresh", names));
	CU_ASSERT_PTR_NULL(nearest_name("xyzzy", names));
	CU_ASSERT_PTR_NULL(nearest_name("", names));
	CU_ASSERT_PTR_NULL(nearest_name("fresh", (const char *const[]){NULL}));
}

/* grow() keeps what the array holds and at least doubles, from 8: n pushes cost log(n) copies. */
static void test_arrays_grow_by_doubling(void)
{
	int *v = NULL;
	size_t cap = 0, grows = 0;
	for (size_t n = 0; n < 1000; n++) {
		size_t before = cap;
		grow(&v, &cap, n + 1, sizeof *v);
		CU_ASSERT(cap >= n + 1);
		if (cap != before) {
			grows++;
			CU_ASSERT(before == 0 ? cap == 8 : cap == 2 * before);
		}
		v[n] = (int)n;
	}
	CU_ASSERT_EQUAL(grows, 8); /* 8, 16, ..., 1024 */
	int intact = 1;
	for (int i = 0; i < 1000; i++)
		intact &= v[i] == i;
	CU_ASSERT(intact);
	grow(&v, &cap, 10, sizeof *v); /* never shrinks */
	CU_ASSERT_EQUAL(cap, 1024);
	free(v);
}

/* Leftovers of write_atomically next to path: "<path>.tmp.<pid>" files. */
static size_t leftovers(const char *path)
{
	char pattern[300];
	snprintf(pattern, sizeof pattern, "%s.tmp.*", path);
	glob_t g;
	size_t n = glob(pattern, 0, NULL, &g) == 0 ? g.gl_pathc : 0;
	globfree(&g);
	return n;
}

static void test_write_atomically_replaces_the_file_whole(void)
{
	char path[128];
	snprintf(path, sizeof path, "%s/atomic.txt", test_dir);
	CU_ASSERT_EQUAL(write_atomically(path, "old contents\n", 13), 0);
	CU_ASSERT_EQUAL(write_atomically(path, "new\n", 4), 0);
	char *text = read_text(path);
	CU_ASSERT_STRING_EQUAL(text, "new\n");
	free(text);
	CU_ASSERT_EQUAL(leftovers(path), 0);
	/* a directory that does not exist: -1 with errno, nothing made */
	char missing[160];
	snprintf(missing, sizeof missing, "%s/no-such-dir/x.txt", test_dir);
	errno = 0;
	CU_ASSERT_EQUAL(write_atomically(missing, "x", 1), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	/* a directory in the way of the rename: the temporary file goes again */
	char dir[160];
	snprintf(dir, sizeof dir, "%s/a-dir", test_dir);
	CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0700), 0);
	char inside[200];
	snprintf(inside, sizeof inside, "%s/keep", dir);
	FILE *f = fopen(inside, "w");
	fclose(f);
	CU_ASSERT_EQUAL(write_atomically(dir, "x", 1), -1);
	CU_ASSERT_NOT_EQUAL(errno, 0);
	CU_ASSERT_EQUAL(leftovers(dir), 0);
	CU_ASSERT_EQUAL(access(inside, F_OK), 0);
	unlink(inside);
	rmdir(dir);
	unlink(path);
}

/* A write that fails part-way (here the file size limit, as a full disk would) leaves the old
 * file as it was and no temporary file: in a child, so the limit binds no one else. */
static void test_a_failed_write_leaves_the_old_file_intact(void)
{
	char path[128];
	snprintf(path, sizeof path, "%s/intact.txt", test_dir);
	const char *old = "the results of an earlier run\n";
	CU_ASSERT_EQUAL_FATAL(write_atomically(path, old, strlen(old)), 0);
	size_t big = 1 << 20;
	char *data = malloc(big);
	memset(data, 'n', big);
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		signal(SIGXFSZ, SIG_IGN); /* the write fails with EFBIG instead of killing the child */
		struct rlimit lim = {4096, 4096};
		setrlimit(RLIMIT_FSIZE, &lim);
		int rc = write_atomically(path, data, big);
		_exit(rc == -1 && errno == EFBIG ? 0 : 1);
	}
	int st;
	waitpid(pid, &st, 0);
	free(data);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	char *text = read_text(path);
	CU_ASSERT_STRING_EQUAL(text, old);
	free(text);
	CU_ASSERT_EQUAL(leftovers(path), 0);
	unlink(path);
}

/* write_all writes everything through a pipe; to a pipe no one reads, -1 (EPIPE). */
static void test_write_all_writes_everything_or_fails(void)
{
	int fds[2];
	CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
	CU_ASSERT_EQUAL(write_all(fds[1], "abc", 3), 0);
	char buf[8] = "";
	CU_ASSERT_EQUAL(read(fds[0], buf, sizeof buf), 3);
	CU_ASSERT_EQUAL(memcmp(buf, "abc", 3), 0);
	close(fds[0]);
	void (*was)(int) = signal(SIGPIPE, SIG_IGN);
	errno = 0;
	CU_ASSERT_EQUAL(write_all(fds[1], "abc", 3), -1);
	CU_ASSERT_EQUAL(errno, EPIPE);
	signal(SIGPIPE, was);
	close(fds[1]);
}

/* An input opened whole: a file is; a directory or a missing file is refused with the reason. */
static void test_inputs_are_files(void)
{
	diags d = {0};
	const char *path = write_temp(0, "input.txt", "x");
	FILE *f = open_input(path, &d);
	CU_ASSERT_PTR_NOT_NULL(f);
	if (f)
		fclose(f);
	CU_ASSERT_EQUAL(d.n, 0);
	CU_ASSERT_PTR_NULL(open_input(test_dir, &d));
	CU_ASSERT_PTR_NULL(open_input("/nonexistent/in.yaml", &d));
	CU_ASSERT_EQUAL_FATAL(d.n, 2);
	char want[128];
	snprintf(want, sizeof want, "%s: cannot open: Is a directory", test_dir);
	CU_ASSERT_STRING_EQUAL(d.msgs[0], want);
	CU_ASSERT_STRING_EQUAL(d.msgs[1], "/nonexistent/in.yaml: cannot open: No such file or directory");
	diags_free(&d);
	unlink(path);
}

/* A recorded relative path: as given when it names a file here (or is absolute), else found under
 * the recording file's directory or the nearest ancestor that has it (a directory does not
 * count), else as given. */
static void test_a_recorded_path_is_found_from_its_file(void)
{
	char base[128], deep[160], cfgs[160], cfg[192], from[192], decoy[192];
	snprintf(base, sizeof base, "%s/findfrom", test_dir);
	snprintf(deep, sizeof deep, "%s/a/b", base);
	snprintf(cfgs, sizeof cfgs, "%s/configs", base);
	snprintf(cfg, sizeof cfg, "%s/configs/x.yaml", base);
	snprintf(from, sizeof from, "%s/a/b/r.csv", base);
	snprintf(decoy, sizeof decoy, "%s/a/configs/x.yaml", base); /* a directory of that name */
	char *mk[] = {"mkdir", "-p", deep, cfgs, decoy, NULL}, *out = NULL;
	CU_ASSERT_EQUAL_FATAL(proc_capture(mk, 30, &out), 0);
	free(out);
	FILE *f = fopen(cfg, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fclose(f);
	char *p = find_from("configs/x.yaml", from);
	CU_ASSERT_STRING_EQUAL(p, cfg);
	free(p);
	p = find_from("x.yaml", cfg); /* beside the file itself */
	CU_ASSERT_STRING_EQUAL(p, cfg);
	free(p);
	p = find_from("Makefile", from); /* here first: the repository root the tests run in */
	CU_ASSERT_STRING_EQUAL(p, "Makefile");
	free(p);
	p = find_from("configs/none.yaml", from);
	CU_ASSERT_STRING_EQUAL(p, "configs/none.yaml");
	free(p);
	p = find_from("/abs/none.yaml", from);
	CU_ASSERT_STRING_EQUAL(p, "/abs/none.yaml");
	free(p);
}

/* mkdir -p: every missing directory made, mode 0777 less the umask; an existing one is fine; a
 * failure says why the first one could not be made, not the ENOENT of those below it. */
static void test_make_dirs_makes_parents_and_says_why_not(void)
{
	char top[128], deep[192], file[192], under_file[224];
	snprintf(top, sizeof top, "%s/mkdirs", test_dir);
	snprintf(deep, sizeof deep, "%s/a//b/c/", top);
	snprintf(file, sizeof file, "%s/plain", top);
	snprintf(under_file, sizeof under_file, "%s/plain/x/y", top);
	char *rm[] = {"rm", "-rf", top, NULL}, *out = NULL;
	proc_capture(rm, 30, &out);
	free(out);
	mode_t mask = umask(022);
	CU_ASSERT_EQUAL(make_dirs(deep), 0);
	umask(mask);
	struct stat st;
	CU_ASSERT_EQUAL_FATAL(stat(deep, &st), 0);
	CU_ASSERT(S_ISDIR(st.st_mode));
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0755);
	CU_ASSERT_EQUAL_FATAL(stat(top, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0755);
	CU_ASSERT_EQUAL(make_dirs(deep), 0); /* there already */
	FILE *f = fopen(file, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fclose(f);
	errno = 0;
	CU_ASSERT_EQUAL(make_dirs(file), -1);
	CU_ASSERT_EQUAL(errno, ENOTDIR);
	errno = 0;
	CU_ASSERT_EQUAL(make_dirs(under_file), -1);
	CU_ASSERT_EQUAL(errno, ENOTDIR);
	/* where a directory cannot be made for another reason than a missing parent (sysfs: EPERM or
	 * EROFS), that reason, also for those below it */
	if (mkdir("/sys/autotune-probe", 0777) != 0 && errno != ENOENT) {
		int why = errno;
		errno = 0;
		CU_ASSERT_EQUAL(make_dirs("/sys/autotune-probe/cache/cubins"), -1);
		CU_ASSERT_EQUAL(errno, why);
	} else
		rmdir("/sys/autotune-probe");
	/* a read-only parent: EACCES, where permissions bind (not root) */
	if (getuid() != 0) {
		char ro[160], below[192];
		snprintf(ro, sizeof ro, "%s/ro", top);
		snprintf(below, sizeof below, "%s/ro/cache/cubins", top);
		CU_ASSERT_EQUAL_FATAL(mkdir(ro, 0555), 0);
		errno = 0;
		CU_ASSERT_EQUAL(make_dirs(below), -1);
		CU_ASSERT_EQUAL(errno, EACCES);
		chmod(ro, 0755);
	}
	proc_capture(rm, 30, &out);
	free(out);
}

int add_diag_suite(void)
{
	CU_pSuite s = CU_add_suite("diag", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "messages are kept in order with positions", test_messages_are_kept_in_order_with_positions);
	CU_add_test(s, "formatting has no length limit", test_formatting_has_no_length_limit);
	CU_add_test(s, "the nearest name to a slip", test_the_nearest_name_to_a_slip);
	CU_add_test(s, "arrays grow by doubling", test_arrays_grow_by_doubling);
	CU_add_test(s, "write_atomically replaces the file whole", test_write_atomically_replaces_the_file_whole);
	CU_add_test(s, "a failed write leaves the old file intact", test_a_failed_write_leaves_the_old_file_intact);
	CU_add_test(s, "write_all writes everything or fails", test_write_all_writes_everything_or_fails);
	CU_add_test(s, "inputs are files", test_inputs_are_files);
	CU_add_test(s, "a recorded path is found from its file", test_a_recorded_path_is_found_from_its_file);
	CU_add_test(s, "make_dirs makes parents and says why not", test_make_dirs_makes_parents_and_says_why_not);
	return 0;
}
