/* names.c: a configuration as messages name it: "x=1 y=2". */
#include "names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "banned.h"

char *space_describe(const config *cfg, const value *params)
{
	size_t cap = 64, len = 0;
	char *s = xmalloc(cap);
	s[0] = 0;
	for (size_t i = 0; i < cfg->nparams; i++) {
		char v[64];
		value_format(params[i], v, sizeof v);
		size_t need = len + strlen(cfg->params[i].name) + strlen(v) + 3;
		grow(&s, &cap, need, 1);
		len += (size_t)snprintf(s + len, cap - len, "%s%s=%s", i ? " " : "", cfg->params[i].name, v);
	}
	return s;
}
