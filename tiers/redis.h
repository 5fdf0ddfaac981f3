// SPDX-License-Identifier: MIT
/*
 * redis.h — the Redis remote tier: entries shared by many machines through
 * a Redis server (or a Redis Cluster: redis_cluster.h), and compile-once
 * across machines.  A kind of remote tier:
 * its operations, jc_tier_redis (tier.h), are at the end of redis.c, and
 * remote.c (the front that holds the remote tiers in order) calls it
 * through them alone; the rest of jitcache sees it through remote.h.
 *
 * On the wire a value is exactly an entry file's bytes (header + stored
 * payload, entry.h), under the name "jitcache:v<format>:<32 hex digits of
 * the key>", so a value read from Redis is verified exactly like a file.
 * While one machine compiles a key it holds a lease, a second name
 * "jitcache:{jitcache:v<format>:<hex>}:lease" (its hash tag, the value's
 * name, puts it in the value's cluster slot) set with SET NX PX and
 * renewed (the lease engine's thread) until released; a lease whose holder died
 * expires by itself.  Its release (with the store: one script) wakes the
 * waiters through a third, "jitcache:{...}:wake", a list they block on,
 * whose element is the value itself (checked as a lookup's; over a MiB, a
 * token); a fourth, "jitcache:{...}:waiting", notes that some do (so a
 * compile nobody waited for leaves no wake list behind).  A compile's first look reads the value,
 * or else takes the lease, or sees who holds it, in one script.
 *
 * The leases are the Redis kind of the lease engine (lease.h), which
 * renews them (one thread per process), waits, keeps a fork()ed child off
 * its parent's leases and signs them: redis.c gives it the primitives
 * (try-take: the take script; renew: a compare-and-renew script, or
 * compare-and-set with the new signed value; release: compare-and-delete
 * that wakes the waiters; wait-hint: BRPOPLPUSH on the wake list).  The
 * lease's value is the engine's token: with keys (sign.h) signed and
 * dated, and a node with trusted keys waits only for a lease signed by one
 * of them within a lease time: whoever else can write Redis cannot make
 * its misses wait.  Without trusted keys a lease cannot be told from a
 * squatter's: another's is waited for while it is seen renewed (its expiry
 * moves later, or its value changes), up to the deadline, and one not seen
 * renewed for lease_wait seconds is taken over.
 *
 * What each costs, in commands (each a round trip but where said):
 *   a hit             1: GETRANGE of the value's first MiB, or, the first
 *                     look of a compile, the lease script, which reads as
 *                     much (a larger value: one more GETRANGE per 4 MiB);
 *   a miss, waiting   2: the lease script, which found another's lease,
 *                     then BRPOPLPUSH, whose answer is the value itself
 *                     (one over a MiB: its GETRANGEs after); the script
 *                     and the wait again each time the lease would have
 *                     expired (about once a lease time);
 *   a miss, compiling 2: the lease script, which took the lease, and the
 *                     store script (the value written, the lease released,
 *                     the waiters woken with the value); and a renewal
 *                     every third of a lease time.
 * Where the lookup is not the first look of a compile (jc_redis_get), or
 * the store is not made by the thread that took the lease, one command
 * more each (GETRANGE; SET before the release's script).
 * A server that lacks a script (NOSCRIPT) costs one EVAL more, once.
 *
 * Calling sequence (through jc_tier_redis, tier.h: its get with a look
 * is the first look of a compile, its put with a lease the store that
 * releases it, its wait and release the engine's):
 *
 *   struct jc_redis *r = jc_redis_open(&opts, spec, read_only, state_dir, limit); // NULL: unusable
 *   jc_redis_get(r, key, &v, delta)          1 found (v filled), 0 absent, -1 failed
 *                                            (JC_REMOTE_REFUSED: login refused, remote.h)
 *   jc_redis_put(r, key, bytes, size, delta) after compiling (not if read-only)
 *   jc_redis_close(r)
 *
 * Failure is never fatal and never slow: connecting and every answer (as a
 * whole, however slowly its bytes come) are bounded by the configured
 * timeouts; a value larger than the limit given to jc_redis_open() is
 * never read; after a failure (no connection, a timeout, an answer that is
 * not Redis's, a refused password) the server is skipped for `backoff`
 * seconds by this process and by every process using the same cache
 * directory (a small file there says until when), so calls meanwhile cost
 * nothing.  Each kind of problem is logged once per process.  SIGPIPE from
 * a dropped connection is kept from the host process.  A connection is
 * made lazily, kept for reuse, and never used across fork().
 *
 * Counting: functions add what happened to delta (errors, stores, bytes in
 * and out); the caller adds delta to the statistics.  All functions are
 * thread-safe.
 */
#ifndef JITCACHE_REDIS_H
#define JITCACHE_REDIS_H

#include "tiers/remote.h"
#include "config/remote_url.h"

struct jc_redis;

/* NULL, after one log line, if the password file cannot be read.  spec:
 * its URL, parsed (config/remote_url.h: spec->at.redis).  Of opts, the
 * timeouts, back-off, leases and password file are used.  Connects later,
 * on first use.  state_dir (the cache directory)
 * holds the back-off file.  A value larger than limit bytes (jc_entry_limit)
 * is never read: the first read (1 MiB, or the limit and a byte) shows
 * that, or the header it brings says so, and the lookup is a miss. */
struct jc_redis *jc_redis_open(const struct jc_remote_options *opts,
			       const struct jc_remote_spec *spec, int read_only,
			       const char *state_dir, uint64_t limit);
void jc_redis_close(struct jc_redis *r);

/* 1 found (v filled, remote.h), 0 absent, -1 failed. */
int jc_redis_get(struct jc_redis *r, const struct jc_key *key, struct jc_remote_value *v,
		 uint64_t delta[JC_NCOUNTERS]);

/* Store an entry file's bytes (not on a read-only server).  0 on success. */
int jc_redis_put(struct jc_redis *r, const struct jc_key *key, const void *value, size_t size,
		 uint64_t delta[JC_NCOUNTERS]);

#endif
