/* tune_opts.c: what the command line and the config's search section ask of a run (tune_opts.h),
 * and --replay, which needs nothing else. */
#include "tune_opts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "config.h"
#include "replay.h"
#include "run_files.h"
#include "run_names.h"
#include "space.h"
#include "search.h"

#include "banned.h"

/* --budget (else search.budget): evaluations (N), a fraction of the space (N%) or seconds (Ns,
 * into *seconds); 0 when not given. */
int tune_budget(const options *o, const config *cfg, size_t count, size_t *budget, double *seconds, diags *d)
{
	const char *b = o->budget ? o->budget : cfg->search_budget;
	*budget = 0;
	*seconds = 0;
	if (b && budget_parse(b, count, budget, seconds)) {
		diags_add(d, "autotune: a budget is " BUDGET_FORMS ", not '%s'", b);
		return -1;
	}
	return 0;
}

/* The search a run makes, live or replayed alike: --strategy, else search.strategy, else model
 * when a budget limits it, else exhaustive (docs/config.md). */
int tune_strategy(const options *o, const config *cfg, size_t budget, double seconds, strategy *s, diags *d)
{
	const char *name = o->strategy ? o->strategy : cfg->search_strategy;
	*s = !name && (budget || seconds) ? STRAT_MODEL : STRAT_EXHAUSTIVE;
	if (name && strategy_parse(name, s)) {
		diags_add(d, "autotune: unknown strategy '%s' (%s)", name, strategy_list);
		return -1;
	}
	return 0;
}

/* --seed, else search.seed */
unsigned long long tune_seed(const options *o, const config *cfg)
{
	return o->seed_given ? o->seed : cfg->search_seed;
}

int tune_jobs(const options *o) { return o->jobs ? o->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN); }

/* --replay: a strategy against a recorded run; the sequence goes to results/NAME.replay.csv. */
int tune_replay(const options *o, const config *cfg, const space *sp, diags *d)
{
	strategy s;
	size_t budget;
	double seconds;
	if (tune_budget(o, cfg, sp->count, &budget, &seconds, d) || tune_strategy(o, cfg, budget, seconds, &s, d))
		return EXIT_USAGE;
	if (!budget)
		budget = sp->count; /* a replay takes no time: a time budget means all of it */
	char *out = run_name(cfg->csv_path, RUN_FILE_REPLAY_CSV);
	replay_result r;
	int rc = run_check_output_path(out, d) ? -1
					   : replay_run(cfg, sp, &(replay_opts){.recording = o->replay, .strategy = s,
						   .budget = budget, .seed = tune_seed(o, cfg), .jobs = tune_jobs(o), .out = out,
						   .prior = o->prior}, &r, d);
	if (rc == 0 && r.best_config < 0) {
		/* no ratio to give: the search found nothing that passed */
		if (!o->quiet) {
			fprintf(stderr, "replay: %s, seed %llu: %zu evaluations of %zu configurations; none passed", strategy_name(s),
				tune_seed(o, cfg), r.evaluations, sp->count);
			if (isinf(r.optimum))
				fprintf(stderr, ", nor did any configuration of %s\n", o->replay);
			else
				fprintf(stderr, " (the recording's optimum: %.4f ms)\n", r.optimum);
			fprintf(stderr, "  sequence in %s\n", out);
		}
		free(out);
		return EXIT_NONE_PASSED;
	}
	if (rc == 0 && !o->quiet) {
		char *desc = r.best_config >= 0 ? space_describe(cfg, space_config(sp, (size_t)r.best_config)) : xstrdup("none");
		fprintf(stderr, "replay: %s, seed %llu: %zu evaluations of %zu configurations; best found %s: %.4f ms, "
				"optimum %.4f ms (ratio %.4f)\n  compiles: %zu binaries, the wall time of %.1f %s with %d jobs\n"
				"  sequence in %s\n",
			strategy_name(s), tune_seed(o, cfg), r.evaluations, sp->count, desc, r.best_found, r.optimum,
			r.best_found / r.optimum, r.built, r.compile_latencies,
			r.seconds ? "s (the recorded compile times)" : "compiles", tune_jobs(o), out);
		free(desc);
	}
	free(out);
	return rc ? EXIT_USAGE : EXIT_WINNER;
}
