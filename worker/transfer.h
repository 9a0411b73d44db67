/* transfer.h: large copies between pageable host memory and the GPU at the speed of the link,
 * not of a pageable copy. */
#ifndef AUTOTUNE_TRANSFER_H
#define AUTOTUNE_TRANSFER_H

#include <cuda.h>
#include <stddef.h>

/* Copies bytes from pageable host memory at src to dst, or from src on the GPU to dst on the
 * host, and returns when they are there. Large copies go through two pinned buffers, several
 * threads copying into or out of one while the other's DMA runs; small ones (or when no pinned
 * memory can be had) are a plain cuMemcpyHtoD or cuMemcpyDtoH. */
CUresult upload(CUdeviceptr dst, const void *src, size_t bytes);
CUresult download(void *dst, CUdeviceptr src, size_t bytes);

#endif
