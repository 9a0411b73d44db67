// blur.cu: a 5 x 5 box sum over a w x h image (edges clamped), each thread ROWS outputs down a
// column, the rows of a block either read straight from global memory (TILE 0) or staged in a
// dynamically sized shared tile (TILE 1); order walks a row's taps before the next row (0) or a
// column's before the next column (1): the loads go in that order, the additions in one fixed order
// per output, so every configuration computes the same bits.
__device__ __forceinline__ int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

extern "C" __global__ void blur(float *out, const float *in, int w, int h, int rows, int order)
{
	extern __shared__ float tile[];
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * rows;
#if TILE
	int tw = blockDim.x + 4, th = blockDim.y * rows + 4;
	int bx = blockIdx.x * blockDim.x - 2, by = blockIdx.y * blockDim.y * rows - 2;
	for (int j = threadIdx.y; j < th; j += blockDim.y)
		for (int i = threadIdx.x; i < tw; i += blockDim.x)
			tile[j * tw + i] = in[clampi(by + j, 0, h - 1) * w + clampi(bx + i, 0, w - 1)];
	__syncthreads();
#endif
	if (x >= w)
		return;
	for (int r = 0; r < rows; r++) {
		int y = y0 + r;
		if (y >= h)
			return;
		float v[5][5];
		for (int k = 0; k < 25; k++) {
			int dy = order ? k % 5 : k / 5, dx = order ? k / 5 : k % 5;
#if TILE
			v[dy][dx] = tile[(threadIdx.y * rows + r + dy) * (blockDim.x + 4) + threadIdx.x + dx];
#else
			v[dy][dx] = __ldg(&in[clampi(y + dy - 2, 0, h - 1) * w + clampi(x + dx - 2, 0, w - 1)]);
#endif
		}
		float s = 0;
		for (int k = 0; k < 25; k++)
			s = __fadd_rn(s, v[k / 5][k % 5]);
		out[y * w + x] = s;
	}
}
