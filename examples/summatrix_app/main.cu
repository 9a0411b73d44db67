// main.cu: summatrix (C = A + B) launched with the block shape autotune chose, from
// summatrix_tuned.h; checks that this build compiled the tuned kernel, checks the result on the
// CPU and prints the time next to the tuned one.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "summatrix.cu"
#include "summatrix_tuned.h"

#define CHECK(call)                                                                                  \
	do {                                                                                         \
		cudaError_t e_ = (call);                                                             \
		if (e_ != cudaSuccess) {                                                             \
			std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
			std::exit(1);                                                                \
		}                                                                                    \
	} while (0)

// The macros are compile-time constants: a launch bound, a static check, a template argument.
static_assert(SUMMATRIX_BLOCK_X * SUMMATRIX_BLOCK_Y >= 32 && SUMMATRIX_BLOCK_X * SUMMATRIX_BLOCK_Y <= 1024,
	      "the tuned block must be a legal block");

// The build applied the header's recipe (SUMMATRIX_NVCC_FLAGS) when the kernel got what the tuned
// binary had: its registers and static shared memory (-1: the results did not say).
static bool built_as_tuned(const void *kernel)
{
	cudaFuncAttributes a;
	CHECK(cudaFuncGetAttributes(&a, kernel));
	bool same = (SUMMATRIX_TUNED_REGISTERS < 0 || a.numRegs == SUMMATRIX_TUNED_REGISTERS) &&
		    (SUMMATRIX_TUNED_STATIC_SMEM < 0 || (int)a.sharedSizeBytes == SUMMATRIX_TUNED_STATIC_SMEM);
	std::printf("build check: %d registers, %zu B static shared memory; tuned: %d, %d: %s\n", a.numRegs,
		    a.sharedSizeBytes, SUMMATRIX_TUNED_REGISTERS, SUMMATRIX_TUNED_STATIC_SMEM,
		    same ? "the tuned kernel" : "NOT the tuned kernel (build with the header's recipe)");
	return same;
}

int main(int argc, char **argv)
{
	// the size tuned for (configs/summatrix.yaml: nx = ny = 16384) unless told otherwise
	int nx = argc > 1 ? std::atoi(argv[1]) : 16384, ny = argc > 2 ? std::atoi(argv[2]) : 16384;
	size_t n = (size_t)nx * ny, bytes = n * sizeof(float);
	std::vector<float> a(n), b(n), c(n);
	for (size_t i = 0; i < n; i++) {
		a[i] = (float)(i % 1000) * 0.5f;
		b[i] = (float)(i % 777) * 0.25f;
	}
	float *da, *db, *dc;
	CHECK(cudaMalloc(&da, bytes));
	CHECK(cudaMalloc(&db, bytes));
	CHECK(cudaMalloc(&dc, bytes));
	CHECK(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice));

	dim3 block(SUMMATRIX_BLOCK_X, SUMMATRIX_BLOCK_Y);
	dim3 grid((nx + block.x - 1) / block.x, (ny + block.y - 1) / block.y);
	sumMatrixOnGPU2D<<<grid, block>>>(da, db, dc, nx, ny); // warm-up
	CHECK(cudaGetLastError());
	cudaEvent_t t0, t1;
	CHECK(cudaEventCreate(&t0));
	CHECK(cudaEventCreate(&t1));
	const int reps = 20;
	CHECK(cudaEventRecord(t0));
	for (int r = 0; r < reps; r++)
		sumMatrixOnGPU2D<<<grid, block>>>(da, db, dc, nx, ny);
	CHECK(cudaEventRecord(t1));
	CHECK(cudaEventSynchronize(t1));
	float ms = 0;
	CHECK(cudaEventElapsedTime(&ms, t0, t1));
	CHECK(cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost));

	size_t bad = 0;
	for (size_t i = 0; i < n; i++)
		bad += c[i] != a[i] + b[i];
	std::printf("tuned for %s (%s), spec %s: block %dx%d, maxrreg %d, nvcc flags \"%s\", %.4f ms when tuned\n",
		    summatrix_tuned.tuned_device, summatrix_tuned.tuned_arch, summatrix_tuned.spec_hash, SUMMATRIX_BLOCK_X,
		    SUMMATRIX_BLOCK_Y, SUMMATRIX_MAXRREG, SUMMATRIX_NVCC_FLAGS, SUMMATRIX_TIME_MS);
	std::printf("%dx%d: %.4f ms per launch here (mean of %d), %s\n", nx, ny, ms / reps, reps,
		    bad ? "WRONG" : "result checked on the CPU: correct");
	if (bad)
		std::fprintf(stderr, "%zu of %zu elements differ\n", bad, n);
	bool as_tuned = built_as_tuned((const void *)sumMatrixOnGPU2D);
	CHECK(cudaFree(da));
	CHECK(cudaFree(db));
	CHECK(cudaFree(dc));
	return bad || !as_tuned ? 1 : 0;
}
