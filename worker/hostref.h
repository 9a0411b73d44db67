/* hostref.h: verify.host's reference, made on a thread while the kernels are timed (hostref.c). */
#ifndef AUTOTUNE_WORKER_HOSTREF_H
#define AUTOTUNE_WORKER_HOSTREF_H

#include <cuda.h>

/* hostref PATH: answered once the user's function is loaded and the arrays the host cannot make
 * are copied from the GPU; the host's fills and the function itself run on a thread after. */
void cmd_hostref(char *line);
/* Whether the reference is still to reach the GPU: a run that verifies joins it first. */
int hostref_pending(void);
/* Waits for the thread, then copies the outputs it wrote to the GPU, where every run that
 * verifies compares with them; CUDA_SUCCESS at once when nothing is pending. On an error, *arg
 * is the argument (from 0) whose copy failed, and the reference stays pending. */
CUresult hostref_join(int *arg);

#endif
