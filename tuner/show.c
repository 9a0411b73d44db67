/* show.c: `autotune show`: a results CSV as a table on the terminal. */
#include "show.h"

#include <stdio.h>

#include "banned.h"

int cmd_show(const options *o)
{
	(void)o;
	fputs("autotune show: not implemented yet\n", stderr);
	return EXIT_USAGE;
}
