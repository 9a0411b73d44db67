/* test_import_keys.c: a T1 spec's keys outside the schema are read past with one note, a
 * misspelt known key stays an error, and what is no T1 spec of a CUDA kernel is refused in one
 * line. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import.h"
#include "import_keys.h"
#include "tests.h"

/* tests/t1/vector_add.json with `from` replaced by `to`, written and imported in test_dir beside
 * an empty kernel file: the status, the messages in *d. */
static int import_edited(const char *from, const char *to, diags *d, char *yaml, size_t size)
{
	char *spec = read_text("tests/t1/vector_add.json");
	const char *at = spec ? strstr(spec, from) : NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	char *text = xasprintf("%.*s%s%s", (int)(at - spec), spec, to, at + strlen(from));
	char json[200], kernel[200];
	snprintf(json, sizeof json, "%s/keys.json", test_dir);
	snprintf(kernel, sizeof kernel, "%s/vector_add.cu", test_dir); /* import reads no more of it */
	FILE *k = fopen(kernel, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(k);
	fclose(k);
	FILE *f = fopen(json, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
	snprintf(yaml, size, "%s/keys.yaml", test_dir);
	unlink(yaml);
	int rc = import_t1(json, yaml, d);
	unlink(json);
	free(text);
	free(spec);
	return rc;
}

/* BAT's and benchmark_hub's keys beside the schema's (Stream, Objective, Misc, an argument's
 * Foo in every argument) are read past: the config is written, and one note lists each path
 * once, in the messages and at the end of the config. */
static void test_keys_outside_t1_are_read_past_with_one_note(void)
{
	diags d = {0};
	char yaml[200];
	int rc = import_edited("\"TimeUnit\": \"Milliseconds\"}",
			       "\"TimeUnit\": \"Milliseconds\", \"Objective\": \"GFLOPs\"}, \"SearchSettings\": {\"Trials\": 10}",
			       &d, yaml, sizeof yaml);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	diags_free(&d);
	rc = import_edited("\"Language\": \"CUDA\",",
			   "\"Language\": \"CUDA\", \"Stream\": null, \"Misc\": {\"jitify\": true}, \"General\": 1,", &d, yaml,
			   sizeof yaml);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msgs[0], "keys.json: note: read past keys outside T1 that autotune does not "
						 "use: KernelSpecification.Stream, KernelSpecification.Misc, "
						 "KernelSpecification.General"));
	CU_ASSERT_EQUAL(count_in(yaml, "# note: read past keys outside T1"), 1);
	diags_free(&d);
	/* an argument's key in every argument is one path */
	rc = import_edited("\"MemoryType\": \"Scalar\",", "\"MemoryType\": \"Scalar\", \"Unit\": \"s\", \"Note\": 1,", &d,
			   yaml, sizeof yaml);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT(d.n == 1 && strstr(d.msgs[0], "use: KernelSpecification.Arguments[].Unit, "
						"KernelSpecification.Arguments[].Note"));
	diags_free(&d);
	unlink(yaml);
}

/* What differs from a known key by case or a letter, or is another name for Conditions with
 * conditions in it, would drop the kernel or its constraints if read past: an error, alone. An
 * empty Constraints list (BAT's builtin_vectors) drops nothing and is read past. */
static void test_a_misspelt_known_key_stays_an_error(void)
{
	static const struct {
		const char *from, *to, *want;
	} cases[] = {
		{"\"Conditions\"", "\"conditions\"", "unknown key 'conditions' in ConfigurationSpace; did you mean 'Conditions'?"},
		{"\"Conditions\"", "\"Constraints\"", "unknown key 'Constraints' in ConfigurationSpace; did you mean 'Conditions'?"},
		{"\"LocalSize\"", "\"LocalSise\"", "unknown key 'LocalSise' in KernelSpecification; did you mean 'LocalSize'?"},
		{"\"KernelSpecification\"", "\"kernelspecification\"",
		 "unknown key 'kernelspecification' in the T1 spec; did you mean 'KernelSpecification'?"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		diags d = {0};
		char yaml[200];
		CU_ASSERT_EQUAL(import_edited(cases[i].from, cases[i].to, &d, yaml, sizeof yaml), -1);
		int found = d.n == 1 && strstr(d.msgs[0], cases[i].want);
		if (!found)
			fprintf(stderr, "\n  %s: %s\n", cases[i].to, d.n ? d.msgs[0] : "(nothing)");
		CU_ASSERT(found);
		CU_ASSERT_NOT_EQUAL(access(yaml, F_OK), 0);
		diags_free(&d);
	}
	diags d = {0};
	char yaml[200];
	CU_ASSERT_EQUAL(import_edited("\"Conditions\"", "\"Constraints\": [], \"Conditions\"", &d, yaml, sizeof yaml), 0);
	CU_ASSERT(d.n == 1 && strstr(d.msgs[0], "ConfigurationSpace.Constraints"));
	diags_free(&d);
	unlink(yaml);
}

/* BAT's older format, another format, an OpenCL or a HIP kernel: one line that says which, and
 * nothing written. */
static void test_what_is_no_t1_spec_of_a_cuda_kernel_is_refused_in_one_line(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{"{\"General\": {}, \"ConfigurationSpace\": {\"TuningParameters\": []}, \"benchmarkConfig\": {},\n"
		 " \"kernelSpecification\": {\"language\": \"CUDA\"}}",
		 ":1:1: not a T1 spec: BAT's older format (kernelSpecification, benchmarkConfig)"},
		{"{\"general\": {}, \"configuration_space\": {}, \"function_specification\": {}}",
		 ":1:1: not a T1 spec: it has neither ConfigurationSpace nor KernelSpecification"},
		{"{\"ConfigurationSpace\": {\"TuningParameters\": []}, \"Stream\": 1,\n"
		 " \"KernelSpecification\": {\"Language\": \"OpenCL\", \"KernelFile\": \"k.cl\"}}",
		 ":2:38: KernelSpecification.Language 'OpenCL': autotune tunes CUDA kernels"},
		{"{\"ConfigurationSpace\": {\"TuningParameters\": []}, \"Stream\": 1,\n"
		 " \"KernelSpecification\": {\"Language\": \"CUDA\", \"KernelFile\": \"k.cu.hip\"}}",
		 ":2:60: KernelSpecification.KernelFile 'k.cu.hip' is a HIP kernel: autotune tunes CUDA kernels"},
		{"{\"ConfigurationSpace\": {\"TuningParameters\": [\n  {\"Name\": \"a\",}]}}", ":2:15: JSON syntax error"},
	};
	char yaml[200];
	snprintf(yaml, sizeof yaml, "%s/foreign.yaml", test_dir);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *json = write_temp(4, "foreign.json", cases[i].text);
		diags d = {0};
		CU_ASSERT_EQUAL(import_t1(json, yaml, &d), -1);
		int found = d.n == 1 && strstr(d.msgs[0], cases[i].want);
		if (!found)
			fprintf(stderr, "\n  %s: %s\n", cases[i].want, d.n ? d.msgs[0] : "(nothing)");
		CU_ASSERT(found);
		CU_ASSERT_NOT_EQUAL(access(yaml, F_OK), 0);
		diags_free(&d);
		unlink(json);
	}
}

/* T1's element types as autotune's, the 16-bit floats among them (float16 is numpy's half);
 * a type autotune has no such element for is none. */
static void test_t1_types_map_to_element_types(void)
{
	static const char *const pairs[][2] = {{"float16", "half"}, {"half", "half"}, {"bfloat16", "bfloat16"},
					       {"half2", "half2"}, {"bool", "uint8"}, {"double3", "double3"}};
	for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
		const char *ours = import_type(pairs[i][0]);
		CU_ASSERT(ours && !strcmp(ours, pairs[i][1]));
	}
	CU_ASSERT_PTR_NULL(import_type("float128"));
	CU_ASSERT_PTR_NULL(import_type("__half")); /* CUDA's spelling is the config's, not T1's */
}

int add_import_keys_suite(void)
{
	CU_pSuite s = CU_add_suite("import_keys", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "keys outside T1 are read past with one note", test_keys_outside_t1_are_read_past_with_one_note);
	CU_add_test(s, "T1 types map to element types", test_t1_types_map_to_element_types);
	CU_add_test(s, "a misspelt known key stays an error", test_a_misspelt_known_key_stays_an_error);
	CU_add_test(s, "what is no T1 spec of a CUDA kernel is refused in one line",
		    test_what_is_no_t1_spec_of_a_cuda_kernel_is_refused_in_one_line);
	return 0;
}
