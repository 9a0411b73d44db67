/* binary.c: the plan of a build (binary.h): which configurations share a binary, with no compiling,
 * and its release. The stages that only need the plan (a search, a replay) include binary.h, not
 * the compile pool's compile.h. */
#include "binary.h"

#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "diag.h"
#include "space.h"
#include "banned.h"

static int same_compile_values(const config *cfg, const value *a, const value *b)
{
	for (size_t i = 0; i < cfg->nparams; i++) {
		if (!param_is_compile_time(&cfg->params[i]))
			continue;
		if (a[i].kind != b[i].kind || (a[i].kind == VAL_INT ? a[i].u.i != b[i].u.i : a[i].u.f != b[i].u.f))
			return 0;
	}
	return 1;
}

/* A configuration's compile-time values, hashed: equal values, equal hash (a double's -0 as 0). */
static unsigned long long compile_values_hash(const config *cfg, const value *v)
{
	unsigned long long h = 0x9E3779B97F4A7C15ull;
	for (size_t i = 0; i < cfg->nparams; i++) {
		if (!param_is_compile_time(&cfg->params[i]))
			continue;
		unsigned long long bits;
		if (v[i].kind == VAL_INT)
			bits = (unsigned long long)v[i].u.i;
		else {
			double f = v[i].u.f + 0.0;
			memcpy(&bits, &f, sizeof bits);
		}
		h = (h ^ (bits + (unsigned long long)v[i].kind)) * 0xBF58476D1CE4E5B9ull;
		h ^= h >> 31;
	}
	return h;
}

typedef struct {
	unsigned long long hash;
	size_t config;
} hashed;

static int by_hash(const void *a, const void *b)
{
	const hashed *x = a, *y = b;
	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return (x->config > y->config) - (x->config < y->config);
}

void build_plan(const config *cfg, const space *s, build *b)
{
	memset(b, 0, sizeof *b);
	b->of_config = xcalloc(s->count + 1, sizeof *b->of_config);
	size_t cap = 0;
	/* configurations sorted by the hash of their compile-time values: each one's binary is that
	 * of the first configuration with the same values, found among those of its hash */
	hashed *h = xcalloc(s->count + 1, sizeof *h);
	size_t *first = xcalloc(s->count + 1, sizeof *first);
	for (size_t c = 0; c < s->count; c++)
		h[c] = (hashed){compile_values_hash(cfg, space_config(s, c)), c};
	qsort(h, s->count, sizeof *h, by_hash);
	for (size_t i = 0, run = 0; i < s->count; i++) {
		if (i && h[i].hash != h[i - 1].hash)
			run = i;
		size_t c = h[i].config, j = run;
		while (j < i && !same_compile_values(cfg, space_config(s, c), space_config(s, h[j].config)))
			j++;
		first[c] = j < i ? first[h[j].config] : c;
	}
	free(h);
	/* binaries numbered in the order of their first configuration */
	for (size_t c = 0; c < s->count; c++) {
		if (first[c] != c) {
			b->of_config[c] = b->of_config[first[c]];
			continue;
		}
		size_t k = b->nbins;
		grow(&b->bins, &cap, b->nbins + 1, sizeof *b->bins);
		memset(&b->bins[k], 0, sizeof b->bins[k]);
		b->bins[k].first_config = c;
		b->bins[k].entry = config_entry(cfg, space_config(s, c));
		b->bins[k].plan = &cfg->plan;
		b->nbins++;
		b->of_config[c] = k;
	}
	free(first);
	/* verify.kernel: one more binary, the reference entry built like the first configuration */
	b->ref_bin = -1;
	if (cfg->ref_entry && s->count) {
		grow(&b->bins, &cap, b->nbins + 1, sizeof *b->bins);
		memset(&b->bins[b->nbins], 0, sizeof b->bins[b->nbins]);
		b->bins[b->nbins].first_config = 0;
		b->bins[b->nbins].entry = xstrdup(cfg->ref_entry);
		b->ref_bin = (long long)b->nbins++;
	}
}

void build_free(build *b)
{
	for (size_t i = 0; i < b->nbins; i++) {
		free(b->bins[i].cubin);
		free(b->bins[i].entry);
		free(b->bins[i].log);
		free(b->bins[i].res.symbol);
		for (size_t k = 0; k < b->bins[i].nplan; k++)
			free(b->bins[i].plan_res[k].symbol);
		free(b->bins[i].plan_res);
	}
	free(b->bins);
	free(b->of_config);
	memset(b, 0, sizeof *b);
}
