// histogram.cu: 256-bin histogram of n bytes with a grid-stride loop, items bytes per thread per
// step, into copies sub-histograms per block in shared memory (dynamically sized) that are added
// into the global one at the end; MODE 0 counts straight into global memory instead. Integer
// counts: every configuration computes the same result.
extern "C" __global__ void histogram(unsigned *hist, const unsigned char *data, int n, int items, int copies)
{
	extern __shared__ unsigned sub[];
	long long stride = (long long)gridDim.x * blockDim.x * items;
#if MODE
	for (int i = threadIdx.x; i < 256 * copies; i += blockDim.x)
		sub[i] = 0;
	__syncthreads();
	unsigned *mine = sub + 256 * (threadIdx.x % copies);
#endif
	for (long long i = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * items; i < n; i += stride)
		for (int k = 0; k < items && i + k < n; k++) {
#if MODE
			atomicAdd(&mine[data[i + k]], 1u);
#else
			atomicAdd(&hist[data[i + k]], 1u);
#endif
		}
#if MODE
	__syncthreads();
	for (int b = threadIdx.x; b < 256; b += blockDim.x) {
		unsigned s = 0;
		for (int c = 0; c < copies; c++)
			s += sub[256 * c + b];
		if (s)
			atomicAdd(&hist[b], s);
	}
#endif
}
