/* test_import_reader.c: the T1 import's helpers (import_reader.c): YAML scalars quoted so that a
 * spec's text reads back as written, files the spec names rebased to where the config is written,
 * and a kernel path that nvcc's shell steps would interpret refused at its place. (The import as a
 * whole: test_import.c.) */
#define _GNU_SOURCE /* open_memstream */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "import_reader.h"
#include "tests.h"

/* What f received as text, f closed. */
static char *written(FILE *f, char **buf)
{
	fclose(f);
	return *buf;
}

static void test_a_quoted_scalar_reads_back_as_written(void)
{
	const struct {
		const char *in, *out;
	} cases[] = {
		{"plain", "\"plain\""},
		{"a\"b", "\"a\\\"b\""},
		{"back\\slash", "\"back\\\\slash\""},
		{"two\nlines", "\"two\\nlines\""},
		{"", "\"\""},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		ir_quoted(f, cases[i].in);
		CU_ASSERT_STRING_EQUAL(written(f, &buf), cases[i].out);
		free(buf);
	}
}

/* A kernel the spec names beside itself: as written when the config goes to the spec's directory,
 * by its absolute path when it goes elsewhere; a path a shell would read is an error at its node,
 * and so is the config written over the kernel itself. */
static void test_a_spec_file_is_rebased_or_refused(void)
{
	yaml_node_t n;
	memset(&n, 0, sizeof n);
	n.start_mark.line = 4;
	n.start_mark.column = 2;
	const struct {
		const char *out, *file, *want, *error;
	} cases[] = {
		{"/specs/c.yaml", "k.cu", "\"k.cu\"", NULL},
		{"/elsewhere/c.yaml", "k.cu", "\"/specs/k.cu\"", NULL},
		{"/elsewhere/c.yaml", "/abs/k.cu", "\"/abs/k.cu\"", NULL},
		{"/specs/c.yaml", "k$(id).cu", NULL, "/specs/s.json:5:3: KernelSpecification.KernelFile 'k$(id).cu' holds '$'"},
		{"/specs/k.cu", "k.cu", NULL, "/specs/s.json:5:3: KernelSpecification.KernelFile 'k.cu' is the file the config"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		diags d = {0};
		reader R;
		memset(&R, 0, sizeof R);
		R.file = "/specs/s.json";
		R.out = cases[i].out;
		R.d = &d;
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		ir_put_spec_file(&R, f, &n, "KernelSpecification.KernelFile", cases[i].file);
		written(f, &buf);
		if (cases[i].want) {
			CU_ASSERT_STRING_EQUAL(buf, cases[i].want);
			CU_ASSERT_EQUAL(R.errors, 0);
		} else {
			CU_ASSERT_EQUAL(R.errors, 1);
			CU_ASSERT(d.n == 1 && strstr(d.msgs[0], cases[i].error));
			if (d.n != 1 || !strstr(d.msgs[0], cases[i].error))
				fprintf(stderr, "\n  case %zu: %s\n", i, d.n ? d.msgs[0] : "(nothing said)");
		}
		free(buf);
		diags_free(&d);
	}
}

int add_import_reader_suite(void)
{
	CU_pSuite s = CU_add_suite("import_reader", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "a quoted scalar reads back as written", test_a_quoted_scalar_reads_back_as_written);
	CU_add_test(s, "a spec file is rebased or refused", test_a_spec_file_is_rebased_or_refused);
	return 0;
}
