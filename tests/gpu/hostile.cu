// hostile.cu: kernels a careless or hostile user could give autotune, one per MODE, so that
// `make test-gpu` proves each ends as a status of its configuration, the run goes on, and the
// next configuration is measured as if nothing had happened.
//   MODE 0: correct (out[i] = in[i] * 2)
//   MODE 1: writes 64 GiB past the end of out (crashed)
//   MODE 2: __trap() in one thread (crashed)
//   MODE 3: spins forever (timeout, bounded by measure.timeout)
//   MODE 4: takes device malloc until it fails and never frees, then computes correctly (ok: the
//           heap is the context's, and the next configuration runs in a fresh worker or not)
//   MODE 5: takes device malloc until it fails, then writes through the NULL it got (crashed)
//   MODE 6: printf in a loop from 4096 threads (ok or timeout; worker.log stays bounded)
#include <stdio.h>

extern "C" __global__ void scale(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
#if MODE == 1
	if (i == n - 1)
		out[i + (16ll << 30)] = 1.0f;
#elif MODE == 2
	if (i == n / 3)
		__trap();
#elif MODE == 3
	// a volatile load of global memory: an endless loop with no side effect could be deleted
	const volatile float *v = in;
	while (v[i] < 2.0f)
		;
#elif MODE == 4 || MODE == 5
	if (i % 1024 == 0) {
		char *p;
		while ((p = (char *)malloc(1 << 20)) != NULL)
			p[0] = 1;
#if MODE == 5
		// p is NULL here; read back through a volatile, or the compiler drops a store it can
		// prove goes to NULL
		char *volatile q = p;
		q[i] = 1;
#endif
	}
#elif MODE == 6
	if (i < 4096)
		for (int k = 0; k < 1000; k++)
			printf("thread %d says hello for the %dth time\n", i, k);
#endif
	out[i] = in[i] * 2.0f;
}
