/* Independent reference for BAT's MD5Hash (tests/t1/published/bat/md5hash_kernel.h, entry
 * FindKeyWithDigest_Kernel): the key of index i is its base-valsPerByte digits, least significant
 * first, one per byte; its first byteLength bytes are the message. The kernel searches indices
 * 0 .. keyspace-1 for the message whose MD5 digest (four little-endian words) is the one given, and
 * writes the index, the key's 8 bytes and the digest. A plain MD5 (RFC 1321) of each candidate. */
#include <stdint.h>
#include <string.h>

static uint32_t rol(uint32_t x, int c) { return (x << c) | (x >> (32 - c)); }

/* MD5 of a message of at most 55 bytes: one block. */
static void md5_short(const unsigned char *msg, int len, uint32_t h[4])
{
	static const int r[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
				  5, 9,  14, 20, 5, 9,	14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
				  4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
				  6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};
	static uint32_t k[64];
	static int ready;
	if (!ready) {
		/* k[i] = floor(abs(sin(i + 1)) * 2^32), from the known constants' rule */
		static const uint32_t K[64] = {
			0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
			0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
			0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
			0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
			0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
			0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
			0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
			0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};
		memcpy(k, K, sizeof k);
		ready = 1;
	}
	unsigned char block[64] = {0};
	memcpy(block, msg, (size_t)len);
	block[len] = 0x80;
	uint64_t bits = (uint64_t)len * 8;
	for (int i = 0; i < 8; i++)
		block[56 + i] = (unsigned char)(bits >> (8 * i));
	uint32_t w[16];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)block[4 * i] | (uint32_t)block[4 * i + 1] << 8 | (uint32_t)block[4 * i + 2] << 16 |
		       (uint32_t)block[4 * i + 3] << 24;
	uint32_t a = 0x67452301, b = 0xefcdab89, c = 0x98badcfe, d = 0x10325476;
	h[0] = a, h[1] = b, h[2] = c, h[3] = d;
	for (int i = 0; i < 64; i++) {
		uint32_t f;
		int g;
		if (i < 16)
			f = (b & c) | (~b & d), g = i;
		else if (i < 32)
			f = (d & b) | (~d & c), g = (5 * i + 1) % 16;
		else if (i < 48)
			f = b ^ c ^ d, g = (3 * i + 5) % 16;
		else
			f = c ^ (b | ~d), g = (7 * i) % 16;
		uint32_t t = d;
		d = c;
		c = b;
		b = b + rol(a + f + k[i] + w[g], r[i]);
		a = t;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d;
}

void bat_md5hash_ref(unsigned int d0, unsigned int d1, unsigned int d2, unsigned int d3, int keyspace,
		     int byteLength, int valsPerByte, int *foundIndex, signed char *foundKey, unsigned int *foundDigest)
{
	for (int idx = 0; idx < keyspace; idx++) {
		unsigned char key[8];
		unsigned int rest = (unsigned int)idx;
		for (int i = 0; i < 8; i++) {
			key[i] = (unsigned char)(rest % (unsigned int)valsPerByte);
			rest /= (unsigned int)valsPerByte;
		}
		uint32_t h[4];
		md5_short(key, byteLength, h);
		if (h[0] == d0 && h[1] == d1 && h[2] == d2 && h[3] == d3) {
			*foundIndex = idx;
			for (int i = 0; i < 8; i++)
				foundKey[i] = (signed char)key[i];
			for (int i = 0; i < 4; i++)
				foundDigest[i] = h[i];
			return;
		}
	}
}
