/* selector.c: results of several instances per instance, and their tuned header. The header holds
 * each instance's winner in a table and NAME_select(constants...), which returns the entry of the
 * tuned instance for a tuned problem, else of the nearest tuned one: the least sum over the
 * constants of (ln value - ln tuned)^2, so that 2x off counts the same at any size (the first
 * instance of equals). Winners that differ in compile-time values (the recipe's nvcc flags, or a
 * rewritten source) need builds of their own: each is a variant, compiled with -DNAME_VARIANT=K
 * (the fragment's NAME_VK_NVCC_FLAGS), and the table says which variant each instance launches. */
#define _GNU_SOURCE /* open_memstream */
#include "selector.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "completeness.h"
#include "config.h"
#include "inputs.h"
#include "literal.h"
#include "macros.h"
#include "output.h"
#include "recipe.h"
#include "select.h"
#include "t4.h"
#include "autotune_select.h" /* autotune_ln, the same text as the header's NAME_ln_() */
#include "banned.h"

int instance_view_of(const table *t, instance_view *v, diags *d)
{
	memset(v, 0, sizeof *v);
	v->col = table_fixed_col(t, "instance");
	if (v->col < 0)
		return 0;
	v->nnames = t->ncols - (size_t)v->col - 1;
	v->names = t->names + v->col + 1;
	for (size_t r = 0; r < t->nrows; r++) {
		char *end;
		long i = strtol(table_get(t, r, v->col), &end, 10);
		if (*end || i < 1 || i > 1000000) {
			diags_add(d, "%s: row %zu: instance '%s' is not a number from 1", t->path, r + 2, table_get(t, r, v->col));
			return -1;
		}
		if ((size_t)i > v->ninst)
			v->ninst = (size_t)i;
	}
	v->vals = xcalloc(v->ninst * v->nnames + 1, sizeof *v->vals);
	v->winner = xcalloc(v->ninst + 1, sizeof *v->winner);
	for (size_t i = 0; i < v->ninst * v->nnames; i++)
		v->vals[i] = NAN;
	for (size_t i = 0; i < v->ninst; i++)
		v->winner[i] = -1;
	for (size_t r = 0; r < t->nrows; r++) {
		size_t i = (size_t)atol(table_get(t, r, v->col)) - 1;
		for (size_t k = 0; k < v->nnames; k++) {
			double x = table_num(t, r, v->col + 1 + (int)k);
			if (!(x > 0)) {
				diags_add(d, "%s: row %zu: %s '%s' is not a positive number", t->path, r + 2, v->names[k],
					  table_get(t, r, v->col + 1 + (int)k));
				instance_view_free(v);
				return -1;
			}
			v->vals[i * v->nnames + k] = x;
		}
		if (v->winner[i] < 0 && strstr(table_get(t, r, table_fixed_col(t, "flags")), "winner"))
			v->winner[i] = (long long)r;
	}
	return 0;
}

void instance_view_free(instance_view *v)
{
	free(v->vals);
	free(v->winner);
	memset(v, 0, sizeof *v);
	v->col = -1;
}

long instance_of_row(const instance_view *v, const table *t, size_t r)
{
	return v->col < 0 ? -1 : atol(table_get(t, r, v->col)) - 1;
}

char *instance_view_label(const instance_view *v, size_t i)
{
	char *out = xstrdup("");
	for (size_t k = 0; k < v->nnames; k++) {
		char *m = xasprintf("%s%s%s=%.17g", out, k ? " " : "", v->names[k], v->vals[i * v->nnames + k]);
		free(out);
		out = m;
	}
	return out;
}

long selector_pick(const instance_view *v, const double *want)
{
	for (size_t k = 0; k < v->nnames; k++)
		if (!(want[k] > 0) || isinf(want[k]))
			return -1;
	long best = -1;
	double best_d = 0;
	for (size_t i = 0; i < v->ninst; i++) {
		if (v->winner[i] < 0)
			continue;
		double dist = 0;
		for (size_t k = 0; k < v->nnames; k++) {
			double r = autotune_ln(want[k]) - autotune_ln(v->vals[i * v->nnames + k]);
			dist += r * r;
		}
		if (best < 0 || dist < best_d) {
			best = (long)i;
			best_d = dist;
		}
	}
	return best;
}

/* What the header is made of. */
typedef struct {
	const table *t;
	instance_view v;
	char *upper, *lower;   /* NAME, name */
	char **macro, **field; /* per parameter */
	int *kind;             /* per parameter: the widest kind of any winner's value */
	int *variant;          /* per instance (with a winner): its build */
	size_t nvariants;
	recipe *rc;            /* per variant, of its first instance's winner */
	long *first;           /* per variant: that instance */
	const char *spec;
} sel;

static const char *const reserved[] = {"time_ms", "variant", "code_hash", "int", "long", "double", "char", "const",
				       "struct", "static", "inline", "return", "if", "else", "for", "while", "do",
				       "switch", "case", "default", "auto", "register", "new", "delete", "class",
				       "this", "template", "typename", "bool", "true", "false", "float", "short",
				       "unsigned", "signed", "void", "volatile", NULL};

static int names_of(sel *s, const char *name, diags *d)
{
	const table *t = s->t;
	s->upper = macro_name(name, "X");
	s->upper[strlen(s->upper) - 2] = 0;
	s->lower = xstrdup(s->upper);
	for (char *p = s->lower; *p; p++)
		*p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
	s->macro = xcalloc(t->nparams + 1, sizeof *s->macro);
	s->field = xcalloc(t->nparams + 1, sizeof *s->field);
	s->kind = xcalloc(t->nparams + 1, sizeof *s->kind);
	for (size_t p = 0; p < t->nparams; p++) {
		s->macro[p] = macro_name(name, t->names[p]);
		const char *suffix = s->macro[p] + strlen(s->upper) + 1;
		s->field[p] = *suffix >= '0' && *suffix <= '9' ? xasprintf("p_%s", suffix) : xstrdup(suffix);
		for (char *c = s->field[p]; *c; c++)
			*c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
		for (const char *const *r = reserved; *r; r++)
			if (!strcmp(*r, s->field[p])) {
				char *u = xasprintf("%s_", s->field[p]);
				free(s->field[p]);
				s->field[p] = u;
			}
	}
	for (size_t k = 0; k < s->v.nnames; k++) {
		const char *c = s->v.names[k];
		int ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_';
		for (; *c && ok; c++)
			ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_';
		for (size_t p = 0; p < t->nparams && ok; p++)
			ok = strcmp(s->field[p], s->v.names[k]) != 0;
		for (const char *const *r = reserved; *r && ok; r++)
			ok = strcmp(*r, s->v.names[k]) != 0;
		if (!ok) {
			diags_add(d, "%s: the instance column '%s' cannot be a member of the header's table (not an identifier, or "
				     "a parameter's or the table's own)", t->path, s->v.names[k]);
			return -1;
		}
	}
	return 0;
}

/* Each winner's values checked, and the instances grouped into variants by their recipe. */
static int variants_of(sel *s, const config *cfg, const char *path, diags *d)
{
	const table *t = s->t;
	s->variant = xcalloc(s->v.ninst + 1, sizeof *s->variant);
	s->rc = xcalloc(s->v.ninst + 1, sizeof *s->rc);
	s->first = xcalloc(s->v.ninst + 1, sizeof *s->first);
	for (size_t i = 0; i < s->v.ninst; i++) {
		if (s->v.winner[i] < 0)
			continue;
		size_t row = (size_t)s->v.winner[i];
		for (size_t p = 0; p < t->nparams; p++) {
			number n;
			if (parse_number(table_get(t, row, (int)p), &n) && parse_token(table_get(t, row, (int)p), &n)) {
				diags_add(d, "%s: row %zu: parameter %s is '%s', not a number, nor a type or name C can take",
					  t->path, row + 2, t->names[p], table_get(t, row, (int)p));
				return -1;
			}
			if (n.kind > s->kind[p])
				s->kind[p] = n.kind;
		}
		char *target = xasprintf("v%zu", s->nvariants);
		char *copy = recipe_copy_name(path, target);
		recipe r;
		int rc = recipe_of_row(cfg, t, row, path, copy, &r, d);
		free(copy);
		free(target);
		if (rc)
			return -1;
		size_t k = 0;
		while (k < s->nvariants && !(!strcmp(s->rc[k].flags, r.flags) &&
					     (s->rc[k].copy_len == r.copy_len &&
					      (!r.copy_len || !memcmp(s->rc[k].copy_text, r.copy_text, r.copy_len)))))
			k++;
		s->variant[i] = (int)k;
		if (k < s->nvariants) {
			recipe_free(&r);
			continue;
		}
		s->rc[k] = r;
		s->first[k] = (long)i;
		s->nvariants++;
	}
	return 0;
}

static void put_label(FILE *f, const sel *s, size_t i)
{
	char *label = instance_view_label(&s->v, i), *safe = one_line(label);
	fputs(safe, f);
	free(safe);
	free(label);
}

/* The macros of variant k: its first instance's values and the recipe. */
static void put_variant(FILE *h, const sel *s, size_t k)
{
	const table *t = s->t;
	size_t row = (size_t)s->v.winner[s->first[k]];
	for (size_t p = 0; p < t->nparams; p++) {
		number n;
		if (parse_number(table_get(t, row, (int)p), &n))
			parse_token(table_get(t, row, (int)p), &n);
		fprintf(h, "#define %s ", s->macro[p]);
		c_number(h, &n, s->kind[p]);
		fputc('\n', h);
	}
	fprintf(h, "#define %s_TIME_MS %.6f\n", s->upper, table_num(t, row, table_fixed_col(t, "time_ms_median")));
	recipe_put_c(h, s->upper, &s->rc[k]);
}

static void put_table(FILE *h, const sel *s)
{
	const table *t = s->t;
	static const char *const ctype[] = {"int", "long long", "double", "const char *"};
	fprintf(h, "\n/* Each tuned instance's winner. */\nstruct %s_instance {\n", s->lower);
	for (size_t k = 0; k < s->v.nnames; k++)
		fprintf(h, "\tdouble %s;\n", s->v.names[k]);
	for (size_t p = 0; p < t->nparams; p++)
		fprintf(h, "\t%s%s%s;\n", ctype[s->kind[p]], s->kind[p] == LITERAL_TOKEN ? "" : " ", s->field[p]);
	fprintf(h, "\tdouble time_ms;\n\tint variant; /* the build to launch: -D%s_VARIANT=variant */\n"
		   "\tconst char *code_hash;\n};\n",
		s->upper);
	fprintf(h, "#if defined(__GNUC__) || defined(__clang__)\n__attribute__((unused))\n#endif\n"
		   "static const struct %s_instance %s_instances[%s_TUNED_INSTANCES] = {\n",
		s->lower, s->lower, s->upper);
	for (size_t i = 0; i < s->v.ninst; i++) {
		if (s->v.winner[i] < 0)
			continue;
		size_t row = (size_t)s->v.winner[i];
		fputc('\t', h);
		fputc('{', h);
		for (size_t k = 0; k < s->v.nnames; k++)
			fprintf(h, "%.17g, ", s->v.vals[i * s->v.nnames + k]);
		for (size_t p = 0; p < t->nparams; p++) {
			number n;
			if (s->kind[p] == LITERAL_TOKEN) /* a type or a name, as a string for host code */
				c_string(h, table_get(t, row, (int)p));
			else {
				parse_number(table_get(t, row, (int)p), &n);
				c_number(h, &n, s->kind[p]);
			}
			fputs(", ", h);
		}
		fprintf(h, "%.6f, %d, ", table_num(t, row, table_fixed_col(t, "time_ms_median")), s->variant[i]);
		c_string(h, table_field(t, row, "code_hash"));
		fputs("}, /* ", h);
		put_label(h, s, i);
		fputs(" */\n", h);
	}
	fputs("};\n", h);
}

/* The instance constants' names, each after prefix, joined by ", ". */
static void put_names(FILE *h, const sel *s, const char *prefix)
{
	for (size_t k = 0; k < s->v.nnames; k++)
		fprintf(h, "%s%s%s", k ? ", " : "", prefix, s->v.names[k]);
}

/* NAME_select(): the same arithmetic as selector_pick (and the run-time library). */
static void put_selector(FILE *h, const sel *s)
{
	fprintf(h, "\n/* ln without libm (the run-time library computes it alike): x = m 2^k, ln m by atanh's series. */\n"
		   "static inline double %s_ln_(double x)\n{\n\tdouble k = 0, z, z2, term, sum = 0;\n\tint i;\n"
		   "\tif (!(x > 0) || x > 1.7976931348623157e308) /* the loops end only for a positive finite x */\n"
		   "\t\treturn x > 0 ? x : (x - x) / (x - x);\n"
		   "\twhile (x >= 2) {\n\t\tx /= 2;\n\t\tk++;\n\t}\n\twhile (x < 1) {\n\t\tx *= 2;\n\t\tk--;\n\t}\n"
		   "\tz = (x - 1) / (x + 1);\n\tz2 = z * z;\n\tterm = z;\n\tfor (i = 1; i < 40; i += 2) {\n"
		   "\t\tsum += term / i;\n\t\tterm *= z2;\n\t}\n\treturn 2 * sum + k * 0.69314718055994530942;\n}\n",
		s->lower);
	fprintf(h, "\n/* The tuned instance of these constants, else the nearest tuned one: the least sum over the\n"
		   " * constants of (ln value - ln tuned)^2, the first of equals. NULL when a value is not a\n"
		   " * positive finite number. */\nstatic inline const struct %s_instance *%s_select(",
		s->lower, s->lower);
	put_names(h, s, "double ");
	fprintf(h, ")\n{\n\tconst double want[%zu] = {", s->v.nnames);
	put_names(h, s, "");
	fprintf(h, "};\n\tconst struct %s_instance *best = 0;\n\tdouble best_d = 0;\n\tint i, k;\n"
		   "\tfor (k = 0; k < %zu; k++)\n\t\tif (!(want[k] > 0) || want[k] > 1.7976931348623157e308)\n\t\t\treturn 0;\n"
		   "\tfor (i = 0; i < %s_TUNED_INSTANCES; i++) {\n\t\tconst struct %s_instance *in = &%s_instances[i];\n"
		   "\t\tconst double tuned[%zu] = {",
		s->lower, s->v.nnames, s->upper, s->lower, s->lower, s->v.nnames);
	put_names(h, s, "in->");
	fprintf(h, "};\n\t\tdouble dist = 0;\n\t\tfor (k = 0; k < %zu; k++) {\n"
		   "\t\t\tdouble r = %s_ln_(want[k]) - %s_ln_(tuned[k]);\n\t\t\tdist += r * r;\n\t\t}\n"
		   "\t\tif (!best || dist < best_d) {\n\t\t\tbest = in;\n\t\t\tbest_d = dist;\n\t\t}\n\t}\n\treturn best;\n}\n",
		s->v.nnames, s->lower, s->lower);
}

/* The header's text. */
/* How far the run got: the rows' run words and statuses, and the instances of the config that have
 * no rows at all (a run that stopped before them; cfg NULL: not known). */
static void instances_run(const sel *s, const config *cfg, run_extent *r)
{
	table_run(s->t, r);
	size_t want = cfg && cfg->instances.ninst > s->v.ninst ? cfg->instances.ninst : s->v.ninst, first = 0, missing = 0;
	for (size_t i = want; i-- > 0;)
		if (i >= s->v.ninst || isnan(s->v.vals[i * s->v.nnames])) {
			missing++;
			first = i;
		}
	if (!missing || !run_complete(r))
		return;
	r->state = RUN_PARTIAL;
	snprintf(r->why, sizeof r->why, "but %zu of %zu instances have no results (instance %zu the first): the run "
					"stopped before them",
		 missing, want, first + 1);
}

static void render_header(FILE *h, FILE *mk, const sel *s, const run_extent *run, const char *csv, const char *base,
			  const char *cfg_path, const char *cmd)
{
	size_t tuned = 0;
	for (size_t i = 0; i < s->v.ninst; i++)
		tuned += s->v.winner[i] >= 0;
	fprintf(h, "/* %s: " HEADER_SIGNATURE "%s%s; do not edit.\n", base, cfg_path ? " from " : "", cfg_path ? cfg_path : "");
	fprintf(h, " * %zu instances tuned (of %zu), each with its winner:\n", tuned, s->v.ninst);
	for (size_t i = 0; i < s->v.ninst; i++) {
		fputs(" *   ", h);
		put_label(h, s, i);
		if (s->v.winner[i] < 0) {
			fputs(": no winner (left out: the selector picks the nearest tuned instance)\n", h);
			continue;
		}
		size_t row = (size_t)s->v.winner[i];
		fputs(": ", h);
		for (size_t p = 0; p < s->t->nparams; p++) {
			char *v = one_line(table_get(s->t, row, (int)p)), *n = one_line(s->t->names[p]);
			fprintf(h, "%s%s=%s", p ? " " : "", n, v);
			free(v);
			free(n);
		}
		fprintf(h, ": %.4f ms, variant %d\n", table_num(s->t, row, table_fixed_col(s->t, "time_ms_median")), s->variant[i]);
	}
	fprintf(h, " * %s_select(", s->lower);
	put_names(h, s, "");
	fprintf(h, ") returns the tuned instance's entry, else the nearest tuned instance's in log scale.\n"
		   " * %zu %s: winners that differ in compile-time values are built apart: compile with\n"
		   " * -D%s_VARIANT=K (the fragment's %s_VK_NVCC_FLAGS) and launch the build of the entry's\n"
		   " * variant; without %s_VARIANT the macros are variant 0's.\n",
		s->nvariants, s->nvariants == 1 ? "variant" : "variants", s->upper, s->upper, s->upper);
	completeness_put_file_note(h, " * ", csv, run);
	completeness_put_comment(h, " * ", s->upper, run);
	fprintf(h, " * %s_SPEC_HASH: the config, kernel source, headers and data tuned.\n * Rewrite from the results: %s\n */\n", s->upper,
		cmd);
	fprintf(h, "#ifndef %s_TUNED_H\n#define %s_TUNED_H\n\n#define %s_TUNED_INSTANCES %zu\n#define %s_VARIANTS %zu\n",
		s->upper, s->upper, s->upper, tuned, s->upper, s->nvariants);
	completeness_put_macros(h, mk, s->upper, run);
	fprintf(h, "#ifndef %s_VARIANT\n#define %s_VARIANT 0\n#endif\n", s->upper, s->upper);
	for (size_t k = 0; k < s->nvariants; k++) {
		fprintf(h, "#%s %s_VARIANT == %zu /* first of ", k ? "elif" : "if", s->upper, k);
		put_label(h, s, (size_t)s->first[k]);
		fputs(" */\n", h);
		put_variant(h, s, k);
	}
	fprintf(h, "#else\n#error \"%s: %s_VARIANT is 0 to %zu\"\n#endif\n", base, s->upper, s->nvariants - 1);
	size_t row = (size_t)s->v.winner[s->first[0]];
	fprintf(h, "#define %s_TUNED_DEVICE ", s->upper);
	c_string(h, table_field(s->t, row, "gpu"));
	fprintf(h, "\n#define %s_TUNED_ARCH ", s->upper);
	c_string(h, table_field(s->t, row, "arch"));
	fprintf(h, "\n#define %s_SPEC_HASH ", s->upper);
	c_string(h, s->spec);
	fprintf(h, "\n/* a name of this variant's own, for symbols of a program that links every variant:\n"
		   " * %s_VARIANT_NAME(launch) is launch_v0 in variant 0 */\n"
		   "#define %s_VARIANT_NAME__(x, k) x##_v##k\n#define %s_VARIANT_NAME_(x, k) %s_VARIANT_NAME__(x, k)\n"
		   "#define %s_VARIANT_NAME(x) %s_VARIANT_NAME_(x, %s_VARIANT)\n",
		s->upper, s->upper, s->upper, s->upper, s->upper, s->upper, s->upper);
	put_table(h, s);
	put_selector(h, s);
	fprintf(h, "\n#endif /* %s_TUNED_H */\n", s->upper);
}

/* The fragment: every variant's recipe as NAME_VK_..., variant 0's also as NAME_... */
static void render_mk(FILE *mk, const sel *s, const char *base, const char *mk_base, const char *entry)
{
	fprintf(mk, "# %s: the values of %s for make; " HEADER_SIGNATURE ", do not edit.\n", mk_base, base);
	fprintf(mk, "# Build each variant K of %s_VARIANTS with $(%s_VK_NVCC_FLAGS) $(%s_VK_INCLUDE_FLAGS)\n"
		    "# $(%s_VK_KERNEL_SOURCE); $(%s_NVCC_FLAGS) and the rest are variant 0's.\n",
		s->upper, s->upper, s->upper, s->upper, s->upper);
	fprintf(mk, "%s_FRAGMENT_DIR := $(dir $(lastword $(MAKEFILE_LIST)))\n%s_VARIANTS :=", s->upper, s->upper);
	for (size_t k = 0; k < s->nvariants; k++)
		fprintf(mk, " %zu", k);
	fputc('\n', mk);
	for (size_t k = 0; k < s->nvariants; k++) {
		char *u = xasprintf("%s_V%zu", s->upper, k);
		fprintf(mk, "%s_FRAGMENT_DIR := $(%s_FRAGMENT_DIR)\n", u, s->upper);
		recipe_put_make(mk, u, &s->rc[k]);
		/* the variant's macros; with several, the kernel's symbol of its own too */
		fprintf(mk, "%s_NVCC_FLAGS += -D%s_VARIANT=%zu", u, s->upper, k);
		if (s->nvariants > 1 && entry)
			fprintf(mk, " -D%s=%s_v%zu", entry, entry, k);
		fputc('\n', mk);
		free(u);
	}
	recipe_put_make(mk, s->upper, &s->rc[0]);
	fprintf(mk, "%s_NVCC_FLAGS += -D%s_VARIANT=0\n", s->upper, s->upper);
	const char *arch = table_field(s->t, (size_t)s->v.winner[s->first[0]], "arch");
	fprintf(mk, "%s_TUNED_ARCH := %s\n%s_SPEC_HASH := %s\n", s->upper,
		strspn(arch, "smcompute_0123456789abf") == strlen(arch) ? arch : "", s->upper, s->spec);
}

static void free_sel(sel *s)
{
	for (size_t p = 0; s->macro && p < s->t->nparams; p++) {
		free(s->macro[p]);
		free(s->field[p]);
	}
	for (size_t k = 0; k < s->nvariants; k++)
		recipe_free(&s->rc[k]);
	free(s->rc);
	free(s->first);
	free(s->variant);
	free(s->macro);
	free(s->field);
	free(s->kind);
	free(s->upper);
	free(s->lower);
	instance_view_free(&s->v);
}

/* One spec for every row: results of one config and kernel. */
static int one_spec(const table *t, const char **spec, diags *d)
{
	int sc = table_col(t, "spec_hash");
	*spec = "";
	for (size_t r = 0; r < t->nrows; r++) {
		const char *x = table_get(t, r, sc);
		if (!**spec)
			*spec = x;
		else if (*x && strcmp(x, *spec)) {
			diags_add(d, "%s: rows of spec_hash %s and %s: instances tuned from different versions of the config or "
				     "kernel", t->path, *spec, x);
			return -1;
		}
	}
	return 0;
}

/* Renders and writes both files; the rewritten copies of the variants first. */
static int write_both(const sel *s, const config *cfg, const char *csv, const char *path, diags *d)
{
	char *htext = NULL, *mtext = NULL, *mk_path = header_mk_path(path);
	size_t hlen = 0, mlen = 0;
	FILE *h = open_memstream(&htext, &hlen), *mk = open_memstream(&mtext, &mlen);
	if (!h || !mk) {
		fputs("autotune: out of memory\n", stderr);
		exit(EXIT_ENV);
	}
	const char *recorded = table_field(s->t, (size_t)s->v.winner[s->first[0]], "config");
	char *cfg_path = *recorded ? one_line(recorded) : NULL, *cmd0 = xasprintf("autotune header %s -o %s", csv, path);
	char *cmd = one_line(cmd0), *base = one_line(strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	char *mk_base = one_line(strrchr(mk_path, '/') ? strrchr(mk_path, '/') + 1 : mk_path);
	const char *entry = cfg && cfg->entry && !strchr(cfg->entry, '$') ? cfg->entry : NULL;
	run_extent run;
	instances_run(s, cfg, &run);
	/* the fragment's own lines first: the header adds its completeness to both */
	render_mk(mk, s, base, mk_base, entry);
	render_header(h, mk, s, &run, csv, base, cfg_path, cmd);
	fclose(h);
	fclose(mk);
	int rc = 0;
	if (same_file(path, csv) || same_file(mk_path, csv)) {
		diags_add(d, "cannot write the header to '%s' (make fragment '%s'): one is the results CSV '%s'", path, mk_path,
			  csv);
		rc = -1;
	}
	if (!rc && (inputs_check_output(recorded, path, "the header", HEADER_SIGNATURE, d) ||
		    inputs_check_output(recorded, mk_path, "the make fragment", HEADER_SIGNATURE, d)))
		rc = -1;
	for (size_t k = 0; k < s->nvariants && !rc; k++)
		rc = recipe_write_copy(&s->rc[k], recorded, path, d);
	if (!rc && (write_output(mk_path, mtext, mlen, d) || write_output(path, htext, hlen, d)))
		rc = -1;
	free(htext);
	free(mtext);
	free(mk_path);
	free(cfg_path);
	free(cmd0);
	free(cmd);
	free(base);
	free(mk_base);
	return rc;
}

int selector_header(char *const *csvs, size_t n, const char *config_path, const char *name, const char *out,
		    diags *d)
{
	table t;
	diags quiet = {0};
	/* anything that does not load is header.c's to say */
	int loaded = results_load(csvs[0], config_path, &t, &quiet) == 0;
	diags_free(&quiet);
	if (!loaded)
		return -1;
	sel s = {.t = &t};
	int rc = EXIT_USAGE;
	config *cfg = NULL;
	char *path = NULL;
	if (instance_view_of(&t, &s.v, d) || s.v.col < 0) {
		rc = s.v.col < 0 && !d->n ? -1 : EXIT_USAGE;
		goto out;
	}
	if (n > 1) {
		diags_add(d, "autotune header: %s has instances: a header of several GPUs' results with instances is not "
			     "supported: give one CSV", csvs[0]);
		goto out;
	}
	long first = -1;
	for (size_t i = 0; i < s.v.ninst && first < 0; i++)
		first = s.v.winner[i] >= 0 ? (long)i : -1;
	if (first < 0) {
		diags_add(d, "%s: no instance has a configuration that passed: no header written", t.path);
		rc = EXIT_NONE_PASSED;
		goto out;
	}
	if (one_spec(&t, &s.spec, d))
		goto out;
	cfg = recipe_config(&t, (size_t)s.v.winner[first]);
	if (!name && !cfg) {
		diags_add(d, "autotune header: cannot load the config %s names: give the macros' name with -o NAME_tuned.h",
			  t.path);
		goto out;
	}
	path = xstrdup(out ? out : cfg->header_path);
	if (!name)
		name = cfg->name;
	if (names_of(&s, name, d) || variants_of(&s, cfg, path, d))
		goto out;
	rc = write_both(&s, cfg, csvs[0], path, d) ? EXIT_USAGE : 0;
out:
	free(path);
	if (cfg)
		config_free(cfg);
	free(cfg);
	free_sel(&s);
	table_free(&t);
	return rc;
}
