/* cuda.h for tests/hostref_thread.c: the driver API's names that worker/'s headers use, so that
 * worker/hostref.c builds and runs on the CPU without a CUDA toolkit (the unit tier has none). */
#ifndef AUTOTUNE_TESTS_NOCUDA_H
#define AUTOTUNE_TESTS_NOCUDA_H

typedef int CUresult;
enum { CUDA_SUCCESS = 0, CUDA_ERROR_OUT_OF_MEMORY = 2 };
typedef unsigned long long CUdeviceptr;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef enum { CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8 } CUfunction_attribute;
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute attrib, int value);

#endif
