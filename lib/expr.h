/* expr.h: the small expression language of config files (sizes, grids, constraints).
 * Integers and floats; + - * / % ; comparisons; && || !; parentheses; min, max, ceil_div.
 * Strings (a string parameter's value, a literal "float" or 'float') compare with == and !=
 * only; anything else on a string is an error.
 * Parsing and evaluation are separate so a config is checked once and evaluated per configuration. */
#ifndef AUTOTUNE_EXPR_H
#define AUTOTUNE_EXPR_H

#include <stddef.h>

typedef enum { VAL_INT, VAL_FLOAT, VAL_STR } val_kind;

/* A VAL_STR's text is not owned by the value: it lives as long as what it came from (the config
 * that lists it, the expression that spells it). */
typedef struct {
	val_kind kind;
	union {
		long long i;
		double f;
		const char *s;
	} u;
} value;

static inline value value_int(long long i) { value v = {VAL_INT, {.i = i}}; return v; }
static inline value value_float(double f) { value v = {VAL_FLOAT, {.f = f}}; return v; }
static inline value value_str(const char *s) { value v = {VAL_STR, {.s = s}}; return v; }
/* A string's is NaN: no number. */
double value_as_double(value v);
/* Whether a and b are the same value: ints exactly, strings by their text, an int and a float
 * by number; a string and a number never. */
int value_equal(value a, value b);
/* Non-zero for a non-zero int, a non-zero float or a non-empty string. */
int value_truth(value v);
/* Shortest text that reads back to the same value: "256", "0.5", "1e-06". Integers never get a
 * dot; a string is its text. */
void value_format(value v, char *buf, size_t len);

/* Where and why parsing or evaluation failed: offset is a 0-based byte offset into the source. */
typedef struct {
	int offset;
	char msg[200];
} expr_error;

typedef struct expr expr;

/* Returns 0 and fills *out when the name is known, -1 otherwise. */
typedef int (*expr_lookup_fn)(void *ctx, const char *name, value *out);
/* Called once per name occurrence; a non-zero return stops the walk and is returned. */
typedef int (*expr_name_fn)(void *ctx, const char *name, int offset);

/* The length of the UTF-8 character at s (1 to 4) and its code point in *cp; 0 when s starts none
 * (a stray byte, an overlong form, a surrogate, past U+10FFFF). Messages quote a whole character
 * with it, never its first byte. */
int utf8_char(const char *s, unsigned *cp);

/* NULL on a syntax error, with err filled. The caller owns the result (expr_free). */
expr *expr_parse(const char *src, expr_error *err);
/* 0 on success; -1 on an unknown name, division or modulo by zero, integer overflow or a bad
 * function call, with err->offset at the offending token. */
int expr_eval(const expr *e, expr_lookup_fn lookup, void *ctx, value *out, expr_error *err);
int expr_foreach_name(const expr *e, expr_name_fn fn, void *ctx);
const char *expr_source(const expr *e);
void expr_free(expr *e);

#endif
