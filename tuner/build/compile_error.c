/* compile_error.c: a failed compile's log read for its kind and its likely fix, and the run of
 * failures alike that stops a build. */
#include "compile_error.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "banned.h"

/* Whether the len bytes at line are one of nvcc's (cicc's, ptxas's, the preprocessor's)
 * diagnostics: "k.cu(3): error: ...", "ptxas error   : ...", "nvcc fatal   : ...", "k.cu:3:2:
 * error: ...". Not the source it echoes (indented), nor "1 error detected in the compilation of". */
static int diagnostic(const char *line, size_t len)
{
	if (!len || isspace((unsigned char)line[0]) || isdigit((unsigned char)line[0]) || line[0] == '$')
		return 0;
	char *text = xasprintf("%.*s", (int)len, line);
	int is = strstr(text, "error") || strstr(text, "fatal");
	free(text);
	return is;
}

static int path_end(char c) { return !c || strchr(" \t\n\"'`()[]<>,;", c) != NULL; }

/* A word of letters and digits that a hash or an address is: hex digits with a digit among them,
 * 8 or more. */
static size_t hash_len(const char *p)
{
	size_t n = 0;
	int digit = 0;
	while (isxdigit((unsigned char)p[n]))
		digit |= isdigit((unsigned char)p[n++]);
	return digit && n >= 8 && !isalnum((unsigned char)p[n]) && p[n] != '_' ? n : 0;
}

/* The len bytes at line, normalised onto o: paths as their file names, numbers and hashes as '#'.
 * Returns the end of what was written. */
static char *normalise(const char *line, size_t len, char *o)
{
	const char *end = line + len;
	for (const char *p = line; p < end;) {
		int word_start = p == line || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
		if (p == line || path_end(p[-1])) {
			/* a path: its directories go */
			const char *q = p, *slash = NULL;
			while (q < end && !path_end(*q)) {
				if (*q == '/')
					slash = q;
				q++;
			}
			if (slash) {
				p = slash + 1;
				continue;
			}
		}
		size_t h = word_start ? hash_len(p) : 0;
		if (h || isdigit((unsigned char)*p)) {
			if (!h) {
				p += p[0] == '0' && (p[1] == 'x' || p[1] == 'X') ? 2 : 0;
				while (p < end && isxdigit((unsigned char)*p))
					p++;
			} else
				p += h;
			*o++ = '#';
			continue;
		}
		*o++ = *p++;
	}
	return o;
}

char *compile_error_kind(const char *log)
{
	if (!log)
		return xstrdup("");
	/* each line kept is at most its own length and a newline, which the log's last line may lack */
	size_t n = strlen(log);
	char *k = xmalloc(n + 2), *o = k;
	/* nvcc's diagnostics; without any, the whole log less the command line */
	for (int pass = 0; pass < 2 && o == k; pass++)
		for (const char *line = log; *line;) {
			size_t len = strcspn(line, "\n");
			int keep = pass ? line[0] != '$' || line[1] != ' ' : diagnostic(line, len);
			if (keep) {
				o = normalise(line, len, o);
				*o++ = '\n';
			}
			line += len + (line[len] == '\n');
		}
	*o = 0;
	return k;
}

const char *compile_error_line(const char *log)
{
	static char line[512];
	if (!log)
		return NULL;
	const char *first = NULL;
	for (const char *p = log; *p && !first; p += strcspn(p, "\n"), p += *p == '\n')
		if (diagnostic(p, strcspn(p, "\n")))
			first = p;
	if (!first)
		first = log;
	snprintf(line, sizeof line, "%.*s", (int)strcspn(first, "\n"), first);
	return line;
}

/* The text between the quotes after `after` in log ("identifier \"X\" is undefined": X), or
 * NULL. Caller frees. */
static char *quoted_after(const char *log, const char *after, const char *before)
{
	for (const char *p = log; (p = strstr(p, after)); p++) {
		const char *q = p + strlen(after), *close = strchr(q, '"');
		if (!close || memchr(q, '\n', (size_t)(close - q)))
			continue;
		if (before && strncmp(close + 1, before, strlen(before)))
			continue;
		return xasprintf("%.*s", (int)(close - q), q);
	}
	return NULL;
}

/* Whether a and b differ only in case and underscores (blockSizeX, BLOCK_SIZE_X). */
static int alike_spelled(const char *a, const char *b)
{
	for (;;) {
		while (*a == '_')
			a++;
		while (*b == '_')
			b++;
		if (!*a || !*b)
			return !*a && !*b;
		if (tolower((unsigned char)*a++) != tolower((unsigned char)*b++))
			return 0;
	}
}

/* Whether a and b are one slip apart (a letter changed, added, dropped or two swapped), but not
 * where names of a family differ on purpose: an axis (X, Y, Z) or a number. */
static int one_slip(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i = 0;
	if (la < 4 || lb < 4 || (la > lb ? la - lb : lb - la) > 1)
		return 0;
	while (i < la && i < lb && a[i] == b[i])
		i++;
	if (i == la && i == lb)
		return 0;
	char x = i < la ? a[i] : 0, y = i < lb ? b[i] : 0;
	if (isdigit((unsigned char)x) || isdigit((unsigned char)y) || (strchr("xyzXYZ", x) && x && strchr("xyzXYZ", y) && y))
		return 0;
	if (la == lb)
		return !strcmp(a + i + 1, b + i + 1) || (i + 1 < la && a[i] == b[i + 1] && a[i + 1] == b[i] && !strcmp(a + i + 2, b + i + 2));
	return la > lb ? !strcmp(a + i + 1, b + i) : !strcmp(a + i, b + i + 1);
}

/* Whether nvcc gets -DNAME (a constant in build.defines, or build.flags). */
static int defined_for_nvcc(const config *cfg, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < cfg->nflags; i++) {
		const char *f = cfg->nvcc_flags[i];
		if (!strncmp(f, "-D", 2) && !strncmp(f + 2, name, n) && (!f[2 + n] || f[2 + n] == '='))
			return 1;
	}
	return 0;
}

/* The fix for `identifier "x" is undefined`: a name of the config nvcc does not get, a name the
 * config spells otherwise, or one that nothing defines. */
static char *undefined_fix(const config *cfg, const char *x)
{
	const char *spelled = NULL, *slip = NULL;
	for (size_t i = 0; i < cfg->nparams; i++) {
		const param *p = &cfg->params[i];
		if (!strcmp(p->name, x))
			return p->is_define ? NULL
					    : xasprintf("%s is a parameter of %s's space, but nvcc does not get it: list it in "
							"build.defines", x, cfg->path);
		spelled = !spelled && alike_spelled(p->name, x) ? p->name : spelled;
		slip = !slip && one_slip(p->name, x) ? p->name : slip;
	}
	for (size_t i = 0; i < cfg->nconstants; i++) {
		const char *c = cfg->constants[i].name;
		if (!strcmp(c, x))
			return defined_for_nvcc(cfg, x) ? NULL
							: xasprintf("%s is a constant of %s, but nvcc does not get it: list it in "
								    "build.defines", x, cfg->path);
		spelled = !spelled && alike_spelled(c, x) ? c : spelled;
		slip = !slip && one_slip(c, x) ? c : slip;
	}
	if (defined_for_nvcc(cfg, x))
		return NULL;
	if (spelled)
		return xasprintf("the kernel uses %s, but %s spells it %s: spell the two alike", x, cfg->path, spelled);
	char *slip_note = slip ? xasprintf(" (or is it a slip for %s?)", slip) : xstrdup("");
	char *fix = xasprintf("the kernel uses %s, which neither %s nor the kernel defines: add it to %s as a constant "
			      "(or a parameter of the space, to tune it) and list it in build.defines%s",
			      x, cfg->path, cfg->path, slip_note);
	free(slip_note);
	return fix;
}

char *compile_error_fix(const config *cfg, const char *log)
{
	if (!log)
		return NULL;
	char *x = quoted_after(log, "identifier \"", " is undefined");
	if (x) {
		char *fix = undefined_fix(cfg, x);
		free(x);
		return fix;
	}
	/* EDG's words, or the host preprocessor's that nvcc runs first: "k.cu:1:10: fatal error: t.h: No
	 * such file or directory" */
	const char *fatal = strstr(log, "fatal error: "), *none = fatal ? strstr(fatal, ": No such file or directory") : NULL;
	if (none && !memchr(fatal, '\n', (size_t)(none - fatal)))
		x = xasprintf("%.*s", (int)(none - fatal - strlen("fatal error: ")), fatal + strlen("fatal error: "));
	if (x || (x = quoted_after(log, "cannot open source file \"", NULL))) {
		char *fix = xasprintf("nvcc finds no %s to include: add its directory to build.include in %s", x, cfg->path);
		free(x);
		return fix;
	}
	if (strstr(log, "uses too much shared data"))
		return xasprintf("the kernel's __shared__ arrays take more than the 48 KiB a kernel may declare "
				 "statically: a constraint in %s can keep these configurations out of the space", cfg->path);
	if (strstr(log, "is not defined for option 'gpu-name'") || strstr(log, "Unsupported gpu architecture"))
		return xstrdup("this nvcc does not know the target: give --arch one of `nvcc --list-gpu-code`, or use a newer "
			       "CUDA toolkit");
	const char *opt = strstr(log, "nvcc fatal   : Unknown option");
	if (opt)
		return xasprintf("nvcc does not know an option it was given: check build.flags in %s (%.*s)", cfg->path,
				 (int)strcspn(opt, "\n"), opt);
	if (strstr(log, "#error"))
		return xasprintf("the kernel's own #error refuses these values: a constraint in %s can keep them out of "
				 "the space", cfg->path);
	return NULL;
}

static size_t gcd(size_t a, size_t b)
{
	while (b) {
		size_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

void repeat_start(repeat *r, size_t bound, size_t first, size_t n)
{
	memset(r, 0, sizeof *r);
	r->bound = bound;
	r->first = first < n ? first : 0;
	r->n = n;
	/* a stride of about n / phi, prime to n: each binary once, neighbours far apart */
	r->step = n > 2 ? (size_t)((double)n * 0.6180339887) : 1;
	while (n > 2 && gcd(r->step, n) != 1)
		r->step++;
}

size_t repeat_spread(const repeat *r, size_t i)
{
	return (size_t)((r->first + (unsigned long long)i * r->step) % r->n);
}

void repeat_note(repeat *r, const binary *bin)
{
	if (bin->killed || r->broken)
		return;
	if (!bin->failed) {
		r->broken = 1;
		return;
	}
	char *kind = compile_error_kind(bin->log);
	if (!r->kind) {
		r->kind = kind;
		r->alike = 1;
		return;
	}
	if (strcmp(kind, r->kind))
		r->broken = 1;
	else
		r->alike++;
	free(kind);
}

int repeat_holds(const repeat *r, size_t running)
{
	return r->bound && !r->broken && r->alike + running >= r->bound;
}

int repeat_over(const repeat *r, size_t running)
{
	return r->bound && !r->broken && !running && r->alike >= r->bound;
}

void repeat_free(repeat *r)
{
	free(r->kind);
	r->kind = NULL;
}
