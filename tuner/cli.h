/* cli.h: the command line, parsed into options; nothing else reads argv. */
#ifndef AUTOTUNE_CLI_H
#define AUTOTUNE_CLI_H

/* Exit statuses, documented in README.md. */
enum {
	EXIT_WINNER = 0,      /* winner written (or dry run / validate succeeded) */
	EXIT_NONE_PASSED = 1, /* ran, but no configuration passed */
	EXIT_USAGE = 2,       /* bad command line or config */
	EXIT_ENV = 3,         /* environment: no nvcc, no GPU, unwritable results */
	EXIT_INTERRUPTED = 130,
};

typedef enum { CMD_TUNE, CMD_VALIDATE, CMD_HELP, CMD_VERSION } command;

typedef struct {
	command cmd;
	const char *config;
	const char *arch;  /* --arch, or NULL */
	int dry_run;
	int jobs;          /* 0: number of cores */
	int device;
	int quiet;
	const char *metrics; /* --metrics all|none|top:K, or NULL */
} options;

/* 0 on success; -1 with a message on stderr for a usage error. */
int cli_parse(int argc, char **argv, options *o);
void cli_usage(void);

#endif
