/* Independent references for BAT's nbody (tests/t1/published/bat/nbody.cu, entry nbody_kernel):
 * one step of n bodies. Body i at p_i with velocity v_i is pulled by every body j (itself
 * included, at distance zero) with a_i = sum over j of m_j (p_j - p_i) / (|p_j - p_i|^2 + soft)^1.5;
 * then p_i' = p_i + dt v_i + damping dt^2 a_i and v_i' = v_i + dt a_i, written as float4s (p', m_i)
 * and (v', 0).
 * The kernel reads its bodies from one of two layouts, chosen by USE_SOA: oldBodyInfo and oldVel
 * (float4 per body: x, y, z, mass; velocity) when 0, the arrays oldPosX/Y/Z, mass and oldVelX/Y/Z
 * when 1. bat_nbody_ref computes from the first, bat_nbody_soa_ref from the second. The kernel
 * is built with -use_fast_math (approximate reciprocal square roots): compare with a tolerance.
 * Build with -fno-math-errno (sqrtf an instruction) and -fopenmp: n is 131072. */
#include <math.h>

static void step(float dt, int n, float damping, float soft, const float *px, const float *py, const float *pz,
		 const float *m, int ps, const float *vx, const float *vy, const float *vz, int vs, float *newBody,
		 float *newVel)
{
#pragma omp parallel for schedule(static)
	for (int i = 0; i < n; i++) {
		float xi = px[(long)i * ps], yi = py[(long)i * ps], zi = pz[(long)i * ps];
		double ax = 0, ay = 0, az = 0;
		for (int j = 0; j < n; j++) {
			float dx = px[(long)j * ps] - xi, dy = py[(long)j * ps] - yi, dz = pz[(long)j * ps] - zi;
			float inv = 1.0f / sqrtf(dx * dx + dy * dy + dz * dz + soft);
			float f = m[(long)j * ps] * inv * inv * inv;
			ax += dx * f;
			ay += dy * f;
			az += dz * f;
		}
		float vxi = vx[(long)i * vs], vyi = vy[(long)i * vs], vzi = vz[(long)i * vs];
		float *b = newBody + 4L * i, *v = newVel + 4L * i;
		b[0] = xi + dt * vxi + damping * dt * dt * (float)ax;
		b[1] = yi + dt * vyi + damping * dt * dt * (float)ay;
		b[2] = zi + dt * vzi + damping * dt * dt * (float)az;
		b[3] = m[(long)i * ps];
		v[0] = vxi + dt * (float)ax;
		v[1] = vyi + dt * (float)ay;
		v[2] = vzi + dt * (float)az;
		v[3] = 0.0f;
	}
}

void bat_nbody_ref(float dt, float *oldBodyInfo, float *oldPosX, float *oldPosY, float *oldPosZ, float *mass,
		   float *newBodyInfo, float *oldVel, float *oldVelX, float *oldVelY, float *oldVelZ, float *newVel,
		   float damping, float softeningSqr, int n)
{
	(void)oldPosX, (void)oldPosY, (void)oldPosZ, (void)mass, (void)oldVelX, (void)oldVelY, (void)oldVelZ;
	step(dt, n, damping, softeningSqr, oldBodyInfo, oldBodyInfo + 1, oldBodyInfo + 2, oldBodyInfo + 3, 4, oldVel,
	     oldVel + 1, oldVel + 2, 4, newBodyInfo, newVel);
}

void bat_nbody_soa_ref(float dt, float *oldBodyInfo, float *oldPosX, float *oldPosY, float *oldPosZ, float *mass,
		       float *newBodyInfo, float *oldVel, float *oldVelX, float *oldVelY, float *oldVelZ, float *newVel,
		       float damping, float softeningSqr, int n)
{
	(void)oldBodyInfo, (void)oldVel;
	step(dt, n, damping, softeningSqr, oldPosX, oldPosY, oldPosZ, mass, 1, oldVelX, oldVelY, oldVelZ, 1,
	     newBodyInfo, newVel);
}
