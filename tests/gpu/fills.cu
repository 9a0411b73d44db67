// fills.cu: a kernel that leaves its arrays as the worker filled them, so that verify.host (which
// leaves them as the host made them: fills_ref.c) passes only where the host's fills are the
// GPU's, bit for bit (rtol 0, atol 0).
extern "C" __global__ void keep_fills(float *f, double *d, int *i, unsigned char *u, float *x, long long *c, float4 *v,
				      float4 *g, int n)
{
	// a read and a write the compiler cannot drop, of the value that is already there
	int k = blockIdx.x * blockDim.x + threadIdx.x;
	if (k < n && f[k] == 2.0f)
		f[k] = 2.0f;
}
