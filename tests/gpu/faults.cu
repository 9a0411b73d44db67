// faults.cu: a kernel that misbehaves on purpose, one way per MODE, so that `make test-gpu`
// proves each failure becomes a status of its own and the run goes on.
//   MODE 0: correct (out[i] = in[i] * 2)     MODE 1: a store 4 GiB out of bounds (crashed)
//   MODE 2: wrong value (wrong-result)       MODE 3: leaves out[0] unwritten (wrong-result)
//   MODE 4: __trap() (crashed: LAUNCH_FAILED on the H100)             MODE 5: a failing device-side assert (crashed)
//   MODE 6: never returns (timeout)
#include <assert.h>

extern "C" __global__ void scale(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
#if MODE == 1
	if (i == n - 1)
		out[i + (1 << 30)] = 1.0f;
#elif MODE == 3
	if (i == 0)
		return;
#elif MODE == 4
	if (i == n / 2)
		__trap();
#elif MODE == 5
	assert(in[i] > 2.0f);  // inputs are in [-1, 1)
#elif MODE == 6
	// Spins on a volatile load of global memory (inputs are below 2): an endless loop with no
	// side effect would be undefined behaviour that the compiler may delete.
	const volatile float *v = in;
	while (v[i] < 2.0f)
		;
#endif
	out[i] = in[i] * (MODE == 2 ? 3.0f : 2.0f);
}
