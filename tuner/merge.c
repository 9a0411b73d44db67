/* merge.c: `autotune merge`: joins the CSVs of sharded runs (--shard I/N) into one run's outputs. */
#include "merge.h"

#include <stdio.h>

#include "banned.h"

int cmd_merge(const options *o)
{
	(void)o;
	fputs("autotune merge: not implemented yet\n", stderr);
	return EXIT_USAGE;
}
