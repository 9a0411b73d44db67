/* config_use.c: parameters that change nothing. A parameter reaches the kernel only through the
 * compiler (build.defines, build.maxrregcount, a `#pragma unroll NAME`, the entry's ${NAME}) or
 * the launch (its geometry, an argument's value, a plan's streams and order); a constraint
 * shapes the space. One used nowhere of these multiplies the space by configurations that all
 * run the same kernel: the usual trap is a parameter left out of build.defines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_load.h"
#include "banned.h"

typedef struct {
	const config *cfg;
	char *used;
} use_walk;

static int mark_used(void *ctx, const char *name, int offset)
{
	(void)offset;
	use_walk *w = ctx;
	for (size_t i = 0; i < w->cfg->nparams; i++)
		if (!strcmp(w->cfg->params[i].name, name))
			w->used[i] = 1;
	return 0;
}

static void walk(use_walk *w, const cexpr *x)
{
	if (x->e)
		expr_foreach_name(x->e, mark_used, w);
}

static void walk_dims(use_walk *w, const cexpr block[3], const cexpr grid[3], const cexpr *smem)
{
	for (int i = 0; i < 3; i++) {
		walk(w, &block[i]);
		walk(w, &grid[i]);
	}
	walk(w, smem);
}

/* Every expression that decides what runs: the launch, the scalars passed, the plan. */
static void walk_what_runs(use_walk *w)
{
	const config *cfg = w->cfg;
	walk_dims(w, cfg->block, cfg->grid, &cfg->shared_mem);
	for (size_t i = 0; i < cfg->nargs; i++)
		walk(w, &cfg->args[i].value);
	for (size_t i = 0; i < cfg->nconstraints; i++)
		walk(w, &cfg->constraints[i]);
	const launch_plan_cfg *p = &cfg->plan;
	walk(w, &p->streams);
	walk(w, &p->order);
	walk(w, &p->connections);
	for (size_t k = 0; k < p->nlaunches; k++)
		walk_dims(w, p->launches[k].block, p->launches[k].grid, &p->launches[k].shared_mem);
}

/* Where else a parameter stands that does not change what runs, for the message: "" when nowhere. */
static const char *only_in(const config *cfg, size_t i)
{
	const cexpr *reported[] = {&cfg->bytes, &cfg->flops, &cfg->sum_count, &cfg->sum_equals};
	static const char *const names[] = {"bytes", "flops", "verify.sum's count", "verify.sum's equals"};
	for (size_t k = 0; k < sizeof reported / sizeof *reported; k++) {
		char *used = xcalloc(cfg->nparams, 1);
		use_walk w = {cfg, used};
		walk(&w, reported[k]);
		int here = used[i];
		free(used);
		if (here)
			return names[k];
	}
	for (size_t k = 0; k < cfg->nref_per; k++)
		if (cfg->ref_per[k] == i)
			return "verify.reference_per";
	return "";
}

/* Whether flag is "-DNAME" or "-DNAME=..." of this name. */
static int defines(const char *flag, const char *name)
{
	size_t n = strlen(name);
	return !strncmp(flag, "-D", 2) && !strncmp(flag + 2, name, n) && (flag[2 + n] == 0 || flag[2 + n] == '=');
}

static void report_unused(loader *L, size_t i)
{
	const config *cfg = L->cfg;
	const param *p = &cfg->params[i];
	const char *flag = NULL;
	for (size_t k = 0; k < cfg->nflags && !flag; k++)
		if (defines(cfg->nvcc_flags[k], p->name))
			flag = cfg->nvcc_flags[k];
	const char *where = only_in(cfg, i);
	char why[200] = "";
	if (flag)
		snprintf(why, sizeof why, " (build.flags are passed as written: '%.60s' does not take its values)", flag);
	else if (*where)
		snprintf(why, sizeof why, " (it is used only in %s, which does not change what runs)", where);
	ld_error(L, p->at,
		 "parameter '%s' changes nothing: it is not in build.defines, build.maxrregcount, a #pragma unroll or "
		 "the entry's ${}, nor in the launch, an argument's value or a constraint, so every value of it "
		 "runs the same kernel%s; to pass it to the kernel, list it in build.defines",
		 p->name, why);
}

void ld_check_params_used(loader *L)
{
	const config *cfg = L->cfg;
	/* an expression that failed to load would hide its names, and an unread source its pragmas */
	if (L->errors || !L->source_ok || !cfg->nparams)
		return;
	char *used = xcalloc(cfg->nparams, 1);
	use_walk w = {cfg, used};
	walk_what_runs(&w);
	for (size_t i = 0; i < cfg->nparams; i++)
		if (!used[i] && !cfg->params[i].is_define && !cfg->params[i].is_maxreg && !cfg->params[i].is_entry &&
		    !cfg->params[i].is_pragma && !cfg->params[i].is_srcdef)
			report_unused(L, i);
	free(used);
}
