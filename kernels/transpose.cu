// Tiled matrix transpose through shared memory (the occupancy notes, "effects of shared memory"): a TILE x
// TILE tile, padded by PAD floats per row against bank conflicts, in dynamic shared memory (the
// third launch parameter), which the config can enlarge to limit how many blocks fit on an SM.
#ifndef TILE
#define TILE 32
#endif
#ifndef PAD
#define PAD 1
#endif

extern "C" __global__ void transpose(const float *in, float *out, int nx, int ny)
{
	extern __shared__ float tile[];
	int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += blockDim.y)
		if (x < nx && y + j < ny)
			tile[(threadIdx.y + j) * (TILE + PAD) + threadIdx.x] = in[(size_t)(y + j) * nx + x];
	__syncthreads();
	x = blockIdx.y * TILE + threadIdx.x;
	y = blockIdx.x * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += blockDim.y)
		if (x < ny && y + j < nx)
			out[(size_t)(y + j) * ny + x] = tile[threadIdx.x * (TILE + PAD) + threadIdx.y + j];
}
