// The seed of `make fuzz`'s cubin corpus, compiled there: kernels of no, scalar, pointer, struct
// and vector parameters, plain and C++-mangled.
struct S { int a[5]; };
extern "C" __global__ void k(float *a, float b, int n) { if (threadIdx.x < n) a[threadIdx.x] = b; }
extern "C" __global__ void k0() {}
__global__ void ks(S s, char c, short h, float2 v, double4 w, double *p) { p[0] = s.a[3] + c + h + v.x + w.w; }
