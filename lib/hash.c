/* hash.c: XXH3-64 streaming over strings and files. */
#include "hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <xxhash.h>

#include "diag.h"
#include "banned.h"

struct hasher {
	XXH3_state_t *st;
};

hasher *hasher_new(void)
{
	hasher *h = xmalloc(sizeof *h);
	h->st = XXH3_createState();
	if (!h->st)
		diag_out_of_memory();
	XXH3_64bits_reset(h->st);
	return h;
}

void hasher_add(hasher *h, const void *data, size_t len) { XXH3_64bits_update(h->st, data, len); }

void hasher_add_str(hasher *h, const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	hasher_add(h, s, n + 1);
}

int hasher_add_contents(hasher *h, const char *path, unsigned long long *bytes)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		hasher_add_str(h, "<unreadable>");
		return -1;
	}
	char buf[65536];
	size_t n;
	unsigned long long total = 0;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
		hasher_add(h, buf, n);
		total += n;
	}
	if (bytes)
		*bytes = total;
	int bad = ferror(f);
	fclose(f);
	return bad ? -1 : 0;
}

int hasher_add_file(hasher *h, const char *path)
{
	hasher_add_str(h, path);
	return hasher_add_contents(h, path, NULL);
}

void hasher_finish(hasher *h, char *buf)
{
	snprintf(buf, 17, "%016llx", (unsigned long long)XXH3_64bits_digest(h->st));
	XXH3_freeState(h->st);
	free(h);
}

void hash_spec(const char *config_path, const char *source, const char *const *data, size_t ndata, char out[17])
{
	hasher *h = hasher_new();
	/* contents only: the same spec checked out elsewhere has the same hash */
	hasher_add_contents(h, config_path, NULL);
	hasher_add_contents(h, source, NULL);
	/* each data file's length after it, so that bytes moved from one file to the next change
	 * the hash; none (most configs): the hash is what it was before data files existed */
	for (size_t i = 0; i < ndata; i++) {
		unsigned long long bytes = 0;
		char len[32];
		hasher_add_contents(h, data[i], &bytes);
		snprintf(len, sizeof len, "%llu", bytes);
		hasher_add_str(h, len);
	}
	hasher_finish(h, out);
}
