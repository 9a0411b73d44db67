/* result.h: everything autotune learns about one configuration, filled stage by stage
 * (geometry, occupancy, measurement) and written out by output.c. */
#ifndef AUTOTUNE_RESULT_H
#define AUTOTUNE_RESULT_H

#include <stdlib.h>

#include "status.h"

typedef struct {
	long long block[3], grid[3], smem; /* launch geometry, evaluated from the config */
	int occ_blocks;          /* theoretical active blocks per SM */
	double occupancy;        /* theoretical, 0..1 */
	const char *occ_limit;   /* static string: what limits it */
	int driver_blocks;       /* the driver's own occupancy answer, -1 when not asked */
	status st;
	char *message;           /* owned; why it failed, or notes */
	double t_median, t_min, t_max; /* milliseconds */
	int samples;
} result;

static inline void result_set_message(result *r, char *owned_message)
{
	free(r->message);
	r->message = owned_message;
}

#endif
