/* check.c: `autotune check`: whether a built program, object file or cubin holds exactly the code
 * autotune tuned. Each winner of the results is looked for by its kernel_hash (cubin_kernels), so
 * a per-size variant's other name, line info and other kernels in the file do not matter. When
 * it is not there, what can be learnt from the binary is compared with the recipe: the targets
 * it has code for, the ptxas options its toolkit note records, the registers. What the binary
 * does not record (cicc's flags: -use_fast_math, -D) is named as what to look at. */
#include "check.h"

#include <dirent.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "cubin.h"
#include "fatbin.h"
#include "table.h"
#include "banned.h"

typedef struct {
	cubin_kernel k;
	unsigned arch;
	int relocatable; /* of a relocatable cubin (-rdc, CMake's CUDA_SEPARABLE_COMPILATION) */
	char *ptxas;     /* the options ptxas ran with (the toolkit note), or NULL */
} found;

typedef struct {
	const char *path;
	unsigned char *data;
	size_t size;
	fatbin_cubin *cubins;
	size_t ncubins;
	found *kernels;
	size_t nkernels;
} binary_view;

/* The ptxas options the cubin's .note.nv.tkinfo records ("-maxrregcount 32 -O 2 -arch sm_90
 * -m 64 "): the note's string that holds "-arch ". Caller frees; NULL when none. */
static char *ptxas_options(const unsigned char *elf, size_t size)
{
	const unsigned char *p;
	size_t len;
	if (cubin_section(elf, size, ".note.nv.tkinfo", &p, &len))
		return NULL;
	for (size_t at = 0; at < len;) {
		const unsigned char *end = memchr(p + at, 0, len - at);
		size_t n = end ? (size_t)(end - (p + at)) : len - at;
		char *s = xmalloc(n + 1);
		memcpy(s, p + at, n);
		s[n] = 0;
		if (strstr(s, "-arch "))
			return s;
		free(s);
		at += n + 1;
	}
	return NULL;
}

static int view_open(binary_view *v, const char *path, diags *d)
{
	memset(v, 0, sizeof *v);
	v->path = path;
	const char *why;
	if (!(v->data = cubin_read(path, &v->size))) {
		diags_add(d, "autotune check: cannot read '%s' (or it is empty)", path);
		return -1;
	}
	if (fatbin_cubins(v->data, v->size, &v->cubins, &v->ncubins, &why)) {
		diags_add(d, "autotune check: %s: %s", path, why);
		return -1;
	}
	for (size_t i = 0; i < v->ncubins; i++) {
		cubin_kernel *k;
		size_t n;
		if (!v->cubins[i].elf || cubin_kernels(v->cubins[i].elf, v->cubins[i].size, &k, &n))
			continue;
		v->kernels = xrealloc(v->kernels, (v->nkernels + n + 1) * sizeof *v->kernels);
		/* e_type, at 16: ET_REL for relocatable device code, ET_EXEC once compiled whole or linked */
		int rel = v->cubins[i].size > 17 && v->cubins[i].elf[16] == ET_REL && !v->cubins[i].elf[17];
		for (size_t j = 0; j < n; j++)
			v->kernels[v->nkernels++] = (found){k[j], v->cubins[i].arch, rel,
							    ptxas_options(v->cubins[i].elf, v->cubins[i].size)};
		free(k);
	}
	return 0;
}

static void view_free(binary_view *v)
{
	for (size_t i = 0; i < v->nkernels; i++) {
		free(v->kernels[i].k.symbol);
		free(v->kernels[i].ptxas);
	}
	free(v->kernels);
	fatbin_free(v->cubins, v->ncubins);
	free(v->data);
}

/* "sm_90" -> 90, "sm_90a" -> 90; 0 when not so. */
static unsigned arch_number(const char *arch)
{
	return strncmp(arch, "sm_", 3) ? 0 : (unsigned)strtoul(arch + 3, NULL, 10);
}

static int arch_fits(unsigned want, unsigned have)
{
	return !want || !have || want == have;
}

/* The value of -maxrregcount in flags (nvcc's "-maxrregcount=N", "--maxrregcount N", ptxas's
 * "-maxrregcount N"), or -1 when none is given. */
static long register_cap(const char *flags)
{
	for (const char *p = flags; p && (p = strstr(p, "maxrregcount")); p++) {
		const char *v = p + 12;
		if (*v == '=' || *v == ' ')
			return strtol(v + 1, NULL, 10);
	}
	return -1;
}

/* Whether the space-separated flags hold this one. */
static int has_flag(const char *flags, const char *flag)
{
	size_t n = strlen(flag);
	for (const char *p = flags; (p = strstr(p, flag)); p++)
		if ((p == flags || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
			return 1;
	return 0;
}

/* Flags of nvcc's front end that change the code and that no binary records. */
static const char *const unrecorded[] = {"-use_fast_math", "--use_fast_math", "-ftz=true", "-ftz=false",
					 "-prec-div=false", "-prec-div=true", "-prec-sqrt=false", "-prec-sqrt=true",
					 "-fmad=false", "-fmad=true", "--extra-device-vectorization", NULL};

/* What differs, said as far as the binary tells: lines on out. */
static void explain(FILE *out, const binary_view *v, const table *t, size_t row, unsigned arch, const char *upper)
{
	const char *flags = table_field(t, row, "nvcc_flags"), *regs = table_field(t, row, "registers");
	if (arch)
		fprintf(out, "  kernels there for sm_%u:", arch);
	else
		fputs("  kernels there:", out);
	for (size_t i = 0; i < v->nkernels; i++)
		if (arch_fits(arch, v->kernels[i].arch))
			fprintf(out, " %s (%d registers%s)", v->kernels[i].k.symbol, v->kernels[i].k.registers,
				v->kernels[i].relocatable ? ", relocatable" : "");
	fputc('\n', out);
	if (*regs)
		fprintf(out, "  the tuned kernel: %s registers\n", regs);
	long want = register_cap(flags);
	for (size_t i = 0; i < v->nkernels; i++) {
		const found *k = &v->kernels[i];
		if (!arch_fits(arch, k->arch) || !k->ptxas)
			continue;
		long have = register_cap(k->ptxas);
		if (have != want) {
			if (want < 0)
				fprintf(out, "  built with -maxrregcount=%ld; the tuned build had no register cap\n", have);
			else if (have < 0)
				fprintf(out, "  built without -maxrregcount=%ld, which the tuned build had\n", want);
			else
				fprintf(out, "  built with -maxrregcount=%ld; the tuned build had -maxrregcount=%ld\n", have, want);
		}
		break;
	}
	int rdc = has_flag(flags, "-rdc=true") || has_flag(flags, "-rdc") || has_flag(flags, "-dc");
	size_t rel = 0, whole = 0;
	for (size_t i = 0; i < v->nkernels; i++)
		if (arch_fits(arch, v->kernels[i].arch))
			v->kernels[i].relocatable ? rel++ : whole++;
	if (!rdc && rel)
		fprintf(out, "  built as relocatable device code (-rdc, CMake's CUDA_SEPARABLE_COMPILATION), which the "
			     "tuned build was not: another compile, other code\n");
	else if (rdc && !rel && whole)
		fprintf(out, "  built without -rdc=true, which the tuned build had\n");
	for (size_t i = 0; unrecorded[i]; i++)
		if (has_flag(flags, unrecorded[i]))
			fprintf(out, "  built without %s? The tuned build had it; a binary does not record it\n", unrecorded[i]);
	fprintf(out, "  the tuned build's flags: %s\n"
		     "  build with the recipe: $(%s_NVCC_FLAGS) from the tuned header's make fragment, or CMake's\n"
		     "  autotune_tuned_header()\n",
		*flags ? flags : "(none)", upper);
}

/* The name the header's macros start with: the config's name (its file's, less the extension). */
static char *upper_name(const table *t, size_t row)
{
	const char *cfg = table_field(t, row, "config"), *base = strrchr(cfg, '/');
	base = base ? base + 1 : cfg;
	if (!*base) {
		base = strrchr(t->path, '/');
		base = base ? base + 1 : t->path;
	}
	char *u = xstrdup(base), *dot = strrchr(u, '.');
	if (dot && dot != u)
		*dot = 0;
	for (char *p = u; *p; p++)
		*p = (*p >= 'a' && *p <= 'z') ? (char)(*p - 'a' + 'A') : ((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) ? *p : '_';
	return u;
}

static int winner_row(const table *t, size_t r)
{
	const char *f = table_field(t, r, "flags");
	for (const char *w = f; (w = strstr(w, "winner")); w++)
		if ((w == f || w[-1] == ';') && (w[6] == 0 || w[6] == ';'))
			return 1;
	return 0;
}

/* One winner: CHECK_TUNED, CHECK_DIFFERS, or CHECK_BAD_INPUT (d says why). */
static int check_row(const binary_view *v, const table *t, size_t row, FILE *out, diags *d)
{
	const char *want = table_field(t, row, "kernel_hash"), *inst = table_field(t, row, "instance");
	char *upper = upper_name(t, row), *lower = xstrdup(upper);
	for (char *p = lower; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	char *who = *inst ? xasprintf("%s (instance %s)", lower, inst) : xstrdup(lower);
	unsigned arch = arch_number(table_field(t, row, "arch"));
	int rc = CHECK_DIFFERS;
	if (strlen(want) != 16) {
		diags_add(d, "autotune check: %s: row %zu: no kernel_hash (results written before autotune check "
			     "recorded one): tune again to check a binary against them",
			  t->path, row + 2);
		rc = CHECK_BAD_INPUT;
		goto done;
	}
	size_t fits = 0, compressed = 0;
	for (size_t i = 0; i < v->ncubins; i++)
		if (arch_fits(arch, v->cubins[i].arch))
			v->cubins[i].elf ? fits++ : compressed++;
	for (size_t i = 0; i < v->nkernels; i++)
		if (arch_fits(arch, v->kernels[i].arch) && !strcmp(v->kernels[i].k.hash, want)) {
			fprintf(out, "%s: tuned: %s in %s", who, v->kernels[i].k.symbol, v->path);
			if (v->kernels[i].arch)
				fprintf(out, " (sm_%u)", v->kernels[i].arch);
			fputc('\n', out);
			rc = CHECK_TUNED;
			goto done;
		}
	if (!fits && compressed) {
		diags_add(d, "autotune check: %s: its code for sm_%u is compressed in a way this autotune does not "
			     "read (LZ4, or Zstandard where built without libzstd): build it with nvcc "
			     "-compress-mode=none to check it",
			  v->path, arch);
		rc = CHECK_BAD_INPUT;
		goto done;
	}
	if (!fits) {
		fprintf(out, "%s: differs: %s has no code for sm_%u (%s has:", who, v->path, arch, v->path);
		for (size_t i = 0; i < v->ncubins; i++)
			fprintf(out, " sm_%u", v->cubins[i].arch);
		fprintf(out, "%s): build with -arch=sm_%u\n", v->ncubins ? "" : " no device code", arch);
		goto done;
	}
	fprintf(out, "%s: differs: no kernel in %s is the code tuned in %s (kernel_hash %s)\n", who, v->path, t->path, want);
	explain(out, v, t, row, arch, upper);
done:
	free(who);
	free(upper);
	free(lower);
	return rc;
}

int check_binary(const char *path, char *const *results, size_t nresults, FILE *out, diags *d)
{
	binary_view v;
	if (view_open(&v, path, d)) {
		view_free(&v);
		return CHECK_BAD_INPUT;
	}
	int rc = CHECK_TUNED;
	for (size_t i = 0; i < nresults && rc != CHECK_BAD_INPUT; i++) {
		table t;
		if (table_load(results[i], &t, d)) {
			rc = CHECK_BAD_INPUT;
			break;
		}
		size_t winners = 0;
		for (size_t r = 0; r < t.nrows && rc != CHECK_BAD_INPUT; r++)
			if (winner_row(&t, r)) {
				winners++;
				int one = check_row(&v, &t, r, out, d);
				if (one > rc)
					rc = one;
			}
		if (!winners) {
			diags_add(d, "autotune check: %s has no winner (no configuration passed, or a dry run)", results[i]);
			rc = CHECK_BAD_INPUT;
		}
		table_free(&t);
	}
	view_free(&v);
	return rc;
}

/* results/ *.csv, sorted: the default output directory's results files. */
static char **default_results(size_t *n)
{
	char **list = NULL;
	*n = 0;
	DIR *dir = opendir("results");
	struct dirent *e;
	while (dir && (e = readdir(dir))) {
		size_t len = strlen(e->d_name);
		if (len > 4 && !strcmp(e->d_name + len - 4, ".csv") && e->d_name[0] != '.') {
			list = xrealloc(list, (*n + 1) * sizeof *list);
			list[(*n)++] = xasprintf("results/%s", e->d_name);
		}
	}
	if (dir)
		closedir(dir);
	for (size_t i = 1; i < *n; i++)
		for (size_t j = i; j > 0 && strcmp(list[j - 1], list[j]) > 0; j--) {
			char *x = list[j];
			list[j] = list[j - 1];
			list[j - 1] = x;
		}
	return list;
}

int cmd_check(const options *o)
{
	diags d = {0};
	size_t n = (size_t)o->ninputs - 1;
	char **mine = NULL;
	char *const *results = o->inputs + 1;
	if (!n) {
		results = mine = default_results(&n);
		if (!n)
			diags_add(&d, "autotune check: no RESULTS given and no results/*.csv here: name the results CSV");
	}
	int rc = n ? check_binary(o->inputs[0], results, n, stdout, &d) : CHECK_BAD_INPUT;
	for (size_t i = 0; mine && i < n; i++)
		free(mine[i]);
	free(mine);
	diags_print(&d);
	diags_free(&d);
	if (fflush(stdout) && rc != CHECK_BAD_INPUT) {
		fputs("autotune check: cannot write to stdout\n", stderr);
		rc = CHECK_BAD_INPUT;
	}
	return rc;
}
