// tests/gpu/vote.yaml: out[i] = 2 in[i] three ways that compile to different code (VARIANT 0, 1,
// 2: branches on n that never run), and wrongly (VARIANT 3: 3 in[i]), measured first.
extern "C" __global__ void twice(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	out[i] = in[i] * (VARIANT == 3 ? 3.0f : 2.0f);
#if VARIANT == 1
	if (n < 0)
		out[0] = 7.0f;
#elif VARIANT == 2
	if (n == -5)
		out[1] = in[2];
#endif
}
