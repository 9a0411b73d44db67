/* fake_nvcc.c: stands in for nvcc in the unit tier (the runner names it in NVCC): no CUDA toolkit,
 * no GPU. It answers what the pipeline asks of nvcc:
 *   -cubin ... -x cu SRC -o OUT   the host's C preprocessor (cc -E, with the -D/-U/-I given and,
 *       for -MD -MF, the dependency file) runs over SRC, so #if, #include and #error behave as
 *       they do under nvcc; each __global__ function (an explicit template instantiation too) is an
 *       entry of an ELF cubin with a .text section (a hash of the preprocessed source, the flags
 *       that change code, the arch and the registers used) and a .nv.info section (its parameters'
 *       sizes, as EIATTR_KPARAM_INFO, and the -maxrregcount asked for); -Xptxas -v prints ptxas's
 *       report of each entry: 8 + 2 per ';' of its body registers, capped by -maxrregcount with
 *       the rest spilled, its __shared__ arrays' bytes, a barrier when it calls __syncthreads;
 *       -DFAKE_NVCC_FUTURE_RECORD adds a record of an unknown format to each .nv.info section.
 *   -dlink ... OBJ ... -o OUT     copies the relocatable cubin (build.rdc's link).
 *   -dryrun                       names its own directory as _HERE_, as nvcc does.
 * The toolkit's 16-bit float headers are tests/fake_cuda's stand-ins (the types, no functions).
 * A name in a __shared__ array's extent that the preprocessed source neither defines nor declares
 * is nvcc's `SRC(LINE): error: identifier "NAME" is undefined` (exit 1, the dependency file
 * written), as for a macro that no -D gives.
 * An argument that is not an option and not the one source is refused, as nvcc refuses it. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ARGS 256

typedef struct {
	const char *out, *source, *depfile, *arch;
	int dlink, dryrun, verbose, maxrreg;
	const char *cpp[MAX_ARGS]; /* -D, -U, -I for the preprocessor */
	int ncpp;
	const char *code[MAX_ARGS]; /* the other options: they change the code */
	int ncode;
	const char *objs[MAX_ARGS]; /* -dlink's inputs */
	int nobjs;
} args;

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "fake_nvcc: out of memory\n");
		exit(1);
	}
	return p;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ULL;
	return h;
}

/* The value of an option given as -opt=V, -opt V or -optV (NULL when a is not opt). */
static const char *option_value(int argc, char **argv, int *i, const char *opt)
{
	size_t n = strlen(opt);
	if (strncmp(argv[*i], opt, n))
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n])
		return opt[1] == '-' || n > 2 ? NULL : argv[*i] + n;
	return *i + 1 < argc ? argv[++*i] : "";
}

static int parse_args(int argc, char **argv, args *a)
{
	memset(a, 0, sizeof *a);
	a->arch = "sm_52";
	for (int i = 1; i < argc; i++) {
		const char *v, *s = argv[i];
		if (a->ncpp + 2 >= MAX_ARGS || a->ncode + 1 >= MAX_ARGS || a->nobjs + 1 >= MAX_ARGS) {
			fprintf(stderr, "fake_nvcc fatal: too many arguments\n");
			return -1;
		}
		if (!strcmp(s, "-dryrun"))
			a->dryrun = 1;
		else if (!strcmp(s, "-dlink"))
			a->dlink = 1;
		else if (!strcmp(s, "-cubin") || !strcmp(s, "-MD"))
			continue;
		else if ((v = option_value(argc, argv, &i, "-o")))
			a->out = v;
		else if ((v = option_value(argc, argv, &i, "-MF")))
			a->depfile = v;
		else if ((v = option_value(argc, argv, &i, "-x")))
			continue; /* compiled as CUDA whatever its extension */
		else if ((v = option_value(argc, argv, &i, "-arch")))
			a->arch = v;
		else if ((v = option_value(argc, argv, &i, "-maxrregcount")))
			a->maxrreg = atoi(v);
		else if ((v = option_value(argc, argv, &i, "-Xptxas")) || (v = option_value(argc, argv, &i, "-Xnvlink"))) {
			if (!strcmp(v, "-v"))
				a->verbose = 1;
			else
				a->code[a->ncode++] = v;
		} else if (!strncmp(s, "-D", 2) || !strncmp(s, "-U", 2) || !strncmp(s, "-I", 2)) {
			a->cpp[a->ncpp++] = s;
			if (!s[2] && i + 1 < argc)
				a->cpp[a->ncpp++] = argv[++i];
		} else if (s[0] == '-')
			a->code[a->ncode++] = s;
		else if (a->dlink)
			a->objs[a->nobjs++] = s;
		else if (!a->source)
			a->source = s;
		else {
			fprintf(stderr, "nvcc fatal   : Don't know what to do with '%s'\n", s);
			return -1;
		}
	}
	return 0;
}

/* nvcc -dryrun names the directory of the nvcc proper (CMake's FindCUDAToolkit reads it). */
static int dry_run(const char *self)
{
	char real[PATH_MAX];
	if (!realpath(self, real) || !strrchr(real, '/'))
		return 1;
	*strrchr(real, '/') = 0;
	fprintf(stderr, "#$ _HERE_=%s\n#$ _THERE_=%s\n", real, real);
	return 0;
}

static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
	char buf[65536];
	size_t n;
	int rc = in && out ? 0 : -1;
	while (rc == 0 && (n = fread(buf, 1, sizeof buf, in)) > 0)
		rc = fwrite(buf, 1, n, out) == n ? 0 : -1;
	if (in)
		fclose(in);
	if (out && fclose(out))
		rc = -1;
	if (rc)
		fprintf(stderr, "nvlink fatal : cannot copy '%s' to '%s': %s\n", from, to, strerror(errno));
	return rc;
}

/* The toolkit's headers that kernels include for their types (cuda_fp16.h, cuda_bf16.h), as
 * stand-ins declaring those types alone: tests/fake_cuda beside the build/ this program is in. */
static char toolkit_stubs[PATH_MAX];

static void find_toolkit_stubs(const char *self)
{
	char real[PATH_MAX];
	if (!realpath(self, real) || !strrchr(real, '/'))
		return;
	*strrchr(real, '/') = 0;
	snprintf(toolkit_stubs, sizeof toolkit_stubs, "%.*s/../tests/fake_cuda", PATH_MAX - 32, real);
}

/* The preprocessed source (caller frees), from cc -E with the -D/-U/-I given; NULL when the
 * preprocessor fails (its messages, an #error's among them, went to stderr). */
static char *preprocess(const args *a, const char *tmp)
{
	const char *argv[MAX_ARGS + 16];
	int n = 0;
	argv[n++] = "cc";
	argv[n++] = "-E";
	argv[n++] = "-x";
	argv[n++] = "c++";
	argv[n++] = "-D__CUDACC__";
	argv[n++] = "-D__NVCC__";
	if (toolkit_stubs[0]) {
		argv[n++] = "-isystem";
		argv[n++] = toolkit_stubs;
	}
	for (int i = 0; i < a->ncpp; i++)
		argv[n++] = a->cpp[i];
	if (a->depfile) {
		argv[n++] = "-MD";
		argv[n++] = "-MF";
		argv[n++] = a->depfile;
		argv[n++] = "-MT";
		argv[n++] = a->out ? a->out : "a.cubin";
	}
	argv[n++] = a->source;
	argv[n++] = "-o";
	argv[n++] = tmp;
	argv[n] = NULL;
	pid_t pid = fork();
	if (pid == 0) {
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return NULL;
	FILE *f = fopen(tmp, "r");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, len = 0, got;
	char *text = xmalloc(cap);
	while ((got = fread(text + len, 1, cap - len - 1, f)) > 0)
		if ((len += got) + 1 == cap)
			text = realloc(text, cap *= 2);
	fclose(f);
	text[len] = 0;
	/* line markers (# 12 "file") name paths, which are no part of the code */
	char *w = text;
	for (char *line = text; *line;) {
		char *eol = strchr(line, '\n');
		size_t l = eol ? (size_t)(eol - line) + 1 : strlen(line);
		int marker = line[0] == '#' && line[1] == ' ' && line[2] >= '0' && line[2] <= '9';
		if (!marker) {
			memmove(w, line, l);
			w += l;
		}
		line += l;
	}
	*w = 0;
	return text;
}

/* An entry point of the module. */
typedef struct {
	char name[256], symbol[512];
	size_t sizes[64], nparams;
	int registers, spilled, barriers;
	long smem;
	uint64_t code;
} entry;

static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Whether the preprocessed text declares name: a type or `template <int` before it, or `=` after
 * it (a constant, an enumerator). */
static int declared(const char *text, const char *name, size_t n)
{
	static const char *const before[] = {"int ", "unsigned ", "long ", "size_t ", "short ", "char ", "typename ",
					     "class ", "auto ", "float ", "double "};
	for (const char *p = text; (p = strstr(p, name)); p += n) {
		if ((p > text && ident_char(p[-1])) || ident_char(p[n]))
			continue;
		for (size_t i = 0; i < sizeof before / sizeof *before; i++) {
			size_t b = strlen(before[i]);
			if ((size_t)(p - text) >= b && !strncmp(p - b, before[i], b))
				return 1;
		}
		const char *q = p + n;
		while (*q == ' ')
			q++;
		if (q[0] == '=' && q[1] != '=')
			return 1;
	}
	return 0;
}

/* The first name of a __shared__ array's extent that nothing declares, said as nvcc says it, with
 * the line of the source it is on: 1; else 0. */
static int undefined_extent(const char *text, const char *source)
{
	for (const char *s = text; (s = strstr(s, "__shared__")); s += 10) {
		const char *semi = strchr(s, ';');
		for (const char *b = strchr(s, '['); b && semi && b < semi; b = strchr(b + 1, '['))
			for (const char *p = b + 1; *p && *p != ']'; p++) {
				if (!ident_char(*p) || (*p >= '0' && *p <= '9') || ident_char(p[-1]))
					continue;
				size_t n = 0;
				while (ident_char(p[n]))
					n++;
				char name[128];
				snprintf(name, sizeof name, "%.*s", (int)n, p);
				if (!strcmp(name, "sizeof") || declared(text, name, n))
					continue;
				FILE *f = fopen(source, "r");
				char line[4096];
				int at = 0, found = 0;
				while (f && !found && fgets(line, sizeof line, f))
					found = ++at && strstr(line, name);
				if (f)
					fclose(f);
				fprintf(stderr, "%s(%d): error: identifier \"%s\" is undefined\n\n1 error detected in the compilation of \"%s\".\n",
					source, found ? at : 1, name, source);
				return 1;
			}
	}
	return 0;
}

/* The bracket matching the one at p ('(' or '{' or '<'), or NULL. */
static const char *matching(const char *p)
{
	char open = *p, close = open == '(' ? ')' : open == '{' ? '}' : '>';
	int depth = 0;
	for (; *p; p++)
		if (*p == open)
			depth++;
		else if (*p == close && --depth == 0)
			return p;
	return NULL;
}

/* A parameter's size and its Itanium mangling (appended to m). */
static size_t param(const char *p, size_t n, char *m, size_t mlen)
{
	char text[256];
	snprintf(text, sizeof text, "%.*s", (int)n, p);
	int pointers = 0;
	for (char *c = text; *c; c++)
		if (*c == '*')
			pointers++;
	static const struct {
		const char *type, *code;
		size_t size;
	} types[] = {
		{"unsigned long long", "y", 8}, {"long long", "x", 8}, {"unsigned long", "m", 8}, {"unsigned int", "j", 4},
		{"unsigned char", "h", 1}, {"unsigned short", "t", 2}, {"unsigned", "j", 4}, {"size_t", "m", 8},
		{"double4", "7double4", 32}, {"double2", "7double2", 16}, {"float4", "6float4", 16},
		{"float2", "6float2", 8}, {"int4", "4int4", 16}, {"int2", "4int2", 8}, {"__half2", "7__half2", 4},
		{"__half", "6__half", 2}, {"__nv_bfloat162", "14__nv_bfloat162", 4}, {"__nv_bfloat16", "13__nv_bfloat16", 2}, {"double", "d", 8}, {"float", "f", 4}, {"int64_t", "l", 8},
		{"uint64_t", "m", 8}, {"int32_t", "i", 4}, {"uint32_t", "j", 4}, {"long", "l", 8}, {"short", "s", 2},
		{"char", "c", 1}, {"bool", "b", 1}, {"int", "i", 4}, {"void", "v", 1},
	};
	const char *code = "i";
	size_t size = 4;
	for (size_t i = 0; i < sizeof types / sizeof *types; i++)
		if (strstr(text, types[i].type)) {
			code = types[i].code;
			size = types[i].size;
			break;
		}
	size_t at = strlen(m);
	for (int i = 0; i < pointers; i++)
		at += (size_t)snprintf(m + at, mlen - at, "P%s", i == 0 && strstr(text, "const") ? "K" : "");
	snprintf(m + at, mlen - at, "%s", code);
	return pointers ? 8 : size;
}

/* A product of literals (4 * 8), as the preprocessor leaves an extent; 1 when it is none. */
static long extent(const char *p)
{
	long v = 1;
	for (;;) {
		while (*p == ' ' || *p == '(')
			p++;
		char *end;
		long k = strtol(p, &end, 0);
		if (end == p || k <= 0)
			return v;
		v *= k;
		for (p = end; *p == ' ' || *p == ')' || *p == 'u' || *p == 'U'; p++)
			;
		if (*p++ != '*')
			return v;
	}
}

/* A __shared__ array's bytes: the element's size times each [N] of it. */
static long shared_bytes(const char *p, const char *end)
{
	long total = 0;
	for (const char *s = p; (s = strstr(s, "__shared__")) && s < end; s += 10) {
		const char *semi = strchr(s, ';');
		if (!semi || semi > end)
			break;
		char decl[512];
		snprintf(decl, sizeof decl, "%.*s", (int)(semi - s), s);
		if (strstr(decl, "extern"))
			continue;
		long bytes = strstr(decl, "double") || strstr(decl, "long") ? 8 : strstr(decl, "char") ? 1 : 4;
		for (char *b = strchr(decl, '['); b; b = strchr(b + 1, '['))
			bytes *= extent(b + 1);
		total += bytes;
	}
	return total;
}

/* The entry named name (nlen bytes; targs: an instantiation's template arguments) whose parameters
 * stand between open and close, its body between body and body_end (NULL when none is found). */
static void describe(entry *e, const char *name, size_t nlen, const char *targs, const char *open, const char *close,
		     const char *body, const char *body_end, int plain, const args *a)
{
	snprintf(e->name, sizeof e->name, "%.*s", (int)nlen, name);
	char mangled[400] = "";
	e->nparams = 0;
	for (const char *p = open + 1; p < close && e->nparams < 64;) {
		const char *q = p;
		int depth = 0;
		while (q < close && (depth || *q != ',')) {
			depth += *q == '<' || *q == '(' ? 1 : *q == '>' || *q == ')' ? -1 : 0;
			q++;
		}
		const char *t = p;
		while (t < q && (*t == ' ' || *t == '\n' || *t == '\t'))
			t++;
		if (q > t && strncmp(t, "void", (size_t)(q - t) < 4 ? (size_t)(q - t) : 4))
			e->sizes[e->nparams++] = param(t, (size_t)(q - t), mangled, sizeof mangled);
		p = q + 1;
	}
	if (plain)
		snprintf(e->symbol, sizeof e->symbol, "%s", e->name);
	else
		snprintf(e->symbol, sizeof e->symbol, "_Z%zu%s%s%s%s%s", nlen, e->name, targs ? "I" : "", targs ? targs : "",
			 targs ? "Ev" : "", *mangled ? mangled : "v");
	long semis = 0;
	for (const char *p = body; p && p < body_end; p++)
		semis += *p == ';';
	int natural = (int)(8 + 2 * semis > 255 ? 255 : 8 + 2 * semis);
	e->registers = a->maxrreg > 0 && natural > a->maxrreg ? a->maxrreg : natural;
	e->spilled = (natural - e->registers) * 4;
	e->smem = body ? shared_bytes(body, body_end) : 0;
	const char *sync = body ? strstr(body, "__syncthreads") : NULL;
	e->barriers = sync && sync < body_end;
	uint64_t h = fnv(0xcbf29ce484222325ULL, body ? body : "", body ? (size_t)(body_end - body) : 0);
	h = fnv(h, e->symbol, strlen(e->symbol));
	h = fnv(h, a->arch, strlen(a->arch));
	for (int i = 0; i < a->ncode; i++)
		h = fnv(h, a->code[i], strlen(a->code[i]) + 1);
	e->code = fnv(h, &e->registers, sizeof e->registers);
}

/* The body of the function template whose name is the nlen bytes at `at`, in text, or NULL. */
static const char *template_body(const char *text, const char *at, size_t nlen, const char **end)
{
	char name[256];
	snprintf(name, sizeof name, "%.*s", (int)nlen, at);
	for (const char *p = text; (p = strstr(p, name)); p += nlen) {
		const char *q = p + nlen;
		if ((p > text && ident_char(p[-1])) || ident_char(*q))
			continue;
		while (*q == ' ' || *q == '\n')
			q++;
		const char *close = *q == '(' ? matching(q) : NULL, *brace = close ? close + 1 : NULL;
		while (brace && *brace && *brace != '{' && *brace != ';')
			brace++;
		if (brace && *brace == '{' && (*end = matching(brace)))
			return brace;
	}
	return NULL;
}

/* A template argument as the Itanium ABI mangles it, appended to out: an integer `Li256E`
 * (`Lin4E`), true/false `Lb1E`, a builtin type its letter, any other name `<length><name>`. */
static void mangle_arg(const char *s, size_t n, char *out, size_t cap)
{
	static const char *const builtin[][2] = {{"float", "f"}, {"double", "d"}, {"int", "i"}, {"unsigned int", "j"},
						  {"char", "c"}, {"bool", "b"}, {"long", "l"}, {"short", "s"}};
	while (n && *s == ' ')
		s++, n--;
	while (n && s[n - 1] == ' ')
		n--;
	size_t k = strlen(out);
	char *end;
	long v = strtol(s, &end, 10);
	if (end == s + n && n)
		snprintf(out + k, cap - k, "Li%s%ldE", v < 0 ? "n" : "", v < 0 ? -v : v);
	else if ((n == 4 && !strncmp(s, "true", 4)) || (n == 5 && !strncmp(s, "false", 5)))
		snprintf(out + k, cap - k, "Lb%dE", n == 4);
	else {
		for (size_t b = 0; b < sizeof builtin / sizeof *builtin; b++)
			if (strlen(builtin[b][0]) == n && !strncmp(s, builtin[b][0], n)) {
				snprintf(out + k, cap - k, "%s", builtin[b][1]);
				return;
			}
		snprintf(out + k, cap - k, "%zu%.*s", n, (int)n, s);
	}
}

/* The instances autotune's copy takes by address (`= (void *)&scale<__half, 256>;`, for a templated
 * entry), each an entry of the function template's parameters and body, its template arguments
 * mangled as nvcc does. */
static size_t find_taken_instances(const char *text, entry *es, size_t n, size_t max, const args *a)
{
	for (const char *t = text; n < max && (t = strstr(t, "autotune_tuned_instance_")); t++) {
		const char *amp = strstr(t, "(void *)&"), *lt = amp ? strchr(amp, '<') : NULL, *gt = lt ? matching(lt) : NULL;
		if (!gt)
			break;
		const char *name = amp + 9;
		size_t nlen = (size_t)(lt - name);
		char targs[256] = "", nm[256];
		snprintf(nm, sizeof nm, "%.*s", (int)nlen, name);
		for (const char *p = lt + 1, *q; p < gt; p = q + 1) {
			int depth = 0;
			for (q = p; q < gt && (depth || *q != ','); q++)
				depth += *q == '<' ? 1 : *q == '>' ? -1 : 0;
			mangle_arg(p, (size_t)(q - p), targs, sizeof targs);
		}
		/* the template's declaration: `__global__ void NAME(` after a `template <...>` */
		for (const char *g = text; (g = strstr(g, "__global__")) && g < amp; g += 10) {
			const char *at = strstr(g, nm), *open = at ? at + nlen : NULL;
			while (open && *open == ' ')
				open++;
			const char *close = open && *open == '(' ? matching(open) : NULL, *body_end = NULL;
			if (!close || at - g > 40)
				continue;
			const char *body = template_body(text, at, nlen, &body_end);
			describe(&es[n++], at, nlen, targs, open, close, body, body_end, 0, a);
			break;
		}
	}
	return n;
}

/* Every entry point of the preprocessed text: __global__ functions with a body that are no
 * template, explicit instantiations (`template __global__ void k<3>(...);`) and the instances
 * autotune's copy takes by address. */
static size_t find_entries(const char *text, entry *es, size_t max, const args *a)
{
	size_t n = 0;
	for (const char *g = text; n < max && (g = strstr(g, "__global__")); g += 10) {
		/* what stands before: `template <...>` (no entry until instantiated), `template` (an
		 * instantiation), extern "C" (a plain symbol) */
		const char *start = g;
		while (start > text && start[-1] != ';' && start[-1] != '}' && start[-1] != '{')
			start--;
		char before[512];
		snprintf(before, sizeof before, "%.*s", (int)(g - start), start);
		const char *tmpl = strstr(before, "template");
		int instantiation = tmpl && !strchr(tmpl, '<');
		if (tmpl && !instantiation)
			continue;
		const char *open = g + 10, *targs_open = NULL;
		while (*open && *open != '(' && *open != ';') {
			if (!strncmp(open, "__launch_bounds__", 17) && (open = strchr(open, '(')) && (open = matching(open))) {
				open++;
				continue;
			}
			if (*open == '<' && !targs_open)
				targs_open = open;
			open++;
		}
		if (*open != '(')
			continue;
		const char *name_end = targs_open ? targs_open : open;
		while (name_end > g && !ident_char(name_end[-1]))
			name_end--;
		const char *name = name_end;
		while (name > g && ident_char(name[-1]))
			name--;
		const char *close = matching(open), *body = NULL, *body_end = NULL;
		if (!close)
			continue;
		char targs[128] = "";
		if (instantiation && targs_open) {
			const char *te = matching(targs_open);
			for (const char *t = targs_open + 1; te && t < te && strlen(targs) + 8 < sizeof targs; t++)
				if (ident_char(*t))
					snprintf(targs + strlen(targs), sizeof targs - strlen(targs), "%c", *t);
			body = template_body(text, name, (size_t)(name_end - name), &body_end);
		} else {
			const char *brace = close + 1;
			while (*brace && *brace != '{' && *brace != ';')
				brace++;
			if (*brace != '{' || !(body_end = matching(brace)))
				continue;
			body = brace;
		}
		describe(&es[n++], name, (size_t)(name_end - name), instantiation ? targs : NULL, open, close, body, body_end,
			 strstr(before, "extern \"C\"") != NULL, a);
	}
	return find_taken_instances(text, es, n, max, a);
}

static void put16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, unsigned long v)
{
	put16(p, (unsigned)(v & 0xffff));
	put16(p + 2, (unsigned)(v >> 16));
}

/* -DFAKE_NVCC_FUTURE_RECORD asks for a .nv.info record of a format unknown to the reader. */
static int future_record(const args *a)
{
	for (int i = 0; i < a->ncpp; i++)
		if (strstr(a->cpp[i], "FAKE_NVCC_FUTURE_RECORD"))
			return 1;
	return 0;
}

/* An entry's .nv.info records, of each format nvcc writes (each a multiple of 4 bytes): the CUDA
 * API version (sized), the register cap asked for (16-bit), the barrier count (a byte and a pad
 * byte) when it has barriers, each parameter, their bytes in all. */
static size_t nv_info(const entry *e, int maxrreg, unsigned char *out)
{
	size_t at = 8, offset = 0;
	out[0] = 4, out[1] = 0x37;
	put16(out + 2, 4);
	put32(out + 4, 0x82);
	/* nvcc records the cap asked for, 255 when none was */
	out[at] = 3, out[at + 1] = 0x1b;
	put16(out + at + 2, maxrreg > 0 ? (unsigned)maxrreg : 255);
	at += 4;
	if (e->barriers) {
		out[at] = 2, out[at + 1] = 0x4c, out[at + 2] = (unsigned char)e->barriers, out[at + 3] = 0;
		at += 4;
	}
	for (size_t i = 0; i < e->nparams; i++) {
		offset = (offset + e->sizes[i] - 1) / e->sizes[i] * e->sizes[i];
		out[at] = 4, out[at + 1] = 0x17;
		put16(out + at + 2, 12);
		put32(out + at + 4, 0);
		put16(out + at + 8, (unsigned)i);
		put16(out + at + 10, (unsigned)offset);
		put32(out + at + 12, (unsigned long)e->sizes[i] << 18);
		at += 16;
		offset += e->sizes[i];
	}
	out[at] = 3, out[at + 1] = 0x19;
	put16(out + at + 2, (unsigned)offset);
	return at + 4;
}

typedef struct {
	char name[600];
	unsigned char data[1200];
	size_t len;
} section;

/* A 64-bit ELF file of the sections (after the null one and the name table). */
static int write_elf(const char *path, const section *s, size_t n)
{
	char names[1 << 16];
	size_t nlen = 1, name_at[160];
	names[0] = 0;
	for (size_t i = 0; i <= n; i++) {
		const char *nm = i == n ? ".shstrtab" : s[i].name;
		name_at[i] = nlen;
		nlen += (size_t)snprintf(names + nlen, sizeof names - nlen, "%s", nm) + 1;
	}
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	Elf64_Ehdr h = {0};
	memcpy(h.e_ident, ELFMAG, SELFMAG);
	h.e_ident[EI_CLASS] = ELFCLASS64;
	h.e_ident[EI_DATA] = ELFDATA2LSB;
	h.e_ident[EI_VERSION] = EV_CURRENT;
	h.e_type = ET_EXEC;
	h.e_machine = 190; /* EM_CUDA */
	h.e_version = EV_CURRENT;
	h.e_ehsize = sizeof h;
	h.e_shentsize = sizeof(Elf64_Shdr);
	h.e_shnum = (Elf64_Half)(n + 2);
	h.e_shstrndx = (Elf64_Half)(n + 1);
	size_t off = sizeof h;
	for (size_t i = 0; i < n; i++)
		off += s[i].len;
	h.e_shoff = off + nlen;
	fwrite(&h, sizeof h, 1, f);
	for (size_t i = 0; i < n; i++)
		fwrite(s[i].data, 1, s[i].len, f);
	fwrite(names, 1, nlen, f);
	Elf64_Shdr sh = {0};
	fwrite(&sh, sizeof sh, 1, f);
	off = sizeof h;
	for (size_t i = 0; i <= n; i++) {
		memset(&sh, 0, sizeof sh);
		sh.sh_name = (Elf64_Word)name_at[i];
		sh.sh_type = i == n ? SHT_STRTAB : !strncmp(s[i].name, ".text", 5) ? SHT_PROGBITS : SHT_LOPROC;
		sh.sh_offset = off;
		sh.sh_size = i == n ? nlen : s[i].len;
		off += sh.sh_size;
		fwrite(&sh, sizeof sh, 1, f);
	}
	return fclose(f);
}

/* The cubin of the entries and ptxas's report of them (-Xptxas -v). */
static int emit(const args *a, const entry *es, size_t n, int argc, char **argv)
{
	static section s[150];
	size_t ns = 0;
	if (a->verbose)
		printf("ptxas info    : 0 bytes gmem\n");
	for (size_t i = 0; i < n && ns + 2 < 150; i++) {
		const entry *e = &es[i];
		if (a->verbose) {
			printf("ptxas info    : Compiling entry function '%s' for '%s'\n", e->symbol, a->arch);
			printf("ptxas info    : Function properties for %s\n", e->symbol);
			printf("    0 bytes stack frame, %d bytes spill stores, %d bytes spill loads\n", e->spilled, e->spilled);
			printf("ptxas info    : Used %d registers", e->registers);
			if (e->barriers)
				printf(", used %d barriers", e->barriers);
			if (e->smem)
				printf(", %ld bytes smem", e->smem);
			printf(", %zu bytes cmem[0]\n", 528 + e->nparams * 8);
		}
		snprintf(s[ns].name, sizeof s[ns].name, ".text.%s", e->symbol);
		memcpy(s[ns].data, &e->code, sizeof e->code);
		s[ns].len = sizeof e->code;
		ns++;
		snprintf(s[ns].name, sizeof s[ns].name, ".nv.info.%s", e->symbol);
		s[ns].len = nv_info(e, a->maxrreg, s[ns].data);
		if (future_record(a)) {
			/* a record of a format no nvcc writes yet: the reader cannot go on past it */
			unsigned char *r = s[ns].data + s[ns].len;
			r[0] = 7, r[1] = 0x99, r[2] = r[3] = 0;
			s[ns].len += 4;
		}
		ns++;
	}
	/* the command line, as the toolkit's note holds it (no part of the code hash) */
	snprintf(s[ns].name, sizeof s[ns].name, ".note.nv.tkinfo");
	for (int i = 0; i < argc && s[ns].len + strlen(argv[i]) + 2 < sizeof s[ns].data; i++)
		s[ns].len += (size_t)snprintf((char *)s[ns].data + s[ns].len, sizeof s[ns].data - s[ns].len, "%s ", argv[i]);
	ns++;
	if (write_elf(a->out, s, ns)) {
		fprintf(stderr, "nvcc fatal   : Could not open output file '%s'\n", a->out);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	args a;
	if (parse_args(argc, argv, &a))
		return 1;
	if (a.dryrun)
		return dry_run(argv[0]);
	if (a.dlink)
		return a.nobjs && a.out ? (copy_file(a.objs[0], a.out) ? 1 : 0) : 1;
	if (!a.source || !a.out) {
		fprintf(stderr, "nvcc fatal   : No input files specified; use option --help for more information\n");
		return 1;
	}
	char tmp[PATH_MAX];
	find_toolkit_stubs(argv[0]);
	snprintf(tmp, sizeof tmp, "%s.fake-nvcc.ii", a.out);
	char *text = preprocess(&a, tmp);
	unlink(tmp);
	if (!text)
		return 1;
	if (undefined_extent(text, a.source)) {
		free(text);
		return 1;
	}
	static entry es[64];
	size_t n = find_entries(text, es, 64, &a);
	int rc = emit(&a, es, n, argc, argv);
	free(text);
	return rc;
}
