/* fills_ref.c: verify.host of tests/gpu/fills.yaml: the outputs are the inputs as filled, so it
 * changes nothing; the worker compares what the host made with what the GPU filled. */
#include <float.h>

void fills_ref(float *f, double *d, int *i, unsigned char *u, float *x, long long *c, void *v, void *g, int n);

void fills_ref(float *f, double *d, int *i, unsigned char *u, float *x, long long *c, void *v, void *g, int n)
{
	(void)f, (void)d, (void)i, (void)u, (void)x, (void)c, (void)v, (void)g, (void)n;
}
