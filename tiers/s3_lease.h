// SPDX-License-Identifier: MIT
/*
 * s3_lease.h — compile-once across machines through an S3 bucket, for
 * fleets that share no Redis: a lease object beside the key's value,
 * created with a conditional write.  The S3 kind's leases (web.c's
 * jc_tier_s3, tier.h): remote.c takes its leases from the first writable
 * Redis remote, else from the first writable S3 remote (remote.h).
 *
 * The lease of a key is the object "<the value's name>.lease", its body
 * "jitcache-lease-v1 HOST/PID/NONCE WRITE UNTIL_MS" (who holds it, its
 * how-manieth write, and until when by the holder's clock).  A node that
 * misses creates it with `If-None-Match: *` (only if absent; 412 if another
 * node holds it): the one whose create succeeds compiles (unless the value
 * is there by then, a holder having stored it and let go since the lookup:
 * the lease is let go, JC_REMOTE_READY), and the lease engine's renewal
 * thread (lease.h) renews the lease every third of `lease` seconds by
 * overwriting it with `If-Match: <its ETag>`, each time with a new body
 * (the ETag is the body's MD5), so that a waiter sees it renewed.  The
 * lease is deleted (`If-Match`: only if still ours) after the value's
 * write.  A node whose create gets 412 waits, until the deadline
 * (lock_timeout), for as long as the lease is renewed: it looks at the
 * value (a GET, which brings it once stored: one request a look,
 * JC_REMOTE_READY with v filled) with a pause growing from 50 ms to a
 * twentieth of the lease (0.5 s by default, 1 s at most), and at the lease
 * (a HEAD) every fifth of the lease or of lease_wait, whichever is shorter
 * (0.1 s at least); a lease found gone has the value looked at once more
 * before the waiter creates the lease itself.  A lease that is not
 * renewed, its holder dead, is stale once either clock says so: the
 * server's (its Date less the lease's Last-Modified is more than `lease`
 * + 2 s) or the waiter's (the ETag not seen changing for `lease_wait`
 * seconds); it is taken over with `If-Match: <the stale ETag>`, so one
 * waiter wins.  So a dead holder's lease is taken over within about one
 * lease time.
 *
 * HOST/PID/NONCE is the engine's token (lease.h), signed with a signing
 * key; with trust_required (trusted_keys) a waiter reads the lease (a GET
 * instead of the HEAD, at once after its create is refused and at each
 * look) and waits only while a trusted key signed it within a lease time:
 * the signature covers "s3:<32 hex>.lease" and the token, so it cannot be
 * moved to another key, and a copy goes stale.
 *
 * A server that ignores conditions (radosgw on its SQLite backend
 * "dbstore" answers 200 to a second create-only PUT) would make every node
 * the holder: the first lease a process takes is created twice, and a
 * second success means the server ignores them; that is said once and no
 * S3 lease is used in the process (every node compiles, as with no
 * lease).
 *
 *   struct jc_leases *e = jc_s3_leases_open(http, lease, lease_wait);
 *   jc_leases_set_keys(e, signer, trust, trust_required)
 *   jc_lease_wait(e, key, deadline, NULL, &lease, &v, delta)   lease.h
 *   jc_lease_release(lease)                                    after the put
 *   jc_s3_leases_close(e)
 *
 * Failure costs no time: a bucket that cannot be reached, or that refuses
 * the request, is JC_REMOTE_FAILED at once (and skipped for `backoff`, as
 * for its gets and puts), and the node compiles.  Thread-safe.
 */
#ifndef JITCACHE_S3_LEASE_H
#define JITCACHE_S3_LEASE_H

#include "tiers/http.h"
#include "tiers/lease.h"
#include "tiers/remote.h"

/* NULL if h is NULL or not an S3 remote.  lease, lease_wait: seconds
 * (remote.h's options).  h stays the caller's and outlives the result. */
struct jc_leases *jc_s3_leases_open(struct jc_http *h, double lease, double lease_wait);
void jc_s3_leases_close(struct jc_leases *e);

#endif
