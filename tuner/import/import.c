/* import.c: T1 (the Kernel Tuner / KTT tuning-spec JSON) to autotune YAML. JSON is read with
 * libyaml, which parses JSON's flow syntax, so there is no second parser to keep. The mapping
 * (docs/config.md, Importing T1 specs): TuningParameters -> space (values evaluated) and defines,
 * Conditions -> constraints, LocalSize -> block, ProblemSize over GridDivX..Z or GlobalSize ->
 * grid, Arguments in order -> arguments, CompilerOptions -> build flags, SharedMemory -> launch
 * shared_mem. Python expressions go through import_py.c, which translates exactly or refuses. */
#include "import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "config.h"
#include "document.h"
#include "import_keys.h"
#include "import_out.h"
#include "import_py.h"
#include "import_reader.h"
#include "proc.h"
#include "space.h"
#include "banned.h"

/* The first line of every config import writes: a file that starts otherwise is not import's to
 * replace. */

/* LocalSize's X, Y, Z as the block; the grid from ProblemSize over the product of GridDivX..Z
 * (each by default the block's size in that dimension, as Kernel Tuner does), or else from
 * GlobalSize, which counts blocks (CUDA) or threads (OpenCL). */
static void put_dims(reader *R, FILE *f, const yaml_node_t *kernel, int cuda_global)
{
	static const char *const xyz[] = {"X", "Y", "Z"}, *const div[] = {"GridDivX", "GridDivY", "GridDivZ"};
	yaml_node_t *global = ir_get(R, kernel, "GlobalSize"), *local = ir_get(R, kernel, "LocalSize");
	char path[96];
	fputs("  block: [", f);
	for (int i = 0; i < 3; i++) {
		const char *l = ir_str(R, local, xyz[i], NULL);
		fputs(i ? ", " : "", f);
		snprintf(path, sizeof path, "KernelSpecification.LocalSize.%s", xyz[i]);
		if (l)
			ir_expression(R, f, ir_get(R, local, xyz[i]), path, l);
		else
			fputs("1", f);
	}
	fputs("]\n  grid: [", f);
	for (int i = 0; i < 3; i++) {
		const char *g = ir_str(R, global, xyz[i], NULL), *l = ir_str(R, local, xyz[i], NULL);
		fputs(i ? ", " : "", f);
		char *e = NULL;
		if (R->ps[0]) {
			yaml_node_t *d = ir_get(R, kernel, div[i]);
			char *by = NULL;
			if (d && d->type == YAML_SEQUENCE_NODE) {
				for (yaml_node_item_t *it = d->data.sequence.items.start; it < d->data.sequence.items.top; it++) {
					yaml_node_t *v = ir_node(R, *it);
					const char *name = v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : "";
					char *prev = by;
					by = by ? xasprintf("%s * %s", by, name) : xasprintf("%s", name);
					free(prev);
				}
			} else if (l && (!d || d->type == YAML_SCALAR_NODE))
				by = xasprintf("%s", l); /* absent or null: the block's size */
			/* Python's ceiling division: -(-a // b) */
			e = R->ps_py[i] ? xasprintf("-(-(%s) // (%s))", R->ps_py[i], by ? by : "1") : xstrdup("1");
			free(by);
			snprintf(path, sizeof path, "KernelSpecification.%s", div[i]);
			ir_expression(R, f, d ? d : kernel, path, e);
		} else if (!g)
			fputs("1", f);
		else {
			/* an OpenCL-style global size counts threads: blocks are its ceiling over the local size */
			e = !cuda_global && l ? xasprintf("-(-(%s) // (%s))", g, l) : xstrdup(g);
			snprintf(path, sizeof path, "KernelSpecification.GlobalSize.%s", xyz[i]);
			ir_expression(R, f, ir_get(R, global, xyz[i]), path, e);
		}
		free(e);
	}
	fputs("]\n", f);
}

/* The config's name (from the spec's file name) and its kernel: file and entry. */
static void put_kernel(reader *R, FILE *f, const yaml_node_t *kernel, const char *json_path)
{
	ir_str(R, kernel, "Language", "KernelSpecification needs a Language");
	const char *base = strrchr(json_path, '/');
	base = base ? base + 1 : json_path;
	fprintf(f, IMPORT_MARK "%s by autotune import.\nname: ", base);
	/* the name prefixes the header's macros: a file named 2d-conv.json still needs an identifier */
	if (!((*base >= 'a' && *base <= 'z') || (*base >= 'A' && *base <= 'Z') || *base == '_'))
		fputs("t1_", f);
	for (const char *p = base; *p && *p != '.'; p++)
		fputc((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ? *p : '_', f);
	fputs("\nkernel:\n  source: ", f);
	const char *file = ir_str(R, kernel, "KernelFile", "KernelSpecification needs a KernelFile");
	/* KernelFile is the spec's, relative to it; the config finds its source relative to itself:
	 * written elsewhere, it names the file by its absolute path */
	(void)json_path;
	ir_put_spec_file(R, f, ir_get(R, kernel, "KernelFile"), "KernelSpecification.KernelFile", file);
	R->kernel_text = import_kernel_text(R->file, file);
	fputs("\n  entry: ", f);
	const char *entry = ir_str(R, kernel, "KernelName", "KernelSpecification needs a KernelName");
	ir_quoted(f, entry ? entry : "");
	fputs("\n", f);
}

/* TuningParameters as the space, each value list evaluated (Python's range(), list
 * comprehensions, True and False), so the config says exactly which values there are; the names
 * and values are kept in R for expressions that use them. */
static void put_space(reader *R, FILE *f, const yaml_node_t *space)
{
	yaml_node_t *params = ir_get(R, space, "TuningParameters");
	fputs("space:\n", f);
	if (!params || params->type != YAML_SEQUENCE_NODE) {
		ir_err_at(R, space, "%s", "ConfigurationSpace needs TuningParameters (a list)");
		return;
	}
	int index = 0;
	for (yaml_node_item_t *it = params->data.sequence.items.start; it < params->data.sequence.items.top; it++, index++) {
		yaml_node_t *p = ir_node(R, *it);
		const char *name = ir_str(R, p, "Name", "a tuning parameter needs a Name");
		const char *type = ir_str(R, p, "Type", "a tuning parameter needs a Type");
		const char *values = ir_str(R, p, "Values", "a tuning parameter needs Values");
		if (!name || !type || !values)
			continue;
		char path[96];
		snprintf(path, sizeof path, "ConfigurationSpace.TuningParameters[%d]", index);
		if (strcmp(type, "int") && strcmp(type, "uint") && strcmp(type, "float") && strcmp(type, "bool")) {
			char *msg = xasprintf("%s.Type: '%s' is not supported (int, uint, float, bool: autotune's parameters "
					      "are numbers)", path, type);
			ir_err_at(R, p, "%s", msg);
			free(msg);
			continue;
		}
		value *v = NULL;
		size_t n = 0;
		py_error e;
		char where[128];
		snprintf(where, sizeof where, "%s.Values", path);
		if (py_values(values, &v, &n, &e)) {
			ir_err_py(R, ir_get(R, p, "Values"), where, values, &e);
			continue;
		}
		v = xrealloc(v, (n + 1) * sizeof *v); /* a slot for the Default */
		v[n] = v[0];
		fprintf(f, "  %s: [", name);
		for (size_t k = 0; k < n; k++) {
			char text[64];
			value_format(v[k], text, sizeof text);
			fprintf(f, "%s%s", k ? ", " : "", text);
		}
		fputs("]\n", f);
		grow(&R->pnames, &R->pcap, R->nparams + 1, sizeof *R->pnames);
		size_t cap = R->nparams;
		grow(&R->pvals, &cap, R->nparams + 1, sizeof *R->pvals);
		cap = R->nparams;
		grow(&R->npvals, &cap, R->nparams + 1, sizeof *R->npvals);
		R->pnames[R->nparams] = (char *)name;
		R->pvals[R->nparams] = v;
		R->npvals[R->nparams++] = n;
	}
}

static int nonempty_list(const yaml_node_t *n)
{
	return n && n->type == YAML_SEQUENCE_NODE && n->data.sequence.items.top > n->data.sequence.items.start;
}

static void add_constraint(reader *R, FILE *f, const char *text, const char *comment)
{
	if (!R->ncons)
		fputs("constraints:\n", f);
	fputs("  - ", f);
	ir_quoted(f, text);
	fprintf(f, "%s%s\n", comment ? "   # " : "", comment ? comment : "");
	grow(&R->cons, &R->cons_cap, R->ncons + 1, sizeof *R->cons);
	R->cons[R->ncons++] = xstrdup(text);
}

/* Kernel Tuner's own limit: the parameters named block_size_x/y/z (in any case) are the block,
 * and configurations over 1,024 threads are dropped before any condition. */
static void thread_limit(reader *R, FILE *f)
{
	static const char *const dims[] = {"block_size_x", "block_size_y", "block_size_z"};
	char *product = NULL;
	for (int d = 0; d < 3; d++)
		for (size_t k = 0; k < R->nparams; k++)
			if (!strcasecmp(R->pnames[k], dims[d])) {
				char *prev = product;
				product = prev ? xasprintf("%s * %s", prev, R->pnames[k]) : xstrdup(R->pnames[k]);
				free(prev);
			}
	if (!product)
		return;
	char *limit = xasprintf("%s <= 1024", product);
	add_constraint(R, f, limit, "Kernel Tuner's limit on threads per block");
	free(limit);
	free(product);
}

/* Conditions as constraints, after Kernel Tuner's thread limit. */
static void put_constraints(reader *R, FILE *f, const yaml_node_t *space)
{
	thread_limit(R, f);
	yaml_node_t *conds = ir_get(R, space, "Conditions");
	if (!nonempty_list(conds))
		return;
	int index = 0;
	for (yaml_node_item_t *it = conds->data.sequence.items.start; it < conds->data.sequence.items.top; it++, index++) {
		yaml_node_t *c = ir_node(R, *it);
		const char *e = ir_str(R, c, "Expression", "a condition needs an Expression");
		if (!e)
			continue;
		char path[96];
		snprintf(path, sizeof path, "ConfigurationSpace.Conditions[%d].Expression", index);
		py_env env = ir_py_env(R, 1);
		py_error pe;
		char *text = py_translate(e, &env, &pe);
		if (text)
			add_constraint(R, f, text, NULL);
		else
			ir_err_py(R, ir_get(R, c, "Expression"), path, e, &pe);
		free(text);
	}
}

/* The parameters bound to the defaults being checked. */
static int default_of(void *ctx, const char *name, value *out)
{
	const reader *R = ctx;
	for (size_t k = 0; k < R->nparams; k++)
		if (!strcmp(R->pnames[k], name)) {
			*out = R->pvals[k][R->npvals[k]]; /* the slot past the values holds the default */
			return 0;
		}
	return -1;
}

/* BAT's Default, one per parameter: its reference configuration, which BAT runs to check the
 * outputs. It becomes verify.reference when it is a configuration of the space; said otherwise. */
static void read_default(reader *R, const yaml_node_t *space)
{
	yaml_node_t *params = ir_get(R, space, "TuningParameters");
	if (R->errors || !params || params->type != YAML_SEQUENCE_NODE ||
	    (size_t)(params->data.sequence.items.top - params->data.sequence.items.start) != R->nparams)
		return;
	size_t k = 0, have = 0;
	char *why = NULL, *ref = xstrdup("{");
	for (yaml_node_item_t *it = params->data.sequence.items.start; it < params->data.sequence.items.top; it++, k++) {
		yaml_node_t *d = ir_get(R, ir_node(R, *it), "Default");
		expr_error ee;
		expr *e = d && d->type == YAML_SCALAR_NODE ? expr_parse((const char *)d->data.scalar.value, &ee) : NULL;
		value v;
		int ok = e && !expr_eval(e, NULL, NULL, &v, &ee);
		expr_free(e);
		have += d != NULL;
		if (!ok) {
			if (d && !why)
				why = xasprintf("%s's Default is not a number", R->pnames[k]);
			continue;
		}
		int among = 0;
		for (size_t j = 0; j < R->npvals[k] && !among; j++)
			among = value_as_double(R->pvals[k][j]) == value_as_double(v);
		char text[64];
		value_format(v, text, sizeof text);
		if (!among && !why)
			why = xasprintf("%s=%s is not among its Values", R->pnames[k], text);
		R->pvals[k][R->npvals[k]] = v;
		char *prev = ref;
		ref = xasprintf("%s%s%s: %s", prev, k ? ", " : "", R->pnames[k], text);
		free(prev);
	}
	for (size_t c = 0; c < R->ncons && !why && have == R->nparams; c++) {
		expr_error ee;
		expr *e = expr_parse(R->cons[c], &ee);
		value v;
		if (!e || expr_eval(e, default_of, R, &v, &ee) || !value_truth(v))
			why = xasprintf("it fails the constraint %.200s%s", R->cons[c], strlen(R->cons[c]) > 200 ? "..." : "");
		expr_free(e);
	}
	if (have > 0 && have < R->nparams)
		ir_note(R, "%s%s", "not every parameter has a Default: outputs are checked against the first configuration's", "");
	else if (have > 0 && why)
		ir_note(R, "Default is not a valid configuration (%s): outputs are checked against the first "
		     "configuration's%s", why, "");
	else if (have > 0)
		R->reference = xasprintf("%s}", ref);
	free(ref);
	free(why);
}

/* ProblemSize (a number or a list of up to three, numbers or expressions), kept in R both as
 * written and translated: the grid divides it, and sizes may name ProblemSize[i]. */
static void read_problem_size(reader *R, const yaml_node_t *kernel)
{
	yaml_node_t *ps = ir_get(R, kernel, "ProblemSize");
	if (!ps)
		return;
	yaml_node_t *item[3] = {NULL, NULL, NULL};
	if (ps->type == YAML_SCALAR_NODE)
		item[0] = ps;
	else if (ps->type == YAML_SEQUENCE_NODE)
		for (int i = 0; i < 3 && ps->data.sequence.items.start + i < ps->data.sequence.items.top; i++)
			item[i] = ir_node(R, ps->data.sequence.items.start[i]);
	for (int i = 0; i < 3; i++) {
		if (!item[i] || item[i]->type != YAML_SCALAR_NODE)
			continue;
		py_env env = ir_py_env(R, 0);
		py_error e;
		char path[64];
		snprintf(path, sizeof path, "KernelSpecification.ProblemSize[%d]", i);
		R->ps_py[i] = (const char *)item[i]->data.scalar.value;
		if (!(R->ps[i] = py_translate(R->ps_py[i], &env, &e)))
			ir_err_py(R, item[i], path, R->ps_py[i], &e);
	}
	if (!R->ps[0] && !R->errors)
		ir_err_at(R, ps, "%s", "KernelSpecification.ProblemSize: a number or a list of one to three");
}

/* The launch's block, grid and shared memory. */
static void put_launch(reader *R, FILE *f, const yaml_node_t *kernel)
{
	if (!ir_get(R, kernel, "LocalSize") || (!ir_get(R, kernel, "GlobalSize") && !R->ps[0]))
		ir_err_at(R, kernel, "%s", "KernelSpecification needs LocalSize, and GlobalSize or ProblemSize");
	const char *gtype = ir_str(R, kernel, "GlobalSizeType", NULL);
	int cuda_global = gtype ? !strcmp(gtype, "CUDA") : 1;
	fputs("launch:\n", f);
	put_dims(R, f, kernel, cuda_global);
	yaml_node_t *sm = ir_get(R, kernel, "SharedMemory");
	const char *smem = ir_str(R, kernel, "SharedMemory", NULL);
	/* null is JSON's "none", as an absent key */
	if (smem && !(sm->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !strcmp(smem, "null")))
		fprintf(f, "  shared_mem: %s\n", smem);
}

/* Whether name is a tuning parameter. */
static int is_param(const reader *R, const char *name)
{
	for (size_t k = 0; k < R->nparams; k++)
		if (!strcmp(R->pnames[k], name))
			return 1;
	return 0;
}

/* BenchmarkConfig: BAT's runner passes each key as -DKEY=VALUE; a key that is also a tuning
 * parameter is the parameter's. BAT compiles with NVRTC, while nvcc also reads CUDA's headers,
 * whose parameter names (dataSize) a define would rewrite: a key the kernel does not name is left
 * out, and said. */
static void benchmark_config(reader *R, FILE *f, const yaml_node_t *bc)
{
	if (!bc || bc->type != YAML_MAPPING_NODE)
		return;
	char *unused = NULL;
	for (yaml_node_pair_t *p = bc->data.mapping.pairs.start; p < bc->data.mapping.pairs.top; p++) {
		yaml_node_t *k = ir_node(R, p->key), *v = ir_node(R, p->value);
		const char *key = (const char *)k->data.scalar.value;
		if (k->type != YAML_SCALAR_NODE || v->type != YAML_SCALAR_NODE || is_param(R, key)) {
			ir_note(R, "BenchmarkConfig.%s is %s: not passed as a define", key,
			     v->type != YAML_SCALAR_NODE ? "not a number or a name" : "also a tuning parameter, whose values it takes");
			continue;
		}
		if (!import_names_word(R->kernel_text, key)) {
			char *prev = unused;
			unused = xasprintf("%s%s%s", prev ? prev : "", prev ? ", " : "", key);
			free(prev);
			continue;
		}
		char *flag = xasprintf("-D%s=%s", key, (const char *)v->data.scalar.value);
		fputs(", ", f);
		ir_quoted(f, flag);
		free(flag);
	}
	if (unused)
		ir_note(R, "BenchmarkConfig keys the kernel does not name are not defined: %s%s", unused, "");
	free(unused);
}

/* BAT's BenchmarkConfig.PRECISION (-DPRECISION) gives its kernels their type: float at 32, double
 * at 64. An argument of the other precision is read as the kernel's type (a double scalar for a
 * float parameter stops the run at the argument check, a double array is read as floats): said. */
static void precision_note(reader *R, const yaml_node_t *bc, const yaml_node_t *args)
{
	const char *p = ir_str(R, bc, "PRECISION", NULL);
	if (!p || (strcmp(p, "32") && strcmp(p, "64")) || !args || args->type != YAML_SEQUENCE_NODE)
		return;
	const char *other = !strcmp(p, "32") ? "double" : "float", *mine = !strcmp(p, "32") ? "float" : "double";
	char *list = NULL;
	size_t n = 0;
	for (yaml_node_item_t *it = args->data.sequence.items.start; it < args->data.sequence.items.top; it++) {
		yaml_node_t *a = ir_node(R, *it);
		const char *name = ir_str(R, a, "Name", NULL), *type = ir_str(R, a, "Type", NULL);
		if (!name || !type || strncmp(type, other, strlen(other)))
			continue;
		char *prev = list;
		list = xasprintf("%s%s'%s'", prev ? prev : "", prev ? ", " : "", name);
		free(prev);
		n++;
	}
	if (!list)
		return;
	char *last = strrchr(list, ',');
	char *names = last ? xasprintf("%.*s and%s", (int)(last - list), list, last + 1) : xstrdup(list);
	char *msg = xasprintf("BenchmarkConfig.PRECISION is %s, for which BAT's kernels compute in %s, but %s %s %s: if "
			      "the kernel's type follows PRECISION, declare %s %s (Type \"%s\")",
			      p, mine, names, n == 1 ? "is" : "are", other, n == 1 ? "it" : "them", mine, mine);
	ir_note(R, "%s%s", msg, "");
	free(msg);
	free(names);
	free(list);
}

/* Every parameter as a define; CompilerOptions, kernel_tuner (which Kernel Tuner always defines,
 * and kernels test to tell a tuning run from their own build) and BenchmarkConfig as nvcc flags. */
static void put_build(reader *R, FILE *f, const yaml_node_t *kernel, const yaml_node_t *root)
{
	fputs("build:\n  defines: [", f);
	for (size_t i = 0; i < R->nparams; i++)
		fprintf(f, "%s%s", i ? ", " : "", R->pnames[i]);
	fputs("]   # T1 tuners pass every parameter to the kernel as a define\n", f);
	fputs("  flags: [\"-Dkernel_tuner=1\"", f);
	yaml_node_t *opts = ir_get(R, kernel, "CompilerOptions");
	for (int k = 0; nonempty_list(opts) && opts->data.sequence.items.start + k < opts->data.sequence.items.top; k++) {
		yaml_node_t *o = ir_node(R, opts->data.sequence.items.start[k]);
		const char *flag = o->type == YAML_SCALAR_NODE ? (const char *)o->data.scalar.value : "";
		if (!*flag) { /* nvcc is given no empty argument */
			char at[32];
			snprintf(at, sizeof at, "%d", k);
			ir_note(R, "KernelSpecification.CompilerOptions[%s] is empty: left out%s", at, "");
			continue;
		}
		char what[64];
		snprintf(what, sizeof what, "KernelSpecification.CompilerOptions[%d]", k);
		if (ir_refuse_shell(R, o, what, flag))
			continue;
		fputs(", ", f);
		ir_quoted(f, flag);
	}
	benchmark_config(R, f, ir_get(R, root, "BenchmarkConfig"));
	fputs("]\n", f);
}

/* One note for the keys read past, one for those known but not honoured. */
static void note_unused(reader *R, const yaml_node_t *root)
{
	char *list = NULL;
	for (size_t i = 0; i < R->keys.nread_past; i++) {
		char *prev = list;
		list = xasprintf("%s%s%s", prev ? prev : "", prev ? ", " : "", R->keys.read_past[i]);
		free(prev);
	}
	if (list)
		ir_note(R, "read past keys outside T1 that autotune does not use: %s%s", list, "");
	free(list);
	static const char *const unused[][2] = {
		{"Budget", "give autotune --budget"}, {"Search", "give autotune --strategy"},
	};
	for (size_t i = 0; i < sizeof unused / sizeof *unused; i++)
		if (ir_get(R, root, unused[i][0]))
			ir_note(R, "%s is not honoured: %s", unused[i][0], unused[i][1]);
	yaml_node_t *kernel = ir_get(R, root, "KernelSpecification");
	if (ir_get(R, kernel, "Device"))
		ir_note(R, "KernelSpecification.Device is not honoured: %s%s", "give autotune --device", "");
	const char *t;
	if (ir_ktt_tolerance(R, ir_get(R, kernel, "ReferenceArguments"), &t) < 0)
		ir_note(R, "ReferenceArguments' ValidationMethod and ValidationThreshold are not honoured: %s%s",
		     "they differ between outputs or name another method; outputs are compared with rtol 1e-5, "
		     "atol 1e-6 (set verify.rtol and verify.atol)", "");
}

/* The config, its sections in the order the mapping above lists them; -1 when anything could
 * not be imported (each said in R's diags). */
static int convert(reader *R, FILE *f, const char *json_path)
{
	yaml_node_t *root = yaml_document_get_root_node(R->doc);
	if (!root || root->type != YAML_MAPPING_NODE) {
		diags_at(R->d, R->file, 1, 1, "%s", "a T1 spec is a JSON object");
		return -1;
	}
	R->keys = (import_keys){.doc = R->doc, .file = R->file, .d = R->d};
	if (import_refuse(&R->keys, root))
		return -1;
	/* a misspelt key would otherwise be a field silently left out: said first, and alone */
	if (import_check_keys(&R->keys, root))
		return -1;
	note_unused(R, root);
	yaml_node_t *space = ir_get(R, root, "ConfigurationSpace"), *kernel = ir_get(R, root, "KernelSpecification");
	if (!space || !kernel) {
		ir_err_at(R, root, "%s", "a T1 spec needs ConfigurationSpace and KernelSpecification");
		return -1;
	}
	put_kernel(R, f, kernel, json_path);
	put_space(R, f, space);
	read_problem_size(R, kernel);
	put_constraints(R, f, space);
	read_default(R, space);
	yaml_node_t *args = ir_get(R, kernel, "Arguments");
	if (args && args->type == YAML_SEQUENCE_NODE)
		ir_put_arguments(R, f, args);
	else
		ir_err_at(R, kernel, "%s", "KernelSpecification needs Arguments (a list)");
	precision_note(R, ir_get(R, root, "BenchmarkConfig"), args);
	put_launch(R, f, kernel);
	put_build(R, f, kernel, root);
	ir_put_references(R, f, ir_get(R, kernel, "ReferenceArguments"));
	return R->errors ? -1 : 0;
}

int import_t1(const char *json_path, const char *yaml_path, diags *d)
{
	yaml_document_t doc;
	if (same_file(yaml_path, json_path)) {
		diags_add(d, "cannot write the config to '%s': it is the spec being imported; give another with -o",
			  yaml_path);
		return -1;
	}
	if (document_read(json_path, "JSON", &doc, d))
		return -1;
	if (import_check_json(json_path, d)) {
		yaml_document_delete(&doc);
		return -1;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	diags notes = {0};
	reader R = {.file = json_path, .out = yaml_path, .doc = &doc, .d = d, .notes = &notes};
	/* the kernel and data files are refused as the output while converting, each at its field */
	int rc = convert(&R, out, json_path);
	for (size_t i = 0; i < notes.n; i++) { /* in the config too, without the spec's name */
		const char *msg = strstr(notes.msgs[i], ": note: ");
		fprintf(out, "# %s\n", msg ? msg + 2 : notes.msgs[i]);
		diags_add(d, "%s", notes.msgs[i]);
	}
	diags_free(&notes);
	fclose(out);
	import_keys_free(&R.keys);
	for (size_t k = 0; k < R.ncons; k++)
		free(R.cons[k]);
	free(R.cons);
	free(R.reference);
	free(R.kernel_text);
	for (size_t k = 0; k < R.nparams; k++)
		free(R.pvals[k]);
	free(R.pvals);
	free(R.npvals);
	free(R.pnames);
	for (int i = 0; i < 3; i++)
		free(R.ps[i]);
	if (rc == 0)
		rc = import_write(json_path, yaml_path, text, len, d);
	free(text);
	yaml_document_delete(&doc);
	return rc;
}
