/* test_help.c: every command's --help fits a terminal (80 columns, 24 lines) and exits 0; help
 * and mistyped commands give sane messages; the man page renders without warnings and names
 * what --help and README.md name. Spawns ./autotune: run from the repository root after `make`. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "proc.h"
#include "tests.h"

/* argv[0] first; returns the exit status (-1: did not exit) and the output, stdout and stderr. */
static int spawn(char *const argv[], char **output)
{
	int st = proc_capture(argv, 60, output);
	if (!*output)
		*output = strdup("");
	return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Whether text fits a terminal of 80 by 24: columns counted by characters, not bytes. */
static int fits(const char *text, int *lines, int *widest)
{
	*lines = *widest = 0;
	int cols = 0;
	for (const char *s = text; *s; s++) {
		if (*s == '\n') {
			++*lines;
			cols = 0;
			continue;
		}
		cols += ((unsigned char)*s & 0xC0) != 0x80;
		if (cols > *widest)
			*widest = cols;
	}
	if (cols)
		++*lines;
	return *lines <= 24 && *widest <= 80;
}

static void test_every_help_fits_a_terminal(void)
{
	char *general;
	CU_ASSERT_EQUAL(spawn((char *[]){"./autotune", "--help", NULL}, &general), 0);
	for (int k = CMD_TUNE; k < CMD_COUNT_; k++) {
		char *cmd = (char *)cli_command_name((command)k), *out, *again;
		int lines, widest;
		CU_ASSERT_EQUAL(spawn((char *[]){"./autotune", cmd, "--help", NULL}, &out), 0);
		if (!fits(out, &lines, &widest))
			fprintf(stderr, "\n  autotune %s --help: %d lines, %d columns\n", cmd, lines, widest);
		CU_ASSERT(fits(out, &lines, &widest));
		CU_ASSERT(lines >= 2);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, "usage: autotune"));
		/* each says how it exits */
		CU_ASSERT(strstr(out, "exit: 0") || strstr(out, "Exit 0"));
		/* the general help names every command */
		CU_ASSERT_PTR_NOT_NULL(strstr(general, cmd));
		/* `autotune help CMD` is the same text */
		CU_ASSERT_EQUAL(spawn((char *[]){"./autotune", "help", cmd, NULL}, &again), 0);
		CU_ASSERT_STRING_EQUAL(out, again);
		free(again);
		free(out);
	}
	char *help;
	CU_ASSERT_EQUAL(spawn((char *[]){"./autotune", "help", NULL}, &help), 0);
	CU_ASSERT_STRING_EQUAL(help, general);
	free(help);
	/* the statuses of cli.h, all of them */
	CU_ASSERT_PTR_NOT_NULL(strstr(general, "exit: 0 winner written, 1 none passed, 2 bad input, 3 GPU worker lost"));
	CU_ASSERT_PTR_NOT_NULL(strstr(general, "130 interrupted"));
	CU_ASSERT_PTR_NOT_NULL(strstr(general, "143 SIGTERM"));
	CU_ASSERT_PTR_NULL(strstr(general, "%%")); /* printed as is, not through printf */
	/* the cache's default as the code finds it: XDG_CACHE_HOME first */
	CU_ASSERT_PTR_NOT_NULL(strstr(general, "XDG_CACHE_HOME"));
	free(general);
}

static void test_unknown_commands_and_options_are_named(void)
{
	char *out;
	int lines, widest;
	CU_ASSERT_EQUAL(spawn((char *[]){"./autotune", "frobnicate", NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "'frobnicate' is not a command"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "commands: tune, validate, import, header, report, show, devices, merge"));
	CU_ASSERT(fits(out, &lines, &widest));
	free(out);
	/* help about help is the general help, which says how to ask about a command */
	CU_ASSERT_EQUAL(spawn((char *[]){"./autotune", "help", "help", NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "autotune help COMMAND"));
	free(out);
	CU_ASSERT_EQUAL(spawn((char *[]){"./autotune", "help", "frobnicate", NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "'frobnicate' is not a command"));
	free(out);
	CU_ASSERT_EQUAL(spawn((char *[]){"./autotune", "--frobnicate", NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "'--frobnicate' is unknown"));
	free(out);
	/* a missing file that looks like one is reported as a file */
	CU_ASSERT_EQUAL(spawn((char *[]){"./autotune", "tune", "no/such.yaml", NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "no/such.yaml"));
	CU_ASSERT_PTR_NULL(strstr(out, "not a command"));
	free(out);
	CU_ASSERT_EQUAL(spawn((char *[]){"./autotune", "tune", "configs/summatrix.yaml", "--help", NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "usage: autotune [tune]"));
	free(out);
}

static int have(const char *program)
{
	char *out;
	int rc = spawn((char *[]){(char *)program, "--version", NULL}, &out);
	free(out);
	return rc == 0;
}

static void test_man_page_renders_without_warnings(void)
{
	char *page = read_text("autotune.1");
	CU_ASSERT_PTR_NOT_NULL_FATAL(page);
	const char *sections[] = {".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH COMMANDS", ".SH OPTIONS",
				  ".SH FILES", ".SH ENVIRONMENT", ".SH \"EXIT STATUS\"", ".SH EXAMPLES", ".SH \"SEE ALSO\""};
	for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++)
		CU_ASSERT_PTR_NOT_NULL(strstr(page, sections[i]));
	for (int k = CMD_TUNE; k < CMD_COUNT_; k++) {
		char item[64];
		snprintf(item, sizeof item, ".B %s", cli_command_name((command)k));
		CU_ASSERT_PTR_NOT_NULL(strstr(page, item));
	}
	const char *env[] = {"NVCC", "CUDA_HOME", "CUDA_VISIBLE_DEVICES", "AUTOTUNE_WORKER", "XDG_CACHE_HOME", "NO_COLOR",
			     "TMPDIR"};
	for (size_t i = 0; i < sizeof env / sizeof env[0]; i++)
		CU_ASSERT_PTR_NOT_NULL(strstr(page, env[i]));
	/* the exit statuses, as cli.h numbers them */
	const char *status = strstr(page, ".SH \"EXIT STATUS\"");
	CU_ASSERT_PTR_NOT_NULL_FATAL(status);
	int codes[] = {EXIT_WINNER, EXIT_NONE_PASSED, EXIT_USAGE, EXIT_ENV, EXIT_UNWRITTEN, EXIT_INTERRUPTED};
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
		char item[32];
		snprintf(item, sizeof item, "\n.B %d\n", codes[i]);
		CU_ASSERT_PTR_NOT_NULL(strstr(status, item));
	}
	free(page);
	if (!have("groff")) {
		fprintf(stderr, "\n  (no groff: rendering not checked)\n");
		return;
	}
	/* -ww: every warning; -z: no output, so anything printed is a warning or an error */
	char *out;
	CU_ASSERT_EQUAL(spawn((char *[]){"groff", "-man", "-Tutf8", "-ww", "-z", "autotune.1", NULL}, &out), 0);
	if (*out)
		fprintf(stderr, "\n  groff: %s", out);
	CU_ASSERT_STRING_EQUAL(out, "");
	free(out);
}

/* The man page's synopsis line of a command, from ".B autotune CMD" to the next ".br". */
static char *synopsis_of(const char *page, const char *cmd)
{
	char head[64];
	snprintf(head, sizeof head, ".B autotune %s\n", cmd);
	const char *from = strstr(page, head), *to = from ? strstr(from, ".br\n") : NULL;
	return to ? strndup(from, (size_t)(to - from)) : NULL;
}

/* Every optional option of a command's usage line ("[-o TUNED.h]") is in the man page's synopsis
 * of that command, bracketed too, and every option the synopsis gives is in the usage line: the
 * two say alike what a command takes (the usage line comes from the parser's tables, cli.c). */
static void test_man_synopsis_agrees_with_usage(void)
{
	char *page = read_text("autotune.1");
	CU_ASSERT_PTR_NOT_NULL_FATAL(page);
	int checked = 0;
	for (int k = CMD_VALIDATE; k < CMD_COUNT_; k++) {
		const char *cmd = cli_command_name((command)k);
		char *out, *syn = synopsis_of(page, cmd);
		CU_ASSERT_PTR_NOT_NULL(syn);
		CU_ASSERT_EQUAL(spawn((char *[]){"./autotune", (char *)cmd, "--help", NULL}, &out), 0);
		/* the usage: its first line and those indented under it */
		char *nl = out;
		while ((nl = strchr(nl, '\n')) && nl[1] == ' ')
			nl++;
		if (nl)
			*nl = 0;
		for (const char *b = strstr(out, "[-"); syn && b; b = strstr(b + 1, "[-")) {
			char want[64] = ".RB [ ", *w = want + strlen(want);
			for (const char *c = b + 1; *c && *c != ' ' && *c != ']' && w < want + sizeof want - 3; c++) {
				if (*c == '-')
					*w++ = '\\';
				*w++ = *c;
			}
			*w = 0;
			if (!strstr(syn, want))
				fprintf(stderr, "\n  man synopsis of %s lacks '%s' (usage: %s)\n", cmd, want, out);
			CU_ASSERT_PTR_NOT_NULL(strstr(syn, want));
			checked++;
		}
		/* and back: ".RB [ \-\-top" in the synopsis is "[--top" in the usage line */
		for (const char *b = syn ? strstr(syn, ".RB [ \\-") : NULL; b; b = strstr(b + 1, ".RB [ \\-")) {
			char want[64] = "[", *w = want + 1;
			for (const char *c = b + 6; *c && *c != ' ' && *c != '\n' && w < want + sizeof want - 2; c++)
				if (*c != '\\')
					*w++ = *c;
			*w = 0;
			if (!strstr(out, want))
				fprintf(stderr, "\n  usage of %s lacks '%s', which its man synopsis gives (usage: %s)\n", cmd, want, out);
			CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
			checked++;
		}
		free(syn);
		free(out);
	}
	CU_ASSERT(checked >= 22); /* each of 11 options of the usage lines, both ways */
	/* tune's options, each described in OPTIONS */
	const char *options = strstr(page, ".SH OPTIONS");
	CU_ASSERT_PTR_NOT_NULL_FATAL(options);
	for (size_t i = 0; cli_option_name(i); i++) {
		if (!cli_accepts(CMD_TUNE, cli_option_name(i)))
			continue;
		char want[80] = "\\-\\-", *w = want + strlen(want);
		for (const char *c = cli_option_name(i); *c && w < want + sizeof want - 3; c++) {
			if (*c == '-')
				*w++ = '\\';
			*w++ = *c;
		}
		*w = 0;
		if (!strstr(options, want))
			fprintf(stderr, "\n  the man page's OPTIONS lack %s\n", want);
		CU_ASSERT_PTR_NOT_NULL(strstr(options, want));
	}
	free(page);
}

/* README.md's table and the man page give the same statuses as --help. */
static void test_exit_statuses_agree(void)
{
	char *readme = read_text("README.md");
	CU_ASSERT_PTR_NOT_NULL_FATAL(readme);
	const char *rows[] = {"| 0 | a winner was written", "| 1 | the run finished but no configuration passed",
			      "| 2 | bad input", "| 3 | the GPU worker", "| 4 | measured, but the results", "| 130 | interrupted",
			      "| 143 | stopped by SIGTERM"};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		CU_ASSERT_PTR_NOT_NULL(strstr(readme, rows[i]));
	free(readme);
}

int add_help_suite(void)
{
	CU_pSuite s = CU_add_suite("help and man page", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "every --help fits a terminal", test_every_help_fits_a_terminal);
	CU_add_test(s, "unknown commands and options are named", test_unknown_commands_and_options_are_named);
	CU_add_test(s, "man page renders without warnings", test_man_page_renders_without_warnings);
	CU_add_test(s, "man synopsis agrees with usage", test_man_synopsis_agrees_with_usage);
	CU_add_test(s, "exit statuses agree", test_exit_statuses_agree);
	return CU_get_error() == CUE_SUCCESS ? 0 : -1;
}
