/* config_load.h: what the parts of the config loader share (config.c, config_yaml.c,
 * config_expr.c, config_keys.c, config_source.c, config_data.c, config_plan.c,
 * config_use.c); nothing outside them includes it. */
#ifndef AUTOTUNE_CONFIG_LOAD_H
#define AUTOTUNE_CONFIG_LOAD_H

#include <yaml.h>

#include "config.h"

/* a CUDA source is kilobytes; past this it is something else (/dev/zero, a disk image) */
#define MAX_SOURCE_BYTES (64ul << 20)

/* The loader's state: the document, where errors go, and whether any happened. */
typedef struct {
	const char *file;
	yaml_document_t *doc;
	diags *d;
	int errors;
	config *cfg;
	int source_ok; /* the kernel source is a file that can be read without waiting */
	int has_plan;  /* the config has a plan: its launches name the entries and may give the geometry */
	char **failed; /* constants whose definitions failed, said once: their uses are not errors again */
	size_t nfailed;
	int quiet;     /* warnings unsaid: a later stage loading a config the run already loaded */
	long instance; /* the instance whose constants to load, -1: as written */
} loader;

/* ---- config_yaml.c: nodes, typed getters and key checks; each error is counted in L->errors
 * and reported at its file:line:col ---- */
mark ld_mark(const yaml_node_t *n);
void ld_error(loader *L, mark m, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Text bound for nvcc's argv (a path, a flag) that nvcc's own /bin/sh steps would interpret
 * (proc_shell_special): an error at m, what it is and the fix, so that nothing a config says runs
 * on the host; -1. 0 when it may go. */
int ld_refuse_shell(loader *L, mark m, const char *what, const char *s, const char *fix);
yaml_node_t *ld_node(loader *L, int id);
const char *ld_kind_name(const yaml_node_t *n);
const char *ld_scalar(const yaml_node_t *n);
/* -1 (reported) unless n is of type t */
int ld_expect(loader *L, const yaml_node_t *n, yaml_node_type_t t, const char *what);
/* A value the parameter p lists twice (its values came from the items at[i]), reported at the
 * second: every configuration of it would be measured and ranked twice. */
void ld_check_distinct_values(loader *L, const param *p, const yaml_node_item_t *at);
/* Unknown keys (with the nearest valid one) and duplicate keys: -1 when n is not a mapping. */
int ld_check_keys(loader *L, const yaml_node_t *n, const char *what, const char *const *allowed);
yaml_node_t *ld_get(loader *L, const yaml_node_t *map, const char *key);
yaml_node_t *ld_require(loader *L, const yaml_node_t *map, const char *key, const char *what);
char *ld_string(loader *L, const yaml_node_t *n, const char *what);
int ld_is_identifier(const char *s);
int ld_int(loader *L, const yaml_node_t *n, const char *what, long long lo, long long hi, long long *out);
int ld_double(loader *L, const yaml_node_t *n, const char *what, double *out);
int ld_bool(loader *L, const yaml_node_t *n, const char *what, int *out);
mark ld_expr_mark(const yaml_node_t *n, int offset);
int ld_expr(loader *L, const yaml_node_t *n, const char *what, cexpr *out);
/* Inside [ ] a bare comma ends an item: 1 (said at n) when it cut an expression of list n in two. */
int ld_comma_cut(loader *L, const yaml_node_t *n, const char *what);
/* A list of 1 to 3 expressions (x, y, z) into dims. */
void ld_dims(loader *L, const yaml_node_t *n, const char *what, cexpr dims[3]);

/* ---- config_expr.c: names checked at load ---- */
/* -1 when x cannot be evaluated: a name reported, or a constant whose definition failed. */
int ld_check_names(loader *L, const cexpr *x, int allow_params, const char *what);
/* name's definition failed (said where it is): a use of it is no further error. */
void ld_constant_failed(loader *L, const char *name);
int ld_eval_const(loader *L, const cexpr *x, const char *what, value *out);
void ld_check_element_names(loader *L, const cexpr *x, const char *what);

/* ---- config_keys.c: the settings' sections and their tables of plain keys (build's too) ---- */
void ld_plain_defaults(config *cfg, const plain_key *rows, size_t n);
void ld_load_measure(loader *L, const yaml_node_t *n);
void ld_load_select(loader *L, const yaml_node_t *n);

/* ---- config_objective.c: select.objective, metrics: and measure.energy's auto resolved ---- */
void ld_load_objective(loader *L, const yaml_node_t *root);
void objective_config_free(config *cfg);
/* A configuration named by its parameters' values (verify.reference, select.baseline): every
 * parameter given, each name a parameter. One value per parameter; caller frees. */
value *ld_named_config(loader *L, const yaml_node_t *r, const char *what);
void ld_load_search(loader *L, const yaml_node_t *n);
void ld_load_output(loader *L, const yaml_node_t *n);
/* build's keys: its plain ones (rdc) loaded, the others (`others`, NULL-ended) only checked as
 * names; -1 when it is not a mapping */
int ld_load_build_keys(loader *L, const yaml_node_t *n, const char *const *others);

/* ---- config_data.c: data files (fill: {file}, verify.expected) and verify.host ---- */
/* The file named by n (relative to the config) for argument a, checked against its type and
 * count, into *out (its absolute path, NULL on an error said at n; the data's offset). */
void ld_data_file(loader *L, const yaml_node_t *n, const kernel_arg *a, const char *what, data_file *out);
/* verify.host (n) of the verify section v: after expect and expected, whose outputs it leaves. */
void ld_load_verify_host(loader *L, const yaml_node_t *v, const yaml_node_t *n);
/* Frees what this file put in cfg. */
void config_data_free(config *cfg);

/* ---- config_instances.c: the instances key (before the constants, whose values an instance
 * sets), then its names checked against the constants ---- */
void ld_load_instances(loader *L, const yaml_node_t *n);
void ld_check_instances(loader *L);
/* The instance's value of constant name into *v, when the loader loads one that sets it. */
void ld_instance_value(loader *L, const char *name, value *v);
void config_instances_free(config *cfg);

/* ---- config_plan.c: the plan section (root: the config, for kernel.entry, launch and measure) ---- */
void ld_load_plan(loader *L, const yaml_node_t *root, const yaml_node_t *n);
void config_plan_free(config *cfg);

/* ---- config_source.c: the kernel source's `#pragma unroll NAME` and the entry's ${param} ---- */
void ld_scan_pragmas(loader *L);
/* A parameter's value that is a string, a type or a kernel's name (float, unsigned int,
 * "transpose_naive"): 1 with *out (its text owned by the value, freed with the config); 0 when n
 * is an expression, -1 when said to be neither. */
int ld_string_value(loader *L, const yaml_node_t *n, value *out);
/* n, a string parameter's value in a named configuration (verify.reference, select.baseline):
 * *out, the list's own value (its text owned by p); said at n when p does not list it. */
void ld_named_string(loader *L, const param *p, const yaml_node_t *n, const char *what, value *out);
void ld_check_entry(loader *L);

/* ---- config_use.c: a parameter that reaches neither the compiler nor the launch is an error at
 * its name (last: every use must be known) ---- */
void ld_check_params_used(loader *L);

#endif
