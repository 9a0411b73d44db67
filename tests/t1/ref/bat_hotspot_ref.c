/* Independent reference for BAT's hotspot (tests/t1/published/bat/hotspot_kernel.cu, entry
 * calculate_temp) as its spec launches it. The kernel is a test harness's: its problem is one
 * block's, a BLOCK_SIZE_X x BLOCK_SIZE_Y grid read with a halo of MAX_TFACTOR (10) cells from
 * inputs whose rows are BLOCK_SIZE_X + 20 long, advanced TEMPORAL_TILING_FACTOR time steps, and
 * written to temp_dst[y * BLOCK_SIZE_X + x]; nothing else of temp_dst is written. Its output is so
 * a function of those three parameters, which this file takes as defines (verify.host's flags:
 * -DBSX=.. -DBSY=.. -DSTEPS=..).
 * One step: t' = t + step_div_cap (p + (tS + tN - 2 t) Ry_1 + (tE + tW - 2 t) Rx_1 + (80 - t) Rz_1),
 * where the kernel's 2.0 makes the sum double; cells within STEPS of the halo's edge are not
 * needed. */
#include <stdlib.h>
#include <string.h>

#ifndef BSX
#error "define BSX, BSY and STEPS (the configuration's BLOCK_SIZE_X, BLOCK_SIZE_Y, TEMPORAL_TILING_FACTOR)"
#endif
#define HALO 10
#define IN_W (BSX + 2 * HALO)

void bat_hotspot_ref(float *power, float *temp, float *temp_dst, float Rx_1, float Ry_1, float Rz_1,
		     float step_div_cap)
{
	const int w = BSX + 2 * STEPS, h = BSY + 2 * STEPS; /* the cells the output depends on */
	float *t = malloc(sizeof(float) * w * h), *u = malloc(sizeof(float) * w * h), *p = malloc(sizeof(float) * w * h);
	if (!t || !u || !p)
		abort();
	for (int j = 0; j < h; j++)
		for (int i = 0; i < w; i++) {
			long at = (long)(j + HALO - STEPS) * IN_W + i + HALO - STEPS;
			t[j * w + i] = temp[at];
			p[j * w + i] = power[at];
		}
	for (int s = 1; s <= STEPS; s++) {
		memcpy(u, t, sizeof(float) * w * h);
		for (int j = s; j < h - s; j++)
			for (int i = s; i < w - s; i++) {
				float c = t[j * w + i];
				double d = (double)(t[(j + 1) * w + i] + t[(j - 1) * w + i]) - 2.0 * c;
				double e = (double)(t[j * w + i + 1] + t[j * w + i - 1]) - 2.0 * c;
				u[j * w + i] = (float)(c + step_div_cap * (p[j * w + i] + d * Ry_1 + e * Rx_1 +
									  (80.0f - c) * Rz_1));
			}
		float *x = t;
		t = u;
		u = x;
	}
	memset(temp_dst, 0, sizeof(float) * 16777216L);
	for (int y = 0; y < BSY; y++)
		for (int x = 0; x < BSX; x++)
			temp_dst[y * BSX + x] = t[(y + STEPS) * w + x + STEPS];
	free(t);
	free(u);
	free(p);
}
