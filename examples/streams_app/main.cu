// main.cu: the streams experiment as a program, run the way autotune found fastest: the plan's
// choices from streams_tuned.h (STREAMS_PLAN_*) give the hardware queues, the streams and the
// dispatch order, the parameters the block; checks the result on the CPU and prints the time
// next to the tuned one.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "streams.cu"
#include "streams_tuned.h"

#define CHECK(call)                                                                                  \
	do {                                                                                         \
		cudaError_t e_ = (call);                                                             \
		if (e_ != cudaSuccess) {                                                             \
			std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
			std::exit(1);                                                                \
		}                                                                                    \
	} while (0)

#define STR_(x) #x
#define STR(x) STR_(x)

// configs/streams.yaml's constants
static const int threads = 128, total_iters = 1 << 20;

static_assert(STREAMS_PLAN_STREAMS >= 1 && STREAMS_PLAN_CONNECTIONS >= 1 && STREAMS_PLAN_CONNECTIONS <= 32,
	      "the tuned plan must be one a program can run");

// The build applied the header's recipe (STREAMS_NVCC_FLAGS) when the plan's first kernel got
// what the tuned binary's had: its registers and static shared memory (-1: the results did not say).
static bool built_as_tuned(const void *kernel)
{
	cudaFuncAttributes a;
	CHECK(cudaFuncGetAttributes(&a, kernel));
	bool same = (STREAMS_TUNED_REGISTERS < 0 || a.numRegs == STREAMS_TUNED_REGISTERS) &&
		    (STREAMS_TUNED_STATIC_SMEM < 0 || (int)a.sharedSizeBytes == STREAMS_TUNED_STATIC_SMEM);
	std::printf("build check: %d registers, %zu B static shared memory; tuned: %d, %d: %s\n", a.numRegs,
		    a.sharedSizeBytes, STREAMS_TUNED_REGISTERS, STREAMS_TUNED_STATIC_SMEM,
		    same ? "the tuned kernel" : "NOT the tuned kernel (build with the header's recipe)");
	return same;
}

int main()
{
	// Read when the context is created: before the first CUDA call, as the tuned worker had it.
	setenv("CUDA_DEVICE_MAX_CONNECTIONS", STR(STREAMS_PLAN_CONNECTIONS), 1);
	const int nstreams = STREAMS_PLAN_STREAMS, iters = total_iters / STREAMS_NSTREAMS;
	dim3 block(STREAMS_BLOCK), grid(threads / STREAMS_BLOCK);
	float *out;
	CHECK(cudaMalloc(&out, 4 * threads * sizeof(float)));
	std::vector<cudaStream_t> streams(nstreams);
	for (auto &s : streams)
		CHECK(cudaStreamCreate(&s));
	void (*kernels[4])(float *, int) = {kernel_1, kernel_2, kernel_3, kernel_4};
	// the tuned order: each kernel in every stream (breadth-first), or each stream's four kernels
	auto dispatch = [&]() {
		if (STREAMS_PLAN_BREADTH_FIRST)
			for (int k = 0; k < 4; k++)
				for (int s = 0; s < nstreams; s++)
					kernels[k]<<<grid, block, 0, streams[s]>>>(out, iters);
		else
			for (int s = 0; s < nstreams; s++)
				for (int k = 0; k < 4; k++)
					kernels[k]<<<grid, block, 0, streams[s]>>>(out, iters);
	};
	dispatch(); // warm-up
	CHECK(cudaDeviceSynchronize());
	cudaEvent_t t0, t1;
	CHECK(cudaEventCreate(&t0));
	CHECK(cudaEventCreate(&t1));
	// on the default stream, which the streams wait for and which waits for them
	CHECK(cudaEventRecord(t0, 0));
	dispatch();
	CHECK(cudaEventRecord(t1, 0));
	CHECK(cudaEventSynchronize(t1));
	float ms = 0;
	CHECK(cudaEventElapsedTime(&ms, t0, t1));
	std::vector<float> got(4 * threads);
	CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(float), cudaMemcpyDeviceToHost));

	// the same chains on the CPU (fmaf rounds once, as the GPU's does), one per start value
	size_t bad = 0;
	for (int k = 0; k < 4; k++)
		for (int start = 0; start < 13; start++) {
			float v = 0.1f * (float)start + (float)k;
			for (int i = 0; i < iters; i++)
				v = std::fmaf(v, 0.99999f, 0.001f);
			for (int tid = start; tid < threads; tid += 13)
				bad += got[k * threads + tid] != v;
		}
	std::printf("tuned for %s (%s), spec %s: %d streams, %s, CUDA_DEVICE_MAX_CONNECTIONS=%s, block %d, "
		    "%.4f ms when tuned\n",
		    streams_tuned.tuned_device, streams_tuned.tuned_arch, streams_tuned.spec_hash, STREAMS_PLAN_STREAMS,
		    STREAMS_PLAN_ORDER, std::getenv("CUDA_DEVICE_MAX_CONNECTIONS"), STREAMS_BLOCK, STREAMS_TIME_MS);
	std::printf("%d streams x 4 kernels: %.4f ms here, %s\n", nstreams, ms,
		    bad ? "WRONG" : "result checked on the CPU: correct");
	bool as_tuned = built_as_tuned((const void *)kernel_1);
	for (auto &s : streams)
		CHECK(cudaStreamDestroy(s));
	CHECK(cudaFree(out));
	return bad || !as_tuned ? 1 : 0;
}
