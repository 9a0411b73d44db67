// Vector element types: float4 arrays added lane by lane, a double3 array scaled; arguments of
// CUDA vector types are filled and compared component by component.
extern "C" __global__ void vectors(const float4 *a, const float4 *b, float4 *c, double3 *d, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float4 x = a[i], y = b[i];
	c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
	double3 v = d[i];
	d[i] = make_double3(2 * v.x, 3 * v.y, 4 * v.z);
}
