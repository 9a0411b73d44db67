/* cuda_fp16.h for tests/fake_nvcc.c: the types a kernel's parameters name, with their sizes (the
 * argument check reads them); the functions are declared only, as fake_nvcc compiles nothing. */
#ifndef FAKE_CUDA_FP16_H
#define FAKE_CUDA_FP16_H
struct __half { unsigned short x; };
struct __half2 { unsigned short x, y; };
__half2 __half2half2(__half a);
__half2 __hfma2(__half2 a, __half2 b, __half2 c);
#endif
