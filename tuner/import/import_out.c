/* import_out.c: where `autotune import` writes its config, and whether what it wrote is one. */
#include "import_out.h"

#include <stdio.h>
#include <string.h>

#include "config.h"
#include "space.h"
#include "banned.h"

/* Strings of the spec are copied as they are (a value list, an expression), so only the loader
 * can tell whether they mean something: the written config is checked as `validate` checks it
 * (loaded, its space enumerated, every launch evaluated) before anyone tunes it, and kept when it
 * fails, since the messages point into it. */
static int check_written(const char *json_path, const char *yaml_path, diags *d)
{
	config cfg;
	space sp;
	diags ld = {0}, warnings = {0};
	int rc = config_load(yaml_path, &cfg, &ld);
	if (rc == 0) {
		warnings = cfg.warnings; /* the loader's, kept past the config's life */
		cfg.warnings = (diags){0};
		rc = space_enumerate_sampled(&cfg, &sp, &ld);
		if (rc == 0) {
			rc = space_check_geometry(&cfg, &sp, &ld);
			if (rc == 0 && sp.sampled)
				diags_add(d, "%s: note: the space has %s%llu valid configurations, more than can be listed: a run "
					  "with --budget N (or Ns) searches a uniform sample of %zu of them", yaml_path,
					  sp.valid_over ? "over " : "", sp.valid, sp.count);
			space_free(&sp);
		}
		config_free(&cfg);
	}
	for (size_t i = 0; rc == 0 && i < warnings.n; i++) /* with the notes, for the caller to show */
		diags_add(d, "%s", warnings.msgs[i]);
	diags_free(&warnings);
	if (rc) {
		diags_add(d, "%s: imported from %s, but it is not a valid config: fix the spec and import again, or "
			  "fix this file", yaml_path, json_path);
		for (size_t i = 0; i < ld.n; i++)
			diags_add(d, "%s", ld.msgs[i]);
	}
	diags_free(&ld);
	return rc ? -1 : 0;
}

/* Whether yaml_path, which is none of the spec's inputs, may receive the config: absent, empty or a
 * config an earlier import wrote (importing again after fixing the spec replaces it). */
static int check_output(const char *yaml_path, diags *d)
{
	FILE *f = fopen(yaml_path, "rb");
	if (!f)
		return 0; /* absent; anything else write_output says */
	char head[sizeof IMPORT_MARK] = "";
	size_t n = fread(head, 1, sizeof head - 1, f);
	fclose(f);
	if (n == 0 || !strcmp(head, IMPORT_MARK))
		return 0;
	diags_add(d, "cannot write the config to '%s': the file exists and is not a config that autotune import "
		  "wrote (whose first line says so); remove it or give another with -o", yaml_path);
	return -1;
}

int import_write(const char *json_path, const char *yaml_path, const char *text, size_t len, diags *d)
{
	if (check_output(yaml_path, d) || write_output(yaml_path, text, len, d))
		return -1;
	return check_written(json_path, yaml_path, d);
}
