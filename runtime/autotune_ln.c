/* autotune_ln.c: the natural logarithm of the run-time library (autotune_select.h), in a file
 * of its own: the tuner picks instances with the same function as the header and the library do,
 * and links this file alone. */
#include "autotune_select.h"

#include <math.h>

double autotune_ln(double x)
{
	/* the loops below end only for a positive finite x */
	if (!(x > 0) || isinf(x))
		return x > 0 ? x : NAN;
	double k = 0;
	while (x >= 2) {
		x /= 2;
		k++;
	}
	while (x < 1) {
		x *= 2;
		k--;
	}
	double z = (x - 1) / (x + 1), z2 = z * z, term = z, sum = 0;
	for (int i = 1; i < 40; i += 2) {
		sum += term / i;
		term *= z2;
	}
	return 2 * sum + k * 0.69314718055994530942;
}
