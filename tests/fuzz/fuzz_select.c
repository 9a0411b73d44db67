/* fuzz_select.c: libFuzzer harness for the run-time library's readers (runtime/: the results CSV
 * and the T4 file), which run inside a user's program: any crash, hang, leak, abort or undefined
 * behaviour there is the host program's. Each input is loaded without and with a spec hash; what
 * loads is asked for picks, as a program would, with its fields read. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_file.h"
#include "autotune_select.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(size && data[0] == '{' ? "json" : "csv", data, size);
	if (!path)
		return 0;
	const char *specs[] = {NULL, "abc"};
	static const double asked[] = {1, 1024, 3000, 1e300, 5e-324};
	for (int s = 0; s < 2; s++) {
		char err[512];
		autotune_results *r = autotune_results_load(path, specs[s], err, sizeof err);
		if (!r)
			continue;
		size_t n = autotune_constants(r);
		double *c = calloc(n ? n : 1, sizeof *c);
		for (size_t a = 0; c && a < sizeof asked / sizeof *asked; a++) {
			for (size_t k = 0; k < n; k++)
				c[k] = asked[(a + k) % (sizeof asked / sizeof *asked)];
			long pick = autotune_pick(r, c, a % 2 ? "Fake GPU" : NULL);
			if (pick < 0)
				abort(); /* a loaded file has a winner, and these constants are positive and finite */
			for (size_t p = 0; p < autotune_params(r); p++)
				(void)autotune_param(r, pick, p);
			(void)autotune_time_ms(r, pick);
			(void)autotune_instance(r, pick);
			(void)autotune_field(r, pick, "spec_hash");
		}
		free(c);
		autotune_results_free(r);
	}
	return 0;
}
