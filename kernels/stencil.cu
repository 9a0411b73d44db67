// A 3-D 7-point Jacobi stencil, out = C0 * centre + C1 * (sum of the 6 neighbours), on an
// nx x ny x nz float grid. Each thread owns TILE_X x TILE_Y columns, BLOCK_X (BLOCK_Y) apart so
// that a warp's loads stay side by side, and walks ZCHUNK planes up z holding the planes z-1, z
// and z+1 of its columns in registers (ZCHUNK 1: one output per column, no reuse along z).
// SMEM stages each plane's tile, with its x/y halo, in shared memory (else the x/y neighbours
// are loads that L1 may catch); Z_UNROLL unrolls the z march (rotating the registers for free);
// READ_ONLY loads through the read-only path (else plain loads, which must stay ordered against
// the stores since in and out are not __restrict__).
// Boundary points are copied from in, so every element is written: the output can be poisoned.
// The arithmetic is one fixed expression in explicit round-to-nearest operations, so that nvcc
// cannot contract it into FMAs differently per variant: all configurations agree exactly.
#ifndef BLOCK_X
#define BLOCK_X 32
#endif
#ifndef BLOCK_Y
#define BLOCK_Y 4
#endif
#ifndef TILE_X
#define TILE_X 1
#endif
#ifndef TILE_Y
#define TILE_Y 1
#endif
#ifndef ZCHUNK
#define ZCHUNK 8
#endif
#ifndef SMEM
#define SMEM 0
#endif
#ifndef Z_UNROLL
#define Z_UNROLL 1
#endif
#ifndef READ_ONLY
#define READ_ONLY 0
#endif

#if READ_ONLY
#define LOAD(p) __ldg(p)
#else
#define LOAD(p) (*(p))
#endif

#define TW (BLOCK_X * TILE_X) // the block's tile of columns
#define TH (BLOCK_Y * TILE_Y)
#define C0 0.4f
#define C1 0.1f
// nvcc does not macro-expand a pragma's argument, but takes a constant: -DZ_UNROLL works as is
constexpr int z_unroll = Z_UNROLL;

static __device__ __forceinline__ float point(float c, float xm, float xp, float ym, float yp, float zm, float zp)
{
	float s = __fadd_rn(__fadd_rn(__fadd_rn(xm, xp), __fadd_rn(ym, yp)), __fadd_rn(zm, zp));
	return __fadd_rn(__fmul_rn(C0, c), __fmul_rn(C1, s));
}

// in, out: nx x ny x nz, x fastest. Block z handles interior planes [1 + z * ZCHUNK, +ZCHUNK),
// the first block also plane 0 and the last plane nz - 1. The launch bounds hold ptxas to the
// registers a block of this size may have (65536 / threads), so every configuration launches.
extern "C" __global__ void __launch_bounds__(BLOCK_X * BLOCK_Y)
stencil(float *out, const float *in, int nx, int ny, int nz)
{
	const size_t plane = (size_t)nx * ny;
	const int bx = blockIdx.x * TW, by = blockIdx.y * TH;
	const int zb = 1 + blockIdx.z * ZCHUNK, ze = min(zb + ZCHUNK, nz - 1);
	float below[TILE_Y][TILE_X], cur[TILE_Y][TILE_X], above[TILE_Y][TILE_X];
#if SMEM
	__shared__ float tile[TH + 2][TW + 2];
#endif
#pragma unroll
	for (int ty = 0; ty < TILE_Y; ty++)
#pragma unroll
		for (int tx = 0; tx < TILE_X; tx++) {
			const int x = bx + tx * BLOCK_X + threadIdx.x, y = by + ty * BLOCK_Y + threadIdx.y;
			const size_t i = (size_t)(zb - 1) * plane + (size_t)y * nx + x;
			const bool ok = x < nx && y < ny;
			below[ty][tx] = ok ? LOAD(in + i) : 0.0f;
			cur[ty][tx] = ok ? LOAD(in + i + plane) : 0.0f;
			if (ok && zb == 1)
				out[i] = below[ty][tx]; // plane 0: boundary
		}
#pragma unroll z_unroll
	for (int z = zb; z < ze; z++) {
		const size_t zo = (size_t)z * plane;
#pragma unroll
		for (int ty = 0; ty < TILE_Y; ty++)
#pragma unroll
			for (int tx = 0; tx < TILE_X; tx++) {
				const int x = bx + tx * BLOCK_X + threadIdx.x, y = by + ty * BLOCK_Y + threadIdx.y;
				above[ty][tx] = x < nx && y < ny ? LOAD(in + zo + plane + (size_t)y * nx + x) : 0.0f;
			}
#if SMEM
		__syncthreads(); // the previous plane is no longer read
#pragma unroll
		for (int ty = 0; ty < TILE_Y; ty++)
#pragma unroll
			for (int tx = 0; tx < TILE_X; tx++)
				tile[ty * BLOCK_Y + threadIdx.y + 1][tx * BLOCK_X + threadIdx.x + 1] = cur[ty][tx];
		// the halo: rows above and below the tile, then columns left and right (no corners)
		for (int h = threadIdx.y * BLOCK_X + threadIdx.x; h < 2 * (TW + TH); h += BLOCK_X * BLOCK_Y) {
			int sy, sx;
			if (h < 2 * TW)
				sy = h < TW ? 0 : TH + 1, sx = h % TW + 1;
			else
				sx = h < 2 * TW + TH ? 0 : TW + 1, sy = (h - 2 * TW) % TH + 1;
			const int gx = bx + sx - 1, gy = by + sy - 1;
			tile[sy][sx] = gx >= 0 && gx < nx && gy >= 0 && gy < ny ? LOAD(in + zo + (size_t)gy * nx + gx) : 0.0f;
		}
		__syncthreads();
#endif
#pragma unroll
		for (int ty = 0; ty < TILE_Y; ty++)
#pragma unroll
			for (int tx = 0; tx < TILE_X; tx++) {
				const int x = bx + tx * BLOCK_X + threadIdx.x, y = by + ty * BLOCK_Y + threadIdx.y;
				if (x >= nx || y >= ny)
					continue;
				const size_t i = zo + (size_t)y * nx + x;
				float v = cur[ty][tx]; // x/y boundary: a copy
				if (x > 0 && x < nx - 1 && y > 0 && y < ny - 1) {
#if SMEM
					const int sy = ty * BLOCK_Y + threadIdx.y + 1, sx = tx * BLOCK_X + threadIdx.x + 1;
					v = point(v, tile[sy][sx - 1], tile[sy][sx + 1], tile[sy - 1][sx], tile[sy + 1][sx],
						  below[ty][tx], above[ty][tx]);
#else
					v = point(v, LOAD(in + i - 1), LOAD(in + i + 1), LOAD(in + i - nx), LOAD(in + i + nx),
						  below[ty][tx], above[ty][tx]);
#endif
				}
				out[i] = v;
				below[ty][tx] = cur[ty][tx];
				cur[ty][tx] = above[ty][tx];
			}
	}
	if (ze == nz - 1) // the last block: plane nz - 1, now in cur
#pragma unroll
		for (int ty = 0; ty < TILE_Y; ty++)
#pragma unroll
			for (int tx = 0; tx < TILE_X; tx++) {
				const int x = bx + tx * BLOCK_X + threadIdx.x, y = by + ty * BLOCK_Y + threadIdx.y;
				if (x < nx && y < ny)
					out[(size_t)(nz - 1) * plane + (size_t)y * nx + x] = cur[ty][tx];
			}
}
