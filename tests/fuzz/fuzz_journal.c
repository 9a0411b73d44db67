/* fuzz_journal.c: libFuzzer harness for the journal's replay. A journal is autotune's own file,
 * but a crash, a full disk or a copy between machines can leave anything in it, and a resumed run
 * reads it back: damaged records must be skipped, never trusted or crashed on. Each input is
 * opened as the journal of a 64-configuration space. Any crash, leak or undefined behaviour is a
 * bug. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_file.h"
#include "journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum { N = 64 };
	const char *path = fuzz_file("journal", data, size);
	if (!path)
		return 0;
	space sp = {.nparams = 1, .count = N};
	result res[N];
	memset(res, 0, sizeof res);
	for (size_t i = 0; i < N; i++) {
		res[i].shares_with = -1;
		res[i].driver_blocks = -1;
		for (int m = 0; m < METRIC_COUNT; m++)
			res[i].metrics[m] = NAN;
	}
	journal_resume jr;
	diags d = {0};
	journal *j = journal_open(path, "fuzz", 0, &sp, res, &jr, &d);
	if (j)
		journal_close(j);
	for (size_t i = 0; i < N; i++)
		free(res[i].message);
	diags_free(&d);
	unlink(path);
	return 0;
}
