/* test_hash.c: the content hashes that decide whether earlier results can be reused (hash.c): the
 * same input gives the same hash and a changed byte another; strings are delimited, files hash
 * their name and contents, read in pieces as one stream; hash_spec sees contents only. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "hash.h"
#include "tests.h"

static void hash_bytes(const void *data, size_t len, char out[17])
{
	hasher *h = hasher_new();
	hasher_add(h, data, len);
	hasher_finish(h, out);
}

static void hash_strs(const char *a, const char *b, char out[17])
{
	hasher *h = hasher_new();
	hasher_add_str(h, a);
	hasher_add_str(h, b);
	hasher_finish(h, out);
}

static void hash_file(const char *path, char out[17], int *rc)
{
	hasher *h = hasher_new();
	*rc = hasher_add_file(h, path);
	hasher_finish(h, out);
}

/* 16 lowercase hex digits: XXH3-64 of the bytes, as libxxhash computes it in one call. */
static void test_a_hash_is_xxh3_in_16_hex_digits(void)
{
	const char *text = "extern \"C\" __global__ void k(float *a) {}\n";
	char got[17], want[17];
	hash_bytes(text, strlen(text), got);
	snprintf(want, sizeof want, "%016llx", (unsigned long long)XXH3_64bits(text, strlen(text)));
	CU_ASSERT_STRING_EQUAL(got, want);
	CU_ASSERT_EQUAL(strlen(got), 16);
	CU_ASSERT_EQUAL(strspn(got, "0123456789abcdef"), 16);
}

/* The same input, the same hash; any one byte changed, another. */
static void test_same_input_same_hash_a_changed_byte_another(void)
{
	char base[256];
	for (int i = 0; i < 256; i++)
		base[i] = (char)i;
	char first[17], again[17];
	hash_bytes(base, sizeof base, first);
	hash_bytes(base, sizeof base, again);
	CU_ASSERT_STRING_EQUAL(first, again);
	int differ = 0;
	for (int i = 0; i < 256; i++) {
		char copy[256], h[17];
		memcpy(copy, base, sizeof copy);
		copy[i] ^= 1;
		hash_bytes(copy, sizeof copy, h);
		differ += strcmp(h, first) != 0;
	}
	CU_ASSERT_EQUAL(differ, 256);
	char shorter[17];
	hash_bytes(base, sizeof base - 1, shorter);
	CU_ASSERT_STRING_NOT_EQUAL(shorter, first);
}

/* Bytes are one stream however they are split; strings carry their NUL, so "ab"+"c" and "a"+"bc"
 * (flags "-O3" "-g" against "-O3 -g"...) are different inputs. */
static void test_strings_are_delimited_bytes_are_not(void)
{
	char ab_c[17], a_bc[17];
	hash_strs("ab", "c", ab_c);
	hash_strs("a", "bc", a_bc);
	CU_ASSERT_STRING_NOT_EQUAL(ab_c, a_bc);
	hasher *h = hasher_new();
	hasher_add(h, "ab", 2);
	hasher_add(h, "c", 1);
	hasher_finish(h, ab_c);
	h = hasher_new();
	hasher_add(h, "a", 1);
	hasher_add(h, "bc", 2);
	hasher_finish(h, a_bc);
	CU_ASSERT_STRING_EQUAL(ab_c, a_bc);
}

/* A file is its name and its contents, read in 64 KiB pieces: the same as adding the name and
 * the whole contents at once. An unreadable file is -1 and hashes unlike an empty one. */
static void test_a_file_is_its_name_and_contents(void)
{
	size_t n = 200000; /* over three of hash.c's reads */
	char *big = malloc(n + 1);
	for (size_t i = 0; i < n; i++)
		big[i] = (char)('a' + i % 26);
	big[n] = 0;
	const char *path = write_temp(0, "big.cu", big);
	char file[17], by_hand[17];
	int rc;
	hash_file(path, file, &rc);
	CU_ASSERT_EQUAL(rc, 0);
	hasher *h = hasher_new();
	hasher_add_str(h, path);
	hasher_add(h, big, n);
	hasher_finish(h, by_hand);
	CU_ASSERT_STRING_EQUAL(file, by_hand);
	/* the same contents under another name: another hash */
	const char *twin = write_temp(1, "twin.cu", big);
	char other[17];
	hash_file(twin, other, &rc);
	CU_ASSERT_STRING_NOT_EQUAL(other, file);
	/* one byte changed in the middle */
	big[n / 2] ^= 1;
	write_temp(0, "big.cu", big);
	hash_file(path, other, &rc);
	CU_ASSERT_STRING_NOT_EQUAL(other, file);
	free(big);
	/* unreadable: -1, and not the hash of an empty file of that name */
	unlink(path);
	char missing[17], empty[17];
	hash_file(path, missing, &rc);
	CU_ASSERT_EQUAL(rc, -1);
	write_temp(0, "big.cu", "");
	hash_file(path, empty, &rc);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_STRING_NOT_EQUAL(missing, empty);
	unlink(path);
	unlink(twin);
}

/* What a tuned header records: the config's and the source's contents, not where they are (a
 * checkout elsewhere agrees), and either one edited changes it. */
static void test_the_spec_hash_sees_contents_only(void)
{
	const char *cfg = write_temp(2, "spec.yaml", "name: s\n"), *src = write_temp(3, "spec.cu", "// k\n");
	char one[17], moved[17], edited[17], again[17];
	hash_spec(cfg, src, NULL, 0, one);
	const char *cfg2 = write_temp(4, "elsewhere.yaml", "name: s\n"), *src2 = write_temp(5, "elsewhere.cu", "// k\n");
	hash_spec(cfg2, src2, NULL, 0, moved);
	CU_ASSERT_STRING_EQUAL(one, moved);
	hash_spec(cfg, src, NULL, 0, again);
	CU_ASSERT_STRING_EQUAL(one, again);
	write_temp(3, "spec.cu", "// k edited\n");
	hash_spec(cfg, src, NULL, 0, edited);
	CU_ASSERT_STRING_NOT_EQUAL(one, edited);
	write_temp(3, "spec.cu", "// k\n");
	write_temp(2, "spec.yaml", "name: t\n");
	hash_spec(cfg, src, NULL, 0, edited);
	CU_ASSERT_STRING_NOT_EQUAL(one, edited);
	unlink(cfg);
	unlink(src);
	unlink(cfg2);
	unlink(src2);
}

int add_hash_suite(void)
{
	CU_pSuite s = CU_add_suite("hash", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "a hash is XXH3 in 16 hex digits", test_a_hash_is_xxh3_in_16_hex_digits);
	CU_add_test(s, "same input, same hash; a changed byte, another", test_same_input_same_hash_a_changed_byte_another);
	CU_add_test(s, "strings are delimited, bytes are not", test_strings_are_delimited_bytes_are_not);
	CU_add_test(s, "a file is its name and contents", test_a_file_is_its_name_and_contents);
	CU_add_test(s, "the spec hash sees contents only", test_the_spec_hash_sees_contents_only);
	return 0;
}
