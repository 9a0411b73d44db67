/* import_reader.c: the T1 import's reading and writing helpers (import_reader.h): nodes and
 * their values, errors and notes at the spec's file:line:col, quoted YAML scalars, Python
 * expressions translated exactly, and the files a spec names, rebased to where the config is
 * written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "document.h"
#include "import_py.h"
#include "import_reader.h"
#include "proc.h"
#include "banned.h"

yaml_node_t *ir_node(reader *R, int id) { return yaml_document_get_node(R->doc, id); }

void ir_err_at(reader *R, const yaml_node_t *n, const char *fmt, const char *what)
{
	diags_at(R->d, R->file, (int)n->start_mark.line + 1, (int)n->start_mark.column + 1, fmt, what);
	R->errors++;
}

/* An expression the translator refused: the field, the expression and why, at the field. */
void ir_err_py(reader *R, const yaml_node_t *n, const char *path, const char *python, const py_error *e)
{
	/* a long one quoted around the place only */
	int len = (int)strlen(python), from = len > 160 && e->at > 40 ? e->at - 40 : 0;
	int shown = len - from > 160 ? 120 : len - from;
	diags_at(R->d, R->file, (int)n->start_mark.line + 1, (int)n->start_mark.column + 1,
		 "%s: \"%s%.*s%s\": %s (at character %d); not imported: autotune writes only exact translations", path,
		 from ? "..." : "", shown, python + from, from + shown < len ? "..." : "", e->msg, e->at + 1);
	R->errors++;
}

yaml_node_t *ir_get(reader *R, const yaml_node_t *map, const char *key) { return document_get(R->doc, map, key); }

const char *ir_str(reader *R, const yaml_node_t *map, const char *key, const char *what)
{
	yaml_node_t *v = ir_get(R, map, key);
	if (!v || v->type != YAML_SCALAR_NODE) {
		if (what)
			ir_err_at(R, map, "%s", what);
		return NULL;
	}
	return (const char *)v->data.scalar.value;
}

/* A double-quoted YAML scalar. */
void ir_quoted(FILE *f, const char *s)
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
py_env ir_py_env(reader *R, int with_problem_size)
{
	return (py_env){param_values, with_problem_size ? problem_size : NULL, R};
}

void ir_expression(reader *R, FILE *f, const yaml_node_t *n, const char *path, const char *python)
{
	py_env env = ir_py_env(R, 1);
	py_error e;
	char *text = py_translate(python, &env, &e);
	if (!text) {
		ir_err_py(R, n, path, python, &e);
		fputs("0", f);
		return;
	}
	ir_quoted(f, text);
	free(text);
}

/* Spec text bound for nvcc's argv (CompilerOptions, the kernel's path) that nvcc's own /bin/sh
 * steps would interpret (proc_shell_special): refused at its field, never written into a config.
 * 1 when refused. */
int ir_refuse_shell(reader *R, const yaml_node_t *n, const char *what, const char *text)
{
	char *why = proc_shell_refusal(what, text, "not imported (nothing a spec says may run on this machine)");
	if (!why)
		return 0;
	ir_err_at(R, n, "%s", why);
	free(why);
	return 1;
}

/* A file the spec names relative to itself (KernelFile, DataSource), at node n of field `what`,
 * quoted, as the config finds it: relative to the config, so written elsewhere, by its absolute
 * path. It is an input: the config must not be written over it. */
void ir_put_spec_file(reader *R, FILE *f, const yaml_node_t *n, const char *what, const char *file)
{
	char *spec_dir = dir_of(R->file), *out_dir = dir_of(R->out), *path = NULL;
	if (file && *file != '/' && *spec_dir == '/' && strcmp(spec_dir, out_dir))
		path = xasprintf("%s/%s", spec_dir, file);
	char *input = file && *file != '/' ? xasprintf("%s/%s", spec_dir, file) : xstrdup(file ? file : "");
	if (file && !strcmp(what, "KernelSpecification.KernelFile"))
		ir_refuse_shell(R, n, what, file);
	if (*input && same_file(R->out, input)) {
		char *msg = xasprintf("%s '%s' is the file the config would be written to: give the config another "
				      "name (-o)", what, file);
		ir_err_at(R, n, "%s", msg);
		free(msg);
	}
	free(input);
	ir_quoted(f, path ? path : file ? file : "");
	free(path);
	free(spec_dir);
	free(out_dir);
}

void ir_note(reader *R, const char *fmt, const char *a, const char *b)
{
	char *msg = xasprintf(fmt, a, b);
	diags_add(R->notes, "%s: note: %s", R->file, msg);
	free(msg);
}
