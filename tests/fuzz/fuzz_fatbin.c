/* fuzz_fatbin.c: libFuzzer harness for what `autotune check` reads of a built program: the
 * fatbinary containers of a host ELF file (or a fatbinary, or a cubin) and each cubin's kernels
 * and their hashes. Seeded with an object file nvcc makes of tests/fuzz/cubin-corpus/k.cu. Any
 * crash, leak or undefined behaviour is a bug. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cubin.h"
#include "fatbin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fatbin_cubin *c;
	size_t n;
	const char *why;
	if (fatbin_cubins(data, size, &c, &n, &why)) {
		if (!why || n || c)
			abort(); /* refused without a reason, or with cubins */
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (c[i].elf && !c[i].owned &&
		    (c[i].elf < data || c[i].size > size || c[i].elf - data > (ptrdiff_t)(size - c[i].size)))
			abort(); /* a cubin outside the input, not decompressed */
		cubin_kernel *k;
		size_t nk;
		if (c[i].elf && cubin_kernels(c[i].elf, c[i].size, &k, &nk) == 0) {
			for (size_t j = 0; j < nk; j++)
				if (strlen(k[j].hash) != 16)
					abort();
			cubin_kernels_free(k, nk);
		}
	}
	fatbin_free(c, n);
	return 0;
}
