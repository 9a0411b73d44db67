/* journal.c: an append-only text file, one record per line, each written with a single write()
 * and fsync'd. A torn last line (the process died inside write) is cut off on the next open.
 *   autotune-journal 1 KEY
 *   inputs config=H kernel=H data=H compiler=H target=H gpu=H   (what KEY is the hash of, part by part)
 *   config PATH         (the config file the results belong to, absolute)
 *   start I
 *   done I CODE STATUS MEDIAN MIN MAX SAMPLES DRIVER_BLOCKS NOISE BATCH MHZ_BEFORE MHZ_AFTER MESSAGE
 * CODE is the hash of the binary measured: a result is reused only for the same code.
 *   final I ROUNDS MEDIAN NOISE
 *   metrics I V0 V1 V2 V3 V4
 *   shares I J          (I was not measured: it is the same binary and launch as J)
 *   gpu I G             (I was measured on the run's GPU G, not the first)
 *   stopped I           (I was in flight when a signal from outside stopped its worker: not run)
 *   compiled I SECONDS  (I's binary took nvcc SECONDS: its compile time, kept for resumed runs)
 *   plan I CONNECTIONS SERIAL_MS  (after I's "done", in the same write: a plan's worker had
 *                       CUDA_DEVICE_MAX_CONNECTIONS=CONNECTIONS; its launches one at a time took
 *                       SERIAL_MS)
 *   ident I IDENT       (after I's "done", in the same write: what decided the measurement,
 *                       plan_identity)
 *   kept IDENT RECORD   (a measurement of an earlier run, by its identity rather than its
 *                       configuration: RECORD is a "done", "plan", "gpu" or "metrics" record of
 *                       configuration 0. Written after the header when the key changed, from
 *                       the old journal's identified results, so that an edit that leaves a
 *                       configuration's binary and inputs as they were does not measure it again)
 * MESSAGE runs to the end of the line, with backslash and newline escaped. "done" and "metrics"
 * are the worker's replies with the configuration in front (protocol.h's PROTO_DONE and
 * PROTO_METRICS_OF); the other records are described here, and all of them go through the
 * protocol's one encoder and decoder. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "hash.h"
#include "protocol.h"
#include "reuse.h"
#include "banned.h"

#define MAGIC "autotune-journal 1 "

/* The journal's own records: a configuration and at most one more number each. */
typedef struct {
	long long config, other;
	double median, noise; /* final */
} record;
static const proto_field one_f[] = {PROTO_LL(record, config)};
static const proto_field two_f[] = {PROTO_LL(record, config), PROTO_LL(record, other)};
static const proto_field final_f[] = {PROTO_LL(record, config), PROTO_LL(record, other), PROTO_DBL(record, median, "%.9g"),
				      PROTO_DBL(record, noise, "%.9g")};
static PROTO_MSG(START, "start", one_f);
static PROTO_MSG(STOPPED, "stopped", one_f);
static PROTO_MSG(GPU, "gpu", two_f);
static PROTO_MSG(SHARES, "shares", two_f);
static PROTO_MSG(FINAL, "final", final_f); /* other: the rounds */
static const proto_field plan_f[] = {PROTO_LL(record, config), PROTO_LL(record, other), PROTO_DBL(record, median, "%.6f")};
static PROTO_MSG(PLAN, "plan", plan_f); /* other: the connections, median: the serial time */
static const proto_field compiled_f[] = {PROTO_LL(record, config), PROTO_DBL(record, median, "%.3f")};
static PROTO_MSG(COMPILED, "compiled", compiled_f); /* median: the seconds */
typedef struct {
	long long config;
	const char *ident;
} ident_record;
static const proto_field ident_f[] = {PROTO_LL(ident_record, config), PROTO_WORD(ident_record, ident)};
static PROTO_MSG(IDENT, "ident", ident_f);
#define KEPT "kept "
#define IDENT_LEN 16

struct journal {
	int fd;
	char *path;
	int lock_fd;      /* PATH.lock, flock'd for the run, holding its pid */
	char *lock_path;
	off_t header_end; /* nothing past it on close: no record to resume from, so no file left */
	int err;          /* the errno of the first append that failed, 0 while none has */
	int err_in_sync;  /* and whether it was the fsync (the data written, not kept) */
	/* the last record while it is a "start": a result that cannot be journaled takes it back,
	 * so that the configuration is measured again rather than taken for a crash */
	long long last_start;
	off_t last_start_at;
	reuse_store *kept; /* the measurements earlier runs made, by identity */
};

/* A record that cannot be kept whole is taken back (shrinking a file needs no room), so that
 * what follows is not spliced onto half a line. */
static int append(journal *j, const char *line)
{
	off_t end = lseek(j->fd, 0, SEEK_END);
	int sync = 0;
	j->last_start = -1;
	if (write_all(j->fd, line, strlen(line)) == 0) {
		sync = 1;
		if (fsync(j->fd) == 0 || errno == EINVAL)
			return 0;
	}
	int e = errno;
	if (end >= 0 && ftruncate(j->fd, end) == 0)
		lseek(j->fd, end, SEEK_SET);
	if (!j->err) {
		j->err = e;
		j->err_in_sync = sync;
	}
	errno = e;
	return -1;
}

char *journal_failure(const journal *j)
{
	if (!j->err)
		return NULL;
	/* only a full disk or quota is a matter of room; an I/O error is the disk's or the filesystem's */
	const char *hint = j->err == ENOSPC || j->err == EDQUOT   ? "the disk is full"
			   : j->err == EIO                          ? "an I/O error: the disk or its filesystem is failing"
			   : j->err == EFBIG                        ? "the file size limit (ulimit -f) is reached"
								    : NULL;
	return xasprintf("%s the journal '%s' failed: %s%s%s%s", j->err_in_sync ? "syncing" : "writing", j->path,
			 strerror(j->err), hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
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
	       r->t_min <= r->t_median && r->t_median <= r->t_max && r->samples >= 1 && r->batch >= 1 &&
	       !(r->noise < 0) && r->noise != INFINITY;
}

/* A clock reading: unknown (nan, 0) or a frequency some GPU could have. */
static int plausible_mhz(double mhz) { return isnan(mhz) || (mhz >= 0 && mhz < 1e5); }

/* The counters as the worker reports them: nan where one is not available, the percentages in
 * [0, 100] (DRAM throughput, a ratio to a nominal peak, a little over), the load throughput a
 * finite rate. A damaged "metrics" record (1e300, inf, 140% occupancy) would change the pick of
 * select.c's model and what the report says. */
static int plausible_metrics(const double *v)
{
	static const double most[METRIC_COUNT] = {[METRIC_ACHIEVED_OCCUPANCY] = 100, [METRIC_GLD_EFFICIENCY] = 100,
						  [METRIC_GLD_THROUGHPUT] = 1e15, [METRIC_DRAM_PCT] = 105,
						  [METRIC_BRANCH_EFFICIENCY] = 100};
	for (int i = 0; i < METRIC_COUNT; i++)
		if (!isnan(v[i]) && !(v[i] >= 0 && v[i] <= most[i]))
			return 0;
	return 1;
}

/* A "done" record into x (a copy of the configuration's result): 0 when it holds. */
static int take_done(const proto_result *got, result *x)
{
	status s;
	if (strlen(got->code) >= sizeof x->code || status_parse(got->status, &s))
		return -1;
	snprintf(x->code, sizeof x->code, "%s", got->code);
	x->st = s;
	x->t_median = got->median;
	x->t_min = got->min;
	x->t_max = got->max;
	x->samples = (int)got->samples;
	x->driver_blocks = (int)got->driver_blocks;
	x->noise = got->noise;
	x->batch = (int)got->batch;
	x->mhz_before = got->mhz_before;
	x->mhz_after = got->mhz_after;
	/* only a configuration that was in flight when an earlier tuner died is journaled crashed
	 * without the code it ran (journal_start): still not a measurement, so still not measured
	 * again without --retry-failed, as its message says */
	x->lost_in_flight = s == ST_CRASHED && !strcmp(got->code, "-");
	if (got->samples < 0 || got->samples > INT_MAX || got->batch < 0 || got->batch > INT_MAX ||
	    got->driver_blocks < -1 || got->driver_blocks > INT_MAX || !plausible_mhz(x->mhz_before) ||
	    !plausible_mhz(x->mhz_after))
		return -1;
	return s != ST_OK || plausible_times(x) ? 0 : -1;
}

/* The configuration a record names (its first field), or -1. */
static long long record_config(const char *line)
{
	const char *p = line + strcspn(line, " ");
	char *end;
	long long i = *p ? strtoll(p + 1, &end, 10) : -1;
	return *p && end > p + 1 && (*end == ' ' || !*end) ? i : -1;
}

/* Applies one record; unknown or malformed lines are ignored (a newer or damaged journal must
 * not stop a run: at worst a configuration is measured again). line is split in place. A record
 * that parses but holds values no measurement can have is not applied: what was wrong, in words
 * (static), else NULL. */
static const char *replay_line(char *line, const space *sp, result *res, char *started)
{
	record rec;
	proto_result done;
	proto_metrics m;
	long long n = (long long)sp->count;
#define IN_SPACE(i) ((i) >= 0 && (i) < n)
	if (proto_decode(&START, line, &rec) == 0 && IN_SPACE(rec.config))
		started[rec.config] = 1;
	else if (proto_decode(&STOPPED, line, &rec) == 0 && IN_SPACE(rec.config))
		started[rec.config] = 0;
	else if (proto_decode(&PROTO_DONE, line, &done) == 0 && IN_SPACE(done.id)) {
		result *r = &res[done.id], x = *r; /* r changes only for a record that holds */
		if (take_done(&done, &x)) {
			/* the message pointer is r's own: x holds nothing to free */
			return "a result with impossible times, counts or clocks";
		}
		*r = x; /* the same message pointer: result_set_message below frees it once */
		r->gpu = 0; /* a "gpu" record follows when another GPU measured it */
		r->ident[0] = 0; /* and an "ident" record when its identity is known */
		result_set_message(r, *done.message ? unescape(done.message) : NULL);
		started[done.id] = 2;
	} else if (proto_is(&FINAL, line)) {
		/* a damaged record still names its configuration: its finalist rounds are then gone */
		long long i = record_config(line);
		if (!IN_SPACE(i))
			return NULL;
		result *r = &res[i];
		if (proto_decode(&FINAL, line, &rec) == 0 && rec.other > 0 && rec.other <= INT_MAX &&
		    isfinite(rec.median) && rec.median > 0 && rec.noise >= 0 && isfinite(rec.noise)) {
			r->final_rounds = (int)rec.other;
			r->final_median = rec.median;
			r->final_noise = rec.noise;
		} else {
			r->final_rounds = 0;
			return "finalist rounds with an impossible time or count";
		}
	} else if (proto_decode(&PLAN, line, &rec) == 0 && IN_SPACE(rec.config)) {
		/* the run's key holds the connections a plan without its own gets: they agree */
		if (!isfinite(rec.median) || rec.median < 0)
			return "a plan's serial time that is not a time";
		/* (an earlier measurement's, connections < 0, takes them: they are part of its identity) */
		if (res[rec.config].connections < 0)
			res[rec.config].connections = (int)rec.other;
		if (rec.other == res[rec.config].connections)
			res[rec.config].serial_ms = rec.median;
	} else if (proto_decode(&COMPILED, line, &rec) == 0 && IN_SPACE(rec.config)) {
		if (isfinite(rec.median) && rec.median > 0)
			res[rec.config].compile_s = rec.median;
	} else if (proto_is(&IDENT, line)) {
		ident_record id;
		if (proto_decode(&IDENT, line, &id) == 0 && IN_SPACE(id.config) && strlen(id.ident) == IDENT_LEN &&
		    strspn(id.ident, "0123456789abcdef") == IDENT_LEN)
			memcpy(res[id.config].ident, id.ident, IDENT_LEN + 1);
	} else if (proto_decode(&GPU, line, &rec) == 0 && IN_SPACE(rec.config) && rec.other >= 0 && rec.other <= INT_MAX)
		res[rec.config].gpu = (int)rec.other;
	else if (proto_decode(&SHARES, line, &rec) == 0 && IN_SPACE(rec.config) && IN_SPACE(rec.other)) {
		/* the twin's numbers are copied over once the replay is complete */
		res[rec.config].shares_with = rec.other;
		started[rec.config] = 3;
	} else if (proto_is(&PROTO_METRICS_OF, line)) {
		long long i = record_config(line); /* likewise: its counters are then gone */
		if (IN_SPACE(i)) {
			res[i].have_metrics = proto_decode(&PROTO_METRICS_OF, line, &m) == 0 && m.id == i;
			if (res[i].have_metrics && !plausible_metrics(m.v)) {
				res[i].have_metrics = 0;
				return "counter values out of their range (a percentage over 100, a negative or "
				       "infinite value)";
			}
			if (res[i].have_metrics)
				memcpy(res[i].metrics, m.v, sizeof m.v);
		}
	}
#undef IN_SPACE
	return NULL;
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
		long lineno = 1;
		while ((n = getline(&line, &cap, f)) > 0 && line[n - 1] == '\n') {
			line[n - 1] = 0;
			lineno++;
			const char *why = replay_line(line, sp, res, started);
			if (why)
				fprintf(stderr, "autotune: %s:%ld: %s: record ignored (damaged on disk?)\n", path, lineno,
					why);
			good += n;
		}
		/* A "done" cut short: the measurement finished and the tuner died writing it down. The
		 * configuration did nothing wrong: it is measured again, not taken for a crash. */
		long long torn = n > 0 && proto_is(&PROTO_DONE, line) ? record_config(line) : -1;
		if (torn >= 0 && (size_t)torn < sp->count && started[torn] == 1)
			started[torn] = 0;
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

/* ---- earlier measurements by identity (reuse.c keeps them) ---- */

/* A "kept IDENT RECORD" line into the store: a "done" starts an entry, the other records add to
 * the last one of that identity. */
static void kept_line(char *line, reuse_store *s, size_t order)
{
	char *ident = line + strlen(KEPT), *rec = ident + IDENT_LEN;
	if (strlen(ident) <= IDENT_LEN || strspn(ident, "0123456789abcdef") != IDENT_LEN || *rec != ' ')
		return;
	*rec++ = 0;
	reuse_entry *e = proto_is(&PROTO_DONE, rec) ? reuse_add(s, ident, order) : reuse_last(s, ident);
	if (!e)
		return;
	space one = {.count = 1};
	replay_line(rec, &one, &e->r, &e->state);
	memcpy(e->r.ident, e->ident, sizeof e->ident);
}

/* The journal at path's complete lines after its header, or NULL when it is no journal. */
static char **journal_lines(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *line = NULL, **lines = NULL;
	size_t cap = 0, linecap = 0;
	ssize_t got;
	*n = 0;
	int ok = (got = getline(&line, &cap, f)) > 0 && !strncmp(line, MAGIC, strlen(MAGIC));
	while (ok && (got = getline(&line, &cap, f)) > 0 && line[got - 1] == '\n') {
		line[got - 1] = 0;
		if (*n == linecap) {
			linecap = linecap ? 2 * linecap : 256;
			lines = xrealloc(lines, linecap * sizeof *lines);
		}
		lines[(*n)++] = xstrdup(line);
	}
	free(line);
	fclose(f);
	return lines;
}

/* A configuration's replayed result r, when it has an identity, into the store (taking its
 * message), read at order; r is left without it. */
static void keep_result(reuse_store *s, result *r, char *state, size_t order)
{
	if (!r->ident[0] || *state != 2)
		return;
	reuse_entry *e = reuse_add(s, r->ident, order);
	e->r = *r;
	e->state = *state;
	r->message = NULL;
	r->ident[0] = 0;
}

static int by_value(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

/* The configurations the records of lines name, sorted, each once; *m: how many. */
static long long *configs_named(char **lines, size_t n, size_t *m)
{
	long long *ids = xcalloc(n + 1, sizeof *ids);
	*m = 0;
	for (size_t k = 0; k < n; k++) {
		long long i = strncmp(lines[k], KEPT, strlen(KEPT)) ? record_config(lines[k]) : -1;
		if (i >= 0)
			ids[(*m)++] = i;
	}
	qsort(ids, *m, sizeof *ids, by_value);
	size_t u = 0;
	for (size_t k = 0; k < *m; k++)
		if (!u || ids[u - 1] != ids[k])
			ids[u++] = ids[k];
	*m = u;
	return ids;
}

/* The record line with its configuration renumbered to slot: the old space's indexes can be
 * anything (a search's in a large space, a damaged record's), the slots are as many as named. */
static char *renumbered(const char *line, size_t slot)
{
	size_t kw = strcspn(line, " ");
	const char *rest = line + kw + 1 + strspn(line + kw + 1, "-0123456789");
	return xasprintf("%.*s %zu%s", (int)kw, line, slot, rest);
}

/* The measurements the journal at path holds, whatever its key: its "kept" records, and its
 * configurations' identified results (whose indexes may mean other configurations now). */
static reuse_store *load_kept(const char *path)
{
	reuse_store *s = reuse_new();
	size_t n = 0, m;
	char **lines = journal_lines(path, &n);
	long long *ids = configs_named(lines, n, &m);
	space old = {.count = m};
	result *res = xcalloc(m + 1, sizeof *res);
	char *started = xcalloc(m + 1, 1);
	for (size_t i = 0; i < m; i++)
		res[i].connections = -1; /* taken from a "plan" record */
	for (size_t k = 0; k < n; k++) {
		long long i = record_config(lines[k]);
		const long long *at = i >= 0 ? bsearch(&i, ids, m, sizeof *ids, by_value) : NULL;
		if (!strncmp(lines[k], KEPT, strlen(KEPT)))
			kept_line(lines[k], s, k);
		else if (at) {
			size_t slot = (size_t)(at - ids);
			/* a configuration measured again (its header edited, say): the earlier
			 * measurement is kept too, for an edit taken back */
			if (proto_is(&PROTO_DONE, lines[k]) || proto_is(&START, lines[k]))
				keep_result(s, &res[slot], &started[slot], k);
			char *line = renumbered(lines[k], slot);
			replay_line(line, &old, res, started);
			free(line);
		}
		free(lines[k]);
	}
	free(lines);
	free(ids);
	/* the configurations' after the kept ones: later, they win */
	for (size_t i = 0; i < m; i++) {
		keep_result(s, &res[i], &started[i], n + i);
		free(res[i].message);
	}
	free(res);
	free(started);
	reuse_settle(s);
	return s;
}

/* One record of configuration 0 as a "kept" line of identity ident, onto out. */
static void put_kept(FILE *out, const char *ident, const proto_msg *m, const void *msg)
{
	char *body = proto_encode(m, msg);
	if (!body)
		diag_out_of_memory();
	fprintf(out, KEPT "%s %s\n", ident, body);
	free(body);
}

/* The kept measurements as "kept" records, for a journal started afresh. Caller frees. */
static char *kept_lines(const reuse_store *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	if (!out)
		diag_out_of_memory();
	for (size_t k = 0; k < reuse_count(s); k++) {
		const reuse_entry *e = reuse_at(s, k);
		const result *r = &e->r;
		char *msg = escape(r->message ? r->message : "");
		proto_result done = {.id = 0, .code = r->code[0] ? r->code : "-", .status = status_name(r->st),
				     .median = r->t_median, .min = r->t_min, .max = r->t_max, .samples = r->samples,
				     .driver_blocks = r->driver_blocks, .noise = r->noise, .batch = r->batch,
				     .mhz_before = r->mhz_before, .mhz_after = r->mhz_after, .message = msg};
		put_kept(out, e->ident, &PROTO_DONE, &done);
		free(msg);
		if (r->serial_ms > 0)
			put_kept(out, e->ident, &PLAN, &(record){0, r->connections, r->serial_ms, 0});
		if (r->gpu)
			put_kept(out, e->ident, &GPU, &(record){0, r->gpu, 0, 0});
		if (r->have_metrics) {
			proto_metrics pm = {0, {0}};
			memcpy(pm.v, r->metrics, sizeof pm.v);
			put_kept(out, e->ident, &PROTO_METRICS_OF, &pm);
		}
	}
	if (fclose(out))
		diag_out_of_memory();
	return text;
}

int journal_reuse(journal *j, const char *ident, result *r) { return j && reuse_take(j->kept, ident, r); }

/* Two runs of the same results would splice their records into one journal (and then write one
 * CSV each over the other): the journal's lock file is flock'd for the run and names its pid. The
 * file goes when the run ends; one that was replaced while this run waited for it is taken again. */
static int take_lock(journal *j, diags *d)
{
	j->lock_path = xasprintf("%s.lock", j->path);
	for (int tries = 0; tries < 10; tries++) {
		int fd = open(j->lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
		if (fd < 0) {
			diags_add(d, "cannot write the journal '%s': its lock '%s': %s", j->path, j->lock_path, write_error(errno));
			return -1;
		}
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			char pid[32] = "";
			ssize_t n = pread(fd, pid, sizeof pid - 1, 0);
			pid[n > 0 ? n : 0] = 0;
			pid[strcspn(pid, "\n")] = 0;
			diags_add(d, "%s: another autotune run (pid %s) is measuring into these results: wait for it to end, "
				     "or give this run other outputs (output.csv, or --shard)",
				  j->path, *pid ? pid : "unknown");
			close(fd);
			return -1;
		}
		struct stat held, now;
		if (fstat(fd, &held) == 0 && stat(j->lock_path, &now) == 0 && held.st_ino == now.st_ino &&
		    held.st_dev == now.st_dev) {
			char pid[32];
			int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
			if (ftruncate(fd, 0) == 0)
				write_all(fd, pid, (size_t)len);
			j->lock_fd = fd;
			return 0;
		}
		close(fd); /* the holder removed it as this run took it: take the new one */
	}
	diags_add(d, "cannot lock the journal: '%s' keeps being replaced", j->lock_path);
	return -1;
}

journal *journal_lock(const char *path, diags *d)
{
	journal *j = xcalloc(1, sizeof *j);
	j->path = xstrdup(path);
	j->fd = j->lock_fd = -1;
	j->last_start = -1;
	if (take_lock(j, d)) {
		journal_close(j);
		return NULL;
	}
	return j;
}

/* The head of the journal at path: its key, and (journals since they recorded them) what it was
 * measured from and the config it belongs to; each NULL when absent. Caller frees. */
static void read_head(const char *path, char **key, char **inputs, char **config)
{
	*key = *inputs = *config = NULL;
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	for (int k = 0; f && k < 3 && (n = getline(&line, &cap, f)) > 0 && line[n - 1] == '\n'; k++) {
		line[n - 1] = 0;
		if (k == 0 && !strncmp(line, MAGIC, strlen(MAGIC)))
			*key = xstrdup(line + strlen(MAGIC));
		/* the first of each counts: a damaged journal may repeat a line */
		else if (k > 0 && !*inputs && !strncmp(line, "inputs ", 7))
			*inputs = xstrdup(line + 7);
		else if (k > 0 && !*config && !strncmp(line, "config ", 7))
			*config = xstrdup(line + 7);
	}
	free(line);
	if (f)
		fclose(f);
}

/* Which parts of what the run is measured from differ between two "NAME=HASH ..." lists, in
 * words, into out. */
static void changed_parts(const char *was, const char *now, char *out, size_t len)
{
	static const char *const part[][2] = {{"config=", "the config file"}, {"kernel=", "the kernel source"},
					      {"data=", "the data files"},    {"compiler=", "the compiler"},
					      {"target=", "the target"},      {"gpu=", "the GPU or its driver"}};
	size_t used = 0;
	*out = 0;
	for (size_t i = 0; i < sizeof part / sizeof *part; i++) {
		const char *a = strstr(was, part[i][0]), *b = strstr(now, part[i][0]);
		size_t n = strlen(part[i][0]) + 16;
		if (a && b && !strncmp(a, b, n))
			continue;
		used += (size_t)snprintf(out + used, used < len ? len - used : 0, "%s%s", used ? ", " : "", part[i][1]);
	}
}

/* The config the journal at path belongs to, when it is another file than config_path that still
 * exists: two configs of one name (or one output.csv) would take turns throwing away each other's
 * measurements. -1 with the reason in d. */
static int check_owner(const char *path, const char *owner, const char *config_path, diags *d)
{
	if (!owner || !config_path || access(owner, F_OK) || same_file(owner, config_path))
		return 0;
	diags_add(d, "%s: these results belong to %s, and %s would write over them (the same name:, or the same "
		     "output.csv): give one of the two configs another name: or output: {csv: ...}, or remove %s and "
		     "its results to start over",
		  path, owner, config_path, path);
	return -1;
}

int journal_check_owner(const journal *j, const char *config_path, diags *d)
{
	char *key, *inputs, *owner;
	read_head(j->path, &key, &inputs, &owner);
	int rc = check_owner(j->path, owner, config_path, d);
	free(key);
	free(inputs);
	free(owner);
	return rc;
}

int journal_start(journal *j, const char *key, const char *inputs, const char *config_path, int fresh, const space *sp,
		  result *res, journal_resume *resume, diags *d)
{
	memset(resume, 0, sizeof *resume);
	const char *path = j->path;
	char *old_key, *old_inputs, *owner;
	read_head(path, &old_key, &old_inputs, &owner);
	int refused = check_owner(path, owner, config_path, d);
	if (old_key && strcmp(old_key, key) && inputs)
		changed_parts(old_inputs ? old_inputs : "", inputs, resume->changed, sizeof resume->changed);
	free(old_key);
	free(old_inputs);
	free(owner);
	if (refused)
		return -1;
	char *started = xcalloc(sp->count + 1, 1);
	/* --fresh measures everything again: nothing earlier is kept */
	if (!fresh)
		j->kept = load_kept(path);
	long good = fresh ? -1 : replay(path, key, sp, res, started, resume);
	if (fresh)
		resume->key_changed = access(path, F_OK) == 0;
	j->fd = open_no_link(path, O_CREAT | (good < 0 ? O_TRUNC : 0), 0666);
	/* the key, then what it was measured from and the config (absolute) it belongs to */
	char *abs = config_path ? realpath(config_path, NULL) : NULL;
	char *header = xasprintf("%s%s\n%s%s%s%s%s%s", MAGIC, key, inputs ? "inputs " : "", inputs ? inputs : "",
				 inputs ? "\n" : "", config_path ? "config " : "",
				 config_path ? (abs ? abs : config_path) : "", config_path ? "\n" : "");
	free(abs);
	int rc = 0;
	/* a journal started afresh keeps the earlier measurements, by identity, after its header
	 * (not part of it: a journal of nothing but these is kept on close) */
	char *kept = good < 0 && reuse_count(j->kept) ? kept_lines(j->kept) : NULL;
	if (j->fd < 0 || (good >= 0 && (ftruncate(j->fd, good) || lseek(j->fd, 0, SEEK_END) < 0)) ||
	    (good < 0 && append(j, header)) || (kept && append(j, kept))) {
		diags_add(d, "cannot write the journal '%s': %s", path, write_error(errno));
		rc = -1;
	} else
		j->header_end = (off_t)strlen(header);
	free(kept);
	resume->kept = reuse_count(j->kept);
	/* the crashes found on replay become records, so the next resume agrees */
	for (size_t i = 0; rc == 0 && good >= 0 && i < sp->count; i++)
		if (started[i] == 1)
			journal_finished(j, i, &res[i]);
	free(header);
	free(started);
	return rc;
}

journal *journal_open(const char *path, const char *key, int fresh, const space *sp, result *res,
		      journal_resume *resume, diags *d)
{
	memset(resume, 0, sizeof *resume);
	journal *j = journal_lock(path, d);
	if (j && journal_start(j, key, NULL, NULL, fresh, sp, res, resume, d)) {
		journal_close(j);
		j = NULL;
	}
	return j;
}

/* One record of kind m as a line, in malloc'd memory. */
static char *record_line(const proto_msg *m, const void *msg)
{
	char *body = proto_encode(m, msg);
	if (!body)
		diag_out_of_memory();
	char *line = xasprintf("%s\n", body);
	free(body);
	return line;
}

/* Two lines as one, in malloc'd memory; both freed. */
static char *joined(char *line, char *more)
{
	char *both = xasprintf("%s%s", line, more);
	free(line);
	free(more);
	return both;
}

/* Appends one record of kind m, a line of its own. */
static int put(journal *j, const proto_msg *m, const void *msg)
{
	char *line = record_line(m, msg);
	int rc = append(j, line);
	free(line);
	return rc;
}

int journal_started(journal *j, size_t config)
{
	off_t at = lseek(j->fd, 0, SEEK_END);
	int rc = put(j, &START, &(record){.config = (long long)config});
	if (rc == 0) {
		j->last_start = (long long)config;
		j->last_start_at = at;
	}
	return rc;
}

int journal_finished(journal *j, size_t config, const result *r)
{
	char *msg = escape(r->message ? r->message : "");
	proto_result done = {.id = (long long)config, .code = r->code[0] ? r->code : "-", .status = status_name(r->st),
			     .median = r->t_median, .min = r->t_min, .max = r->t_max, .samples = r->samples,
			     .driver_blocks = r->driver_blocks, .noise = r->noise, .batch = r->batch,
			     .mhz_before = r->mhz_before, .mhz_after = r->mhz_after, .message = msg};
	char *line = record_line(&PROTO_DONE, &done);
	/* its identity (a later run after an edit finds it by this) and a plan's numbers: in the same
	 * write, so that a result is never journaled without them */
	if (r->ident[0])
		line = joined(line, record_line(&IDENT, &(ident_record){(long long)config, r->ident}));
	if (r->streams)
		line = joined(line, record_line(&PLAN, &(record){(long long)config, r->connections, r->serial_ms, 0}));
	long long started = j->last_start;
	off_t started_at = j->last_start_at;
	int rc = append(j, line);
	if (rc && started == (long long)config && ftruncate(j->fd, started_at) == 0)
		lseek(j->fd, started_at, SEEK_SET);
	free(line);
	free(msg);
	return rc;
}

int journal_stopped(journal *j, size_t config) { return put(j, &STOPPED, &(record){.config = (long long)config}); }

int journal_gpu(journal *j, size_t config, int gpu) { return put(j, &GPU, &(record){(long long)config, gpu, 0, 0}); }

int journal_compiled(journal *j, size_t config, double seconds)
{
	return put(j, &COMPILED, &(record){(long long)config, 0, seconds, 0});
}

int journal_final(journal *j, size_t config, const result *r)
{
	return put(j, &FINAL, &(record){(long long)config, r->final_rounds, r->final_median, r->final_noise});
}

int journal_shared(journal *j, size_t config, size_t twin)
{
	return put(j, &SHARES, &(record){(long long)config, (long long)twin, 0, 0});
}

int journal_metrics(journal *j, size_t config, const result *r)
{
	proto_metrics m = {(long long)config, {0}};
	memcpy(m.v, r->metrics, sizeof m.v);
	return put(j, &PROTO_METRICS_OF, &m);
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
	if (j->lock_fd >= 0) {
		unlink(j->lock_path); /* before the unlock: a run that waits takes a new file */
		close(j->lock_fd);
	}
	reuse_free(j->kept);
	free(j->lock_path);
	free(j->path);
	free(j);
}

/* A part of what a run is measured from, as "NAME=HASH". */
static void add_part(char **parts, const char *name, hasher *h)
{
	char hex[17];
	hasher_finish(h, hex);
	char *more = xasprintf("%s%s%s=%s", *parts, **parts ? " " : "", name, hex);
	free(*parts);
	*parts = more;
}

/* What decides whether earlier results are this run's too, part by part, so that a journal
 * started afresh can say which changed: the config file (sizes, flags, arguments; with a plan the
 * connections a plan without its own gets from the environment), the kernel source, the data
 * files the arguments are filled from or checked against, the compiler, the target, and the GPU
 * with its driver and how many GPUs of its model (a result names its GPU by position). Headers
 * the source includes are covered per result: each journaled result names the code it measured
 * (compile.c's hash of the binary) and is reused only for that same code. */
char *journal_run_inputs(const config *cfg, const char *identity, const char *arch, const device_info *gpu0,
			 size_t ngpus)
{
	char *parts = xstrdup("");
	hasher *h = hasher_new();
	hasher_add_file(h, cfg->path);
	if (cfg->plan.nlaunches) {
		char conns[32];
		snprintf(conns, sizeof conns, "connections %d", cfg->plan.default_connections);
		hasher_add_str(h, conns);
	}
	add_part(&parts, "config", h);
	h = hasher_new();
	hasher_add_file(h, cfg->source);
	add_part(&parts, "kernel", h);
	h = hasher_new();
	for (size_t i = 0; i < cfg->nargs; i++) {
		if (cfg->args[i].fill_file.path)
			hasher_add_file(h, cfg->args[i].fill_file.path);
		if (cfg->args[i].expected.path)
			hasher_add_file(h, cfg->args[i].expected.path);
	}
	add_part(&parts, "data", h);
	h = hasher_new();
	hasher_add_str(h, identity);
	add_part(&parts, "compiler", h);
	h = hasher_new();
	hasher_add_str(h, arch);
	add_part(&parts, "target", h);
	char drv[64];
	snprintf(drv, sizeof drv, "%d %zu", gpu0->driver_version, ngpus);
	h = hasher_new();
	hasher_add_str(h, gpu0->name);
	hasher_add_str(h, gpu0->uuid);
	hasher_add_str(h, drv);
	add_part(&parts, "gpu", h);
	return parts;
}

char *journal_key_of(const char *inputs)
{
	hasher *h = hasher_new();
	hasher_add_str(h, inputs);
	char *key = xmalloc(17);
	hasher_finish(h, key);
	return key;
}

char *journal_run_key(const config *cfg, const char *identity, const char *arch, const device_info *gpu0, size_t ngpus)
{
	char *inputs = journal_run_inputs(cfg, identity, arch, gpu0, ngpus), *key = journal_key_of(inputs);
	free(inputs);
	return key;
}
