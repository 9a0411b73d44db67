/* import.c: T1 (the Kernel Tuner / KTT tuning-spec JSON) to autotune YAML. JSON is read with
 * libyaml, which parses JSON's flow syntax, so there is no second parser to keep. The mapping
 * (docs/config.md, Importing T1 specs): TuningParameters -> space (values evaluated) and defines,
 * Conditions -> constraints, LocalSize -> block, ProblemSize over GridDivX..Z or GlobalSize ->
 * grid, Arguments in order -> arguments, CompilerOptions -> build flags, SharedMemory -> launch
 * shared_mem. Python expressions go through import_py.c, which translates exactly or refuses. */
#include "import.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <yaml.h>

#include "config.h"
#include "document.h"
#include "import_keys.h"
#include "import_out.h"
#include "import_py.h"
#include "proc.h"
#include "space.h"
#include "banned.h"

/* The first line of every config import writes: a file that starts otherwise is not import's to
 * replace. */

typedef struct {
	const char *file;
	const char *out; /* the config being written */
	yaml_document_t *doc;
	diags *d;
	int errors;
	/* the tuning parameters read so far: names (the document's strings) and values */
	char **pnames;
	value **pvals;
	size_t *npvals, nparams, pcap;
	char *ps[3];          /* ProblemSize, translated (NULL: none) */
	const char *ps_py[3]; /* and as the spec writes it */
	import_keys keys;     /* and the keys read past */
	char **cons;          /* the constraints as written, for checking Default */
	size_t ncons, cons_cap;
	char *reference;      /* Default as verify.reference ("{A: 1, B: 2}"), NULL: none */
	char *kernel_text;    /* the kernel's source (its first MiB), NULL: unreadable */
	diags *notes;         /* what was read past or not honoured, said once each */
} reader;

static yaml_node_t *node(reader *R, int id) { return yaml_document_get_node(R->doc, id); }

static void err_at(reader *R, const yaml_node_t *n, const char *fmt, const char *what)
{
	diags_at(R->d, R->file, (int)n->start_mark.line + 1, (int)n->start_mark.column + 1, fmt, what);
	R->errors++;
}

/* An expression the translator refused: the field, the expression and why, at the field. */
static void err_py(reader *R, const yaml_node_t *n, const char *path, const char *python, const py_error *e)
{
	/* a long one quoted around the place only */
	int len = (int)strlen(python), from = len > 160 && e->at > 40 ? e->at - 40 : 0;
	int shown = len - from > 160 ? 120 : len - from;
	diags_at(R->d, R->file, (int)n->start_mark.line + 1, (int)n->start_mark.column + 1,
		 "%s: \"%s%.*s%s\": %s (at character %d); not imported: autotune writes only exact translations", path,
		 from ? "..." : "", shown, python + from, from + shown < len ? "..." : "", e->msg, e->at + 1);
	R->errors++;
}

static yaml_node_t *get(reader *R, const yaml_node_t *map, const char *key) { return document_get(R->doc, map, key); }

static const char *str(reader *R, const yaml_node_t *map, const char *key, const char *what)
{
	yaml_node_t *v = get(R, map, key);
	if (!v || v->type != YAML_SCALAR_NODE) {
		if (what)
			err_at(R, map, "%s", what);
		return NULL;
	}
	return (const char *)v->data.scalar.value;
}

/* A double-quoted YAML scalar. */
static void quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* What expressions may name beyond the parameters: the values of each (max(P), min(P)) and the
 * spec's ProblemSize. */
static const value *param_values(void *ctx, const char *name, size_t *n)
{
	const reader *R = ctx;
	for (size_t k = 0; k < R->nparams; k++)
		if (!strcmp(R->pnames[k], name)) {
			*n = R->npvals[k];
			return R->pvals[k];
		}
	return NULL;
}

static const char *problem_size(void *ctx, long i)
{
	const reader *R = ctx;
	return i >= 0 && i < 3 ? R->ps[i] : NULL;
}

/* A Python expression of the spec (at node n, field `path`) as autotune's, in quotes; what has no
 * exact translation is an error that names the field and the offending part. */
static void expression(reader *R, FILE *f, const yaml_node_t *n, const char *path, const char *python)
{
	py_env env = {param_values, problem_size, R};
	py_error e;
	char *text = py_translate(python, &env, &e);
	if (!text) {
		err_py(R, n, path, python, &e);
		fputs("0", f);
		return;
	}
	quoted(f, text);
	free(text);
}

/* Spec text bound for nvcc's argv (CompilerOptions, the kernel's path) that nvcc's own /bin/sh
 * steps would interpret (proc_shell_special): refused at its field, never written into a config.
 * 1 when refused. */
static int refuse_shell_text(reader *R, const yaml_node_t *n, const char *what, const char *text)
{
	char *why = proc_shell_refusal(what, text, "not imported (nothing a spec says may run on this machine)");
	if (!why)
		return 0;
	err_at(R, n, "%s", why);
	free(why);
	return 1;
}

/* A file the spec names relative to itself (KernelFile, DataSource), at node n of field `what`,
 * quoted, as the config finds it: relative to the config, so written elsewhere, by its absolute
 * path. It is an input: the config must not be written over it. */
static void put_spec_file(reader *R, FILE *f, const yaml_node_t *n, const char *what, const char *file)
{
	char *spec_dir = dir_of(R->file), *out_dir = dir_of(R->out), *path = NULL;
	if (file && *file != '/' && *spec_dir == '/' && strcmp(spec_dir, out_dir))
		path = xasprintf("%s/%s", spec_dir, file);
	char *input = file && *file != '/' ? xasprintf("%s/%s", spec_dir, file) : xstrdup(file ? file : "");
	if (file && !strcmp(what, "KernelSpecification.KernelFile"))
		refuse_shell_text(R, n, what, file);
	if (*input && same_file(R->out, input)) {
		char *msg = xasprintf("%s '%s' is the file the config would be written to: give the config another "
				      "name (-o)", what, file);
		err_at(R, n, "%s", msg);
		free(msg);
	}
	free(input);
	quoted(f, path ? path : file ? file : "");
	free(path);
	free(spec_dir);
	free(out_dir);
}

/* FillType and its companions: what fills an array. */
static void put_fill(reader *R, FILE *f, const yaml_node_t *a, const char *path, int out)
{
	const char *fill = str(R, a, "FillType", NULL), *value = str(R, a, "FillValue", NULL);
	const char *seed = str(R, a, "RandomSeed", NULL), *source = str(R, a, "DataSource", NULL);
	char where[160];
	snprintf(where, sizeof where, "%s.DataSource", path);
	if (!fill) {
		if (!out)
			fputs(", fill: random", f);
	} else if (!strcmp(fill, "Constant"))
		fprintf(f, ", fill: constant, value: %s", value ? value : "0");
	else if (!strcmp(fill, "Random")) /* Kernel Tuner and BAT draw numpy.random.randn: normals */
		fprintf(f, ", fill: normal%s%s", seed ? ", seed: " : "", seed ? seed : "");
	else if (!strcmp(fill, "Generator") && source) {
		/* a generator is an expression of the element's index i */
		fputs(", fill: {expr: ", f);
		expression(R, f, get(R, a, "DataSource"), where, source);
		fputs("}", f);
	} else if (!strcmp(fill, "Generator"))
		err_at(R, a, "%s.FillType Generator needs a DataSource: an expression of the element index i", path);
	else if (!strcmp(fill, "BinaryRaw") && source) {
		/* raw or .npy: the loader checks the file against the argument's type and count */
		fputs(", fill: {file: ", f);
		put_spec_file(R, f, get(R, a, "DataSource"), where, source);
		fputs("}", f);
	} else if (!strcmp(fill, "BinaryRaw"))
		err_at(R, a, "%s.FillType BinaryRaw needs a DataSource: the data file", path);
	else {
		char *msg = xasprintf("%s.FillType: '%s' is not imported (Constant, Random, Generator and BinaryRaw are; "
				      "HDF5 or Script data must be converted to a raw or .npy file by hand)", path, fill);
		err_at(R, a, "%s", msg);
		free(msg);
	}
}

/* Whether a JSON value is true as Python reads it: 1, true, a non-empty string other than "0". */
static int truthy(const yaml_node_t *v)
{
	const char *s = v && v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : NULL;
	return s && *s && strcmp(s, "0") && strcmp(s, "false") && strcmp(s, "null") && strcmp(s, "0.0");
}

/* Whether any argument says `Output`: then those with a true one, alone, are compared. */
static int names_outputs(reader *R, const yaml_node_t *args)
{
	for (yaml_node_item_t *it = args->data.sequence.items.start; it < args->data.sequence.items.top; it++)
		if (get(R, node(R, *it), "Output"))
			return 1;
	return 0;
}

/* An array's count, outputs and fill, after its name and type. */
static void put_array(reader *R, FILE *f, const yaml_node_t *a, const char *path, int out, int written)
{
	const char *size = str(R, a, "Size", NULL);
	char where[128];
	fputs(", count: ", f);
	snprintf(where, sizeof where, "%s.Size", path);
	if (size)
		expression(R, f, get(R, a, "Size"), where, size);
	else {
		err_at(R, a, "%s needs a Size", path);
		fputs("1", f);
	}
	if (out)
		fputs(", output: true", f);
	if (written == 2)
		fputs(", restore: true", f); /* read and written: each launch starts from the same input */
	put_fill(R, f, a, path, out);
}

static void arguments(reader *R, FILE *f, const yaml_node_t *args)
{
	fputs("arguments:\n", f);
	int index = 0, by_output = names_outputs(R, args);
	for (yaml_node_item_t *it = args->data.sequence.items.start; it < args->data.sequence.items.top; it++) {
		yaml_node_t *a = node(R, *it);
		char path[96];
		snprintf(path, sizeof path, "KernelSpecification.Arguments[%d]", index);
		index++;
		const char *name = str(R, a, "Name", NULL), *type = str(R, a, "Type", "an argument needs a Type");
		const char *mem = str(R, a, "MemoryType", "an argument needs a MemoryType");
		const char *value = str(R, a, "FillValue", NULL);
		const char *access = str(R, a, "AccessType", NULL), *memtype = str(R, a, "MemType", NULL);
		if (!type || !mem)
			continue;
		const char *ours = import_type(type);
		if (!ours) {
			char *msg = xasprintf("%s.Type: '%s' is not supported (int8..uint64, float, double, bool, and "
					      "CUDA's vector types int2..4, uint2..4, float2..4, double2..4)", path, type);
			err_at(R, a, "%s", msg);
			free(msg);
			continue;
		}
		char generated[32];
		snprintf(generated, sizeof generated, "arg%d", index);
		if (!name)
			name = generated;
		int cmem = strcmp(mem, "Symbol") && strcmp(mem, "Constant") && memtype && !strcmp(memtype, "Constant");
		fprintf(f, "  - {name: %s%s, type: %s", name, cmem ? "_arg" : "", ours);
		if (!strcmp(mem, "Scalar")) {
			elem_type t;
			if (elem_parse(ours, &t) == 0 && elem_lanes(t) > 1) {
				/* the worker passes a scalar as one value: a vector by value has no config form */
				char *msg = xasprintf("%s.Type: a Scalar of vector type '%s' is not imported: a scalar is one value of "
						      "int8..uint64, float or double, so a kernel parameter of type %s cannot be "
						      "given (take its components as separate parameters)", path, type, type);
				err_at(R, get(R, a, "Type"), "%s", msg);
				free(msg);
			}
			fprintf(f, ", value: %s}\n", value ? value : "0");
			continue;
		}
		/* KTT's Symbol: the module's __constant__ of that name, not passed */
		int symbol = !strcmp(mem, "Symbol") || !strcmp(mem, "Constant");
		if (strcmp(mem, "Vector") && !symbol) {
			char *msg = xasprintf("%s.MemoryType: '%s' is not supported (Scalar, Vector, Symbol)", path, mem);
			err_at(R, a, "%s", msg);
			free(msg);
			fputs("}\n", f);
			continue;
		}
		int written = !access ? 0 : !strcmp(access, "WriteOnly") ? 1 : !strcmp(access, "ReadWrite") ? 2 : 0;
		int out = by_output ? truthy(get(R, a, "Output")) : written != 0;
		put_array(R, f, a, path, out, written);
		if (symbol)
			fputs(", constant: true", f);
		fputs("}\n", f);
		/* Kernel Tuner's and BAT's MemType Constant: the array goes both to the kernel, as every
		 * Vector does (NAME_arg), and to the module's __constant__ NAME, a copy of it */
		if (cmem) {
			fprintf(f, "  - {name: %s, type: %s, count: ", name, ours);
			const char *size = str(R, a, "Size", NULL);
			if (size)
				expression(R, f, get(R, a, "Size"), path, size);
			else
				fputs("1", f);
			fprintf(f, ", fill: {copy: %s_arg}, constant: true}\n", name);
		}
	}
}

/* LocalSize's X, Y, Z as the block; the grid from ProblemSize over the product of GridDivX..Z
 * (each by default the block's size in that dimension, as Kernel Tuner does), or else from
 * GlobalSize, which counts blocks (CUDA) or threads (OpenCL). */
static void put_dims(reader *R, FILE *f, const yaml_node_t *kernel, int cuda_global)
{
	static const char *const xyz[] = {"X", "Y", "Z"}, *const div[] = {"GridDivX", "GridDivY", "GridDivZ"};
	yaml_node_t *global = get(R, kernel, "GlobalSize"), *local = get(R, kernel, "LocalSize");
	char path[96];
	fputs("  block: [", f);
	for (int i = 0; i < 3; i++) {
		const char *l = str(R, local, xyz[i], NULL);
		fputs(i ? ", " : "", f);
		snprintf(path, sizeof path, "KernelSpecification.LocalSize.%s", xyz[i]);
		if (l)
			expression(R, f, get(R, local, xyz[i]), path, l);
		else
			fputs("1", f);
	}
	fputs("]\n  grid: [", f);
	for (int i = 0; i < 3; i++) {
		const char *g = str(R, global, xyz[i], NULL), *l = str(R, local, xyz[i], NULL);
		fputs(i ? ", " : "", f);
		char *e = NULL;
		if (R->ps[0]) {
			yaml_node_t *d = get(R, kernel, div[i]);
			char *by = NULL;
			if (d && d->type == YAML_SEQUENCE_NODE) {
				for (yaml_node_item_t *it = d->data.sequence.items.start; it < d->data.sequence.items.top; it++) {
					yaml_node_t *v = node(R, *it);
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
			expression(R, f, d ? d : kernel, path, e);
		} else if (!g)
			fputs("1", f);
		else {
			/* an OpenCL-style global size counts threads: blocks are its ceiling over the local size */
			e = !cuda_global && l ? xasprintf("-(-(%s) // (%s))", g, l) : xstrdup(g);
			snprintf(path, sizeof path, "KernelSpecification.GlobalSize.%s", xyz[i]);
			expression(R, f, get(R, global, xyz[i]), path, e);
		}
		free(e);
	}
	fputs("]\n", f);
}

/* The config's name (from the spec's file name) and its kernel: file and entry. */
static void put_kernel(reader *R, FILE *f, const yaml_node_t *kernel, const char *json_path)
{
	str(R, kernel, "Language", "KernelSpecification needs a Language");
	const char *base = strrchr(json_path, '/');
	base = base ? base + 1 : json_path;
	fprintf(f, IMPORT_MARK "%s by autotune import.\nname: ", base);
	/* the name prefixes the header's macros: a file named 2d-conv.json still needs an identifier */
	if (!((*base >= 'a' && *base <= 'z') || (*base >= 'A' && *base <= 'Z') || *base == '_'))
		fputs("t1_", f);
	for (const char *p = base; *p && *p != '.'; p++)
		fputc((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ? *p : '_', f);
	fputs("\nkernel:\n  source: ", f);
	const char *file = str(R, kernel, "KernelFile", "KernelSpecification needs a KernelFile");
	/* KernelFile is the spec's, relative to it; the config finds its source relative to itself:
	 * written elsewhere, it names the file by its absolute path */
	(void)json_path;
	put_spec_file(R, f, get(R, kernel, "KernelFile"), "KernelSpecification.KernelFile", file);
	R->kernel_text = import_kernel_text(R->file, file);
	fputs("\n  entry: ", f);
	const char *entry = str(R, kernel, "KernelName", "KernelSpecification needs a KernelName");
	quoted(f, entry ? entry : "");
	fputs("\n", f);
}

/* TuningParameters as the space, each value list evaluated (Python's range(), list
 * comprehensions, True and False), so the config says exactly which values there are; the names
 * and values are kept in R for expressions that use them. */
static void put_space(reader *R, FILE *f, const yaml_node_t *space)
{
	yaml_node_t *params = get(R, space, "TuningParameters");
	fputs("space:\n", f);
	if (!params || params->type != YAML_SEQUENCE_NODE) {
		err_at(R, space, "%s", "ConfigurationSpace needs TuningParameters (a list)");
		return;
	}
	int index = 0;
	for (yaml_node_item_t *it = params->data.sequence.items.start; it < params->data.sequence.items.top; it++, index++) {
		yaml_node_t *p = node(R, *it);
		const char *name = str(R, p, "Name", "a tuning parameter needs a Name");
		const char *type = str(R, p, "Type", "a tuning parameter needs a Type");
		const char *values = str(R, p, "Values", "a tuning parameter needs Values");
		if (!name || !type || !values)
			continue;
		char path[96];
		snprintf(path, sizeof path, "ConfigurationSpace.TuningParameters[%d]", index);
		if (strcmp(type, "int") && strcmp(type, "uint") && strcmp(type, "float") && strcmp(type, "bool")) {
			char *msg = xasprintf("%s.Type: '%s' is not supported (int, uint, float, bool: autotune's parameters "
					      "are numbers)", path, type);
			err_at(R, p, "%s", msg);
			free(msg);
			continue;
		}
		value *v = NULL;
		size_t n = 0;
		py_error e;
		char where[128];
		snprintf(where, sizeof where, "%s.Values", path);
		if (py_values(values, &v, &n, &e)) {
			err_py(R, get(R, p, "Values"), where, values, &e);
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
	quoted(f, text);
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
	yaml_node_t *conds = get(R, space, "Conditions");
	if (!nonempty_list(conds))
		return;
	int index = 0;
	for (yaml_node_item_t *it = conds->data.sequence.items.start; it < conds->data.sequence.items.top; it++, index++) {
		yaml_node_t *c = node(R, *it);
		const char *e = str(R, c, "Expression", "a condition needs an Expression");
		if (!e)
			continue;
		char path[96];
		snprintf(path, sizeof path, "ConfigurationSpace.Conditions[%d].Expression", index);
		py_env env = {param_values, problem_size, R};
		py_error pe;
		char *text = py_translate(e, &env, &pe);
		if (text)
			add_constraint(R, f, text, NULL);
		else
			err_py(R, get(R, c, "Expression"), path, e, &pe);
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

static void note(reader *R, const char *fmt, const char *a, const char *b)
{
	char *msg = xasprintf(fmt, a, b);
	diags_add(R->notes, "%s: note: %s", R->file, msg);
	free(msg);
}

/* BAT's Default, one per parameter: its reference configuration, which BAT runs to check the
 * outputs. It becomes verify.reference when it is a configuration of the space; said otherwise. */
static void read_default(reader *R, const yaml_node_t *space)
{
	yaml_node_t *params = get(R, space, "TuningParameters");
	if (R->errors || !params || params->type != YAML_SEQUENCE_NODE ||
	    (size_t)(params->data.sequence.items.top - params->data.sequence.items.start) != R->nparams)
		return;
	size_t k = 0, have = 0;
	char *why = NULL, *ref = xstrdup("{");
	for (yaml_node_item_t *it = params->data.sequence.items.start; it < params->data.sequence.items.top; it++, k++) {
		yaml_node_t *d = get(R, node(R, *it), "Default");
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
		note(R, "%s%s", "not every parameter has a Default: outputs are checked against the first configuration's", "");
	else if (have > 0 && why)
		note(R, "Default is not a valid configuration (%s): outputs are checked against the first "
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
	yaml_node_t *ps = get(R, kernel, "ProblemSize");
	if (!ps)
		return;
	yaml_node_t *item[3] = {NULL, NULL, NULL};
	if (ps->type == YAML_SCALAR_NODE)
		item[0] = ps;
	else if (ps->type == YAML_SEQUENCE_NODE)
		for (int i = 0; i < 3 && ps->data.sequence.items.start + i < ps->data.sequence.items.top; i++)
			item[i] = node(R, ps->data.sequence.items.start[i]);
	for (int i = 0; i < 3; i++) {
		if (!item[i] || item[i]->type != YAML_SCALAR_NODE)
			continue;
		py_env env = {param_values, NULL, R};
		py_error e;
		char path[64];
		snprintf(path, sizeof path, "KernelSpecification.ProblemSize[%d]", i);
		R->ps_py[i] = (const char *)item[i]->data.scalar.value;
		if (!(R->ps[i] = py_translate(R->ps_py[i], &env, &e)))
			err_py(R, item[i], path, R->ps_py[i], &e);
	}
	if (!R->ps[0] && !R->errors)
		err_at(R, ps, "%s", "KernelSpecification.ProblemSize: a number or a list of one to three");
}

/* The launch's block, grid and shared memory. */
static void put_launch(reader *R, FILE *f, const yaml_node_t *kernel)
{
	if (!get(R, kernel, "LocalSize") || (!get(R, kernel, "GlobalSize") && !R->ps[0]))
		err_at(R, kernel, "%s", "KernelSpecification needs LocalSize, and GlobalSize or ProblemSize");
	const char *gtype = str(R, kernel, "GlobalSizeType", NULL);
	int cuda_global = gtype ? !strcmp(gtype, "CUDA") : 1;
	fputs("launch:\n", f);
	put_dims(R, f, kernel, cuda_global);
	yaml_node_t *sm = get(R, kernel, "SharedMemory");
	const char *smem = str(R, kernel, "SharedMemory", NULL);
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
		yaml_node_t *k = node(R, p->key), *v = node(R, p->value);
		const char *key = (const char *)k->data.scalar.value;
		if (k->type != YAML_SCALAR_NODE || v->type != YAML_SCALAR_NODE || is_param(R, key)) {
			note(R, "BenchmarkConfig.%s is %s: not passed as a define", key,
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
		quoted(f, flag);
		free(flag);
	}
	if (unused)
		note(R, "BenchmarkConfig keys the kernel does not name are not defined: %s%s", unused, "");
	free(unused);
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
	yaml_node_t *opts = get(R, kernel, "CompilerOptions");
	for (int k = 0; nonempty_list(opts) && opts->data.sequence.items.start + k < opts->data.sequence.items.top; k++) {
		yaml_node_t *o = node(R, opts->data.sequence.items.start[k]);
		const char *flag = o->type == YAML_SCALAR_NODE ? (const char *)o->data.scalar.value : "";
		if (!*flag) { /* nvcc is given no empty argument */
			char at[32];
			snprintf(at, sizeof at, "%d", k);
			note(R, "KernelSpecification.CompilerOptions[%s] is empty: left out%s", at, "");
			continue;
		}
		char what[64];
		snprintf(what, sizeof what, "KernelSpecification.CompilerOptions[%d]", k);
		if (refuse_shell_text(R, o, what, flag))
			continue;
		fputs(", ", f);
		quoted(f, flag);
	}
	benchmark_config(R, f, get(R, root, "BenchmarkConfig"));
	fputs("]\n", f);
}

/* ReferenceArguments: an output's expected contents. From a data file (BinaryRaw) they are
 * verify.expected; a constant (Constant) or an expression of the index (Generator) is verify.expect; outputs without one are checked
 * against the first configuration's. Pass 0 checks them, 1 and 2 write each kind. */
/* A reference file the spec names but does not ship (KTT's CoulombSum3d.bin is not in its
 * repository) leaves its output checked as outputs are without one, against the first
 * configuration, rather than refusing a spec that runs: said in a note. An input file that is not
 * there is still refused, where it is read. */
static int reference_missing(reader *R, const char *target, const char *file)
{
	char *dir = dir_of(R->file), *path = *file == '/' ? xstrdup(file) : xasprintf("%s/%s", dir, file);
	int missing = access(path, R_OK) != 0;
	if (missing) {
		char *msg = xasprintf("'%s', the reference for %s, is not there (%s): %s is checked against the "
				      "first configuration instead; to check against the file, put it there and add "
				      "`expected: {%s: %s}` to verify",
				      file, target, strerror(errno), target, target, file);
		note(R, "%s%s", msg, "");
		free(msg);
	}
	free(path);
	free(dir);
	return missing;
}

static void put_references(reader *R, FILE *f, const yaml_node_t *refs)
{
	/* numpy.allclose's rtol and Kernel Tuner's atol, with which Kernel Tuner and BAT compare */
	fputs("verify:\n  rtol: 1e-5\n  atol: 1e-6   # Kernel Tuner's and BAT's tolerance\n", f);
	if (R->reference)
		fprintf(f, "  reference: %s   # the spec's Default\n", R->reference);
	if (!refs)
		return;
	if (refs->type != YAML_SEQUENCE_NODE) {
		err_at(R, refs, "%s", "KernelSpecification.ReferenceArguments must be a list");
		return;
	}
	for (int pass = 0; pass < 3; pass++) {
		int index = 0, written = 0;
		for (yaml_node_item_t *it = refs->data.sequence.items.start; it < refs->data.sequence.items.top; it++, index++) {
			yaml_node_t *r = node(R, *it);
			const char *what = pass ? NULL : "a reference argument needs a TargetName and a FillType";
			const char *target = str(R, r, "TargetName", what), *fill = target ? str(R, r, "FillType", what) : NULL;
			const char *source = str(R, r, "DataSource", NULL), *value = str(R, r, "FillValue", NULL);
			if (!target || !fill)
				continue;
			int gen = !strcmp(fill, "Generator") && source; /* an expression of the index i */
			int kind = !strcmp(fill, "BinaryRaw") && source ? 1 : (!strcmp(fill, "Constant") && value) || gen ? 2 : 0;
			if (pass == 0 && kind == 0) {
				char *msg = xasprintf("KernelSpecification.ReferenceArguments[%d].FillType: '%s'%s is not "
						      "imported (BinaryRaw and Generator with a DataSource, Constant with a FillValue are)",
						      index, fill, source || value ? "" : " without data");
				err_at(R, r, "%s", msg);
				free(msg);
			}
			if (pass == 0 || kind != pass || (pass == 1 && reference_missing(R, target, source)))
				continue;
			if (!written++)
				fprintf(f, "  %s:\n", pass == 1 ? "expected" : "expect");
			fprintf(f, "    %s: ", target);
			char where[96];
			snprintf(where, sizeof where, "KernelSpecification.ReferenceArguments[%d].DataSource", index);
			if (pass == 1)
				put_spec_file(R, f, get(R, r, "DataSource"), where, source);
			else if (gen)
				expression(R, f, get(R, r, "DataSource"), where, source);
			else
				quoted(f, value);
			fputc('\n', f);
		}
	}
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
		note(R, "read past keys outside T1 that autotune does not use: %s%s", list, "");
	free(list);
	static const char *const unused[][2] = {
		{"Budget", "give autotune --budget"}, {"Search", "give autotune --strategy"},
	};
	for (size_t i = 0; i < sizeof unused / sizeof *unused; i++)
		if (get(R, root, unused[i][0]))
			note(R, "%s is not honoured: %s", unused[i][0], unused[i][1]);
	yaml_node_t *kernel = get(R, root, "KernelSpecification");
	if (get(R, kernel, "Device"))
		note(R, "KernelSpecification.Device is not honoured: %s%s", "give autotune --device", "");
	yaml_node_t *refs = get(R, kernel, "ReferenceArguments");
	int threshold = 0;
	for (yaml_node_item_t *it = refs && refs->type == YAML_SEQUENCE_NODE ? refs->data.sequence.items.start : NULL;
	     it && it < refs->data.sequence.items.top; it++)
		threshold |= get(R, node(R, *it), "ValidationThreshold") != NULL;
	if (threshold)
		note(R, "ReferenceArguments' ValidationMethod and ValidationThreshold are not honoured: %s%s",
		     "outputs are compared with rtol 1e-5, atol 1e-6 (set verify.rtol and verify.atol)", "");
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
	yaml_node_t *space = get(R, root, "ConfigurationSpace"), *kernel = get(R, root, "KernelSpecification");
	if (!space || !kernel) {
		err_at(R, root, "%s", "a T1 spec needs ConfigurationSpace and KernelSpecification");
		return -1;
	}
	put_kernel(R, f, kernel, json_path);
	put_space(R, f, space);
	read_problem_size(R, kernel);
	put_constraints(R, f, space);
	read_default(R, space);
	yaml_node_t *args = get(R, kernel, "Arguments");
	if (args && args->type == YAML_SEQUENCE_NODE)
		arguments(R, f, args);
	else
		err_at(R, kernel, "%s", "KernelSpecification needs Arguments (a list)");
	put_launch(R, f, kernel);
	put_build(R, f, kernel, root);
	put_references(R, f, get(R, kernel, "ReferenceArguments"));
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
