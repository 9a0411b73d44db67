/* cli.c: argument parsing (getopt_long) and the help text of every subcommand. */
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

static const char *const command_names[CMD_COUNT_] = {
	"tune", "validate", "import", "header", "report", "show", "devices", "merge",
};

const char *cli_command_name(command cmd) { return cmd < CMD_COUNT_ ? command_names[cmd] : "help"; }

/* Each fits a terminal, 80 columns by 24 lines (tests/test_help.c checks): more is in the man
 * page. The exit lines repeat cli.h's statuses in the same words as README.md and autotune.1. */
static const char *const help_texts[CMD_COUNT_] = {
	[CMD_TUNE] =
	"usage: autotune [tune] [options] CONFIG.yaml   tune the kernel CONFIG describes\n"
	"       autotune COMMAND ...                    autotune help COMMAND for more\n"
	"commands: tune, validate, import, header, report, show, devices, merge\n"
	"options:\n"
	"  -n, --dry-run      compile and compute occupancy only; no GPU (needs --arch)\n"
	"  -a, --arch sm_XY   target (default: kernel.arch, else the GPU's)\n"
	"  -j, --jobs N       parallel nvcc processes (default: number of cores)\n"
	"  -d, --device N     the GPU to tune on (default: every visible GPU)\n"
	"      --devices L    GPUs to tune on, e.g. 0,1 (default: CUDA_VISIBLE_DEVICES)\n"
	"      --shard I/N    measure only shard I of N (0-based); join with merge\n"
	"  -m, --metrics M    hardware counters: auto, all, none or top:K\n"
	"      --fresh        ignore the journal and measure everything again\n"
	"      --retry-failed measure crashed and timed-out configurations again\n"
	"      --strategy S   exhaustive, random, local, anneal, genetic or model\n"
	"      --budget B     at most N configurations, N% of the space, or Ns seconds\n"
	"      --seed N       the search's seed\n"
	"      --replay F     search a recorded run (CSV, T4, Kernel Tuner cache)\n"
	"      --t4           also write the results as T4 JSON (NAME.t4.json)\n"
	"      --cache-dir D  cubin cache (default ${XDG_CACHE_HOME:-~/.cache}/autotune)\n"
	"      --no-cache     compile everything, keep nothing\n"
	"  -q, --quiet        no progress or summary   -h, --help   --version\n"
	"exit: 0 winner written, 1 none passed, 2 bad input, 3 GPU worker lost or out\n"
	"      of memory, 4 measured but unwritten (in the journal), 130 interrupted,\n"
	"      143 SIGTERM (results so far kept). More: man autotune\n",
	[CMD_VALIDATE] =
	"usage: autotune validate [--print-spec-hash] CONFIG.yaml [MORE.yaml ...]\n"
	"Checks each CONFIG (keys, expressions, constraints) and prints the size of\n"
	"its space; needs no GPU and no nvcc. Exit 0 all valid, 2 any invalid\n"
	"(file:line:col). --print-spec-hash prints only the hash of CONFIG and its\n"
	"kernel source that a tuned header records (NAME_SPEC_HASH): a build\n"
	"compares them (several configs: one \"HASH  CONFIG\" line each).\n",
	[CMD_IMPORT] =
	"usage: autotune import SPEC.json [-o OUT.yaml]\n"
	"Turns a Kernel Tuner/KTT T1 spec into an autotune config (default OUT:\n"
	"SPEC.yaml beside it). Keys outside T1 are read past, listed in one note.\n"
	"Exit 0 written, 2 bad input (not T1, not CUDA: one line).\n",
	[CMD_HEADER] =
	"usage: autotune header RESULTS [MORE ...] [-o TUNED.h] [--config CONFIG.yaml]\n"
	"Writes the tuned header and make fragment (NAME_tuned.h -> NAME.mk) from\n"
	"results (default: the config's output.header). Several from different\n"
	"GPUs give one section per GPU, chosen by -DAUTOTUNE_TARGET_<GPU>, and a\n"
	"default for others: the best on average.\n"
	"RESULTS are CSVs, T4 files or Kernel Tuner cache files; --config names the\n"
	"config of those that do not name theirs (autotune's CSV and T4 do).\n"
	"exit: 0 written, 1 no winner, 2 bad input\n",
	[CMD_REPORT] =
	"usage: autotune report RESULTS.csv [-o REPORT.html] [--params X,Y]\n"
	"Writes a self-contained HTML report (inline SVG, no network).\n"
	"exit: 0 written, 2 bad input\n",
	[CMD_SHOW] =
	"usage: autotune show RESULTS.csv [--top N] [--sort COLUMN]\n"
	"Prints the results as a table on the terminal.\n"
	"exit: 0 shown, 2 bad input\n",
	[CMD_DEVICES] =
	"usage: autotune devices\n"
	"Lists the GPUs: compute capability, SMs, memory, L2, copy bandwidth.\n"
	"exit: 0 listed, 2 no GPU or no driver\n",
	[CMD_MERGE] =
	"usage: autotune merge CONFIG.yaml SHARD.csv [SHARD.csv ...] [--t4]\n"
	"Joins the CSVs of `autotune --shard I/N CONFIG.yaml` runs into the config's\n"
	"results CSV and header, as one run would have written them (--t4: and the\n"
	"T4 file, NAME.t4.json).\n"
	"exit: 0 winner written, 1 none passed, 2 bad input\n",
};

void cli_usage(command cmd) { fputs(help_texts[cmd < CMD_COUNT_ ? cmd : CMD_TUNE], stdout); }

/* `tune` may be named too, for symmetry; a config file of that name is still reachable as ./tune */
static int find_command(const char *word)
{
	for (int k = CMD_TUNE; k < CMD_COUNT_; k++)
		if (!strcmp(word, command_names[k]))
			return k;
	return -1;
}

/* The commands and the nearest to word where it looks like a slip of one. */
static void unknown_command(const char *word)
{
	const char *names[CMD_COUNT_ + 2];
	for (int k = CMD_TUNE; k < CMD_COUNT_; k++)
		names[k] = command_names[k];
	names[CMD_COUNT_] = "help";
	names[CMD_COUNT_ + 1] = NULL;
	const char *near = nearest_name(word, names);
	fprintf(stderr, "autotune: '%s' is not a command (nor a file)", word);
	if (near)
		fprintf(stderr, "; did you mean '%s'?", near);
	fputs("\n  commands:", stderr);
	for (int k = CMD_TUNE; k < CMD_COUNT_; k++)
		fprintf(stderr, "%s %s", k == CMD_TUNE ? "" : ",", command_names[k]);
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

static const struct option longopts[] = {
	{"dry-run", no_argument, NULL, 'n'}, {"arch", required_argument, NULL, 'a'},
	{"jobs", required_argument, NULL, 'j'}, {"device", required_argument, NULL, 'd'},
	{"quiet", no_argument, NULL, 'q'}, {"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'}, {"metrics", required_argument, NULL, 'm'},
	{"fresh", no_argument, NULL, 'F'}, {"retry-failed", no_argument, NULL, 'R'},
	{"cache-dir", required_argument, NULL, 'C'}, {"no-cache", no_argument, NULL, 'N'},
	{"output", required_argument, NULL, 'o'}, {"replay", required_argument, NULL, 'P'},
	{"strategy", required_argument, NULL, 'S'}, {"budget", required_argument, NULL, 'B'},
	{"seed", required_argument, NULL, 's'}, {"devices", required_argument, NULL, 'D'},
	{"shard", required_argument, NULL, 'H'}, {"top", required_argument, NULL, 'T'},
	{"sort", required_argument, NULL, 'O'}, {"params", required_argument, NULL, 'X'},
	{"print-spec-hash", no_argument, NULL, 'Y'}, {"t4", no_argument, NULL, '4'},
	{"config", required_argument, NULL, 'G'},
	{NULL, 0, NULL, 0},
};
static const char shortopts[] = "na:j:d:qm:o:h";

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

/* The options into o, and -h into *help; optind is left at the first operand. -1 on a usage
 * error (said on stderr), 1 when nothing more is to be parsed (--version), else 0. */
static int parse_options(int argc, char **argv, options *o, int *help)
{
	int c;
	opterr = 0;
	/* 0, not 1: glibc then also forgets a group of short options left half read ("-xq") */
	optind = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'n': o->dry_run = 1; break;
		case 'a': if (parse_arch(optarg, o)) return -1; break;
		case 'j': if (parse_count("--jobs", optarg, 1, &o->jobs)) return -1; break;
		case 'd': if (parse_count("--device", optarg, 0, &o->device)) return -1; break;
		case 'q': o->quiet = 1; break;
		case 'm': o->metrics = optarg; break;
		case 'F': o->fresh = 1; break;
		case 'R': o->retry_failed = 1; break;
		case 'C': o->cache_dir = optarg; break;
		case 'N': o->no_cache = 1; break;
		case 'o': o->output = optarg; break;
		case 'P': o->replay = optarg; break;
		case 'S': o->strategy = optarg; break;
		case 'B': o->budget = optarg; break;
		case 'D': o->devices = optarg; break;
		case 'H': if (parse_shard(optarg, o)) return -1; break;
		case 'T': if (parse_count("--top", optarg, 1, &o->top)) return -1; break;
		case 'O': o->sort = optarg; break;
		case 'X': o->params = optarg; break;
		case 'Y': o->print_spec_hash = 1; break;
		case '4': o->t4 = 1; break;
		case 'G': o->results_config = optarg; break;
		case 's': if (parse_seed(optarg, o)) return -1; break;
		case 'h': *help = 1; break;
		case 'V': o->cmd = CMD_VERSION; return 1;
		default:
			bad_option(argv);
			return -1;
		}
	}
	return 0;
}

/* How many operands the command takes; too few or too many is a usage error, as is an option
 * of another command. */
static int check_operands(const options *o, int rest)
{
	int min = o->cmd == CMD_DEVICES ? 0 : 1;
	int max = o->cmd == CMD_HEADER || o->cmd == CMD_MERGE || o->cmd == CMD_VALIDATE ? 4096
		  : o->cmd == CMD_DEVICES                                     ? 0
									      : 1;
	if (o->cmd == CMD_MERGE)
		min = 2;
	if (rest < min || rest > max) {
		if (o->cmd == CMD_TUNE)
			fprintf(stderr, rest ? "autotune: give one config file, not %d (see --help)\n"
					     : "autotune: no config file given (see --help)\n", rest);
		else
			fprintf(stderr, "autotune %s: takes %s, not %d operand%s (see autotune %s --help)\n",
				command_names[o->cmd],
				o->cmd == CMD_DEVICES ? "no operands"
				: o->cmd == CMD_MERGE ? "a config and the shard CSVs"
				: o->cmd == CMD_HEADER ? "one or more results files"
				: o->cmd == CMD_REPORT || o->cmd == CMD_SHOW ? "one results CSV"
									     : "one file",
				rest, rest == 1 ? "" : "s", command_names[o->cmd]);
		return -1;
	}
	if (o->print_spec_hash && o->cmd != CMD_VALIDATE) {
		fputs("autotune: --print-spec-hash goes with validate (see autotune validate --help)\n", stderr);
		return -1;
	}
	if ((o->t4 && o->cmd != CMD_TUNE && o->cmd != CMD_MERGE) || (o->results_config && o->cmd != CMD_HEADER)) {
		fprintf(stderr, "autotune: %s goes with %s (see autotune %s --help)\n", o->t4 ? "--t4" : "--config",
			o->t4 ? "tuning or merge" : "header", o->t4 ? "tune" : "header");
		return -1;
	}
	return 0;
}

int cli_parse(int argc, char **argv, options *o)
{
	memset(o, 0, sizeof *o);
	o->device = -1;
	int help = 0, rc = parse_options(argc, argv, o, &help);
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
	if (check_operands(o, rest))
		return -1;
	o->inputs = args;
	o->ninputs = rest;
	o->config = rest ? args[0] : NULL;
	return 0;
}
