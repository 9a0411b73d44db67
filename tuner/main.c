/* main.c: the command line's dispatch: each command to the module that does it. Only the
 * commands print their diagnostics and choose the exit code (cli.h's table). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "devices.h"
#include "diag.h"
#include "header.h"
#include "import.h"
#include "merge.h"
#include "report.h"
#include "show.h"
#include "tune.h"
#include "banned.h"

#define VERSION "0.1.0"

static int fail(diags *d, int code)
{
	diags_print(d);
	diags_free(d);
	return code;
}

int main(int argc, char **argv)
{
	/* past a file size limit (ulimit -f) a write fails and is said, as on a full disk, rather
	 * than the process being killed with what it measured */
	signal(SIGXFSZ, SIG_IGN);
	options o;
	if (cli_parse(argc, argv, &o))
		return EXIT_USAGE;
	switch (o.cmd) {
	case CMD_HELP:
		cli_usage(o.help_for);
		return 0;
	case CMD_HEADER:
		return cmd_header(&o);
	case CMD_REPORT:
		return cmd_report(&o);
	case CMD_SHOW:
		return cmd_show(&o);
	case CMD_CHECK:
		return cmd_check(&o);
	case CMD_MERGE:
		return cmd_merge(&o);
	case CMD_DEVICES: {
		char *wpath = devices_worker_path();
		int rc = cmd_devices(&o, wpath);
		free(wpath);
		return rc;
	}
	case CMD_VERSION:
		printf("autotune %s\n", VERSION);
		return 0;
	case CMD_IMPORT: {
		diags d = {0};
		/* the spec's name less its extension (a dot in a directory's name is not one) */
		const char *dot = strrchr(o.config, '.'), *slash = strrchr(o.config, '/');
		if (dot && slash && dot < slash)
			dot = NULL;
		char *out = o.output ? xstrdup(o.output)
				     : xasprintf("%.*s.yaml", (int)(dot ? dot - o.config : (long)strlen(o.config)), o.config);
		int rc = import_t1(o.config, out, &d);
		if (rc == 0 && !o.quiet) { /* the notes: what was read past or not honoured */
			diags_print(&d);
			fprintf(stderr, "wrote %s: tune it with `autotune %s`\n", out, out);
		}
		if (rc == 0)
			diags_free(&d);
		free(out);
		return rc ? fail(&d, EXIT_USAGE) : 0;
	}
	case CMD_VALIDATE: {
		/* each config on its own, all of them checked: the worst status */
		int worst = 0;
		for (int i = 0; i < o.ninputs; i++) {
			o.config = o.inputs[i];
			int rc = tune(&o);
			worst = rc > worst ? rc : worst;
		}
		return worst;
	}
	default:
		return tune(&o);
	}
}
