/* test_config_data.c: data files (config_data.c): fill: {file} and verify.expected take an .npy
 * file (format 1.0 to 3.0, the little-endian dtypes, C order or 1-D) or raw bytes, relative to
 * the config; the argument keeps the file's absolute path and where its data starts. A file that
 * does not fit its argument (type, count, size, byte order, order, a header that is not one) is
 * refused at its place in the config, saying what it holds and what the argument needs; and the
 * spec hash follows the files' contents. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "hash.h"
#include "tests.h"

/* test_dir/NAME (static storage, overwritten by the next call with the same slot). */
static const char *at(int slot, const char *name)
{
	static char paths[4][256];
	snprintf(paths[slot], sizeof paths[slot], "%s/%s", test_dir, name);
	return paths[slot];
}

/* config_good with array argument a as `arg` (line 8), and `extra` lines after it (or ""). */
static const char *with_arg(const char *arg, const char *extra)
{
	static char text[4096];
	snprintf(text, sizeof text, "%s%s", config_with_line(8, arg), extra);
	return text;
}

/* The 1-based column of needle in line. */
static int col_of(const char *line, const char *needle)
{
	const char *p = strstr(line, needle);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	return (int)(p - line) + 1;
}

/* Loads text, asserting it loads; argument 0 then is a data file at test_dir/file, data at offset. */
static void expect_file(const char *text, const char *file, unsigned long long offset, int expected)
{
	config cfg;
	char *first;
	CU_ASSERT_EQUAL_FATAL(config_load_text(text, &cfg, &first), 0);
	const data_file *f = expected ? &cfg.args[0].expected : &cfg.args[0].fill_file;
	char *real = realpath(at(3, file), NULL);
	CU_ASSERT_PTR_NOT_NULL(real);
	CU_ASSERT_STRING_EQUAL(f->path ? f->path : "?", real ? real : "!");
	CU_ASSERT_EQUAL(f->offset, offset);
	CU_ASSERT_EQUAL(cfg.args[0].fill, expected ? FILL_ZEROS : FILL_FILE);
	free(real);
	config_free(&cfg);
}

static void test_raw_and_npy_files_fill_an_array(void)
{
	put_bytes(at(0, "d-raw.bin"), 1024 * 4);
	expect_file(with_arg("  - {name: a, type: float, count: n, fill: {file: d-raw.bin}}", ""), "d-raw.bin", 0, 0);
	/* the three versions of the format, each header padded so the data starts 64-aligned */
	size_t off = put_npy(at(0, "d-f4.npy"), 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1024,), }", 4096);
	CU_ASSERT_EQUAL(off, 128);
	expect_file(with_arg("  - {name: a, type: float, count: n, fill: {file: d-f4.npy}}", ""), "d-f4.npy", off, 0);
	off = put_npy(at(0, "d-u1.npy"), 2, "{\"descr\": \"|u1\", \"fortran_order\": False, \"shape\": (32, 32)}", 1024);
	expect_file(with_arg("  - {name: a, type: uint8, count: n, fill: {file: d-u1.npy}}", ""), "d-u1.npy", off, 0);
	off = put_npy(at(0, "d-i8.npy"), 3, "{'descr': '<i8', 'fortran_order': False, 'shape': (1024,), }", 8192);
	expect_file(with_arg("  - {name: a, type: int64, count: n, fill: {file: d-i8.npy}}", ""), "d-i8.npy", off, 0);
	/* a vector type: its base type, count x lanes elements, in any shape */
	off = put_npy(at(0, "d-v.npy"), 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (256, 4), }", 4096);
	expect_file(with_arg("  - {name: a, type: float4, count: n / 4, fill: {file: d-v.npy}}", ""), "d-v.npy", off, 0);
	/* Fortran order is C order in one dimension */
	off = put_npy(at(0, "d-f1.npy"), 1, "{'descr': '<f8', 'fortran_order': True, 'shape': (1024,), }", 8192);
	expect_file(with_arg("  - {name: a, type: double, count: n, fill: {file: d-f1.npy}}", ""), "d-f1.npy", off, 0);
	/* an absolute path is taken as it is */
	char line[512];
	snprintf(line, sizeof line, "  - {name: a, type: float, count: n, fill: {file: %s}}", at(1, "d-raw.bin"));
	expect_file(with_arg(line, ""), "d-raw.bin", 0, 0);
}

/* Every file that does not fit, at the position of its name, saying what it holds and what the
 * argument needs. */
static void test_files_that_do_not_fit_are_refused_at_their_place(void)
{
	put_bytes(at(0, "d-short.bin"), 4000);
	put_npy(at(0, "d-f8.npy"), 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1000,), }", 8000);
	put_npy(at(0, "d-count.npy"), 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1000,), }", 4000);
	put_npy(at(0, "d-big.npy"), 1, "{'descr': '>f4', 'fortran_order': False, 'shape': (1024,), }", 4096);
	put_npy(at(0, "d-fortran.npy"), 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (32, 32), }", 4096);
	put_npy(at(0, "d-c8.npy"), 1, "{'descr': '<c8', 'fortran_order': False, 'shape': (512,), }", 4096);
	put_npy(at(0, "d-cut.npy"), 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1024,), }", 4000);
	put_npy(at(0, "d-rec.npy"), 1, "{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (1024,), }", 4096);
	put_npy(at(0, "d-v9.npy"), 9, "{'descr': '<f4', 'fortran_order': False, 'shape': (1024,), }", 4096);
	put_npy(at(0, "d-vec.npy"), 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1024,), }", 4096);
	static const struct {
		const char *file, *type, *message;
	} cases[] = {
		{"d-short.bin", "float", "d-short.bin holds 4000 bytes, but 'a' is 1024 float32 (<f4), 4096 bytes: a raw file holds exactly the array"},
		{"d-f8.npy", "float", "d-f8.npy holds 1000 float64 (<f8), but 'a' is 1024 float32 (<f4)"},
		{"d-count.npy", "float", "d-count.npy holds 1000 float32 (<f4), but 'a' is 1024 float32 (<f4)"},
		{"d-big.npy", "float", "d-big.npy holds big-endian data (>f4), but 'a' is 1024 float32 (<f4): only little-endian"},
		{"d-missing.npy", "float", "cannot read data file 'd-missing.npy': No such file or directory"},
		{"d-fortran.npy", "float", "d-fortran.npy holds a 2-D array in Fortran order, shape (32, 32), but 'a' is 1024 float32 (<f4) in C order"},
		{"d-c8.npy", "float", "d-c8.npy holds <c8 elements, which autotune does not read, but 'a' is 1024 float32 (<f4)"},
		{"d-cut.npy", "float", "d-cut.npy is not a valid .npy file: its header says 1024 float32 (4096 bytes), but 4000 bytes follow it"},
		{"d-rec.npy", "float", "d-rec.npy is not a valid .npy file: it holds a structured dtype"},
		{"d-v9.npy", "float", "d-v9.npy is an .npy file of version 9.0, which autotune does not read"},
		{"d-vec.npy", "float4", "d-vec.npy holds 1024 float32 (<f4), but 'a' is 1024 float4: 4096 float32 (<f4)"},
		{".", "float", "data file '.' is a directory, not a file"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char line[256];
		snprintf(line, sizeof line, "  - {name: a, type: %s, count: n, fill: {file: %s}}", cases[i].type, cases[i].file);
		config_expect_error(with_arg(line, ""), 8, col_of(line, cases[i].file),
				    cases[i].message);
	}
}

/* verify.expected: an output's values from a file, with the same checks; not with expect too,
 * and not for an argument that is not an output. */
static void test_expected_values_come_from_a_file(void)
{
	const char *out = "  - {name: a, type: float, count: n, output: true}";
	size_t off = put_npy(at(0, "d-e.npy"), 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1024,), }", 4096);
	expect_file(with_arg(out, "verify: {expected: {a: d-e.npy}}\n"), "d-e.npy", off, 1);
	put_npy(at(0, "d-e8.npy"), 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1024,), }", 8192);
	config_expect_error(with_arg(out, "verify: {expected: {a: d-e8.npy}}\n"), 15, 24,
			    "d-e8.npy holds 1024 float64 (<f8), but 'a' is 1024 float32 (<f4)");
	config_expect_error(with_arg(out, "verify: {expect: {a: i}, expected: {a: d-e.npy}}\n"), 15, 37,
			    "verify: 'a' has both expect and expected: give one");
	config_expect_error(with_arg(out, "verify: {expected: {n: d-e.npy}}\n"), 15, 21,
			    "verify expected: 'n' is not an output array argument");
}

/* 16-bit floats: half is numpy's float16 ('<f2'); numpy has no bfloat16, so a bfloat16 array is
 * taken as ml_dtypes' np.save writes it ('<V2'), under its name (a header written by hand), or as
 * its bits (a.view(np.uint16)); a pair type is count x 2 of its base; others are refused. */
static void test_16_bit_floats_from_npy_files(void)
{
	static const struct {
		const char *descr, *type, *count;
	} ok[] = {
		{"<f2", "half", "n"},	      {"<f2", "half2", "n / 2"}, {"<V2", "bfloat16", "n"},
		{"|V2", "bfloat16", "n"},     {"bfloat16", "bfloat16", "n"}, {"<u2", "bfloat16", "n"},
		{"<u2", "bfloat162", "n / 2"}, {"<V2", "__nv_bfloat162", "n / 2"},
	};
	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
		char header[128], line[256];
		snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (1024,), }", ok[i].descr);
		size_t off = put_npy(at(0, "d-16.npy"), 1, header, 2048);
		snprintf(line, sizeof line, "  - {name: a, type: %s, count: %s, fill: {file: d-16.npy}}", ok[i].type, ok[i].count);
		expect_file(with_arg(line, ""), "d-16.npy", off, 0);
	}
	put_npy(at(0, "d-h.npy"), 1, "{'descr': '<f2', 'fortran_order': False, 'shape': (1024,), }", 2048);
	put_npy(at(0, "d-u2.npy"), 1, "{'descr': '<u2', 'fortran_order': False, 'shape': (1024,), }", 2048);
	put_npy(at(0, "d-v2.npy"), 1, "{'descr': '<V2', 'fortran_order': False, 'shape': (1024,), }", 2048);
	static const struct {
		const char *file, *type, *message;
	} bad[] = {
		{"d-h.npy", "bfloat16", "d-h.npy holds 1024 float16 (<f2), but 'a' is 1024 bfloat16 (<u2 of its bits, or ml_dtypes' <V2)"},
		{"d-u2.npy", "half", "d-u2.npy holds 1024 uint16 (<u2), but 'a' is 1024 float16 (<f2)"},
		{"d-v2.npy", "half", "d-v2.npy holds 1024 bfloat16 (<V2), but 'a' is 1024 float16 (<f2)"},
		{"d-h.npy", "float", "d-h.npy holds 1024 float16 (<f2), but 'a' is 1024 float32 (<f4)"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char line[256];
		snprintf(line, sizeof line, "  - {name: a, type: %s, count: n, fill: {file: %s}}", bad[i].type, bad[i].file);
		config_expect_error(with_arg(line, ""), 8, col_of(line, bad[i].file), bad[i].message);
	}
}

/* Loads text as test_dir/d.yaml (kept, so that its hash can be taken); asserts it loads. */
static void load_kept(const char *text, config *cfg)
{
	diags d = {0};
	put_file(at(2, "d.yaml"), text);
	CU_ASSERT_EQUAL_FATAL(config_load(at(2, "d.yaml"), cfg, &d), 0);
	diags_free(&d);
}

/* The spec hash follows a data file's contents (one byte of it), and a config without data files
 * hashes as it did before they existed. */
static void test_the_spec_hash_follows_the_data_files(void)
{
	config cfg;
	char before[17], after[17], again[17], plain[17];
	put_bytes(at(0, "d-h.bin"), 4096);
	load_kept(with_arg("  - {name: a, type: float, count: n, fill: {file: d-h.bin}}", ""), &cfg);
	config_spec_hash(&cfg, before);
	FILE *f = fopen(at(0, "d-h.bin"), "r+b");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fseek(f, 100, SEEK_SET);
	fputc(0xEE, f);
	fclose(f);
	config_spec_hash(&cfg, after);
	CU_ASSERT_STRING_NOT_EQUAL(before, after);
	put_bytes(at(0, "d-h.bin"), 4096);
	config_spec_hash(&cfg, again);
	CU_ASSERT_STRING_EQUAL(before, again);
	config_free(&cfg);
	load_kept(config_good, &cfg);
	config_spec_hash(&cfg, plain);
	hash_spec(cfg.path, cfg.source, NULL, 0, again);
	CU_ASSERT_STRING_EQUAL(plain, again);
	config_free(&cfg);
	unlink(at(2, "d.yaml"));
}

int add_config_data_suite(void)
{
	CU_pSuite s = CU_add_suite("config_data", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "raw and .npy files fill an array", test_raw_and_npy_files_fill_an_array);
	CU_add_test(s, "files that do not fit are refused at their place", test_files_that_do_not_fit_are_refused_at_their_place);
	CU_add_test(s, "expected values come from a file", test_expected_values_come_from_a_file);
	CU_add_test(s, "16-bit floats from .npy files", test_16_bit_floats_from_npy_files);
	CU_add_test(s, "the spec hash follows the data files", test_the_spec_hash_follows_the_data_files);
	return 0;
}
