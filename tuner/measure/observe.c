/* observe.c: the measuring stage's observers: the chain the executor tells, and the two it always
 * has, the journal and the progress line. */
#include "observe.h"

#include <stdlib.h>
#include <string.h>

#include "banned.h"

void observe_phase(observer *chain, const char *name, size_t steps, int show)
{
	for (observer *ob = chain; ob; ob = ob->next)
		if (ob->phase)
			ob->phase(ob, name, steps, show);
}

void observe_step(observer *chain, size_t done, const char *desc)
{
	for (observer *ob = chain; ob; ob = ob->next)
		if (ob->step)
			ob->step(ob, done, desc);
}

void observe_best(observer *chain, double ms, const char *desc)
{
	for (observer *ob = chain; ob; ob = ob->next)
		if (ob->best)
			ob->best(ob, ms, desc);
}

void observe_result(observer *chain, seen_kind what, size_t c, const result *r)
{
	for (observer *ob = chain; ob; ob = ob->next)
		if (ob->result)
			ob->result(ob, what, c, r);
}

static void journal_check(journal_observer *o, int rc)
{
	if (rc && !*o->note) {
		*o->note = journal_failure(o->j);
		if (!*o->note)
			*o->note = xstrdup("writing the journal failed");
		*o->failed = 1;
	}
}

/* The records each fate takes, in the order a resumed run reads them back. */
static void journal_result(observer *ob, seen_kind what, size_t c, const result *r)
{
	journal_observer *o = (journal_observer *)ob;
	journal *j = o->j;
	switch (what) {
	case SEEN_STARTED:
		journal_check(o, journal_started(j, c));
		break;
	case SEEN_MEASURED:
	case SEEN_REUSED:
		journal_check(o, journal_finished(j, c, r));
		if (r->gpu)
			journal_check(o, journal_gpu(j, c, r->gpu));
		if (what == SEEN_MEASURED && r->compile_s > 0)
			journal_check(o, journal_compiled(j, c, r->compile_s));
		if (what == SEEN_REUSED && r->have_metrics)
			journal_check(o, journal_metrics(j, c, r));
		break;
	case SEEN_STOPPED:
		journal_check(o, journal_stopped(j, c));
		break;
	case SEEN_SHARED:
		journal_check(o, journal_shared(j, c, (size_t)r->shares_with));
		break;
	case SEEN_RESTORED:
		if (r->st != ST_NOT_RUN)
			journal_check(o, journal_finished(j, c, r));
		break;
	case SEEN_FINAL:
		journal_check(o, journal_final(j, c, r));
		break;
	case SEEN_METRICS:
		journal_check(o, journal_metrics(j, c, r));
		break;
	}
}

observer *journal_observer_init(journal_observer *J, journal *j, volatile sig_atomic_t *failed, char **note,
				observer *next)
{
	*J = (journal_observer){.ob = {.result = j ? journal_result : NULL, .next = next}, .j = j, .failed = failed,
				.note = note};
	return &J->ob;
}

static void progress_phase(observer *ob, const char *name, size_t steps, int show)
{
	progress_observer *p = (progress_observer *)ob;
	if (name)
		progress_begin(&p->bar, p->enabled && show, name, steps);
	else
		progress_end(&p->bar);
}

static void progress_step(observer *ob, size_t done, const char *desc)
{
	progress_update(&((progress_observer *)ob)->bar, done, desc);
}

static void progress_best_of(observer *ob, double ms, const char *desc)
{
	progress_best(&((progress_observer *)ob)->bar, ms, desc);
}

observer *progress_observer_init(progress_observer *p, int enabled, observer *next)
{
	memset(p, 0, sizeof *p);
	p->ob = (observer){.phase = progress_phase, .step = progress_step, .best = progress_best_of, .next = next};
	p->enabled = enabled;
	return &p->ob;
}
