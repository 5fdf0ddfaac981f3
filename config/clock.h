// SPDX-License-Identifier: MIT
/*
 * clock.h — the clocks jitcache reads, in nanoseconds.
 *
 *   jc_mono_ns()        monotonic: durations, deadlines, timeouts
 *   jc_wall_ns()        wall clock (since 1970): what is written to files
 *                       and compared with their mtimes
 *   jc_thread_cpu_ns()  the calling thread's CPU time (0 if unknown)
 */
#ifndef JITCACHE_CLOCK_H
#define JITCACHE_CLOCK_H

#include <stdint.h>

int64_t jc_mono_ns(void);
int64_t jc_wall_ns(void);
int64_t jc_thread_cpu_ns(void);

#endif
