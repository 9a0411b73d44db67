/* fuzz_cubin.c: libFuzzer harness for what autotune reads from a cubin: the code hash and an
 * entry's parameter table. A cubin comes from nvcc through the cache, a wrapper, a disk: each
 * input is read as one, for the entries of the seed (tests/fuzz/cubin-corpus/k.cu). Any crash,
 * leak or undefined behaviour is a bug. */
#include <stdint.h>
#include <stdlib.h>

#include "cubin.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("cubin", data, size);
	if (!path)
		return 0;
	char hash[17];
	cubin_code_hash(path, hash);
	static const char *const entries[] = {"k", "k0", "_Z2ks1Scs6float27double4Pd", "kb", "kd", "kg", "_Z2ktILi64EEvPfs"};
	for (size_t i = 0; i < sizeof entries / sizeof *entries; i++) {
		size_t *sizes, n;
		if (cubin_params(path, entries[i], &sizes, &n) == 0 && n && !sizes)
			abort(); /* parameters said, but no sizes */
		free(sizes);
	}
	return 0;
}
