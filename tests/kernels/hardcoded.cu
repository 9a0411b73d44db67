// hardcoded.cu: a kernel as projects ship them, its items per thread a hard-coded #define (no
// #ifndef, and a macro built on it), in a file with an include guard. tests/recipe.sh tunes it over
// ITEMS without editing this file. out[i] = 2 * in[i] whatever ITEMS is, so every configuration
// verifies against the first.
#ifndef HARDCODED_CU
#define HARDCODED_CU

#define ITEMS 4
#define STRIDE (ITEMS * 1)

extern "C" __global__ void hardcoded(const float *in, float *out, int n)
{
	int base = (blockIdx.x * blockDim.x + threadIdx.x) * STRIDE;
	for (int k = 0; k < ITEMS; k++)
		if (base + k < n)
			out[base + k] = 2.0f * in[base + k];
}

#endif
