/* macros.c: the tuned header's macro names, and the clashes that would make it unwritable. */
#include "macros.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "banned.h"

char *macro_name(const char *config_name, const char *param)
{
	char *m = xasprintf("%s_%s", config_name, param);
	for (char *p = m; *p; p++)
		*p = isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '_';
	return m;
}

/* Suffixes the header defines besides the parameters; a parameter of one of these names would
 * define the same macro twice. */
static const char *const reserved[] = {"TIME_MS", "NVCC_FLAGS", "SPEC_HASH", "TUNED_DEVICE", "TUNED_ARCH",
				       "TUNED_H", "TUNED_UNUSED_", "TARGETS", "LINK_FLAGS", "KERNEL_SOURCE",
				       "CODE_HASH", "TUNED_REGISTERS", "TUNED_STATIC_SMEM", "INCLUDE_FLAGS",
				       "FRAGMENT_DIR", "COMPLETE", "RUN", "MEASURED", "CONFIGURATIONS", NULL};
/* and with a plan, its host-side choices: what a program must repeat to run the plan as tuned */
static const char *const plan_reserved[] = {"PLAN_STREAMS", "PLAN_ORDER", "PLAN_BREADTH_FIRST", "PLAN_CONNECTIONS", NULL};

int macro_reserved(const char *suffix, int plan)
{
	for (const char *const *r = reserved; *r; r++)
		if (!strcmp(suffix, *r))
			return 1;
	for (const char *const *r = plan_reserved; plan && *r; r++)
		if (!strcmp(suffix, *r))
			return 1;
	return 0;
}

char *macro_clash(const char *config_name, char *const *params, size_t n, int plan, size_t *at, size_t *other)
{
	char **m = xcalloc(n + 1, sizeof *m), *why = NULL;
	size_t plen = strlen(config_name) + 1;
	for (size_t i = 0; i < n && !why; i++) {
		m[i] = macro_name(config_name, params[i]);
		*at = i;
		*other = SIZE_MAX;
		if (macro_reserved(m[i] + plen, plan))
			why = xasprintf("parameter '%s' would define %s, which the tuned header defines for itself: rename it",
					params[i], m[i]);
		for (size_t j = 0; j < i && !why; j++)
			if (!strcmp(m[i], m[j])) {
				*other = j;
				why = xasprintf("parameters '%s' and '%s' both become the tuned header's macro %s: rename one",
						params[j], params[i], m[i]);
			}
	}
	for (size_t i = 0; i < n; i++)
		free(m[i]);
	free(m);
	return why;
}
