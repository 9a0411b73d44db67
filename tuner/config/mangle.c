/* mangle.c: a templated entry matched against mangled symbols (mangle.h). Only what a kernel
 * instance's name needs is read: a name or nested name, then template arguments that are
 * builtin types, class types (possibly scoped, pointers, const), integer literals and the
 * abbreviations of repeated ones. */
#include "mangle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "banned.h"

#define ARG_MAX 256

static const struct {
	char code;
	const char *name;
} builtins[] = {
	{'v', "void"}, {'b', "bool"}, {'c', "char"}, {'a', "signed char"}, {'h', "unsigned char"},
	{'s', "short"}, {'t', "unsigned short"}, {'i', "int"}, {'j', "unsigned int"}, {'l', "long"},
	{'m', "unsigned long"}, {'x', "long long"}, {'y', "unsigned long long"}, {'n', "__int128"},
	{'o', "unsigned __int128"}, {'f', "float"}, {'d', "double"}, {'e', "long double"},
};

/* What a C++ spelling of a type means, as the mangling spells it back (a typedef is mangled as
 * the type it names). */
static const struct {
	const char *alias, *type;
} aliases[] = {
	{"half", "__half"}, {"half2", "__half2"}, {"nv_bfloat16", "__nv_bfloat16"}, {"nv_bfloat162", "__nv_bfloat162"},
	{"unsigned", "unsigned int"}, {"signed", "int"}, {"signed int", "int"}, {"long int", "long"},
	{"unsigned long int", "unsigned long"}, {"short int", "short"}, {"long long int", "long long"},
	{"int8_t", "signed char"}, {"uint8_t", "unsigned char"}, {"int16_t", "short"}, {"uint16_t", "unsigned short"},
	{"int32_t", "int"}, {"uint32_t", "unsigned int"}, {"int64_t", "long"}, {"uint64_t", "unsigned long"},
	{"size_t", "unsigned long"}, {"ptrdiff_t", "long"},
};

static int is_name_char(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* s's first n bytes after out's text, when they fit in cap; else 0. */
static int append(char *out, size_t cap, const char *s, size_t n)
{
	size_t have = strlen(out);
	if (have + n + 1 > cap)
		return 0;
	memcpy(out + have, s, n);
	out[have + n] = 0;
	return 1;
}

/* The substitution candidates met so far (the ABI's S_, S0_, ...): what a later mention of the
 * same name or class type abbreviates to. */
#define SUBS_MAX 32
typedef struct {
	char text[SUBS_MAX][ARG_MAX];
	int n;
} subs;

static void remember(subs *S, const char *text)
{
	if (S->n < SUBS_MAX)
		snprintf(S->text[S->n++], ARG_MAX, "%s", text);
}

/* S_ or S <base-36 number> _: a candidate met before, into out. */
static const char *substitution(const char *p, subs *S, char *out, size_t cap)
{
	int k = 0;
	for (p++; (*p >= '0' && *p <= '9') || (*p >= 'A' && *p <= 'Z'); p++)
		k = k * 36 + (*p <= '9' ? *p - '0' : *p - 'A' + 10);
	/* S_ is the first; S0_ the second, S1_ the third */
	int index = p[-1] == 'S' ? 0 : k + 1;
	if (*p != '_' || index >= S->n)
		return NULL;
	snprintf(out, cap, "%s", S->text[index]);
	return p + 1;
}

/* A <source-name>, <length><identifier>, appended to out; the position after it, or NULL. */
static const char *source_name(const char *p, char *out, size_t cap)
{
	char *end;
	long n = strtol(p, &end, 10);
	if (end == p || n <= 0 || (long)strlen(end) < n || !append(out, cap, end, (size_t)n))
		return NULL;
	return end + n;
}

static const char *type(const char *p, subs *S, char *out, size_t cap);

/* N <source-name>+ E, scopes joined with ::, each prefix a candidate. */
static const char *nested(const char *p, subs *S, char *out, size_t cap)
{
	for (int first = 1; p && *p != 'E'; first = 0) {
		if (!first && !append(out, cap, "::", 2))
			return NULL;
		if ((p = source_name(p, out, cap)))
			remember(S, out);
	}
	return p ? p + 1 : NULL;
}

/* One <type> as C++ writes it: "const float*", "__half", "ns::vec". */
static const char *type(const char *p, subs *S, char *out, size_t cap)
{
	char inner[ARG_MAX] = "";
	const char *q = NULL;
	if (*p == 'P' || *p == 'R' || *p == 'K') {
		if (!(q = type(p + 1, S, inner, sizeof inner)) || strlen(inner) + 8 > cap)
			return NULL;
		snprintf(out, cap, *p == 'K' ? "const %s" : "%s%s", inner, *p == 'P' ? "*" : "&");
	} else if (*p >= '0' && *p <= '9')
		q = source_name(p, out, cap);
	else if (*p == 'N')
		return nested(p + 1, S, out, cap);
	else if (*p == 'S')
		return substitution(p, S, out, cap);
	else {
		for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++)
			if (*p == builtins[i].code) {
				snprintf(out, cap, "%s", builtins[i].name);
				return p + 1; /* a builtin type is no candidate */
			}
		return NULL; /* packs, vendor types: not read */
	}
	if (q)
		remember(S, out);
	return q;
}

/* One template argument: a type, or L <type> [n] <digits> E, an integer literal. */
static const char *argument(const char *p, subs *S, char *out, size_t cap)
{
	if (*p != 'L')
		return type(p, S, out, cap);
	char t[ARG_MAX] = "";
	const char *q = type(p + 1, S, t, sizeof t);
	if (!q)
		return NULL;
	int neg = *q == 'n';
	q += neg;
	size_t digits = strspn(q, "0123456789");
	if (!digits || q[digits] != 'E' || digits + 2 > cap)
		return NULL;
	if (!strcmp(t, "bool"))
		snprintf(out, cap, "%s", *q == '1' ? "true" : "false");
	else
		snprintf(out, cap, "%s%.*s", neg ? "-" : "", (int)digits, q);
	return q + digits + 1;
}

/* An argument as the config wrote it, spaced and spelled as type() writes one. */
static void normalize(const char *s, size_t n, char *out, size_t cap)
{
	size_t k = 0;
	for (size_t i = 0; i < n && k + 1 < cap; i++) {
		char c = s[i];
		if (c == ' ' || c == '\t') {
			/* one space, and only between two parts of a name ("unsigned int") */
			size_t j = i;
			while (j < n && (s[j] == ' ' || s[j] == '\t'))
				j++;
			if (k && j < n && is_name_char(out[k - 1]) && is_name_char(s[j]))
				out[k++] = ' ';
			i = j - 1;
			continue;
		}
		out[k++] = c;
	}
	out[k] = 0;
	if (out[0] == '+')
		memmove(out, out + 1, k);
	for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
		if (!strcmp(out, aliases[i].alias)) {
			snprintf(out, cap, "%s", aliases[i].type);
			break;
		}
}

int mangle_is_template_id(const char *entry)
{
	const char *lt = strchr(entry, '<');
	size_t n = strlen(entry);
	return lt && lt > entry && n > 2 && entry[n - 1] == '>';
}

/* The entry's next argument from *p (past '<' or ','), normalized into out; 0 past the last. */
static int next_entry_arg(const char **p, char *out, size_t cap)
{
	const char *s = *p;
	int depth = 0;
	const char *q = s;
	for (; *q; q++) {
		if (*q == '<' || *q == '(')
			depth++;
		else if ((*q == '>' || *q == ')') && depth)
			depth--;
		else if ((*q == ',' || *q == '>') && !depth)
			break;
	}
	if (!*q)
		return 0;
	normalize(s, (size_t)(q - s), out, cap);
	*p = *q == ',' ? q + 1 : q + strlen(q);
	return 1;
}

int mangle_is_instance(const char *symbol, const char *entry)
{
	if (strncmp(symbol, "_Z", 2) || !mangle_is_template_id(entry))
		return 0;
	subs *S = xcalloc(1, sizeof *S);
	char name[ARG_MAX] = "";
	const char *p = symbol + 2;
	int is_nested = *p == 'N';
	/* the name's scopes, then I: a nested name reads up to its template arguments; the template's
	 * name (each scope of it) is a candidate */
	for (int first = 1; p && *p != 'I'; first = 0) {
		if (!first && !append(name, sizeof name, "::", 2))
			p = NULL;
		else if ((p = source_name(p + (first && is_nested), name, sizeof name)))
			remember(S, name);
		if (!is_nested && p && *p != 'I')
			p = NULL;
	}
	const char *lt = strchr(entry, '<');
	char want[ARG_MAX], got[ARG_MAX];
	normalize(entry, (size_t)(lt - entry), want, sizeof want);
	int same = p && !strcmp(name, want);
	const char *e = lt + 1;
	for (p = same ? p + 1 : NULL; p && *p != 'E';) {
		got[0] = 0;
		if (!(p = argument(p, S, got, sizeof got)) || !next_entry_arg(&e, want, sizeof want) || strcmp(got, want))
			p = NULL;
	}
	free(S);
	return p && (!*e || (*e == '>' && !e[1]));
}
