// gs_axpy.cu: y = a * x + y over n floats with a grid-stride loop, VEC floats per access and
// ilp independent accesses in flight per thread per step (a run-time argument: one binary per
// VEC). Elementwise: every configuration computes the same bits.
template <int V> struct vec;
template <> struct vec<1> { typedef float t; };
template <> struct vec<2> { typedef float2 t; };
template <> struct vec<4> { typedef float4 t; };

__device__ __forceinline__ float axpy1(float a, float x, float y) { return __fmaf_rn(a, x, y); }
__device__ __forceinline__ float2 axpy1(float a, float2 x, float2 y) { return make_float2(__fmaf_rn(a, x.x, y.x), __fmaf_rn(a, x.y, y.y)); }
__device__ __forceinline__ float4 axpy1(float a, float4 x, float4 y)
{
	return make_float4(__fmaf_rn(a, x.x, y.x), __fmaf_rn(a, x.y, y.y), __fmaf_rn(a, x.z, y.z), __fmaf_rn(a, x.w, y.w));
}

extern "C" __global__ void gs_axpy(float *y, const float *x, float a, int n, int ilp)
{
	typedef vec<VEC>::t T;
	const T *xv = reinterpret_cast<const T *>(x);
	T *yv = reinterpret_cast<T *>(y);
	long long m = n / VEC, stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += stride * ilp) {
		T xs[8], ys[8];
#pragma unroll
		for (int k = 0; k < 8; k++)
			if (k < ilp && i + k * stride < m) {
				xs[k] = __ldg(&xv[i + k * stride]);
				ys[k] = yv[i + k * stride];
			}
#pragma unroll
		for (int k = 0; k < 8; k++)
			if (k < ilp && i + k * stride < m)
				yv[i + k * stride] = axpy1(a, xs[k], ys[k]);
	}
}
