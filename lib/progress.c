/* progress.c: the status line on stderr. Results never go here; only humans read it. */
#include "progress.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "proc.h"
#include "banned.h"

#define GREEN "\033[32m"
#define RESET "\033[0m"
/* bytes kept back in a format buffer so that a colour opened can always be reset */
#define RESERVE (sizeof RESET + 4)
/* wider terminals get this many columns: the line never needs more */
#define MAX_WIDTH 400

/* There is one line on the terminal however many bars are begun: which one is on it, which one
 * counts compiles, and how much of the line the last draw covered (to blank it without escape
 * codes). */
static struct {
	const progress *shown;
	const progress *compiles;
	int cols;
} line;

double progress_eta(size_t done, size_t total, double elapsed)
{
	if (done >= total)
		return 0;
	if (done == 0 || elapsed <= 0)
		return -1;
	return elapsed / (double)done * (double)(total - done);
}

int progress_width(int fd)
{
	/* the terminal first: it follows a resize during a long run, an exported COLUMNS does not */
	struct winsize ws;
	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	const char *c = getenv("COLUMNS");
	if (c && *c) {
		char *end;
		long v = strtol(c, &end, 10);
		if (!*end && v > 0 && v <= 100000)
			return (int)v;
	}
	return 80;
}

int progress_colour(int fd)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
	return isatty(fd) && !(no && *no) && !(term && !strcmp(term, "dumb"));
}

/* Appends to a line with a budget of visible columns; UTF-8 continuation bytes take none. */
typedef struct {
	char *buf;
	size_t len, cap;
	int cols, max;
	int full, colour, any;
} line_writer;

static int continuation(char c) { return ((unsigned char)c & 0xC0) == 0x80; }

static void raw(line_writer *w, const char *s)
{
	size_t n = strlen(s);
	if (w->len + n < w->cap) {
		memcpy(w->buf + w->len, s, n + 1);
		w->len += n;
	}
}

/* Text in an optional colour, cut with "..." where the budget ends; nothing more fits after. */
static void put(line_writer *w, const char *text, const char *sgr)
{
	if (w->full || !text || !*text)
		return;
	int columns = 0;
	for (const char *s = text; *s; s++)
		columns += !continuation(*s);
	int room = w->cols + columns <= w->max ? columns : w->max - w->cols - 3;
	int opened = w->colour && sgr && w->len + strlen(sgr) + RESERVE < w->cap;
	if (opened)
		raw(w, sgr);
	const char *s = text;
	while (*s && room > 0) {
		size_t n = 1;
		while (continuation(s[n]))
			n++;
		if (w->len + n + RESERVE >= w->cap)
			break;
		for (size_t i = 0; i < n; i++) {
			/* a control character would move the cursor off the line */
			unsigned char c = (unsigned char)s[i];
			w->buf[w->len++] = n == 1 && (c < 0x20 || c == 0x7f) ? '?' : s[i];
		}
		s += n;
		w->cols++;
		room--;
	}
	w->buf[w->len] = 0;
	if (*s) {
		while (w->cols < w->max && w->len + 1 + RESERVE < w->cap) {
			w->buf[w->len++] = '.';
			w->cols++;
		}
		w->buf[w->len] = 0;
		w->full = 1;
	}
	if (opened)
		raw(w, RESET);
}

static void segment(line_writer *w, const char *text, const char *sgr)
{
	if (w->any)
		put(w, "  ", NULL);
	put(w, text, sgr);
	w->any = 1;
}

static void duration(double s, char *buf, size_t len)
{
	if (s < 0) {
		snprintf(buf, len, "--");
		return;
	}
	if (s >= 100 * 3600.0) {
		snprintf(buf, len, ">99h");
		return;
	}
	long long t = (long long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, len, "%lld:%02lld:%02lld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%lld:%02lld", t / 60, t % 60);
}

int progress_format(char *buf, size_t len, const progress_view *v, int width, int colour)
{
	if (!len)
		return 0;
	buf[0] = 0;
	if (width > MAX_WIDTH)
		width = MAX_WIDTH;
	line_writer w = {.buf = buf, .cap = len, .max = width > 1 ? width - 1 : 0, .colour = colour};
	char text[128], t[64];
	if (v->to_compile) {
		if (v->compile_rate > 0)
			snprintf(text, sizeof text, "compile %zu/%zu (%.*f/s)", v->compiled, v->to_compile,
				 v->compile_rate < 10 ? 1 : 0, v->compile_rate);
		else
			snprintf(text, sizeof text, "compile %zu/%zu", v->compiled, v->to_compile);
		segment(&w, text, NULL);
	}
	if (v->label) {
		snprintf(text, sizeof text, "%s %zu/%zu", v->label, v->done, v->total);
		segment(&w, text, NULL);
	}
	duration(v->elapsed, t, sizeof t);
	snprintf(text, sizeof text, "elapsed %s", t);
	segment(&w, text, NULL);
	duration(v->eta, t, sizeof t);
	snprintf(text, sizeof text, "ETA %s", t);
	segment(&w, text, NULL);
	if (v->best_ms >= 0) {
		segment(&w, "best ", NULL);
		snprintf(text, sizeof text, "%.4f ms", v->best_ms);
		put(&w, text, GREEN);
		if (v->best && *v->best) {
			put(&w, " ", NULL);
			put(&w, v->best, NULL);
		}
	} else if (v->note && *v->note)
		segment(&w, v->note, NULL);
	return w.cols;
}

static void draw(const progress *p)
{
	if (!p->enabled)
		return;
	const progress *cb = line.compiles;
	/* a finished count says nothing on a stage of its own, and the line is short */
	int counts = cb && (!p->label || cb->compiled < cb->to_compile);
	double now = now_seconds(), own = now - p->started;
	/* elapsed is the run's: the compile bar, when there is one, began with it */
	double elapsed = cb && cb->started < p->started ? now - cb->started : own;
	progress_view v = {.label = p->label, .done = p->done, .total = p->total, .compiled = counts ? cb->compiled : 0,
			   .to_compile = counts ? cb->to_compile : 0, .elapsed = elapsed, .eta = -1, .best_ms = p->best_ms,
			   .best = p->best, .note = p->note};
	/* the ETA from this stage's own rate; a bar without a stage is waiting for compiles. While
	 * compiles still run, a stage that waits on them ends no sooner than they do. */
	double since = counts ? now - cb->started : 0;
	double compile_eta = v.to_compile ? progress_eta(v.compiled, v.to_compile, since) : -1;
	v.eta = p->label ? progress_eta(p->done, p->total, own) : compile_eta;
	if (v.eta >= 0 && compile_eta > v.eta)
		v.eta = compile_eta;
	v.compile_rate = v.compiled && since > 0 ? (double)v.compiled / since : 0;
	char buf[MAX_WIDTH * 4 + 64];
	int cols = progress_format(buf, sizeof buf, &v, progress_width(STDERR_FILENO), p->colour);
	if (p->colour)
		fprintf(stderr, "\r\033[K%s", buf);
	else
		fprintf(stderr, "\r%s%*s", buf, line.cols > cols ? line.cols - cols : 0, "");
	fflush(stderr);
	line.cols = cols;
	line.shown = p;
}

/* The line is shared by every bar and drawn from several threads (GPU lanes, and the compile pool
 * waited on by whichever lane needs a binary): every public call below holds this. */
static pthread_mutex_t line_lock = PTHREAD_MUTEX_INITIALIZER;

void progress_begin(progress *p, int enabled, const char *label, size_t total)
{
	pthread_mutex_lock(&line_lock);
	memset(p, 0, sizeof *p);
	p->enabled = enabled && isatty(STDERR_FILENO);
	p->colour = p->enabled && progress_colour(STDERR_FILENO);
	p->label = label;
	p->total = total;
	p->started = now_seconds();
	p->best_ms = -1;
	draw(p);
	pthread_mutex_unlock(&line_lock);
}

void progress_update(progress *p, size_t done, const char *note)
{
	pthread_mutex_lock(&line_lock);
	p->done = done;
	if (note)
		snprintf(p->note, sizeof p->note, "%s", note);
	draw(p);
	pthread_mutex_unlock(&line_lock);
}

void progress_best(progress *p, double ms, const char *desc)
{
	pthread_mutex_lock(&line_lock);
	if (ms >= 0 && (p->best_ms < 0 || ms < p->best_ms)) {
		p->best_ms = ms;
		snprintf(p->best, sizeof p->best, "%s", desc ? desc : "");
	}
	pthread_mutex_unlock(&line_lock);
}

void progress_compile(progress *p, size_t done, size_t total)
{
	pthread_mutex_lock(&line_lock);
	p->compiled = done;
	p->to_compile = total;
	if (p->enabled) {
		line.compiles = p;
		draw(line.shown ? line.shown : p);
	}
	pthread_mutex_unlock(&line_lock);
}

void progress_end(progress *p)
{
	pthread_mutex_lock(&line_lock);
	if (line.compiles == p)
		line.compiles = NULL;
	if (line.shown == p) {
		if (p->colour)
			fputs("\r\033[K", stderr);
		else
			fprintf(stderr, "\r%*s\r", line.cols, "");
		fflush(stderr);
		line.shown = NULL;
		line.cols = 0;
	}
	pthread_mutex_unlock(&line_lock);
}
