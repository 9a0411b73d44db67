// A tiled 2-D convolution with its filter in constant memory: each block stages its tile of the
// input, with the filter's halo around it, in shared memory (optionally padded against bank
// conflicts), then each thread computes TILE_X x TILE_Y outputs, BLOCK_X (BLOCK_Y) apart so that
// a warp's loads stay side by side. READ_ONLY loads the input through the read-only data path.
// Every output sums its products in the same order in every configuration, so all agree exactly.
#ifndef FILTER
#define FILTER 17
#endif
#define HALO (FILTER - 1)

__constant__ float filter[FILTER * FILTER];

#if READ_ONLY
#define LOAD(p) __ldg(p)
#else
#define LOAD(p) (*(p))
#endif

// out: w x h; in: (w + HALO) x (h + HALO), row-major.
extern "C" __global__ void convolution(float *out, const float *__restrict__ in, int w, int h)
{
	const int tile_w = BLOCK_X * TILE_X, tile_h = BLOCK_Y * TILE_Y, in_w = w + HALO;
	__shared__ float tile[BLOCK_Y * TILE_Y + HALO][BLOCK_X * TILE_X + HALO + PADDING];
	const int x0 = blockIdx.x * tile_w, y0 = blockIdx.y * tile_h;
	for (int y = threadIdx.y; y < tile_h + HALO; y += BLOCK_Y)
		for (int x = threadIdx.x; x < tile_w + HALO; x += BLOCK_X) {
			int gx = x0 + x, gy = y0 + y;
			tile[y][x] = gx < in_w && gy < h + HALO ? LOAD(&in[(size_t)gy * in_w + gx]) : 0.0f;
		}
	__syncthreads();
	float acc[TILE_Y][TILE_X];
#pragma unroll
	for (int ty = 0; ty < TILE_Y; ty++)
#pragma unroll
		for (int tx = 0; tx < TILE_X; tx++)
			acc[ty][tx] = 0.0f;
	for (int fy = 0; fy < FILTER; fy++)
#pragma unroll
		for (int fx = 0; fx < FILTER; fx++) {
			const float f = filter[fy * FILTER + fx];
#pragma unroll
			for (int ty = 0; ty < TILE_Y; ty++)
#pragma unroll
				for (int tx = 0; tx < TILE_X; tx++)
					acc[ty][tx] = fmaf(f, tile[threadIdx.y + ty * BLOCK_Y + fy][threadIdx.x + tx * BLOCK_X + fx],
							   acc[ty][tx]);
		}
#pragma unroll
	for (int ty = 0; ty < TILE_Y; ty++)
#pragma unroll
		for (int tx = 0; tx < TILE_X; tx++) {
			int ox = x0 + threadIdx.x + tx * BLOCK_X, oy = y0 + threadIdx.y + ty * BLOCK_Y;
			if (ox < w && oy < h)
				out[(size_t)oy * w + ox] = acc[ty][tx];
		}
}
