/* args.c: the kernel's arguments, as the tuner describes them over the protocol: arrays
 * allocated and filled on the GPU (or loaded from files, copied from one another, sent to
 * __constant__ symbols), scalars, and how an output is checked (against the reference run, given
 * values, or a sum). They live here, apart from the device, the modules and the timing in
 * worker.c, because everything about them (fills, parameters, restoring inputs, poisoning and
 * verifying outputs) works on one table, which no other file needs to see. */
#include <cuda.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "elem.h"
#include "expr.h"
#include "fills.h"
#include "args.h"
#include "compare.h"
#include "device.h"
#include "protocol.h"
#include "verdict.h"
#include "banned.h"

typedef struct {
	int used;
	int is_array;
	elem_type type;
	size_t count;
	int output;
	CUdeviceptr ptr, ref;  /* ref: the reference run's output (outputs only) */
	CUdeviceptr pristine;  /* restore: the input as filled, copied back before every launch */
	int poison;            /* a pure output (filled with zeros): poisoned before verification */
	int summed;            /* checked by its sum against the input's (sumcheck), not element-wise */
	char *constant;        /* copied into this __constant__ symbol before launches, not passed */
	int ref_valid;         /* ref holds what this output must equal */
	int fixed_ref;         /* ref was given (verify.expect), not taken from a reference run */
	unsigned char scalar[8];
	char *name;            /* the config's name for it, for messages (NULL: not given) */
	char host_fill[16];    /* a fill the host makes as the GPU did (fills.h), until overwritten; "" */
	unsigned long long seed;
	double value;
} arg;

/* The arguments by the tuner's index, and the sum check. */
static struct {
	arg args[MAX_ARGS];
	int nargs;
	unsigned long long sample; /* verify.sample: about this many elements compared, 0: all */
	unsigned long long max_mismatches; /* verify.max_mismatches, for integer outputs */
	int sum_out, sum_in;  /* sumcheck: the output summed and the input it must add up to, or -1 */
	int sum_max;          /* the check compares maxima instead of sums */
	unsigned long long sum_count; /* elements of the output that count, for the next run */
	long long in_isum;    /* the input's sum, taken when it was pristine */
	double in_fsum;
} A = {.sum_out = -1, .sum_in = -1};

/* The helper kernel `what` (worker_kernels.cu) for t's base type: helpers see a vector as its
 * components. */
static CUfunction helper(const char *what, elem_type t)
{
	char name[64];
	CUfunction f = NULL;
	snprintf(name, sizeof name, "%s_%s", what, elem_name(elem_base(t)));
	cuModuleGetFunction(&f, W.helpers, name);
	return f;
}

static CUresult launch_helper(CUfunction f, void **params)
{
	/* grid-stride kernels: a few waves of blocks are plenty */
	return cuLaunchKernel(f, 1024, 1, 1, 256, 1, 1, 0, NULL, params, NULL);
}

void cmd_array(char *line)
{
	proto_array ask;
	elem_type t;
	if (proto_decode(&PROTO_ARRAY, line, &ask) || ask.idx < 0 || ask.idx >= MAX_ARGS || elem_parse(ask.type, &t)) {
		reply_error("protocol", "bad array command");
		return;
	}
	int idx = (int)ask.idx, output = ask.output != 0, restore = ask.restore != 0;
	unsigned long long count = ask.count, seed = ask.seed;
	double v = ask.value;
	const char *fill = ask.fill;
	arg *a = &A.args[idx];
	a->used = a->is_array = 1;
	a->type = t;
	free(a->name);
	a->name = ask.name ? strdup(ask.name) : NULL;
	a->count = count;
	a->output = output;
	/* An output filled with data is read by the kernel too (in place): poisoning it would
	 * destroy the input. Pure outputs are poisoned so an unwritten element shows. */
	a->poison = output && !strcmp(fill, "zeros");
	if (idx >= A.nargs)
		A.nargs = idx + 1;
	size_t bytes = count * elem_size(t);
	CUresult r = cuMemAlloc(&a->ptr, bytes);
	if (!r && output)
		r = cuMemAlloc(&a->ref, bytes);
	if (r) {
		size_t freeb = 0, total = 0;
		cuMemGetInfo(&freeb, &total);
		reply_error(err_name(r), "allocating %zu bytes for argument %d (%zu bytes free of %zu)",
			    bytes * (output ? 2 : 1), idx + 1, freeb, total);
		return;
	}
	uint64_t n = count * (uint64_t)elem_lanes(t); /* helpers work on the base type */
	if (!strcmp(fill, "random") || !strcmp(fill, "normal")) {
		void *params[] = {&a->ptr, &n, &seed};
		r = launch_helper(helper(!strcmp(fill, "random") ? "fill_random" : "fill_normal", t), params);
	} else if (!strcmp(fill, "index")) {
		void *params[] = {&a->ptr, &n};
		r = launch_helper(helper("fill_index", t), params);
	} else if (!strcmp(fill, "constant")) {
		void *params[] = {&a->ptr, &n, &v};
		r = launch_helper(helper("fill_constant", t), params);
	} else {
		r = cuMemsetD8(a->ptr, 0, bytes);
	}
	/* the host makes its copy itself for verify.host, instead of copying it from the GPU */
	a->host_fill[0] = 0;
	if (fills_on_host(fill, elem_base(t)))
		snprintf(a->host_fill, sizeof a->host_fill, "%s", fill);
	a->seed = seed;
	a->value = v;
	if (!r && restore && !(r = cuMemAlloc(&a->pristine, bytes)))
		r = cuMemcpyDtoD(a->pristine, a->ptr, bytes);
	if (!r)
		r = cuCtxSynchronize();
	if (r)
		reply_error(err_name(r), "filling argument %d", idx + 1);
	else
		reply_ok();
}

/* scalar: integers in decimal, floats as %a or %.17g */
void cmd_scalar(char *line)
{
	proto_scalar ask;
	elem_type t;
	if (proto_decode(&PROTO_SCALAR, line, &ask) || ask.idx < 0 || ask.idx >= MAX_ARGS || elem_parse(ask.type, &t)) {
		reply_error("protocol", "bad scalar command");
		return;
	}
	int idx = (int)ask.idx;
	const char *text = ask.text;
	arg *a = &A.args[idx];
	a->used = 1;
	a->is_array = 0;
	a->type = t;
	if (idx >= A.nargs)
		A.nargs = idx + 1;
	memset(a->scalar, 0, sizeof a->scalar);
	if (elem_is_float(t)) {
		/* float, double, or a 16-bit float rounded from the double once (elem.h) */
		elem_put(a->scalar, t, value_float(strtod(text, NULL)));
	} else {
		/* little-endian: the low bytes of the 64-bit value are the narrower integer */
		long long ll = strtoll(text, NULL, 0);
		memcpy(a->scalar, &ll, elem_size(t));
	}
}

static void value_text(elem_type t, CUdeviceptr p, char *buf, size_t len)
{
	unsigned char raw[8] = {0};
	cuMemcpyDtoH(raw, p, elem_size(t));
	float f;
	double d;
	long long ll = 0;
	unsigned long long ull = 0;
	switch (t) {
	case ELEM_FLOAT: memcpy(&f, raw, 4); snprintf(buf, len, "%.9g", f); return;
	case ELEM_DOUBLE: memcpy(&d, raw, 8); snprintf(buf, len, "%.17g", d); return;
	/* as many digits as tell the 16-bit value from its neighbours */
	case ELEM_HALF: snprintf(buf, len, "%.5g", half_to_double((uint16_t)(raw[0] | raw[1] << 8))); return;
	case ELEM_BFLOAT16: snprintf(buf, len, "%.4g", bf16_to_double((uint16_t)(raw[0] | raw[1] << 8))); return;
	case ELEM_INT8: ll = (int8_t)raw[0]; break;
	case ELEM_INT16: { int16_t v; memcpy(&v, raw, 2); ll = v; break; }
	case ELEM_INT32: { int32_t v; memcpy(&v, raw, 4); ll = v; break; }
	case ELEM_INT64: memcpy(&ll, raw, 8); break;
	default: memcpy(&ull, raw, elem_size(t)); snprintf(buf, len, "%llu", ull); return;
	}
	snprintf(buf, len, "%lld", ll);
}

/* Sums (or, with sumcheck's max, takes the maximum of) n elements of an argument on the GPU. */
static CUresult sum_of(const arg *a, CUdeviceptr p, unsigned long long n, long long *isum, double *fsum)
{
	double lowest = -INFINITY;
	unsigned long long init[4] = {0, 0, (unsigned long long)LLONG_MIN, 0}, got[4];
	memcpy(&init[3], &lowest, sizeof lowest);
	uint64_t count = n * (uint64_t)elem_lanes(a->type);
	void *params[] = {&p, &count, &W.counters};
	CUresult r;
	if ((r = cuMemcpyHtoD(W.counters, init, sizeof init)) || (r = launch_helper(helper("sum", a->type), params)) ||
	    (r = cuMemcpyDtoH(got, W.counters, sizeof got)))
		return r;
	*isum = (long long)got[A.sum_max ? 2 : 0];
	memcpy(fsum, &got[A.sum_max ? 3 : 1], sizeof *fsum);
	return CUDA_SUCCESS;
}

/* The constants that element expressions may name ("let"), as the tuner evaluated them. */
static struct {
	struct let {
		char *name;
		value v;
	} *v;
	size_t n, cap;
} L;

void cmd_let(char *line)
{
	proto_let ask;
	char *end = NULL;
	value v = value_int(0);
	if (!proto_decode(&PROTO_LET, line, &ask)) {
		errno = 0;
		if (!strcmp(ask.kind, "int"))
			v = value_int(strtoll(ask.value, &end, 10));
		else if (!strcmp(ask.kind, "float"))
			v = value_float(strtod(ask.value, &end));
	}
	if (!end || *end || errno) {
		reply_error("protocol", "bad let command");
		return;
	}
	if (L.n == L.cap) {
		size_t cap = L.cap ? 2 * L.cap : 8;
		struct let *grown = realloc(L.v, cap * sizeof *grown);
		if (!grown) {
			reply_error("ENOMEM", "out of memory for a constant");
			return;
		}
		L.v = grown;
		L.cap = cap;
	}
	char *name = strdup(ask.name);
	if (!name) {
		reply_error("ENOMEM", "out of memory for a constant");
		return;
	}
	L.v[L.n++] = (struct let){name, v};
	reply_ok();
}

static int element_lookup(void *ctx, const char *name, value *out)
{
	const long long *il = ctx;
	if (!strcmp(name, "i") || !strcmp(name, "lane")) {
		*out = value_int(il[name[0] == 'l']);
		return 0;
	}
	for (size_t k = L.n; k-- > 0;)
		if (!strcmp(L.v[k].name, name)) {
			*out = L.v[k].v;
			return 0;
		}
	return -1;
}

/* Evaluates e for every element into dst, a slice of about 4 MiB at a time: an array of any
 * size costs that much host memory and no file. */
static CUresult fill_from(const expr *e, const arg *a, CUdeviceptr dst, char *why, size_t len)
{
	size_t size = elem_size(a->type), per = (4u << 20) / size ? (4u << 20) / size : 1;
	int lanes = elem_lanes(a->type);
	elem_type b = elem_base(a->type);
	unsigned char *buf = malloc(per * size);
	if (!buf) {
		snprintf(why, len, "out of memory for a slice of %zu elements", per);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	CUresult r = CUDA_SUCCESS;
	for (size_t at = 0; at < a->count && !r; at += per) {
		size_t n = a->count - at < per ? a->count - at : per;
		for (size_t k = 0; k < n; k++)
			for (int lane = 0; lane < lanes; lane++) {
				long long il[2] = {(long long)(at + k), lane};
				value v;
				expr_error ee;
				if (expr_eval(e, element_lookup, il, &v, &ee)) {
					snprintf(why, len, "element %lld, lane %d: %s", il[0], lane, ee.msg);
					free(buf);
					return CUDA_ERROR_INVALID_VALUE;
				}
				elem_put(buf + k * size + (size_t)lane * elem_size(b), b, v);
			}
		r = cuMemcpyHtoD(dst + at * size, buf, n * size);
	}
	free(buf);
	if (r)
		snprintf(why, len, "copying the elements to the GPU");
	return r;
}

/* The argument a fillexpr or fillfile fills (role fill) or gives the expected values of (role
 * expect), *expect set; NULL once the error is answered. */
static arg *fill_target(long long idx, const char *role, const char *what, int *expect)
{
	if (idx < 0 || idx >= A.nargs || !A.args[idx].is_array || (strcmp(role, "fill") && strcmp(role, "expect"))) {
		reply_error("protocol", "bad %s command", what);
		return NULL;
	}
	*expect = !strcmp(role, "expect");
	if (*expect && !A.args[idx].output) {
		reply_error("protocol", "%s expect of an argument that is not an output", what);
		return NULL;
	}
	return &A.args[idx];
}

/* Answers a fill done: its pristine copy (restored inputs) takes it too; an expectation becomes
 * the reference the output is checked against. */
static void filled(arg *a, int expect)
{
	CUresult r;
	if (!expect && a->pristine && (r = cuMemcpyDtoD(a->pristine, a->ptr, a->count * elem_size(a->type)))) {
		reply_error(err_name(r), "copying the argument to its pristine copy");
		return;
	}
	if (expect)
		a->ref_valid = a->fixed_ref = 1;
	else
		a->host_fill[0] = 0;
	reply_ok();
}

/* fillexpr: the array's contents, or with role expect what the output must equal, from an
 * expression of each element's index. */
void cmd_fillexpr(char *line)
{
	proto_fillexpr ask;
	int expect;
	arg *a;
	if (proto_decode(&PROTO_FILLEXPR, line, &ask)) {
		reply_error("protocol", "bad fillexpr command");
		return;
	}
	if (!(a = fill_target(ask.idx, ask.role, "fillexpr", &expect)))
		return;
	expr_error ee;
	expr *e = expr_parse(ask.expr, &ee);
	if (!e) {
		reply_error("eval", "at offset %d: %s", ee.offset, ee.msg);
		return;
	}
	char why[256] = "";
	CUresult r = fill_from(e, a, expect ? a->ref : a->ptr, why, sizeof why);
	expr_free(e);
	if (r)
		reply_error(r == CUDA_ERROR_INVALID_VALUE ? "eval" : err_name(r), "%s", why);
	else
		filled(a, expect);
}

/* Copies `bytes` bytes of the file at path, from offset on, to dst, a slice of 4 MiB at a time:
 * host memory does not grow with the array. 0; -1 with why when the file cannot be read (*cr
 * CUDA_SUCCESS) or a copy failed (*cr its error). */
static int copy_file(const char *path, unsigned long long offset, size_t bytes, CUdeviceptr dst, CUresult *cr, char *why,
		     size_t len)
{
	size_t slice = 4u << 20;
	*cr = CUDA_SUCCESS;
	FILE *f = fopen(path, "rb");
	unsigned char *buf = f ? malloc(slice) : NULL;
	if (!f || !buf || fseeko(f, (off_t)offset, SEEK_SET)) {
		snprintf(why, len, "%s: %s", path, !f || buf ? strerror(errno) : "out of memory for a slice");
		free(buf);
		if (f)
			fclose(f);
		return -1;
	}
	int rc = 0;
	for (size_t at = 0, n; at < bytes && !rc; at += n) {
		n = bytes - at < slice ? bytes - at : slice;
		size_t got = fread(buf, 1, n, f);
		if (got != n) {
			/* the tuner checked its size: the file changed since */
			snprintf(why, len, "%s ends %zu bytes into the array's %zu (changed since autotune checked it?)", path,
				 at + got, bytes);
			rc = -1;
		} else if ((*cr = cuMemcpyHtoD(dst + at, buf, n))) {
			snprintf(why, len, "copying %s to the GPU", path);
			rc = -1;
		}
	}
	free(buf);
	fclose(f);
	return rc;
}

/* fillfile: the array's contents (and its pristine copy), or with role expect what the output
 * must equal, from a data file the tuner checked (its type and size). */
void cmd_fillfile(char *line)
{
	proto_fillfile ask;
	int expect;
	arg *a;
	if (proto_decode(&PROTO_FILLFILE, line, &ask) || ask.path[0] != '/') {
		reply_error("protocol", "bad fillfile command");
		return;
	}
	if (!(a = fill_target(ask.idx, ask.role, "fillfile", &expect)))
		return;
	char why[512] = "";
	CUresult r;
	if (copy_file(ask.path, ask.offset, a->count * elem_size(a->type), expect ? a->ref : a->ptr, &r, why, sizeof why))
		reply_error(r ? err_name(r) : "file", "%s", why);
	else
		filled(a, expect);
}

/* copy: an array that starts as a copy of another (fill: {copy: NAME}); its pristine copy, if
 * it has one, follows. */
void cmd_copy(char *line)
{
	proto_copy ask;
	if (proto_decode(&PROTO_COPY, line, &ask) || ask.to < 0 || ask.from < 0 || ask.to >= A.nargs ||
	    ask.from >= A.nargs || !A.args[ask.to].is_array || !A.args[ask.from].is_array) {
		reply_error("protocol", "bad copy command");
		return;
	}
	int to = (int)ask.to, from = (int)ask.from;
	arg *a = &A.args[to], *b = &A.args[from];
	a->host_fill[0] = 0;
	size_t bytes = (a->count < b->count ? a->count : b->count) * elem_size(a->type);
	CUresult r = cuMemcpyDtoD(a->ptr, b->pristine ? b->pristine : b->ptr, bytes);
	if (!r && a->pristine)
		r = cuMemcpyDtoD(a->pristine, a->ptr, bytes);
	if (r)
		reply_error(err_name(r), "copying argument %d into %d", from + 1, to + 1);
	else
		reply_ok();
}

int args_count(void) { return A.nargs; }

host_view args_host_view(int i)
{
	const arg *a = &A.args[i];
	return (host_view){.is_array = a->is_array, .type = a->type, .count = a->count,
			   .bytes = a->count * elem_size(a->type), .host_fill = a->host_fill, .seed = a->seed,
			   .value = a->value, .src = a->pristine ? a->pristine : a->ptr, .ref = a->ref,
			   .from_host = a->is_array && a->output && !a->fixed_ref && !a->summed};
}

void args_host_given(int i, int ok) { A.args[i].ref_valid = A.args[i].fixed_ref = ok; }

/* constant: the array goes to the module's __constant__ symbol, not a parameter. */
void cmd_constant(char *line)
{
	proto_constant ask;
	if (proto_decode(&PROTO_CONSTANT, line, &ask) || ask.idx < 0 || ask.idx >= A.nargs || !A.args[ask.idx].is_array) {
		reply_error("protocol", "bad constant command");
		return;
	}
	free(A.args[ask.idx].constant);
	A.args[ask.idx].constant = strdup(ask.name);
	reply_ok();
}

/* Fills the module's __constant__ symbols from their arguments; a missing symbol is an error of
 * the configuration (its name in msg). */
CUresult fill_constants(CUmodule mod, char *msg, size_t len)
{
	for (int i = 0; i < A.nargs; i++) {
		arg *a = &A.args[i];
		if (!a->constant)
			continue;
		CUdeviceptr sym;
		size_t bytes, have = a->count * elem_size(a->type);
		CUresult r = cuModuleGetGlobal(&sym, &bytes, mod, a->constant);
		if (r) {
			snprintf(msg, len, ": no __constant__ symbol '%s' in the module", a->constant);
			return r;
		}
		if ((r = cuMemcpyDtoD(sym, a->ptr, bytes < have ? bytes : have)))
			return r;
	}
	return CUDA_SUCCESS;
}

void set_params(void **params, unsigned char (*scalars)[8])
{
	int n = 0;
	for (int i = 0; i < A.nargs; i++)
		if (!A.args[i].constant)
			params[n++] = A.args[i].is_array ? (void *)&A.args[i].ptr :
				      scalars ? (void *)scalars[i] : (void *)A.args[i].scalar;
}

int set_params_of(void **params, const int *idx, int n)
{
	for (int k = 0; k < n; k++) {
		if (idx[k] < 0 || idx[k] >= A.nargs || !A.args[idx[k]].used || A.args[idx[k]].constant)
			return -1;
		arg *a = &A.args[idx[k]];
		params[k] = a->is_array ? (void *)&a->ptr : (void *)a->scalar;
	}
	return 0;
}

void save_scalars(unsigned char (*scalars)[8])
{
	for (int i = 0; i < A.nargs; i++)
		memcpy(scalars[i], A.args[i].scalar, sizeof scalars[i]);
}

/* sumcheck: the output is checked by its sum against the input's, taken now. */
void cmd_sumcheck(char *line)
{
	proto_sumcheck ask;
	if (proto_decode(&PROTO_SUMCHECK, line, &ask) || ask.out < 0 || ask.in < -1 || ask.out >= A.nargs ||
	    ask.in >= A.nargs || !A.args[ask.out].is_array || (ask.in >= 0 && !A.args[ask.in].is_array)) {
		reply_error("protocol", "bad sumcheck command");
		return;
	}
	int out = (int)ask.out, in = (int)ask.in;
	A.sum_max = ask.op && !strcmp(ask.op, "max");
	/* in = -1: the expected sum comes with each run (sumcount), from verify.sum.equals */
	CUresult r = in < 0 ? CUDA_SUCCESS : sum_of(&A.args[in], A.args[in].ptr, A.args[in].count, &A.in_isum, &A.in_fsum);
	if (r) {
		reply_error(err_name(r), "summing argument %d", in + 1);
		return;
	}
	A.sum_out = out;
	A.sum_in = in;
	A.args[out].summed = 1;
	reply_ok();
}

/* sumcount: how many elements of the output the next run's sum covers, and the sum expected
 * when no input gives it (verify.sum.equals). */
void cmd_sumcount(const proto_sumcount *sc)
{
	A.sum_count = sc->count;
	if (sc->expected && A.sum_in < 0) {
		A.in_isum = strtoll(sc->expected, NULL, 10);
		A.in_fsum = strtod(sc->expected, NULL);
	}
}

/* measure's verify.sample: about this many elements of each output are compared, 0: all; and
 * verify.max_mismatches: an integer output passes with this many elements off the reference */
void args_set_sample(unsigned long long sample, long long mismatches)
{
	A.sample = sample;
	A.max_mismatches = mismatches > 0 ? (unsigned long long)mismatches : 0;
}

/* The sum check of the last launch: 1 and msg on a mismatch. */
int verify_sum(double rtol, double atol, char *msg, size_t len, CUresult *err)
{
	if (A.sum_out < 0)
		return 0;
	arg *a = &A.args[A.sum_out];
	unsigned long long n = A.sum_count < a->count ? A.sum_count : a->count;
	long long isum;
	double fsum;
	/* NaN: the tolerance the output's type takes by default (elem.h) */
	rtol = isnan(rtol) ? elem_default_rtol(a->type) : rtol;
	atol = isnan(atol) ? elem_default_atol(a->type) : atol;
	if ((*err = sum_of(a, a->ptr, n, &isum, &fsum)))
		return 0;
	if (elem_is_float(a->type) ? fabs(fsum - A.in_fsum) <= atol + rtol * fabs(A.in_fsum) : isum == A.in_isum)
		return 0;
	if (elem_is_float(a->type))
		snprintf(msg, len, "argument %d: the %s of its first %llu elements is %.17g, expected %.17g", A.sum_out + 1,
			 A.sum_max ? "maximum" : "sum", n, fsum, A.in_fsum);
	else
		snprintf(msg, len, "argument %d: the %s of its first %llu elements is %lld, expected %lld", A.sum_out + 1,
			 A.sum_max ? "maximum" : "sum", n, isum, A.in_isum);
	return 1;
}

static double double_of(unsigned long long bits)
{
	double d;
	memcpy(&d, &bits, sizeof d);
	return d;
}

/* The verdict on output argument i (verdict.h), from the compare helper's counters c (compare.h)
 * over n values of the base type, every stride-th, and the values where the error is largest. */
static void mismatch_text(int i, const arg *a, const unsigned long long *c, uint64_t n, uint64_t stride, char *msg,
			  size_t len)
{
	elem_type base = elem_base(a->type);
	size_t es = elem_size(base);
	char g[64] = "", w[64] = "";
	/* the index is known below 2^32 values (the argmax word holds 32 bits of it) */
	long long at = c[CMP_ARGMAX] && n <= (1ull << 32) ? (long long)(0xFFFFFFFFull - (c[CMP_ARGMAX] & 0xFFFFFFFFull)) : -1;
	if (at >= 0) {
		value_text(base, a->ptr + (size_t)at * es, g, sizeof g);
		value_text(base, a->ref + (size_t)at * es, w, sizeof w);
	}
	verdict v = {.arg = i, .name = a->name, .is_float = elem_is_float(a->type), .lanes = elem_lanes(a->type),
		     .given = a->fixed_ref, .n = n, .stride = stride, .bad = c[CMP_BAD], .first = c[CMP_FIRST],
		     .last = c[CMP_LAST], .finite_error = c[CMP_ARGMAX] != 0, .max_abs = double_of(c[CMP_MAX_ABS]),
		     .max_rel = double_of(c[CMP_MAX_REL]), .argmax = at, .got_at = g, .want_at = w,
		     .got_nan = c[CMP_GOT_NAN], .got_inf = c[CMP_GOT_INF], .ref_nan = c[CMP_REF_NAN],
		     .ref_inf = c[CMP_REF_INF], .ref_zero = c[CMP_REF_ZERO]};
	verdict_text(&v, msg, len);
}

/* Compares every output with the reference; fills msg and returns 1 on a mismatch. */
int verify(double rtol, double atol, char *msg, size_t len, CUresult *err)
{
	if (verify_sum(rtol, atol, msg, len, err))
		return 1;
	if (*err)
		return 0;
	for (int i = 0; i < A.nargs; i++) {
		arg *a = &A.args[i];
		if (!a->is_array || !a->output || a->summed || !a->ref_valid)
			continue;
		unsigned long long init[CMP_COUNT] = {[CMP_FIRST] = ~0ull}, got[CMP_COUNT];
		uint64_t n = a->count * (uint64_t)elem_lanes(a->type);
		uint64_t stride = A.sample && a->count > A.sample ? a->count / A.sample : 1;
		/* NaN: the tolerance the output's type takes by default (elem.h) */
		double rt = isnan(rtol) ? elem_default_rtol(a->type) : rtol, at = isnan(atol) ? elem_default_atol(a->type) : atol;
		void *params[] = {&a->ptr, &a->ref, &n, &stride, &rt, &at, &W.counters};
		if ((*err = cuMemcpyHtoD(W.counters, init, sizeof init)) ||
		    (*err = launch_helper(helper("compare", a->type), params)) ||
		    (*err = cuMemcpyDtoH(got, W.counters, sizeof got)))
			return 0;
		/* integers that may be off in a few elements (points on a boundary) pass up to the limit */
		if (got[CMP_BAD] && !(elem_is_float(a->type) == 0 && got[CMP_BAD] <= A.max_mismatches)) {
			mismatch_text(i, a, got, n, stride, msg, len);
			return 1;
		}
	}
	return 0;
}

/* Inputs that the kernel overwrites (`restore: true`) get their pristine contents back before
 * every launch that counts, outside any timed region. */
CUresult restore_inputs(void)
{
	CUresult r = CUDA_SUCCESS;
	for (int i = 0; i < A.nargs && !r; i++)
		if (A.args[i].is_array && A.args[i].pristine)
			r = cuMemcpyDtoDAsync(A.args[i].ptr, A.args[i].pristine, A.args[i].count * elem_size(A.args[i].type), NULL);
	return r;
}

int has_restore(void)
{
	for (int i = 0; i < A.nargs; i++)
		if (A.args[i].is_array && A.args[i].pristine)
			return 1;
	return 0;
}

/* Before a verification run: pure outputs get 0xFF bytes, so that an element the kernel never
 * writes fails the comparison. */
CUresult poison_outputs(void)
{
	CUresult r = CUDA_SUCCESS;
	for (int i = 0; i < A.nargs && !r; i++)
		if (A.args[i].is_array && A.args[i].poison)
			r = cuMemsetD8(A.args[i].ptr, 0xFF, A.args[i].count * elem_size(A.args[i].type));
	return r;
}

/* ref: the outputs of the reference run are what the others must equal, except those whose
 * values were given (verify.expect), which the reference is checked against too. */
CUresult keep_reference(void)
{
	CUresult r = CUDA_SUCCESS;
	for (int i = 0; i < A.nargs && !r; i++)
		if (A.args[i].is_array && A.args[i].output && !A.args[i].fixed_ref) {
			r = cuMemcpyDtoD(A.args[i].ref, A.args[i].ptr, A.args[i].count * elem_size(A.args[i].type));
			A.args[i].ref_valid = !r;
		}
	return r;
}

void args_free(void)
{
	for (int i = 0; i < MAX_ARGS; i++) {
		free(A.args[i].constant);
		free(A.args[i].name);
	}
	for (size_t k = 0; k < L.n; k++)
		free(L.v[k].name);
	free(L.v);
}
