/* tune.h: the tuning run (tune.c), and `validate`, which stops after its first stage. */
#ifndef AUTOTUNE_TUNE_H
#define AUTOTUNE_TUNE_H

#include "cli.h"

/* Tunes (or validates, dry-runs, replays) the config o->config as o says; the exit status. */
int tune(const options *o);

/* The same for one instance of the config's instances: its part of the run (instances.h). */
struct instance_run;
int tune_instance(const options *o, struct instance_run *ir);

#endif
