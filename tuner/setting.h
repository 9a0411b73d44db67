/* setting.h: what every measurement of a run shares beyond its configuration's binary and launch. */
#ifndef AUTOTUNE_SETTING_H
#define AUTOTUNE_SETTING_H

#include <stddef.h>

#include "runner.h"

typedef struct config config;

/* As 16 hex digits (part of plan_identity): the config's sections that decide how a
 * configuration is measured and checked (arguments, launch, plan, verify, measure, constants;
 * read as YAML, so comments and layout do not count, nor name, kernel, space, constraints, build,
 * search, select, bytes, flops, output, instances: the code hash, the launch and the constants
 * below cover what they do to a measurement), the constants' values (an instance's), the contents
 * of the data files and of the host reference, the first GPU (name, UUID), its driver, the number
 * of GPUs and the connections a plan gets by default. Caller frees. */
char *run_setting(const config *cfg, const device_info *gpu0, size_t ngpus);

#endif
