/* profile.h: the profiling commands (profile.c): hardware counters of a configuration. */
#ifndef AUTOTUNE_WORKER_PROFILE_H
#define AUTOTUNE_WORKER_PROFILE_H

void cmd_counters(char *line);
void cmd_profile(char *line);
int cmd_profiles(void);
void profiler_pause(void);
void profile_close(void);

#endif
