/* cuda_bf16.h for tests/fake_nvcc.c: the types a kernel's parameters name, with their sizes (the
 * argument check reads them); the functions are declared only, as fake_nvcc compiles nothing. */
#ifndef FAKE_CUDA_BF16_H
#define FAKE_CUDA_BF16_H
struct __nv_bfloat16 { unsigned short x; };
struct __nv_bfloat162 { unsigned short x, y; };
float __bfloat162float(__nv_bfloat16 a);
__nv_bfloat16 __float2bfloat16_rn(float a);
#endif
