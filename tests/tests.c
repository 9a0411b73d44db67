/* tests.c: the helpers that several suites share (tests.h): scratch files, the fake worker's
 * knobs, a run killed mid-way, a child process found by name, the autotune binary run on a
 * config written here, expressions evaluated, a crafted report. No suite of its own. */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <glob.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "proc.h"
#include "report.h"
#include "space.h"
#include "tests.h"

static CU_pSuite integration[32];
static size_t nintegration;

CU_pSuite add_integration_suite(const char *name, CU_InitializeFunc init, CU_CleanupFunc cleanup)
{
	CU_pSuite s = nintegration < sizeof integration / sizeof *integration ? CU_add_suite(name, init, cleanup) : NULL;
	if (s)
		integration[nintegration++] = s;
	return s;
}

int suite_is_integration(CU_pSuite s)
{
	for (size_t i = 0; i < nintegration; i++)
		if (integration[i] == s)
			return 1;
	return 0;
}

const char *write_temp(int slot, const char *name, const char *text)
{
	static char paths[8][256];
	/* a letter first: a config's file name can name its header's macros */
	snprintf(paths[slot], sizeof paths[slot], "%s/t%d-%s", test_dir, slot, name);
	FILE *f = fopen(paths[slot], "w");
	if (!f)
		return NULL;
	fputs(text, f);
	fclose(f);
	return paths[slot];
}

double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = calloc(1, 1 << 16);
	size_t n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

int count_in(const char *path, const char *needle)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char line[2048];
	int n = 0;
	while (fgets(line, sizeof line, f))
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

int fake_worker_forget(void)
{
	static const char *const knobs[] = {"FAKE_SLEEP_MS", "FAKE_CRASH_BX", "FAKE_HANG_BX", "FAKE_MEM_BYTES",
					    "FAKE_GPUS", "FAKE_OTHER_MODEL", "FAKE_METRICS", "FAKE_PROFILE_FAIL_BX",
					    "FAKE_SLOW_GPU", "FAKE_PER_MS", "FAKE_SMS", "FAKE_EVAL_ERROR", "FAKE_FILE_ERROR", "FAKE_ODD_BX", "FAKE_CRASH_REF_BX", "FAKE_LOG", "FAKE_DRIVER", "FAKE_SAMPLE_MS", "FAKE_WATTS",
					    "AUTOTUNE_WORKER"};
	for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++)
		unsetenv(knobs[i]);
	return 0;
}

void nap(void)
{
	struct timespec ts = {0, 20 * 1000 * 1000};
	nanosleep(&ts, NULL);
}

/* 1 once pid is gone or a zombie ('Z' in /proc/PID/stat, after the command's parenthesised name). */
static int ended_now(pid_t pid)
{
	if (kill(pid, 0) != 0)
		return 1;
	char path[64], stat[512];
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(stat, 1, sizeof stat - 1, f) : 0;
	if (f)
		fclose(f);
	stat[n] = 0;
	const char *close = strrchr(stat, ')');
	return !f || (close && close[1] == ' ' && close[2] == 'Z');
}

int process_ended(pid_t pid)
{
	double t0 = now_seconds();
	while (!ended_now(pid) && now_seconds() - t0 < 60)
		nap();
	return ended_now(pid);
}

/* 1 once sig is not pending for pid as a whole (ShdPnd in /proc/PID/status), or pid ended. */
static int taken_now(pid_t pid, int sig)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 1;
	unsigned long long pending = 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "ShdPnd: %llx", &pending) == 1)
			break;
	fclose(f);
	return !(pending >> (sig - 1) & 1);
}

int signal_taken(pid_t pid, int sig)
{
	double t0 = now_seconds();
	while (!taken_now(pid, sig) && now_seconds() - t0 < 60)
		nap();
	return taken_now(pid, sig);
}

int kill_when_journaled(char *const argv[], const char *journal, int done)
{
	/* a killed run cannot remove its work directory: it goes in one of the test's own */
	char tmp[] = "/tmp/autotune-killed-XXXXXX";
	if (!mkdtemp(tmp))
		return -1;
	setenv("TMPDIR", tmp, 1);
	proc p;
	int rc = proc_start(&p, argv, PROC_STDOUT | PROC_MERGE_STDERR);
	unsetenv("TMPDIR");
	if (rc == 0) {
		double t0 = now_seconds();
		while (count_in(journal, "done ") < done && now_seconds() - t0 < 60)
			nap();
		kill(-p.pid, SIGKILL);
		int timed_out;
		proc_finish(&p, 10, &timed_out);
	}
	char *out = NULL;
	proc_capture((char *[]){"rm", "-rf", tmp, NULL}, 30, &out);
	free(out);
	return rc ? -1 : 0;
}

pid_t child_named(pid_t parent, const char *comm)
{
	glob_t g;
	pid_t found = 0;
	if (glob("/proc/[0-9]*/stat", 0, NULL, &g))
		return 0;
	for (size_t i = 0; i < g.gl_pathc && !found; i++) {
		char *stat = read_text(g.gl_pathv[i]);
		char *open = stat ? strchr(stat, '(') : NULL, *close = stat ? strrchr(stat, ')') : NULL;
		int ppid;
		if (open && close && (size_t)(close - open - 1) == strlen(comm) && !strncmp(open + 1, comm, strlen(comm)) &&
		    sscanf(close + 1, " %*c %d", &ppid) == 1 && ppid == parent)
			found = (pid_t)atoi(stat);
		free(stat);
	}
	globfree(&g);
	return found;
}

static int saved_stderr = -1;
static char stderr_path[96];

void stderr_begin(void)
{
	fflush(stderr);
	snprintf(stderr_path, sizeof stderr_path, "%s/stderr.txt", test_dir);
	int fd = open(stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return;
	saved_stderr = dup(2);
	dup2(fd, 2);
	close(fd);
}

char *stderr_end(void)
{
	if (saved_stderr < 0)
		return strdup("");
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	saved_stderr = -1;
	char *text = read_text(stderr_path);
	unlink(stderr_path);
	return text ? text : strdup("");
}

const char *const config_good =
	"name: tiny\n"                                       /* 1 */
	"kernel:\n"                                          /* 2 */
	"  source: /dev/null\n"                              /* 3 */
	"  entry: k\n"                                       /* 4 */
	"constants:\n"                                       /* 5 */
	"  n: 1 << 10\n"                                     /* 6 */
	"arguments:\n"                                       /* 7 */
	"  - {name: a, type: float, count: n}\n"             /* 8 */
	"  - {name: n, type: int32, value: n}\n"             /* 9 */
	"space:\n"                                           /* 10 */
	"  bx: [32, 64, 128]\n"                              /* 11 */
	"launch:\n"                                          /* 12 */
	"  block: [bx]\n"                                    /* 13 */
	"  grid: [\"ceil_div(n, bx)\"]\n";                   /* 14 */

/* Loads text; returns the number of diagnostics and the first in *first (caller frees). */
int config_load_text(const char *text, config *cfg, char **first)
{
	diags d = {0};
	const char *path = write_temp(0, "c.yaml", text);
	int rc = config_load(path, cfg, &d);
	*first = d.n ? strdup(d.msgs[0]) : NULL;
	int n = (int)d.n;
	diags_free(&d);
	unlink(path);
	CU_ASSERT_EQUAL(rc == 0, n == 0);
	return n;
}

char *config_with_line(int line, const char *replacement)
{
	static char buf[4096];
	const char *p = config_good;
	size_t used = 0;
	for (int l = 1; *p; l++) {
		const char *eol = strchr(p, '\n');
		size_t n = (size_t)(eol - p) + 1;
		if (l == line)
			used += (size_t)snprintf(buf + used, sizeof buf - used, "%s\n", replacement);
		else
			used += (size_t)snprintf(buf + used, sizeof buf - used, "%.*s", (int)n, p);
		p += n;
	}
	return buf;
}

void config_expect_error(const char *text, int line, int col, const char *message)
{
	config cfg;
	char *first;
	int n = config_load_text(text, &cfg, &first);
	CU_ASSERT(n >= 1);
	if (!first)
		return;
	char want[256];
	snprintf(want, sizeof want, ":%d:%d: %s", line, col, message);
	if (!strstr(first, want))
		fprintf(stderr, "\n  got: %s\n want: ...%s\n", first, want);
	CU_ASSERT_PTR_NOT_NULL(strstr(first, want));
	free(first);
	config_free(&cfg);
}

void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

/* The data put_bytes and put_npy write: byte k is k % 251, so that no two nearby bytes agree. */
static void data_bytes_to(FILE *f, size_t n)
{
	for (size_t k = 0; k < n; k++)
		fputc((int)(k % 251), f);
}

void put_bytes(const char *path, size_t n)
{
	FILE *f = fopen(path, "wb");
	data_bytes_to(f, n);
	fclose(f);
}

size_t put_npy(const char *path, int major, const char *dict, size_t data_bytes)
{
	size_t pre = major == 1 ? 10 : 12, len = strlen(dict) + 1; /* and its newline */
	size_t pad = (64 - (pre + len) % 64) % 64, hlen = len + pad;
	unsigned char head[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', (unsigned char)major, 0, (unsigned char)(hlen & 0xff),
				  (unsigned char)(hlen >> 8 & 0xff), (unsigned char)(hlen >> 16 & 0xff), (unsigned char)(hlen >> 24)};
	FILE *f = fopen(path, "wb");
	fwrite(head, 1, pre, f);
	fputs(dict, f);
	for (size_t i = 0; i < pad; i++)
		fputc(' ', f);
	fputc('\n', f);
	data_bytes_to(f, data_bytes);
	fclose(f);
	return pre + hlen;
}

int run_autotune_limited(char *const args[], int blocks, char **out)
{
	char limit[64];
	snprintf(limit, sizeof limit, "ulimit -f %d; exec \"$0\" \"$@\"", blocks);
	char *argv[24] = {"sh", "-c", limit, "./autotune"};
	int n = 4;
	for (; *args && n < 23; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	int st = proc_capture(argv, 120, out);
	return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : st >= 0 && WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
}

void remove_dir(const char *dir)
{
	char *out;
	proc_capture((char *[]){"rm", "-rf", (char *)dir, NULL}, 30, &out);
	free(out);
}

int run_autotune(char *const args[], char **output)
{
	/* AUTOTUNE_TEST_VALGRIND set: every run under valgrind, an error or a leak exit 99, which
	 * fails the test's check of the exit status */
	static char *const valgrind[] = {"valgrind", "-q", "--leak-check=full", "--errors-for-leak-kinds=definite,indirect,possible",
					 "--error-exitcode=99"};
	int vg = getenv("AUTOTUNE_TEST_VALGRIND") != NULL, skip = vg ? 5 : 0;
	char *argv[24];
	for (int i = 0; i < skip; i++)
		argv[i] = valgrind[i];
	argv[skip] = "./autotune";
	int n = 1;
	for (; args[n - 1] && n < 15; n++)
		argv[skip + n] = args[n - 1];
	argv[skip + n] = NULL;
	char *ignore = NULL;
	int st = proc_capture(argv, vg ? 1200 : 120, output ? output : &ignore);
	free(ignore);
	if (output && !*output)
		*output = strdup("");
	return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int run_autotune_on(char *config, char *const extra[], char **output)
{
	char *args[16];
	int n = 0;
	for (; extra && extra[n] && n < 13; n++)
		args[n] = extra[n];
	args[n++] = config;
	args[n] = NULL;
	return run_autotune(args, output);
}

/* What write_named_config and write_space_config return: the config written last. */
static char fake_config_path[256];

char *write_named_config(const char *dir, const char *name, const char *kernel, const char *space_build)
{
	char text[2048];
	snprintf(fake_config_path, sizeof fake_config_path, "%s/%s.yaml", dir, name);
	snprintf(text, sizeof text,
		 "name: %s\nkernel: {source: %s, entry: k}\narguments:\n"
		 "  - {name: a, type: float, count: 4096, output: true}\n  - {name: n, type: int32, value: 4096}\n"
		 "%s\nlaunch: {block: [bx], grid: [\"ceil_div(4096, bx)\"]}\n"
		 "output: {csv: %s/%s.csv, header: %s/%s_tuned.h}\n",
		 name, kernel, space_build, dir, name, dir, name);
	put_file(fake_config_path, text);
	char path[256];
	static const char *const ext[] = {".csv", ".journal", "_tuned.h"};
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s/%s%s", dir, name, ext[i]);
		unlink(path);
	}
	return fake_config_path;
}

char *write_capped_config(const char *dir, const char *name, const char *space)
{
	char path[256], text[512];
	mkdir(dir, 0777);
	snprintf(path, sizeof path, "%s/k.cu", dir);
	put_file(path, "extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = i; }\n");
	snprintf(text, sizeof text, "space: %s\nbuild: {maxrregcount: cap}\nmeasure: {finalists: 0, metrics: none}", space);
	char *config = write_named_config(dir, name, "k.cu", text);
	fake_worker_reset(dir, name);
	return config;
}

char *write_space_config(const char *dir, const char *name, const char *extra_measure)
{
	char path[256];
	mkdir(dir, 0777);
	snprintf(path, sizeof path, "%s/k.cu", dir);
	put_file(path, "extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = i; }\n");
	snprintf(fake_config_path, sizeof fake_config_path, "%s/%s.yaml", dir, name);
	FILE *f = fopen(fake_config_path, "w");
	fprintf(f, "name: %s\nkernel: {source: k.cu, entry: k}\narguments:\n"
		   "  - {name: a, type: float, count: 4096, output: true}\n  - {name: n, type: int32, value: 4096}\n"
		   "space: {bx: {start: 32, stop: 640, step: 32}}\nlaunch: {block: [bx], grid: [\"ceil_div(4096, bx)\"]}\n"
		   "measure: {finalists: 0, metrics: none%s}\n"
		   "output: {csv: %s/%s.csv, header: %s/%s_tuned.h}\n",
		name, extra_measure ? extra_measure : "", dir, name, dir, name);
	fclose(f);
	return fake_config_path;
}

void fake_worker_reset(const char *dir, const char *name)
{
	char path[256];
	static const char *const ext[] = {".csv", "_tuned.h", ".journal"};
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s/%s%s", dir, name, ext[i]);
		unlink(path);
	}
	snprintf(path, sizeof path, "%s/runs.log", dir);
	unlink(path);
	fake_worker_forget();
	setenv("AUTOTUNE_WORKER", "build/fake_worker", 1);
	setenv("FAKE_LOG", path, 1);
}

int rows_once(const char *csv, int nconfigs)
{
	FILE *f = fopen(csv, "r");
	if (!f)
		return -1;
	int *seen = calloc((size_t)nconfigs, sizeof *seen), rows = 0, ok = 1;
	char line[2048];
	fgets(line, sizeof line, f); /* the header */
	while (ok && fgets(line, sizeof line, f)) {
		int bx = atoi(line);
		ok = bx % 32 == 0 && bx >= 32 && bx <= 32 * nconfigs && !seen[bx / 32 - 1]++;
		rows += ok;
	}
	fclose(f);
	free(seen);
	return ok ? rows : -1;
}

int each_row_once(const char *csv, int nconfigs) { return rows_once(csv, nconfigs) == nconfigs; }

const char *winner_of(const char *path)
{
	static char line[4096];
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof line, f))
		if (strstr(line, ";winner")) {
			*strchr(strchr(line, ',') + 1, ',') = 0;
			fclose(f);
			return line;
		}
	if (f)
		fclose(f);
	return "";
}

const char *defines_config(const char *name, const char *kernel_text, const char *space, const char *defines,
			   char *csv, size_t csvlen)
{
	char file[64], text[1024];
	snprintf(file, sizeof file, "%s.cu", name);
	const char *kernel = write_temp(0, file, kernel_text);
	snprintf(csv, csvlen, "%s/%s.dry-run.csv", test_dir, name);
	snprintf(text, sizeof text,
		 "name: %s\nkernel: {source: %s, entry: k}\narguments: [{name: a, type: float, count: 1024, output: true}]\n"
		 "space: %s\nlaunch: {block: [bx], grid: [1]}\nbuild: {defines: %s}\noutput: {csv: %s/%s.csv}\n",
		 name, kernel, space, defines, test_dir, name);
	snprintf(file, sizeof file, "%s.yaml", name);
	return write_temp(1, file, text);
}

static const struct {
	const char *name;
	value v;
} table[] = {
	{"nx", {VAL_INT, {.i = 1024}}},
	{"ny", {VAL_INT, {.i = 768}}},
	{"zero", {VAL_INT, {.i = 0}}},
	{"scale", {VAL_FLOAT, {.f = 0.5}}},
	{"BLOCK_M", {VAL_INT, {.i = 64}}},
};

int table_lookup(void *ctx, const char *name, value *out)
{
	int *calls = ctx;
	if (calls)
		(*calls)++;
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (!strcmp(table[i].name, name)) {
			*out = table[i].v;
			return 0;
		}
	return -1;
}

int expr_run(const char *src, value *out, expr_error *err)
{
	expr *e = expr_parse(src, err);
	if (!e)
		return -1;
	int rc = expr_eval(e, table_lookup, NULL, out, err);
	expr_free(e);
	return rc;
}

/* The value of src, asserted (fatally) to evaluate to one of the given kind; it starts as one of
 * the other kind, so that a result never written is caught. */
static value eval_as(const char *src, val_kind kind)
{
	value v = kind == VAL_INT ? value_float(-12345.0) : value_int(-12345);
	expr_error err = {0, ""};
	int rc = expr_run(src, &v, &err);
	if (rc != 0)
		fprintf(stderr, "\n'%s' failed at %d: %s\n", src, err.offset, err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL_FATAL(v.kind, kind);
	return v;
}

long long eval_int(const char *src)
{
	return eval_as(src, VAL_INT).u.i;
}

double eval_float(const char *src)
{
	return eval_as(src, VAL_FLOAT).u.f;
}

void check_parse_error(const char *src, int offset, const char *msg)
{
	expr_error err = {-1, ""};
	expr *e = expr_parse(src, &err);
	if (e || err.offset != offset || !strstr(err.msg, msg))
		fprintf(stderr, "\n'%s': got offset %d msg '%s', want %d '%s'\n", src, err.offset, err.msg,
			offset, msg);
	CU_ASSERT_PTR_NULL(e);
	expr_free(e);
	CU_ASSERT_EQUAL(err.offset, offset);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, msg));
}

/* (32,1) passes twice, (32,2) and (64,1) once; (32,4) crashed and (64,2) did not compile, twice. */
const char *const crafted_csv =
	"variant,blockDim.x,blockDim.y,theoretical_occupancy,time_ms_median,samples,noise_pct,"
	"achieved_occupancy_pct,gld_efficiency_pct,gbps,flags,status,message,gpu\n"
	"a,32,1,1.0,2.0,10,0.5,80,90,100,cold,ok,,\"H100 <b>\"\n"
	"b,32,1,1.0,1.5,10,0.5,81,91,130,cold,ok,,\"H100 <b>\"\n"
	"a,32,2,0.5,1.2,10,0.5,60,70,160,cold,ok,,\"H100 <b>\"\n"
	"a,32,4,0.5,,,,,,,,crashed,\"<script>alert(1)</script>\",\"H100 <b>\"\n"
	"a,64,1,1.0,1.0,10,0.5,90,95,200,cold;winner,ok,,\"H100 <b>\"\n"
	"a,64,2,0.5,,,,,,,,compile-error,\"error: x & y\",\n"
	"b,64,2,0.5,,,,,,,,compile-error,\"line one\nline two\",\n";

char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *s = calloc(1, (size_t)n + 1);
	if (s && fread(s, 1, (size_t)n, f) != (size_t)n)
		s[0] = 0;
	fclose(f);
	return s;
}

size_t occurrences(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

char *between(const char *hay, const char *open, const char *close)
{
	const char *a = strstr(hay, open), *b = a ? strstr(a, close) : NULL;
	return b ? xasprintf("%.*s", (int)(b - a), a) : xstrdup("");
}

char *report_of(const char *csv, const char *params)
{
	const char *in = write_temp(1, "report.csv", csv), *out = write_temp(2, "report.html", "");
	diags d = {0};
	int rc = report_write(in, out, params, &d);
	CU_ASSERT_EQUAL(rc, 0);
	if (rc)
		diags_print(&d);
	diags_free(&d);
	return rc ? xstrdup("") : slurp(out);
}

int search_bowl_space(const char *name, config *cfg, space *sp)
{
	diags d = {0};
	const char *path = write_temp(5, name,
				      "kernel: {source: /dev/null, entry: k}\narguments: [{name: a, type: float, count: 4}]\n"
				      "launch: {block: [x], grid: [1]}\n"
				      "space: {x: {start: 1, stop: 1024, pow2: true}, y: {start: 1, stop: 64, pow2: true}, z: [0, 1, 2, 3, 4, 5, 6, 7]}\n"
				      "constraints: [x * y <= 1024, z >= 0]\n");
	int rc = config_load(path, cfg, &d) || space_enumerate(cfg, sp, &d);
	diags_print(&d);
	diags_free(&d);
	unlink(path);
	return rc ? -1 : 0;
}

double search_bowl(const space *sp, size_t c)
{
	const value *v = space_config(sp, c);
	double x = log2((double)v[0].u.i), y = log2((double)v[1].u.i), z = (double)v[2].u.i;
	if (v[0].u.i * v[1].u.i == 32)
		return INFINITY;
	return 1.0 + (x - 4) * (x - 4) + 0.5 * (y - 2) * (y - 2) + 0.25 * (z - 3) * (z - 3);
}

/* Copies tests/t1/published/DIR/SPEC into test_dir/published/DIR/, with its KernelFile (the copy
 * in tests/ where there is one, else empty) and KTT's tutorial's data file (zeros): the path of
 * the copy (static storage). */
const char *published_copy(const char *dir, const char *spec)
{
	static char json[256];
	char src[256], cmd[1024];
	snprintf(src, sizeof src, "tests/t1/published/%s/%s", dir, spec);
	snprintf(json, sizeof json, "%s/published/%s/%s", test_dir, dir, spec);
	snprintf(cmd, sizeof cmd, "mkdir -p %s/published/%s && cp %s %s", test_dir, dir, src, json);
	CU_ASSERT_EQUAL(system(cmd), 0);
	char *text = read_text(src);
	const char *k = text ? strstr(text, "\"KernelFile\"") : NULL;
	char file[128] = "";
	if (k && sscanf(k, "\"KernelFile\" : \"%127[^\"]\"", file) != 1)
		sscanf(k, "\"KernelFile\": \"%127[^\"]\"", file);
	free(text);
	if (*file) {
		snprintf(cmd, sizeof cmd,
			 "cd %s/published/%s && mkdir -p \"$(dirname '%s')\" && "
			 "(cp \"$OLDPWD/tests/t1/published/%s/%s\" '%s' 2>/dev/null || : > '%s')",
			 test_dir, dir, file, dir, file, file, file);
		CU_ASSERT_EQUAL(system(cmd), 0);
	}
	if (!strcmp(spec, "KernelTuningCudaScript.json")) {
		snprintf(cmd, sizeof cmd, "head -c 4194304 /dev/zero > %s/published/%s/ArgumentData.bin", test_dir, dir);
		CU_ASSERT_EQUAL(system(cmd), 0);
	}
	return json;
}

/* Every recorded exhaustive run in tests/data (seven on an H100, three on an H200) and the config
 * it is a run of. */
const char *const test_recordings[TEST_RECORDINGS][2] = {
	{"configs/summatrix.yaml", "tests/data/summatrix_h100.csv"},
	{"configs/reduce.yaml", "tests/data/reduce_h100.csv"},
	{"bench/spaces/transpose_big.yaml", "tests/data/transpose_big_h100.csv"},
	{"configs/fir.yaml", "tests/data/fir_h100.csv"},
	{"configs/convolution.yaml", "tests/data/convolution_h100.csv"},
	{"configs/gemm.yaml", "tests/data/gemm_h100.csv"},
	{"configs/stencil.yaml", "tests/data/stencil_h100.csv"},
	{"bench/spaces/gs_axpy.yaml", "tests/data/gs_axpy_h200.csv"},
	{"bench/spaces/blur.yaml", "tests/data/blur_h200.csv"},
	{"bench/spaces/histogram.yaml", "tests/data/histogram_h200.csv"},
};

/* Recordings in tests/data of a space that test_recordings has on another GPU: the sources of
 * transfer (--prior), each {config, CSV, the recording it transfers to}. */
const char *const test_transfers[TEST_TRANSFERS][3] = {
	{"configs/summatrix.yaml", "tests/data/summatrix_h200.csv", "tests/data/summatrix_h100.csv"},
	{"configs/reduce.yaml", "tests/data/reduce_h200.csv", "tests/data/reduce_h100.csv"},
	{"bench/spaces/transpose_big.yaml", "tests/data/transpose_big_h200.csv", "tests/data/transpose_big_h100.csv"},
};
