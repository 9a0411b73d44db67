/* import_keys.c: what a T1 spec's keys are, and what is no T1 spec of a CUDA kernel at all (not
 * JSON, another format, another language), and what the kernel names. */
#include "import_keys.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "document.h"
#include "banned.h"

static void keys_err(import_keys *R, const yaml_node_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void keys_err(import_keys *R, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char msg[512];
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	diags_at(R->d, R->file, (int)n->start_mark.line + 1, (int)n->start_mark.column + 1, "%s", msg);
}

static const char *scalar(import_keys *R, const yaml_node_t *map, const char *key)
{
	yaml_node_t *v = document_get(R->doc, map, key);
	return v && v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : NULL;
}

/* ---- the keys a T1 spec may have: the schema's (Kernel Tuner's T1 1.0.0), which allows others
 * beside them, and those of the tuners' own that the mapping above uses (ProblemSize, GridDivX..Z,
 * MemType, Output, Default, BenchmarkConfig). Keys outside both are read past with one note; a
 * key that differs from a known one only by case or one letter is an error, since reading past it
 * would drop what it says. ---- */
static const char *const k_root[] = {"General", "ConfigurationSpace", "KernelSpecification", "Search", "Budget",
				     "BenchmarkConfig", NULL};
static const char *const k_general[] = {"FormatVersion", "BenchmarkName", "LoggingLevel", "TimeUnit",
					"OutputFile",    "OutputFormat",  NULL};
static const char *const k_space[] = {"TuningParameters", "Conditions", NULL};
static const char *const k_param[] = {"Name", "Type", "Values", "Default", NULL};
static const char *const k_condition[] = {"Parameters", "Expression", NULL};
static const char *const k_search[] = {"Name", "Attributes", NULL};
static const char *const k_attribute[] = {"Name", "Value", NULL};
static const char *const k_budget[] = {"Type", "BudgetValue", NULL};
static const char *const k_kernel[] = {"Language",   "KernelName", "KernelFile",     "ProblemSize",     "GridDivX",
				       "GridDivY",   "GridDivZ",   "GlobalSizeType", "GlobalSize",      "LocalSize",
				       "SharedMemory", "CompilerOptions", "Arguments", "ReferenceArguments", "Device",
				       "Profiling",  "SimulationInput", "BenchmarkName", NULL};
static const char *const k_device[] = {"PlatformId", "DeviceId", "Id", "Name", NULL};
static const char *const k_xyz[] = {"X", "Y", "Z", NULL};
static const char *const k_argument[] = {"Name",      "Type",       "MemoryType", "MemType",    "Size", "TypeSize",
					 "AccessType", "FillType", "FillValue",  "DataSource", "RandomSeed", "Output", NULL};
static const char *const k_reference[] = {"Name",      "TargetName", "FillType",         "FillValue",
					  "DataSource", "RandomSeed", "ValidationMethod", "ValidationThreshold", NULL};

/* Which value of which object is an object (or a list of them, `list`) with which keys. */
static const struct {
	const char *const *in;
	const char *key;
	const char *const *keys;
	int list;
} nested[] = {
	{k_root, "General", k_general, 0},
	{k_root, "ConfigurationSpace", k_space, 0},
	{k_root, "KernelSpecification", k_kernel, 0},
	{k_root, "Search", k_search, 0},
	{k_root, "Budget", k_budget, 1},
	{k_space, "TuningParameters", k_param, 1},
	{k_space, "Conditions", k_condition, 1},
	{k_search, "Attributes", k_attribute, 1},
	{k_kernel, "Device", k_device, 0},
	{k_kernel, "GlobalSize", k_xyz, 0},
	{k_kernel, "LocalSize", k_xyz, 0},
	{k_kernel, "Arguments", k_argument, 1},
	{k_kernel, "ReferenceArguments", k_reference, 1},
};

/* Other names for a known key that published specs use: read past, they would drop what the
 * known key says, so they are errors unless empty. */
static const char *const aliases[][2] = {{"Constraints", "Conditions"}, {"Restrictions", "Conditions"}};

/* Whether a and b differ by at most one letter inserted, dropped or changed, ignoring case. */
static int one_edit(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la < lb)
		return one_edit(b, a);
	if (la - lb > 1)
		return 0;
	size_t i = 0;
	while (i < lb && tolower((unsigned char)a[i]) == tolower((unsigned char)b[i]))
		i++;
	const char *ra = a + i + 1, *rb = b + i + (la == lb);
	return i == lb || !strcasecmp(ra, rb);
}

/* The known key that `key` misspells, if it does (NULL: it is a key of its own). */
static const char *misspelt(const char *key, const yaml_node_t *v, const char *const *keys)
{
	for (const char *const *k = keys; *k; k++)
		if (!strcasecmp(*k, key) || (strlen(*k) >= 5 && one_edit(*k, key)))
			return *k;
	int empty = v->type == YAML_SEQUENCE_NODE && v->data.sequence.items.top == v->data.sequence.items.start;
	for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
		if (!strcasecmp(aliases[i][0], key) && !empty)
			for (const char *const *k = keys; *k; k++)
				if (!strcmp(*k, aliases[i][1]))
					return *k;
	return NULL;
}

/* A key path once, with list indexes as [] ("ConfigurationSpace.TuningParameters[].Default"). */
static void note_key(import_keys *R, const char *path, const char *key)
{
	char *p = xasprintf("%s%s%s", path, *path ? "." : "", key);
	for (size_t i = 0; i < R->nread_past; i++)
		if (!strcmp(R->read_past[i], p)) {
			free(p);
			return;
		}
	grow(&R->read_past, &R->read_past_cap, R->nread_past + 1, sizeof *R->read_past);
	R->read_past[R->nread_past++] = p;
}

/* The keys of object n (`what` in messages, `path` in the note, `keys` its table) and of the
 * objects inside it: the number of errors. Values of the wrong kind are left to the mapping, which
 * says what it needs. */
static int check_keys(import_keys *R, const yaml_node_t *n, const char *what, const char *path, const char *const *keys)
{
	if (!n || n->type != YAML_MAPPING_NODE)
		return 0;
	int errors = document_check_keys(R->doc, R->file, n, what, NULL, R->d); /* duplicates */
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(R->doc, p->key);
		if (k->type != YAML_SCALAR_NODE)
			continue;
		const char *key = (const char *)k->data.scalar.value, *near;
		int known = 0;
		for (const char *const *a = keys; *a && !known; a++)
			known = !strcmp(*a, key);
		if (known)
			continue;
		if ((near = misspelt(key, yaml_document_get_node(R->doc, p->value), keys))) {
			diags_at(R->d, R->file, (int)k->start_mark.line + 1, (int)k->start_mark.column + 1,
				 "unknown key '%s' in %s; did you mean '%s'? (read past, it would drop what it says)", key,
				 what, near);
			errors++;
		} else
			note_key(R, path, key);
	}
	for (size_t i = 0; i < sizeof nested / sizeof *nested; i++) {
		yaml_node_t *v = nested[i].in == keys ? document_get(R->doc, n, nested[i].key) : NULL;
		char sub[128], subpath[128];
		const char *dot = keys == k_root ? "" : ".";
		snprintf(subpath, sizeof subpath, "%s%s%s%s", path, dot, nested[i].key, nested[i].list ? "[]" : "");
		if (v && !nested[i].list) {
			snprintf(sub, sizeof sub, "%s%s%s", keys == k_root ? "" : what, dot, nested[i].key);
			errors += check_keys(R, v, sub, subpath, nested[i].keys);
		}
		for (int k = 0; v && nested[i].list && v->type == YAML_SEQUENCE_NODE &&
				v->data.sequence.items.start + k < v->data.sequence.items.top;
		     k++) {
			snprintf(sub, sizeof sub, "%s%s%s[%d]", keys == k_root ? "" : what, dot, nested[i].key, k);
			errors += check_keys(R, yaml_document_get_node(R->doc, v->data.sequence.items.start[k]), sub, subpath, nested[i].keys);
		}
	}
	return errors;
}

/* What is not a T1 spec of a CUDA kernel is refused in one line, before anything else: a BAT
 * spec of the older format, another format, an OpenCL, Vulkan or HIP kernel. -1 when refused. */
int import_refuse(import_keys *R, const yaml_node_t *root)
{
	yaml_node_t *space = document_get(R->doc, root, "ConfigurationSpace"), *kernel = document_get(R->doc, root, "KernelSpecification");
	if (!kernel && document_get(R->doc, root, "benchmarkConfig") && document_get(R->doc, root, "kernelSpecification")) {
		keys_err(R, root, "%s", "not a T1 spec: BAT's older format (kernelSpecification, benchmarkConfig); T1 has "
		       "KernelSpecification, ConfigurationSpace and BenchmarkConfig");
		return -1;
	}
	if (!kernel && !space) {
		keys_err(R, root, "%s", "not a T1 spec: it has neither ConfigurationSpace nor KernelSpecification");
		return -1;
	}
	const char *lang = scalar(R, kernel, "Language"), *file = scalar(R, kernel, "KernelFile");
	size_t n = file ? strlen(file) : 0;
	if (lang && strcmp(lang, "CUDA")) {
		keys_err(R, document_get(R->doc, kernel, "Language"), "KernelSpecification.Language '%s': autotune tunes CUDA kernels", lang);
		return -1;
	}
	if (n > 4 && !strcasecmp(file + n - 4, ".hip")) {
		keys_err(R, document_get(R->doc, kernel, "KernelFile"), "KernelSpecification.KernelFile '%s' is a HIP kernel: autotune tunes "
		       "CUDA kernels", file);
		return -1;
	}
	return 0;
}


int import_check_keys(import_keys *R, const yaml_node_t *root)
{
	return check_keys(R, root, "the T1 spec", "", k_root);
}

void import_keys_free(import_keys *R)
{
	for (size_t i = 0; i < R->nread_past; i++)
		free(R->read_past[i]);
	free(R->read_past);
	R->read_past = NULL;
	R->nread_past = R->read_past_cap = 0;
}

/* ---- JSON, not the YAML that libyaml also reads into the same document ---- */

typedef struct {
	FILE *f;
	int c, line, col; /* the character read last, where it is */
} json_scan;

static int scan_next(json_scan *S)
{
	if (S->c == '\n') {
		S->line++;
		S->col = 0;
	}
	S->c = getc(S->f);
	if ((S->c & 0xC0) != 0x80) /* a UTF-8 continuation byte is no column of its own */
		S->col++;
	return S->c;
}

static int is_json_delimiter(int c)
{
	return c == EOF || c == '"' || strchr("{}[]:, \t\r\n", c) != NULL;
}

/* A YAML flow document that JSON forbids (a comma before ']' or '}', a bare word other than
 * true, false, null or a number: Python's True, a 'single-quoted' string, a # comment) would
 * import as something else than the spec means; the first is said at its line and column. */
int import_check_json(const char *path, diags *d)
{
	json_scan S = {open_input(path, d), '\0', 1, 0};
	if (!S.f)
		return -1;
	int comma_line = 0, comma_col = 0, rc = 0;
	scan_next(&S);
	while (S.c != EOF && !rc) {
		if (S.c == '"') {
			while (scan_next(&S) != EOF && S.c != '"')
				if (S.c == '\\')
					scan_next(&S);
			comma_line = 0;
			scan_next(&S);
		} else if ((S.c == ']' || S.c == '}') && comma_line) {
			diags_at(d, path, comma_line, comma_col, "JSON syntax error: a comma before '%c': JSON has none after "
				 "the last item", S.c);
			rc = -1;
		} else if (is_json_delimiter(S.c)) {
			if (S.c == ',')
				comma_line = S.line, comma_col = S.col;
			else if (!strchr(" \t\r\n", S.c))
				comma_line = 0;
			scan_next(&S);
		} else {
			char word[40];
			size_t n = 0;
			int line = S.line, col = S.col;
			for (; !is_json_delimiter(S.c); scan_next(&S))
				if (n < sizeof word - 1)
					word[n++] = (char)S.c;
			word[n] = 0;
			if (strcmp(word, "true") && strcmp(word, "false") && strcmp(word, "null") && !document_json_number(word)) {
				diags_at(d, path, line, col, "JSON syntax error: '%s' is not JSON (a \"string\", a number, true, "
					 "false or null)", word);
				rc = -1;
			}
			comma_line = 0;
		}
	}
	fclose(S.f);
	return rc;
}

/* The kernel's source, relative to the spec (its first MiB; NULL when it cannot be read). */
char *import_kernel_text(const char *spec, const char *file)
{
	if (!file)
		return NULL;
	char *dir = dir_of(spec), *path = *file == '/' ? xstrdup(file) : xasprintf("%s/%s", dir, file);
	FILE *in = fopen(path, "rb");
	free(dir);
	free(path);
	if (!in)
		return NULL;
	size_t cap = 1 << 20;
	char *text = xmalloc(cap + 1);
	size_t n = fread(text, 1, cap, in);
	fclose(in);
	text[n] = 0;
	return text;
}

/* Whether text has word as a whole identifier. */
int import_names_word(const char *text, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = text ? strstr(text, word) : NULL; p; p = strstr(p + 1, word)) {
		int before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
		int after = isalnum((unsigned char)p[n]) || p[n] == '_';
		if (!before && !after)
			return 1;
	}
	return 0;
}

/* T1 element types autotune has (bool is one byte, as C++'s); the others are refused by name. */
static const char *const types[][2] = {
	{"int8", "int8"},     {"uint8", "uint8"},   {"int16", "int16"},   {"uint16", "uint16"}, {"int32", "int32"},
	{"uint32", "uint32"}, {"int64", "int64"},   {"uint64", "uint64"}, {"float", "float"},   {"double", "double"},
	{"bool", "uint8"},    {"int2", "int2"},     {"int3", "int3"},     {"int4", "int4"},     {"uint2", "uint2"},
	{"uint3", "uint3"},   {"uint4", "uint4"},   {"float2", "float2"}, {"float3", "float3"}, {"float4", "float4"},
	{"double2", "double2"}, {"double3", "double3"}, {"double4", "double4"}, {"half", "half"},
	{"float16", "half"},    {"bfloat16", "bfloat16"}, {"half2", "half2"}, {"bfloat162", "bfloat162"},
};

const char *import_type(const char *t1)
{
	for (size_t k = 0; k < sizeof types / sizeof *types; k++)
		if (!strcmp(types[k][0], t1))
			return types[k][1];
	return NULL;
}
