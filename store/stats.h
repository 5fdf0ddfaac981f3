// SPDX-License-Identifier: MIT
/*
 * stats.h — the counters that processes share through the cache directory.
 *
 * One file, DIR/stats, of three 4 KiB pages:
 *
 *   page 0     magic "jcstats" + version, then JC_NCOUNTERS event counters
 *              (hits, misses, ..., then the hits of each tier), each a
 *              little-endian uint64; 8 bytes before its end, a mark that
 *              counts were set aside (stats.c: files DIR/stats-aside-PID
 *              that the next count folds in); in its last 8 bytes, when
 *              the counters started (ns since 1970; 0: not recorded)
 *   pages 1-2  one 32-byte usage record per subdirectory "00".."ff":
 *              bytes and entry files it holds, the mtime of its oldest
 *              entry and how many of its files are recipes (cache.h)
 *
 * The file is created whole (written as a temporary file, then linked into
 * place) and afterwards only changed in place: a change is a read-modify-
 * write of one record or of the counters, under an open-file-description
 * lock on just those bytes, written with one pwrite that never crosses a
 * page.  The kernel writes such a pwrite whole or not at all, and releases
 * the lock of a process that dies, so SIGKILL at any moment can lose at most
 * that one update and never leaves a torn record.  A damaged file (wrong
 * magic or size) is replaced by a fresh one.
 *
 * The file is never readable by others (mode 0660 in a shared cache, 0600
 * else; jc_stats_init() takes the right away from an older file): anyone
 * who may open it could hold its locks.
 *
 * Lock order: the store lock (a byte past the end of the file), then usage
 * records; the counters are only ever locked alone.
 *
 * The usage records are what eviction relies on.  Every change of a
 * subdirectory's entries (store, eviction, removal) happens while holding
 * that subdirectory's record lock, so the record stays exact; a process
 * killed between renaming an entry and updating the record leaves it off by
 * one entry until the subdirectory is next rescanned (evict.c).
 *
 * Each function opens the file for the one operation and closes it, so no
 * descriptor is kept in the host process and a recreated cache directory is
 * picked up.  Functions return 0, or -1 when the file cannot be used (the
 * caller carries on without the numbers).
 */
#ifndef JITCACHE_STATS_H
#define JITCACHE_STATS_H

#include "store/store.h"

#include <stdint.h>
#include <sys/types.h>

/* JC_HITS, JC_MISSES, ...: the counters of store.h's JC_COUNTERS, in
 * order; then, from JC_TIER_BASE, the hits of each tier's slot (JC_TIERS).
 * Room is left between them for counters to come: an older file holds
 * zeros there (the file is made whole), and an older jitcache writes only
 * the counters it knows. */
enum jc_counter {
#define X(NAME, field, label) JC_##NAME,
	JC_COUNTERS(X)
#undef X
	JC_NAMED_COUNTERS,
	JC_TIER_BASE = 128,
	JC_NCOUNTERS = JC_TIER_BASE + JC_TIER_SLOTS
};
_Static_assert(JC_NAMED_COUNTERS <= JC_TIER_BASE, "too many counters");
#define JC_TIER_HITS(slot) (JC_TIER_BASE + (slot))
/* The tiers a hit can come from, each one line: X(NAME, name, slot, n);
 * name is the tier's in `jitcache stats`, its --json and its --prometheus.
 * Each tier has n hit counters (one per instance: the layers are
 * several) at slots slot..slot+n-1 of the tier region of the statistics
 * file (JC_TIER_HITS(slot)), apart from JC_COUNTERS so that a tier added
 * later (one line, the next free slot: X(HTTP, http, 11, 1)) moves
 * no counter.  Slots once given are never reused.  A hit on layer n (1..)
 * counts in the layer tier's slot n-1; layers past the last slot count in
 * the last. */
#define JC_LAYER_SLOTS 8
#define JC_TIERS(X)                             \
	X(LOCAL, local, 0,  1)                  \
	X(REDIS, redis, 1,  1)                  \
	X(LAYER, layer, 2,  JC_LAYER_SLOTS)     \
	X(HTTP,  http,  11, 1)                  \
	X(S3,    s3,    12, 1)                  \
	X(FILE,  file,  13, 1)
/* The slot of each tier's first hit counter: JC_SLOT_LOCAL, ... */
enum {
#define X(NAME, name, slot, n) JC_SLOT_##NAME = (slot),
	JC_TIERS(X)
#undef X
};

#define JC_SUBDIRS 256

struct jc_usage {
	uint64_t size, count; /* count: entry files, recipes included */
	uint64_t recipes;     /* of them, recipes; JC_USAGE_UNSPLIT in a record
				 written by a jitcache that did not count them
				 apart (the next scan of the subdirectory does) */
	int64_t oldest_ns; /* 0 when empty; never newer than the true oldest,
			      except after a hit made the oldest entry young */
};
#define JC_USAGE_UNSPLIT UINT64_MAX

/* Make sure DIR/stats exists and is sound, creating it (files get mode,
 * less the umask) or replacing a damaged one.  Returns 1 if it made a new
 * file (whose usage records are all zero: the caller should recount), 0 if
 * the file was fine, -1 if it could do neither. */
int jc_stats_init(const char *dir, mode_t mode);

/* Add delta to the counters, waiting at most wait seconds for their lock
 * (else -1, errno ETIMEDOUT); *after (if not NULL) gets the new values. */
int jc_stats_add(const char *dir, const uint64_t delta[JC_NCOUNTERS],
		 uint64_t after[JC_NCOUNTERS], double wait);
/* When the counters' lock was busy: add delta to this process's file of
 * counts set aside, DIR/stats-aside-PID (made with mode), waiting at most
 * wait for its own lock; the next jc_stats_add() folds it in, and
 * jc_stats_read() counts it meanwhile.  0, or -1. */
int jc_stats_aside(const char *dir, mode_t mode, const uint64_t delta[JC_NCOUNTERS], double wait);
/* The counters, with the counts set aside not yet folded in. */
int jc_stats_read(const char *dir, uint64_t out[JC_NCOUNTERS]);
/* When the counters started (0: not recorded). */
int jc_stats_since(const char *dir, int64_t *since_ns);
/* Every counter to 0, and their start to now. */
int jc_stats_zero(const char *dir);

/* Every subdirectory's record, under one shared lock. */
int jc_stats_usage_all(const char *dir, struct jc_usage out[JC_SUBDIRS]);

/* Serialise the end of stores ("make room, then rename into place") so that
 * concurrent stores cannot each see room for themselves and together pass
 * the cap.  Returns an fd holding the lock, or -1 (store anyway). */
int jc_stats_store_lock(const char *dir);
void jc_stats_store_unlock(int fd);

/* Lock subdirectory sub's record for a change: returns an fd holding the
 * lock with *u read, or -1 (errno ENOENT: no stats file; EBADMSG: damaged;
 * ETIMEDOUT: held too long by another process).  jc_usage_commit() writes
 * *u and releases the lock; jc_usage_release() releases without writing. */
int jc_usage_lock(const char *dir, int sub, struct jc_usage *u);
void jc_usage_commit(int fd, int sub, const struct jc_usage *u);
void jc_usage_release(int fd);

/* Subtract, stopping at zero: counts that drifted must not wrap around. */
static inline uint64_t jc_sub_sat(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

#endif
