/* select.c: the choice of winner. Today the fastest verified median; the balanced policy
 * (occupancy, load efficiency, noise-aware near-ties) builds on this. */
#include "select.h"

#include "banned.h"

long long select_winner(const result *res, size_t n)
{
	long long best = -1;
	for (size_t i = 0; i < n; i++)
		if (res[i].st == ST_OK && res[i].samples > 0 && (best < 0 || res[i].t_median < res[best].t_median))
			best = (long long)i;
	return best;
}
