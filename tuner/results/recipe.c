/* recipe.c: what a user's build repeats to compile the tuned binary (recipe.h). The flags come
 * from the results row, which the tuning wrote from the same list nvcc was given
 * (build_flags); the source and include directories from the config the results name. */
/* realpath is XSI */
#define _XOPEN_SOURCE 700
#include "recipe.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compile.h"
#include "config.h"
#include "inputs.h"
#include "literal.h"
#include "banned.h"

/* path made absolute and canonical where it exists; else joined to the working directory. */
static char *absolute(const char *path)
{
	char *real = realpath(path, NULL);
	if (real)
		return real;
	if (path[0] == '/')
		return xstrdup(path);
	char cwd[PATH_MAX];
	return getcwd(cwd, sizeof cwd) ? xasprintf("%s/%s", cwd, path) : xstrdup(path);
}

char *header_mk_path(const char *header)
{
	size_t n = strlen(header);
	const char *slash = strrchr(header, '/');
	size_t base = slash ? (size_t)(slash - header) + 1 : 0;
	if (n - base > 8 && !strcmp(header + n - 8, "_tuned.h"))
		return xasprintf("%.*s.mk", (int)(n - 8), header);
	if (n - base > 2 && !strcmp(header + n - 2, ".h"))
		return xasprintf("%.*s.mk", (int)(n - 2), header);
	return xasprintf("%s.mk", header);
}

char *recipe_relative(const char *dir, const char *to)
{
	char *from = absolute(*dir ? dir : "."), *target = absolute(to);
	/* the longest common prefix that ends at a component's end in both */
	size_t common = 0;
	for (size_t i = 0; from[i] && from[i] == target[i]; i++)
		if ((target[i + 1] == '/' || !target[i + 1]) && (from[i + 1] == '/' || !from[i + 1]))
			common = i + 1;
	char *out;
	if (common <= 1)
		out = xstrdup(target);
	else {
		out = xstrdup("");
		for (const char *p = from + common; *p; p++)
			if (*p == '/') {
				char *m = xasprintf("%s%s..", out, *out ? "/" : "");
				free(out);
				out = m;
			}
		const char *rest = target + common + (target[common] == '/');
		char *m = xasprintf("%s%s%s", out, *out && *rest ? "/" : "", rest);
		free(out);
		out = m;
	}
	free(from);
	free(target);
	return out;
}

/* The row's parameter values as the config's (a value the config lists, formatted the same);
 * NULL when the results do not fit the config. Caller frees. */
static value *row_values(const config *cfg, const table *t, size_t row)
{
	if (t->nparams != cfg->nparams)
		return NULL;
	value *vals = xcalloc(cfg->nparams + 1, sizeof *vals);
	for (size_t i = 0; i < cfg->nparams; i++) {
		const param *p = &cfg->params[i];
		const char *want = table_get(t, row, (int)i);
		size_t k = 0;
		for (; strcmp(t->names[i], p->name) == 0 && k < p->nvalues; k++) {
			char text[64];
			value_format(p->values[k], text, sizeof text);
			if (!strcmp(text, want))
				break;
		}
		if (strcmp(t->names[i], p->name) || k == p->nvalues) {
			free(vals);
			return NULL;
		}
		vals[i] = p->values[k];
	}
	return vals;
}

/* Each build.include directory, and for a rewritten copy the kernel's own directory (its quoted
 * includes were found beside it), relative to hdir. */
static void include_dirs(const config *cfg, const char *hdir, int copy, recipe *r)
{
	r->nincludes = cfg->nincludes + (copy ? 1 : 0);
	r->mk_includes = xcalloc(r->nincludes + 1, sizeof *r->mk_includes);
	for (size_t i = 0; i < r->nincludes; i++) {
		char *dir = i < cfg->nincludes ? xstrdup(cfg->nvcc_flags[i] + 2) : dir_of(cfg->source);
		char *rel = recipe_relative(hdir, dir);
		r->mk_includes[i] = *rel ? rel : xstrdup(".");
		if (!*rel)
			free(rel);
		free(dir);
	}
}

/* A resource count of the row as a C int: -1 where the results do not say. */
static long resource(const table *t, size_t row, const char *col)
{
	const char *v = table_field(t, row, col);
	char *end;
	long n = strtol(v, &end, 10);
	return *v && !*end && n >= 0 && n <= INT_MAX ? n : -1;
}

int recipe_of_row(const config *cfg, const table *t, size_t row, const char *header, const char *copy_name,
		  recipe *r, diags *d)
{
	memset(r, 0, sizeof *r);
	r->flags = table_field(t, row, "nvcc_flags");
	r->code_hash = table_field(t, row, "code_hash");
	r->registers = resource(t, row, "registers");
	r->static_smem = resource(t, row, "static_smem_bytes");
	r->link = strstr(r->flags, "-rdc=true") ? "-lcudadevrt" : "";
	if (!cfg) {
		r->source = xstrdup("");
		r->mk_source = xstrdup("");
		return 0;
	}
	char *hdir = dir_of(header);
	if (cfg->rewrite_pragmas) {
		value *vals = row_values(cfg, t, row);
		int fits = vals != NULL;
		r->copy_text = fits ? compile_rewrite_pragmas(cfg, vals, &r->copy_len) : NULL;
		free(vals);
		if (!r->copy_text) {
			diags_add(d, "%s: row %zu: cannot write %s, the kernel with the winner's `#pragma unroll` factors and "
				  "#defines: %s",
				  t->path, row + 1, copy_name,
				  fits ? "the kernel source cannot be read" : "its parameter values are not the config's");
			free(hdir);
			r->source = xstrdup("");
			r->mk_source = xstrdup("");
			return -1;
		}
		r->copy_name = xstrdup(copy_name);
		r->source = xstrdup(copy_name);
		r->mk_source = xstrdup(copy_name);
	} else {
		const char *slash = strrchr(cfg->source, '/');
		r->source = xstrdup(slash ? slash + 1 : cfg->source);
		r->mk_source = recipe_relative(hdir, cfg->source);
	}
	include_dirs(cfg, hdir, r->copy_name != NULL, r);
	free(hdir);
	return 0;
}

void recipe_free(recipe *r)
{
	free(r->source);
	free(r->mk_source);
	for (size_t i = 0; i < r->nincludes; i++)
		free(r->mk_includes[i]);
	free(r->mk_includes);
	free(r->copy_name);
	free(r->copy_text);
}

void recipe_put_c(FILE *f, const char *upper, const recipe *r)
{
	fprintf(f, "#define %s_NVCC_FLAGS ", upper);
	c_string(f, r->flags);
	fprintf(f, "\n#define %s_LINK_FLAGS ", upper);
	c_string(f, r->link);
	fprintf(f, "\n#define %s_KERNEL_SOURCE ", upper);
	c_string(f, r->source);
	fprintf(f, "\n#define %s_CODE_HASH ", upper);
	c_string(f, r->code_hash);
	fprintf(f, "\n#define %s_TUNED_REGISTERS %ld\n#define %s_TUNED_STATIC_SMEM %ld\n", upper, r->registers, upper,
		r->static_smem);
}

/* A path of the recipe for make: relative ones from the fragment's directory. */
static void make_path(FILE *f, const char *upper, const char *path)
{
	if (*path && path[0] != '/')
		fprintf(f, "$(%s_FRAGMENT_DIR)", upper);
	make_value(f, path);
}

void recipe_put_make(FILE *f, const char *upper, const recipe *r)
{
	fprintf(f, "%s_NVCC_FLAGS := ", upper);
	make_value(f, r->flags);
	fprintf(f, "\n%s_LINK_FLAGS := %s\n%s_KERNEL_SOURCE := ", upper, r->link, upper);
	make_path(f, upper, r->mk_source);
	fprintf(f, "\n%s_INCLUDE_FLAGS :=", upper);
	/* in double quotes for the shell and nvcc's --options-file: a directory may hold spaces (the
	 * loader refused the characters that double quotes leave special) */
	for (size_t i = 0; i < r->nincludes; i++) {
		fputs(" \"-I", f);
		make_path(f, upper, r->mk_includes[i]);
		fputc('"', f);
	}
	/* a hash is hex digits; anything else in a damaged file stays out of make */
	fprintf(f, "\n%s_CODE_HASH := %s\n", upper,
		strspn(r->code_hash, "0123456789abcdef") == strlen(r->code_hash) ? r->code_hash : "");
}

char *recipe_copy_name(const char *header, const char *target)
{
	const char *slash = strrchr(header, '/'), *base = slash ? slash + 1 : header;
	size_t n = strlen(base);
	if (n > 2 && !strcmp(base + n - 2, ".h"))
		n -= 2;
	return target ? xasprintf("%.*s.%s.cu", (int)n, base, target) : xasprintf("%.*s.cu", (int)n, base);
}

int recipe_write_copy(const recipe *r, const char *config_path, const char *header, diags *d)
{
	if (!r->copy_name)
		return 0;
	const char *slash = strrchr(header, '/');
	char *p = slash ? xasprintf("%.*s/%s", (int)(slash - header), header, r->copy_name) : xstrdup(r->copy_name);
	/* a comment line first; the copy's #line directive keeps the original's line numbers */
	char *text = xasprintf("/* %s: " HEADER_SIGNATURE ": the kernel with the tuned `#pragma unroll` factors and "
			       "#defines written in; do not edit. */\n%s",
			       r->copy_name, r->copy_text);
	int bad = inputs_check_output(config_path, p, "the tuned kernel", HEADER_SIGNATURE, d) ||
		  write_output(p, text, strlen(text), d);
	free(text);
	free(p);
	return bad ? -1 : 0;
}

config *recipe_config(const table *t, size_t row)
{
	const char *recorded = table_field(t, row, "config");
	if (!*recorded)
		return NULL;
	char *cfg_path = find_from(recorded, t->path);
	config *cfg = xmalloc(sizeof *cfg);
	diags cd = {0};
	int rc = config_load_quietly(cfg_path, cfg, &cd);
	diags_free(&cd);
	free(cfg_path);
	if (rc == 0)
		return cfg;
	free(cfg);
	return NULL;
}
