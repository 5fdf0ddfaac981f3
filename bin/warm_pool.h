// SPDX-License-Identifier: MIT
/*
 * warm_pool.h — the workers of `jitcache warm` (bin/warm.c): jitcache-replay
 * processes (bin/jitcache-replay.c), each simulating one target GPU, that
 * replay recipes with libjitcache preloaded.
 *
 * One pool serves every target of a run: at most `jobs` workers at once,
 * across targets, so that a target's last slow recipe never leaves a core
 * idle while another target waits.  Targets are served in the order given:
 * a worker starts for the first target with recipes left that its workers
 * already started do not cover, and ends when its target has none left.
 * Recipes are handed out largest first (the longest compiles start first).
 * Every target gets at least one worker, even with no recipe: it names the
 * devices the simulation shows, which are checked against the target.
 *
 *   struct jc_warm_run runs[2] = { { .target = &a380 }, { .target = &b580 } };
 *   struct jc_warm_pool p = { lib, replay, workdir, recipes, n, .jobs = 2 };
 *   jc_warm_pool_run(&p, runs, 2);   // then runs[i].compiled, .refused ...
 *
 * What each target compiled and found is counted by its own workers
 * (stats_log, one file per target in workdir), not by the cache's shared
 * counts, which add up every target's at once.
 */
#ifndef JITCACHE_BIN_WARM_POOL_H
#define JITCACHE_BIN_WARM_POOL_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A GPU to prewarm for without having it (bin/warm.c's table). */
struct jc_warm_target {
	const char *name, *gpu, *product;
	unsigned id, ip, revision; /* revision: OverrideRevision, or 0 */
	const char *note;
};

struct jc_warm_recipe {
	void *bytes;
	size_t size;
	uint64_t request;
};

/* One target's part of a run: set target (NULL: this machine's own GPUs)
 * and leader (the earlier target of its IP version, for the report);
 * the rest is the result. */
struct jc_warm_run {
	const struct jc_warm_target *target;
	const struct jc_warm_run *leader;
	size_t done, failed, skipped;
	unsigned long long compiled, found; /* its workers' misses and hits */
	char devices[512];                  /* what its first worker found */
	int n_devices;
	const char *refused;                /* why it cannot be warmed here */
	int no_ip;                          /* refused: the driver reports no IP version */
	char why[512];
	double seconds;                     /* from its first worker to its last */
	/* the pool's */
	size_t next;
	int starting, started, alive;
	pid_t reporter;
	double start;
	char stats[PATH_MAX];
};

struct jc_warm_pool {
	const char *lib, *replay, *workdir;
	const struct jc_warm_recipe *recipes;
	size_t n_recipes;
	int jobs;
	int progress; /* 1: a bar redrawn on stderr; 2: a line every 10 s (a log) */
};

/* Runs the recipes for every run.  0, or -1 when out of memory. */
int jc_warm_pool_run(const struct jc_warm_pool *p, struct jc_warm_run *runs, size_t n_runs);

/* The signal handler that stops a run between recipes, and whether it did. */
void jc_warm_interrupt(int sig);
int jc_warm_interrupted(void);

/* "12.55.8" */
const char *jc_warm_ip_text(unsigned ip, char buf[32]);

#endif
