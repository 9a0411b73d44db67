/* test_config_source.c: what the config takes from the kernel source and the entry's name
 * (config_source.c): `#pragma unroll NAME` lines, however spaced, and which parameters they make
 * compile-time (or whether a constant needs the rewrite); the ${param} placeholders of a templated
 * entry, each a parameter, filled per configuration, and errors at the entry's position. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "config.h"
#include "space.h"
#include "tests.h"

/* NAME's text in line when it is `#pragma unroll NAME`, else "" (static storage). */
static const char *unroll_name(const char *line)
{
	static char name[64];
	size_t start, len;
	if (!pragma_unroll_name(line, &start, &len) || len >= sizeof name)
		return "";
	memcpy(name, line + start, len);
	name[len] = 0;
	return name;
}

static void test_pragma_unroll_names_are_found_however_spaced(void)
{
	size_t start0, len0;
	CU_ASSERT_STRING_EQUAL(unroll_name("#pragma unroll UNROLL"), "UNROLL");
	CU_ASSERT_STRING_EQUAL(unroll_name("\t  #  pragma \t unroll   _u2 // how far"), "_u2");
	CU_ASSERT_STRING_EQUAL(unroll_name("#pragma unroll N)"), "N");
	/* the parenthesised forms: the name is replaced where it stands */
	CU_ASSERT_STRING_EQUAL(unroll_name("#pragma unroll(UNROLL)"), "UNROLL");
	CU_ASSERT_STRING_EQUAL(unroll_name("#pragma unroll ( K )"), "K");
	CU_ASSERT_EQUAL(pragma_unroll_name("#pragma unroll(K * 2)", &start0, &len0), 1);
	CU_ASSERT_EQUAL(start0, 15);
	CU_ASSERT_EQUAL(len0, 1);
	size_t start, len;
	CU_ASSERT_EQUAL(pragma_unroll_name("    #pragma unroll K", &start, &len), 1);
	CU_ASSERT_EQUAL(start, 19);
	CU_ASSERT_EQUAL(len, 1);
	/* a number or nothing is nvcc's to handle; other pragmas, comments and near misses are not ours */
	static const char *const not_ours[] = {"#pragma unroll 4", "#pragma unroll", "#pragma unroll ", "#pragma unrollX N",
					       "#pragmaunroll N", "#pragma once", "// #pragma unroll N", "x = 1; #pragma unroll N",
					       "#pragma unroll (4)", "#pragma unroll()", "pragma unroll N", ""};
	for (size_t i = 0; i < sizeof not_ours / sizeof *not_ours; i++) {
		if (*unroll_name(not_ours[i]))
			fprintf(stderr, "\n  '%s' read as naming '%s'\n", not_ours[i], unroll_name(not_ours[i]));
		CU_ASSERT_STRING_EQUAL(unroll_name(not_ours[i]), "");
	}
}

/* Loads config_good over a kernel source of the given text, with extra lines replacing its space
 * (line 11) and kernel entry (line 4); 0 or the diagnostics' count, the first in *first. */
static int load_over(const char *source, const char *space, const char *entry, config *cfg, char **first)
{
	const char *path = write_temp(6, "src.cu", source);
	char kernel[300];
	snprintf(kernel, sizeof kernel, "  source: %s", path);
	char text[4096];
	snprintf(text, sizeof text, "%s", config_with_line(3, kernel));
	const char *p = text;
	/* config_with_line works on config_good: apply the other two replacements by hand */
	char *with_space = strstr(text, "  bx: [32, 64, 128]\n");
	char rebuilt[4096];
	snprintf(rebuilt, sizeof rebuilt, "%.*s%s\n%s", (int)(with_space - p), p, space, with_space + strlen("  bx: [32, 64, 128]\n"));
	char *at_entry = strstr(rebuilt, "  entry: k\n");
	snprintf(text, sizeof text, "%.*s%s\n%s", (int)(at_entry - rebuilt), rebuilt, entry, at_entry + strlen("  entry: k\n"));
	return config_load_text(text, cfg, first);
}

/* A parameter named by a pragma becomes compile-time and asks for the rewrite; a constant asks for
 * the rewrite only; a pragma with a number or an unknown name changes nothing. */
static void test_a_pragmas_name_decides_what_is_compile_time(void)
{
	config cfg;
	char *first;
	const char *src = "__global__ void k(float *a, int n) {\n#pragma unroll U\n for (int i = 0; i < 4; i++) a[i] = n;\n}\n";
	CU_ASSERT_EQUAL_FATAL(load_over(src, "  bx: [32, 64]\n  U: [1, 2, 4]", "  entry: k", &cfg, &first), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.nparams, 2);
	CU_ASSERT(!cfg.params[0].is_pragma);
	CU_ASSERT(cfg.params[1].is_pragma);
	CU_ASSERT(cfg.rewrite_pragmas);
	config_free(&cfg);
	const char *by_constant = "__global__ void k(float *a, int n) {\n  #pragma unroll n\n for (;;) ;\n}\n";
	CU_ASSERT_EQUAL_FATAL(load_over(by_constant, "  bx: [32, 64]\n  U: [1, 2, 4]\nconstraints: [U > 0]", "  entry: k", &cfg, &first), 0);
	CU_ASSERT(!cfg.params[1].is_pragma);
	CU_ASSERT(cfg.rewrite_pragmas);
	config_free(&cfg);
	const char *neither = "#pragma unroll 4\n#pragma unroll UNKNOWN\n// #pragma unroll U\n__global__ void k() {}\n";
	CU_ASSERT_EQUAL_FATAL(load_over(neither, "  bx: [32, 64]\n  U: [1, 2, 4]\nconstraints: [U > 0]", "  entry: k", &cfg, &first), 0);
	CU_ASSERT(!cfg.params[0].is_pragma && !cfg.params[1].is_pragma);
	CU_ASSERT(!cfg.rewrite_pragmas);
	config_free(&cfg);
	/* a last line without a newline is a line too */
	CU_ASSERT_EQUAL_FATAL(load_over("#pragma unroll U", "  bx: [32, 64]\n  U: [1, 2]", "  entry: k", &cfg, &first), 0);
	CU_ASSERT(cfg.params[1].is_pragma);
	config_free(&cfg);
}

/* A parameter that the source #defines itself (under #ifndef or not, in a file with an include
 * guard) and build.defines does not pass replaces that define: compile-time, the copy asked for,
 * a note at the source's line; listed in build.defines, or not defined by the source, it does not. */
static void test_a_parameter_the_source_defines_itself_replaces_it(void)
{
	const char *src = "// items per thread\n#ifndef K_CU\n#define K_CU\n#ifndef ITEMS\n  #  define ITEMS 1 // per thread\n"
			  "#endif\n#define ITEMS_MAX 8\n__global__ void k(float *a, int n) { a[threadIdx.x * ITEMS] = n; }\n#endif\n";
	const struct {
		const char *space;
		int line;
	} cases[] = {
		{"  bx: [32, 64]\n  ITEMS: [1, 2, 4]\nconstraints: [bx * ITEMS <= 256]", 5},
		{"  bx: [32, 64]\n  ITEMS: [1, 2, 4]\nbuild: {defines: [ITEMS]}", 0},
		/* a prefix of a defined name is not it */
		{"  bx: [32, 64]\n  ITEMS_M: [1, 2]\nconstraints: [ITEMS_M > 0]", 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		config cfg;
		char *first;
		CU_ASSERT_EQUAL_FATAL(load_over(src, cases[i].space, "  entry: k", &cfg, &first), 0);
		int noted = 0;
		for (size_t k = 0; k < cfg.warnings.n; k++)
			noted |= strstr(cfg.warnings.msgs[k], "src.cu:5:1: note: parameter 'ITEMS' of ") &&
				 strstr(cfg.warnings.msgs[k], "replaces this #define");
		CU_ASSERT_EQUAL(noted, cases[i].line != 0);
		CU_ASSERT_EQUAL(cfg.params[1].is_srcdef, cases[i].line);
		CU_ASSERT_EQUAL(param_is_compile_time(&cfg.params[1]), i < 2);
		CU_ASSERT_EQUAL(cfg.rewrite_pragmas, cases[i].line != 0);
		if (cases[i].line) {
			/* the copy: the define with each value, the comment gone, every other line as it was */
			value vals[2] = {value_int(32), value_int(4)};
			size_t len;
			char *copy = compile_rewrite_pragmas(&cfg, vals, &len);
			CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
			CU_ASSERT_PTR_NOT_NULL(strstr(copy, "#ifndef ITEMS\n  #  define ITEMS 4\n#endif\n#define ITEMS_MAX 8\n"));
			CU_ASSERT_PTR_NULL(strstr(copy, "ITEMS 1"));
			CU_ASSERT_PTR_NOT_NULL(strstr(copy, "\n// items per thread\n#ifndef K_CU\n#define K_CU\n"));
			free(copy);
		}
		config_free(&cfg);
	}
}

/* A #define that cannot be replaced as a value is refused at its line, naming why and the way that
 * works (-D under #ifndef): a function-like macro, one continued on the next line, one without a
 * value, two defines, one inside a condition other than its own #ifndef or an include guard. */
static void test_a_define_that_cannot_be_replaced_is_refused(void)
{
	static const struct {
		const char *src;
		int line;
		const char *why;
	} bad[] = {
		{"#define T(x) (x * 2)\n", 1, "a function-like macro"},
		{"// tile\n#define T \\\n  16\n", 2, "continued on the next line"},
		{"#define T\n", 1, "without a value"},
		{"#define T 4 /* default */\n#undef T\n#define T 8\n", 3, "defines it twice (lines 1 and 3)"},
		{"#if __CUDA_ARCH__ >= 800\n#define T 16\n#else\n#define T 8\n#endif\n", 4, "defines it twice"},
		{"#ifdef BIG\n#define T 16\n#endif\n", 2, "inside #if branches that autotune cannot resolve"},
		{"#ifndef U\n#define OTHER 1\n#define T 16\n#endif\n", 3, "inside #if branches"},
		{"#ifndef T\n#else\n#define T 16\n#endif\n", 3, "inside #if branches"},
		{"#ifndef G\n#define G\n#if X\n#endif\n#define T 4\n#endif\n", 0, NULL},
		{"#if 1\n#endif\n#define T 4\n", 0, NULL},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		config cfg;
		char *first = NULL;
		int n = load_over(bad[i].src, "  bx: [32, 64]\n  T: [4, 8]", "  entry: k", &cfg, &first);
		char want[64];
		snprintf(want, sizeof want, "src.cu:%d:1: parameter 'T' of ", bad[i].line);
		int ok = bad[i].why ? n == 1 && first && strstr(first, want) && strstr(first, bad[i].why) &&
					      strstr(first, "cannot replace this #define of 'T'") &&
					      strstr(first, "T in build.defines")
				    : n == 0 && cfg.params[1].is_srcdef;
		if (!ok)
			fprintf(stderr, "\n  case %zu: %d diagnostics: %s\n", i, n, first ? first : "(none)");
		CU_ASSERT(ok);
		free(first);
		config_free(&cfg);
	}
}

/* "k${V}": V becomes compile-time, and each configuration's entry is the name with V's value. */
static void test_an_entrys_placeholders_are_filled_per_configuration(void)
{
	config cfg;
	space sp;
	char *first;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(load_over("", "  bx: [32, 64]\n  V: [1, 20]\n  W: [0, 3]", "  entry: \"k${V}_${W}x\"", &cfg, &first), 0);
	CU_ASSERT(!cfg.params[0].is_entry && cfg.params[1].is_entry && cfg.params[2].is_entry);
	CU_ASSERT_EQUAL_FATAL(space_enumerate(&cfg, &sp, &d), 0);
	char *seen = calloc(1, 512);
	for (size_t c = 0; c < sp.count; c++) {
		char *e = config_entry(&cfg, space_config(&sp, c)), want[64], v[16], w[16];
		value_format(space_config(&sp, c)[1], v, sizeof v);
		value_format(space_config(&sp, c)[2], w, sizeof w);
		snprintf(want, sizeof want, "k%s_%sx", v, w);
		CU_ASSERT_STRING_EQUAL(e, want);
		strcat(seen, e);
		strcat(seen, " ");
		free(e);
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(seen, "k20_3x"));
	free(seen);
	/* an entry without placeholders is itself */
	char *plain = config_entry(&cfg, space_config(&sp, 0));
	CU_ASSERT_PTR_NOT_NULL(plain);
	free(plain);
	space_free(&sp);
	config_free(&cfg);
	diags_free(&d);
}

/* A placeholder that names no parameter, one left open, or a name that is no C identifier once
 * filled (a value first, a character no name has, a value that is not a whole number from 0):
 * refused at the entry's position, before anything compiles. */
static void test_a_bad_entry_is_refused_at_its_position(void)
{
	static const struct {
		const char *entry, *space, *why;
	} bad[] = {
		{"  entry: \"k${Z}\"", "  V: [1, 2]", "kernel entry 'k${Z}': 'Z' is not a parameter of the space"},
		{"  entry: \"k${V\"", "  V: [1, 2]", "kernel entry 'k${V': '${' without '}'"},
		{"  entry: \"k-${V}\"", "  V: [1, 2]", "kernel entry 'k-${V}' does not make a C identifier"},
		{"  entry: \"${V}k\"", "  V: [1, 2]", "kernel entry '${V}k' does not make a C identifier"},
		{"  entry: \"k${V}\"", "  V: [1, 1.5]", "kernel entry 'k${V}' does not make a C identifier for V = 1.5"},
		{"  entry: \"k${V}\"", "  V: [-1, 1]", "kernel entry 'k${V}' does not make a C identifier for V = -1"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		config cfg;
		char *first = NULL, space[64];
		snprintf(space, sizeof space, "  bx: [32, 64]\n%s", bad[i].space);
		CU_ASSERT(load_over("", space, bad[i].entry, &cfg, &first) >= 1);
		char want[200];
		snprintf(want, sizeof want, ":4:10: %s", bad[i].why);
		if (!first || !strstr(first, want))
			fprintf(stderr, "\n  got: %s\n want: ...%s\n", first ? first : "(nothing)", want);
		CU_ASSERT_PTR_NOT_NULL(first ? strstr(first, want) : NULL);
		free(first);
		config_free(&cfg);
	}
}

/* A parameter of types or kernel names: words that are no constant, spellings of types, quoted
 * text; in a templated entry each configuration's instance, taken by address at the end of the
 * copy so that nvcc compiles it; a reference names one of the strings. */
static void test_string_parameters_fill_a_templated_entry(void)
{
	config cfg;
	char *first;
	space sp;
	diags d = {0};
	const char *sp_text = "  bx: [32, 64]\n  T: [float, __half, unsigned int, \"const float*\", 'ns::v<int>']\n"
			      "constraints: [\"T != 'ns::v<int>' || bx == 32\"]\nverify: {reference: {bx: 32, T: __half}}";
	CU_ASSERT_EQUAL_FATAL(load_over("template <typename T> __global__ void k(int n) {}\n", sp_text,
					"  entry: \"k<${T}, ${bx}>\"", &cfg, &first), 0);
	const param *t = &cfg.params[1];
	CU_ASSERT(param_is_string(t) && t->is_entry && param_is_compile_time(t));
	CU_ASSERT_EQUAL_FATAL(t->nvalues, 5);
	static const char *const want[] = {"float", "__half", "unsigned int", "const float*", "ns::v<int>"};
	for (size_t i = 0; i < 5; i++)
		CU_ASSERT_STRING_EQUAL(t->values[i].u.s, want[i]);
	CU_ASSERT(cfg.rewrite_pragmas); /* the instance is taken in the copy */
	CU_ASSERT(cfg.has_reference && cfg.reference[1].u.s == t->values[1].u.s);
	int rc = space_enumerate(&cfg, &sp, &d);
	if (rc)
		fprintf(stderr, "\n  %s\n", d.n ? d.msgs[0] : "");
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(sp.count, 9); /* ns::v<int> with bx 32 only */
	value vals[2] = {value_int(64), t->values[3]};
	char *e = config_entry(&cfg, vals);
	CU_ASSERT_STRING_EQUAL(e, "k<const float*, 64>");
	free(e);
	size_t len;
	char *copy = compile_rewrite_pragmas(&cfg, vals, &len);
	CU_ASSERT_PTR_NOT_NULL(copy && strstr(copy, "= (void *)&k<const float*, 64>;\n"));
	free(copy);
	space_free(&sp);
	config_free(&cfg);
	diags_free(&d);
	/* a named variant: the entry is the string itself */
	CU_ASSERT_EQUAL_FATAL(load_over("", "  bx: [32, 64]\n  KERNEL: [transpose_naive, transpose_coalesced]",
					"  entry: \"${KERNEL}\"", &cfg, &first), 0);
	vals[1] = cfg.params[1].values[1];
	e = config_entry(&cfg, vals);
	CU_ASSERT_STRING_EQUAL(e, "transpose_coalesced");
	CU_ASSERT(!cfg.rewrite_pragmas);
	free(e);
	config_free(&cfg);
}

/* Strings where they cannot go are refused at their place, saying why: among numbers (a misspelt
 * constant), twice, with characters no type has, as a register cap or an unroll factor, in
 * arithmetic, as a name that makes no identifier, a reference value that is not listed. */
static void test_strings_where_they_cannot_go_are_refused(void)
{
	static const struct {
		const char *space, *entry, *src, *why;
	} bad[] = {
		{"  bx: [32, 64, BX]", "  entry: k", "", "parameter 'bx' mixes numbers and strings: 'BX' is no number"},
		{"  bx: [32]\n  T: [float, float]", "  entry: \"k<${T}>\"", "", "lists the value float twice"},
		{"  bx: [32]\n  T: [float, '\"a;b\"']", "  entry: \"k<${T}>\"", "", "string value '\"a;b\"' may hold only"},
		{"  bx: [32]\n  T: [a, b]\nbuild: {maxrregcount: T}", "  entry: k", "", "but build.maxrregcount takes a number"},
		{"  bx: [32]\n  T: [a, b]", "  entry: k", "#pragma unroll T\n", "but a `#pragma unroll` takes a number"},
		{"  bx: [32]\n  V: [naive, \"un signed\"]", "  entry: \"k_${V}\"", "",
		 "kernel entry 'k_${V}' does not make a C identifier for V = un signed"},
		{"  bx: [32]\n  T: [float, half]\nverify: {reference: {bx: 32, T: double}}", "  entry: \"k<${T}>\"", "",
		 "gives 'double' for parameter 'T', which is not one of its values (float, half)"},
		{"  bx: [32]\n  T: [float, half]", "  entry: \"k<${T}>(x)\"", "", "does not make a C identifier or a template-id"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		config cfg;
		char *first = NULL;
		CU_ASSERT(load_over(bad[i].src, bad[i].space, bad[i].entry, &cfg, &first) >= 1);
		if (!first || !strstr(first, bad[i].why))
			fprintf(stderr, "\n  case %zu: got %s\n want ...%s\n", i, first ? first : "(nothing)", bad[i].why);
		CU_ASSERT_PTR_NOT_NULL(first ? strstr(first, bad[i].why) : NULL);
		free(first);
		config_free(&cfg);
	}
}

int add_config_source_suite(void)
{
	CU_pSuite s = CU_add_suite("config_source", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "#pragma unroll names are found however spaced", test_pragma_unroll_names_are_found_however_spaced);
	CU_add_test(s, "a parameter the source defines itself replaces it", test_a_parameter_the_source_defines_itself_replaces_it);
	CU_add_test(s, "a define that cannot be replaced is refused", test_a_define_that_cannot_be_replaced_is_refused);
	CU_add_test(s, "a pragma's name decides what is compile-time", test_a_pragmas_name_decides_what_is_compile_time);
	CU_add_test(s, "an entry's placeholders are filled per configuration", test_an_entrys_placeholders_are_filled_per_configuration);
	CU_add_test(s, "a bad entry is refused at its position", test_a_bad_entry_is_refused_at_its_position);
	CU_add_test(s, "string parameters fill a templated entry", test_string_parameters_fill_a_templated_entry);
	CU_add_test(s, "strings where they cannot go are refused", test_strings_where_they_cannot_go_are_refused);
	return 0;
}
