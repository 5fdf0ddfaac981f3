// SPDX-License-Identifier: MIT
/*
 * check.h — the unit tests' tiny harness.  CHECK(cond, "what") prints one
 * line per check; check_summary() prints "N passed, N failed" and returns
 * the exit status.
 */
#ifndef JITCACHE_TEST_CHECK_H
#define JITCACHE_TEST_CHECK_H

#include <stdio.h>

static int check_passed, check_failed;

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (cond) {                                                    \
			check_passed++;                                        \
			printf("ok   ");                                       \
		} else {                                                       \
			check_failed++;                                        \
			printf("FAIL %s:%d (%s) ", __FILE__, __LINE__, #cond); \
		}                                                              \
		printf(__VA_ARGS__);                                           \
		printf("\n");                                                  \
		fflush(stdout);                                                \
	} while (0)

static inline int check_summary(void)
{
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}

#endif
