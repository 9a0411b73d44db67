/* hostref.c: verify.host built for the worker. The user writes an ordinary C function of the
 * kernel's arguments; rather than a calling convention of our own, a generated caller calls it
 * with them, compiled in the same unit (-include), so that the host compiler checks the call
 * against the user's own prototype: a wrong count or a pointer of the wrong type is a compile
 * error at load time, not garbage compared at run time. */
#define _GNU_SOURCE /* open_memstream */
#include "hostref.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "config.h"
#include "elem.h"
#include "proc.h"
#include "banned.h"

/* a reference is a few lines of C; a compiler that takes this long is stuck */
#define HOST_CC_TIMEOUT 120.0

static const char *c_type(elem_type t)
{
	static const char *const names[] = {
		[ELEM_INT8] = "signed char",   [ELEM_INT16] = "short",	   [ELEM_INT32] = "int",
		[ELEM_INT64] = "long long",    [ELEM_UINT8] = "unsigned char", [ELEM_UINT16] = "unsigned short",
		[ELEM_UINT32] = "unsigned int", [ELEM_UINT64] = "unsigned long long", [ELEM_FLOAT] = "float",
		[ELEM_DOUBLE] = "double",
		/* C has no portable 16-bit float: the bits, as the GPU stores them (lib/half.h) */
		[ELEM_HALF] = "unsigned short", [ELEM_BFLOAT16] = "unsigned short",
	};
	/* a vector type has no C spelling the user's code must share: its pointer is void * */
	return elem_lanes(t) > 1 ? "void" : names[t];
}

/* A scalar's value as a C expression of its type, exactly. */
static void c_value(FILE *f, elem_type t, value v)
{
	if (t == ELEM_HALF || t == ELEM_BFLOAT16) {
		unsigned char bits[2];
		elem_put(bits, t, v);
		fprintf(f, "(unsigned short)0x%04x", bits[0] | bits[1] << 8);
		return;
	}
	if (elem_is_float(t)) {
		double x = v.kind == VAL_INT ? (double)v.u.i : v.u.f;
		if (isnan(x))
			fprintf(f, "(%s)NAN", c_type(t));
		else if (isinf(x))
			fprintf(f, "(%s)(%sINFINITY)", c_type(t), x < 0 ? "-" : "");
		else
			fprintf(f, "(%s)%a", c_type(t), x);
		return;
	}
	long long i = v.kind == VAL_INT ? v.u.i : (long long)v.u.f;
	if (i == LLONG_MIN) /* its literal would overflow before the minus applies */
		fprintf(f, "(%s)(-%lldLL - 1)", c_type(t), LLONG_MAX);
	else
		fprintf(f, "(%s)%lldLL", c_type(t), i);
}

char *hostref_caller(const config *cfg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		diag_out_of_memory();
	fprintf(f, "/* written by autotune for verify.host: calls %s with the kernel's arguments */\n"
		   "#include <math.h>\n"
		   "void " PROTO_HOSTREF_SYMBOL "(void **a);\n"
		   "void " PROTO_HOSTREF_SYMBOL "(void **a)\n{\n\t(void)a;\n\t%s(",
		cfg->host.function, cfg->host.function);
	for (size_t i = 0; i < cfg->nargs; i++) {
		const kernel_arg *x = &cfg->args[i];
		fprintf(f, "%s\n\t\t", i ? "," : "");
		if (x->is_array)
			fprintf(f, "(%s *)a[%zu]", c_type(x->type), i);
		else
			c_value(f, x->type, cfg->host.scalars[i]);
		/* the compiler quotes this line in its error: it says which argument is which */
		fprintf(f, " /* %s */", x->name);
	}
	fprintf(f, ");\n}\n");
	if (fclose(f))
		diag_out_of_memory();
	return text;
}

/* The call the generated caller makes, in C types: "f(float *out, float *in, int n)". Caller
 * frees. */
static char *call_shape(const config *cfg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		diag_out_of_memory();
	fprintf(f, "%s(", cfg->host.function);
	for (size_t i = 0; i < cfg->nargs; i++)
		fprintf(f, "%s%s %s%s", i ? ", " : "", c_type(cfg->args[i].type), cfg->args[i].is_array ? "*" : "",
			cfg->args[i].name);
	fputc(')', f);
	if (fclose(f))
		diag_out_of_memory();
	return text;
}

/* The host compiler: $AUTOTUNE_HOST_CC (one program, no arguments), else cc. Caller frees. */
static char *host_compiler(void)
{
	const char *cc = getenv("AUTOTUNE_HOST_CC");
	return proc_find_program(cc && *cc ? cc : "cc");
}

int hostref_build(config *cfg, const char *dir, diags *d)
{
	const mark at = cfg->host.at;
	char *cc = host_compiler();
	if (!cc) {
		diags_at(d, cfg->path, at.line, at.col, "verify host: no host compiler: 'cc' is not on PATH (or set AUTOTUNE_HOST_CC)");
		return -1;
	}
	char *caller = hostref_caller(cfg), *caller_path = xasprintf("%s/hostref_caller.c", dir);
	char *so = xasprintf("%s/hostref.so", dir), *out = NULL;
	int rc = -1;
	if (write_atomically(caller_path, caller, strlen(caller))) {
		diags_add(d, "autotune: cannot write '%s': %s", caller_path, strerror(errno));
		goto done;
	}
	const char *fixed[] = {cc, "-O2", "-fPIC", "-shared", "-Werror=incompatible-pointer-types",
			       "-Werror=implicit-function-declaration", "-Werror=int-conversion"};
	size_t nfixed = sizeof fixed / sizeof *fixed, n = 0;
	char **argv = xcalloc(nfixed + cfg->host.nflags + 8, sizeof *argv);
	for (size_t i = 0; i < nfixed; i++)
		argv[n++] = (char *)fixed[i];
	for (size_t i = 0; i < cfg->host.nflags; i++)
		argv[n++] = cfg->host.flags[i];
	argv[n++] = "-include";
	argv[n++] = cfg->host.source;
	argv[n++] = "-o";
	argv[n++] = so;
	argv[n++] = caller_path;
	argv[n++] = "-lm";
	int st = proc_capture(argv, HOST_CC_TIMEOUT, &out);
	free(argv);
	if (st == -1)
		diags_at(d, cfg->path, at.line, at.col, "verify host: cannot run %s: %s", cc, strerror(errno));
	else if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		/* the compiler's errors point into the generated caller, a temporary file: say its call */
		char *shape = call_shape(cfg);
		diags_at(d, cfg->path, at.line, at.col,
			 "verify host: %s could not build '%s' from %s (%s); autotune's generated hostref_caller.c "
			 "calls it with the kernel's arguments in order, as %s; the compiler says:\n%s",
			 cc, cfg->host.function, cfg->host.source, proc_describe_status(st), shape, out ? out : "");
		free(shape);
	} else {
		free(cfg->host.so);
		cfg->host.so = so;
		so = NULL;
		rc = 0;
	}
done:
	free(out);
	free(so);
	free(caller_path);
	free(caller);
	free(cc);
	return rc;
}
