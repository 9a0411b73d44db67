// tests/gpu/mismatch.yaml: an integer output in which WRONG elements differ from the reference
// configuration's (WRONG = 0), as points on a polygon's boundary may between implementations.
extern "C" __global__ void classify(int *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = i < WRONG ? -1 : i % 3;
}
