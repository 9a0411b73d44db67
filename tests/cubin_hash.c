/* cubin_hash: prints cubin_code_hash of each file named, one a line: the tests' way to compare a
 * binary built from a tuned header's recipe with the one autotune tuned (the CSV's code_hash). */
#include <stdio.h>

#include "cubin.h"

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("usage: cubin_hash CUBIN...\n", stderr);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		char h[17];
		cubin_code_hash(argv[i], h);
		printf("%s\n", h);
	}
	return 0;
}
