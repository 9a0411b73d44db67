// A kernel for tests/t1/tuners.json, written as Kernel Tuner and BAT users write theirs: the filter
// is both a __constant__ array and the kernel's argument (MemType Constant), and the kernel sets
// its own parameters unless the tuner defines kernel_tuner. Each output element is one fixed
// sequence of fmaf, whatever the configuration: every configuration must equal Default's bit for bit.
#ifndef kernel_tuner
#define block_size_x 128
#define tile_size_x 1
#define use_cmem 1
#endif

#define TAPS 9

__constant__ float filter[TAPS];

extern "C" __global__ void tuners(float *out, const float *in, const float *filter_arg, double3 *sums, int n)
{
	int x0 = (blockIdx.x * block_size_x + threadIdx.x) * tile_size_x;
	for (int t = 0; t < tile_size_x; t++) {
		int x = x0 + t;
		if (x >= n)
			return;
		float acc = 0.0f;
		for (int k = 0; k < TAPS; k++)
			acc = fmaf(use_cmem ? filter[k] : filter_arg[k], in[x + k], acc);
#ifdef WRONG4 // test-gpu's control: a tile of 4 computes otherwise
		if (tile_size_x == 4)
			acc += 1.0f;
#endif
		out[x] = acc * SCALE;
		sums[x] = make_double3(acc, 2.0 * acc, 3.0 * acc);
	}
}
