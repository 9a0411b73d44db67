// sumMatrixOnGPU2D from the execution-model notes (the block-shape experiments): C = A + B over
// an nx x ny matrix, one element per thread on a 2-D grid. The block shape decides coalescing (block.x a multiple of
// the warp), the number of resident blocks and so occupancy; autotune explores exactly that.
// extern "C" keeps the symbol name plain so the config can name it as written.
extern "C" __global__ void sumMatrixOnGPU2D(const float *A, const float *B, float *C, int nx, int ny)
{
	unsigned int ix = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int iy = blockIdx.y * blockDim.y + threadIdx.y;
	// 64-bit index: 16384 x 16384 elements is exactly 2^28, but a larger problem must not wrap.
	size_t idx = (size_t)iy * nx + ix;

	if (ix < (unsigned int)nx && iy < (unsigned int)ny)
		C[idx] = A[idx] + B[idx];
}

// The 1-D variant (the execution-model notes, 1-D grid): a 1-D grid over columns, each thread walking down its column.
// Fewer, longer threads: the seed's counterpoint to the 2-D grid.
extern "C" __global__ void sumMatrixOnGPU1D(const float *A, const float *B, float *C, int nx, int ny)
{
	unsigned int ix = blockIdx.x * blockDim.x + threadIdx.x;
	if (ix < (unsigned int)nx)
		for (int iy = 0; iy < ny; iy++) {
			size_t idx = (size_t)iy * nx + ix;
			C[idx] = A[idx] + B[idx];
		}
}
