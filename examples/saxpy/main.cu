// main.cu: saxpy launched with the tuned block size; ITEMS comes from the recipe's -DITEMS=...
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "saxpy.cu"
#include "saxpy_tuned.h"

int main()
{
	const int n = 1 << 24;
	std::vector<float> x(n), y(n);
	for (int i = 0; i < n; i++) {
		x[i] = (float)(i % 1000) / 1000.0f;
		y[i] = (float)(i % 7);
	}
	float *dx, *dy;
	if (cudaMalloc(&dx, n * sizeof(float)) != cudaSuccess || cudaMalloc(&dy, n * sizeof(float)) != cudaSuccess) {
		fprintf(stderr, "saxpy: no GPU memory\n");
		return 1;
	}
	cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
	cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice);
	int block = SAXPY_BLOCK, grid = (n + block * ITEMS - 1) / (block * ITEMS);
	saxpy<<<grid, block>>>(n, 2.0f, dx, dy);
	std::vector<float> out(n);
	if (cudaMemcpy(out.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) {
		fprintf(stderr, "saxpy: %s\n", cudaGetErrorString(cudaGetLastError()));
		return 1;
	}
	for (int i = 0; i < n; i++)
		if (out[i] != 2.0f * x[i] + y[i]) {
			fprintf(stderr, "saxpy: y[%d] = %g, expected %g\n", i, out[i], 2.0f * x[i] + y[i]);
			return 1;
		}
	printf("saxpy ok: block %d, %d items per thread (tuned on %s, %.4f ms)\n", block, ITEMS, SAXPY_TUNED_DEVICE,
	       SAXPY_TIME_MS);
	return 0;
}
