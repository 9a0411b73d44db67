/* import.c: T1 (the Kernel Tuner / KTT tuning-spec JSON) to autotune YAML. JSON is read with
 * libyaml, which parses JSON's flow syntax, so there is no second parser to keep. The mapping:
 * TuningParameters -> space (and -D defines, as those tuners pass them), Conditions ->
 * constraints (Python's and/or/not spelled &&/||/!), LocalSize -> block, GlobalSize -> grid (a
 * CUDA-style global size counts blocks, an OpenCL-style one threads), Arguments in order ->
 * arguments (Vector: arrays, Scalar: values, Symbol: __constant__, WriteOnly/ReadWrite: outputs),
 * CompilerOptions -> build flags, SharedMemory -> launch shared_mem. */
#include "import.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "config.h"
#include "banned.h"

typedef struct {
	const char *file;
	const char *out; /* the config being written */
	yaml_document_t *doc;
	diags *d;
	int errors;
} reader;

static yaml_node_t *node(reader *R, int id) { return yaml_document_get_node(R->doc, id); }

static void err_at(reader *R, const yaml_node_t *n, const char *fmt, const char *what)
{
	diags_at(R->d, R->file, (int)n->start_mark.line + 1, (int)n->start_mark.column + 1, fmt, what);
	R->errors++;
}

static yaml_node_t *get(reader *R, const yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(R, p->key);
		if (k->type == YAML_SCALAR_NODE && !strcmp((const char *)k->data.scalar.value, key))
			return node(R, p->value);
	}
	return NULL;
}

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

static int word_char(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

/* Whether s[i] starts the Python word w (and, or, not) standing alone. */
static int word_at(const char *s, size_t i, size_t n, const char *w)
{
	size_t k = strlen(w);
	return (i == 0 || !word_char(s[i - 1])) && i + k <= n && !strncmp(s + i, w, k) && (i + k == n || !word_char(s[i + k]));
}

/* The length of the comparison operator at s (<, <=, >, >=, ==, !=), or 0 (shifts are not). */
static size_t comparison_at(const char *s)
{
	if ((s[0] == '<' || s[0] == '>' || s[0] == '=' || s[0] == '!') && s[1] == '=')
		return 2;
	return (s[0] == '<' || s[0] == '>') && s[1] != s[0] ? 1 : 0;
}

static void unchain(const char *s, size_t n, FILE *out);

/* s[0..n) with the inside of every parenthesised group unchained. */
static void unchain_groups(const char *s, size_t n, FILE *out)
{
	for (size_t i = 0; i < n;) {
		if (s[i] != '(') {
			fputc(s[i++], out);
			continue;
		}
		size_t j = i + 1;
		int depth = 1;
		for (; j < n && depth; j++)
			depth += s[j] == '(' ? 1 : s[j] == ')' ? -1 : 0;
		int closed = depth == 0; /* s[j - 1] is the pair of s[i] */
		fputc('(', out);
		unchain(s + i + 1, j - i - 1 - (size_t)closed, out);
		if (closed)
			fputc(')', out);
		i = j;
	}
}

/* Python's chained comparisons, written out: "a <= b < c" means "a <= b and b < c", where C would
 * compare a <= b (0 or 1) with c. Each stretch between and, or, not and commas at this depth that
 * holds two comparisons or more becomes "(a <= b and b < c)"; the rest passes through. */
static void unchain(const char *s, size_t n, FILE *out)
{
	for (size_t start = 0;;) {
		size_t end = start, ops[64], nops = 0;
		for (int depth = 0; end < n; end++) {
			depth += s[end] == '(' ? 1 : s[end] == ')' ? -1 : 0;
			if (depth)
				continue;
			if (s[end] == ',' || word_at(s, end, n, "and") || word_at(s, end, n, "or") || word_at(s, end, n, "not"))
				break;
			if ((s[end] == '<' || s[end] == '>') && s[end + 1] == s[end]) {
				end++; /* a shift */
				continue;
			}
			size_t k = comparison_at(s + end);
			if (k && nops < 64) {
				ops[nops++] = end;
				end += k - 1;
			}
		}
		if (nops < 2)
			unchain_groups(s + start, end - start, out);
		else {
			/* the k-th link runs from the operand before ops[k] to the operand after it */
			fputc('(', out);
			for (size_t k = 0; k < nops; k++) {
				size_t lo = k ? ops[k - 1] + comparison_at(s + ops[k - 1]) : start;
				size_t hi = k + 1 < nops ? ops[k + 1] : end;
				if (k)
					fputs(" and ", out);
				unchain_groups(s + lo, hi - lo, out);
			}
			fputc(')', out);
		}
		if (end >= n)
			return;
		size_t sep = s[end] == ',' ? 1 : word_at(s, end, n, "or") ? 2 : 3;
		fwrite(s + end, 1, sep, out);
		start = end + sep;
	}
}

/* Python's boolean words as C operators; everything else passes through. `not` binds looser
 * than comparisons in Python, so "not a > b" becomes "!(a > b)": the parenthesis closes at the
 * next and/or or closing parenthesis of the same depth. */
static void expression(FILE *f, const char *python)
{
	char *e = NULL;
	size_t elen = 0;
	FILE *m = open_memstream(&e, &elen);
	if (!m)
		diag_out_of_memory();
	unchain(python, strlen(python), m);
	fclose(m);
	int depth = 0, open_nots[64], nopen = 0;
	fputc('"', f);
	for (const char *p = e;;) {
		int word_start = p == e || !word_char(p[-1]);
		int is_and = word_start && !strncmp(p, "and", 3) && (p[3] == ' ' || p[3] == '(');
		int is_or = word_start && !strncmp(p, "or", 2) && (p[2] == ' ' || p[2] == '(');
		/* close the nots this operand ends */
		if (!*p || is_and || is_or || *p == ')')
			while (nopen && open_nots[nopen - 1] == depth) {
				fputc(')', f);
				nopen--;
			}
		if (!*p)
			break;
		if (is_and)
			fputs("&&", f), p += 3;
		else if (is_or)
			fputs("||", f), p += 2;
		else if (word_start && !strncmp(p, "not", 3) && (p[3] == ' ' || p[3] == '(')) {
			fputs("!(", f);
			if (nopen < 64)
				open_nots[nopen++] = depth;
			p += 3;
		} else if (!strncmp(p, "//", 2))
			fputs("/", f), p += 2; /* integer division: autotune's / on integers */
		else {
			depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
			if (*p == '"' || *p == '\\')
				fputc('\\', f);
			fputc(*p++, f);
		}
	}
	fputc('"', f);
	free(e);
}

static const char *const types[] = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
				     "float", "double", NULL};

static void arguments(reader *R, FILE *f, const yaml_node_t *args)
{
	fputs("arguments:\n", f);
	int index = 0;
	for (yaml_node_item_t *it = args->data.sequence.items.start; it < args->data.sequence.items.top; it++) {
		yaml_node_t *a = node(R, *it);
		index++;
		const char *name = str(R, a, "Name", NULL), *type = str(R, a, "Type", "an argument needs a Type");
		const char *mem = str(R, a, "MemoryType", "an argument needs a MemoryType");
		const char *fill = str(R, a, "FillType", NULL), *value = str(R, a, "FillValue", NULL);
		const char *size = str(R, a, "Size", NULL), *access = str(R, a, "AccessType", NULL);
		const char *seed = str(R, a, "RandomSeed", NULL);
		if (!type || !mem)
			continue;
		int known = 0;
		for (const char *const *t = types; *t; t++)
			known |= !strcmp(*t, type);
		if (!known) {
			err_at(R, a, "argument type '%s' is not supported (supported: int8..uint64, float, double)", type);
			continue;
		}
		char generated[32];
		snprintf(generated, sizeof generated, "arg%d", index);
		fprintf(f, "  - {name: %s, type: %s", name ? name : generated, type);
		if (!strcmp(mem, "Scalar")) {
			fprintf(f, ", value: %s}\n", value ? value : "0");
			continue;
		}
		if (strcmp(mem, "Vector") && strcmp(mem, "Symbol")) {
			err_at(R, a, "MemoryType '%s' is not supported (Scalar, Vector, Symbol)", mem);
			fputs("}\n", f);
			continue;
		}
		fputs(", count: ", f);
		if (size)
			expression(f, size);
		else {
			err_at(R, a, "%s", "a Vector argument needs a Size");
			fputs("1", f);
		}
		int out = access && (!strcmp(access, "WriteOnly") || !strcmp(access, "ReadWrite"));
		if (out)
			fputs(", output: true", f);
		if (access && !strcmp(access, "ReadWrite"))
			fputs(", restore: true", f); /* read and written: each launch starts from the same input */
		if (fill && !strcmp(fill, "Constant"))
			fprintf(f, ", fill: constant, value: %s", value ? value : "0");
		else if (fill && !strcmp(fill, "Random"))
			fprintf(f, ", fill: random%s%s", seed ? ", seed: " : "", seed ? seed : "");
		else if (fill)
			err_at(R, a, "FillType '%s' is not supported (Constant, Random)", fill);
		else if (!out)
			fputs(", fill: random", f);
		if (!strcmp(mem, "Symbol"))
			fputs(", constant: true", f);
		fputs("}\n", f);
	}
}

static void dims(reader *R, FILE *f, const char *key, const yaml_node_t *global, const yaml_node_t *local, int cuda_global)
{
	static const char *const xyz[] = {"X", "Y", "Z"};
	fprintf(f, "  %s: [", key);
	for (int i = 0; i < 3; i++) {
		const char *g = str(R, global, xyz[i], NULL), *l = str(R, local, xyz[i], NULL);
		const char *e = !strcmp(key, "block") ? l : g;
		if (i)
			fputs(", ", f);
		if (!e) {
			fputs("1", f);
			continue;
		}
		if (!strcmp(key, "grid") && !cuda_global && l) {
			/* an OpenCL-style global size counts threads: blocks are its ceiling over the local size */
			char *both = xasprintf("ceil_div(%s, %s)", g, l);
			expression(f, both);
			free(both);
		} else
			expression(f, e);
	}
	fputs("]\n", f);
}

/* The config's name (from the spec's file name) and its kernel: file and entry. */
static void put_kernel(reader *R, FILE *f, const yaml_node_t *kernel, const char *json_path)
{
	const char *lang = str(R, kernel, "Language", "KernelSpecification needs a Language");
	if (lang && strcmp(lang, "CUDA"))
		err_at(R, kernel, "Language '%s': autotune tunes CUDA kernels", lang);
	const char *base = strrchr(json_path, '/');
	base = base ? base + 1 : json_path;
	fprintf(f, "# Imported from the T1 spec %s by autotune import.\nname: ", base);
	/* the name prefixes the header's macros: a file named 2d-conv.json still needs an identifier */
	if (!((*base >= 'a' && *base <= 'z') || (*base >= 'A' && *base <= 'Z') || *base == '_'))
		fputs("t1_", f);
	for (const char *p = base; *p && *p != '.'; p++)
		fputc((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ? *p : '_', f);
	fputs("\nkernel:\n  source: ", f);
	const char *file = str(R, kernel, "KernelFile", "KernelSpecification needs a KernelFile");
	/* KernelFile is the spec's, relative to it; the config finds its source relative to itself:
	 * written elsewhere, it names the file by its absolute path */
	char *spec_dir = dir_of(json_path), *out_dir = dir_of(R->out), *path = NULL;
	if (file && *file != '/' && *spec_dir == '/' && strcmp(spec_dir, out_dir))
		path = xasprintf("%s/%s", spec_dir, file);
	quoted(f, path ? path : file ? file : "");
	free(path);
	free(spec_dir);
	free(out_dir);
	fputs("\n  entry: ", f);
	const char *entry = str(R, kernel, "KernelName", "KernelSpecification needs a KernelName");
	quoted(f, entry ? entry : "");
	fputs("\n", f);
}

/* TuningParameters as the space; the names, which become defines, in *names (the caller frees
 * the array, not the strings: they are the document's). */
static size_t put_space(reader *R, FILE *f, const yaml_node_t *space, char ***names)
{
	yaml_node_t *params = get(R, space, "TuningParameters");
	fputs("space:\n", f);
	size_t nnames = 0, cap = 0;
	if (!params || params->type != YAML_SEQUENCE_NODE) {
		err_at(R, space, "%s", "ConfigurationSpace needs TuningParameters (a list)");
		return 0;
	}
	for (yaml_node_item_t *it = params->data.sequence.items.start; it < params->data.sequence.items.top; it++) {
		yaml_node_t *p = node(R, *it);
		const char *name = str(R, p, "Name", "a tuning parameter needs a Name");
		const char *type = str(R, p, "Type", "a tuning parameter needs a Type");
		const char *values = str(R, p, "Values", "a tuning parameter needs Values");
		if (!name || !type || !values)
			continue;
		if (strcmp(type, "int") && strcmp(type, "uint") && strcmp(type, "float"))
			err_at(R, p, "parameter type '%s' is not supported (int, uint, float)", type);
		/* Values is a list literal, "[1, 2, 4]": YAML reads it as a flow list too */
		fprintf(f, "  %s: %s\n", name, values);
		grow(names, &cap, nnames + 1, sizeof **names);
		(*names)[nnames++] = (char *)name;
	}
	return nnames;
}

static int nonempty_list(const yaml_node_t *n)
{
	return n && n->type == YAML_SEQUENCE_NODE && n->data.sequence.items.top > n->data.sequence.items.start;
}

/* Conditions as constraints, when there are any. */
static void put_constraints(reader *R, FILE *f, const yaml_node_t *space)
{
	yaml_node_t *conds = get(R, space, "Conditions");
	if (!nonempty_list(conds))
		return;
	fputs("constraints:\n", f);
	for (yaml_node_item_t *it = conds->data.sequence.items.start; it < conds->data.sequence.items.top; it++) {
		const char *e = str(R, node(R, *it), "Expression", "a condition needs an Expression");
		if (e) {
			fputs("  - ", f);
			expression(f, e);
			fputc('\n', f);
		}
	}
}

/* LocalSize as the block, GlobalSize as the grid, SharedMemory as the launch's shared memory. */
static void put_launch(reader *R, FILE *f, const yaml_node_t *kernel)
{
	yaml_node_t *global = get(R, kernel, "GlobalSize"), *local = get(R, kernel, "LocalSize");
	if (!global || !local)
		err_at(R, kernel, "%s", "KernelSpecification needs GlobalSize and LocalSize");
	const char *gtype = str(R, kernel, "GlobalSizeType", NULL);
	int cuda_global = gtype ? !strcmp(gtype, "CUDA") : 1;
	fputs("launch:\n", f);
	dims(R, f, "block", global, local, cuda_global);
	dims(R, f, "grid", global, local, cuda_global);
	const char *smem = str(R, kernel, "SharedMemory", NULL);
	if (smem)
		fprintf(f, "  shared_mem: %s\n", smem);
}

/* Every parameter as a define, CompilerOptions as nvcc flags. */
static void put_build(reader *R, FILE *f, const yaml_node_t *kernel, char *const *names, size_t nnames)
{
	fputs("build:\n  defines: [", f);
	for (size_t i = 0; i < nnames; i++)
		fprintf(f, "%s%s", i ? ", " : "", names[i]);
	fputs("]   # T1 tuners pass every parameter to the kernel as a define\n", f);
	yaml_node_t *opts = get(R, kernel, "CompilerOptions");
	if (!nonempty_list(opts))
		return;
	fputs("  flags: [", f);
	for (yaml_node_item_t *it = opts->data.sequence.items.start; it < opts->data.sequence.items.top; it++) {
		yaml_node_t *o = node(R, *it);
		if (it != opts->data.sequence.items.start)
			fputs(", ", f);
		quoted(f, o->type == YAML_SCALAR_NODE ? (const char *)o->data.scalar.value : "");
	}
	fputs("]\n", f);
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
	yaml_node_t *space = get(R, root, "ConfigurationSpace"), *kernel = get(R, root, "KernelSpecification");
	if (!space || !kernel) {
		err_at(R, root, "%s", "a T1 spec needs ConfigurationSpace and KernelSpecification");
		return -1;
	}
	put_kernel(R, f, kernel, json_path);
	char **names = NULL;
	size_t nnames = put_space(R, f, space, &names);
	put_constraints(R, f, space);
	yaml_node_t *args = get(R, kernel, "Arguments");
	if (args && args->type == YAML_SEQUENCE_NODE)
		arguments(R, f, args);
	else
		err_at(R, kernel, "%s", "KernelSpecification needs Arguments (a list)");
	put_launch(R, f, kernel);
	put_build(R, f, kernel, names, nnames);
	free(names);
	if (get(R, kernel, "ReferenceArguments"))
		fputs("# ReferenceArguments are not imported: outputs are checked against the first configuration.\n", f);
	return R->errors ? -1 : 0;
}

/* Strings of the spec are copied as they are (a value list, an expression), so only the loader
 * can tell whether they mean something: the written config is loaded before anyone tunes it, and
 * kept when it does not load, since the loader's messages point into it. */
static int check_written(const char *json_path, const char *yaml_path, diags *d)
{
	config cfg;
	diags ld = {0};
	int rc = config_load(yaml_path, &cfg, &ld);
	if (rc == 0)
		config_free(&cfg);
	else {
		diags_add(d, "%s: imported from %s, but it does not load: fix the spec and import again, or fix this "
			  "file", yaml_path, json_path);
		for (size_t i = 0; i < ld.n; i++)
			diags_add(d, "%s", ld.msgs[i]);
	}
	diags_free(&ld);
	return rc ? -1 : 0;
}

int import_t1(const char *json_path, const char *yaml_path, diags *d)
{
	yaml_document_t doc;
	int rc = -1;
	if (config_read_document(json_path, "JSON", &doc, d) == 0) {
		char *text = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&text, &len);
		reader R = {json_path, yaml_path, &doc, d, 0};
		rc = convert(&R, out, json_path);
		fclose(out);
		if (rc == 0 && same_file(yaml_path, json_path)) {
			diags_add(d, "cannot write the config to '%s': it is the spec being imported; give another with -o",
				  yaml_path);
			rc = -1;
		} else if (rc == 0 && write_output(yaml_path, text, len, d))
			rc = -1;
		else if (rc == 0)
			rc = check_written(json_path, yaml_path, d);
		free(text);
		yaml_document_delete(&doc);
	}
	return rc;
}
