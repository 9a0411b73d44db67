/* cli.h: the command line, parsed into options; nothing else reads argv. */
#ifndef AUTOTUNE_CLI_H
#define AUTOTUNE_CLI_H

/* Exit statuses, documented in README.md. */
enum {
	EXIT_WINNER = 0,      /* winner written (or dry run / validate succeeded) */
	EXIT_NONE_PASSED = 1, /* ran, but no configuration passed */
	EXIT_USAGE = 2,       /* bad input: command line, config, or what it needs (nvcc, a GPU, device
			       * memory, a writable results directory) */
	EXIT_ENV = 3,         /* the GPU worker could not be restarted mid-run; out of memory */
	EXIT_INTERRUPTED = 130,
};

typedef enum { CMD_TUNE, CMD_VALIDATE, CMD_IMPORT, CMD_HELP, CMD_VERSION } command;

typedef struct {
	command cmd;
	const char *config;  /* for import: the T1 JSON */
	const char *output;  /* -o: where import writes the YAML (default: beside the JSON) */
	const char *arch;  /* --arch, or NULL */
	int dry_run;
	int jobs;          /* 0: number of cores */
	int device;
	int quiet;
	const char *metrics; /* --metrics all|none|top:K, or NULL */
	int fresh;           /* ignore earlier results */
	int retry_failed;    /* measure crashed and timed-out configurations again */
	const char *cache_dir; /* --cache-dir, or NULL: the default */
	const char *replay;    /* --replay CSV: search a recorded run instead of the GPU */
	const char *strategy;  /* --strategy NAME (replay) */
	const char *budget;    /* --budget N or N% (replay) */
	unsigned long long seed;
	int seed_given;
	int no_cache;
} options;

/* 0 on success; -1 with a message on stderr for a usage error. */
int cli_parse(int argc, char **argv, options *o);
void cli_usage(void);

#endif
