/* test_progress.c: the status line: ETA arithmetic, the line cut to the terminal's width, no
 * escape codes under NO_COLOR, and silence when stderr is not a terminal (on a pseudo-terminal
 * where one can be had). */
#define _XOPEN_SOURCE 700
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "progress.h"
#include "tests.h"

/* The tests change NO_COLOR, COLUMNS and TERM; env_restore puts one back as env_save found it
 * (unset included) and frees the copy. */
static char *env_save(const char *name)
{
	const char *v = getenv(name);
	return v ? strdup(v) : NULL;
}

static void env_restore(const char *name, char *saved)
{
	if (saved)
		setenv(name, saved, 1);
	else
		unsetenv(name);
	free(saved);
}

static void test_eta_from_the_rate_so_far(void)
{
	CU_ASSERT_EQUAL(progress_eta(0, 10, 5), -1); /* nothing done: unknown */
	CU_ASSERT_EQUAL(progress_eta(3, 10, 0), -1);
	CU_ASSERT_DOUBLE_EQUAL(progress_eta(5, 10, 10), 10, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(progress_eta(1, 4, 2), 6, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(progress_eta(250, 1000, 60), 180, 1e-9);
	CU_ASSERT_EQUAL(progress_eta(10, 10, 7), 0);
	CU_ASSERT_EQUAL(progress_eta(0, 0, 0), 0); /* an empty stage is done */
}

static progress_view full_view(void)
{
	return (progress_view){.label = "measure", .done = 5, .total = 20, .compiled = 3, .to_compile = 4, .elapsed = 65,
			       .eta = 195, .best_ms = 0.0123, .best = "block_x=32 block_y=8 maxrreg=0"};
}

static void test_line_names_every_part(void)
{
	char buf[512];
	progress_view v = full_view();
	int cols = progress_format(buf, sizeof buf, &v, 200, 0);
	CU_ASSERT_STRING_EQUAL(buf, "compile 3/4  measure 5/20  elapsed 1:05  ETA 3:15  best 0.0123 ms "
				    "block_x=32 block_y=8 maxrreg=0");
	CU_ASSERT_EQUAL(cols, (int)strlen(buf));
	/* unknown ETA, hours, no compile count, no best: the note instead */
	v = (progress_view){"final", 1, 15, 0, 0, 3725, -1, -1, NULL, "TILE=16", 0};
	progress_format(buf, sizeof buf, &v, 200, 0);
	CU_ASSERT_STRING_EQUAL(buf, "final 1/15  elapsed 1:02:05  ETA --  TILE=16");
	/* a bar of compiles only */
	v = (progress_view){NULL, 0, 0, 2, 9, 1, 3.5, -1, NULL, NULL, 0};
	progress_format(buf, sizeof buf, &v, 200, 0);
	CU_ASSERT_STRING_EQUAL(buf, "compile 2/9  elapsed 0:01  ETA 0:04");
	/* with the compile rate: one decimal below 10 per second, none above */
	v.compile_rate = 2.46;
	progress_format(buf, sizeof buf, &v, 200, 0);
	CU_ASSERT_STRING_EQUAL(buf, "compile 2/9 (2.5/s)  elapsed 0:01  ETA 0:04");
	v.compile_rate = 23.4;
	progress_format(buf, sizeof buf, &v, 200, 0);
	CU_ASSERT_STRING_EQUAL(buf, "compile 2/9 (23/s)  elapsed 0:01  ETA 0:04");
}

/* Visible columns: escape sequences (ESC [ ... letter) and UTF-8 continuation bytes take none. */
static int visible(const char *s)
{
	int n = 0;
	while (*s) {
		if (*s == '\033') {
			while (*s && !(*s >= 'A' && *s <= 'Z') && !(*s >= 'a' && *s <= 'z'))
				s++;
			if (*s)
				s++;
			continue;
		}
		n += ((unsigned char)*s & 0xC0) != 0x80;
		s++;
	}
	return n;
}

static void test_line_is_cut_to_the_width(void)
{
	char buf[2048];
	progress_view v = full_view();
	for (int colour = 0; colour <= 1; colour++)
		for (int width = 1; width <= 120; width++) {
			int cols = progress_format(buf, sizeof buf, &v, width, colour);
			CU_ASSERT(cols <= (width > 1 ? width - 1 : 0));
			CU_ASSERT_EQUAL(visible(buf), cols);
			if (!colour)
				CU_ASSERT_EQUAL((int)strlen(buf), cols);
			/* a colour opened is always closed, or the rest of the terminal turns green */
			if (colour && strstr(buf, "\033[32m"))
				CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\033[0m"));
		}
	int cols = progress_format(buf, sizeof buf, &v, 36, 0);
	CU_ASSERT_EQUAL(cols, 35);
	CU_ASSERT_STRING_EQUAL(buf, "compile 3/4  measure 5/20  elaps...");
	/* a buffer too small for the width is never overrun */
	char small[24];
	memset(small, 'x', sizeof small);
	cols = progress_format(small, 16, &v, 200, 1);
	CU_ASSERT(strlen(small) < 16);
	CU_ASSERT_EQUAL(small[16], 'x');
	/* UTF-8 counts by characters; control characters cannot move the cursor */
	v = (progress_view){"m", 1, 2, 0, 0, 0, -1, -1, NULL, "x=\xc2\xb1\n", 0};
	cols = progress_format(buf, sizeof buf, &v, 200, 0);
	CU_ASSERT_STRING_EQUAL(buf, "m 1/2  elapsed 0:00  ETA --  x=\xc2\xb1?");
	CU_ASSERT_EQUAL(cols, (int)strlen(buf) - 1);
}

static void test_no_escape_codes_without_colour(void)
{
	char buf[512];
	progress_view v = full_view();
	progress_format(buf, sizeof buf, &v, 200, 0);
	CU_ASSERT_PTR_NULL(strchr(buf, '\033'));
	progress_format(buf, sizeof buf, &v, 200, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\033[32m0.0123 ms\033[0m"));
	/* NO_COLOR set and not empty turns colour off even on a terminal; a file gets none anyway */
	char *saved = env_save("NO_COLOR");
	setenv("NO_COLOR", "1", 1);
	CU_ASSERT_EQUAL(progress_colour(STDIN_FILENO), 0);
	int fd = open("/dev/null", O_WRONLY);
	unsetenv("NO_COLOR");
	CU_ASSERT_EQUAL(progress_colour(fd), 0);
	close(fd);
	env_restore("NO_COLOR", saved);
}

static void test_width_from_columns_else_80(void)
{
	char *saved = env_save("COLUMNS");
	int fd = open("/dev/null", O_WRONLY); /* not a terminal: no TIOCGWINSZ */
	setenv("COLUMNS", "57", 1);
	CU_ASSERT_EQUAL(progress_width(fd), 57);
	setenv("COLUMNS", "wide", 1);
	CU_ASSERT_EQUAL(progress_width(fd), 80);
	setenv("COLUMNS", "0", 1);
	CU_ASSERT_EQUAL(progress_width(fd), 80);
	unsetenv("COLUMNS");
	CU_ASSERT_EQUAL(progress_width(fd), 80);
	close(fd);
	env_restore("COLUMNS", saved);
}

static void test_best_keeps_the_fastest(void)
{
	progress p;
	progress_begin(&p, 0, "measure", 3);
	CU_ASSERT(p.best_ms < 0);
	progress_best(&p, 2.0, "a=2");
	progress_best(&p, 1.0, "a=1");
	progress_best(&p, 3.0, "a=3");
	progress_best(&p, 1.0, "a=1b"); /* a tie does not replace the first */
	CU_ASSERT_DOUBLE_EQUAL(p.best_ms, 1.0, 0);
	CU_ASSERT_STRING_EQUAL(p.best, "a=1");
	progress_end(&p);
}

/* Runs a short session of every call with fd 2 pointing at `to`; stderr is restored after. */
static void session(int to)
{
	int saved = dup(STDERR_FILENO);
	fflush(stderr);
	dup2(to, STDERR_FILENO);
	progress compiles, bar;
	progress_begin(&compiles, 1, NULL, 0);
	progress_compile(&compiles, 1, 4);
	progress_begin(&bar, 1, "measure", 2);
	progress_compile(&compiles, 2, 4);
	progress_best(&bar, 0.5, "block_x=64");
	progress_update(&bar, 1, "block_x=64");
	progress_end(&bar);
	progress_end(&compiles);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
}

static void test_nothing_written_when_not_a_terminal(void)
{
	const char *path = write_temp(0, "progress.txt", "");
	int fd = open(path, O_WRONLY | O_TRUNC);
	CU_ASSERT_FATAL(fd >= 0);
	session(fd);
	close(fd);
	struct stat st;
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_size, 0);
	unlink(path);
}

/* Everything the pseudo-terminal's master has to read within a moment. */
static size_t drain(int master, char *buf, size_t len)
{
	size_t n = 0;
	struct pollfd pfd = {master, POLLIN, 0};
	while (n + 1 < len && poll(&pfd, 1, 200) > 0) {
		ssize_t k = read(master, buf + n, len - 1 - n);
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	buf[n] = 0;
	return n;
}

/* The longest stretch between carriage returns, in visible columns. */
static int widest(const char *s)
{
	int most = 0;
	char piece[4096];
	while (*s) {
		size_t n = strcspn(s, "\r");
		if (n >= sizeof piece)
			n = sizeof piece - 1;
		memcpy(piece, s, n);
		piece[n] = 0;
		int v = visible(piece);
		/* trailing blanks only wipe the last line's tail; they are not drawn text */
		while (n && piece[n - 1] == ' ') {
			piece[--n] = 0;
			v--;
		}
		if (v > most)
			most = v;
		s += n + strspn(s + n, " \r");
	}
	return most;
}

static void test_terminal_gets_the_line_and_honours_no_color(void)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) || unlockpt(master)) {
		fprintf(stderr, "\n  (no pseudo-terminal here: skipped)\n");
		if (master >= 0)
			close(master);
		return;
	}
	int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	CU_ASSERT_FATAL(slave >= 0);
	struct winsize ws = {0};
	ws.ws_col = 100;
	ws.ws_row = 24;
	ioctl(slave, TIOCSWINSZ, &ws);
	char *no_color = env_save("NO_COLOR"), *term = env_save("TERM");
	setenv("TERM", "xterm", 1);
	char out[8192];

	unsetenv("NO_COLOR");
	session(slave);
	drain(master, out, sizeof out);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "compile 2/4 ("));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "/s)  measure 1/2"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\033[32m0.5000 ms\033[0m"));
	CU_ASSERT(widest(out) <= 99);

	setenv("NO_COLOR", "1", 1);
	session(slave);
	drain(master, out, sizeof out);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "compile 2/4 ("));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "/s)  measure 1/2"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "best 0.5000 ms"));
	CU_ASSERT_PTR_NULL(strchr(out, '\033'));
	CU_ASSERT(widest(out) <= 99);

	/* an empty NO_COLOR counts as unset (no-color.org) */
	setenv("NO_COLOR", "", 1);
	session(slave);
	drain(master, out, sizeof out);
	CU_ASSERT_PTR_NOT_NULL(strchr(out, '\033'));

	env_restore("NO_COLOR", no_color);
	env_restore("TERM", term);
	close(slave);
	close(master);
}

int add_progress_suite(void)
{
	CU_pSuite s = CU_add_suite("progress", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "ETA from the rate so far", test_eta_from_the_rate_so_far);
	CU_add_test(s, "line names every part", test_line_names_every_part);
	CU_add_test(s, "line is cut to the width", test_line_is_cut_to_the_width);
	CU_add_test(s, "no escape codes without colour", test_no_escape_codes_without_colour);
	CU_add_test(s, "width from COLUMNS, else 80", test_width_from_columns_else_80);
	CU_add_test(s, "best keeps the fastest", test_best_keeps_the_fastest);
	CU_add_test(s, "nothing written when not a terminal", test_nothing_written_when_not_a_terminal);
	CU_add_test(s, "terminal gets the line and honours NO_COLOR", test_terminal_gets_the_line_and_honours_no_color);
	return CU_get_error() == CUE_SUCCESS ? 0 : -1;
}
