/* literal.c: values as C and make source text (literal.h). */
#include "literal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "banned.h"

/* Device names, paths and commands come from users and drivers: quoted inside a comment they
 * must stay on one line (a make comment also continues after a backslash) and must not close a
 * C comment. */
char *one_line(const char *s)
{
	char *c = xstrdup(s);
	for (char *p = c; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
		if (*p == '\\')
			*p = '/';
		if (p[0] == '*' && p[1] == '/')
			p[1] = '_';
	}
	return c;
}

/* A C string literal of any bytes: quotes, backslashes and '?' (no trigraphs in ISO C modes)
 * escaped, anything not printable ASCII in octal. */
void c_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\' || *p == '?')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(f, "\\%03o", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* Flags go into make unquoted: '$' and '#' are escaped; control characters and backslashes,
 * which could end or continue the line, are refused before this. */
void make_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '$')
			fputc('$', f);
		else if (*s == '#')
			fputc('\\', f);
		fputc(*s, f);
	}
}

int parse_number(const char *s, number *v)
{
	if (!*s || strlen(s) >= sizeof v->num || !(*s == '-' || *s == '.' || (*s >= '0' && *s <= '9')))
		return -1;
	char *end;
	errno = 0;
	long long i = strtoll(s, &end, 10);
	if (!*end && !errno) {
		snprintf(v->num, sizeof v->num, "%lld", i);
		v->kind = i >= INT_MIN && i <= INT_MAX ? 0 : 1;
		return 0;
	}
	double x = strtod(s, &end);
	if (*end || !isfinite(x) || strpbrk(s, "xXpP"))
		return -1;
	/* the shortest text that reads back as the same double */
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(v->num, sizeof v->num, "%.*g", prec, x);
		if (strtod(v->num, NULL) == x)
			break;
	}
	v->kind = 2;
	return 0;
}

int parse_token(const char *s, number *v)
{
	size_t n = strlen(s);
	const char *ok = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:<>*& ";
	if (!n || n >= sizeof v->num || strspn(s, ok) != n || s[0] == ' ' || s[n - 1] == ' ' || (s[0] >= '0' && s[0] <= '9'))
		return -1;
	snprintf(v->num, sizeof v->num, "%s", s);
	v->kind = LITERAL_TOKEN;
	return 0;
}

/* The number as a C literal of its kind: negatives in parentheses, so that `-MACRO` and `a-MACRO`
 * stay what they look like; a double always looks like one. */
void c_number(FILE *f, const number *v, int kind)
{
	/* 9223372036854775808 is no long long: the literal `-9223372036854775808LL` is the negation
	 * of a constant too large for its type, and does not compile */
	if (v->kind == LITERAL_TOKEN) {
		fputs(v->num, f);
		return;
	}
	if (kind == 1 && !strcmp(v->num, "-9223372036854775808")) {
		fputs("(-9223372036854775807LL - 1)", f);
		return;
	}
	int neg = v->num[0] == '-';
	fprintf(f, "%s%s%s%s", neg ? "(" : "", v->num,
		kind == 1 ? "LL" : kind == 2 && !strpbrk(v->num, ".e") ? ".0" : "", neg ? ")" : "");
}
