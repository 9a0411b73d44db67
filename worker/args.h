/* args.h: the kernel's arguments (args.c): the commands that describe them, and what
 * a launch does with them: parameters, restoring, verifying. */
#ifndef AUTOTUNE_WORKER_ARGS_H
#define AUTOTUNE_WORKER_ARGS_H

#include <cuda.h>
#include <stddef.h>

#include "elem.h"
#include "protocol.h"

/* the commands that describe the arguments */
void cmd_array(char *line);
void cmd_scalar(char *line);
void cmd_let(char *line);
void cmd_fillexpr(char *line);
void cmd_fillfile(char *line);
void cmd_copy(char *line);
void cmd_constant(char *line);
void cmd_sumcheck(char *line);
void cmd_sumcount(const proto_sumcount *sc);
void args_set_sample(unsigned long long sample, long long mismatches);
/* An argument as verify.host's copies see it (hostref.c): an array's size, the fill the host can
 * make itself ("" when it is copied from the GPU, from src), and for an output the reference
 * takes (from_host) where its values go. */
typedef struct {
	int is_array, from_host;
	elem_type type;
	size_t count, bytes;
	const char *host_fill;
	unsigned long long seed;
	double value;
	CUdeviceptr src, ref;
} host_view;
int args_count(void);
host_view args_host_view(int i);
/* Output i's reference holds verify.host's values (ok), or does not. */
void args_host_given(int i, int ok);
/* the arguments around a launch */
CUresult fill_constants(CUmodule mod, char *msg, size_t len);
/* Kernel parameters in order, leaving out the arguments that go to __constant__ memory; the
 * scalars from `scalars` (save_scalars) or, when NULL, as they are now. */
void set_params(void **params, unsigned char (*scalars)[8]);
void save_scalars(unsigned char (*scalars)[8]);
/* params[k] for argument idx[k], k < n: 0, or -1 when one is not a passed argument. */
int set_params_of(void **params, const int *idx, int n);
CUresult restore_inputs(void);
int has_restore(void);
CUresult poison_outputs(void);
CUresult keep_reference(void);
int verify_sum(double rtol, double atol, char *msg, size_t len, CUresult *err);
int verify(double rtol, double atol, char *msg, size_t len, CUresult *err);
void args_free(void);

#endif
