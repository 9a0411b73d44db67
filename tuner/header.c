/* header.c: `autotune header`: the tuned header and make fragment from one or more results CSVs. */
#include "header.h"

#include <stdio.h>

#include "banned.h"

int cmd_header(const options *o)
{
	(void)o;
	fputs("autotune header: not implemented yet\n", stderr);
	return EXIT_USAGE;
}
