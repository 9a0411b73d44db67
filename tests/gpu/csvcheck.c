/* csvcheck.c: checks a CSV written by autotune after a GPU run (make test-gpu).
 * usage: csvcheck FILE.csv ROWS [status=count ...]
 * Parses RFC 4180 strictly and fails (exit 1, reason on stderr) unless: every row has as many
 * fields as the header; there are ROWS rows; every status is terminal (not "not-run"); each
 * status=count holds; every ok row has a positive median and a theoretical active-block count
 * equal to the driver's (cuOccupancyMaxActiveBlocksPerMultiprocessor). counters=N: at least N ok
 * rows have an achieved occupancy, each above 0 and at most the theoretical one (+1 point).
 * spread=P: no ok row's slowest sample is more than P% above its median (a sample that timed
 * something besides the kernel). positive=COLUMN: every ok row has a number above 0 there (a
 * plan's concurrency). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 128
#define CSV_PROG "csvcheck"
#include "csv_record.h"

int main(int argc, char **argv)
{
	static char header[MAX_FIELDS][1024], row[MAX_FIELDS][1024];
	if (argc < 3) {
		fprintf(stderr, "usage: csvcheck FILE.csv ROWS [status=count ...]\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	int nh = read_record(f, header);
	int st = column(header, nh, "status"), med = column(header, nh, "time_ms_median");
	int occ = column(header, nh, "active_blocks_per_sm"), drv = column(header, nh, "driver_active_blocks_per_sm");
	int achieved = column(header, nh, "achieved_occupancy_pct"), theo = column(header, nh, "theoretical_occupancy");
	int slowest = column(header, nh, "time_ms_max");
	int positive[8], npositive = 0;
	for (int a = 3; a < argc && npositive < 8; a++)
		if (!strncmp(argv[a], "positive=", 9))
			positive[npositive++] = column(header, nh, argv[a] + 9);
	int rows = 0, bad = 0, n, occ_checked = 0, with_counters = 0, spread_row = 0;
	double spread = 0;
	struct {
		char name[32];
		int count;
	} seen[16];
	int nseen = 0;
	while ((n = read_record(f, row)) != 0) {
		rows++;
		if (n != nh) {
			fprintf(stderr, "csvcheck: row %d has %d fields, the header %d\n", rows, n, nh);
			bad = 1;
			continue;
		}
		if (!strcmp(row[st], "not-run")) {
			fprintf(stderr, "csvcheck: row %d has no terminal status\n", rows);
			bad = 1;
		}
		int k;
		for (k = 0; k < nseen && strcmp(seen[k].name, row[st]); k++)
			;
		if (k == nseen && nseen < 16) {
			snprintf(seen[nseen].name, sizeof seen[nseen].name, "%.31s", row[st]);
			seen[nseen++].count = 0;
		}
		if (k < 16)
			seen[k].count++;
		if (!strcmp(row[st], "ok")) {
			if (atof(row[med]) <= 0) {
				fprintf(stderr, "csvcheck: row %d is ok but has no time\n", rows);
				bad = 1;
			} else if (atof(row[slowest]) / atof(row[med]) - 1 > spread) {
				spread = atof(row[slowest]) / atof(row[med]) - 1;
				spread_row = rows;
			}
			if (strcmp(row[occ], row[drv])) {
				fprintf(stderr, "csvcheck: row %d: theoretical %s active blocks/SM, the driver says %s\n",
					rows, row[occ], row[drv]);
				bad = 1;
			}
			occ_checked++;
			for (int p = 0; p < npositive; p++)
				if (!(atof(row[positive[p]]) > 0)) {
					fprintf(stderr, "csvcheck: row %d is ok but its %s is '%s'\n", rows, header[positive[p]],
						row[positive[p]]);
					bad = 1;
				}
			if (row[achieved][0]) {
				double a = atof(row[achieved]), t = 100 * atof(row[theo]);
				if (a <= 0 || a > t + 1) {
					fprintf(stderr, "csvcheck: row %d: achieved occupancy %s%%, theoretical %.1f%%\n", rows,
						row[achieved], t);
					bad = 1;
				}
				with_counters++;
			}
		}
	}
	fclose(f);
	if (rows != atoi(argv[2])) {
		fprintf(stderr, "csvcheck: %d rows, expected %s\n", rows, argv[2]);
		bad = 1;
	}
	for (int a = 3; a < argc; a++) {
		char name[32];
		int want, got = 0;
		if (!strncmp(argv[a], "positive=", 9))
			continue; /* checked row by row */
		if (sscanf(argv[a], "%31[^=]=%d", name, &want) != 2)
			return 2;
		if (!strcmp(name, "spread")) {
			if (100 * spread > want) {
				fprintf(stderr, "csvcheck: row %d's slowest sample is %.1f%% above its median, more than %d%%\n",
					spread_row, 100 * spread, want);
				bad = 1;
			}
			continue;
		}
		if (!strcmp(name, "counters")) {
			if (with_counters < want) {
				fprintf(stderr, "csvcheck: %d rows with counters, expected at least %d\n", with_counters, want);
				bad = 1;
			}
			continue;
		}
		for (int k = 0; k < nseen; k++)
			if (!strcmp(seen[k].name, name))
				got = seen[k].count;
		if (got != want) {
			fprintf(stderr, "csvcheck: %d rows with status %s, expected %d\n", got, name, want);
			bad = 1;
		}
	}
	printf("csvcheck: %s: %d rows,", argv[1], rows);
	for (int k = 0; k < nseen; k++)
		printf(" %d %s", seen[k].count, seen[k].name);
	printf("; occupancy matches the driver on %d rows: %s\n", occ_checked, bad ? "FAIL" : "ok");
	return bad;
}
