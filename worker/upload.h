/* upload.h: a large host-to-device copy at the speed of the link, not of a pageable copy. */
#ifndef AUTOTUNE_UPLOAD_H
#define AUTOTUNE_UPLOAD_H

#include <cuda.h>
#include <stddef.h>

/* Copies bytes from pageable host memory at src to dst and returns when they are there. Large
 * copies go through two pinned buffers, several threads filling one while the other's DMA runs;
 * small ones (or when no pinned memory can be had) are a plain cuMemcpyHtoD. */
CUresult upload(CUdeviceptr dst, const void *src, size_t bytes);

#endif
