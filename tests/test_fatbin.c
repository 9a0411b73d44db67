/* test_fatbin.c: the cubins a fatbinary holds, as nvcc 13 lays them out (a container header, then
 * entries of PTX and ELF, compressed or not), found within the bytes given whatever they are. */
#include <CUnit/CUnit.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fatbin.h"
#include "tests.h"

static void put(unsigned char *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* An entry at p: kind, 64-byte header, payload of len bytes (filled with fill), target, flags;
 * its total length. */
static size_t entry(unsigned char *p, int kind, size_t len, unsigned arch, uint64_t flags, unsigned char fill)
{
	memset(p, 0, 64);
	put(p, (uint64_t)kind, 2);
	put(p + 2, 0x101, 2);
	put(p + 4, 64, 4);
	put(p + 8, len, 8);
	put(p + 28, arch, 4);
	put(p + 40, flags, 8);
	memset(p + 64, fill, len);
	return 64 + len;
}

/* A container of a PTX entry and ELF entries for sm_80 (plain), sm_90 (zstd) and sm_89 (LZ4),
 * as nvcc's -compress-mode options flag them; its length. */
static size_t container(unsigned char *buf)
{
	size_t n = 16;
	n += entry(buf + n, 1, 32, 90, 0x8011, 'p');
	n += entry(buf + n, 2, 48, 80, 0x11, 'e');
	n += entry(buf + n, 2, 16, 90, 0x8011, 'z');
	n += entry(buf + n, 2, 16, 89, 0x2011, 'l');
	put(buf, 0xBA55ED50u, 4);
	put(buf + 4, 1, 2);
	put(buf + 6, 16, 2);
	put(buf + 8, n - 16, 8);
	return n;
}

static void test_a_fatbinary_s_cubins_and_their_targets(void)
{
	unsigned char buf[1024];
	size_t len = container(buf);
	fatbin_cubin *c;
	size_t n;
	const char *why;
	CU_ASSERT_EQUAL_FATAL(fatbin_cubins(buf, len, &c, &n, &why), 0);
	CU_ASSERT_EQUAL_FATAL(n, 3); /* the PTX is no cubin */
	CU_ASSERT_EQUAL(c[0].arch, 80);
	CU_ASSERT_PTR_NULL(c[0].compressed);
	CU_ASSERT_EQUAL(c[0].size, 48);
	CU_ASSERT(c[0].elf == buf + 16 + 64 + 32 + 64);
	CU_ASSERT_EQUAL(c[0].elf[0], 'e');
	CU_ASSERT_EQUAL(c[1].arch, 90);
	CU_ASSERT_STRING_EQUAL(c[1].compressed, "zstd");
	CU_ASSERT_PTR_NULL(c[1].elf);
	CU_ASSERT_EQUAL(c[2].arch, 89);
	CU_ASSERT_STRING_EQUAL(c[2].compressed, "lz4");
	fatbin_free(c, n);
	/* two containers with the zeros of alignment between them, as a linked program has them */
	unsigned char two[2048] = {0};
	memcpy(two, buf, len);
	memcpy(two + len + 8, buf, len);
	CU_ASSERT_EQUAL_FATAL(fatbin_cubins(two, 2 * len + 8 + 4, &c, &n, &why), 0);
	CU_ASSERT_EQUAL(n, 6);
	fatbin_free(c, n);
}

/* Every cut of the container and every length field made too long is refused or read within
 * the bytes given; a cubin found lies within them. */
static void test_a_damaged_fatbinary_is_read_within_its_bounds(void)
{
	unsigned char buf[1024];
	size_t len = container(buf);
	for (size_t cut = 1; cut < len; cut++) {
		unsigned char *copy = malloc(cut); /* exactly cut bytes: a read past them is the sanitizer's */
		memcpy(copy, buf, cut);
		fatbin_cubin *c;
		size_t n;
		const char *why;
		int rc = fatbin_cubins(copy, cut, &c, &n, &why);
		CU_ASSERT(rc == -1 ? why != NULL && n == 0 : 1);
		for (size_t i = 0; rc == 0 && i < n; i++)
			CU_ASSERT(!c[i].elf || (c[i].elf >= copy && c[i].elf + c[i].size <= copy + cut));
		fatbin_free(c, n);
		free(copy);
	}
	static const size_t fields[] = {6, 8, 16 + 4, 16 + 8};
	for (size_t f = 0; f < sizeof fields / sizeof *fields; f++) {
		unsigned char bad[1024];
		memcpy(bad, buf, len);
		put(bad + fields[f], 0xffffffffu, 4);
		fatbin_cubin *c;
		size_t n;
		const char *why;
		CU_ASSERT_EQUAL(fatbin_cubins(bad, len, &c, &n, &why), -1);
		CU_ASSERT_PTR_NOT_NULL(why);
		CU_ASSERT_PTR_NULL(c);
	}
}

static void test_what_is_no_binary_is_said(void)
{
	fatbin_cubin *c;
	size_t n;
	const char *why;
	const unsigned char text[] = "block_x,blockDim.x\n1,2\n";
	CU_ASSERT_EQUAL(fatbin_cubins(text, sizeof text, &c, &n, &why), -1);
	CU_ASSERT_PTR_NOT_NULL(why && strstr(why, "not an ELF file"));
	CU_ASSERT_EQUAL(n, 0);
}

int add_fatbin_suite(void)
{
	CU_pSuite s = CU_add_suite("fatbin", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "a fatbinary's cubins and their targets", test_a_fatbinary_s_cubins_and_their_targets);
	CU_add_test(s, "a damaged fatbinary is read within its bounds", test_a_damaged_fatbinary_is_read_within_its_bounds);
	CU_add_test(s, "what is no binary is said", test_what_is_no_binary_is_said);
	return 0;
}
