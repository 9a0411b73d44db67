/* recipe.h: the build recipe that a tuned header and its make fragment carry, so that a user's
 * build compiles the binary that won: the flags it was compiled with (every -D, build.flags, the
 * register cap, -rdc), the device runtime to link, the source to compile (for a kernel with
 * `#pragma unroll PARAM`, a copy with the winner's factors written in, shipped beside the header)
 * and the include directories that source needs. */
#ifndef AUTOTUNE_RECIPE_H
#define AUTOTUNE_RECIPE_H

#include <stddef.h>
#include <stdio.h>

#include "config.h"
#include "diag.h"
#include "table.h"

typedef struct {
	const char *flags;   /* the row's nvcc_flags, as the tuning compiled it */
	const char *link;    /* "-lcudadevrt" for -rdc=true (the device runtime), else "" */
	char *source;        /* the file name to #include, found through the include path; "" unknown */
	char *mk_source;     /* the file to compile, relative to the header's directory; "" unknown */
	char **mk_includes;  /* the directories the source needs, relative to the header's directory */
	size_t nincludes;
	char *copy_name;     /* the rewritten copy to write beside the header (a file name), or NULL */
	char *copy_text;
	size_t copy_len;
	/* the binary it makes: what the GPU executes, and resources a program can compare with
	 * cudaFuncGetAttributes (-1 where the results do not say) */
	const char *code_hash;
	long registers, static_smem;
} recipe;

/* The recipe of row `row` of t. cfg is the config the results name, loaded (NULL when it could not
 * be: the source is then unknown); header is the header's path; copy_name the file name the
 * rewritten copy gets when the kernel needs one. 0, or -1 with the reason in d (a pragma kernel
 * whose values are not the config's: its copy cannot be written). */
int recipe_of_row(const config *cfg, const table *t, size_t row, const char *header, const char *copy_name,
		  recipe *r, diags *d);
void recipe_free(recipe *r);

/* The recipe as the header's macros (NAME_NVCC_FLAGS, NAME_LINK_FLAGS, NAME_KERNEL_SOURCE,
 * NAME_CODE_HASH, NAME_TUNED_REGISTERS, NAME_TUNED_STATIC_SMEM), upper the NAME. */
void recipe_put_c(FILE *f, const char *upper, const recipe *r);
/* The same for make, with NAME_INCLUDE_FLAGS; paths relative to $(NAME_FRAGMENT_DIR). */
void recipe_put_make(FILE *f, const char *upper, const recipe *r);

/* The file name of the rewritten copy beside the header at path: "x_tuned.h" -> "x_tuned.cu",
 * or for a merged header's GPU section "x_tuned.TARGET.cu". Caller frees. */
char *recipe_copy_name(const char *header, const char *target);
/* Writes r's rewritten copy (if any) beside the header, unless that would replace an input of
 * the config at config_path or a file autotune did not write: 0, or -1 with the reason in d. */
int recipe_write_copy(const recipe *r, const char *config_path, const char *header, diags *d);

/* The config that row `row` of t names (its `config` column, found as find_from does), loaded
 * quietly; NULL when there is none or it does not load (moved away, say). config_free and free. */
config *recipe_config(const table *t, size_t row);

/* `to` relative to the directory `dir` ("../kernels/k.cu"), both through realpath where they
 * exist; the absolute path when they share no prefix but "/". Caller frees. */
char *recipe_relative(const char *dir, const char *to);

#endif
