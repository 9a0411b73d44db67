/* search_plateau.c: how the model strategy leaves a plateau (search_diversify): uniform draws,
 * moves from a distant good configuration, wide moves, children of the best, and on a long
 * plateau a descent from a neighbour of the best, as iterated local search descends after a
 * kick. */
#include <math.h>
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

/* A descent's kicks: from the neighbours of the best KICKS measured. */
enum { KICKS = 3 };

/* Where the next descent starts: a measured neighbour of one of the best KICKS that no descent
 * has visited (a kick off the basin the waves circle, into the one beside it), -1 when none. */
static long long climb_start(state *S, const ranked *centre, size_t m)
{
	size_t *nb = xcalloc(2 * S->np + 1, sizeof *nb);
	long long start = -1;
	for (size_t i = 0; i < m && i < KICKS && start < 0; i++) {
		size_t nn = neighbours(S, centre[i].config, nb, 1);
		for (size_t j = 0; j < nn && start < 0; j++)
			if (!S->climbed[nb[j]] && measured(S, nb[j]) && !isinf(S->time[nb[j]]))
				start = (long long)nb[j];
	}
	free(nb);
	return start;
}

/* The direction of the move from a to its neighbour b, as climb_dir counts it. */
static long long direction(const state *S, size_t a, size_t b)
{
	for (size_t q = 0; q < S->np; q++)
		if (S->pos[a * S->np + q] != S->pos[b * S->np + q])
			return (long long)(2 * q + (S->pos[b * S->np + q] > S->pos[a * S->np + q]));
	return -1;
}

/* The descent's next centre, where one of the neighbours it measured is faster; 1 if it moved. */
static int climb_moved(state *S, size_t *nb)
{
	size_t nn = neighbours_in_order(S, (size_t)S->climb, nb, 1), c = (size_t)S->climb;
	for (size_t j = 0; j < nn; j++)
		if (S->climbed[nb[j]] == 2 && measured(S, nb[j]) && S->time[nb[j]] < S->time[c])
			c = nb[j];
	S->climbed[c] = 1;
	if (c == (size_t)S->climb)
		return 0;
	S->climb_dir = direction(S, (size_t)S->climb, c);
	S->climb = (long long)c;
	return 1;
}

/* Puts first among nb the neighbour in the direction of the descent's last move: along one
 * parameter, a descent then takes a measurement a step rather than half of a neighbourhood. */
static void climb_ahead(const state *S, size_t *nb, size_t nn)
{
	if (S->climb_dir < 0)
		return;
	size_t q = (size_t)S->climb_dir / 2, *pos = &S->pos[(size_t)S->climb * S->np];
	for (size_t j = 0; j < nn; j++)
		if (S->pos[nb[j] * S->np + q] == (S->climb_dir & 1 ? pos[q] + 1 : pos[q] - 1)) {
			size_t t = nb[0];
			nb[0] = nb[j];
			nb[j] = t;
			return;
		}
}

/* A descent's new start, measured here where its binary is built, else in the wave; 0: none. */
static int climb_restart(state *S, char *taken, size_t *wave, size_t *k, const char *built, const ranked *centre,
			 size_t m, size_t *used)
{
	S->climb_dir = -1;
	if ((S->climb = climb_start(S, centre, m)) >= 0)
		return 1;
	long long c = random_untaken(S, taken);
	if (c < 0)
		return 0;
	S->climb = c;
	S->climbed[c] = 1;
	if (built && built[S->bin_of[c]]) {
		measure(S, (size_t)c);
		(*used)++;
	} else {
		taken[c] = 1;
		wave[(*k)++] = (size_t)c;
	}
	return 1;
}

/* Up to share evaluations of a descent, first improvement as the local strategy's, which reaches
 * the optimum of the histogram space at 10% in every run where the waves stopped in 15 of 30 on a
 * ridge of BLOCK x BLOCKS that moves from the best cannot follow (0.977 of the optimum). A
 * neighbour whose binary is built is measured here, one at a time (a run costs milliseconds, a
 * decision nothing); one that needs a compile goes to the wave, and the descent's next centre is
 * decided once the wave is in. From a kick (climb_start), else a draw, to a local optimum; the
 * next goes on in a later wave. Returns the wave's count; *used: how many it measured. */
static size_t descend(state *S, char *taken, size_t *wave, size_t k, size_t share, const ranked *centre, size_t m,
		      size_t *used)
{
	char *built = built_binaries(S);
	size_t *nb = xcalloc(2 * S->np + 1, sizeof *nb), k0 = k;
	*used = 0;
	while (*used + (k - k0) < share && budget_left(S)) {
		if (S->climb < 0 && !climb_restart(S, taken, wave, &k, built, centre, m, used))
			break;
		if (!measured(S, (size_t)S->climb))
			break; /* a start in the wave */
		S->climbed[S->climb] = 1;
		if (climb_moved(S, nb))
			continue;
		size_t nn = neighbours(S, (size_t)S->climb, nb, 0), waiting = 0, j;
		int better = 0;
		climb_ahead(S, nb, nn);
		for (j = 0; j < nn && !better && *used + (k - k0) < share && budget_left(S); j++) {
			if (taken[nb[j]]) {
				waiting++;
				continue;
			}
			S->climbed[nb[j]] = 2;
			if (built && built[S->bin_of[nb[j]]]) {
				(*used)++;
				better = measure(S, nb[j]) < S->time[S->climb];
			} else {
				taken[nb[j]] = 1;
				wave[k++] = nb[j];
				waiting++;
			}
		}
		if (better)
			continue;
		if (j < nn || waiting)
			break; /* out of share, or the rest is the wave's */
		S->climb = -1; /* a local optimum */
	}
	free(built);
	free(nb);
	return k;
}

/* A plateau this long (evaluations since the best last improved by 1%) is a long one: by then
 * the plateau's draws (a quarter to a half of it) would have found a region of 3.7% of the space
 * with probability 0.7 to 0.9 (tests/test_search_prior.c's deceptive recording: 56 of 1500
 * configurations that the model and the surrogate both rank slow, where every descent leads to
 * the broad basin beside it: descending from the first plateau wave on, 20 of 150 seeds stopped
 * there, 6 as it is). */
enum { LONG_PLATEAU = 128 };

/* First, half of the share as uniform draws: the moves keep to the basins the results found, while
 * random search finds a small region apart. Then as many as half of the rest from a distant good
 * configuration, the best's wide moves, and children of the best. On a long plateau, a quarter as
 * draws and the rest a descent; where every configuration is a binary of its own (each step a
 * compile, its neighbours in the waves), the distant moves keep half of that rest: without them,
 * GEMM's worst tenth at 5% fell from 0.996 to 0.934. */
size_t search_diversify(state *S, char *taken, size_t *wave, size_t k, size_t cap, const ranked *centre, size_t m)
{
	int descent = m && S->stale >= LONG_PLATEAU && S->climbed;
	k = add_draws(S, taken, wave, k, descent ? (cap - k + 3) / 4 : (cap - k + 1) / 2);
	if (m && (own_binaries(S) || !descent))
		k = distant_moves(S, taken, wave, k, k + (cap - k + 1) / 2, centre, m);
	if (descent) {
		size_t used;
		k = descend(S, taken, wave, k, cap - k, centre, m, &used);
		S->stale += used;
		cap = cap - k > used ? cap - used : k;
	}
	if (m)
		k = wide_moves(S, centre[0].config, taken, wave, k, cap);
	return children(S, taken, wave, k, cap, centre, m);
}
