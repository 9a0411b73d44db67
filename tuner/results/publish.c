/* publish.c: a run's outputs in one order (publish.h). Each is written to a temporary name and
 * renamed by its writer, so a reader never sees half of one. */
#include "publish.h"

#include <stdlib.h>

#include "config.h"
#include "header.h"
#include "report.h"
#include "run_names.h"
#include "spec_files.h"
#include "t4.h"
#include "banned.h"

int publish(const publish_opts *p, published *out, diags *d)
{
	*out = (published){0};
	const config *cfg = p->cfg;
	out->csv = p->write_csv(p->ctx, p->csv, d) == 0;
	if (p->spec_hash)
		spec_files_keep(cfg, p->spec_hash, out->csv ? p->csv : NULL, p->b);
	if (!out->csv)
		return -1;
	if (p->part)
		return 0;
	char *csv = (char *)p->csv; /* header_write takes a list of CSVs; it changes none */
	out->header = p->winner && header_write(&csv, 1, cfg->name, cfg->header_path, d) == 0;
	out->report = report_write(p->csv, NULL, NULL, d) == 0;
	int t4_ok = 1;
	if (p->t4) {
		char *t4 = run_name(p->csv, RUN_FILE_T4);
		t4_ok = t4_write(p->csv, t4, d) == 0;
		if (t4_ok)
			out->t4 = t4;
		else
			free(t4);
	}
	return (p->winner && !out->header) || !out->report || !t4_ok ? -1 : 0;
}
