/* inputs.h: the files a tuning run of a config reads, for the commands that write files to
 * refuse an output path that is one of them. */
#ifndef AUTOTUNE_INPUTS_H
#define AUTOTUNE_INPUTS_H

#include <stddef.h>

#include "diag.h"

typedef struct config config;

typedef struct {
	char *path;
	const char *what; /* "the kernel source", "a data file", ...: for messages */
} input_file;

typedef struct {
	input_file *items;
	size_t n, cap;
} inputs;

/* The config, the kernel source, the headers it includes with `#include "..."` (found beside
 * the including file or in the build's -I directories, followed into their own includes), the
 * data and expected files, and verify.host's source. inputs_free lets go. */
void inputs_of(const config *cfg, inputs *in);
void inputs_free(inputs *in);
/* The input that path names (the same file, or the same path where it does not exist), or NULL. */
const input_file *inputs_find(const inputs *in, const char *path);

/* Whether `out` may be written (out_name says what it is, for messages): refused when it is an
 * input of the config at config_path (NULL or "": unknown, as a results file from elsewhere may
 * name one that does not load here) or that config's journal, or when a file is there whose first
 * 4 kB lack `signature` (NULL: not checked), so not one autotune wrote. 0, or -1 with the reason
 * in d. */
int inputs_check_output(const char *config_path, const char *out, const char *out_name, const char *signature,
			diags *d);

#endif
