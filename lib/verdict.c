/* verdict.c: a wrong result's message (verdict.h). */
#include "verdict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

/* A share as a percentage with no more digits than it takes to tell it from 0% and from 100%. */
static void percent_text(unsigned long long part, unsigned long long whole, char *buf, size_t len)
{
	double pct = 100.0 * (double)part / (double)(whole ? whole : 1);
	if (part == whole) {
		snprintf(buf, len, "100%%");
		return;
	}
	for (int digits = 2; digits < 12; digits++) {
		snprintf(buf, len, "%.*g%%", digits, pct);
		double shown = strtod(buf, NULL);
		if (shown < 100 && (part == 0 || shown > 0))
			return;
	}
}

/* Where the values that differ lie: a pattern when the counts make it certain ("every value",
 * "all but index 0", "only the last 64"), else the first and last index. A vector type's index
 * is its element's, with the component. */
static void where_text(const verdict *v, unsigned long long compared, char *buf, size_t len)
{
	unsigned long long bad = v->bad, first = v->first, last = v->last, n = v->n;
	unsigned lanes = v->lanes > 1 ? (unsigned)v->lanes : 1;
	if (bad == compared)
		snprintf(buf, len, v->stride > 1 ? "every compared value" : "every value");
	else if (lanes > 1 && first == last)
		snprintf(buf, len, "only index %llu (component %c)", first / lanes, "xyzw"[first % lanes]);
	else if (lanes > 1)
		snprintf(buf, len, "indices %llu (component %c) .. %llu (component %c)", first / lanes, "xyzw"[first % lanes],
			 last / lanes, "xyzw"[last % lanes]);
	else if (v->stride > 1)
		snprintf(buf, len, "indices %llu..%llu (1 in %llu compared)", first, last, v->stride);
	else if (bad == 1)
		snprintf(buf, len, "only index %llu", first);
	else if (bad == n - 1 && first == 1)
		snprintf(buf, len, "all but index 0");
	else if (bad == n - 1 && last == n - 2)
		snprintf(buf, len, "all but the last index (%llu)", last + 1);
	else if (bad == last - first + 1 && last == n - 1)
		snprintf(buf, len, "only the last %llu (indices %llu..%llu)", bad, first, last);
	else if (bad == last - first + 1 && first == 0)
		snprintf(buf, len, "only the first %llu (indices 0..%llu)", bad, last);
	else if (bad == last - first + 1)
		snprintf(buf, len, "indices %llu..%llu, every one of them", first, last);
	else
		snprintf(buf, len, "indices %llu..%llu", first, last);
}

/* "3 NaN, no Inf" and the like. */
static void nan_inf_text(unsigned long long nan, unsigned long long inf, char *buf, size_t len)
{
	if (inf)
		snprintf(buf, len, "%llu NaN, %llu Inf", nan, inf);
	else
		snprintf(buf, len, "%llu NaN, %s", nan, nan ? "no Inf" : "all finite");
}

/* ", max abs error 3 at index 2 (got -1, expected 2), max rel error 2" */
static void error_text(const verdict *v, char *buf, size_t len)
{
	unsigned lanes = v->lanes > 1 ? (unsigned)v->lanes : 1;
	if (!v->finite_error)
		snprintf(buf, len, ", no finite error (NaN against numbers)");
	else if (v->argmax < 0)
		snprintf(buf, len, ", max abs error %.6g", v->max_abs);
	else {
		unsigned long long at = (unsigned long long)v->argmax;
		char comp[16] = "";
		if (lanes > 1)
			snprintf(comp, sizeof comp, " (component %c)", "xyzw"[at % lanes]);
		snprintf(buf, len, ", max abs error %.6g at index %llu%s (got %s, expected %s)", v->max_abs, at / lanes, comp,
			 v->got_at ? v->got_at : "?", v->want_at ? v->want_at : "?");
	}
	size_t used = strlen(buf);
	if (v->max_rel > 0)
		snprintf(buf + used, len - used, ", max rel error %.3g", v->max_rel);
}

/* "; output: 0 NaN, all finite; reference: 0 NaN, all finite, 12 zeros; the reference looks
 * suspect: all zeros": floats' NaN and Inf on both sides, the reference's zeros, and, of a
 * reference run's outputs only (given values are what the user asked for), whether they look
 * wrong. */
static void sides_text(const verdict *v, unsigned long long compared, char *buf, size_t len)
{
	const char *ref = v->given ? "expected values" : "reference";
	int odd = !v->given && (v->ref_zero == compared || v->ref_nan || v->ref_inf);
	char got[64], want[64];
	size_t used;
	buf[0] = 0;
	if (v->is_float) {
		nan_inf_text(v->got_nan, v->got_inf, got, sizeof got);
		nan_inf_text(v->ref_nan, v->ref_inf, want, sizeof want);
		snprintf(buf, len, "; output: %s; %s: %s", got, ref, want);
	}
	used = strlen(buf);
	if (v->ref_zero && !(odd && v->ref_zero == compared)) {
		if (v->ref_zero == compared)
			snprintf(want, sizeof want, "all zeros");
		else
			snprintf(want, sizeof want, "%llu zeros", v->ref_zero);
		if (v->is_float)
			snprintf(buf + used, len - used, ", %s", want);
		else
			snprintf(buf + used, len - used, "; %s: %s", ref, want);
	}
	used = strlen(buf);
	if (odd)
		snprintf(buf + used, len - used, "; the reference looks suspect: %s",
			 v->ref_zero == compared ? "all zeros" : v->ref_nan == compared ? "all NaN" :
			 v->ref_nan ? "NaN in it" : "Inf in it");
}

void verdict_text(const verdict *v, char *msg, size_t len)
{
	unsigned long long stride = v->stride ? v->stride : 1, compared = (v->n + stride - 1) / stride;
	char pct[32], where[160], err[256], sides[256], name[80] = "";
	percent_text(v->bad, compared, pct, sizeof pct);
	where_text(v, compared, where, sizeof where);
	error_text(v, err, sizeof err);
	sides_text(v, compared, sides, sizeof sides);
	if (v->name)
		snprintf(name, sizeof name, " '%s'", v->name);
	snprintf(msg, len, "argument %d%s: %llu of %llu %svalues differ (%s), %s%s%s", v->arg + 1, name, v->bad, compared,
		 stride > 1 ? "compared " : "", pct, where, err, sides);
}
