// SPDX-License-Identifier: MIT
#include "config/clock.h"

#include <time.h>

static int64_t read_clock(clockid_t id)
{
	struct timespec ts;
	if (clock_gettime(id, &ts) != 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t jc_mono_ns(void) { return read_clock(CLOCK_MONOTONIC); }
int64_t jc_wall_ns(void) { return read_clock(CLOCK_REALTIME); }
int64_t jc_thread_cpu_ns(void) { return read_clock(CLOCK_THREAD_CPUTIME_ID); }
