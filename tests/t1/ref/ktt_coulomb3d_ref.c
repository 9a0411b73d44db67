/* ktt_coulomb3d_ref.c: the independent reference for KTT's CoulombSum3d specs (directCoulombSum):
 * the electric potential of the atoms on a gridSize^3 lattice of spacing gridSpacing,
 * grid[z][y][x] = sum over atoms of w / |(x, y, z) * spacing - atom|, in double. The atoms are
 * read as the kernel reads them with USE_SOA (a -D flag, verify.host.flags): 1 (the default),
 * the arrays atomInfoX, Y, Z, W; 0, atomInfo, x, y, z, w interleaved. An atom on a lattice point
 * gives w * inf there (NaN for w = 0), as the kernel's rsqrt(0) does. */
#include <math.h>

#ifndef USE_SOA
#define USE_SOA 1
#endif

void ktt_coulomb3d_ref(const float *atomInfo, const float *ax, const float *ay, const float *az, const float *aw,
		       int atoms, float spacing, int n, float *grid)
{
#pragma omp parallel for
	for (int z = 0; z < n; z++)
		for (int y = 0; y < n; y++)
			for (int x = 0; x < n; x++) {
				double e = 0;
				for (int i = 0; i < atoms; i++) {
					double px = USE_SOA ? ax[i] : atomInfo[4 * i], py = USE_SOA ? ay[i] : atomInfo[4 * i + 1];
					double pz = USE_SOA ? az[i] : atomInfo[4 * i + 2], w = USE_SOA ? aw[i] : atomInfo[4 * i + 3];
					double dx = (double)spacing * x - px, dy = (double)spacing * y - py;
					double dz = (double)spacing * z - pz;
					e += w * (1.0 / sqrt(dx * dx + dy * dy + dz * dz));
				}
				grid[((long)z * n + y) * n + x] = (float)e;
			}
}
