/* search_plateau.c: how the model strategy leaves a plateau (search_diversify): uniform draws,
 * moves from a distant good configuration, wide moves and children of the best. */
#include <stdlib.h>
#include <string.h>

#include "search_state.h"
#include "banned.h"

/* Up to cap - k unmeasured, untaken neighbours of the best configuration measured that differs
 * from the best (centre[0]) in half of the parameters or more: a restart from another basin that
 * the results found good (at 5% of GEMM 3 of 30 runs stopped at 0.934 of the optimum, six
 * parameters from it, where the children of the best stayed). */
static size_t distant_moves(state *S, char *taken, size_t *wave, size_t k, size_t cap, const ranked *centre, size_t m)
{
	const size_t *best = &S->pos[centre[0].config * S->np];
	size_t *nb = xcalloc(2 * S->np + 1, sizeof *nb), nn = 0;
	for (size_t i = 1; i < m && !nn; i++) {
		size_t apart = 0;
		for (size_t q = 0; q < S->np; q++)
			apart += S->pos[centre[i].config * S->np + q] != best[q];
		if (2 * apart < S->np)
			continue;
		nn = neighbours(S, centre[i].config, nb, 0);
		for (size_t j = 0; j < nn && k < cap; j++)
			if (!taken[nb[j]]) {
				taken[nb[j]] = 1;
				wave[k++] = nb[j];
			}
	}
	free(nb);
	return k;
}

/* Appends (up to cap) the unmeasured configurations two steps from c in one parameter: a wider
 * move than a neighbour's, over a basin's rim one step wide (the convolution space's best at
 * BLOCK_X 128, 0.86 of the optimum: 96 is slower, 64 holds the optimum's basin). */
static size_t wide_moves(state *S, size_t c, char *taken, size_t *wave, size_t k, size_t cap)
{
	size_t *pos = xcalloc(S->np + 1, sizeof *pos);
	for (size_t i = 0; i < S->np && k < cap; i++)
		for (int step = -2; step <= 2 && k < cap; step += 4) {
			memcpy(pos, &S->pos[c * S->np], S->np * sizeof *pos);
			if ((step < 0 && pos[i] < 2) || (step > 0 && pos[i] + 2 >= S->cfg->params[i].nvalues))
				continue;
			pos[i] = step < 0 ? pos[i] - 2 : pos[i] + 2;
			long long nb = lookup(S, pos);
			if (nb >= 0 && !measured(S, (size_t)nb) && !taken[nb]) {
				taken[nb] = 1;
				wave[k++] = (size_t)nb;
			}
		}
	free(pos);
	return k;
}

/* The best TOP measured are the parents of a plateau's children. */
enum { TOP = 8 };

/* Up to cap, each a child of two of the best TOP measured (each parameter's position from either,
 * tournament-chosen as the genetic strategy chooses), one not of the space or measured already
 * replaced by a uniform draw. */
static size_t children(state *S, char *taken, size_t *wave, size_t k, size_t cap, const ranked *centre, size_t m)
{
	size_t top = m < TOP ? m : TOP, *child = xcalloc(S->np + 1, sizeof *child);
	while (k < cap) {
		long long c = -1;
		if (top >= 2) {
			size_t a = centre[below(&S->rng, top)].config, a2 = centre[below(&S->rng, top)].config;
			size_t b = centre[below(&S->rng, top)].config, b2 = centre[below(&S->rng, top)].config;
			a = S->time[a2] < S->time[a] ? a2 : a;
			b = S->time[b2] < S->time[b] ? b2 : b;
			for (size_t i = 0; i < S->np; i++)
				child[i] = S->pos[(random_uniform(&S->rng) < 0.5 ? a : b) * S->np + i];
			c = lookup(S, child);
		}
		if ((c < 0 || measured(S, (size_t)c) || taken[c]) && (c = random_untaken(S, taken)) < 0)
			break;
		taken[c] = 1;
		wave[k++] = (size_t)c;
	}
	free(child);
	return k;
}

/* First, half of the share as uniform draws: the moves keep to the basins the results found, while
 * random search finds a small region apart (tests/test_search_prior.c's deceptive recording: 56
 * of 1500 configurations that the surrogate and the model both rank slow). Then as many as half
 * of the rest from a distant good configuration, the best's wide moves, and children of the
 * best. */
size_t search_diversify(state *S, char *taken, size_t *wave, size_t k, size_t cap, const ranked *centre, size_t m)
{
	k = add_draws(S, taken, wave, k, (cap - k + 1) / 2);
	if (m)
		k = distant_moves(S, taken, wave, k, k + (cap - k + 1) / 2, centre, m);
	if (m)
		k = wide_moves(S, centre[0].config, taken, wave, k, cap);
	return children(S, taken, wave, k, cap, centre, m);
}
