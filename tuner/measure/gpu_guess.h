/* gpu_guess.h: the GPUs' architecture asked of NVML, in milliseconds, so that nvcc can start while
 * the worker spends a third of a second opening the GPU (the driver and a context). A guess: the
 * worker's answer decides, and a wrong guess only costs the compiles started on it. */
#ifndef GPU_GUESS_H
#define GPU_GUESS_H

/* The compute capability (90 for sm_90) that every GPU NVML sees shares; -1 when they differ,
 * when there is none, or NVML cannot be loaded. AUTOTUNE_NVML names the library to load (tests);
 * without it, a stand-in worker (AUTOTUNE_WORKER) gets no guess: its GPU is not this machine's. */
int gpu_guess_cc(void);

#endif
