/* fuzz_import.c: libFuzzer harness for `autotune import`, which turns a Kernel Tuner/KTT T1 spec
 * (JSON, parsed by libyaml) into a config. Each input is imported; a config that the import
 * accepted is loaded back, as the user's next command would, and must load. Any crash, leak or
 * undefined behaviour is a bug, and so is an accepted config that does not load. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_file.h"
#include "config.h"
#include "import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char yaml[64];
	if (!yaml[0])
		snprintf(yaml, sizeof yaml, "/tmp/autotune-fuzz-%ld-import.yaml", (long)getpid());
	const char *json = fuzz_file("json", data, size);
	if (!json)
		return 0;
	diags d = {0};
	if (import_t1(json, yaml, &d) == 0) {
		config cfg;
		diags ld = {0};
		if (config_load(yaml, &cfg, &ld) == 0)
			config_free(&cfg);
		else {
			for (size_t i = 0; i < ld.n; i++)
				fprintf(stderr, "%s\n", ld.msgs[i]);
			abort();
		}
		diags_free(&ld);
		unlink(yaml);
	}
	diags_free(&d);
	return 0;
}
