/* test_document.c: YAML and JSON documents read whole (lib/document.c): text that stands for a
 * file, JSON's own numbers, and the key checks other readers than the config loader use (the
 * loader's own are in test_config_yaml.c). */
#include <CUnit/CUnit.h>
#include <string.h>

#include "document.h"
#include "tests.h"

/* Text that stands for a file (a repaired copy of it) parses as the file would, its errors named
 * by the file's path at the text's line and column; empty text is an error, not a crash. */
static void test_text_is_read_as_the_file_it_stands_for(void)
{
	const char *json = "{\"a\": [1, 2],\n \"b\": {\"c\": \"x\"}}";
	yaml_document_t doc;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(document_read_text("x.json", json, strlen(json), "JSON", &doc, &d), 0);
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	CU_ASSERT_EQUAL(root->type, YAML_MAPPING_NODE);
	CU_ASSERT_EQUAL(root->data.mapping.pairs.top - root->data.mapping.pairs.start, 2);
	yaml_document_delete(&doc);
	/* only the first len bytes count: the same text cut inside the second mapping is unclosed */
	CU_ASSERT_EQUAL(document_read_text("x.json", json, strlen(json) - 2, "JSON", &doc, &d), -1);
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	CU_ASSERT_EQUAL(strncmp(d.msgs[0], "x.json:", 7), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "JSON syntax error: did not find expected ',' or '}'"));
	diags_free(&d);
	CU_ASSERT_EQUAL(document_read_text("empty.json", "", 0, "JSON", &doc, &d), -1);
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "empty.json:1:1: JSON syntax error"));
	diags_free(&d);
}

/* document_check_keys, the key check of other documents (a T1 spec): each unknown or duplicate key
 * at its line and column, counted; a value that is not a mapping is one error. */
static void test_other_documents_check_their_keys(void)
{
	const char *text = "{\"Alpha\": 1,\n \"Betta\": 2, \"Alpha\": 3}";
	yaml_document_t doc;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(document_read_text("x.json", text, strlen(text), "JSON", &doc, &d), 0);
	static const char *const keys[] = {"Alpha", "Beta", NULL};
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	CU_ASSERT_EQUAL(document_check_keys(&doc, "x.json", root, "the spec", keys, &d), 2);
	CU_ASSERT_EQUAL_FATAL(d.n, 2);
	CU_ASSERT_STRING_EQUAL(d.msgs[0], "x.json:2:2: unknown key 'Betta' in the spec; did you mean 'Beta'?");
	CU_ASSERT_STRING_EQUAL(d.msgs[1], "x.json:2:14: duplicate key 'Alpha' (first at line 1, column 2)");
	CU_ASSERT_EQUAL(document_check_keys(&doc, "x.json", document_get(&doc, root, "Alpha"), "Alpha", keys, &d), 1);
	CU_ASSERT(d.n == 3 && strstr(d.msgs[2], "Alpha must be a mapping, not a scalar"));
	yaml_document_delete(&doc);
	diags_free(&d);
}

/* JSON's numbers, not YAML's wider set (which would read +1 or 0x10 as numbers). */
static void test_json_numbers_are_jsons(void)
{
	static const char *const yes[] = {"0", "-0", "7", "-12", "1.5", "0.25", "1e3", "1E+3", "-2.5e-3", NULL};
	static const char *const no[] = {"", "-", "01", "+1", "1.", ".5", "1e", "1e+", "0x10", "1_000", "NaN", "1 ", NULL};
	for (const char *const *s = yes; *s; s++)
		CU_ASSERT(document_json_number(*s));
	for (const char *const *s = no; *s; s++)
		CU_ASSERT(!document_json_number(*s));
}

/* With no list of keys, only duplicates are errors; a sequence is said as one. */
static void test_any_key_but_not_twice(void)
{
	const char *text = "a: 1\nzz: 2\na: 3\nl: [1]\n";
	yaml_document_t doc;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(document_read_text("x.yaml", text, strlen(text), "YAML", &doc, &d), 0);
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	CU_ASSERT_EQUAL(document_check_keys(&doc, "x.yaml", root, "the file", NULL, &d), 1);
	CU_ASSERT(d.n == 1 && !strcmp(d.msgs[0], "x.yaml:3:1: duplicate key 'a' (first at line 1, column 1)"));
	yaml_node_t *l = document_get(&doc, root, "l");
	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	CU_ASSERT_STRING_EQUAL(document_kind(l), "a list");
	CU_ASSERT_EQUAL(document_check_keys(&doc, "x.yaml", l, "l", NULL, &d), 1);
	CU_ASSERT(d.n == 2 && !strcmp(d.msgs[1], "x.yaml:4:4: l must be a mapping, not a list"));
	CU_ASSERT_PTR_NULL(document_get(&doc, l, "a"));
	CU_ASSERT_PTR_NULL(document_get(&doc, root, "b"));
	yaml_document_delete(&doc);
	diags_free(&d);
}

int add_document_suite(void)
{
	CU_pSuite s = CU_add_suite("document", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "text is read as the file it stands for", test_text_is_read_as_the_file_it_stands_for);
	CU_add_test(s, "other documents check their keys", test_other_documents_check_their_keys);
	CU_add_test(s, "JSON numbers are JSON's", test_json_numbers_are_jsons);
	CU_add_test(s, "any key, but not twice", test_any_key_but_not_twice);
	return 0;
}
