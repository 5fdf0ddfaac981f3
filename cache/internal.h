// SPDX-License-Identifier: MIT
/*
 * internal.h — what the files of cache/ share; no file outside cache/
 * includes it (tests/integration/layout.sh checks).  struct jc_cache is
 * defined here: the local store (store/store.h) with what cache/ hangs on
 * it, the read-only layers, the remotes, the keys that sign and verify,
 * and this process's counts.
 *
 * The files, each calling only those above it (no cycle):
 *
 *   stats.c     this process's counts (jc_cache_count); the statistics and
 *               management calls of cache.h, passed on to the store
 *   recipe.c    recipes beside entries, and walking them
 *   cache.c     opening a cache; a lookup across the tiers; a store to each
 *   lock.c      compile-once locks and leases
 *   transfer.c  export and import (transfer.h)
 */
#ifndef JITCACHE_CACHE_INTERNAL_H
#define JITCACHE_CACHE_INTERNAL_H

#include "cache/cache.h"
#include "store/stats.h"

#include <sys/types.h>

struct jc_cache {
	struct jc_store *store;        /* the cache directory; NULL: it cannot be
					  used, and the layers serve hits alone
					  (nothing else is done) */
	uint64_t max_size;             /* the store's (0 without one) */
	double lock_timeout;
	int compress;
	struct jc_layers *layers;      /* read-only, searched after dir; or NULL */
	struct jc_remote *remote;      /* NULL: no remote tier */
	struct jc_signer *signer;      /* signs what this process stores; or NULL */
	struct jc_trust *trust;        /* keys entries from Redis, layers and
					  archives must be signed with (sign.h) */
	int trust_required;            /* trusted keys were configured: with no
					  readable key, nothing is accepted */
	uint64_t counts[JC_NCOUNTERS]; /* this process's, updated atomically */
	pid_t counts_pid;              /* the process they are of (a child of a
					  fork() starts with none: stats.c) */
};

/* ---- stats.c ---- */

/* Add to this process's counters and to the shared ones (the store's), at
 * once; *shared_after (if not NULL) gets the shared file's new values (all
 * 0 if it could not be used, or there is no store). */
void jc_cache_count(struct jc_cache *c, const uint64_t delta[JC_NCOUNTERS],
		    uint64_t shared_after[JC_NCOUNTERS]);
/* Add to this process's counters only: what the store counted itself
 * (jc_store_options.counted; ctx is the cache). */
void jc_cache_counted(void *ctx, const uint64_t *delta);

/* ---- lock.c ---- */

/* jc_cache_lock_key() whose remote wait is request q's (remote.h; NULL: the
 * lock's own): the lease it takes is q's, let go at jc_cache_unlock()
 * unless q's put released it. */
struct jc_cache_lock *jc_cache_lock_for(struct jc_cache *cache, const struct jc_key *key,
					struct jc_remote_request *q);

/* ---- recipe.c ---- */

/* Store a recipe under its own key (jc_recipe_key() of its entry's), as
 * jc_cache_put_recipe() does: also for an imported one. */
int jc_cache_put_recipe_as(struct jc_cache *c, const struct jc_key *key, const void *data,
			   size_t size);

#endif
