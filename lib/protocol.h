/* protocol.h: the line protocol between the tuner (runner.c) and autotune-worker, written down
 * once. A message is one line: a keyword, then its fields, each after a single space. A field is
 * an integer, a number, a word (no spaces) or, last, text that runs to the end of the line.
 * Every kind of message is a struct below and a table of its fields (protocol.c); proto_encode
 * and proto_decode are the only code that writes or reads a line, for the worker, the runner,
 * the fake worker and the journal (which stores the worker's result replies). */
#ifndef AUTOTUNE_PROTOCOL_H
#define AUTOTUNE_PROTOCOL_H

#include <stddef.h>

#include "stats.h"

typedef enum {
	PF_LL,       /* long long */
	PF_ULL,      /* unsigned long long */
	PF_DBL,      /* double, written with the field's format */
	PF_WORD,     /* const char *, at least one character, no space */
	PF_OPT_WORD, /* the same, or NULL for absent: only at the end */
	PF_TEXT,     /* const char *, the rest of the line (may be empty): only last */
} proto_type;

typedef struct {
	proto_type type;
	size_t offset;
	const char *format; /* PF_DBL: the printf conversion */
} proto_field;

typedef struct {
	const char *keyword;
	const proto_field *fields;
	size_t nfields;
} proto_msg;

/* Field table entries, for protocol.c's tables and for other line formats built the same way
 * (the journal's own records). */
#define PROTO_LL(s, f) {PF_LL, offsetof(s, f), NULL}
#define PROTO_ULL(s, f) {PF_ULL, offsetof(s, f), NULL}
#define PROTO_DBL(s, f, fmt) {PF_DBL, offsetof(s, f), fmt}
#define PROTO_WORD(s, f) {PF_WORD, offsetof(s, f), NULL}
#define PROTO_OPT_WORD(s, f) {PF_OPT_WORD, offsetof(s, f), NULL}
#define PROTO_TEXT(s, f) {PF_TEXT, offsetof(s, f), NULL}
#define PROTO_MSG(name, kw, fields) const proto_msg name = {kw, fields, sizeof fields / sizeof *fields}

/* The line for msg (a struct of m's kind), without its newline, in malloc'd memory; NULL when
 * out of memory. */
char *proto_encode(const proto_msg *m, const void *msg);

/* Reads a line of kind m into msg: 0, or -1 when the keyword differs or a field is missing or
 * malformed (msg is then unspecified). The line is split in place and the strings in msg point
 * into it: they live as long as the line. */
int proto_decode(const proto_msg *m, char *line, void *msg);

/* The keyword of a line equals m's (followed by a space or the end). */
int proto_is(const proto_msg *m, const char *line);

/* ---- requests, tuner to worker, each answered by one reply unless said otherwise ---- */

/* "device N": open GPU N. Answer: PROTO_DEVICE_INFO or PROTO_ERROR. */
typedef struct { long long ordinal; } proto_device;
/* "array": allocate and fill argument idx. Answer: ok or error. */
typedef struct {
	long long idx;
	const char *type; /* elem_name() */
	unsigned long long count;
	const char *fill; /* fill_name() */
	double value;     /* fill: constant */
	unsigned long long seed;
	long long output, restore;
	const char *name; /* the argument's name, for messages (NULL: none given) */
} proto_array;
/* "scalar": argument idx of the next run or profile is this value. No answer. */
typedef struct { long long idx; const char *type, *text; } proto_scalar;
/* "sumcount": the next runs' verify.sum covers this many elements, adding up to expected when
 * given (else to the input's sum). No answer. */
typedef struct { unsigned long long count; const char *expected; } proto_sumcount;
/* "sumcheck": verify.sum of output argument out against input in (-1: a fixed value); op "sum"
 * or "max". Answer: ok or error. */
typedef struct { long long out, in; const char *op; } proto_sumcheck;
/* "measure": L2 "cold" or "warm", verify every sample or not, compare `sample` elements, pass an
 * integer output with at most `mismatches` elements off the reference, let the device runtime
 * hold `pending` device-side launches (0: the driver's number). */
typedef struct {
	const char *cache;
	long long every;
	unsigned long long sample;
	long long mismatches, pending;
} proto_measure;
/* "constant": argument idx is copied into the module's __constant__ symbol `name`. */
typedef struct { long long idx; const char *name; } proto_constant;
/* "copy": argument `to` starts as a copy of argument `from`. */
typedef struct { long long to, from; } proto_copy;
/* "let NAME KIND VALUE": a constant the next fillexpr may name; KIND int ("%lld") or float
 * ("%a", exact). */
typedef struct { const char *name, *kind, *value; } proto_let;
/* "fillexpr IDX ROLE EXPR": argument idx's elements (ROLE fill), or what the output must equal
 * (ROLE expect), from an expression of i, lane and the constants let so far, evaluated by the
 * worker a slice at a time: nothing the size of the array is staged. Answer: ok, or error "eval"
 * with the element and why. */
typedef struct { long long idx; const char *role, *expr; } proto_fillexpr;
/* "fillfile IDX ROLE OFFSET PATH": the same from a file (fill: {file}, verify.expected): the
 * array's bytes start OFFSET bytes into the file at PATH (absolute), which the tuner checked
 * holds them; the worker reads it a slice at a time. Answer: ok, or error "file" and why. */
typedef struct { long long idx; const char *role; unsigned long long offset; const char *path; } proto_fillfile;
/* "hostref PATH": once the arrays are filled, call verify.host (the shared object at PATH,
 * absolute) on host copies of them; the outputs it writes become what every run must equal.
 * Answered once the function is loaded: the function runs on a thread, joined by the first run
 * that verifies (PROTO_HOSTWAIT).
 * Answer: ok, or error "host" and why. */
typedef struct { const char *path; } proto_hostref;
/* What the shared object exports: void PROTO_HOSTREF_SYMBOL(void **arrays), arrays[i] argument
 * i's host copy (NULL for a scalar, whose value it was built with). */
#define PROTO_HOSTREF_SYMBOL "autotune_host_reference"
typedef struct { long long grid[3], block[3], smem; } proto_launch;
/* A run's role: keep its outputs as the reference, compare with them, or only time (a finalist's
 * round). On the wire the words "ref", "check" and "time"; any other word makes the run malformed,
 * never a timing. */
typedef enum { PROTO_ROLE_REF, PROTO_ROLE_CHECK, PROTO_ROLE_TIME } proto_role;
const char *proto_role_name(proto_role role);
/* The role a word names: 0, or -1 for any other word. */
int proto_role_parse(const char *word, proto_role *role);
/* "run": warm up, sample and, by role, keep ("ref"), compare ("check") or only time ("time").
 * Answer: PROTO_RESULT. */
typedef struct {
	long long id;
	const char *role; /* proto_role_name() */
	long long warmup, min_samples, max_samples;
	double time_cap, noise;
	double race; /* ms: stop before min_samples once a sample is slower (0: never) */
	double near; /* ms: the same for the fastest of RACE_AFTER samples (0: never) */
	proto_launch launch;
	double rtol, atol;
	const char *symbol, *cubin;
} proto_run;
/* A run's stopping rule, to and from its fields: the one copy of the mapping. */
stop_rule proto_run_rule(const proto_run *run);
void proto_run_set_rule(proto_run *run, const stop_rule *rule);
/* "plan STREAMS ORDER LAUNCHES": the next run executes a plan instead of its own launch (whose
 * symbol and shape are the first step's): the LAUNCHES "step" lines that come next, in each of
 * STREAMS streams, ORDER "depth" (a stream's launches, then the next stream's) or "breadth" (a
 * launch in every stream, then the next launch). That run answers PROTO_SERIAL before its
 * result. No answer. */
typedef struct { long long streams; const char *order; long long launches; } proto_plan;
/* "step GRID BLOCK SMEM ARGS SYMBOL": one launch of the plan; ARGS the arguments passed, by
 * index, in order, separated by commas ("-": none). No answer. */
typedef struct { proto_launch launch; const char *args, *symbol; } proto_step;
/* "profile": queue one launch for the next "profiles" session. No answer. */
typedef struct { proto_launch launch; const char *symbol, *cubin; } proto_profile;
/* "counters SET": get the profiler ready for the metric set SET ("decide": those the selection
 * uses, two replay passes; "all": the five of the CSV, three), while kernels are timed. Answer: ok. */
typedef struct { const char *set; } proto_counters;

/* "energy SECONDS": the next run also reads the GPU's energy counter around back-to-back launches
 * of at least SECONDS (and enough of the counter's updates), after its samples, and answers
 * PROTO_JOULES before its result. No answer. */
typedef struct { double seconds; } proto_energy;

extern const proto_msg PROTO_ENERGY;
extern const proto_msg PROTO_DEVICE, PROTO_ARRAY, PROTO_SCALAR, PROTO_SUMCOUNT, PROTO_SUMCHECK, PROTO_MEASURE,
	PROTO_CONSTANT, PROTO_COPY, PROTO_LET, PROTO_FILLEXPR, PROTO_FILLFILE, PROTO_HOSTREF, PROTO_RUN, PROTO_PROFILE, PROTO_COUNTERS,
	PROTO_PLAN, PROTO_STEP;
/* Requests without fields: "count" (answer PROTO_COUNT), "warmup" (PROTO_WARM), "copybw" (PROTO_COPYBW), "profiles" (one PROTO_METRICS or
 * PROTO_UNAVAILABLE per queued profile), "quit" (no answer). */
extern const proto_msg PROTO_COUNT_ASK, PROTO_WARMUP, PROTO_COPYBW_ASK, PROTO_PROFILES, PROTO_QUIT;

/* ---- replies, worker to tuner ---- */

/* "ok" */
extern const proto_msg PROTO_OK;
/* "error CODE MESSAGE" (CODE: a CUDA error name, or "protocol") */
typedef struct { const char *code, *message; } proto_error;
/* "device ...": the GPU opened */
typedef struct {
	long long cc, sms, l2_bytes;
	unsigned long long mem_bytes;
	long long clock_khz, driver_version;
	const char *uuid, *name;
} proto_device_info;
typedef struct { long long n; } proto_count;
/* "ok MHZ MAX_MHZ": the SM clock reached after warming up */
typedef struct { double mhz, max_mhz; } proto_warm;
typedef struct { double gbps; } proto_copybw;
/* "result": one run's outcome. id and code: the journal's record of it ("done") uses both, the
 * wire only id (code is not sent). */
typedef struct {
	long long id;
	const char *code;
	const char *status; /* status_name() */
	double median, min, max;
	long long samples, driver_blocks;
	double noise;
	long long batch;
	double mhz_before, mhz_after;
	const char *message;
} proto_result;
/* "metrics": one profile's counters (result.h's METRIC_ order); the journal's record adds id. */
typedef struct { long long id; double v[5]; } proto_metrics;
/* "serial MS": a plan's launches timed one at a time, times its streams: what the plan would take
 * with nothing overlapping (the first answer to a plan's run; its result follows) */
typedef struct { double ms; } proto_serial;
/* "joules J W NOTE": a run's energy per launch (joules) and average power (watts) over its energy
 * window; J and W -1 when there is none, NOTE saying why (else how it was read) */
typedef struct { double joules, watts; const char *note; } proto_joules;
extern const proto_msg PROTO_JOULES;
/* "hostwait": a run that verifies waits for verify.host's thread, which the hostref command left
 * running (the first answer to that run; its result follows once the reference is on the GPU) */
extern const proto_msg PROTO_HOSTWAIT;
/* "unavailable WHY": one profile that could not be taken */
typedef struct { const char *why; } proto_unavailable;

extern const proto_msg PROTO_ERROR, PROTO_DEVICE_INFO, PROTO_COUNT, PROTO_WARM, PROTO_COPYBW, PROTO_RESULT,
	PROTO_METRICS, PROTO_UNAVAILABLE, PROTO_SERIAL;
/* The journal's records of a result and of counters: "done ID CODE <result's fields>" and
 * "metrics ID <metrics' fields>", the same fields in the same formats as the replies. */
extern const proto_msg PROTO_DONE, PROTO_METRICS_OF;

/* Every message above, for tests that must cover them all. */
extern const proto_msg *const proto_messages[];
extern const size_t proto_nmessages;

#endif
