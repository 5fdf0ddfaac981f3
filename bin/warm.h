// SPDX-License-Identifier: MIT
/*
 * warm.h — `jitcache warm`: compile every recorded request (recipe) that
 * has no entry yet for this machine's GPUs and driver, or, with --for, for
 * GPUs the machine does not have, through the driver's simulation of each
 * one's real identity (README "First run warm").
 *
 * The work is done by jitcache-replay workers (bin/jitcache-replay.c) run
 * with libjitcache preloaded: each re-issues zeModuleCreate from a recipe,
 * so the shim's own miss path stores the entry under the key a real
 * application computes.  This file finds the recipes, orders the targets
 * (those of an IP version an earlier one has share its entries, and come
 * after every target that compiles), and reports; one pool of workers
 * serves all targets at once (bin/warm_pool.h).
 *
 * jc_warm_main() returns the exit status: 0 when everything was warmed,
 * 1 when a target was refused or some recipes failed (--export then writes
 * its file only if some target was warmed), 2 on bad usage,
 * 130 when interrupted (what was stored stays; a second run resumes).
 */
#ifndef JITCACHE_BIN_WARM_H
#define JITCACHE_BIN_WARM_H

#include "cache/cache.h"
#include "config/config.h"

#include <stdio.h>

int jc_warm_main(const struct jc_config *cfg, struct jc_cache *cache, int argc, char **argv);

/* The "warm" lines of `jitcache --help`. */
void jc_warm_usage(FILE *out);

#endif
