// half_t.cuh: the 16-bit floats as the helper kernels see them: their bits, converted to and
// from double by lib/half.h (exactly, rounding to nearest even), so that every fill, compare
// and sum template of worker_kernels.cu takes them as it takes float, and the conversions the
// GPU does are the ones tests/test_half.c checks on the host.
#ifndef AUTOTUNE_WORKER_HALF_T_CUH
#define AUTOTUNE_WORKER_HALF_T_CUH

#include <stdint.h>

#include "half.h"

template <int MANT, int EXP> struct narrow_float {
	uint16_t bits;
	narrow_float() = default;
	__device__ narrow_float(double d) : bits(narrow_from_double(d, MANT, EXP)) {}
	__device__ operator double() const { return narrow_to_double(bits, MANT, EXP); }
};
typedef narrow_float<HALF_MANT, HALF_EXP> half_t;
typedef narrow_float<BF16_MANT, BF16_EXP> bf16_t;
static_assert(sizeof(half_t) == 2 && sizeof(bf16_t) == 2, "stored as CUDA's __half and __nv_bfloat16");

#endif
