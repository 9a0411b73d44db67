/* reference.c: the measuring stage's reference, what every configuration's outputs are checked
 * against: the reference kernel's run, a reference configuration run again on a worker that lacks
 * its outputs, and, when no reference is named, its choice by vote among the first configurations
 * of different binaries, told in the summary with a warning when most of the space differs from
 * it. measure.c calls it, under P->lock where the pass's state is touched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "measure_pass.h"
#include "names.h"
#include "observe.h"
#include "plan.h"
#include "banned.h"

/* The worker holds one reference's outputs at a time: when another group's (or, on a resumed
 * run, an earlier run's) are needed, that configuration runs again, briefly; its result stands. */
int pass_refresh_reference(const config *cfg, const space *sp, const build *b, result tmp, size_t ref,
			   const worker_ops *w, runner *rn, diags *d)
{
	tmp.message = NULL;
	sample_plan plan = {.warmup = 0,
			    .rule = {.min_samples = 1, .max_samples = 1, .time_cap_s = cfg->time_cap, .noise_target = 1}};
	int rc = w->measure(rn, cfg, space_config(sp, ref), PROTO_ROLE_REF, &b->bins[b->of_config[ref]], &plan, &tmp,
				plan_timeout(cfg, 0), d);
	if (rc == 0 && tmp.st != ST_OK) {
		diags_add(d, "the verify reference passed, but failed when run again for its outputs: %s%s%s",
			  status_name(tmp.st), tmp.message ? ": " : "", tmp.message ? tmp.message : "");
		rc = 1;
	}
	free(tmp.message);
	return rc;
}

/* verify.kernel: runs the reference kernel on its own geometry as the worker's reference. 0 ok,
 * 1 it failed (reason in d), -1 the worker is gone. */
int pass_run_reference_kernel(const config *cfg, const space *sp, const build *b, const worker_ops *w, runner *rn,
			      diags *d)
{
	const binary *bin = &b->bins[b->ref_bin];
	if (bin->failed && bin->bad_args) {
		diags_add(d, "%s (the reference kernel, verify.kernel)", bin->log);
		return 1;
	}
	if (bin->failed) {
		diags_at(d, cfg->path, 1, 1, "the reference kernel '%s' did not compile: %s", cfg->ref_entry, bin->log);
		return 1;
	}
	result tmp;
	memset(&tmp, 0, sizeof tmp);
	const cexpr *dims[7] = {&cfg->ref_block[0], &cfg->ref_block[1], &cfg->ref_block[2], &cfg->ref_grid[0],
				&cfg->ref_grid[1], &cfg->ref_grid[2], &cfg->ref_smem};
	long long *out[7] = {&tmp.block[0], &tmp.block[1], &tmp.block[2], &tmp.grid[0], &tmp.grid[1], &tmp.grid[2], &tmp.smem};
	for (int i = 0; i < 7; i++) {
		value v;
		*out[i] = i == 6 ? 0 : 1;
		if (dims[i]->e && cexpr_eval(cfg, dims[i], space_config(sp, 0), &v, d, NULL) == 0 && v.kind == VAL_INT)
			*out[i] = v.u.i;
	}
	sample_plan plan = {.warmup = 0,
			    .rule = {.min_samples = 1, .max_samples = 1, .time_cap_s = cfg->time_cap, .noise_target = 1}};
	int rc = w->measure(rn, cfg, space_config(sp, 0), PROTO_ROLE_REF, bin, &plan, &tmp, plan_timeout(cfg, 0), d);
	if (rc == 0 && tmp.st != ST_OK) {
		diags_add(d, "%s: the reference kernel '%s' failed: %s%s%s", cfg->path, cfg->ref_entry, status_name(tmp.st),
			  tmp.message ? ": " : "", tmp.message ? tmp.message : "");
		rc = 1;
	}
	free(tmp.message);
	return rc;
}

/* Whether a reference configuration's outputs are what the others must equal: some output has no
 * given values (verify.expect, expected, sum) and neither a reference kernel nor verify.host
 * stands for it. */
int pass_outputs_from_reference(const config *cfg)
{
	if (cfg->ref_entry || cfg->host.source)
		return 0;
	for (size_t i = 0; i < cfg->nargs; i++) {
		const kernel_arg *a = &cfg->args[i];
		if (a->is_array && a->output && !a->expect.e && !a->expected.path && (int)i != cfg->sum_out)
			return 1;
	}
	return 0;
}

/* Configuration c to be measured again (P->lock held). */
static void unmeasure(pass *P, size_t c)
{
	result *r = &P->res[c];
	P->passed -= r->st == ST_OK;
	P->done--;
	P->o->measured--;
	free(r->message);
	r->message = NULL;
	r->st = ST_NOT_RUN;
	r->samples = 0;
	P->S.state[c] = IDLE;
}

/* Puts back c's result from before it was measured again (`was`, whose message it takes). */
static void remeasured_back(pass *P, size_t c, result *was)
{
	P->passed -= P->res[c].st == ST_OK;
	P->passed += was->st == ST_OK;
	free(P->res[c].message);
	P->res[c] = *was;
	P->S.state[c] = FINISHED;
	observe_result(P->seen, SEEN_RESTORED, c, &P->res[c]);
}

/* The fastest so far, overall and per lane, without a reference that turned out wrong. */
static void best_again(pass *P)
{
	P->best_ms = 0;
	for (size_t i = 0; i < P->nlanes; i++)
		P->lanes[i].best_ms = 0;
	for (size_t c = 0; c < P->sp->count; c++) {
		const result *r = &P->res[c];
		if (r->st != ST_OK || P->S.state[c] != FINISHED)
			continue;
		if (P->best_ms <= 0 || r->t_median < P->best_ms)
			P->best_ms = r->t_median;
		if (r->gpu >= 0 && (size_t)r->gpu < P->nlanes &&
		    (P->lanes[r->gpu].best_ms <= 0 || result_first_rank(r) < P->lanes[r->gpu].best_ms))
			P->lanes[r->gpu].best_ms = result_first_rank(r);
	}
}

/* Group g's first two configurations of other binaries both differ from its provisional
 * reference A: the first of them, B, runs as the reference and the second, C, is checked against
 * it. When B and C agree, B is the reference and A, checked against it, a wrong result; when they
 * do not (or B cannot serve, or C does not run), A stays, and B and C keep their verdicts against
 * it. The runs' order and outcome are schedule.c's (schedule_reelect_step). On lane L, the vote's
 * own (P->lock held). */
void vote_reelect(pass *P, lane *L, size_t g, visit_fn visit)
{
	vote *v = &P->S.votes[g];
	size_t a = (size_t)v->first, b = (size_t)v->dissent[0], c = (size_t)v->dissent[1];
	result was_b = P->res[b], was_c = P->res[c];
	size_t done = P->done, measured = P->o->measured, x;
	P->res[b].message = P->res[c].message = NULL;
	schedule_reelect_begin(&P->S, g);
	unmeasure(P, b);
	unmeasure(P, c);
	int step = 0, verdict = VERDICT_OTHER, how, outcome;
	while ((outcome = schedule_reelect_step(&P->S, g, step++, verdict, &x, &how)) == REELECT_VISIT) {
		if (x == a)
			unmeasure(P, a);
		visit(P, L, x);
		int st = P->res[x].st;
		verdict = st == ST_OK ? VERDICT_OK : st == ST_WRONG_RESULT ? VERDICT_WRONG : VERDICT_OTHER;
	}
	if (outcome == REELECT_REPLACE) {
		free(was_b.message);
		free(was_c.message);
		best_again(P);
		for (size_t i = 0; i < P->nlanes; i++)
			if (&P->lanes[i] != L && P->lanes[i].loaded == (long long)g)
				P->lanes[i].loaded = -1; /* it holds A's outputs, from a check during the vote */
	} else {
		P->done = done;
		P->o->measured = measured;
		remeasured_back(P, b, &was_b);
		remeasured_back(P, c, &was_c);
		for (size_t i = 0; i < P->nlanes; i++)
			if (P->lanes[i].loaded == (long long)g)
				P->lanes[i].loaded = -1; /* it holds B's outputs */
	}
	schedule_reelect_end(&P->S, g, outcome, how);
	pthread_cond_broadcast(&P->changed);
}

/* Appends a line to *note (owned). */
static void note_line(char **note, char *line)
{
	char *more = *note ? xasprintf("%s\n%s", *note, line) : line;
	if (*note) {
		free(*note);
		free(line);
	}
	*note = more;
}

/* What a vote settled, as a line of the summary: which configuration the outputs were checked
 * against, and how it was chosen. */
static char *vote_line(const pass *P, const vote *v)
{
	const config *cfg = P->cfg;
	char *a = v->first >= 0 ? space_describe(cfg, space_config(P->sp, (size_t)v->first)) : xstrdup("");
	char *b = v->dissent[0] >= 0 ? space_describe(cfg, space_config(P->sp, (size_t)v->dissent[0])) : xstrdup("");
	char *c = v->dissent[1] >= 0 ? space_describe(cfg, space_config(P->sp, (size_t)v->dissent[1])) : xstrdup("");
	char *agree = v->agree >= 0 ? space_describe(cfg, space_config(P->sp, (size_t)v->agree)) : xstrdup("");
	char *line;
	if (v->state == VOTE_DONE && v->how == CHOSEN_CONFIRMED)
		line = xasprintf("reference: %s, the first to pass, confirmed by %s (another binary, the same outputs)", a, agree);
	else if (v->state == VOTE_DONE && v->how == CHOSEN_MAJORITY)
		line = xasprintf("reference: %s, by vote: it and %s (other binaries) agree, while %s, the first to pass, "
				 "differs from both (wrong-result)", b, c, a);
	else if (v->state == VOTE_DONE && v->how == CHOSEN_NONE_AGREE)
		line = xasprintf("reference: %s, the first to pass; %s and %s (other binaries) differ from it and from each "
				 "other: no two of the first three agree", a, b, c);
	else if (v->state == VOTE_DONE && v->how == CHOSEN_UNDECIDED)
		line = xasprintf("reference: %s, the first to pass; %s and %s (other binaries) differ from it, and the runs "
				 "that would tell whether they agree did not pass (not a wrong result): undecided", a, b, c);
	else if (v->state == VOTE_DONE && v->how == CHOSEN_EARLIER)
		line = xasprintf("reference: %s, which passed in an earlier run", a);
	else if (v->ndissent)
		line = xasprintf("reference: %s, the first to pass, unconfirmed: %s, the only other binary checked against it, "
				 "differs", a, b);
	else
		line = xasprintf("reference: %s, the first to pass, unconfirmed: no configuration of another binary was checked "
				 "against it", a);
	free(a);
	free(b);
	free(c);
	free(agree);
	return line;
}

/* o->reference_note: per group (verify.reference_per: up to a few), which configuration the
 * outputs were checked against and how it was chosen, and a warning when most of those that ran
 * differ from a reference no one named. Nothing when no configuration's outputs are the
 * reference (verify.kernel, verify.host, given values). */
void pass_reference_note(pass *P)
{
	const config *cfg = P->cfg;
	size_t groups = 0, shown = 0;
	if (!pass_outputs_from_reference(cfg))
		return;
	for (size_t g = 0; g < P->sp->count; g++)
		groups += P->S.group[g] == g;
	for (size_t g = 0; g < P->sp->count; g++) {
		if (P->S.group[g] != g || (P->S.named >= 0 && P->S.group[P->S.named] != g))
			continue;
		size_t ran = 0, wrong = 0;
		for (size_t c = 0; c < P->sp->count; c++) {
			const result *r = &P->res[c];
			if (P->S.group[c] != g || r->st == ST_NOT_RUN || r->st == ST_COMPILE_ERROR || r->predicted)
				continue;
			ran++;
			wrong += r->st == ST_WRONG_RESULT;
		}
		if (!ran)
			continue;
		if (++shown > 6) {
			note_line(&P->o->reference_note, xasprintf("(and the references of %zu more groups)", groups - 6));
			break;
		}
		char *group = NULL;
		for (size_t k = 0; k < cfg->nref_per && groups > 1; k++) {
			char v[64];
			value_format(space_config(P->sp, g)[cfg->ref_per[k]], v, sizeof v);
			char *more = xasprintf("%s%s%s=%s", group ? group : "", group ? " " : "", cfg->params[cfg->ref_per[k]].name, v);
			free(group);
			group = more;
		}
		long long ref = P->S.ref[g];
		char *line, *desc = ref >= 0 ? space_describe(cfg, space_config(P->sp, (size_t)ref)) : NULL;
		if (P->S.named >= 0)
			line = xasprintf("reference: %s, named in verify.reference", desc);
		else if (ref < 0 && P->S.votes[g].state == VOTE_NONE)
			line = xasprintf("reference: none: no configuration passed to serve as one");
		else
			line = vote_line(P, &P->S.votes[g]);
		note_line(&P->o->reference_note, group ? xasprintf("%s (group %s)", line, group) : xstrdup(line));
		free(line);
		if (P->S.named < 0 && ref >= 0 && 2 * wrong > ran)
			note_line(&P->o->reference_note,
				  xasprintf("warning: %zu of the %zu configurations that ran%s%s differ from the reference %s, which no "
					    "one named: the reference may be the odd one out; check it, or name one you trust in "
					    "verify.reference", wrong, ran, group ? " in group " : "", group ? group : "", desc));
		free(desc);
		free(group);
	}
}

