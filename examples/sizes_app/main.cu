// main.cu: summatrix (C = A + B) at three sizes, each launched with the configuration that
// summatrix_sizes_select() picks from the tuned header: a tuned size gets its own winner, an
// untuned one the nearest tuned size's (in log scale). Each result is checked on the CPU. Prints
// per size the pick, and whether it is a tuned size's own winner.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "summatrix_sizes_tuned.h"

typedef int (*run_fn)(const float *, const float *, float *, int, int, int, int);
// one launcher per variant (kernel.cu, built once per variant)
extern "C" int run_v0(const float *, const float *, float *, int, int, int, int);
#if SUMMATRIX_SIZES_VARIANTS > 1
extern "C" int run_v1(const float *, const float *, float *, int, int, int, int);
#endif
#if SUMMATRIX_SIZES_VARIANTS > 2
extern "C" int run_v2(const float *, const float *, float *, int, int, int, int);
#endif
#if SUMMATRIX_SIZES_VARIANTS > 3
#error "this example links at most 3 variants"
#endif
static const run_fn runs[] = {
	run_v0,
#if SUMMATRIX_SIZES_VARIANTS > 1
	run_v1,
#endif
#if SUMMATRIX_SIZES_VARIANTS > 2
	run_v2,
#endif
};

#define CHECK(call)                                                                                  \
	do {                                                                                         \
		cudaError_t e_ = (call);                                                             \
		if (e_ != cudaSuccess) {                                                             \
			std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
			std::exit(1);                                                                \
		}                                                                                    \
	} while (0)

// One size: the pick, the launch, the check. 0 when the result is right.
static int one(int n)
{
	const struct summatrix_sizes_instance *s = summatrix_sizes_select(n, n);
	if (!s) {
		std::fprintf(stderr, "%d: no pick\n", n);
		return 1;
	}
	size_t count = (size_t)n * n, bytes = count * sizeof(float);
	std::vector<float> a(count), b(count), c(count);
	for (size_t i = 0; i < count; i++) {
		a[i] = (float)(i % 1000) * 0.5f;
		b[i] = (float)(i % 777) * 0.25f;
	}
	float *da, *db, *dc;
	CHECK(cudaMalloc(&da, bytes));
	CHECK(cudaMalloc(&db, bytes));
	CHECK(cudaMalloc(&dc, bytes));
	CHECK(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice));
	CHECK((cudaError_t)runs[s->variant](da, db, dc, n, n, s->block_x, s->block_y));
	CHECK(cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost));
	size_t bad = 0;
	for (size_t i = 0; i < count; i++)
		bad += c[i] != a[i] + b[i];
	int tuned = s->nx == n && s->ny == n;
	std::printf("%dx%d: %s %.0fx%.0f: block_x=%d block_y=%d maxrreg=%d (variant %d, %.4f ms when tuned): %s\n", n, n,
		    tuned ? "tuned, its own winner," : "untuned, the nearest tuned size", s->nx, s->ny, s->block_x,
		    s->block_y, s->maxrreg, s->variant, s->time_ms, bad ? "WRONG" : "checked on the CPU: correct");
	CHECK(cudaFree(da));
	CHECK(cudaFree(db));
	CHECK(cudaFree(dc));
	return bad != 0;
}

int main(int argc, char **argv)
{
	// two tuned sizes and one between them, unless told otherwise
	int sizes[3] = {1024, 2048, 4096}, rc = 0;
	for (int i = 1; i < argc && i <= 3; i++)
		sizes[i - 1] = std::atoi(argv[i]);
	for (int i = 0; i < 3; i++)
		rc |= one(sizes[i]);
	return rc;
}
