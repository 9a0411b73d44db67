/* observe.h: what the measuring stage tells as it goes, to whoever observes it: each result's
 * fate (the journal keeps it on disk) and the phases, steps and best so far (the progress line
 * draws them). The executor (measure.c, finish.c, reference.c) calls the observers under the
 * pass's lock; it writes neither the journal nor the line itself. */
#ifndef AUTOTUNE_OBSERVE_H
#define AUTOTUNE_OBSERVE_H

#include <signal.h>

#include "journal.h"
#include "progress.h"
#include "result.h"

/* A configuration's result, as it happened to it. */
typedef enum {
	SEEN_STARTED,  /* its measurement begins: a crash from here on is its */
	SEEN_MEASURED, /* measured on GPU r->gpu, its binary built in r->compile_s (0: not by this run) */
	SEEN_STOPPED,  /* a signal from outside stopped its worker: nothing is known of it */
	SEEN_SHARED,   /* not measured: it shares r->shares_with's measurement */
	SEEN_REUSED,   /* measured before an edit that left its binary and inputs as they were */
	SEEN_RESTORED, /* its result from before a re-election's run stands again */
	SEEN_FINAL,    /* its finalist rounds */
	SEEN_METRICS,  /* its counters */
} seen_kind;

/* An observer; each callback may be NULL. Observers chain through next. */
typedef struct observer {
	/* a phase of `steps` steps begins (show: worth a line), or, name NULL, the phase ends */
	void (*phase)(struct observer *ob, const char *name, size_t steps, int show);
	void (*step)(struct observer *ob, size_t done, const char *desc); /* desc NULL: the last stays */
	void (*best)(struct observer *ob, double ms, const char *desc);   /* a passing result */
	void (*result)(struct observer *ob, seen_kind what, size_t c, const result *r);
	struct observer *next;
} observer;

void observe_phase(observer *chain, const char *name, size_t steps, int show);
void observe_step(observer *chain, size_t done, const char *desc);
void observe_best(observer *chain, double ms, const char *desc);
void observe_result(observer *chain, seen_kind what, size_t c, const result *r);

/* The journal j as an observer (NULL: none): a record per result. A journal that cannot be
 * written (a full disk) stops the run (*failed set, *note why): measuring on would only make
 * results that could be kept nowhere. What the journal holds stays, for the next run. */
typedef struct {
	observer ob;
	journal *j;
	volatile sig_atomic_t *failed;
	char **note; /* owned by the caller */
} journal_observer;
/* Returns &J->ob, next: the rest of the chain. */
observer *journal_observer_init(journal_observer *J, journal *j, volatile sig_atomic_t *failed, char **note,
				observer *next);

/* The progress line on stderr, drawn when enabled (not -q). */
typedef struct {
	observer ob;
	progress bar;
	int enabled;
} progress_observer;
observer *progress_observer_init(progress_observer *p, int enabled, observer *next);

#endif
