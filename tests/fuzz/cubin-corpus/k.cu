// The seed of `make fuzz`'s cubin corpus, compiled there: kernels of no, scalar, pointer, struct
// and vector parameters, plain and C++-mangled, and kernels whose .nv.info holds records of every
// format besides the parameters (a barrier, dynamic shared memory, a template, a grid sync).
#include <cooperative_groups.h>
struct S { int a[5]; };
extern "C" __global__ void k(float *a, float b, int n) { if (threadIdx.x < n) a[threadIdx.x] = b; }
extern "C" __global__ void k0() {}
__global__ void ks(S s, char c, short h, float2 v, double4 w, double *p) { p[0] = s.a[3] + c + h + v.x + w.w; }
extern "C" __global__ void kb(float *o, float norm) { __shared__ float t[64]; t[threadIdx.x] = norm; __syncthreads(); o[threadIdx.x] = t[63 - threadIdx.x]; }
extern "C" __global__ void kd(float *o, char c) { extern __shared__ float t[]; t[threadIdx.x] = c; __syncthreads(); o[threadIdx.x] = t[threadIdx.x ^ 1]; }
extern "C" __global__ void kg(float *o, double x) { cooperative_groups::this_grid().sync(); o[blockIdx.z * gridDim.x + threadIdx.x] = x; }
template <int N> __global__ void kt(float *o, short h) { __shared__ float t[N]; t[threadIdx.x] = h; __syncthreads(); o[threadIdx.x] = t[N - 1 - threadIdx.x]; }
template __global__ void kt<64>(float *, short);
