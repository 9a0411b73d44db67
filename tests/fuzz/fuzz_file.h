/* fuzz_file.h: the harnesses' one shared step: autotune reads files, not buffers, so each input
 * goes to a file of this process's own first. */
#ifndef AUTOTUNE_FUZZ_FILE_H
#define AUTOTUNE_FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

/* Writes data to /tmp/autotune-fuzz-PID.EXT; its path (overwritten by the next call), or NULL. */
static inline const char *fuzz_file(const char *ext, const uint8_t *data, size_t size)
{
	static char path[64];
	snprintf(path, sizeof path, "/tmp/autotune-fuzz-%ld.%s", (long)getpid(), ext);
	FILE *f = fopen(path, "wb");
	if (!f)
		return NULL;
	fwrite(data, 1, size, f);
	fclose(f);
	return path;
}

#endif
