/* stats.h: the statistics of timing samples: median, spread, the noise of the median and the
 * rule that decides when enough samples were taken. Shared by the worker (which samples) and
 * the tuner (which compares). Pure functions, tested on recorded measurements. */
#ifndef AUTOTUNE_STATS_H
#define AUTOTUNE_STATS_H

#include <stddef.h>
#include <string.h>

/* Median of n values; sorts v in place. 0 when n is 0. */
double stats_median(double *v, size_t n);

/* Median absolute deviation from the median; sorts v in place and uses scratch (n doubles). */
double stats_mad(double *v, size_t n, double *scratch);

/* Relative standard error of the median: 1.2533 * sigma / sqrt(n) / median, with sigma
 * estimated robustly as 1.4826 * MAD (both factors hold for normal samples; the MAD ignores the
 * occasional preempted launch that would blow up a standard deviation). 0 for n < 2. */
double stats_noise(double *v, size_t n, double *scratch);

typedef struct {
	double noise_target;  /* stop when the noise falls below this (0.01 = 1%) */
	size_t min_samples, max_samples;
	double time_cap_s;    /* per configuration, sampling stops here whatever the noise or the minimum */
	double race_ms;       /* raced out: stop once a sample's time is past this (0: never) */
	double near_ms;       /* or from RACE_AFTER samples on, once the fastest is past this (0: never) */
} stop_rule;

/* Samples before a configuration can be raced out by near_ms: the fastest of three is past a
 * launch that paid for a cold instruction cache or a preempted thread. Such a launch costs tens
 * of microseconds, not the 30% of race_ms: one sample past that is enough. */
#define RACE_AFTER 3

/* Whether sampling should stop after n samples taking elapsed_s seconds with this noise, the
 * fastest of them fastest_ms: the maximum, the time cap (after one sample, whatever the
 * minimum), the minimum and the noise target, or (before min_samples) the configuration is
 * raced out (stats_raced_out). */
int stats_should_stop(const stop_rule *r, size_t n, double noise, double elapsed_s, double fastest_ms);
/* Whether, before min_samples, the configuration is raced out: its fastest past race_ms after
 * one sample, or past near_ms after RACE_AFTER. */
int stats_raced_out(const stop_rule *r, size_t n, double fastest_ms);

/* What a measurement the time cap stopped before min_samples says in its message (the worker's
 * words begin so), which tells it from a raced one: both have fewer samples than the minimum. */
#define STATS_CAPPED "time_cap reached"

/* Whether a passing measurement of n samples was raced out under a rule of min_samples; message
 * the result's (a capped one is not). */
static inline int stats_raced(int n, int min_samples, const char *message)
{
	return n > 0 && n < min_samples && !(message && !strncmp(message, STATS_CAPPED, sizeof STATS_CAPPED - 1));
}

/* Whether b is within the combined noise band of a: |b - a| <= k * sqrt(na^2 + nb^2) * a,
 * na and nb being relative noises. k = 2 covers about 95% of normal noise. */
int stats_within_noise(double a, double noise_a, double b, double noise_b, double k);

#endif
