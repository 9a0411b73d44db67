/* cli.c: argument parsing (getopt_long) and the help text. */
#define _GNU_SOURCE
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

void cli_usage(void)
{
	fputs("usage: autotune [options] CONFIG.yaml      tune the kernel described by CONFIG\n"
	      "       autotune validate CONFIG.yaml       check CONFIG and print its space, no GPU or nvcc\n"
	      "       autotune import SPEC.json [-o OUT]  turn a Kernel Tuner/KTT T1 spec into a config\n"
	      "                                           (default OUT: SPEC.yaml beside it)\n"
	      "\n"
	      "options:\n"
	      "  -n, --dry-run      enumerate, compile and compute theoretical occupancy; no GPU needed\n"
	      "                     (needs --arch or kernel.arch when no GPU is present)\n"
	      "  -a, --arch sm_XY   target architecture (default: kernel.arch, else the GPU's)\n"
	      "  -j, --jobs N       parallel nvcc processes (default: number of cores)\n"
	      "  -d, --device N     GPU to tune on (default 0)\n"
	      "  -m, --metrics M    hardware counters: all, none or top:K (default: measure.metrics)\n"
	      "      --fresh        ignore the journal of earlier runs and measure everything again\n"
	      "      --retry-failed measure configurations that crashed or timed out before again\n"
	      "      --replay CSV   search a recorded exhaustive run instead of the GPU (no GPU, no nvcc)\n"
	      "      --strategy S   exhaustive (default), random, local, anneal, genetic or model\n"
	      "      --budget B     measure at most N configurations, N%% of the space, or for Ns seconds\n"
	      "                     (default strategy with a budget: model); also search.* in the config\n"
	      "      --seed N       the search's seed: the same seed gives the same sequence\n"
	      "      --cache-dir D  the cubin cache (default: $XDG_CACHE_HOME/autotune, else ~/.cache/autotune)\n"
	      "      --no-cache     compile everything, keep nothing\n"
	      "  -q, --quiet        no progress bar or summary\n"
	      "  -h, --help         this text\n"
	      "      --version      print the version\n"
	      "\n"
	      "Results go to results/NAME.csv and results/NAME_tuned.h (see README.md).\n"
	      "A run records every result in results/NAME.journal as it goes; running the same command again\n"
	      "resumes, measuring only what is missing (when nothing that could change a result changed).\n"
	      "Exit status: 0 winner written (or dry run done), 1 no configuration passed, 2 bad input (usage,\n"
	      "config, no nvcc, no GPU, not enough device memory, results not writable), 3 the GPU worker\n"
	      "could not be restarted, 130 interrupted (results so far written).\n",
	      stdout);
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

int cli_parse(int argc, char **argv, options *o)
{
	static const struct option longopts[] = {
		{"dry-run", no_argument, NULL, 'n'}, {"arch", required_argument, NULL, 'a'},
		{"jobs", required_argument, NULL, 'j'}, {"device", required_argument, NULL, 'd'},
		{"quiet", no_argument, NULL, 'q'}, {"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'}, {"metrics", required_argument, NULL, 'm'},
		{"fresh", no_argument, NULL, 'F'}, {"retry-failed", no_argument, NULL, 'R'},
		{"cache-dir", required_argument, NULL, 'C'}, {"no-cache", no_argument, NULL, 'N'},
		{"output", required_argument, NULL, 'o'}, {"replay", required_argument, NULL, 'P'},
		{"strategy", required_argument, NULL, 'S'}, {"budget", required_argument, NULL, 'B'},
		{"seed", required_argument, NULL, 's'}, {NULL, 0, NULL, 0},
	};
	memset(o, 0, sizeof *o);
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "na:j:d:qm:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': o->dry_run = 1; break;
		case 'a': o->arch = optarg; break;
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
		case 's': {
			char *end;
			o->seed = strtoull(optarg, &end, 10);
			o->seed_given = 1;
			if (end == optarg || *end) {
				fprintf(stderr, "autotune: --seed needs a whole number, not '%s'\n", optarg);
				return -1;
			}
			break;
		}
		case 'h': o->cmd = CMD_HELP; return 0;
		case 'V': o->cmd = CMD_VERSION; return 0;
		default:
			if (optopt)
				fprintf(stderr, "autotune: option '-%c' is unknown or needs a value (see --help)\n", optopt);
			else
				fprintf(stderr, "autotune: option '%s' is unknown or needs a value (see --help)\n", argv[optind - 1]);
			return -1;
		}
	}
	int rest = argc - optind;
	char **args = argv + optind;
	if (rest >= 1 && (!strcmp(args[0], "validate") || !strcmp(args[0], "import"))) {
		o->cmd = !strcmp(args[0], "import") ? CMD_IMPORT : CMD_VALIDATE;
		args++;
		rest--;
	}
	if (rest != 1) {
		fprintf(stderr, rest ? "autotune: give one config file, not %d (see --help)\n"
				     : "autotune: no config file given (see --help)\n", rest);
		return -1;
	}
	o->config = args[0];
	return 0;
}
