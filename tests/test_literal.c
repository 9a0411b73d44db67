/* test_literal.c: values as C and make text: strings that read back as their bytes, comments
 * that stay comments, numbers of the narrowest kind that reads back exactly. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "literal.h"
#include "tests.h"

/* What f(s) writes, as a string (caller frees). */
static char *written(void (*f)(FILE *, const char *), const char *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	f(m, s);
	fclose(m);
	return text;
}

static void test_strings_and_comments(void)
{
	char *c = written(c_string, "a\"b\\c?\n\x01\xc3\xa9");
	CU_ASSERT_STRING_EQUAL(c, "\"a\\\"b\\\\c\\?\\012\\001\\303\\251\"");
	free(c);
	char *m = written(make_value, "-DX=$(Y) # z");
	CU_ASSERT_STRING_EQUAL(m, "-DX=$$(Y) \\# z");
	free(m);
	char *o = one_line("a\nb\\c */ d");
	CU_ASSERT_STRING_EQUAL(o, "a b/c *_ d");
	free(o);
}

static void test_numbers_read_back(void)
{
	number v;
	CU_ASSERT_EQUAL(parse_number("-3", &v), 0);
	CU_ASSERT_EQUAL(v.kind, 0);
	CU_ASSERT_EQUAL(parse_number("4294967296", &v), 0);
	CU_ASSERT_EQUAL(v.kind, 1);
	CU_ASSERT_EQUAL(parse_number("0.1", &v), 0);
	CU_ASSERT_EQUAL(v.kind, 2);
	CU_ASSERT_EQUAL(strtod(v.num, NULL), 0.1);
	CU_ASSERT_EQUAL(parse_number("1e400", &v), -1);
	CU_ASSERT_EQUAL(parse_number("0x10", &v), -1);
	CU_ASSERT_EQUAL(parse_number("3;", &v), -1);
	CU_ASSERT_EQUAL(parse_number("", &v), -1);
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	parse_number("-5", &v);
	c_number(m, &v, 0);
	fputc(' ', m);
	c_number(m, &v, 1); /* widened by another section's value */
	fputc(' ', m);
	c_number(m, &v, 2);
	fclose(m);
	CU_ASSERT_STRING_EQUAL(text, "(-5) (-5LL) (-5.0)");
	free(text);
}

int add_literal_suite(void)
{
	CU_pSuite s = CU_add_suite("literal", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "strings and comments", test_strings_and_comments);
	CU_add_test(s, "numbers read back", test_numbers_read_back);
	return 0;
}
