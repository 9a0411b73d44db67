// summatrix_loop.cu: an independent check of autotune's timing of sumMatrix (seed 00, 3.7-3.9).
// Own copy of the kernel, CUDA runtime API, one event pair per launch, median of `repeats`.
// Prints machine-readable lines on stdout:
//   shape BX BY MEDIAN_MS MIN_MS MAX_MS     (every block shape of the summatrix space)
//   copy_gbps G                             (cudaMemcpy device-to-device, read + write bytes)
//   best BX BY MEDIAN_MS
// usage: summatrix_loop [nx ny] [repeats] [bx by ...]   (shapes default to the whole space)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                             \
	do {                                                                                    \
		cudaError_t e_ = (call);                                                        \
		if (e_ != cudaSuccess) {                                                        \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, cudaGetErrorName(e_), \
				cudaGetErrorString(e_));                                        \
			exit(1);                                                                \
		}                                                                               \
	} while (0)

__global__ void sumMatrix(const float *A, const float *B, float *C, int nx, int ny)
{
	unsigned int ix = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int iy = blockIdx.y * blockDim.y + threadIdx.y;
	size_t idx = (size_t)iy * nx + ix;
	if (ix < (unsigned)nx && iy < (unsigned)ny)
		C[idx] = A[idx] + B[idx];
}

static float median_of(std::vector<float> v)
{
	std::sort(v.begin(), v.end());
	size_t n = v.size();
	return n % 2 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
	int nx = 16384, ny = 16384, repeats = 20;
	int a = 1;
	if (argc > 2) {
		nx = atoi(argv[1]);
		ny = atoi(argv[2]);
		a = 3;
	}
	if (argc > a)
		repeats = atoi(argv[a++]);
	std::vector<std::pair<int, int>> shapes;
	for (; a + 1 < argc; a += 2)
		shapes.push_back({atoi(argv[a]), atoi(argv[a + 1])});
	if (shapes.empty())
		for (int bx = 1; bx <= 1024; bx *= 2)
			for (int by = 1; by <= 1024; by *= 2)
				if (bx * by >= 32 && bx * by <= 1024)
					shapes.push_back({bx, by});

	size_t n = (size_t)nx * ny, bytes = n * sizeof(float);
	std::vector<float> hA(n), hB(n), hC(n);
	unsigned long long s = 88172645463325252ull;  // xorshift: random, never zeros
	for (size_t i = 0; i < n; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		hA[i] = (float)(s >> 40) / 16777216.0f - 0.5f;
		hB[i] = (float)((s >> 16) & 0xFFFFFF) / 16777216.0f + 0.25f;
	}
	float *A, *B, *C;
	CHECK(cudaMalloc(&A, bytes));
	CHECK(cudaMalloc(&B, bytes));
	CHECK(cudaMalloc(&C, bytes));
	CHECK(cudaMemcpy(A, hA.data(), bytes, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(B, hB.data(), bytes, cudaMemcpyHostToDevice));
	cudaEvent_t start, stop;
	CHECK(cudaEventCreate(&start));
	CHECK(cudaEventCreate(&stop));

	// The SM clock idles low: half a second of work before anything is timed.
	{
		dim3 block(256, 1), grid((nx + 255) / 256, ny);
		CHECK(cudaEventRecord(start));
		float ms = 0;
		while (ms < 500) {
			for (int i = 0; i < 20; i++)
				sumMatrix<<<grid, block>>>(A, B, C, nx, ny);
			CHECK(cudaEventRecord(stop));
			CHECK(cudaEventSynchronize(stop));
			CHECK(cudaEventElapsedTime(&ms, start, stop));
		}
	}

	float best = 1e30f;
	int best_x = 0, best_y = 0;
	for (auto [bx, by] : shapes) {
		dim3 block(bx, by), grid((nx + bx - 1) / bx, (ny + by - 1) / by);
		// correctness first: poison C, run once, compare every element on the host
		CHECK(cudaMemset(C, 0xFF, bytes));
		sumMatrix<<<grid, block>>>(A, B, C, nx, ny);
		CHECK(cudaGetLastError());
		CHECK(cudaMemcpy(hC.data(), C, bytes, cudaMemcpyDeviceToHost));
		for (size_t i = 0; i < n; i++)
			if (hC[i] != hA[i] + hB[i]) {
				fprintf(stderr, "block %dx%d: C[%zu] = %g, expected %g\n", bx, by, i, hC[i], hA[i] + hB[i]);
				return 1;
			}
		for (int i = 0; i < 3; i++)
			sumMatrix<<<grid, block>>>(A, B, C, nx, ny);
		std::vector<float> t(repeats);
		for (int i = 0; i < repeats; i++) {
			CHECK(cudaEventRecord(start));
			sumMatrix<<<grid, block>>>(A, B, C, nx, ny);
			CHECK(cudaEventRecord(stop));
			CHECK(cudaEventSynchronize(stop));
			CHECK(cudaGetLastError());
			CHECK(cudaEventElapsedTime(&t[i], start, stop));
		}
		float med = median_of(t);
		printf("shape %d %d %.5f %.5f %.5f\n", bx, by, med, *std::min_element(t.begin(), t.end()),
		       *std::max_element(t.begin(), t.end()));
		fflush(stdout);
		if (med < best)
			best = med, best_x = bx, best_y = by;
	}

	// Copy bandwidth: 2 GiB device to device, counting bytes read plus bytes written.
	size_t cbytes = 2ull << 30;
	void *src, *dst;
	CHECK(cudaMalloc(&src, cbytes));
	CHECK(cudaMalloc(&dst, cbytes));
	CHECK(cudaMemset(src, 0x5A, cbytes));
	for (int i = 0; i < 3; i++)
		CHECK(cudaMemcpy(dst, src, cbytes, cudaMemcpyDeviceToDevice));
	std::vector<float> ct(20);
	for (auto &ms : ct) {
		CHECK(cudaEventRecord(start));
		CHECK(cudaMemcpyAsync(dst, src, cbytes, cudaMemcpyDeviceToDevice));
		CHECK(cudaEventRecord(stop));
		CHECK(cudaEventSynchronize(stop));
		CHECK(cudaEventElapsedTime(&ms, start, stop));
	}
	printf("copy_gbps %.1f\n", 2.0 * cbytes / (median_of(ct) * 1e-3) / 1e9);
	printf("best %d %d %.5f\n", best_x, best_y, best);
	return 0;
}
