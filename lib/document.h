/* document.h: YAML and JSON documents (configs, T1 specs, T4 and Kernel Tuner files) read whole
 * through libyaml, every syntax error said as "path:line:col: SYNTAX syntax error: ...", and the
 * key checks every reader of one wants. */
#ifndef AUTOTUNE_DOCUMENT_H
#define AUTOTUNE_DOCUMENT_H

#include <stddef.h>
#include <yaml.h>

#include "diag.h"

/* Reads a YAML (or JSON, a subset: syntax "JSON") file into doc (the caller deletes it): 0, or -1
 * with the problem in d as "path:line:col: SYNTAX syntax error: ...". */
int document_read(const char *path, const char *syntax, yaml_document_t *doc, diags *d);
/* The same of text (len bytes) that stands for the file at path: messages name path. */
int document_read_text(const char *path, const char *text, size_t len, const char *syntax, yaml_document_t *doc,
		       diags *d);
/* The value of key in mapping node map of doc, or NULL (none, or map is not a mapping). */
yaml_node_t *document_get(yaml_document_t *doc, const yaml_node_t *map, const char *key);
/* Whether s is a number as JSON spells it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? (YAML,
 * which reads JSON files here, takes more: +1, 1., .5, 0x10). */
int document_json_number(const char *s);
/* The keys of mapping n (in file) that are not in allowed (NULL-ended; NULL: any), each said at
 * its file:line:col with the nearest allowed one, and duplicates: the number of errors (a node
 * that is not a mapping is one). `what` names n in the messages. */
int document_check_keys(yaml_document_t *doc, const char *file, const yaml_node_t *n, const char *what,
			const char *const *allowed, diags *d);
/* A node's kind in words: "a scalar", "a list", "a mapping". */
const char *document_kind(const yaml_node_t *n);

#endif
