/* hotspot_milo_ref.c: the independent reference for benchmark_hub's hotspot_milo
 * (calculate_temp): temporal_tiling_factor (a -D flag, the kernel's name; 1 by default) explicit
 * time steps of the Rodinia hotspot stencil on a 4096 x 4096 chip. Its inputs are laid out as the
 * benchmark's own script allocates them, (4096 + 2 max_tfactor)^2 = 4116^2 elements with a
 * border of 10; the kernel starts 10 - temporal_tiling_factor rows and columns into it and reads
 * 2 temporal_tiling_factor more rows and columns than it writes. Step k computes every cell
 * that k steps can reach,
 *   t' = t + step_div_cap (p + (tS + tN - 2 t) Ry + (tE + tW - 2 t) Rx + (80 - t) Rz),
 * with the kernel's types (its 2.0 makes the sums double; (80 - t) Rz is float), rounded to
 * float at each step; the output is the last step's inner 4096 x 4096. With -DTEMP_COUNT=N, temp
 * holds N elements (the spec's 4096^2) and what the kernel would read past them counts as 0. */
#include <stdlib.h>
#include <string.h>

#ifndef temporal_tiling_factor
#define temporal_tiling_factor 1
#endif

void hotspot_milo_ref(const float *power, const float *temp, float *out, float Rx, float Ry, float Rz, float sdc)
{
	enum { N = 4096, MAXT = 10, IW = N + 2 * MAXT, S = N + 2 * temporal_tiling_factor, OFF = MAXT - temporal_tiling_factor };
	float *u = malloc(sizeof(float) * S * S), *v = malloc(sizeof(float) * S * S);
	if (!u || !v)
		abort();
#ifndef TEMP_COUNT
#define TEMP_COUNT ((long)IW * IW)
#endif
	for (int y = 0; y < S; y++)
		for (int x = 0; x < S; x++) {
			long at = (long)(y + OFF) * IW + x + OFF;
			u[(long)y * S + x] = at < TEMP_COUNT ? temp[at] : 0.0f;
		}
	for (int k = 1; k <= temporal_tiling_factor; k++) {
#pragma omp parallel for
		for (int y = k; y < S - k; y++)
			for (int x = k; x < S - k; x++) {
				const float *r = u + (long)y * S + x;
				float c = r[0], p = power[(long)(y + OFF) * IW + x + OFF];
				double d = c + (double)sdc * (p + ((double)(r[S] + r[-S]) - 2.0 * c) * Ry +
							      ((double)(r[1] + r[-1]) - 2.0 * c) * Rx + (80.0f - c) * Rz);
				v[(long)y * S + x] = (float)d;
			}
		float *t = u;
		u = v;
		v = t;
	}
	for (int y = 0; y < N; y++)
		memcpy(out + (long)y * N, u + (long)(y + temporal_tiling_factor) * S + temporal_tiling_factor, sizeof(float) * N);
	free(u);
	free(v);
}
