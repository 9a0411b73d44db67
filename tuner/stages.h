/* stages.h: the summary's line of where a run's wall time went, by what each stage does. */
#ifndef AUTOTUNE_STAGES_H
#define AUTOTUNE_STAGES_H

#include <stddef.h>

/* The stages, in the order a run passes them; only what a user can change. */
enum {
	STAGE_START,   /* starting the GPU: the driver and a context */
	STAGE_NVCC,    /* waiting for nvcc */
	STAGE_INPUTS,  /* waiting for the inputs (fills, copies, host reference, warm-up) beyond nvcc */
	STAGE_MEASURE, /* measuring */
	STAGE_FINAL,   /* the finalists' rounds */
	STAGE_COUNTERS,
	STAGE_WRITE,
	STAGE_COUNT
};

/* "NAME: ALL s: X s starting the GPU(s), ..., Y s writing[, Z s other]; cores P% busy" on stderr:
 * "other" (loading, enumerating, hashing) when it is 0.05 s or more; the cores are the CPU time
 * of this process and its children over `all` seconds of every core. */
void stages_say(const char *name, size_t ngpus, double all, const double part[STAGE_COUNT]);

#endif
