/* csv_record.h: the RFC 4180 reader the GPU tier's CSV checkers share (csvcheck.c, energycheck.c).
 * Define CSV_PROG (the program's name, for messages) and MAX_FIELDS before including it. */
#ifndef CSV_RECORD_H
#define CSV_RECORD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads one record; returns the field count, 0 at end of file, -1 on a malformed record. */
static int read_record(FILE *f, char fields[MAX_FIELDS][1024])
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
				if (c == '"') {
					c = fgetc(f);
					if (c != '"')
						break;
				}
				if (len < 1023)
					out[len++] = (char)c;
			}
		} else {
			while (c != ',' && c != '\r' && c != '\n' && c != EOF) {
				if (c == '"')
					return -1;
				if (len < 1023)
					out[len++] = (char)c;
				c = fgetc(f);
			}
		}
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

static int column(char header[MAX_FIELDS][1024], int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(header[i], name))
			return i;
	fprintf(stderr, CSV_PROG ": no column '%s'\n", name);
	exit(1);
}

#endif
