/* progress.h: a one-line progress bar on stderr, drawn only when stderr is a terminal. */
#ifndef AUTOTUNE_PROGRESS_H
#define AUTOTUNE_PROGRESS_H

#include <stddef.h>

typedef struct {
	int enabled;
	const char *label;
	size_t total;
	double started;
} progress;

void progress_begin(progress *p, int enabled, const char *label, size_t total);
void progress_update(progress *p, size_t done, const char *note);
/* Clears the bar so the next message starts on a clean line. */
void progress_end(progress *p);

#endif
