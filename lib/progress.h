/* progress.h: one status line on stderr for humans, drawn only when stderr is a terminal:
 *
 *   compile 12/40 (9.5/s)  measure 57/320  elapsed 1:02  ETA 4:45  best 0.0123 ms block_x=32 ...
 *
 * The line is one resource shared by every bar and drawn from several threads; the calls that
 * draw or change a bar take one lock inside. Results never go here. */
#ifndef AUTOTUNE_PROGRESS_H
#define AUTOTUNE_PROGRESS_H

#include <stddef.h>

typedef struct {
	int enabled;        /* drawing at all: asked for, and stderr is a terminal */
	int colour;         /* escape codes allowed (see progress_colour) */
	const char *label;  /* the stage that done/total count; NULL: compiles only */
	size_t total, done;
	size_t compiled, to_compile; /* set by progress_compile */
	double started;
	double best_ms;     /* < 0: nothing has passed yet */
	char best[160];     /* the configuration that took best_ms */
	char note[160];     /* the last update's note, shown while nothing has passed */
} progress;

/* enabled: the caller wants progress (not -q); it is drawn only when stderr is a terminal too. */
void progress_begin(progress *p, int enabled, const char *label, size_t total);
/* done of total finished; note (may be NULL: the last one stays) names what just finished. */
void progress_update(progress *p, size_t done, const char *note);
/* Offers a passing result: kept when faster than the best so far, else ignored, so callers need
 * not compare. Drawn with the next update. */
void progress_best(progress *p, double ms, const char *desc);
/* done of total binaries built. While p is begun, every bar on the line shows this count: the
 * compiles run under the measure bar, whose owner does not see them. */
void progress_compile(progress *p, size_t done, size_t total);
/* Clears the line so the next message starts on a clean one. */
void progress_end(progress *p);

/* The pure parts, for tests. */

/* Seconds left at the rate so far; -1 while unknown (nothing done yet). */
double progress_eta(size_t done, size_t total, double elapsed);

typedef struct {
	const char *label;          /* NULL: no stage count */
	size_t done, total;
	size_t compiled, to_compile; /* to_compile 0: no compile count */
	double elapsed, eta;        /* eta < 0: unknown, shown as "ETA --" */
	double best_ms;             /* < 0: none */
	const char *best, *note;    /* note: shown only without a best; NULL or "": nothing */
	double compile_rate;        /* binaries built per second so far; 0: not shown */
} progress_view;

/* Formats the line for a terminal `width` columns wide into buf (NUL-terminated): at most
 * width - 1 visible columns, because writing the last column wraps on some terminals; cut with
 * "..." when longer. Escape codes only with colour. Returns the visible columns. */
int progress_format(char *buf, size_t len, const progress_view *v, int width, int colour);

/* The width of the terminal on fd: TIOCGWINSZ, else $COLUMNS, else 80. */
int progress_width(int fd);

/* Whether fd may get escape codes: a terminal, NO_COLOR unset or empty (no-color.org), and TERM
 * not "dumb". Without them the line is redrawn with carriage returns and spaces alone. */
int progress_colour(int fd);

#endif
