/* devices.c: one worker per GPU of the run (the first opened alone, then the others side by side
 * while it measures), and `autotune devices`. */
#include "devices.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "proc.h"
#include "banned.h"

/* "0,2,3" into ordinals (caller frees); -1 with the reason in d. */
static int devices_parse(const char *list, int **ordinals, size_t *n, diags *d)
{
	*ordinals = NULL;
	*n = 0;
	size_t cap = 0;
	const char *p = list;
	for (;;) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p || v < 0 || v > 4095 || (*end && *end != ',')) {
			diags_add(d, "autotune: --devices takes GPU numbers separated by commas (0,1), not '%s'", list);
			free(*ordinals);
			*ordinals = NULL;
			*n = 0;
			return -1;
		}
		for (size_t i = 0; i < *n; i++)
			if ((*ordinals)[i] == (int)v) {
				diags_add(d, "autotune: --devices names GPU %ld twice", v);
				free(*ordinals);
				*ordinals = NULL;
				*n = 0;
				return -1;
			}
		grow(ordinals, &cap, *n + 1, sizeof **ordinals);
		(*ordinals)[(*n)++] = (int)v;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

int devices_check(const char *list, diags *d)
{
	int *ordinals;
	size_t n;
	int rc = devices_parse(list, &ordinals, &n, d);
	free(ordinals);
	return rc;
}

typedef struct starter {
	const char *worker, *log;
	const config *cfg;
	int ordinal;
	runner *rn;
	device_info info;
	diags d;
	pthread_t thread;
	int threaded; /* started on a thread of its own (else it ran on this one) */
	int joined;
	/* the first GPU's: set up on a thread while nvcc compiles (devices_ready) */
	gpu_set *set;
	int named, failed;
} starter;

static void *start_one(void *arg)
{
	starter *s = arg;
	s->rn = runner_start(s->worker, s->ordinal, s->cfg, &s->info, s->log, &s->d);
	trace_event("GPU %d ready", s->ordinal);
	return NULL;
}

/* Starts runners for st[from..to) side by side, on threads of their own (or this one). */
static void start_all(starter *st, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		st[i].threaded = pthread_create(&st[i].thread, NULL, start_one, &st[i]) == 0;
		if (!st[i].threaded)
			start_one(&st[i]);
	}
}

/* The first GPU, open already: its arguments (fills, copies, the host reference), then the
 * others' start, then its warm-up, on a thread of its own while nvcc compiles. */
static void *prepare_first(void *arg)
{
	starter *s = arg;
	gpu_set *set = s->set;
	/* with several GPUs the others take the counters while the first re-times the finalists */
	int rc = runner_prepare(s->rn, s->cfg, &s->info, set->n == 1, &s->d);
	trace_event("GPU %d arguments set up", s->ordinal);
	/* The others start once the first has its arguments: opening a GPU holds the driver's lock,
	 * and the first's allocations waited 0.12 s behind it; the first warms up and measures
	 * meanwhile. */
	if (!rc)
		start_all(set->st, 1, set->n);
	s->failed = rc || runner_warm_up(s->rn, &s->d);
	trace_event("GPU %d ready", s->ordinal);
	return NULL;
}

static void wait_for(starter *s)
{
	if (s->threaded && !s->joined)
		pthread_join(s->thread, NULL);
	s->joined = 1;
}

/* Takes starter i's runner into the set, or leaves the GPU out with the reason: in d when the
 * user named it (an error), else as a warning. -1 when left out. */
static int admit(gpu_set *set, size_t i, int named, diags *d)
{
	starter *s = &set->st[i];
	const device_info *first = &set->info[0];
	int rc = 0;
	if (!s->rn) {
		for (size_t k = 0; k < s->d.n; k++)
			if (named)
				diags_add(d, "GPU %d: %s", s->ordinal, s->d.msgs[k]);
			else if (!set->quiet)
				fprintf(stderr, "autotune: warning: GPU %d left out: %s\n", s->ordinal, s->d.msgs[k]);
		rc = -1;
	} else if (strcmp(s->info.name, first->name)) {
		/* different models never share a space: their times do not compare */
		if (named)
			diags_add(d, "GPU %d is a %s, GPU %d a %s: tune different models separately (one --device each) and "
				     "join their results with `autotune header`",
				  s->ordinal, s->info.name, set->st[0].ordinal, first->name);
		else if (!set->quiet)
			fprintf(stderr, "autotune: warning: GPU %d (%s) left out: not the same model as GPU %d (%s); tune it "
					"on its own with --device %d\n",
				s->ordinal, s->info.name, set->st[0].ordinal, first->name, s->ordinal);
		runner_stop(s->rn);
		rc = -1;
	} else {
		set->runners[i] = s->rn;
		set->info[i] = s->info;
	}
	s->rn = NULL;
	diags_free(&s->d);
	return rc;
}

int devices_start(const options *o, const char *worker_path, const config *cfg, const char *log_path, gpu_set *set,
		  diags *d)
{
	memset(set, 0, sizeof *set);
	set->quiet = o->quiet;
	int *ordinals = NULL;
	size_t n = 1;
	int named = o->devices || o->device >= 0; /* the user chose: a GPU that fails is an error */
	if (o->devices && devices_parse(o->devices, &ordinals, &n, d))
		return -1;
	if (!o->devices) {
		ordinals = xmalloc(sizeof *ordinals);
		ordinals[0] = o->device >= 0 ? o->device : 0;
	}
	/* the first GPU opens alone (and says how many there are) */
	device_info first;
	runner *r0 = runner_start(worker_path, ordinals[0], NULL, &first, log_path, d);
	if (!r0) {
		free(ordinals);
		return -1;
	}
	trace_event("GPU %d open", ordinals[0]);
	if (runner_arrays_fit(cfg, &first, d)) { /* said before nvcc starts, as before a fill */
		runner_stop(r0);
		free(ordinals);
		return -2;
	}
	if (!named) {
		int count = runner_device_count(r0);
		n = count > 1 ? (size_t)count : 1;
		ordinals = xrealloc(ordinals, n * sizeof *ordinals);
		for (size_t i = 0; i < n; i++)
			ordinals[i] = (int)i;
	}
	set->n = n;
	set->runners = xcalloc(n, sizeof *set->runners);
	set->info = xcalloc(n, sizeof *set->info);
	set->st = xcalloc(n, sizeof *set->st);
	for (size_t i = 0; i < n; i++)
		set->st[i] = (starter){.worker = worker_path, .log = log_path, .cfg = cfg, .ordinal = ordinals[i]};
	free(ordinals);
	set->info[0] = first;
	starter *s = &set->st[0];
	s->rn = r0;
	s->info = first;
	s->set = set;
	s->named = named;
	s->threaded = pthread_create(&s->thread, NULL, prepare_first, s) == 0;
	if (!s->threaded)
		prepare_first(s);
	return 0;
}

int devices_ready(gpu_set *set, diags *d)
{
	starter *s = &set->st[0];
	if (s->joined)
		return set->runners[0] ? 0 : -2;
	wait_for(s);
	int rc = s->failed;
	for (size_t k = 0; k < s->d.n; k++)
		diags_add(d, "%s", s->d.msgs[k]);
	diags_free(&s->d);
	if (!rc) {
		set->runners[0] = s->rn;
		s->rn = NULL;
	}
	if (s->named && !rc)
		for (size_t i = 1; i < set->n; i++) {
			wait_for(&set->st[i]);
			rc |= admit(set, i, 1, d);
		}
	if (rc) {
		devices_stop(set);
		return -2;
	}
	return 0;
}

runner *devices_join(gpu_set *set, size_t i)
{
	if (i >= set->n)
		return NULL;
	starter *s = &set->st[i];
	if (!s->joined) {
		wait_for(s);
		if (!s->failed) /* the first GPU's set-up failed: devices_ready says why */
			admit(set, i, 0, NULL);
	}
	return set->runners[i];
}

void devices_stop(gpu_set *set)
{
	trace_event("stopping the workers");
	for (size_t i = 0; i < set->n; i++) {
		if (set->st && !set->st[i].joined)
			wait_for(&set->st[i]);
		runner_quit(set->st && set->st[i].rn ? set->st[i].rn : set->runners[i]);
	}
	for (size_t i = 0; i < set->n; i++) {
		if (set->st) {
			/* started, never joined */
			runner_stop(set->st[i].rn);
			diags_free(&set->st[i].d);
		}
		runner_stop(set->runners[i]);
	}
	free(set->runners);
	free(set->info);
	free(set->st);
	memset(set, 0, sizeof *set);
	trace_event("workers stopped");
}

double devices_copy_bandwidth(runner *rn, const device_info *dev)
{
	char *dir = cache_default_dir();
	char *path = dir ? xasprintf("%s/copybw-%s", dir, dev->uuid) : NULL;
	double gbps = -1;
	FILE *f = path ? fopen(path, "r") : NULL;
	if (f) {
		if (fscanf(f, "%lf", &gbps) != 1 || gbps <= 0)
			gbps = -1;
		fclose(f);
	}
	if (gbps <= 0 && (gbps = runner_copy_bandwidth(rn)) > 0 && dir) {
		char text[32];
		int n = snprintf(text, sizeof text, "%.1f\n", gbps);
		/* a note for next time: failing to keep it is harmless */
		if (make_dirs(dir) == 0)
			write_atomically(path, text, (size_t)n);
	}
	free(path);
	free(dir);
	return gbps;
}

/* A log for the workers of `autotune devices`: a worker that cannot start (no driver) is then said
 * once, its loader's words quoted in the message, not also raw on the terminal. NULL when none
 * can be made: the worker's stderr is the terminal's. Named as the run's temporary files, so one
 * a killed run leaves is reclaimed. Caller unlinks and frees. */
static char *devices_log(void)
{
	const char *tmp = getenv("TMPDIR");
	char *path = xasprintf("%s/autotune-%ld-XXXXXX", tmp && *tmp ? tmp : "/tmp", (long)getpid());
	int fd = mkstemp(path);
	if (fd < 0) {
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

/* What the workers said, on stderr: a listing that worked keeps their warnings. */
static void pass_on(const char *path)
{
	FILE *f = fopen(path, "r");
	char buf[4096];
	size_t n;
	while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
		fwrite(buf, 1, n, stderr);
	if (f)
		fclose(f);
}

int cmd_devices(const options *o, const char *worker_path)
{
	(void)o;
	diags d = {0};
	/* every GPU, whatever its model: this lists them all */
	int rc = 0, count = 0;
	char *log = devices_log();
	runner *probe = runner_start(worker_path, 0, NULL, NULL, log, &d);
	if (!probe || (count = runner_device_count(probe)) < 1) {
		if (!d.n)
			diags_add(&d, "autotune devices: the GPU worker could not count the GPUs");
		rc = -1;
	}
	runner_stop(probe);
	if (!rc)
		printf("%-3s %-28s %-5s %4s %9s %7s %8s %9s  %s\n", "gpu", "name", "arch", "SMs", "memory", "L2", "clock",
		       "copy", "uuid");
	for (int i = 0; !rc && i < count; i++) {
		device_info info;
		runner *rn = runner_start(worker_path, i, NULL, &info, log, &d);
		if (!rn) {
			rc = -1;
			break;
		}
		double gbps = devices_copy_bandwidth(rn, &info);
		char bw[32] = "-";
		if (gbps > 0)
			snprintf(bw, sizeof bw, "%.0f GB/s", gbps);
		printf("%-3d %-28.28s sm_%-2d %4d %5.1f GiB %3d MiB %4d MHz %9s  %s\n", i, info.name, info.cc, info.sms,
		       info.mem_bytes / 1073741824.0, info.l2_bytes >> 20, info.clock_khz / 1000, bw, info.uuid);
		runner_stop(rn);
	}
	if (log) {
		if (!rc)
			pass_on(log);
		unlink(log);
		free(log);
	}
	if (d.n)
		diags_print(&d);
	diags_free(&d);
	return rc ? EXIT_USAGE : 0;
}

char *devices_worker_path(void)
{
	const char *env = getenv("AUTOTUNE_WORKER");
	if (env && *env)
		return xstrdup(env);
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = 0;
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			char *beside = xasprintf("%s/autotune-worker", self);
			if (access(beside, X_OK) == 0)
				return beside;
			free(beside);
			char *installed = xasprintf("%s/../libexec/autotune/autotune-worker", self);
			if (access(installed, X_OK) == 0)
				return installed;
			free(installed);
		}
	}
	return xstrdup("autotune-worker");
}
