// Exact known values and a maximum: out[i] = 2 * in[i], checked against an expression of i
// (verify.expect); bmax[b] = the largest input of block b, whose maximum over all blocks must
// be 99 (verify.sum with op: max).
extern "C" __global__ void doubled(const int *in, int *out, int *bmax, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = 2 * in[i];
	if (threadIdx.x == 0) {
		int m = in[blockIdx.x * blockDim.x];
		for (int k = 1; k < blockDim.x && blockIdx.x * blockDim.x + k < n; k++)
			m = max(m, in[blockIdx.x * blockDim.x + k]);
		bmax[blockIdx.x] = m;
	}
}
