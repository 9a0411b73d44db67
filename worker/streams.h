/* streams.h: a plan, run in place of a run's single launch (streams.c): its launches over
 * streams, and its serial time. */
#ifndef AUTOTUNE_WORKER_STREAMS_H
#define AUTOTUNE_WORKER_STREAMS_H

#include <cuda.h>
#include <stddef.h>

void cmd_plan(char *line);
void cmd_step(char *line);
/* Whether a plan was sent for the next run; plan_done forgets it once the run is over. */
int plan_pending(void);
void plan_done(void);
/* Launches one execution of the plan makes (steps x streams). */
int plan_launches(void);
/* The steps' functions from mod, their parameters, the streams: 0, or the CUDA error (why in why). */
CUresult plan_load(CUmodule mod, char *why, size_t len);
/* The plan executed `times` times back to back, dispatched in its order. */
CUresult plan_execute(int times);
/* Each step alone (before_each(i) ahead of each launch), the medians summed, times the streams. */
CUresult plan_serial(CUresult (*before_each)(int), double *ms);
void plan_free(void);

#endif
