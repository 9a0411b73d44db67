/* run_names.c: a run's file names, all made from its results CSV's path (run_names.h). */
#include "run_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "banned.h"

/* csv with its extension (after the last dot of its last component) replaced by suffix; a name
 * without one gets the suffix added. */
static char *sibling(const char *csv, const char *suffix)
{
	const char *dot = strrchr(csv, '.'), *slash = strrchr(csv, '/');
	size_t n = dot && (!slash || dot > slash) ? (size_t)(dot - csv) : strlen(csv);
	return xasprintf("%.*s%s", (int)n, csv, suffix);
}

char *run_name(const char *csv, run_file which)
{
	size_t n = strlen(csv);
	switch (which) {
	case RUN_FILE_JOURNAL:
		return sibling(csv, ".journal");
	case RUN_FILE_WORKER_LOG:
		return sibling(csv, ".worker.log");
	case RUN_FILE_REPLAY_CSV:
		return sibling(csv, ".replay.csv");
	case RUN_FILE_T4:
		return sibling(csv, ".t4.json");
	case RUN_FILE_DRY_CSV:
		return sibling(csv, ".dry-run.csv");
	case RUN_FILE_REPORT:
		/* "x.csv" -> "x.html", "odd.name" -> "odd.name.html": a name that is no CSV keeps its dots */
		return n > 4 && !strcmp(csv + n - 4, ".csv") ? xasprintf("%.*s.html", (int)(n - 4), csv)
							      : xasprintf("%s.html", csv);
	case RUN_FILE_SPEC_LIST:
		return xasprintf("%s.spec", csv);
	}
	return NULL;
}

char *run_shard_name(const char *csv, int shard, int nshards)
{
	char suffix[64];
	snprintf(suffix, sizeof suffix, ".shard-%d-of-%d.csv", shard, nshards);
	return sibling(csv, suffix);
}

int run_shard_of_name(const char *csv, int *shard, int *nshards)
{
	const char *at = strstr(csv, ".shard-");
	if (!at)
		return 0;
	for (const char *next; (next = strstr(at + 1, ".shard-"));)
		at = next;
	int used = 0;
	return sscanf(at, ".shard-%d-of-%d.csv%n", shard, nshards, &used) == 2 && !at[used] && *nshards > 0 &&
	       *shard >= 0 && *shard < *nshards;
}

char *run_part_name(const char *csv, const char *suffix)
{
	char *csv_suffix = xasprintf("%s.csv", suffix), *path = sibling(csv, csv_suffix);
	free(csv_suffix);
	return path;
}
