// kernel.cu: the summatrix kernel as one variant of summatrix_sizes_tuned.h builds it. The Makefile
// compiles this file once per variant K with the fragment's SUMMATRIX_SIZES_VK_NVCC_FLAGS, which
// define SUMMATRIX_SIZES_VARIANT=K and give the kernel a name of its own (sumMatrixOnGPU2D_vK), so
// that one program links every variant; run_vK launches it.
#include "summatrix_sizes_tuned.h"
// the recipe renames the tuned kernel; the file's other kernel is defined by every variant's build
// too, so it gets a name per variant here, or the program's link would find it twice
#define sumMatrixOnGPU1D SUMMATRIX_SIZES_VARIANT_NAME(sumMatrixOnGPU1D)
#include "summatrix.cu"

extern "C" int SUMMATRIX_SIZES_VARIANT_NAME(run)(const float *a, const float *b, float *c, int nx, int ny, int bx,
						   int by)
{
	dim3 block(bx, by), grid((nx + bx - 1) / bx, (ny + by - 1) / by);
	sumMatrixOnGPU2D<<<grid, block>>>(a, b, c, nx, ny);
	return (int)cudaGetLastError();
}
