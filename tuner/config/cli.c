/* cli.c: the command line: one table of options and one of commands, read alike by the parser
 * (getopt_long), each command's check of its options and operands, and every --help. */
#define _GNU_SOURCE
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "occupancy.h"
#include "banned.h"

/* Every option, once: its long name, its short letter (or a number past 255), the name of its
 * value in the help (NULL: it takes none) and its line in the general help. A command accepts
 * the options its row of `commands` lists, and -h/--help and --version, which every command
 * accepts; getopt_long's table and the help are made from these. */
enum {
	OPT_FRESH = 256, OPT_RETRY, OPT_CACHE_DIR, OPT_NO_CACHE, OPT_REPLAY, OPT_PRIOR, OPT_STRATEGY, OPT_BUDGET, OPT_SEED,
	OPT_DEVICES, OPT_SHARD, OPT_TOP, OPT_SORT, OPT_PARAMS, OPT_SPEC_HASH, OPT_INSTANCES, OPT_T4, OPT_CONFIG, OPT_VERSION,
	OPT_KEEP_GOING, OPT_BASELINE,
};
typedef struct {
	const char *name;
	int val;
	const char *arg;
	const char *help;
} cli_option;

static const cli_option cli_options[] = {
	{"dry-run", 'n', NULL, "compile and compute occupancy only; no GPU (needs --arch)"},
	{"arch", 'a', "sm_XY", "target (default: kernel.arch, else the GPU's)"},
	{"jobs", 'j', "N", "parallel nvcc processes (default: number of cores)"},
	{"device", 'd', "N", "the GPU to tune on (default: every visible GPU)"},
	{"devices", OPT_DEVICES, "L", "GPUs to tune on, e.g. 0,1 (default: CUDA_VISIBLE_DEVICES)"},
	{"shard", OPT_SHARD, "I/N", "measure only shard I of N (0-based); join with merge"},
	{"metrics", 'm', "M", "hardware counters: auto, all, none or top:K"},
	{"fresh", OPT_FRESH, NULL, "ignore the journal and measure everything again"},
	{"retry-failed", OPT_RETRY, NULL, "measure crashed and timed-out configurations again"},
	{"keep-going", OPT_KEEP_GOING, NULL, "compile all even when the first binaries fail alike"},
	{"strategy", OPT_STRATEGY, "S", "exhaustive, random, local, anneal, genetic or model"},
	{"budget", OPT_BUDGET, "B", "at most N configs, N% of the space or a time (Ns, Nm, Nh)"},
	{"seed", OPT_SEED, "N", "the search's seed"},
	{"replay", OPT_REPLAY, "F", "search a recorded run (CSV, T4, Kernel Tuner cache)"},
	{"prior", OPT_PRIOR, "F", "+rank by another GPU's run"},
	{"t4", OPT_T4, NULL, "also write the results as T4 JSON (NAME.t4.json)"},
	{"cache-dir", OPT_CACHE_DIR, "D", "cubin cache (default ${XDG_CACHE_HOME:-~/.cache}/autotune)"},
	{"no-cache", OPT_NO_CACHE, NULL, "compile everything, keep nothing"},
	{"quiet", 'q', NULL, "no progress or summary"},
	{"output", 'o', "FILE", "where to write"},
	{"top", OPT_TOP, "N", "only the fastest N rows"},
	{"sort", OPT_SORT, "COLUMN", "sort by COLUMN"},
	{"baseline", OPT_BASELINE, "CONFIG", "speedup against CONFIG, e.g. \"bx=128 by=8\""},
	{"params", OPT_PARAMS, "X,Y", "the heat map's two parameters"},
	{"print-spec-hash", OPT_SPEC_HASH, NULL, "print the hash a tuned header records"},
	{"print-instances", OPT_INSTANCES, NULL, "print the problems a config tunes, one a line"},
	{"config", OPT_CONFIG, "CONFIG.yaml", "the config of results that name none"},
	{"help", 'h', NULL, NULL},
	{"version", OPT_VERSION, NULL, NULL},
};
enum { NOPTIONS = sizeof cli_options / sizeof *cli_options };

/* One of a command's options, with the name of its value where the command names it apart
 * ("-o TUNED.h"). */
typedef struct {
	int val;
	const char *arg;
} cli_takes;

/* One command: its operands (how many, and how the usage line and a wrong count name them), its
 * options in the order its usage line gives them, and the rest of its help. Each help fits a
 * terminal, 80 columns by 24 lines (tests/test_help.c checks): more is in the man page. The exit
 * lines repeat cli.h's statuses in the same words as README.md and autotune.1. */
typedef struct {
	const char *name;
	const char *operands;
	int min, max;
	const char *count; /* "one results CSV": said when the count is wrong */
	cli_takes opts[20];
	const char *text;
} cli_command;

static const cli_command commands[CMD_COUNT_] = {
	[CMD_TUNE] = {"tune", "CONFIG.yaml", 1, 1, "one config file",
		{{'n'}, {'a'}, {'j'}, {'d'}, {OPT_DEVICES}, {OPT_SHARD}, {'m'}, {OPT_FRESH}, {OPT_RETRY}, {OPT_KEEP_GOING},
		 {OPT_STRATEGY}, {OPT_BUDGET}, {OPT_SEED}, {OPT_PRIOR}, {OPT_REPLAY}, {OPT_T4}, {OPT_CACHE_DIR}, {OPT_NO_CACHE}, {'q'}},
		"exit: 0 winner written, 1 none passed, 2 bad input, 3 GPU worker lost or out of\n"
		"      memory, 4 unwritten (journal), 130 interrupted, 143 SIGTERM. man autotune\n"},
	[CMD_VALIDATE] = {"validate", "CONFIG.yaml [MORE.yaml ...]", 1, 4096, "one file",
		{{OPT_SPEC_HASH}, {OPT_INSTANCES}},
		"Checks each CONFIG (keys, expressions, constraints) and prints the size of\n"
		"its space; needs no GPU and no nvcc. Exit 0 all valid, 2 any invalid\n"
		"(file:line:col). --print-spec-hash prints only the hash of CONFIG and its\n"
		"kernel source that a tuned header records (NAME_SPEC_HASH): a build\n"
		"compares them (several configs: one \"HASH  CONFIG\" line each).\n"
		"--print-instances prints only the problems of CONFIG's instances, one a\n"
		"line (\"nx=1024 ny=1024\"; none without instances; several configs:\n"
		"\"PROBLEM  CONFIG\"): a build counts the variants a header may have.\n"},
	[CMD_IMPORT] = {"import", "SPEC.json", 1, 1, "one file", {{'o', "OUT.yaml"}, {'q'}},
		"Turns a Kernel Tuner/KTT T1 spec into an autotune config (default OUT:\n"
		"SPEC.yaml beside it). Keys outside T1 are read past, listed in one note.\n"
		"Exit 0 written, 2 bad input (not T1, not CUDA: one line).\n"},
	[CMD_HEADER] = {"header", "RESULTS [MORE ...]", 1, 4096, "one or more results files",
		{{'o', "TUNED.h"}, {OPT_CONFIG}},
		"Writes the tuned header and make fragment (NAME_tuned.h -> NAME.mk) from\n"
		"results (default: the config's output.header). Several from different\n"
		"GPUs give one section per GPU, chosen by -DAUTOTUNE_TARGET_<GPU>, and a\n"
		"default for others: the best on average.\n"
		"RESULTS are CSVs, T4 files or Kernel Tuner cache files; --config names the\n"
		"config of those that do not name theirs (autotune's CSV and T4 do).\n"
		"exit: 0 written, 1 no winner, 2 bad input\n"},
	[CMD_REPORT] = {"report", "RESULTS.csv", 1, 1, "one results CSV", {{'o', "REPORT.html"}, {OPT_PARAMS}, {'q'}},
		"Writes a self-contained HTML report (inline SVG, no network).\n"
		"exit: 0 written, 2 bad input\n"},
	[CMD_SHOW] = {"show", "RESULTS.csv", 1, 1, "one results CSV", {{OPT_TOP}, {OPT_SORT}, {OPT_BASELINE}},
		"Prints the results as a table on the terminal, fastest first, the winner\n"
		"marked *. Results of several problem sizes (instances) come instance by\n"
		"instance, each one's winner marked; --top N counts per instance.\n"
		"--sort COLUMN sorts by any column of the CSV (-COLUMN: descending) and\n"
		"shows it; --baseline CONFIG adds the speedup of each row over CONFIG (the\n"
		"configuration you shipped), per instance, and the winner's against it.\n"
		"examples:\n"
		"  autotune show results/summatrix.csv --top 10\n"
		"  autotune show results/summatrix.csv --sort -registers\n"
		"  autotune show results/summatrix.csv \\\n"
		"      --baseline \"block_x=32 block_y=16 maxrreg=0\"\n"
		"exit: 0 shown, 2 bad input\n"},
	[CMD_DEVICES] = {"devices", "", 0, 0, "no operands", {{0}},
		"Lists the GPUs: compute capability, SMs, memory, L2, copy bandwidth.\n"
		"exit: 0 listed, 2 no GPU or no driver\n"},
	[CMD_MERGE] = {"merge", "CONFIG.yaml SHARD.csv [SHARD.csv ...]", 2, 4096, "a config and the shard CSVs",
		{{OPT_T4}, {'q'}},
		"Joins the CSVs of `autotune --shard I/N CONFIG.yaml` runs into the config's\n"
		"results CSV and header, as one run would have written them (--t4: and the\n"
		"T4 file, NAME.t4.json).\n"
		"exit: 0 winner written, 1 none passed, 2 bad input\n"},
	[CMD_CHECK] = {"check", "PROGRAM|OBJECT|CUBIN [RESULTS.csv ...]", 1, 4096, "a binary and results CSVs", {{0}},
		"Finds each winner of RESULTS (default: results/*.csv) in a built program,\n"
		"object file, fatbinary or cubin by the hash of its own code, whatever the\n"
		"kernel is called there, and says \"tuned\" or what differs: the targets,\n"
		"the register cap, the flags a binary does not record (-use_fast_math).\n"
		"Line info (-lineinfo) and other kernels in the file make no difference.\n"
		"exit: 0 tuned, 1 differs (or not there), 2 bad input\n"},
};

const char *cli_command_name(command cmd) { return cmd < CMD_COUNT_ ? commands[cmd].name : "help"; }

static const cli_option *option_of(int val)
{
	for (size_t i = 0; i < NOPTIONS; i++)
		if (cli_options[i].val == val)
			return &cli_options[i];
	return NULL;
}

/* "-o" or "--top": how the usage line names an option. */
static void option_flag(const cli_option *op, char *buf, size_t len)
{
	if (op->val < 256)
		snprintf(buf, len, "-%c", op->val);
	else
		snprintf(buf, len, "--%s", op->name);
}

/* "[-o TUNED.h]": one of cmd's options as its usage line gives it, on a line of its own (indented
 * under the command) where it would make the line wider than 80 columns; *col is the column. */
static void put_takes(FILE *f, const cli_takes *t, int *col)
{
	const cli_option *op = option_of(t->val);
	char flag[64], item[128];
	option_flag(op, flag, sizeof flag);
	const char *arg = t->arg ? t->arg : op->arg;
	int len = snprintf(item, sizeof item, "[%s%s%s]", flag, arg ? " " : "", arg ? arg : "");
	if (*col + 1 + len > 80)
		*col = fprintf(f, "\n%*s", (int)strlen("usage: autotune"), "") - 1;
	*col += fprintf(f, " %s", item);
}

/* The general help: the usage, the commands, tune's options a line each (the global -h and
 * --version share the last line, and an option whose help starts with '+' the line of the one
 * before it, to fit 24 lines), the statuses. */
static void put_general_help(FILE *f)
{
	fputs("usage: autotune [tune] [options] CONFIG.yaml   tune the kernel CONFIG describes\n"
	      "       autotune COMMAND ...                    autotune help COMMAND for more\n"
	      "commands:", f);
	for (int k = CMD_TUNE; k < CMD_COUNT_; k++)
		fprintf(f, "%s %s", k == CMD_TUNE ? "" : ",", commands[k].name);
	fputs("\noptions:\n", f);
	const cli_command *c = &commands[CMD_TUNE];
	for (const cli_takes *t = c->opts; t->val; t++) {
		const cli_option *op = option_of(t->val), *next = t[1].val ? option_of(t[1].val) : NULL;
		if (*op->help == '+')
			continue; /* on the line before */
		char left[64], letter[8] = "    ", also[96] = "";
		if (op->val < 256)
			snprintf(letter, sizeof letter, "-%c, ", op->val);
		snprintf(left, sizeof left, "%s--%s%s%s", letter, op->name, op->arg ? " " : "", op->arg ? op->arg : "");
		if (next && *next->help == '+')
			snprintf(also, sizeof also, "   --%s %s  %s", next->name, next->arg, next->help + 1);
		fprintf(f, "  %-18s %s%s%s\n", left, op->help, also, t[1].val ? "" : "   -h, --help   --version");
	}
	fputs(c->text, f);
}

void cli_help(command cmd, FILE *f)
{
	if (cmd >= CMD_COUNT_ || cmd == CMD_TUNE) {
		put_general_help(f);
		return;
	}
	const cli_command *c = &commands[cmd];
	int col = fprintf(f, "usage: autotune %s%s%s", c->name, *c->operands ? " " : "", c->operands);
	for (const cli_takes *t = c->opts; t->val; t++)
		put_takes(f, t, &col);
	fputc('\n', f);
	fputs(c->text, f);
}

void cli_usage(command cmd) { cli_help(cmd, stdout); }

const char *cli_option_name(size_t i) { return i < NOPTIONS ? cli_options[i].name : NULL; }

int cli_option_takes_value(size_t i) { return i < NOPTIONS && cli_options[i].arg; }

int cli_option_letter(size_t i) { return i < NOPTIONS && cli_options[i].val < 256 ? cli_options[i].val : 0; }

int cli_accepts(command cmd, const char *name)
{
	const cli_option *op = NULL;
	for (size_t i = 0; i < NOPTIONS && !op; i++)
		if (!strcmp(cli_options[i].name, name))
			op = &cli_options[i];
	if (!op || cmd >= CMD_COUNT_)
		return 0;
	if (op->val == 'h' || op->val == OPT_VERSION)
		return 1;
	for (const cli_takes *t = commands[cmd].opts; t->val; t++)
		if (t->val == op->val)
			return 1;
	return 0;
}

/* `tune` may be named too, for symmetry; a config file of that name is still reachable as ./tune */
static int find_command(const char *word)
{
	for (int k = CMD_TUNE; k < CMD_COUNT_; k++)
		if (!strcmp(word, commands[k].name))
			return k;
	return -1;
}

/* The commands and the nearest to word where it looks like a slip of one. */
static void unknown_command(const char *word)
{
	const char *names[CMD_COUNT_ + 2];
	for (int k = CMD_TUNE; k < CMD_COUNT_; k++)
		names[k] = commands[k].name;
	names[CMD_COUNT_] = "help";
	names[CMD_COUNT_ + 1] = NULL;
	const char *near = nearest_name(word, names);
	fprintf(stderr, "autotune: '%s' is not a command (nor a file)", word);
	if (near)
		fprintf(stderr, "; did you mean '%s'?", near);
	fputs("\n  commands:", stderr);
	for (int k = CMD_TUNE; k < CMD_COUNT_; k++)
		fprintf(stderr, "%s %s", k == CMD_TUNE ? "" : ",", commands[k].name);
	fputc('\n', stderr);
}

static int parse_count(const char *opt, const char *s, int lo, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (end == s || *end || v < lo || v > 4096) {
		fprintf(stderr, "autotune: %s needs a whole number from %d to 4096, not '%s'\n", opt, lo, s);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* --shard I/N with 0 <= I < N */
static int parse_shard(const char *s, options *o)
{
	char *end, *end2;
	long i = strtol(s, &end, 10), n = *end == '/' ? strtol(end + 1, &end2, 10) : 0;
	if (end == s || *end != '/' || end2 == end + 1 || *end2 || n < 1 || n > 4096 || i < 0 || i >= n) {
		fprintf(stderr, "autotune: --shard needs I/N with 0 <= I < N, not '%s'\n", s);
		return -1;
	}
	o->shard = (int)i;
	o->nshards = (int)n;
	return 0;
}

/* The range search.seed takes in a config: strtoull would take "-1" as 2^64 - 1. */
static int parse_seed(const char *s, options *o)
{
	char *end;
	errno = 0;
	o->seed = strtoull(s, &end, 10);
	o->seed_given = 1;
	if (*s < '0' || *s > '9' || *end || errno == ERANGE || o->seed > (unsigned long long)LLONG_MAX) {
		fprintf(stderr, "autotune: --seed needs a whole number from 0 to %lld, not '%s'\n", LLONG_MAX, s);
		return -1;
	}
	return 0;
}

/* getopt_long's tables, made from cli_options once. */
static struct option longopts[NOPTIONS + 1];
static char shortopts[2 * NOPTIONS + 1];

static void make_getopt_tables(void)
{
	if (longopts[0].name)
		return;
	size_t n = 0;
	for (size_t i = 0; i < NOPTIONS; i++) {
		const cli_option *op = &cli_options[i];
		longopts[i] = (struct option){op->name, op->arg ? required_argument : no_argument, NULL, op->val};
		if (op->val < 256) {
			shortopts[n++] = (char)op->val;
			if (op->arg)
				shortopts[n++] = ':';
		}
	}
}

/* "--NAME" for an unknown NAME, with the nearest option's name where it is a slip. */
static void unknown_long(const char *name, size_t len)
{
	const char *names[sizeof longopts / sizeof *longopts];
	for (size_t i = 0; i < sizeof longopts / sizeof *longopts; i++)
		names[i] = longopts[i].name;
	char *word = xasprintf("%.*s", (int)len, name);
	const char *near = nearest_name(word, names);
	if (near)
		fprintf(stderr, "autotune: option '--%s' is unknown; did you mean '--%s'? (see --help)\n", word, near);
	else
		fprintf(stderr, "autotune: option '--%s' is unknown (see --help)\n", word);
	free(word);
}

/* Why getopt_long refused an option, which it tells only as '?'. A long option takes its whole
 * word, so argv[optind - 1] is that word; optopt is 0 when no long option matched, else the val
 * of the one that did. A short option's trouble (optopt, in a word perhaps not yet passed) is
 * optopt alone. */
static void bad_option(char **argv)
{
	const char *word = argv[optind - 1];
	const char *name = !strncmp(word, "--", 2) ? word + 2 : NULL;
	size_t len = name ? strcspn(name, "=") : 0, matches = 0;
	const struct option *hit = NULL;
	for (const struct option *lo = longopts; name && lo->name; lo++)
		if (!strncmp(lo->name, name, len) && !(hit && strlen(hit->name) == len)) {
			hit = lo;
			matches = strlen(lo->name) == len ? 1 : matches + 1;
		}
	if (hit && optopt && hit->val == optopt)
		fprintf(stderr, "autotune: option '--%s' %s (see --help)\n", hit->name,
			hit->has_arg == no_argument ? "takes no value" : "needs a value");
	else if (name && !optopt && matches > 1) {
		fprintf(stderr, "autotune: option '--%.*s' is ambiguous:", (int)len, name);
		const char *sep = " ";
		for (const struct option *lo = longopts; lo->name; lo++)
			if (!strncmp(lo->name, name, len)) {
				fprintf(stderr, "%s--%s", sep, lo->name);
				sep = ", ";
			}
		fputs(" (see --help)\n", stderr);
	} else if (name && !optopt)
		unknown_long(name, len);
	else
		fprintf(stderr, "autotune: option '-%c' %s (see --help)\n", optopt,
			strchr(shortopts, optopt) && strchr(shortopts, optopt)[1] == ':' ? "needs a value" : "is unknown");
}

/* Checked here, not once a GPU is open: the target is known from the command line alone. */
static int parse_arch(const char *s, options *o)
{
	if (arch_parse(s) < 0) {
		fprintf(stderr, "autotune: --arch needs an architecture like sm_90 or sm_100, not '%s'\n", s);
		return -1;
	}
	o->arch = s;
	return 0;
}

/* One option's value into o: 0, or -1 when it is refused (said on stderr). */
static int take_option(int c, const char *arg, options *o)
{
	switch (c) {
	case 'n': o->dry_run = 1; break;
	case 'a': return parse_arch(arg, o);
	case 'j': return parse_count("--jobs", arg, 1, &o->jobs);
	case 'd': return parse_count("--device", arg, 0, &o->device);
	case 'q': o->quiet = 1; break;
	case 'm': o->metrics = arg; break;
	case 'o': o->output = arg; break;
	case OPT_FRESH: o->fresh = 1; break;
	case OPT_RETRY: o->retry_failed = 1; break;
	case OPT_KEEP_GOING: o->keep_going = 1; break;
	case OPT_CACHE_DIR: o->cache_dir = arg; break;
	case OPT_NO_CACHE: o->no_cache = 1; break;
	case OPT_REPLAY: o->replay = arg; break;
	case OPT_PRIOR: o->prior = arg; break;
	case OPT_STRATEGY: o->strategy = arg; break;
	case OPT_BUDGET: o->budget = arg; break;
	case OPT_DEVICES: o->devices = arg; break;
	case OPT_SHARD: return parse_shard(arg, o);
	case OPT_TOP: return parse_count("--top", arg, 1, &o->top);
	case OPT_SORT: o->sort = arg; break;
	case OPT_BASELINE: o->baseline = arg; break;
	case OPT_PARAMS: o->params = arg; break;
	case OPT_SPEC_HASH: o->print_spec_hash = 1; break;
	case OPT_INSTANCES: o->print_instances = 1; break;
	case OPT_T4: o->t4 = 1; break;
	case OPT_CONFIG: o->results_config = arg; break;
	case OPT_SEED: return parse_seed(arg, o);
	default: break;
	}
	return 0;
}

/* The options into o, each one given numbered in seen (by its index in cli_options: the first
 * given 1, the next 2 ...), -h into
 * *help; optind is left at the first operand. Which command the options go with is known only
 * after them (they may come first): check_options tells. -1 on a usage error (said on stderr),
 * 1 when nothing more is to be parsed (--version), else 0. */
static int parse_options(int argc, char **argv, options *o, int *help, int *seen)
{
	int c, given = 0;
	make_getopt_tables();
	opterr = 0;
	/* 0, not 1: glibc then also forgets a group of short options left half read ("-xq") */
	optind = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const cli_option *op = option_of(c);
		if (!op || c == '?' || c == ':') {
			bad_option(argv);
			return -1;
		}
		if (!seen[op - cli_options])
			seen[op - cli_options] = ++given;
		if (c == 'h')
			*help = 1;
		else if (c == OPT_VERSION) {
			o->cmd = CMD_VERSION;
			return 1;
		} else if (take_option(c, optarg, o))
			return -1;
	}
	return 0;
}

/* Every option given is one of the command's: the first that is not is refused, naming the
 * commands that take it. */
static int check_options(command cmd, const int *seen)
{
	size_t i = NOPTIONS;
	for (size_t k = 0; k < NOPTIONS; k++)
		if (seen[k] && !cli_accepts(cmd, cli_options[k].name) && (i == NOPTIONS || seen[k] < seen[i]))
			i = k;
	if (i == NOPTIONS)
		return 0;
	char flag[64] = "";
	if (cli_options[i].val < 256)
		snprintf(flag, sizeof flag, "-%c/", cli_options[i].val);
	fprintf(stderr, "autotune %s: %s--%s is not an option of %s (it goes with", commands[cmd].name, flag,
		cli_options[i].name, commands[cmd].name);
	const char *sep = " ";
	for (int k = CMD_TUNE; k < CMD_COUNT_; k++)
		if (cli_accepts((command)k, cli_options[i].name)) {
			fprintf(stderr, "%s%s", sep, commands[k].name);
			sep = ", ";
		}
	fprintf(stderr, "; see autotune %s --help)\n", commands[cmd].name);
	return -1;
}

/* How many operands the command takes; too few or too many is a usage error. */
static int check_operands(const options *o, int rest)
{
	const cli_command *c = &commands[o->cmd];
	if (rest >= c->min && rest <= c->max)
		return 0;
	if (o->cmd == CMD_TUNE)
		fprintf(stderr, rest ? "autotune: give one config file, not %d (see --help)\n"
				     : "autotune: no config file given (see --help)\n", rest);
	else
		fprintf(stderr, "autotune %s: takes %s, not %d operand%s (see autotune %s --help)\n", c->name, c->count, rest,
			rest == 1 ? "" : "s", c->name);
	return -1;
}

int cli_parse(int argc, char **argv, options *o)
{
	memset(o, 0, sizeof *o);
	o->device = -1;
	int seen[NOPTIONS] = {0};
	int help = 0, rc = parse_options(argc, argv, o, &help, seen);
	if (rc)
		return rc < 0 ? -1 : 0;
	int rest = argc - optind;
	char **args = argv + optind;
	o->cmd = CMD_TUNE;
	/* `autotune help [COMMAND]` as well as `autotune [COMMAND] --help` */
	int help_word = rest >= 1 && rest <= 2 && !strcmp(args[0], "help");
	if (help_word) {
		help = 1;
		args++;
		rest--;
		/* `autotune help help`: the general help, which says how to ask about a command */
		if (rest == 1 && !strcmp(args[0], "help"))
			rest = 0;
	}
	int k = rest >= 1 ? find_command(args[0]) : -1;
	if (k >= 0) {
		o->cmd = (command)k;
		args++;
		rest--;
	} else if (help_word && rest) {
		unknown_command(args[0]);
		return -1;
	}
	if (help) {
		o->help_for = o->cmd;
		o->cmd = CMD_HELP;
		return 0;
	}
	/* a mistyped command would otherwise read as a config file that is missing, or as one of
	 * too many (`autotune shwo x.csv`); a config is a file, or has a path or an extension */
	if (k < 0 && rest >= 1 && !strpbrk(args[0], "./") && access(args[0], F_OK) != 0) {
		unknown_command(args[0]);
		return -1;
	}
	if (check_options(o->cmd, seen) || check_operands(o, rest))
		return -1;
	if (o->print_spec_hash && o->print_instances) {
		fputs("autotune validate: --print-spec-hash and --print-instances print one thing each: give one\n", stderr);
		return -1;
	}
	o->inputs = args;
	o->ninputs = rest;
	o->config = rest ? args[0] : NULL;
	return 0;
}
