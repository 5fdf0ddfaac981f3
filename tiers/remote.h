/*
 * remote.h — the remote tier: entries shared by many machines through a
 * Redis server.  Used by cache.c only; the rest of jitcache sees it through
 * cache.h (jc_cache_options.remote), as one more place a lookup, a store and
 * a compile-once lock go.
 *
 * On the wire a value is exactly an entry file's bytes (header + stored
 * payload, entry.h), under the name "jitcache:v<format>:<32 hex digits of
 * the key>", so a value read from Redis is verified exactly like a file.
 * While one machine compiles a key it holds a lease, a second name
 * "...:<hex>:lease" set with SET NX PX and renewed by a small thread until
 * released; a lease whose holder died expires by itself.  With keys
 * (jc_remote_set_keys, sign.h) a lease's value is signed and dated, renewed
 * with a new date, and a node with trusted keys waits only for a lease
 * signed by one of them within a lease time: whoever else can write Redis
 * cannot make its misses wait.  Without trusted keys a lease cannot be told
 * from a squatter's, so another's is waited for only lease_wait seconds.
 *
 * Calling sequence (cache.c):
 *
 *   struct jc_remote *r = jc_remote_open(&opts, cache_dir, limit);  // NULL: no remote
 *   jc_remote_set_keys(r, signer, trust, trust_required)   // optional
 *   jc_remote_get(r, key, &v, delta)        1 found (v filled), 0 absent, -1 failed
 *   jc_remote_wait(r, key, deadline, &lease, delta)   on a miss, before compiling
 *   jc_remote_put(r, key, &encoded, delta)  after compiling (not if read-only)
 *   jc_remote_release(lease)                after the put; NULL is fine
 *   jc_remote_close(r)
 *
 * Failure is never fatal and never slow: connecting and every answer (as a
 * whole, however slowly its bytes come) are bounded by the configured
 * timeouts; a value larger than the limit given to jc_remote_open() is
 * never read; after a failure (no connection, a
 * timeout, an answer that is not Redis's, a refused password) the remote is
 * skipped for `backoff` seconds by this process and by every process using
 * the same cache directory (a small file there says until when), so calls
 * meanwhile cost nothing.  Each kind of problem is logged once per process.
 * SIGPIPE from a dropped connection is kept from the host process.  A
 * connection is made lazily, kept for reuse, and never used across fork().
 *
 * Counting: functions add what happened to delta (remote hits, misses,
 * errors, bytes in and out); the caller adds delta to the statistics.
 * All functions are thread-safe.
 */
#ifndef JITCACHE_REMOTE_H
#define JITCACHE_REMOTE_H

#include "store/store.h"
#include "store/entry.h"
#include "store/stats.h"

#include <stdint.h>

/* The remote tier (README "The remote tier"): a Redis server many machines
 * share.  A lookup that misses the directory asks the remote, verifies what
 * it gets exactly like an entry file and keeps it in the directory; a store
 * writes both; jc_cache_lock_key() also takes a lease in Redis, so that one
 * machine compiles while the others wait for its value.  The remote is
 * never fatal and never slow: see below. */
struct jc_remote_options {
	const char *url;           /* redis://... or redis+unix://...; NULL, "" or
				      "off": no remote tier (config/remote_url.h) */
	const char *password_file; /* if set, its first line is the password */
	int read_only;             /* read values, never write (no stores, no leases) */
	double connect_timeout;    /* seconds */
	double timeout;            /* seconds, for each whole answer */
	double backoff;            /* seconds the remote is skipped after a failure */
	double lease;              /* seconds a compile lease lives, renewed meanwhile */
	double lease_wait;         /* seconds another's lease is waited for, unless
				      trusted keys verify it (then: the deadline) */
	int compress;              /* values zstd-compressed on the wire */
};

struct jc_remote;
struct jc_remote_lease;

/* NULL, after one log line, if the URL is invalid or its password file
 * cannot be read; NULL silently if no remote is configured.  Connects later,
 * on first use.  state_dir (the cache directory) holds the back-off file.
 * A value larger than limit bytes (jc_entry_limit) is never read: its size
 * is asked first, and the lookup is a miss. */
struct jc_remote *jc_remote_open(const struct jc_remote_options *opts, const char *state_dir,
				 uint64_t limit);
void jc_remote_close(struct jc_remote *r);
int jc_remote_read_only(const struct jc_remote *r);
int jc_remote_compress(const struct jc_remote *r);

/* A value as read: its first 64 bytes (zero-filled if shorter), the rest in
 * payload (malloc'd; the caller frees it), and the value's full size.  A
 * value whose header already shows it bad is not fetched further: payload
 * is then NULL, and jc_remote_value_check() refuses it from the header. */
struct jc_remote_value {
	uint8_t header[JC_ENTRY_HEADER_SIZE];
	void *payload;
	uint64_t size;
};

int jc_remote_get(struct jc_remote *r, const struct jc_key *key, struct jc_remote_value *v,
		  uint64_t delta[JC_NCOUNTERS]);

/* Check a value as an entry file is checked (magic, version, full key,
 * sizes, checksum), without decompressing it. */
enum jc_entry_status jc_remote_value_check(const struct jc_key *key,
					   const struct jc_remote_value *v,
					   struct jc_entry_header *h, const char **why);

/* Store the encoded entry (not on a read-only remote).  0 on success. */
int jc_remote_put(struct jc_remote *r, const struct jc_key *key, const struct jc_encoded *e,
		  uint64_t delta[JC_NCOUNTERS]);

/* On a miss: wait, until deadline_ns (jc_wall_ns() time), until the key's
 * value exists or nobody else holds its lease.  A lease without an expiry
 * is not one jitcache set (a squatter's): it is removed and taken.  Without
 * trust_required another's lease is waited for at most lease_wait seconds
 * (anyone who can write Redis could hold one); with it, only a trusted
 * lease, until the deadline.  A read-only remote never waits (nor asks):
 * it compiles here at once. */
enum jc_remote_wait {
	JC_REMOTE_LEASED,  /* *lease is ours: compile, put, release */
	JC_REMOTE_READY,   /* the value exists now: look it up again */
	JC_REMOTE_FREE,    /* read-only, or a lease not trusted: compile here */
	JC_REMOTE_TIMEOUT, /* still being compiled elsewhere at the deadline */
	JC_REMOTE_FAILED,  /* the remote cannot be used now */
};
enum jc_remote_wait jc_remote_wait(struct jc_remote *r, const struct jc_key *key,
				   int64_t deadline_ns, struct jc_remote_lease **lease,
				   uint64_t delta[JC_NCOUNTERS]);
/* The keys of the cache (sign.h; kept alive by the caller): the signer signs
 * this node's leases; with trust_required, only leases trust verifies are
 * waited for (the others: JC_REMOTE_FREE, compile here). */
void jc_remote_set_keys(struct jc_remote *r, const struct jc_signer *signer,
			const struct jc_trust *trust, int trust_required);
/* Stop renewing and delete the lease if it is still ours. */
void jc_remote_release(struct jc_remote_lease *lease);

#endif
