/* fuzz_t4.c: libFuzzer harness for the T4 and Kernel Tuner cache reader (t4.c), behind --replay
 * and `autotune header`: files from other tuners, cut short by an interrupted run, or not what
 * they claim. Each input is read as results of configs/summatrix.yaml; a table it gives is turned
 * into results and its winner picked, as header does. Any crash, leak or undefined behaviour is a
 * bug. Run from the repository root (the config is found relative to it). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_file.h"
#include "config.h"
#include "space.h"
#include "t4.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static config cfg;
	static space sp;
	static int loaded;
	if (!loaded) {
		diags d = {0};
		if (config_load("configs/summatrix.yaml", &cfg, &d) || space_enumerate(&cfg, &sp, &d)) {
			diags_print(&d);
			abort();
		}
		diags_free(&d);
		loaded = 1;
	}
	const char *path = fuzz_file("json", data, size);
	if (!path)
		return 0;
	/* the notes on stderr (an unclosed cache file, results outside the space) are expected */
	table t;
	diags d = {0};
	if (t4_load(path, &cfg, &sp, &t, &d) == 0) {
		result *res = table_results(&t);
		int flagged = 0;
		choice pick;
		table_pick_winner(&t, res, &flagged, &pick);
		choice_free(&pick);
		table_results_free(res, t.nrows);
		table_free(&t);
	}
	diags_free(&d);
	return 0;
}
