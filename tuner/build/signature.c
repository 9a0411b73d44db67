/* signature.c: the config's arguments against the compiled kernel's parameters. The worker hands
 * the driver a pointer to each argument's bytes and the driver copies as many as the parameter
 * takes: a fourth argument for a three-parameter kernel is dropped, a double read as a float is
 * four bytes of its mantissa, and either runs without a word. The binary records each
 * parameter's size, so a config that does not match is refused before anything runs. */
#include "signature.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "cubin.h"
#include "diag.h"
#include "elem.h"
#include "param_types.h"
#include "banned.h"

/* Device code is 64-bit: an array is passed as an 8-byte pointer. */
#define POINTER_BYTES 8

size_t signature_args(const config *cfg, long launch, int *idx)
{
	if (launch >= 0 && (size_t)launch < cfg->plan.nlaunches) {
		const plan_launch *pl = &cfg->plan.launches[launch];
		memcpy(idx, pl->args, pl->nargs * sizeof *idx);
		return pl->nargs;
	}
	size_t n = 0;
	for (size_t i = 0; i < cfg->nargs; i++)
		if (!cfg->args[i].constant)
			idx[n++] = (int)i;
	return n;
}

static size_t arg_bytes(const kernel_arg *a) { return a->is_array ? POINTER_BYTES : elem_size(a->type); }

/* What a parameter of this many bytes can be given, for the message. */
static const char *given_as(size_t bytes)
{
	switch (bytes) {
	case 1: return "an int8 or uint8 value";
	case 2: return "an int16, uint16, half or bfloat16 value";
	case 4: return "an int32, uint32 or float value";
	case 8: return "an array, or an int64, uint64 or double value";
	default: return "nothing a config passes: a struct or vector type";
	}
}

/* "8, 4 and 4 bytes" (at most 16 listed). */
static char *list_sizes(const size_t *sizes, size_t n)
{
	char *s = xstrdup("");
	for (size_t i = 0; i < n && i < 16; i++) {
		char *old = s;
		s = xasprintf("%s%s%zu", old, !i ? "" : i + 1 == n ? " and " : ", ", sizes[i]);
		free(old);
	}
	char *old = s;
	s = xasprintf("%s%s bytes", old, n > 16 ? ", ..." : "");
	free(old);
	return s;
}

/* ", and 'k' takes 3 parameters (of 8, 4 and 4 bytes) but is passed 4 arguments", or "" when the
 * counts agree; caller frees. */
static char *count_note(const config *cfg, const char *entry, const size_t *sizes, size_t nparams, size_t n)
{
	if (n == nparams)
		return xstrdup("");
	int constants = 0;
	for (size_t i = 0; i < cfg->nargs; i++)
		constants |= cfg->args[i].constant;
	char *list = list_sizes(sizes, nparams);
	char *note = xasprintf("kernel '%s' takes %zu parameter%s%s%s%s but is passed %zu argument%s%s", entry, nparams,
			       nparams == 1 ? "" : "s", nparams ? " (of " : "", nparams ? list : "", nparams ? ")" : "", n,
			       n == 1 ? "" : "s", constants ? " (constant: true arrays are not passed)" : "");
	free(list);
	return note;
}

char *signature_mismatch(const config *cfg, const int *idx, size_t n, const char *entry, const size_t *sizes,
			 size_t nparams, mark fallback, mark *at)
{
	char *counts = count_note(cfg, entry, sizes, nparams, n), *msg = NULL;
	for (size_t k = 0; k < n && k < nparams && !msg; k++) {
		const kernel_arg *a = &cfg->args[idx[k]];
		if (arg_bytes(a) == sizes[k])
			continue;
		*at = a->at;
		char what[64];
		if (a->is_array)
			snprintf(what, sizeof what, "an array (an %d-byte pointer)", POINTER_BYTES);
		else
			snprintf(what, sizeof what, "a scalar %s (%zu byte%s)", elem_name(a->type), elem_size(a->type),
				 elem_size(a->type) == 1 ? "" : "s");
		/* a scalar of the wrong width is a type to change in the config: say so */
		int value = !a->is_array && (sizes[k] == 1 || sizes[k] == 2 || sizes[k] == 4 || sizes[k] == 8);
		char *fix = value ? xasprintf(": declare '%s' with the type the kernel gives parameter %zu", a->name, k + 1)
				  : xstrdup("");
		msg = xasprintf("argument '%s' is %s, but parameter %zu of kernel '%s' takes %zu byte%s: %s%s%s%s", a->name,
				what, k + 1, entry, sizes[k], sizes[k] == 1 ? "" : "s", given_as(sizes[k]), fix,
				*counts ? "; and " : "", counts);
		free(fix);
	}
	if (!msg && n > nparams) {
		const kernel_arg *a = &cfg->args[idx[nparams]];
		*at = a->at;
		msg = xasprintf("argument '%s' has no parameter: %s", a->name, counts);
	} else if (!msg && n < nparams) {
		*at = fallback;
		msg = xasprintf("%s: parameter %zu (%zu byte%s) gets none", counts, n + 1, sizes[n], sizes[n] == 1 ? "" : "s");
	}
	free(counts);
	return msg;
}

void signature_check_binary(const config *cfg, const build *b, binary *bin)
{
	int plan = bin->plan && bin->plan->nlaunches && (long long)(bin - b->bins) != b->ref_bin;
	size_t entries = plan ? bin->nplan : 1;
	int *idx = xcalloc(cfg->nargs + 1, sizeof *idx);
	for (size_t k = 0; k < entries && !bin->failed; k++) {
		const kernel_resources *r = plan ? &bin->plan_res[k] : &bin->res;
		size_t *sizes, nparams;
		if (!r->symbol)
			continue;
		if (cubin_params(bin->cubin, r->symbol, &sizes, &nparams)) {
			bin->unchecked = 1;
			continue;
		}
		size_t n = signature_args(cfg, plan ? (long)k : -1, idx);
		const char *entry = plan ? cfg->plan.launches[k].entry : bin->entry;
		mark at;
		char *why = signature_mismatch(cfg, idx, n, entry, sizes, nparams, plan ? cfg->plan.launches[k].at : cfg->entry_at,
					       &at);
		if (!why) /* the sizes fit: a C++ kernel's name says its types too */
			why = param_types_mismatch(cfg, idx, n, entry, r->symbol, &at);
		if (why) {
			bin->failed = bin->bad_args = 1;
			free(bin->log);
			bin->log = xasprintf("%s:%d:%d: %s", cfg->path, at.line, at.col, why);
			free(why);
		}
		free(sizes);
	}
	free(idx);
}

void signature_warn_unchecked(const config *cfg, const build *b)
{
	size_t n = 0, first = 0;
	for (size_t k = 0; k < b->nbins; k++)
		if (b->bins[k].unchecked && !b->bins[k].failed && !n++)
			first = k;
	if (!n)
		return;
	const binary *bin = &b->bins[first];
	fprintf(stderr,
		"%s:%d:%d: warning: the parameter table of kernel '%s' could not be read from its cubin, so the arguments "
		"of %zu %s were not checked against its parameters (a scalar of the wrong size would run unnoticed)\n",
		cfg->path, cfg->entry_at.line, cfg->entry_at.col, bin->entry, n, plural(n, "binary", "binaries"));
}
