/* import_keys.h: the keys of a T1 spec, for import.c. */
#ifndef AUTOTUNE_IMPORT_KEYS_H
#define AUTOTUNE_IMPORT_KEYS_H

#include <yaml.h>

#include "diag.h"

typedef struct {
	yaml_document_t *doc;
	const char *file;
	diags *d;
	char **read_past; /* key paths outside T1 and the mapping ("A.B[].C"), each once */
	size_t nread_past, read_past_cap;
} import_keys;

/* What is not a T1 spec of a CUDA kernel (BAT's older format, another format, an OpenCL or HIP
 * kernel): -1 with one line in d. */
int import_refuse(import_keys *K, const yaml_node_t *root);
/* Every object's keys, at any depth: the known ones pass, others are kept in read_past, and a
 * misspelling of a known key (by case or a letter, or an alias with content) is an error. The
 * number of errors. */
int import_check_keys(import_keys *K, const yaml_node_t *root);
void import_keys_free(import_keys *K);
/* A YAML flow document that JSON forbids (a trailing comma, Python's True, a comment): -1 with
 * the first said at its line and column. */
int import_check_json(const char *path, diags *d);
/* The kernel file, relative to the spec: its first MiB as a string (caller frees), NULL when it
 * cannot be read. */
char *import_kernel_text(const char *spec, const char *file);
/* Whether text (NULL: none) has word as a whole identifier. */
int import_names_word(const char *text, const char *word);

/* A T1 element type as autotune's (bool is one byte, as C++'s), or NULL for one it does not have. */
const char *import_type(const char *t1);

#endif
