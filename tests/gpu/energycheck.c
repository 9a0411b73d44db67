/* energycheck.c: the energy columns of a CSV that autotune wrote on a GPU (tests/gpu/energy.sh).
 * usage: energycheck FILE.csv IDLE_WATTS LIMIT_WATTS
 * Fails (exit 1, reason on stderr) unless every ok row has joules_per_launch and watts, both
 * numbers above zero, its watts above the idle board's and at most the power limit (+5%: the
 * counter averages over its own period, the limit is enforced over a longer one), and its joules
 * per launch within 25% of watts x its median time (the window's launches are back to back with a
 * warm L2, the samples' were not). Then prints each ok row, the winner (by the run's objective) and
 * the shortest launch, and whether the two differ. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 128
#define FIELD 1024 /* csv_record.h's field size */
#define CSV_PROG "energycheck"
#include "csv_record.h"

/* "blocks=33 bx=128": the parameters, the columns before blockDim.x */
static void describe(char row[MAX_FIELDS][FIELD], char header[MAX_FIELDS][FIELD], int nparams, char *out, size_t len)
{
	size_t used = 0;
	out[0] = 0;
	for (int i = 0; i < nparams && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s=%s", i ? " " : "", header[i], row[i]);
}

int main(int argc, char **argv)
{
	static char header[MAX_FIELDS][FIELD], row[MAX_FIELDS][FIELD];
	if (argc != 4) {
		fprintf(stderr, "usage: energycheck FILE.csv IDLE_WATTS LIMIT_WATTS\n");
		return 2;
	}
	double idle = atof(argv[2]), limit = atof(argv[3]);
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	int nh = read_record(f, header), n, rows = 0, bad = 0, ok = 0;
	int st = column(header, nh, "status"), med = column(header, nh, "time_ms_median"),
	    fin = column(header, nh, "final_ms_median"), j = column(header, nh, "joules_per_launch"),
	    w = column(header, nh, "watts"), flags = column(header, nh, "flags"), nparams = column(header, nh, "blockDim.x");
	char winner[256] = "none", quickest[256] = "none", desc[256];
	double quick_ms = 1e300;
	while ((n = read_record(f, row)) > 0) {
		rows++;
		if (n != nh || strcmp(row[st], "ok"))
			continue;
		ok++;
		double ms = row[fin][0] ? atof(row[fin]) : atof(row[med]), joules = atof(row[j]), watts = atof(row[w]);
		describe(row, header, nparams, desc, sizeof desc);
		printf("  %-28s %9.4f ms %10.4g J/launch %7.1f W\n", desc, ms, joules, watts);
		if (!row[j][0] || !row[w][0] || joules <= 0 || watts <= 0) {
			fprintf(stderr, "energycheck: row %d (%s) is ok without energy: '%s' J, '%s' W\n", rows, desc, row[j], row[w]);
			bad = 1;
		} else if (watts <= idle || watts > 1.05 * limit) {
			fprintf(stderr, "energycheck: row %d (%s): %.1f W, outside idle %.1f W .. limit %.1f W\n", rows, desc, watts, idle,
				limit);
			bad = 1;
		} else if (joules < 0.75 * watts * ms / 1000 || joules > 1.25 * watts * ms / 1000) {
			fprintf(stderr, "energycheck: row %d (%s): %.4g J per launch, but %.1f W x %.4f ms is %.4g J\n", rows, desc,
				joules, watts, ms, watts * ms / 1000);
			bad = 1;
		}
		if (strstr(row[flags], "winner"))
			snprintf(winner, sizeof winner, "%s", desc);
		if (ms < quick_ms) {
			quick_ms = ms;
			snprintf(quickest, sizeof quickest, "%s", desc);
		}
	}
	fclose(f);
	if (n < 0 || !ok) {
		fprintf(stderr, "energycheck: %s: %s\n", argv[1], n < 0 ? "a malformed record" : "no ok row");
		bad = 1;
	}
	printf("energycheck: %d rows, %d ok; watts within idle %.1f W .. limit %.1f W: %s\n", rows, ok, idle, limit,
	       bad ? "FAIL" : "ok");
	printf("energycheck: winner by the objective: %s; shortest launch: %s; %s\n", winner, quickest,
	       strcmp(winner, quickest) ? "they differ" : "the same configuration");
	return bad;
}
