/* ktt_nbody_ref.c: the independent reference for KTT's NbodyScript (nbody_kernel): one step of
 * n bodies under softened gravity. Body i's acceleration is the sum over every body j (i
 * included: it adds 0) of m_j (p_j - p_i) / (|p_j - p_i|^2 + softeningSqr)^(3/2), in double;
 * then p' = p + dt v + damping dt^2 a and v' = v + dt a, written as float4s (x, y, z, mass) and
 * (x, y, z, 0). Bodies are read as the kernel reads them with USE_SOA (a -D flag): 1 (the
 * default), the arrays oldPosX..Z, mass and oldVelX..Z; 0, oldBodyInfo and oldVel, float4s. */
#include <math.h>

#ifndef USE_SOA
#define USE_SOA 1
#endif

void ktt_nbody_ref(float dt, const float *info, const float *px, const float *py, const float *pz, const float *mass,
		   float *newInfo, const float *vel, const float *vx, const float *vy, const float *vz, float *newVel,
		   float damping, float soft, int n)
{
#define P(a, i) (USE_SOA ? (a == 0 ? px : a == 1 ? py : a == 2 ? pz : mass)[i] : info[4 * (i) + (a)])
#define V(a, i) (USE_SOA ? (a == 0 ? vx : a == 1 ? vy : vz)[i] : vel[4 * (i) + (a)])
#pragma omp parallel for schedule(static, 256)
	for (int i = 0; i < n; i++) {
		double acc[3] = {0, 0, 0}, p[3] = {P(0, i), P(1, i), P(2, i)};
		for (int j = 0; j < n; j++) {
			double d[3] = {P(0, j) - p[0], P(1, j) - p[1], P(2, j) - p[2]};
			double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + soft;
			double f = P(3, j) / (r2 * sqrt(r2));
			for (int a = 0; a < 3; a++)
				acc[a] += d[a] * f;
		}
		for (int a = 0; a < 3; a++) {
			double v = V(a, i);
			newInfo[4 * i + a] = (float)(p[a] + dt * v + damping * dt * dt * acc[a]);
			newVel[4 * i + a] = (float)(v + dt * acc[a]);
		}
		newInfo[4 * i + 3] = P(3, i);
		newVel[4 * i + 3] = 0.0f;
	}
#undef P
#undef V
}
