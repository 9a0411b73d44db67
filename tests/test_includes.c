/* test_includes.c: the spec hash covers every file of the project that the compile reads: the
 * headers the kernel includes, nested, from build.include, under any #if; not the system's nor
 * one merely beside them. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "diag.h"
#include "hash.h"
#include "includes.h"
#include "tests.h"

#define DIR "scratch/includes"

/* DIR/k.cu includes local.h (which includes nested.h), <tile32.h> from build.include's inc/ under
 * #if TILE == 32, and a system header (stddef.h); DIR/h.yaml tunes it. */
static char *write_project(void)
{
	mkdir(DIR, 0777);
	mkdir(DIR "/inc", 0777);
	put_file(DIR "/k.cu", "#include <stddef.h>\n#include \"local.h\"\n#if TILE == 32\n#  include <tile32.h>\n#endif\n"
			      "extern \"C\" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; "
			      "if (i < n) a[i] = EPS * TILE; }\n");
	put_file(DIR "/local.h", "#define EPS 1e-6f\n#include \"nested.h\"\n");
	put_file(DIR "/nested.h", "// nested\n");
	put_file(DIR "/inc/tile32.h", "// only for TILE 32\n");
	put_file(DIR "/unrelated.h", "// beside the kernel, included by nothing\n");
	return write_named_config(DIR, "h", "k.cu",
				  "space: {bx: [32, 64], TILE: [16, 32]}\nbuild: {defines: [TILE], include: [inc]}\n"
				  "measure: {finalists: 0, metrics: none}");
}

static char *spec_hash(const char *config)
{
	char *out = NULL;
	char *argv[] = {"validate", "--print-spec-hash", (char *)config, NULL};
	CU_ASSERT_EQUAL(run_autotune(argv, &out), 0);
	CU_ASSERT_EQUAL(out ? strlen(out) : 0, 17);
	return out;
}

/* Each header the compile may read, at any depth and under any #if, changes the hash; a file
 * beside them that nothing includes does not. */
static void test_an_included_header_changes_the_spec_hash(void)
{
	char *config = write_project(), *was = spec_hash(config);
	static const char *const read[] = {DIR "/local.h", DIR "/nested.h", DIR "/inc/tile32.h"};
	for (size_t i = 0; i < sizeof read / sizeof *read; i++) {
		FILE *f = fopen(read[i], "a");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		fputs("#define EDITED 1\n", f);
		fclose(f);
		char *now = spec_hash(config);
		if (!strcmp(was, now))
			fprintf(stderr, "\n  editing %s left the spec hash %s", read[i], now);
		CU_ASSERT_STRING_NOT_EQUAL(was, now);
		free(was);
		was = now;
	}
	put_file(DIR "/unrelated.h", "// edited\n");
	char *now = spec_hash(config);
	CU_ASSERT_STRING_EQUAL(was, now);
	free(was);
	free(now);
}

/* What is found, and in which order: a file's includes before theirs, each once, neither the
 * source nor the system's headers; a kernel of no header of its own keeps the hash it had before
 * headers counted. */
static void test_the_headers_found_are_the_projects(void)
{
	char *path = write_project();
	config cfg;
	diags d = {0};
	CU_ASSERT_EQUAL_FATAL(config_load(path, &cfg, &d), 0);
	spec_files f = {0};
	includes_of(cfg.source, cfg.path, cfg.nvcc_flags, cfg.nflags, &f);
	CU_ASSERT_EQUAL_FATAL(f.n, 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(f.v[0].path, "/local.h"));
	CU_ASSERT_PTR_NOT_NULL(strstr(f.v[1].path, "/inc/tile32.h"));
	CU_ASSERT_PTR_NOT_NULL(strstr(f.v[2].path, "/nested.h"));
	spec_files_free(&f);
	config_free(&cfg);

	put_file(DIR "/plain.cu", "#include <stddef.h>\nextern \"C\" __global__ void k(float *a, int n) { a[0] = n; }\n");
	char *plain = write_named_config(DIR, "plain", "plain.cu", "space: {bx: [32]}");
	CU_ASSERT_EQUAL_FATAL(config_load(plain, &cfg, &d), 0);
	char mine[17], before[17];
	config_spec_hash(&cfg, mine);
	hash_spec(cfg.path, cfg.source, NULL, 0, before);
	CU_ASSERT_STRING_EQUAL(mine, before);
	config_free(&cfg);
	diags_free(&d);
}

int add_includes_suite(void)
{
	CU_pSuite s = CU_add_suite("includes", NULL, NULL);
	if (!s)
		return -1;
	CU_add_test(s, "an included header changes the spec hash", test_an_included_header_changes_the_spec_hash);
	CU_add_test(s, "the headers found are the project's", test_the_headers_found_are_the_projects);
	return 0;
}
