/* import_reader.h: the T1 import's state while it reads a spec and writes a config, the helpers
 * both halves of the import use (import_reader.c), and what import_args.c writes for import.c:
 * import.c writes the space, the kernel and its launch, the build, the notes of keys read past;
 * import_args.c the arguments, their fills and the reference data. Not for other stages: import.h
 * is the import's interface. */
#ifndef AUTOTUNE_IMPORT_READER_H
#define AUTOTUNE_IMPORT_READER_H

#include <stddef.h>
#include <stdio.h>
#include <yaml.h>

#include "diag.h"
#include "expr.h"
#include "import_keys.h"
#include "import_py.h"

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

yaml_node_t *ir_node(reader *R, int id);
/* map's value of key, or NULL. */
yaml_node_t *ir_get(reader *R, const yaml_node_t *map, const char *key);
/* map's scalar value of key; NULL when absent or not a scalar, which is an error at map saying
 * `what` when what is given. */
const char *ir_str(reader *R, const yaml_node_t *map, const char *key, const char *what);
/* An error at node n: fmt (one %s) with what. */
void ir_err_at(reader *R, const yaml_node_t *n, const char *fmt, const char *what);
/* An expression the translator refused: the field, the expression and why, at node n. */
void ir_err_py(reader *R, const yaml_node_t *n, const char *path, const char *python, const py_error *e);
/* What a spec's expressions may name beyond the parameters: the values of each (max(P), min(P)),
 * and with_problem_size the spec's ProblemSize. */
py_env ir_py_env(reader *R, int with_problem_size);
/* A note, said once with the import's other notes: fmt with two %s, a and b. */
void ir_note(reader *R, const char *fmt, const char *a, const char *b);
/* s as a double-quoted YAML scalar. */
void ir_quoted(FILE *f, const char *s);
/* The Python expression of field `path` (at node n) translated, quoted; an error when it has no
 * exact translation. */
void ir_expression(reader *R, FILE *f, const yaml_node_t *n, const char *path, const char *python);
/* A file the spec names relative to itself, quoted as the config finds it (an error when it is
 * the config being written, or, for the kernel, text that nvcc's shell steps would interpret). */
void ir_put_spec_file(reader *R, FILE *f, const yaml_node_t *n, const char *what, const char *file);

/* Spec text bound for nvcc's argv (CompilerOptions, the kernel's path) that nvcc's own /bin/sh
 * steps would interpret: an error at n, never written into a config; 1 when refused. */
int ir_refuse_shell(reader *R, const yaml_node_t *n, const char *what, const char *text);

/* ---- import_args.c ---- */
/* Arguments, in order, as the config's arguments section. */
void ir_put_arguments(reader *R, FILE *f, const yaml_node_t *args);
/* ReferenceArguments (and Default, R->reference) as the config's verify section. */
void ir_put_references(reader *R, FILE *f, const yaml_node_t *refs);
/* KTT's ValidationMethod and ValidationThreshold as a tolerance into *t ("atol: 0.01, rtol: 0");
 * 1 when the spec gives one, 0 when not, -1 for a method autotune does not take. */
int ir_ktt_tolerance(reader *R, const yaml_node_t *refs, const char **t);

#endif
