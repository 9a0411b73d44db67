/* journal.c: an append-only text file, one record per line, each written with a single write()
 * and fsync'd. A torn last line (the process died inside write) is cut off on the next open.
 *   autotune-journal 1 KEY
 *   start I
 *   done I CODE STATUS MEDIAN MIN MAX SAMPLES DRIVER_BLOCKS NOISE BATCH MHZ_BEFORE MHZ_AFTER MESSAGE
 * CODE is the hash of the binary measured: a result is reused only for the same code.
 *   final I ROUNDS MEDIAN NOISE
 *   metrics I V0 V1 V2 V3 V4
 *   shares I J          (I was not measured: it is the same binary and launch as J)
 *   gpu I G             (I was measured on the run's GPU G, not the first)
 *   stopped I           (I was in flight when a signal from outside stopped its worker: not run)
 * MESSAGE runs to the end of the line, with backslash and newline escaped. */
#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "banned.h"

#define MAGIC "autotune-journal 1 "

struct journal {
	int fd;
	char *path;
	off_t header_end; /* nothing past it on close: no record to resume from, so no file left */
};

static int append(journal *j, const char *line)
{
	if (write_all(j->fd, line, strlen(line)))
		return -1;
	return fsync(j->fd) == 0 || errno == EINVAL ? 0 : -1;
}

static char *escape(const char *s)
{
	size_t n = 0;
	for (const char *p = s; *p; p++)
		n += (*p == '\\' || *p == '\n' || *p == '\r') ? 2 : 1;
	char *out = xmalloc(n + 1), *o = out;
	for (const char *p = s; *p; p++) {
		if (*p == '\\' || *p == '\n' || *p == '\r') {
			*o++ = '\\';
			*o++ = *p == '\\' ? '\\' : *p == '\n' ? 'n' : 'r';
		} else
			*o++ = *p;
	}
	*o = 0;
	return out;
}

static char *unescape(const char *s)
{
	char *out = xmalloc(strlen(s) + 1), *o = out;
	for (const char *p = s; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			*o++ = *p == 'n' ? '\n' : *p == 'r' ? '\r' : *p;
		} else
			*o++ = *p;
	}
	*o = 0;
	return out;
}

/* What a measurement that passed can hold: a record that says otherwise was damaged on disk (a
 * line that parses but reads "nan" or "-3"), and would steer the choice of a winner. */
static int plausible_times(const result *r)
{
	return isfinite(r->t_median) && isfinite(r->t_min) && isfinite(r->t_max) && r->t_min >= 0 &&
	       r->t_min <= r->t_median && r->t_median <= r->t_max && r->samples >= 1 && r->batch >= 1 && !(r->noise < 0);
}

/* Applies one record; unknown or malformed lines are ignored (a newer or damaged journal must
 * not stop a run: at worst a configuration is measured again). */
static void replay_line(const char *line, const space *sp, result *res, char *started)
{
	unsigned long long i;
	int used = 0;
	if (sscanf(line, "start %llu", &i) == 1 && i < sp->count) {
		started[i] = 1;
		return;
	}
	if (sscanf(line, "stopped %llu", &i) == 1 && i < sp->count) {
		started[i] = 0;
		return;
	}
	if (sscanf(line, "done %llu %n", &i, &used) == 1 && i < sp->count) {
		result *r = &res[i], x = *r; /* r changes only for a record that holds */
		char st[32];
		int more = 0;
		status s;
		if (sscanf(line + used, "%16s %31s %lf %lf %lf %d %d %lf %d %lf %lf %n", x.code, st, &x.t_median, &x.t_min,
			   &x.t_max, &x.samples, &x.driver_blocks, &x.noise, &x.batch, &x.mhz_before, &x.mhz_after,
			   &more) >= 11 &&
		    more && status_parse(st, &s) == 0 && (s != ST_OK || plausible_times(&x))) {
			*r = x; /* the same message pointer: result_set_message below frees it once */
			r->st = s;
			r->gpu = 0; /* a "gpu" record follows when another GPU measured it */
			result_set_message(r, line[used + more] ? unescape(line + used + more) : NULL);
			started[i] = 2;
		}
		return;
	}
	if (sscanf(line, "final %llu %n", &i, &used) == 1 && i < sp->count) {
		result *r = &res[i];
		int rounds;
		double median, noise;
		if (sscanf(line + used, "%d %lf %lf", &rounds, &median, &noise) == 3 && rounds > 0 && isfinite(median) &&
		    median > 0 && noise >= 0) {
			r->final_rounds = rounds;
			r->final_median = median;
			r->final_noise = noise;
		} else
			r->final_rounds = 0;
		return;
	}
	int gpu;
	if (sscanf(line, "gpu %llu %d", &i, &gpu) == 2 && i < sp->count && gpu >= 0) {
		res[i].gpu = gpu;
		return;
	}
	unsigned long long twin;
	if (sscanf(line, "shares %llu %llu", &i, &twin) == 2 && i < sp->count && twin < sp->count) {
		/* the twin's numbers are copied over once the replay is complete */
		res[i].shares_with = (long long)twin;
		started[i] = 3;
		return;
	}
	if (sscanf(line, "metrics %llu %n", &i, &used) == 1 && i < sp->count) {
		double *m = res[i].metrics;
		res[i].have_metrics = sscanf(line + used, "%lf %lf %lf %lf %lf", &m[0], &m[1], &m[2], &m[3], &m[4]) == 5;
	}
}

/* Reads the journal if its key matches; returns the length of its complete lines, or -1 when it
 * is absent, unreadable or for another key. started[i]: 1 in flight, 2 finished. */
static long replay(const char *path, const char *key, const space *sp, result *res, char *started,
		   journal_resume *resume)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long good = -1;
	if ((n = getline(&line, &cap, f)) > 0 && line[n - 1] == '\n' && !strncmp(line, MAGIC, strlen(MAGIC)) &&
	    !strncmp(line + strlen(MAGIC), key, strlen(key)) && line[strlen(MAGIC) + strlen(key)] == '\n') {
		good = n;
		while ((n = getline(&line, &cap, f)) > 0 && line[n - 1] == '\n') {
			line[n - 1] = 0;
			replay_line(line, sp, res, started);
			good += n;
		}
		for (size_t i = 0; i < sp->count; i++) {
			if (started[i] == 3) {
				/* shares a twin's measurement: valid once the twin's result is in */
				const result *t = &res[res[i].shares_with];
				if (started[res[i].shares_with] == 2) {
					res[i].st = t->st;
					resume->finished++;
				} else
					res[i].shares_with = -1;
				continue;
			}
			resume->finished += started[i] == 2;
			if (started[i] == 1) {
				res[i].st = ST_CRASHED;
				res[i].lost_in_flight = 1;
				result_set_message(&res[i], xstrdup("the tuner stopped while this configuration ran (an earlier run); "
								    "--retry-failed runs it again"));
				resume->in_flight++;
			}
		}
	} else
		resume->key_changed = 1;
	free(line);
	fclose(f);
	return good;
}

journal *journal_open(const char *path, const char *key, int fresh, const space *sp, result *res,
		      journal_resume *resume, diags *d)
{
	memset(resume, 0, sizeof *resume);
	char *started = xcalloc(sp->count, 1);
	long good = fresh ? -1 : replay(path, key, sp, res, started, resume);
	if (fresh)
		resume->key_changed = access(path, F_OK) == 0;
	journal *j = xcalloc(1, sizeof *j);
	j->path = xstrdup(path);
	j->fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (good < 0 ? O_TRUNC : 0), 0666);
	if (j->fd < 0 || (good >= 0 && (ftruncate(j->fd, good) || lseek(j->fd, 0, SEEK_END) < 0))) {
		diags_add(d, "cannot write the journal '%s': %s", path, strerror(errno));
		journal_close(j);
		free(started);
		return NULL;
	}
	char header[128];
	snprintf(header, sizeof header, "%s%s\n", MAGIC, key);
	if (good < 0 && append(j, header)) {
		diags_add(d, "cannot write the journal '%s': %s", path, strerror(errno));
		journal_close(j);
		free(started);
		return NULL;
	}
	j->header_end = (off_t)strlen(header);
	/* the crashes found on replay become records, so the next resume agrees */
	for (size_t i = 0; good >= 0 && i < sp->count; i++)
		if (started[i] == 1)
			journal_finished(j, i, &res[i]);
	free(started);
	return j;
}

int journal_started(journal *j, size_t config)
{
	char line[64];
	snprintf(line, sizeof line, "start %zu\n", config);
	return append(j, line);
}

int journal_finished(journal *j, size_t config, const result *r)
{
	char *msg = escape(r->message ? r->message : "");
	char *line = xasprintf("done %zu %s %s %.9g %.9g %.9g %d %d %.9g %d %.0f %.0f %s\n", config, r->code[0] ? r->code : "-",
			       status_name(r->st),
			       r->t_median, r->t_min, r->t_max, r->samples, r->driver_blocks, r->noise, r->batch,
			       r->mhz_before, r->mhz_after, msg);
	int rc = append(j, line);
	free(line);
	free(msg);
	return rc;
}

int journal_stopped(journal *j, size_t config)
{
	char line[64];
	snprintf(line, sizeof line, "stopped %zu\n", config);
	return append(j, line);
}

int journal_gpu(journal *j, size_t config, int gpu)
{
	char line[64];
	snprintf(line, sizeof line, "gpu %zu %d\n", config, gpu);
	return append(j, line);
}

int journal_final(journal *j, size_t config, const result *r)
{
	char line[160];
	snprintf(line, sizeof line, "final %zu %d %.9g %.9g\n", config, r->final_rounds, r->final_median, r->final_noise);
	return append(j, line);
}

int journal_shared(journal *j, size_t config, size_t twin)
{
	char line[96];
	snprintf(line, sizeof line, "shares %zu %zu\n", config, twin);
	return append(j, line);
}

int journal_metrics(journal *j, size_t config, const result *r)
{
	char line[256];
	const double *m = r->metrics;
	snprintf(line, sizeof line, "metrics %zu %.9g %.9g %.9g %.9g %.9g\n", config, m[0], m[1], m[2], m[3], m[4]);
	return append(j, line);
}

void journal_close(journal *j)
{
	if (!j)
		return;
	struct stat st;
	if (j->fd >= 0 && fstat(j->fd, &st) == 0 && st.st_size <= j->header_end)
		unlink(j->path);
	if (j->fd >= 0)
		close(j->fd);
	free(j->path);
	free(j);
}

/* What decides whether earlier results are this run's too: the config file (sizes, flags,
 * arguments), the compiler, the target, the kernel source and the GPU with its driver. Headers
 * the source includes are covered per result: each journaled result names the code it measured
 * (compile.c's hash of the binary) and is reused only for that same code. */
char *journal_run_key(const config *cfg, const char *identity, const char *arch, const device_info *gpu0, size_t ngpus)
{
	hasher *h = hasher_new();
	hasher_add_file(h, cfg->path);
	hasher_add_str(h, identity);
	hasher_add_str(h, arch);
	hasher_add_file(h, cfg->source);
	/* the first GPU, the driver, and how many GPUs of that model (a result names its GPU by
	 * position; the others are still starting, and must be the first one's model) */
	char drv[64];
	snprintf(drv, sizeof drv, "%d %zu", gpu0->driver_version, ngpus);
	hasher_add_str(h, gpu0->name);
	hasher_add_str(h, gpu0->uuid);
	hasher_add_str(h, drv);
	char *key = xmalloc(17);
	hasher_finish(h, key);
	return key;
}
