// A templated entry point: the module holds the mangled _Z6scaledILi3EEvPKfPfi, which autotune
// finds by the plain name "scaled".
#ifndef SCALE
#define SCALE 3
#endif

template <int S> __global__ void scaled(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = in[i] * S;
}
template __global__ void scaled<SCALE>(const float *, float *, int);
