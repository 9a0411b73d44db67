/* literal.h: values written as C and make source text, for the tuned header and make fragment
 * (and the recipe's macros in both): strings, comments and numbers that read back as written,
 * whatever bytes the results held. */
#ifndef AUTOTUNE_LITERAL_H
#define AUTOTUNE_LITERAL_H

#include <stdio.h>

/* A parameter value, checked to be a number or a C token: as make and as C should spell it. */
typedef struct {
	char num[48]; /* "-3", "0.5", "__half" */
	int kind;     /* 0 int, 1 long long, 2 double, 3 a string parameter's type or name (LITERAL_TOKEN) */
} number;
#define LITERAL_TOKEN 3

/* s on one line that cannot end a C comment or continue a make comment. Caller frees. */
char *one_line(const char *s);
/* s as a C string literal. */
void c_string(FILE *f, const char *s);
/* s as a make value: '$' and '#' escaped (control characters and backslashes are refused before). */
void make_value(FILE *f, const char *s);
/* s checked to be a decimal number, as a number of the narrowest kind: 0, or -1. */
int parse_number(const char *s, number *v);
/* s checked to be a string parameter's value that C can take as it is, a type or a name
 * (`__half`, `unsigned int`, `ns::vec<float>`), as a number of kind LITERAL_TOKEN: 0, or -1. */
int parse_token(const char *s, number *v);
/* v as a C literal of kind (at least v's own); a token as it is. */
void c_number(FILE *f, const number *v, int kind);

#endif
