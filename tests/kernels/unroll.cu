// `#pragma unroll UNROLL` with UNROLL a tuning parameter: nvcc does not macro-expand the pragma's
// argument (NVRTC does), so autotune rewrites it in a private copy of the source; 0: no pragma.
extern "C" __global__ void unrolled(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float s = 0.0f;
#pragma unroll UNROLL
	for (int k = 0; k < 16; k++)
		s += in[(i + k) % n] * (float)(k + 1);
	out[i] = s;
}
