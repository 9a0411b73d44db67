/* cli.h: the command line, parsed into options; nothing else reads argv. */
#ifndef AUTOTUNE_CLI_H
#define AUTOTUNE_CLI_H

#include <stddef.h>
#include <stdio.h>

/* Exit statuses, documented alike in README.md, autotune.1 and the --help text (cli.c). */
enum {
	EXIT_WINNER = 0,      /* winner written (or dry run / validate succeeded) */
	EXIT_NONE_PASSED = 1, /* ran, but no configuration passed */
	EXIT_USAGE = 2,       /* bad input: command line, config, or what it needs (nvcc, a GPU, device
			       * memory, a writable results directory) */
	EXIT_ENV = 3,         /* the GPU worker could not be restarted mid-run; out of memory (diag.c) */
	EXIT_UNWRITTEN = 4,   /* measured, but the results could not be written (they are in the journal) */
	EXIT_INTERRUPTED = 130, /* SIGINT (Ctrl-C): 128 + 2 */
	EXIT_TERMINATED = 143,  /* SIGTERM (kill, a batch system's time limit): 128 + 15 */
};

/* The subcommands; CMD_TUNE when the first word is none of their names. */
typedef enum {
	CMD_TUNE,
	CMD_VALIDATE,
	CMD_IMPORT,
	CMD_HEADER,  /* tuned header (+ make fragment) from one or more results CSVs */
	CMD_REPORT,  /* self-contained HTML report of a results CSV */
	CMD_SHOW,    /* terminal table of a results CSV */
	CMD_DEVICES, /* the GPUs this machine has */
	CMD_MERGE,   /* shard CSVs of one config into one results CSV (and header) */
	CMD_CHECK,   /* is a built program's kernel the tuned code? */
	CMD_COUNT_,
	CMD_HELP = CMD_COUNT_,
	CMD_VERSION
} command;

typedef struct {
	command cmd;
	command help_for;    /* with CMD_HELP: the subcommand whose help was asked (CMD_TUNE: general) */
	const char *config;  /* the first operand: the config (for import: the T1 JSON; header, report,
			      * show: the first CSV) */
	char **inputs;       /* every operand, config included (argv's own strings) */
	int ninputs;
	const char *output;  /* -o: where import writes the YAML (default: beside the JSON) */
	const char *arch;  /* --arch, or NULL */
	int dry_run;
	int jobs;          /* 0: number of cores */
	int device;
	int quiet;
	const char *metrics; /* --metrics all|none|top:K, or NULL */
	int fresh;           /* ignore earlier results */
	int retry_failed;    /* measure crashed and timed-out configurations again */
	int keep_going;      /* compile every binary even when the first all fail alike */
	const char *cache_dir; /* --cache-dir, or NULL: the default */
	const char *replay;    /* --replay CSV: search a recorded run instead of the GPU */
	const char *prior;     /* --prior F: a recording of the kernel on another GPU or size ranks the
				* model strategy's picks in place of its built-in model (transfer) */
	const char *strategy;  /* --strategy NAME (replay) */
	const char *budget;    /* --budget N or N% (replay) */
	unsigned long long seed;
	int seed_given;
	int no_cache;
	const char *devices; /* --devices 0,1,...: the GPUs to tune on (default: CUDA_VISIBLE_DEVICES's, all) */
	int shard, nshards;  /* --shard I/N: this process measures shard I (0-based) of N; nshards 0: all */
	int top;             /* show --top N (0: all) */
	const char *sort;    /* show --sort COLUMN */
	const char *baseline; /* show --baseline CONFIG: the speedup column's reference ("bx=128") */
	const char *params;  /* report --params X,Y: the heat map's two parameters */
	int print_spec_hash;  /* validate --print-spec-hash: print the hash a tuned header records */
	int print_instances;  /* validate --print-instances: print each instance's problem, one a line */
	int t4;               /* --t4 (tune, merge): also write the results as a T4 file, NAME.t4.json */
	const char *results_config; /* header --config: the config of T4 and cache files that name none */
} options;

/* 0 on success; -1 with a message on stderr for a usage error. */
int cli_parse(int argc, char **argv, options *o);
/* The help of one subcommand (CMD_TUNE: the general help) on stdout; cli_help on f. Both come
 * from the tables the parser reads: a command's usage line names exactly the options it accepts. */
void cli_usage(command cmd);
void cli_help(command cmd, FILE *f);
const char *cli_command_name(command cmd);
/* The options, all commands' (NULL past the last), whether each takes a value, and whether cmd
 * accepts the option of this long name (-h/--help and --version: every command). */
const char *cli_option_name(size_t i);
int cli_option_takes_value(size_t i);
int cli_option_letter(size_t i); /* its short option, or 0 */
int cli_accepts(command cmd, const char *name);

#endif
