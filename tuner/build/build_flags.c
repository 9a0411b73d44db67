/* build_flags.c: the flags that decide a configuration's binary (build_flags.h). */
#include "build_flags.h"

#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "diag.h"
#include "banned.h"

char **build_flags(const config *cfg, const value *vals, int with_includes, size_t *n)
{
	char **flags = xcalloc(2 + 2 * cfg->nparams + cfg->nflags, sizeof *flags);
	size_t k = 0;
	if (cfg->rdc)
		flags[k++] = xstrdup("-rdc=true");
	for (size_t i = 0; i < cfg->nparams; i++) {
		char flag[96];
		if (config_maxreg_flag(cfg, i, vals[i], flag, sizeof flag))
			flags[k++] = xstrdup(flag);
		if (cfg->params[i].is_define) {
			char v[64];
			value_format(vals[i], v, sizeof v);
			flags[k++] = xasprintf("-D%s=%s", cfg->params[i].name, v);
		}
	}
	for (size_t i = with_includes ? 0 : cfg->nincludes; i < cfg->nflags; i++)
		flags[k++] = xstrdup(cfg->nvcc_flags[i]);
	*n = k;
	return flags;
}

/* A word as /bin/sh and nvcc's --options-file both read it: bare when it has only characters
 * neither treats specially, else in double quotes. The loader refused the four characters that
 * double quotes leave special ($ ` \\ "), so the quotes hold whatever else a flag has (spaces,
 * parentheses, ';', '\'', '<'). */
static int bare_word(const char *w)
{
	return *w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+=.,/:@%^") == strlen(w);
}

char *build_flags_text(const config *cfg, const value *vals)
{
	size_t n;
	char **flags = build_flags(cfg, vals, 0, &n);
	char *text = xstrdup("");
	for (size_t i = 0; i < n; i++) {
		const char *q = bare_word(flags[i]) ? "" : "\"";
		char *more = xasprintf("%s%s%s%s%s", text, i ? " " : "", q, flags[i], q);
		free(text);
		text = more;
		free(flags[i]);
	}
	free(flags);
	return text;
}
