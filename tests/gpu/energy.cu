// A memory-bound scale with a grid-stride loop (tests/gpu/energy.sh): the grid sets how many SMs
// stream at once. Past the blocks that saturate DRAM the time stays flat while more SMs draw
// power, so the least energy per launch need not be the least time.
extern "C" __global__ void scale(const float *in, float *out, int n, float a)
{
	for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
		out[i] = a * in[i];
}
