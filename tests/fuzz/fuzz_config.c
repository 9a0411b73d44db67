/* fuzz_config.c: libFuzzer harness for the config loader and the expression language. Each
 * input is written to a file and loaded as a config (the loader reads files, as users' configs
 * are); a loaded config is also enumerated, and each configuration's launch and plan evaluated,
 * as autotune would. Any crash, leak or undefined
 * behaviour (ASan/UBSan) is a bug. `make fuzz FUZZ_SECONDS=600` runs it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_file.h"
#include "config.h"
#include "space.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("yaml", data, size);
	if (!path)
		return 0;
	config cfg;
	diags d = {0};
	if (config_load(path, &cfg, &d) == 0) {
		space sp;
		/* keep huge spaces from turning the fuzzer into a benchmark */
		size_t total = 1;
		for (size_t i = 0; i < cfg.nparams; i++)
			total *= cfg.params[i].nvalues ? cfg.params[i].nvalues : 1;
		if (total <= 100000 && space_enumerate(&cfg, &sp, &d) == 0) {
			/* each configuration's launch and plan, as a run evaluates them */
			result *res = calloc(sp.count + 1, sizeof *res);
			if (res)
				space_eval_geometry(&cfg, &sp, res, &d);
			free(res);
			space_free(&sp);
		}
		config_free(&cfg);
	}
	diags_free(&d);
	return 0;
}
