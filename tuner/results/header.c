/* header.c: the tuned header and make fragment from one or more results CSVs (or T4 and Kernel
 * Tuner cache files, which t4.c reads as CSVs). Everything comes from the results (read back with
 * table.c), so a header can be rewritten, or merged across GPUs, long after the run; every value
 * is checked before it is written into C or make syntax. */
#include "header.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "completeness.h"
#include "config.h"
#include "inputs.h"
#include "output.h"
#include "literal.h"
#include "macros.h"
#include "recipe.h"
#include "select.h"
#include "selector.h"
#include "spec_files.h"
#include "t4.h"
#include "table.h"
#include "banned.h"

/* One results CSV and the configuration it chose. */
typedef struct {
	table t;
	result *res;
	long long win;       /* the winner's row */
	const char *gpu;     /* the winner row's GPU, "" when the file predates the column */
	char *target;        /* the GPU as a macro suffix (merged headers) */
} input;

/* What one section of the header defines. */
typedef struct {
	const input *in;     /* the file its values come from */
	size_t row;
	double time_ms;
	const char *device;  /* "default" for the default section */
	const char *target;  /* NULL for the default section and for a single CSV */
	number *vals;        /* nparams */
	/* a plan's host-side choices (the plan columns), when the results have them */
	int streams, breadth_first, connections;
	recipe rc;           /* what a build repeats to compile this section's binary */
} section;

/* Whether the results are a plan's (output.h's plan columns follow the parameters). */
static int has_plan(const table *t) { return table_fixed_col(t, "plan_streams") >= 0; }

/* A plan's streams, order and connections in a section's row, checked to be what a plan can
 * have: 0, or -1 with the reason in d. */
static int plan_values(section *s, diags *d)
{
	const table *t = &s->in->t;
	const char *order = table_get(t, s->row, table_fixed_col(t, "plan_order"));
	double streams = table_num(t, s->row, table_fixed_col(t, "plan_streams")),
	       conns = table_num(t, s->row, table_fixed_col(t, "plan_connections"));
	if (!(streams >= 1 && streams <= PLAN_MAX_STREAMS && streams == (int)streams) ||
	    !(conns >= 1 && conns <= PLAN_MAX_CONNECTIONS && conns == (int)conns) ||
	    (strcmp(order, "depth-first") && strcmp(order, "breadth-first"))) {
		diags_add(d, "%s: row %zu: the plan's plan_streams '%s', plan_order '%s' and plan_connections '%s' are not "
			     "1 to %d streams, depth-first or breadth-first, and 1 to %d connections",
			  t->path, s->row + 1, table_get(t, s->row, table_fixed_col(t, "plan_streams")), order,
			  table_get(t, s->row, table_fixed_col(t, "plan_connections")), PLAN_MAX_STREAMS, PLAN_MAX_CONNECTIONS);
		return -1;
	}
	s->streams = (int)streams;
	s->connections = (int)conns;
	s->breadth_first = !strcmp(order, "breadth-first");
	return 0;
}

/* Struct members must not be keywords of C or C++ (the header is included by both). */
static const char *const keywords[] = {
	"auto", "bool", "break", "case", "catch", "char", "class", "const", "constexpr", "continue", "default",
	"delete", "do", "double", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
	"friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "nullptr",
	"operator", "private", "protected", "public", "register", "restrict", "return", "short", "signed",
	"sizeof", "static", "struct", "switch", "template", "this", "throw", "true", "try", "typedef",
	"typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "while", NULL};

/* A path's last component without "_tuned.h" or its extension: "results/x_tuned.h" -> "x". */
static char *stem(const char *path)
{
	const char *slash = strrchr(path, '/'), *b = slash ? slash + 1 : path;
	size_t n = strlen(b);
	if (n > 8 && !strcmp(b + n - 8, "_tuned.h"))
		n -= 8;
	else {
		const char *dot = strrchr(b, '.');
		if (dot && dot > b)
			n = (size_t)(dot - b);
	}
	return xasprintf("%.*s", (int)n, b);
}

/* Upper case letters and digits, anything else one '_', none at either end: a GPU name as the
 * suffix of a macro and the value of a make variable ("NVIDIA H100 80GB HBM3" ->
 * NVIDIA_H100_80GB_HBM3). */
static char *target_name(const char *gpu)
{
	char *t = xmalloc(strlen(gpu) + 1), *o = t;
	for (const char *p = gpu; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if ((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))
			*o++ = (char)(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
		else if (o > t && o[-1] != '_')
			*o++ = '_';
	}
	while (o > t && o[-1] == '_')
		o--;
	*o = 0;
	return t;
}

static int passed(const result *r) { return result_passed(r) && r->t_median > 0; }

/* Whether row a of x and row b of y are the same configuration (the same parameter values). */
static int same_config(const table *x, size_t a, const table *y, size_t b)
{
	for (size_t i = 0; i < x->nparams; i++)
		if (strcmp(table_get(x, a, (int)i), table_get(y, b, (int)i)))
			return 0;
	return 1;
}

static void free_inputs(input *in, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		table_results_free(in[k].res, in[k].t.nrows);
		table_free(&in[k].t);
		free(in[k].target);
	}
	free(in);
}

/* Loads every results file (a T4 or cache file through config_path, or the config it names) and
 * finds its winner; checks that all are of one config and one spec. */
static int load_inputs(char *const *csvs, size_t n, const char *config_path, input *in, const char **spec, diags *d)
{
	*spec = "";
	const char *spec_file = "";
	for (size_t k = 0; k < n; k++) {
		input *x = &in[k];
		if (results_load(csvs[k], config_path, &x->t, d))
			return EXIT_USAGE;
		x->res = table_results(&x->t);
		const table *t = &x->t, *t0 = &in[0].t;
		if (k > 0) {
			int same = t->nparams == t0->nparams;
			for (size_t i = 0; same && i < t->nparams; i++)
				same = !strcmp(t->names[i], t0->names[i]);
			if (!same) {
				char *a = xstrdup(""), *b = xstrdup("");
				for (size_t i = 0; i < t0->nparams; i++) {
					char *m = xasprintf("%s%s%s", a, i ? "," : "", t0->names[i]);
					free(a);
					a = m;
				}
				for (size_t i = 0; i < t->nparams; i++) {
					char *m = xasprintf("%s%s%s", b, i ? "," : "", t->names[i]);
					free(b);
					b = m;
				}
				diags_add(d, "autotune header: %s and %s are results of different configs: parameters (%s) and (%s)",
					  t0->path, t->path, a, b);
				free(a);
				free(b);
				return EXIT_USAGE;
			}
		}
		int sc = table_col(t, "spec_hash");
		for (size_t r = 0; r < t->nrows; r++) {
			const char *s = table_get(t, r, sc);
			if (!*s)
				continue;
			size_t len = strspn(s, "0123456789abcdef");
			if (len != 16 || s[len]) {
				diags_add(d, "%s: row %zu: spec_hash '%s' is not 16 hex digits", t->path, r + 1, s);
				return EXIT_USAGE;
			}
			if (!**spec) {
				*spec = s;
				spec_file = t->path;
			} else if (strcmp(s, *spec)) {
				diags_add(d, "autotune header: %s and %s were tuned from different versions of the config or "
					     "kernel (spec_hash %s and %s): tune both from the same spec",
					  spec_file, t->path, *spec, s);
				return EXIT_USAGE;
			}
		}
		int flagged;
		x->win = table_pick_winner(t, x->res, &flagged, NULL);
		select_policy policy;
		int recorded = table_policy(t, &policy);
		if (x->win >= 0 && !flagged)
			fprintf(stderr, "autotune header: note: %s flags no winner (an older results file, or another tuner's): chose one with "
					"%s (%s)\n", t->path, recorded ? "the policy it records" : "the default policy",
				policy_names[policy.kind]);
		if (x->win < 0 || !passed(&x->res[x->win])) {
			diags_add(d, "%s: no configuration passed (or nothing was measured: a dry run): no header written", t->path);
			return EXIT_NONE_PASSED;
		}
		x->gpu = table_field(t, (size_t)x->win, "gpu");
	}
	return 0;
}

/* The default for devices that were not measured: among the configurations that passed on every
 * device, the lowest geometric mean over the devices of (first-pass median / the fastest
 * first-pass median on that device). Its row in in[0], or -1 when none passed everywhere;
 * *time_ms: the geometric mean of its own times. */
static long long best_on_average(const input *in, size_t n, double *time_ms)
{
	double *fastest = xcalloc(n, sizeof *fastest);
	for (size_t k = 0; k < n; k++)
		for (size_t r = 0; r < in[k].t.nrows; r++)
			if (passed(&in[k].res[r]) && (fastest[k] == 0 || result_first_rank(&in[k].res[r]) < fastest[k]))
				fastest[k] = result_first_rank(&in[k].res[r]);
	long long best = -1;
	double best_score = 0;
	for (size_t r = 0; r < in[0].t.nrows; r++) {
		if (!passed(&in[0].res[r]))
			continue;
		double sum_ratio = log(result_first_rank(&in[0].res[r]) / fastest[0]), sum_time = log(in[0].res[r].t_median);
		size_t k = 1;
		for (; k < n; k++) {
			size_t q = 0;
			while (q < in[k].t.nrows && !(passed(&in[k].res[q]) && same_config(&in[0].t, r, &in[k].t, q)))
				q++;
			if (q == in[k].t.nrows)
				break;
			sum_ratio += log(result_first_rank(&in[k].res[q]) / fastest[k]);
			sum_time += log(in[k].res[q].t_median);
		}
		if (k < n)
			continue;
		double score = exp(sum_ratio / (double)n);
		if (best < 0 || score < best_score) {
			best = (long long)r;
			best_score = score;
			*time_ms = exp(sum_time / (double)n);
		}
	}
	free(fastest);
	return best;
}

/* The parameter values of a section's row, checked to be numbers, or the types and names of
 * string parameters. */
static int section_values(section *s, diags *d)
{
	const table *t = &s->in->t;
	s->vals = xcalloc(t->nparams, sizeof *s->vals);
	for (size_t i = 0; i < t->nparams; i++)
		if (parse_number(table_get(t, s->row, (int)i), &s->vals[i]) &&
		    parse_token(table_get(t, s->row, (int)i), &s->vals[i])) {
			diags_add(d, "%s: row %zu: parameter %s is '%s', not a number, nor a type or name C can take", t->path,
				  s->row + 1, t->names[i], table_get(t, s->row, (int)i));
			return -1;
		}
	const char *flags = table_field(t, s->row, "nvcc_flags");
	for (const char *p = flags; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f || *p == '\\') {
			diags_add(d, "%s: row %zu: nvcc_flags hold a control character or backslash: refused", t->path, s->row + 1);
			return -1;
		}
	return has_plan(t) ? plan_values(s, d) : 0;
}

typedef struct {
	const char *name;     /* the config's name: the prefix */
	char *upper, *lower;  /* NAME and name as identifiers */
	char **macro;         /* per parameter: NAME_PARAM */
	char **field;         /* per parameter: the struct member */
	int *kind;            /* per parameter: the widest kind any section needs */
	size_t nparams;
	int plan;             /* the results are a plan's: its host-side choices are macros too */
} names;

static void free_names(names *nm)
{
	for (size_t i = 0; nm->macro && i < nm->nparams; i++) {
		free(nm->macro[i]);
		free(nm->field[i]);
	}
	free(nm->macro);
	free(nm->field);
	free(nm->kind);
	free(nm->upper);
	free(nm->lower);
}

static int make_names(const char *name, const table *t, names *nm, diags *d)
{
	memset(nm, 0, sizeof *nm);
	nm->name = name;
	/* everything free_names frees exists before the first way out */
	nm->upper = macro_name(name, "X");
	nm->upper[strlen(nm->upper) - 2] = 0;
	nm->lower = xstrdup(nm->upper);
	for (char *p = nm->lower; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	nm->nparams = t->nparams;
	nm->plan = has_plan(t);
	nm->macro = xcalloc(t->nparams + 1, sizeof *nm->macro);
	nm->field = xcalloc(t->nparams + 1, sizeof *nm->field);
	nm->kind = xcalloc(t->nparams + 1, sizeof *nm->kind);
	if (nm->upper[0] >= '0' && nm->upper[0] <= '9') {
		diags_add(d, "autotune header: the name '%s' does not start a C identifier: give -o NAME_tuned.h", name);
		return -1;
	}
	size_t plen = strlen(nm->upper) + 1, at, other;
	char *clash = macro_clash(name, t->names, t->nparams, nm->plan, &at, &other);
	if (clash) {
		diags_add(d, "%s: %s", t->path, clash);
		free(clash);
		return -1;
	}
	for (size_t i = 0; i < t->nparams; i++) {
		nm->macro[i] = macro_name(name, t->names[i]);
		const char *suffix = nm->macro[i] + plen;
		char *f = *suffix && !(*suffix >= '0' && *suffix <= '9') ? xstrdup(suffix) : xasprintf("p_%s", suffix);
		for (char *p = f; *p; p++)
			if (*p >= 'A' && *p <= 'Z')
				*p = (char)(*p - 'A' + 'a');
		for (const char *const *k = keywords; *k; k++)
			if (!strcmp(f, *k)) {
				char *u = xasprintf("%s_", f);
				free(f);
				f = u;
				break;
			}
		nm->field[i] = f;
	}
	return 0;
}

static void put_section(FILE *f, const names *nm, const section *s)
{
	const table *t = &s->in->t;
	for (size_t i = 0; i < nm->nparams; i++) {
		fprintf(f, "#define %s ", nm->macro[i]);
		c_number(f, &s->vals[i], nm->kind[i]);
		fputc('\n', f);
	}
	fprintf(f, "#define %s_TIME_MS %.6f\n", nm->upper, s->time_ms);
	recipe_put_c(f, nm->upper, &s->rc);
	fprintf(f, "#define %s_TUNED_DEVICE ", nm->upper);
	c_string(f, s->device);
	fprintf(f, "\n#define %s_TUNED_ARCH ", nm->upper);
	c_string(f, table_field(t, s->row, "arch"));
	fputc('\n', f);
	if (nm->plan)
		/* what the program repeats: CUDA_DEVICE_MAX_CONNECTIONS before its first CUDA call, then
		 * the streams and the order it launches in */
		fprintf(f, "#define %s_PLAN_STREAMS %d\n#define %s_PLAN_ORDER \"%s\"\n#define %s_PLAN_BREADTH_FIRST %d\n"
			   "#define %s_PLAN_CONNECTIONS %d\n",
			nm->upper, s->streams, nm->upper, s->breadth_first ? "breadth-first" : "depth-first", nm->upper,
			s->breadth_first, nm->upper, s->connections);
}

static void put_make_section(FILE *f, const names *nm, const section *s)
{
	for (size_t i = 0; i < nm->nparams; i++)
		fprintf(f, "%s := %s\n", nm->macro[i], s->vals[i].num);
	fprintf(f, "%s_TIME_MS := %.6f\n", nm->upper, s->time_ms);
	recipe_put_make(f, nm->upper, &s->rc);
	fprintf(f, "%s_TUNED_DEVICE := ", nm->upper);
	char *device = one_line(s->device);
	make_value(f, device);
	free(device);
	/* the arch is a driver's answer or a command line's: only an sm_XY-like word goes into make */
	const char *arch = table_field(&s->in->t, s->row, "arch");
	fprintf(f, "\n%s_TUNED_ARCH := %s\n", nm->upper, strspn(arch, "smcompute_0123456789abf") == strlen(arch) ? arch : "");
	if (nm->plan)
		fprintf(f, "%s_PLAN_STREAMS := %d\n%s_PLAN_ORDER := %s\n%s_PLAN_BREADTH_FIRST := %d\n%s_PLAN_CONNECTIONS := %d\n",
			nm->upper, s->streams, nm->upper, s->breadth_first ? "breadth-first" : "depth-first", nm->upper,
			s->breadth_first, nm->upper, s->connections);
}

/* The configuration as "block_x=32 block_y=8" (values already checked to be numbers). */
static char *describe(const section *s)
{
	char *out = xstrdup("");
	for (size_t i = 0; i < s->in->t.nparams; i++) {
		char *safe = one_line(s->in->t.names[i]);
		char *m = xasprintf("%s%s%s=%s", out, i ? " " : "", safe, s->vals[i].num);
		free(safe);
		free(out);
		out = m;
	}
	return out;
}

/* Where a section's numbers come from, one comment line. */
static void put_provenance(FILE *f, const char *lead, const section *s)
{
	const table *t = &s->in->t;
	const result *w = &s->in->res[s->row];
	size_t ok = 0;
	for (size_t r = 0; r < t->nrows; r++)
		ok += passed(&s->in->res[r]);
	run_extent run; /* the space's size, rows or not */
	table_run(t, &run);
	const char *when = table_field(t, s->row, "tuned_at"), *arch = table_field(t, s->row, "arch");
	char *dev = one_line(*s->in->gpu ? s->in->gpu : "unknown (the results do not say)"), *path = one_line(t->path);
	char *safe_arch = one_line(arch), *safe_when = one_line(*when ? when : "at an unknown date");
	char *desc = describe(s);
	fprintf(f, "%sDevice: %s%s%s%s, tuned %s.\n", lead, dev, *arch ? " (" : "", safe_arch, *arch ? ")" : "", safe_when);
	fprintf(f, "%sWinner: %s: %.4f ms (median of %d samples%s);\n%s%zu of %zu configurations passed in %s.\n", lead, desc,
		result_time(w), w->samples, w->final_rounds ? ", finalists interleaved" : "", lead, ok, run.configurations, path);
	free(dev);
	free(path);
	free(safe_arch);
	free(safe_when);
	free(desc);
}

static char *command_line(char *const *csvs, size_t n, const char *out)
{
	char *cmd = xstrdup("autotune header");
	for (size_t k = 0; k < n; k++) {
		char *m = xasprintf("%s %s", cmd, csvs[k]);
		free(cmd);
		cmd = m;
	}
	char *m = xasprintf("%s -o %s", cmd, out);
	free(cmd);
	char *safe = one_line(m);
	free(m);
	return safe;
}

/* What both files quote about where they come from, each on one line. */
typedef struct {
	char *cmd;     /* the command that rewrites them */
	char *cfg;     /* the config, NULL when the results do not name it */
	char *base;    /* the header's file name */
	char *mk_base; /* the fragment's */
} origin;

/* In the opening comment: whether the runs measured their whole space, and if not, per results
 * file, why not and what to do; as macros: NAME_COMPLETE and the counts. */
static void put_run(FILE *h, FILE *mk, const names *nm, const section *secs, size_t nsec, int merged)
{
	run_extent all, r;
	table_run(&secs[0].in->t, &all);
	for (size_t s = 1; merged && s + 1 < nsec; s++) {
		table_run(&secs[s].in->t, &r);
		run_extent_join(&all, &r);
	}
	if (mk) {
		completeness_put_macros(h, mk, nm->upper, &all);
		return;
	}
	for (size_t s = 0; !run_complete(&all) && s < (merged ? nsec - 1 : 1); s++) {
		char *path = one_line(secs[s].in->t.path);
		table_run(&secs[s].in->t, &r);
		completeness_put_file_note(h, " * ", path, &r);
		free(path);
	}
	completeness_put_comment(h, " * ", nm->upper, &all);
}

/* The header's opening comment (what it holds and how to remake it) and its include guard. */
static void put_head(FILE *h, const names *nm, const section *secs, size_t nsec, int merged, const char *spec,
		     const origin *o)
{
	fprintf(h, "/* %s: " HEADER_SIGNATURE "%s%s; do not edit.\n", o->base, o->cfg ? " from " : "",
		o->cfg ? o->cfg : "");
	if (!merged)
		put_provenance(h, " * ", &secs[nsec - 1]);
	else {
		fprintf(h, " * One section per GPU model, chosen by the macro the build defines (at most one):\n");
		for (size_t s = 0; s + 1 < nsec; s++) {
			fprintf(h, " *   -DAUTOTUNE_TARGET_%s\n", secs[s].target);
			put_provenance(h, " *     ", &secs[s]);
		}
		fprintf(h, " * No target macro (or another GPU): the default, the configuration best on average over\n"
			   " * the measured GPUs: among those that passed on every one, the lowest geometric mean of\n"
			   " * (its time / the fastest time on that GPU), first-pass medians; its TIME_MS is the\n"
			   " * geometric mean of its times.\n");
	}
	put_run(h, NULL, nm, secs, nsec, merged);
	fprintf(h, " * %s_SPEC_HASH: the config, kernel source, headers and data tuned%s; a build refuses\n"
		   " * stale tuning by comparing it with `autotune validate --print-spec-hash CONFIG`.\n",
		nm->upper, *spec ? "" : " (empty: older results)");
	if (o->cfg)
		fprintf(h, " * Re-tune: autotune %s\n", o->cfg);
	fprintf(h, " * Rewrite from the results: %s\n", o->cmd);
	fprintf(h, " * The same values for make: %s.\n */\n", o->mk_base);
	fprintf(h, "#ifndef %s_TUNED_H\n#define %s_TUNED_H\n\n", nm->upper, nm->upper);
}

/* A merged header's sections, one per target and the default last, in both files. */
static void put_targets(FILE *h, FILE *mk, const names *nm, const section *secs, size_t nsec, const char *base)
{
	const section *def = &secs[nsec - 1];
	/* two targets at once would silently pick the first section */
	fprintf(h, "#if (");
	for (size_t s = 0; s + 1 < nsec; s++)
		fprintf(h, "%sdefined(AUTOTUNE_TARGET_%s)", s ? " + " : "", secs[s].target);
	fprintf(h, ") > 1\n#error \"%s: define at most one AUTOTUNE_TARGET_ macro\"\n#endif\n\n", base);
	for (size_t s = 0; s + 1 < nsec; s++) {
		char *dev = one_line(secs[s].device);
		fprintf(h, "#%s defined(AUTOTUNE_TARGET_%s) /* %s */\n", s ? "elif" : "if", secs[s].target, dev);
		free(dev);
		put_section(h, nm, &secs[s]);
	}
	if (def->vals) {
		fprintf(h, "#else /* the default: best on average over the measured GPUs */\n");
		put_section(h, nm, def);
	} else
		fprintf(h, "#else\n#error \"%s: no configuration passed on every tuned GPU: define an "
			   "AUTOTUNE_TARGET_ macro\"\n", base);
	fprintf(h, "#endif\n");

	fprintf(mk, "# make AUTOTUNE_TARGET=<one of %s_TARGETS> selects that GPU's values (and the build\n"
		    "# should pass -DAUTOTUNE_TARGET_$(AUTOTUNE_TARGET)); without it, the default: best on average.\n",
		nm->upper);
	fprintf(mk, "%s_TARGETS :=", nm->upper);
	for (size_t s = 0; s + 1 < nsec; s++)
		fprintf(mk, " %s", secs[s].target);
	fputc('\n', mk);
	if (def->vals)
		put_make_section(mk, nm, def);
	for (size_t s = 0; s + 1 < nsec; s++) {
		fprintf(mk, "ifeq ($(AUTOTUNE_TARGET),%s)\n", secs[s].target);
		put_make_section(mk, nm, &secs[s]);
		fprintf(mk, "endif\n");
	}
}

/* The values once more as a constant, for host code (device code uses the macros). */
static void put_host_constant(FILE *h, const names *nm)
{
	fprintf(h, "\n\n/* The same values as a constant for host code; device code uses the macros. */\n"
		   "#if defined(__GNUC__) || defined(__clang__)\n#define %s_TUNED_UNUSED_ __attribute__((unused))\n"
		   "#else\n#define %s_TUNED_UNUSED_\n#endif\n",
		nm->upper, nm->upper);
	for (size_t i = 0; i < nm->nparams; i++)
		if (nm->kind[i] == LITERAL_TOKEN) {
			fprintf(h, "#define %s_TUNED_STR2_(x) #x\n#define %s_TUNED_STR_(x) %s_TUNED_STR2_(x)\n", nm->upper,
				nm->upper, nm->upper);
			break;
		}
	fprintf(h, "static const struct %s_tuned {\n", nm->lower);
	static const char *const ctype[] = {"int", "long long", "double", "const char *"};
	int tokens = 0;
	for (size_t i = 0; i < nm->nparams; i++) {
		fprintf(h, "\t%s%s%s;\n", ctype[nm->kind[i]], nm->kind[i] == LITERAL_TOKEN ? "" : " ", nm->field[i]);
		tokens |= nm->kind[i] == LITERAL_TOKEN;
	}
	fprintf(h, "\tdouble time_ms;\n\tconst char *nvcc_flags;\n\tconst char *link_flags;\n\tconst char *kernel_source;\n"
		   "\tconst char *code_hash;\n\tint tuned_registers;\n\tint tuned_static_smem;\n\tconst char *spec_hash;\n"
		   "\tconst char *tuned_device;\n\tconst char *tuned_arch;\n");
	if (nm->plan)
		fprintf(h, "\tint plan_streams;\n\tconst char *plan_order;\n\tint plan_breadth_first;\n\tint plan_connections;\n");
	fprintf(h, "} %s_tuned %s_TUNED_UNUSED_ = {\n\t", nm->lower, nm->upper);
	for (size_t i = 0; i < nm->nparams; i++)
		/* a type or a name is the host's as its spelling: the macro, expanded, as a string */
		fprintf(h, nm->kind[i] == LITERAL_TOKEN ? "%s_TUNED_STR_(%s),\n\t" : "%.0s%s,\n\t", nm->upper, nm->macro[i]);
	fprintf(h, "%s_TIME_MS,\n\t%s_NVCC_FLAGS,\n\t%s_LINK_FLAGS,\n\t%s_KERNEL_SOURCE,\n\t%s_CODE_HASH,\n\t"
		   "%s_TUNED_REGISTERS,\n\t%s_TUNED_STATIC_SMEM,\n\t%s_SPEC_HASH,\n\t%s_TUNED_DEVICE,\n\t%s_TUNED_ARCH,\n",
		nm->upper, nm->upper, nm->upper, nm->upper, nm->upper, nm->upper, nm->upper, nm->upper, nm->upper, nm->upper);
	if (nm->plan)
		fprintf(h, "\t%s_PLAN_STREAMS,\n\t%s_PLAN_ORDER,\n\t%s_PLAN_BREADTH_FIRST,\n\t%s_PLAN_CONNECTIONS,\n",
			nm->upper, nm->upper, nm->upper, nm->upper);
	fprintf(h, "};\n#undef %s_TUNED_UNUSED_\n", nm->upper);
	if (tokens)
		fprintf(h, "#undef %s_TUNED_STR_\n#undef %s_TUNED_STR2_\n", nm->upper, nm->upper);
}

/* The header and fragment texts; atomically written by the caller. */
static void render(FILE *h, FILE *mk, const names *nm, const section *secs, size_t nsec, int merged, const char *spec,
		   const char *config_path, char *const *csvs, size_t n, const char *out, const char *mk_path)
{
	origin o = {.cmd = command_line(csvs, n, out),
		    .cfg = config_path && *config_path ? one_line(config_path) : NULL,
		    .base = one_line(strrchr(out, '/') ? strrchr(out, '/') + 1 : out),
		    .mk_base = one_line(strrchr(mk_path, '/') ? strrchr(mk_path, '/') + 1 : mk_path)};
	const section *def = &secs[nsec - 1];
	put_head(h, nm, secs, nsec, merged, spec, &o);
	fprintf(mk, "# %s: the values of %s for make; " HEADER_SIGNATURE ", do not edit.\n", o.mk_base, o.base);
	if (o.cfg)
		fprintf(mk, "# Re-tune: autotune %s\n", o.cfg);
	fprintf(mk, "# Rewrite from the results: %s\n", o.cmd);
	fprintf(mk, "# Build the tuned binary as it was compiled: $(NVCC) -arch=$(%s_TUNED_ARCH) $(%s_NVCC_FLAGS)\n"
		    "#   $(%s_INCLUDE_FLAGS) $(%s_KERNEL_SOURCE) (or a program that #includes it), linked with $(%s_LINK_FLAGS).\n",
		nm->upper, nm->upper, nm->upper, nm->upper, nm->upper);
	/* paths below are relative to this file, wherever a Makefile includes it from */
	fprintf(mk, "%s_FRAGMENT_DIR := $(dir $(lastword $(MAKEFILE_LIST)))\n", nm->upper);
	if (!merged) {
		put_section(h, nm, def);
		put_make_section(mk, nm, def);
	} else
		put_targets(h, mk, nm, secs, nsec, o.base);
	fprintf(h, "#define %s_SPEC_HASH ", nm->upper);
	c_string(h, spec);
	fprintf(mk, "%s_SPEC_HASH := %s\n", nm->upper, spec);
	fputc('\n', h);
	put_run(h, mk, nm, secs, nsec, merged);
	put_host_constant(h, nm);
	fprintf(h, "\n#endif /* %s_TUNED_H */\n", nm->upper);
	free(o.cmd);
	free(o.cfg);
	free(o.base);
	free(o.mk_base);
}

/* The prefix and default path from the config the results name (cfg, loaded; NULL when it does
 * not load), when the caller gave none. */
static int resolve_name(const input *in, const config *cfg, const char *spec, const char *out, char **name,
			char **path, diags *d)
{
	const char *recorded = table_field(&in->t, (size_t)in->win, "config");
	if (cfg) {
		*name = xstrdup(cfg->name);
		*path = xstrdup(out ? out : cfg->header_path);
		char now[17];
		config_spec_hash(cfg, now);
		if (*spec && strcmp(now, spec)) {
			char *why = spec_files_stale(cfg, in->t.path, spec);
			fprintf(stderr, "autotune header: warning: %s changed since %s was tuned (spec_hash %s, now %s%s%s): "
					"a build that checks the hash will refuse this header until it is re-tuned\n",
				cfg->path, in->t.path, spec, now, why ? ": " : "", why ? why : "");
			free(why);
		}
		return 0;
	}
	if (*recorded) {
		/* elsewhere the config may not load (moved away, a missing kernel): its file name is what
		 * `name:` defaults to */
		char *cfg_path = find_from(recorded, in->t.path);
		*name = stem(cfg_path);
		fprintf(stderr, "autotune header: note: cannot load %s: the macros are named after its file name (%s)\n",
			cfg_path, *name);
		free(cfg_path);
	} else if (out)
		*name = stem(out);
	else {
		diags_add(d, "autotune header: %s does not name its config (an older results file): give -o NAME_tuned.h, "
			     "whose NAME prefixes the macros", in->t.path);
		return -1;
	}
	*path = out ? xstrdup(out) : xasprintf("results/%s_tuned.h", *name);
	return 0;
}

/* A merged header's sections, one per CSV, named after its GPU; one GPU model twice is refused. */
static int target_sections(input *in, size_t n, section *secs, diags *d)
{
	for (size_t k = 0; k < n; k++) {
		in[k].target = target_name(in[k].gpu);
		if (!*in[k].target) {
			diags_add(d, "%s: no GPU name in the results (an older or dry-run file): a merged header needs one "
				     "per file",
				  in[k].t.path);
			return -1;
		}
		for (size_t j = 0; j < k; j++)
			if (!strcmp(in[j].target, in[k].target)) {
				/* which to keep is the user's call, not the order of the arguments */
				diags_add(d, "autotune header: %s and %s both measured %s (AUTOTUNE_TARGET_%s): give one CSV per "
					     "GPU model",
					  in[j].t.path, in[k].t.path, in[k].gpu, in[k].target);
				return -1;
			}
		secs[k] = (section){&in[k], (size_t)in[k].win, result_time(&in[k].res[in[k].win]),
				    in[k].gpu, in[k].target, NULL, 0, 0, 0, {0}};
	}
	return 0;
}

/* The section without a target: one CSV's winner, or of several the configuration best on
 * average. 1 when none passed on every GPU: it then stays without values (render writes an
 * #error). */
static int default_section(const input *in, size_t n, section *def)
{
	if (n < 2) {
		*def = (section){&in[0], (size_t)in[0].win, result_time(&in[0].res[in[0].win]),
				 *in[0].gpu ? in[0].gpu : "unknown", NULL, NULL, 0, 0, 0, {0}};
		return 0;
	}
	double t = 0;
	long long row = best_on_average(in, n, &t);
	*def = (section){.in = &in[0], .row = row < 0 ? 0 : (size_t)row, .time_ms = t, .device = "default"};
	if (row >= 0)
		return 0;
	fprintf(stderr, "autotune header: warning: no configuration passed on every GPU: without an "
			"AUTOTUNE_TARGET_ macro the header is an #error\n");
	return 1;
}

/* Every section's values, and per parameter the widest kind that any of them needs; the
 * default section is the last. */
static int all_values(section *secs, size_t nsec, int no_default, names *nm, diags *d)
{
	for (size_t s = 0; s < nsec; s++) {
		if (s + 1 == nsec && no_default)
			continue;
		if (section_values(&secs[s], d))
			return -1;
		for (size_t i = 0; i < nm->nparams; i++)
			if (secs[s].vals[i].kind > nm->kind[i])
				nm->kind[i] = secs[s].vals[i].kind;
	}
	return 0;
}

/* Like a tuning run, which creates results/ for its outputs: the default path must just work. */
static void make_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (slash && slash > path) {
		char *dir = xasprintf("%.*s", (int)(slash - path), path);
		if (mkdir(dir, 0777) && errno != EEXIST)
			fprintf(stderr, "autotune header: cannot create '%s': %s\n", dir, strerror(errno));
		free(dir);
	}
}

/* Renders the header at path and its make fragment in memory, then writes both. */
static int write_files(const names *nm, const section *secs, size_t nsec, int merged, const char *spec,
		       const char *config_path, char *const *csvs, size_t n, const char *path, diags *d)
{
	char *htext = NULL, *mtext = NULL;
	size_t hlen = 0, mlen = 0;
	FILE *h = open_memstream(&htext, &hlen), *mk = open_memstream(&mtext, &mlen);
	if (!h || !mk) {
		fputs("autotune: out of memory\n", stderr);
		exit(EXIT_ENV);
	}
	char *mk_path = header_mk_path(path);
	make_parent(path);
	render(h, mk, nm, secs, nsec, merged, spec, config_path, csvs, n, path, mk_path);
	fclose(h);
	fclose(mk);
	int rc = -1;
	/* the fragment first: make compares against the header, so it must be the newer one */
	for (size_t i = 0; i < n && rc; i++)
		if (same_file(path, csvs[i]) || same_file(mk_path, csvs[i])) {
			diags_add(d, "cannot write the header to '%s' (make fragment '%s'): one is the results CSV '%s'", path,
				  mk_path, csvs[i]);
			rc = -2;
		}
	if (rc != -2 && (inputs_check_output(config_path, path, "the header", HEADER_SIGNATURE, d) ||
			 inputs_check_output(config_path, mk_path, "the make fragment", HEADER_SIGNATURE, d)))
		rc = -2;
	if (rc == -2)
		rc = -1;
	else {
		rc = 0;
		for (size_t s = 0; s < nsec && !rc; s++)
			rc = recipe_write_copy(&secs[s].rc, config_path, path, d);
		if (!rc && (write_output(mk_path, mtext, mlen, d) || write_output(path, htext, hlen, d)))
			rc = -1;
	}
	free(htext);
	free(mtext);
	free(mk_path);
	return rc;
}

/* Each section's recipe; a kernel that needs rewriting gets a copy per section. */
static int recipes(section *secs, size_t nsec, int no_default, const config *cfg, const char *path, diags *d)
{
	for (size_t s = 0; s < nsec; s++) {
		if (s + 1 == nsec && no_default)
			continue;
		char *copy = recipe_copy_name(path, secs[s].target);
		int rc = recipe_of_row(cfg, &secs[s].in->t, secs[s].row, path, copy, &secs[s].rc, d);
		free(copy);
		if (rc)
			return -1;
	}
	return 0;
}

int header_write(char *const *csvs, size_t n, const char *name, const char *out, diags *d)
{
	return header_write_results(csvs, n, NULL, name, out, d);
}

int header_write_results(char *const *csvs, size_t n, const char *config_path, const char *name, const char *out,
			 diags *d)
{
	/* results of several instances: a header that selects among them */
	int instances = selector_header(csvs, n, config_path, name, out, d);
	if (instances >= 0)
		return instances;
	input *in = xcalloc(n, sizeof *in);
	section *secs = xcalloc(n + 1, sizeof *secs);
	size_t nsec = 0;
	char *own_name = NULL, *path = NULL;
	config *cfg = NULL;
	names nm = {0};
	const char *spec;
	int merged = n > 1, rc = load_inputs(csvs, n, config_path, in, &spec, d);
	if (rc)
		goto out;
	rc = EXIT_USAGE;
	/* the config the results name, loaded once: the name, the spec check and the recipe's source */
	cfg = recipe_config(&in[0].t, (size_t)in[0].win);
	if (!name) {
		if (resolve_name(&in[0], cfg, spec, out, &own_name, &path, d))
			goto out;
		name = own_name;
	} else
		path = xstrdup(out);
	if (!*name || make_names(name, &in[0].t, &nm, d)) {
		if (!*name)
			diags_add(d, "autotune header: no name for the macros: give -o NAME_tuned.h");
		goto out;
	}
	if (merged && target_sections(in, n, secs, d))
		goto out;
	nsec = merged ? n + 1 : 1; /* the default last */
	int no_default = default_section(in, n, &secs[nsec - 1]);
	make_parent(path);
	if (all_values(secs, nsec, no_default, &nm, d) || recipes(secs, nsec, no_default, cfg, path, d))
		goto out;
	const char *tuned_config = table_field(&in[0].t, (size_t)in[0].win, "config");
	if (!write_files(&nm, secs, nsec, merged, spec, tuned_config, csvs, n, path, d))
		rc = 0;
out:
	for (size_t s = 0; s < nsec; s++) {
		free(secs[s].vals);
		recipe_free(&secs[s].rc);
	}
	free(secs);
	if (cfg)
		config_free(cfg);
	free(cfg);
	free_names(&nm);
	free_inputs(in, n);
	free(own_name);
	free(path);
	return rc;
}

int cmd_header(const options *o)
{
	diags d = {0};
	int rc = header_write_results(o->inputs, (size_t)o->ninputs, o->results_config, NULL, o->output, &d);
	diags_print(&d);
	diags_free(&d);
	return rc;
}
