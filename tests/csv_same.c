/* csv_same.c: which columns of two results CSVs differ, for bench/same_outputs.sh. The files are
 * read as autotune reads them (quoted fields may hold commas and line breaks), their columns
 * matched by name and their rows side by side; columns only one file has are listed apart (a new
 * column is a feature, not a change). Exit 0 when the rows and every shared column are equal, 1
 * when something differs, 2 when a file cannot be read. */
#include <stdio.h>
#include <string.h>

#include "table.h"

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: csv_same BEFORE.csv AFTER.csv\n");
		return 2;
	}
	table a, b;
	diags d = {0};
	if (table_read(argv[1], 0, &a, &d) || table_read(argv[2], 0, &b, &d)) {
		diags_print(&d);
		diags_free(&d);
		return 2;
	}
	const char *base = strrchr(argv[2], '/');
	int same = a.nrows == b.nrows;
	printf("%s: %zu rows", base ? base + 1 : argv[2], a.nrows);
	if (!same)
		printf(" before, %zu after", b.nrows);
	for (size_t c = 0; c < b.ncols; c++)
		if (table_col(&a, b.names[c]) < 0)
			printf("; new column %s", b.names[c]);
	for (size_t c = 0; c < a.ncols; c++) {
		int cb = table_col(&b, a.names[c]);
		if (cb < 0) {
			printf("; column %s gone", a.names[c]);
			same = 0;
			continue;
		}
		size_t differ = 0;
		for (size_t r = 0; r < a.nrows && r < b.nrows; r++)
			differ += strcmp(table_get(&a, r, (int)c), table_get(&b, r, cb)) != 0;
		if (differ)
			printf("; %s differs in %zu rows", a.names[c], differ);
		same &= differ == 0;
	}
	printf(same ? "; the same\n" : "\n");
	table_free(&a);
	table_free(&b);
	return same ? 0 : 1;
}
