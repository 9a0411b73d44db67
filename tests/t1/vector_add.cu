// Vector addition in the style of Kernel Tuner's examples: the tuning parameter block_size_x
// arrives as a define, as T1 tuners pass it.
extern "C" __global__ void vector_add(float *c, const float *a, const float *b, int n)
{
	int i = blockIdx.x * block_size_x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}
