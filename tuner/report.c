/* report.c: `autotune report`: a self-contained HTML report of a results CSV. */
#include "report.h"

#include <stdio.h>

#include "banned.h"

int cmd_report(const options *o)
{
	(void)o;
	fputs("autotune report: not implemented yet\n", stderr);
	return EXIT_USAGE;
}
