// SPDX-License-Identifier: MIT
/* timing.h — what the bench programs (micro.c, tier_latency.c) share: a
 * monotonic clock in seconds, and sorting times to take their quantiles. */
#ifndef JITCACHE_BENCH_TIMING_H
#define JITCACHE_BENCH_TIMING_H

#include <stdlib.h>
#include <time.h>

static inline double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static inline void sort_times(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
}

#endif
