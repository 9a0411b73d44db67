/* progress.c: the terminal progress bar. Results never go here; only humans read it. */
#include "progress.h"

#include <stdio.h>
#include <unistd.h>

#include "proc.h"
#include "banned.h"

#define BAR_WIDTH 30

void progress_begin(progress *p, int enabled, const char *label, size_t total)
{
	p->enabled = enabled && isatty(STDERR_FILENO);
	p->label = label;
	p->total = total;
	p->started = now_seconds();
	progress_update(p, 0, NULL);
}

void progress_update(progress *p, size_t done, const char *note)
{
	if (!p->enabled)
		return;
	int fill = p->total ? (int)(BAR_WIDTH * done / p->total) : BAR_WIDTH;
	char bar[BAR_WIDTH + 1];
	for (int i = 0; i < BAR_WIDTH; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[BAR_WIDTH] = 0;
	fprintf(stderr, "\r\033[K%-8s [%s] %zu/%zu %5.1fs %.40s", p->label, bar, done, p->total,
		now_seconds() - p->started, note ? note : "");
	fflush(stderr);
}

void progress_end(progress *p)
{
	if (!p->enabled)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
}
