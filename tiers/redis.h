// SPDX-License-Identifier: MIT
/*
 * redis.h — the Redis remote tier: entries shared by many machines through
 * a Redis server, and compile-once across machines.  A kind of remote tier:
 * its operations, jc_tier_redis (tier.h), are at the end of redis.c, and
 * remote.c (the front that holds the remote tiers in order) calls it
 * through them alone; the rest of jitcache sees it through remote.h.
 *
 * On the wire a value is exactly an entry file's bytes (header + stored
 * payload, entry.h), under the name "jitcache:v<format>:<32 hex digits of
 * the key>", so a value read from Redis is verified exactly like a file.
 * While one machine compiles a key it holds a lease, a second name
 * "...:<hex>:lease" set with SET NX PX and renewed by a small thread until
 * released; a lease whose holder died expires by itself.  Its release
 * (with the store: one script) wakes the waiters through a third,
 * "...:<hex>:wake", a list they block on, whose element is the value
 * itself (checked as a lookup's; over a MiB, a token); a fourth,
 * "...:<hex>:waiting", notes that some do (so a compile nobody waited for
 * leaves no wake list behind).  A compile's first look reads the value,
 * or else takes the lease, or sees who holds it, in one script.  With keys
 * (jc_redis_set_keys, sign.h) a lease's value is signed and dated, renewed
 * with a new date, and a node with trusted keys waits only for a lease
 * signed by one of them within a lease time: whoever else can write Redis
 * cannot make its misses wait.  Without trusted keys a lease cannot be told
 * from a squatter's: another's is waited for while it is seen renewed (its
 * expiry moves later, or its value changes), up to the deadline, and one
 * not seen renewed for lease_wait seconds is taken over.
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
 * Calling sequence (through jc_tier_redis):
 *
 *   struct jc_redis *r = jc_redis_open(&opts, spec, read_only, state_dir, limit); // NULL: unusable
 *   jc_redis_set_keys(r, signer, trust, trust_required)   // optional
 *   jc_redis_get(r, key, &v, delta)          1 found (v filled), 0 absent, -1 failed
 *                                            (JC_REMOTE_REFUSED: login refused, remote.h)
 *     or jc_redis_get_or_lease(r, key, &v, &look, delta)   the first look of a compile
 *   jc_redis_wait(r, key, deadline, look, &lease, &v, delta)   on a miss, before compiling
 *   jc_redis_put(r, key, bytes, size, delta) after compiling (not if read-only)
 *   jc_redis_release(lease)                  after the put; NULL is fine
 *     or jc_redis_put_release(r, key, bytes, size, lease, delta)   both in one
 *                                            (a lease only looked at: freed)
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

/* The first look of a compile: as jc_redis_get(), but where the value is
 * absent the same command (a script) takes the key's lease, or sees who
 * holds it; *look is then what it learnt (NULL if nothing), for
 * jc_redis_wait() (which frees it), or jc_redis_release() if not waited
 * for.  A lease taken is renewed from now on.  A read-only server:
 * jc_redis_get(). */
int jc_redis_get_or_lease(struct jc_redis *r, const struct jc_key *key,
			  struct jc_remote_value *v, struct jc_remote_lease **look,
			  uint64_t delta[JC_NCOUNTERS]);

/* Store an entry file's bytes (not on a read-only server).  0 on success. */
int jc_redis_put(struct jc_redis *r, const struct jc_key *key, const void *value, size_t size,
		 uint64_t delta[JC_NCOUNTERS]);

/* On a miss: wait, until deadline_ns (jc_wall_ns() time), until the key's
 * value exists or nobody else holds its lease (enum jc_remote_wait,
 * remote.h).  A lease without an expiry is not one jitcache set (a
 * squatter's): it is removed and taken.  Without trust_required another's
 * lease is waited for while its holder renews it, and taken over once not
 * seen renewed for lease_wait seconds (a squatter who keeps renewing costs
 * the deadline at most); with it, only a trusted lease, until the deadline.
 * A read-only server is never asked: JC_REMOTE_FREE.
 *
 * Reading the value, or else taking the lease, is one command (a script,
 * which also reads the value when it exists); a waiter then blocks (BRPOPLPUSH, on a connection of its own)
 * until the holder's release wakes it or the lease would have expired, and
 * is given the value itself by the holder's store: JC_REMOTE_READY with v
 * filled (a value as jc_redis_get() gives it, the caller's), or with v
 * empty (size 0) when the value was found too large to read.  Any other
 * answer: the value did not exist at the last look.  look: what
 * jc_redis_get_or_lease() learnt of this key (consumed; NULL: none): the
 * lease it took is handed out at once, another's lease it saw is the
 * wait's first look. */
enum jc_remote_wait jc_redis_wait(struct jc_redis *r, const struct jc_key *key,
				  int64_t deadline_ns, struct jc_remote_lease *look,
				  struct jc_remote_lease **lease, struct jc_remote_value *v,
				  uint64_t delta[JC_NCOUNTERS]);
/* The keys of the cache (sign.h; kept alive by the caller): the signer signs
 * this node's leases; with trust_required, only leases trust verifies are
 * waited for (the others: JC_REMOTE_FREE, compile here). */
void jc_redis_set_keys(struct jc_redis *r, const struct jc_signer *signer,
		       const struct jc_trust *trust, int trust_required);
/* Stop renewing and delete the lease if it is still ours (another's that a
 * lookup looked at: freed only). */
void jc_redis_release(struct jc_remote_lease *lease);
/* jc_redis_put(), then jc_redis_release(lease), in one command (a script)
 * where the lease is this server's and ours: the waiters are woken with
 * the value.  The lease is freed.  0 if stored. */
int jc_redis_put_release(struct jc_redis *r, const struct jc_key *key, const void *value,
			 size_t size, struct jc_remote_lease *lease, uint64_t delta[JC_NCOUNTERS]);

#endif
