/* stats.c: robust statistics for timing samples (see stats.h for the formulas' reasons). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double stats_median(double *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double stats_mad(double *v, size_t n, double *scratch)
{
	double m = stats_median(v, n);
	for (size_t i = 0; i < n; i++)
		scratch[i] = fabs(v[i] - m);
	return stats_median(scratch, n);
}

double stats_noise(double *v, size_t n, double *scratch)
{
	if (n < 2)
		return 0;
	double mad = stats_mad(v, n, scratch);
	double med = stats_median(v, n);
	if (med <= 0)
		return 0;
	return 1.2533 * 1.4826 * mad / sqrt((double)n) / med;
}

int stats_raced_out(const stop_rule *r, size_t n, double fastest_ms)
{
	return n < r->min_samples && ((r->race_ms > 0 && n >= 1 && fastest_ms > r->race_ms) ||
				      (r->near_ms > 0 && n >= RACE_AFTER && fastest_ms > r->near_ms));
}

int stats_should_stop(const stop_rule *r, size_t n, double noise, double elapsed_s, double fastest_ms)
{
	if (n >= r->max_samples)
		return 1;
	/* the cap holds whatever the minimum asks: a kernel that is slow to return (one that
	 * prints, say) would otherwise sample on until the run's deadline kills it */
	if (n >= 1 && elapsed_s >= r->time_cap_s)
		return 1;
	if (n < r->min_samples)
		/* racing ends only what the minimum would have kept sampling */
		return stats_raced_out(r, n, fastest_ms);
	return noise <= r->noise_target;
}

int stats_within_noise(double a, double noise_a, double b, double noise_b, double k)
{
	return fabs(b - a) <= k * sqrt(noise_a * noise_a + noise_b * noise_b) * a;
}
