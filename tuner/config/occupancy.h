/* occupancy.h: theoretical occupancy for a target architecture, computed without a GPU from
 * the compiler's resource report (through the toolkit's cuda_occupancy.h). */
#ifndef AUTOTUNE_OCCUPANCY_H
#define AUTOTUNE_OCCUPANCY_H

#include <stddef.h>

/* Compute capability as major*10+minor (90 for sm_90, 100 for sm_100), or -1 if the text is not
 * "sm_XY" or "sm_XYZ"; the one rule for --arch and kernel.arch. */
int arch_parse(const char *arch);
/* Whether the built-in table knows the SM resources of this compute capability. */
int arch_known(int cc);

typedef struct {
	int threads;        /* per block */
	int registers;      /* per thread, as ptxas reports */
	size_t static_smem; /* bytes per block */
	size_t dynamic_smem;
	int barriers;       /* named barriers from ptxas; 0 counts as 1, as in the driver */
} occupancy_input;

typedef struct {
	int active_blocks;  /* per SM; 0: the block cannot run at all */
	double occupancy;   /* active warps / max warps per SM, 0..1 */
	const char *limit;  /* what limits it: "registers", "shared memory", "warps", "blocks", "barriers" */
} occupancy_result;

/* 0 on success, -1 when the architecture is unknown. */
int occupancy_compute(int cc, const occupancy_input *in, occupancy_result *out);

/* Whether a launch of this block and grid with these resources must fail on the device, known
 * without launching: more threads or a larger block or grid than the device allows, more shared
 * memory per block (static + dynamic) than it can give, or registers x threads over what one
 * block may use (ptxas's count, allocated per warp in units of 256). NULL when it can launch (or
 * the architecture is unknown), else the CUDA error the driver gives, with why in words. */
const char *launch_predict(int cc, const occupancy_input *in, const long long block[3], const long long grid[3],
			   char *why, size_t len);

#endif
