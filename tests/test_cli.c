/* test_cli.c: the command line (cli.c): options into their fields, subcommands and how many
 * operands each takes, the forms of help, and bad values refused with the option named; through
 * the binary, help on stdout with status 0 and usage errors with status 2. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "proc.h"
#include "tests.h"

static void test_help_goes_to_stdout_with_status_0(void)
{
	char *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){"--help", NULL}, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "usage: autotune"));
	free(out);
}

static void test_usage_errors_exit_2(void)
{
	char *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "no config file given"));
	free(out);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"--jobs", "zero", "x.yaml", NULL}, &out), 2);
	free(out);
}

/* cli_parse over argv (NULL-terminated); its stderr in *said (caller frees). */
static int parse(char **argv, options *o, char **said)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	stderr_begin();
	int rc = cli_parse(argc, argv, o);
	char *text = stderr_end();
	if (said)
		*said = text;
	else
		free(text);
	return rc;
}

static void test_options_land_in_their_fields(void)
{
	options o;
	char *argv[] = {"autotune", "-n", "-a", "sm_80", "-j", "4", "--shard", "2/5", "--seed", "7", "-q", "--fresh",
			"--retry-failed", "--no-cache", "--budget", "10%", "--strategy", "anneal", "--devices", "0,1",
			"--metrics", "top:3", "--cache-dir", "/c", "x.yaml", NULL};
	CU_ASSERT_EQUAL_FATAL(parse(argv, &o, NULL), 0);
	CU_ASSERT_EQUAL(o.cmd, CMD_TUNE);
	CU_ASSERT(o.dry_run && o.quiet && o.fresh && o.retry_failed && o.no_cache);
	CU_ASSERT_STRING_EQUAL(o.arch, "sm_80");
	CU_ASSERT_EQUAL(o.jobs, 4);
	CU_ASSERT_EQUAL(o.shard, 2);
	CU_ASSERT_EQUAL(o.nshards, 5);
	CU_ASSERT(o.seed_given && o.seed == 7);
	CU_ASSERT_STRING_EQUAL(o.budget, "10%");
	CU_ASSERT_STRING_EQUAL(o.strategy, "anneal");
	CU_ASSERT_STRING_EQUAL(o.devices, "0,1");
	CU_ASSERT_STRING_EQUAL(o.metrics, "top:3");
	CU_ASSERT_STRING_EQUAL(o.cache_dir, "/c");
	CU_ASSERT_STRING_EQUAL(o.config, "x.yaml");
	CU_ASSERT_EQUAL(o.ninputs, 1);
	/* what is not given keeps its default: every GPU, cores as jobs, no shards, no seed */
	char *plain[] = {"autotune", "x.yaml", NULL};
	CU_ASSERT_EQUAL_FATAL(parse(plain, &o, NULL), 0);
	CU_ASSERT_EQUAL(o.device, -1);
	CU_ASSERT_EQUAL(o.jobs, 0);
	CU_ASSERT_EQUAL(o.nshards, 0);
	CU_ASSERT_EQUAL(o.seed_given, 0);
	CU_ASSERT(!o.dry_run && !o.quiet);
}

/* Each subcommand takes its own number of operands; too few or too many is refused, naming it. */
static void test_subcommands_take_their_operands(void)
{
	options o;
	char *merge[] = {"autotune", "merge", "c.yaml", "a.csv", "b.csv", NULL};
	CU_ASSERT_EQUAL(parse(merge, &o, NULL), 0);
	CU_ASSERT_EQUAL(o.cmd, CMD_MERGE);
	CU_ASSERT_EQUAL(o.ninputs, 3);
	CU_ASSERT_STRING_EQUAL(o.config, "c.yaml");
	CU_ASSERT_STRING_EQUAL(o.inputs[2], "b.csv");
	char *devices[] = {"autotune", "devices", NULL};
	CU_ASSERT_EQUAL(parse(devices, &o, NULL), 0);
	CU_ASSERT_EQUAL(o.cmd, CMD_DEVICES);
	CU_ASSERT_EQUAL(o.ninputs, 0);
	char *validate[] = {"autotune", "validate", "--print-spec-hash", "a.yaml", "b.yaml", NULL};
	CU_ASSERT_EQUAL(parse(validate, &o, NULL), 0);
	CU_ASSERT(o.cmd == CMD_VALIDATE && o.print_spec_hash && o.ninputs == 2);
	static const struct {
		char *argv[5];
		const char *said;
	} bad[] = {
		{{"autotune", "merge", "c.yaml", NULL}, "autotune merge: takes a config and the shard CSVs, not 1 operand"},
		{{"autotune", "devices", "x", NULL}, "autotune devices: takes no operands, not 1 operand"},
		{{"autotune", "show", "a.csv", "b.csv", NULL}, "autotune show: takes one results CSV, not 2 operands"},
		{{"autotune", "a.yaml", "b.yaml", NULL}, "give one config file, not 2"},
		{{"autotune", "--print-spec-hash", "a.yaml", NULL},
		 "autotune tune: --print-spec-hash is not an option of tune (it goes with validate;"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char *argv[5], *said;
		memcpy(argv, bad[i].argv, sizeof argv);
		CU_ASSERT_EQUAL(parse(argv, &o, &said), -1);
		if (!strstr(said, bad[i].said))
			fprintf(stderr, "\n  %s %s: said '%s', want '%s'\n", argv[1], argv[2] ? argv[2] : "", said, bad[i].said);
		CU_ASSERT_PTR_NOT_NULL(strstr(said, bad[i].said));
		free(said);
	}
}

/* `help COMMAND`, `COMMAND --help` and `help help` name the help to print; --version stops there. */
static void test_the_forms_of_help(void)
{
	options o;
	char *a[] = {"autotune", "help", "merge", NULL}, *b[] = {"autotune", "merge", "--help", NULL},
	     *c[] = {"autotune", "help", "help", NULL}, *d[] = {"autotune", "--version", "whatever", NULL},
	     *e[] = {"autotune", "help", "nosuch", NULL};
	CU_ASSERT_EQUAL(parse(a, &o, NULL), 0);
	CU_ASSERT(o.cmd == CMD_HELP && o.help_for == CMD_MERGE);
	CU_ASSERT_EQUAL(parse(b, &o, NULL), 0);
	CU_ASSERT(o.cmd == CMD_HELP && o.help_for == CMD_MERGE);
	CU_ASSERT_EQUAL(parse(c, &o, NULL), 0);
	CU_ASSERT(o.cmd == CMD_HELP && o.help_for == CMD_TUNE);
	CU_ASSERT_EQUAL(parse(d, &o, NULL), 0);
	CU_ASSERT_EQUAL(o.cmd, CMD_VERSION);
	char *said;
	CU_ASSERT_EQUAL(parse(e, &o, &said), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(said, "'nosuch' is not a command (nor a file)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(said, "commands: tune, validate, import, header, report, show, devices, merge"));
	free(said);
	CU_ASSERT_STRING_EQUAL(cli_command_name(CMD_MERGE), "merge");
	CU_ASSERT_STRING_EQUAL(cli_command_name(CMD_HELP), "help");
}

/* A number out of its range or with junk after it is refused, the option and the value named. */
static void test_bad_values_name_the_option(void)
{
	static const struct {
		const char *opt, *value, *said;
	} bad[] = {
		{"--shard", "4/4", "--shard needs I/N with 0 <= I < N, not '4/4'"},
		{"--shard", "1/0", "not '1/0'"},
		{"--shard", "1/", "not '1/'"},
		{"--shard", "-1/4", "not '-1/4'"},
		{"-j", "0", "--jobs needs a whole number from 1 to 4096, not '0'"},
		{"--device", "4097", "--device needs a whole number from 0 to 4096, not '4097'"},
		{"--top", "3x", "--top needs a whole number from 1 to 4096, not '3x'"},
		{"--seed", "12x", "--seed needs a whole number from 0 to 9223372036854775807, not '12x'"},
		{"--seed", "-1", "not '-1'"},
		{"--seed", "+1", "not '+1'"},
		{"--seed", "9223372036854775808", "not '9223372036854775808'"},
		{"--seed", "99999999999999999999999", "not '99999999999999999999999'"},
		/* getopt_long's one '?' told apart: unknown (a slip gets the nearest name), ambiguous,
		 * a value missing or one given to an option that takes none */
		/* --arch is checked here, not once a GPU is open; --dry-run's target too */
		{"--arch", "sm_9", "--arch needs an architecture like sm_90 or sm_100, not 'sm_9'"},
		{"-a", "90", "not '90'"},
		{"--arch=compute_90", NULL, "not 'compute_90'"},
		{"--frsh", NULL, "option '--frsh' is unknown; did you mean '--fresh'? (see --help)"},
		{"--replya=x", NULL, "option '--replya' is unknown; did you mean '--replay'?"},
		{"--zzzzzz", NULL, "option '--zzzzzz' is unknown (see --help)"},
		{"--re", NULL, "option '--re' is ambiguous: --retry-failed, --replay (see --help)"},
		{"--fresh=1", NULL, "option '--fresh' takes no value"},
		{"--budget", NULL, "option '--budget' needs a value"},
		{"--bud", NULL, "option '--budget' needs a value"},
		{"-a", NULL, "option '-a' needs a value"},
		{"-qj", NULL, "option '-j' needs a value"},
		{"-x", NULL, "option '-x' is unknown"},
		{"-qx", NULL, "option '-x' is unknown"},
		{"--fresh", "-xq", "option '-x' is unknown"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		options o;
		char *said;
		char *argv[] = {"autotune", (char *)bad[i].opt, (char *)bad[i].value, bad[i].value ? "x.yaml" : NULL, NULL};
		CU_ASSERT_EQUAL(parse(argv, &o, &said), -1);
		if (!strstr(said, bad[i].said))
			fprintf(stderr, "\n  %s %s: said '%s', want '%s'\n", bad[i].opt, bad[i].value, said, bad[i].said);
		CU_ASSERT_PTR_NOT_NULL(strstr(said, bad[i].said));
		free(said);
	}
}

/* A word that is no command, no file and no path reads as a mistyped command, whatever follows
 * it, with the nearest command where it is a slip ('view' is none: show is); as a file it is a
 * config. */
static void test_a_mistyped_command_is_named(void)
{
	options o;
	static const struct {
		char *argv[5];
		const char *said;
	} bad[] = {
		{{"autotune", "shwo", NULL}, "'shwo' is not a command (nor a file); did you mean 'show'?"},
		{{"autotune", "shwo", "results/x.csv", NULL}, "'shwo' is not a command (nor a file); did you mean 'show'?"},
		{{"autotune", "view", "results/x.csv", NULL}, "'view' is not a command (nor a file); did you mean 'show'?"},
		{{"autotune", "hlep", NULL}, "did you mean 'help'?"},
		{{"autotune", "mrege", "c.yaml", "a.csv", NULL}, "did you mean 'merge'?"},
		{{"autotune", "xyzzy", "a.csv", NULL}, "'xyzzy' is not a command (nor a file)\n"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char *argv[5], *said;
		memcpy(argv, bad[i].argv, sizeof argv);
		CU_ASSERT_EQUAL(parse(argv, &o, &said), -1);
		if (!strstr(said, bad[i].said))
			fprintf(stderr, "\n  %s: said '%s', want '%s'\n", argv[1], said, bad[i].said);
		CU_ASSERT_PTR_NOT_NULL(strstr(said, bad[i].said));
		CU_ASSERT_PTR_NOT_NULL(strstr(said, "commands: tune, validate,"));
		free(said);
	}
	/* a config is a file, or has a path or an extension: too many of them is still that */
	char *said;
	CU_ASSERT_EQUAL(parse((char *[]){"autotune", "a.yaml", "b.yaml", NULL}, &o, &said), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(said, "give one config file, not 2"));
	free(said);
	CU_ASSERT_EQUAL(parse((char *[]){"autotune", "c/saxpy.yaml", NULL}, &o, NULL), 0);
	CU_ASSERT(o.cmd == CMD_TUNE && !strcmp(o.config, "c/saxpy.yaml"));
	char cwd[4096];
	CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
	CU_ASSERT_EQUAL_FATAL(chdir(test_dir), 0);
	FILE *f = fopen("shwo", "w");
	if (f)
		fclose(f);
	char *again[] = {"autotune", "shwo", NULL};
	int rc = parse(again, &o, NULL);
	unlink("shwo");
	CU_ASSERT_EQUAL_FATAL(chdir(cwd), 0);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT(o.cmd == CMD_TUNE && !strcmp(o.config, "shwo"));
}

/* Options of one command only are refused with the others, saying which command takes them:
 * header's --config (the config of T4 and cache files), --t4 of tuning and merge. */
static void test_options_of_one_command_stay_with_it(void)
{
	options o;
	char *said;
	CU_ASSERT_EQUAL_FATAL(parse((char *[]){"autotune", "header", "r.t4.json", "--config", "c.yaml", NULL}, &o, NULL), 0);
	CU_ASSERT_EQUAL(o.cmd, CMD_HEADER);
	CU_ASSERT_STRING_EQUAL(o.results_config, "c.yaml");
	CU_ASSERT_STRING_EQUAL(o.inputs[0], "r.t4.json");
	CU_ASSERT_EQUAL(parse((char *[]){"autotune", "--config", "c.yaml", "x.yaml", NULL}, &o, &said), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(said, "--config is not an option of tune (it goes with header;"));
	free(said);
	CU_ASSERT_EQUAL_FATAL(parse((char *[]){"autotune", "--t4", "x.yaml", NULL}, &o, NULL), 0);
	CU_ASSERT(o.t4 && o.cmd == CMD_TUNE);
	CU_ASSERT_EQUAL_FATAL(parse((char *[]){"autotune", "merge", "x.yaml", "a.csv", "--t4", NULL}, &o, NULL), 0);
	CU_ASSERT(o.t4 && o.cmd == CMD_MERGE);
	CU_ASSERT_EQUAL(parse((char *[]){"autotune", "show", "a.csv", "--t4", NULL}, &o, &said), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(said, "autotune show: --t4 is not an option of show (it goes with tune, merge;"));
	free(said);
}

/* A value each option's parser takes, and operands each command takes. */
static char *value_for(const char *name)
{
	static const char *const values[][2] = {{"arch", "sm_90"}, {"jobs", "2"},    {"device", "0"},
						 {"shard", "0/2"},   {"top", "3"},   {"seed", "7"}};
	for (size_t i = 0; i < sizeof values / sizeof *values; i++)
		if (!strcmp(values[i][0], name))
			return (char *)values[i][1];
	return "v";
}

/* The usage line of cmd names option i ("[--top N]", or "[-o TUNED.h]" by its letter); for tune,
 * the general help's option lines do. */
static int help_names(command cmd, size_t i)
{
	char *text = NULL, flag[80];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	cli_help(cmd, f);
	fclose(f);
	if (cmd != CMD_TUNE) { /* the usage alone: its first line and those indented under it */
		char *nl = text;
		while ((nl = strchr(nl, '\n')) && nl[1] == ' ')
			nl++;
		if (nl)
			*nl = 0;
	}
	int named = 0;
	for (int form = 0; form < 3 && !named; form++) {
		if (form == 0)
			snprintf(flag, sizeof flag, "--%s", cli_option_name(i));
		else if (cli_option_letter(i))
			snprintf(flag, sizeof flag, "-%c", cli_option_letter(i));
		else
			continue;
		for (const char *at = strstr(text, flag); at && !named; at = strstr(at + 1, flag)) {
			char after = at[strlen(flag)];
			named = after == ' ' || after == ']' || after == ',' || after == '\n' || !after;
		}
	}
	free(text);
	return named;
}

/* Each command accepts exactly the options its help names (and --help and --version): any other
 * exits with a usage error that names the command; the parser, the help and cli_accepts agree. */
static void test_each_command_accepts_exactly_its_options(void)
{
	static char *const operands[CMD_COUNT_][3] = {
		[CMD_TUNE] = {"x.yaml"},      [CMD_VALIDATE] = {"a.yaml", "b.yaml"}, [CMD_IMPORT] = {"s.json"},
		[CMD_HEADER] = {"r.csv"},     [CMD_REPORT] = {"r.csv"},              [CMD_SHOW] = {"r.csv"},
		[CMD_DEVICES] = {NULL},       [CMD_MERGE] = {"c.yaml", "a.csv"},
	};
	int accepted = 0, refused = 0;
	for (int k = CMD_TUNE; k < CMD_COUNT_; k++)
		for (size_t i = 0; cli_option_name(i); i++) {
			const char *name = cli_option_name(i);
			if (!strcmp(name, "help") || !strcmp(name, "version"))
				continue;
			char flag[80], *argv[8] = {"autotune", (char *)cli_command_name((command)k), flag}, *said;
			int n = 3;
			snprintf(flag, sizeof flag, "--%s", name);
			if (cli_option_takes_value(i))
				argv[n++] = value_for(name);
			for (int j = 0; j < 3 && operands[k][j]; j++)
				argv[n++] = operands[k][j];
			argv[n] = NULL;
			options o;
			int rc = parse(argv, &o, &said), accepts = cli_accepts((command)k, name);
			CU_ASSERT_EQUAL(rc, accepts ? 0 : -1);
			if (!accepts) {
				char want[160];
				snprintf(want, sizeof want, "autotune %s: ", cli_command_name((command)k));
				CU_ASSERT_PTR_NOT_NULL(strstr(said, want));
				snprintf(want, sizeof want, "--%s is not an option of %s (it goes with ", name,
					 cli_command_name((command)k));
				CU_ASSERT_PTR_NOT_NULL(strstr(said, want));
			}
			if ((rc == 0) != accepts || help_names((command)k, i) != accepts)
				fprintf(stderr, "\n  %s --%s: parsed %d, accepted %d, in its help %d: %s", cli_command_name((command)k),
					name, rc, accepts, help_names((command)k, i), said);
			CU_ASSERT_EQUAL(help_names((command)k, i), accepts);
			accepted += accepts;
			refused += !accepts;
			free(said);
		}
	CU_ASSERT(accepted >= 25);
	CU_ASSERT(refused >= 100);
	/* the two: a replay is a tuning run's; a strategy is nothing to show */
	char *out;
	CU_ASSERT_EQUAL(run_autotune((char *[]){"validate", "--replay", "x.csv", "configs/gemm.yaml", NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "autotune validate: --replay is not an option of validate"));
	free(out);
	CU_ASSERT_EQUAL(run_autotune((char *[]){"show", "x.csv", "--strategy", "anneal", "--jobs", "3", NULL}, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "autotune show: --strategy is not an option of show"));
	free(out);
	/* --help and --version go with every command */
	CU_ASSERT(cli_accepts(CMD_DEVICES, "help") && cli_accepts(CMD_SHOW, "version"));
	CU_ASSERT(!cli_accepts(CMD_SHOW, "nosuch"));
}

int add_cli_suite(void)
{
	CU_pSuite s = CU_add_suite("cli", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "help goes to stdout with status 0", test_help_goes_to_stdout_with_status_0);
	CU_add_test(s, "usage errors exit 2", test_usage_errors_exit_2);
	CU_add_test(s, "options land in their fields", test_options_land_in_their_fields);
	CU_add_test(s, "subcommands take their operands", test_subcommands_take_their_operands);
	CU_add_test(s, "the forms of help", test_the_forms_of_help);
	CU_add_test(s, "bad values name the option", test_bad_values_name_the_option);
	CU_add_test(s, "a mistyped command is named", test_a_mistyped_command_is_named);
	CU_add_test(s, "options of one command stay with it", test_options_of_one_command_stay_with_it);
	CU_add_test(s, "each command accepts exactly its options", test_each_command_accepts_exactly_its_options);
	return 0;
}
