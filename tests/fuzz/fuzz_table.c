/* fuzz_table.c: libFuzzer harness for the results-file reader. `header`, `report`, `show` and
 * `merge` read CSVs that users hand them: files cut short by a full disk, edited in a spreadsheet,
 * or not autotune's at all. Each input is loaded as a table; a loaded one is turned into results
 * and its winner picked, as those commands do. Any crash, leak or undefined behaviour is a bug. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_file.h"
#include "table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("csv", data, size);
	if (!path)
		return 0;
	table t;
	diags d = {0};
	if (table_load(path, &t, &d) == 0) {
		result *res = table_results(&t);
		int flagged = 0;
		choice pick;
		if (res) {
			table_pick_winner(&t, res, &flagged, &pick);
			choice_free(&pick);
		}
		table_results_free(res, t.nrows);
		table_free(&t);
	}
	diags_free(&d);
	return 0;
}
