/* specs_rows.c: the rows of a CSV written by autotune, for tests/gpu/specs_more.sh.
 * usage: specs_rows FILE.csv
 * One line per configuration: its parameters (the columns before blockDim.x) as NAME=VALUE
 * separated by spaces, then a tab and its status, flags, median time and message, tab-separated,
 * an empty one as "-" (so that the shell's read keeps their places; tabs and newlines in a
 * message become spaces). RFC 4180 quoting; exit 1 on a malformed file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 256
#define FIELD 4096

static char fields[MAX_FIELDS][FIELD], header[MAX_FIELDS][FIELD];

/* One record into fields; its field count, 0 at end of file, -1 when malformed. */
static int read_record(FILE *f)
{
	int n = 0, c = fgetc(f);
	if (c == EOF)
		return 0;
	for (;;) {
		size_t len = 0;
		char *out = fields[n];
		if (c == '"') {
			for (;;) {
				c = fgetc(f);
				if (c == EOF)
					return -1;
				if (c == '"' && (c = fgetc(f)) != '"')
					break;
				if (len < FIELD - 1)
					out[len++] = (char)(c == '\t' || c == '\n' || c == '\r' ? ' ' : c);
			}
		} else
			for (; c != ',' && c != '\r' && c != '\n' && c != EOF; c = fgetc(f))
				if (len < FIELD - 1)
					out[len++] = (char)c;
		out[len] = 0;
		if (++n == MAX_FIELDS)
			return -1;
		if (c == ',') {
			c = fgetc(f);
			continue;
		}
		if (c == '\r' && fgetc(f) != '\n')
			return -1;
		return n;
	}
}

static int column(int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(header[i], name))
			return i;
	return -1;
}

int main(int argc, char **argv)
{
	FILE *f = argc == 2 ? fopen(argv[1], "r") : NULL;
	if (!f) {
		fprintf(stderr, "usage: specs_rows FILE.csv (a readable file)\n");
		return 2;
	}
	int n = read_record(f);
	if (n <= 0)
		return fprintf(stderr, "%s: no header\n", argv[1]), 1;
	memcpy(header, fields, sizeof header);
	int params = column(n, "blockDim.x"), st = column(n, "status"), fl = column(n, "flags");
	int ms = column(n, "time_ms_median"), msg = column(n, "message");
	if (params < 1 || st < 0 || fl < 0 || ms < 0 || msg < 0)
		return fprintf(stderr, "%s: not autotune's columns\n", argv[1]), 1;
	for (int m; (m = read_record(f)) != 0;) {
		if (m != n)
			return fprintf(stderr, "%s: a row of %d fields under a header of %d\n", argv[1], m, n), 1;
		for (int i = 0; i < params; i++)
			printf("%s%s=%s", i ? " " : "", header[i], fields[i]);
		const int show[] = {st, fl, ms, msg};
		for (int i = 0; i < 4; i++)
			printf("\t%s", *fields[show[i]] ? fields[show[i]] : "-");
		putchar('\n');
	}
	fclose(f);
	return 0;
}
