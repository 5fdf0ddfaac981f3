// SPDX-License-Identifier: MIT
/*
 * remote.h — the remote tiers: entries shared by many machines, through
 * Redis (redis.h), web servers and S3 buckets (http.h), shared directories
 * (file.c); each kind asked through its table of operations (tier.h).  Used by cache.c
 * and lock.c only; the rest of jitcache sees the remotes through cache.h
 * (jc_cache_options.remote), as more places a lookup, a store and a
 * compile-once lock go.
 *
 * Several remotes may be named ([remote] url, config/remote_url.h): they
 * are asked in that order, and the first valid value is the hit (a team's
 * bucket, then a public pack).  Each may be read-only.  A value found in
 * one remote is also written to the writable remotes asked before it
 * (backfill), as the caller keeps it in the local store.
 *
 * Writes never hold the program up: jc_remote_put() copies the value into
 * a queue and returns; a thread of this process (the first started on the
 * first write, up to JC_REMOTE_WRITERS while all are busy; they take no
 * signal of the host's) writes it to each writable remote.
 * The queue is bounded (JC_REMOTE_QUEUE_BYTES): a write that does not fit
 * is dropped and counted.  At exit (an atexit handler, registered again
 * after the web client loads TLS, so that it runs before TLS's own) the
 * writes still queued get up to exit_wait seconds; those left are dropped,
 * counted, and nothing is left running; so before an exec.  Each dropped
 * write is in the local store.  A fork()ed child starts with an empty queue: the parent writes
 * what it queued.
 *
 * Compile once across machines: jc_remote_wait() takes a lease in the
 * first writable Redis remote (redis.h), else in the first writable S3
 * remote (a lease object made with a conditional write, s3_lease.h), else
 * in the first writable http(s) remote, as a WebDAV lock (http.h) where the
 * server has LOCK; a lease is released only after the writes queued before
 * the release (the value) are done, so a machine waiting for it finds the
 * value (Redis's release also wakes the machines waiting for it); a lease
 * its holder renews is waited for up to lock_timeout.  Web
 * servers without LOCK (said once) and buckets that ignore conditional
 * writes hold none: machines that share only those may compile the same
 * kernel at once (each process still compiles each kernel once; see
 * docs/fleets.md).  A lease that cannot be had because its server cannot
 * be reached costs nothing: compile at once.
 *
 * A compile is one request (struct jc_remote_request), made by its first
 * look and carried by the caller, on whatever thread goes on with it (an
 * OpenCL build that ends on the driver's thread), through the wait, the
 * put and the release; no thread keeps any of it.  At Redis the first look
 * (jc_remote_ask with leasing) already takes the lease, or sees who holds
 * it, and the wait starts from what it learnt; the put of the request's
 * value also releases its lease (one script, which wakes the waiters with
 * the value).  What the wait learnt serves the look after it: the value it
 * read (Redis, or a web or S3 waiter's GET), or that the value was absent
 * at its last look, so that a miss asks that remote once (redis.h counts
 * the commands).
 *
 * Calling sequence (cache.c, lock.c):
 *
 *   struct jc_remote *r = jc_remote_open(&opts, cache_dir, limit, count, ctx); // NULL: no remote
 *   jc_remote_set_keys(r, signer, trust, trust_required)   // optional
 *   for (i = 0; i < jc_remote_tiers(r); i++)
 *       jc_remote_get(r, i, key, &v, delta)    1 found (v filled), 0 absent, -1 failed
 *                                              (JC_REMOTE_REFUSED: login refused)
 *   jc_remote_put(r, key, &encoded, NULL, delta)   queued
 *
 *   a compile:
 *   q = jc_remote_request(r, key)           NULL: none (out of memory, or no r)
 *   jc_remote_ask(q, i, leasing, &v, delta) as jc_remote_get, for each i
 *   jc_remote_wait(q, deadline, delta)      on a miss, before compiling
 *   jc_remote_ask(q, i, 0, &v, delta)       the recheck
 *   jc_remote_put(r, key, &encoded, q, delta)   after compiling: queued
 *   jc_remote_release(q)                    the lease, after the put
 *   jc_remote_request_end(q)                released and freed
 *   jc_remote_close(r)                      waits exit_wait at most
 *
 * Every remote's settings (its URL, password or auth file, the AWS
 * variables and files) are read by jc_remote_open(), once; connections are
 * made, and the web client library (libcurl, TLS) loaded, by the first
 * exchange with a remote, so a process that never asks one loads nothing.
 *
 * Failure is never fatal and never slow: each remote bounds its connection
 * and every answer by the configured timeouts, never reads a value larger
 * than the limit given to jc_remote_open(), and after a failure is skipped
 * for `backoff` seconds by every process using the same cache directory.
 *
 * Counting: functions add what happened to delta (remote hits, misses,
 * errors, bytes in and out); the caller adds delta to the statistics.  What
 * the writer thread does later is counted through the count callback.
 * All functions are thread-safe.
 */
#ifndef JITCACHE_REMOTE_H
#define JITCACHE_REMOTE_H

#include "store/store.h"
#include "store/entry.h"
#include "store/stats.h"

#include <stddef.h>
#include <stdint.h>

/* The remote tiers (README "The remote tier"). */
struct jc_remote_options {
	const char *url;           /* the list of remotes (config/remote_url.h);
				      NULL, "" or "off": no remote tier */
	const char *password_file; /* Redis: if set, its first line is the password */
	int read_only;             /* read values, never write (no stores, no leases) */
	double exit_wait;          /* seconds the queued writes get at exit */
	double connect_timeout;    /* seconds */
	double timeout;            /* seconds, for each whole answer */
	double backoff;            /* seconds the remote is skipped after a failure */
	double lease;              /* seconds a compile lease lives, renewed meanwhile */
	double lease_wait;         /* seconds another's lease is waited for without
				      being seen renewed (renewed: until the
				      deadline), unless trusted keys verify it */
	int compress;              /* values zstd-compressed on the wire */
};

struct jc_remote;
struct jc_remote_lease;

/* The least a web or S3 remote waits to connect (TLS included) and for an
 * answer, unless its own attributes say (config/remote_url.h): [remote]'s
 * connect_timeout and timeout are made for Redis on a LAN. */
#define JC_WEB_CONNECT_TIMEOUT 2.0
#define JC_WEB_TIMEOUT 10.0

/* Bounds of the write queue, in bytes and in writes, and the most threads
 * (each with its connection to each remote) that write it at once. */
#define JC_REMOTE_QUEUE_BYTES (256u << 20)
#define JC_REMOTE_QUEUE_WRITES 4096
#define JC_REMOTE_WRITERS 4

/* Counts what the writer thread did (stores, errors, bytes out, drops). */
typedef void jc_remote_count_fn(void *ctx, const uint64_t delta[JC_NCOUNTERS]);

/* NULL, after one log line each, if no remote named can be used; NULL
 * silently if none is configured.  A remote that cannot be used (bad URL,
 * unreadable password or credentials) is left out, the others kept.
 * Connects later, on first use.  state_dir (the cache directory) holds the
 * back-off files.  A value larger than limit bytes (jc_entry_limit) is
 * never read.  count(ctx, delta) is called from the writer thread. */
struct jc_remote *jc_remote_open(const struct jc_remote_options *opts, const char *state_dir,
				 uint64_t limit, jc_remote_count_fn *count, void *ctx);
void jc_remote_close(struct jc_remote *r);
/* No remote is writable (all read-only). */
int jc_remote_read_only(const struct jc_remote *r);
int jc_remote_compress(const struct jc_remote *r);
/* How many remotes there are, and the statistics slot (JC_TIERS) of the
 * i-th one's hits (its kind's, tier.h; JC_SLOT_LOCAL if there is no i-th). */
int jc_remote_tiers(const struct jc_remote *r);
int jc_remote_slot(const struct jc_remote *r, int i);
/* The i-th remote for messages: "KIND URL", without credentials. */
void jc_remote_describe(const struct jc_remote *r, int i, char *out, size_t size);
/* Wait up to seconds for the queued writes to be done; 0 if none is left. */
int jc_remote_flush(struct jc_remote *r, double seconds);
/* Just before execve() (and every exec function, shim/exec.c): the writes
 * this process queued get each remote's exit_wait, as at exit; those left
 * are dropped, counted and said.  At once, taking no lock, in a process
 * that never wrote (or a vfork()ed child). */
void jc_remote_before_exec(void);

/* A value as read: its first 64 bytes (zero-filled if shorter), the rest in
 * payload (malloc'd; the caller frees it), and the value's full size.  A
 * value whose header already shows it bad is not fetched further: payload
 * is then NULL, and jc_remote_value_check() refuses it from the header. */
struct jc_remote_value {
	uint8_t header[JC_ENTRY_HEADER_SIZE];
	void *payload;
	uint64_t size;
};

/* Ask the i-th remote: 1 found (v filled), 0 absent, -1 failed, or
 * JC_REMOTE_REFUSED: failed because the server refused jitcache's login
 * (its password, its user, or an ACL refusing a command), now or in the
 * back-off period that refusal started: a miss the user fixes in the
 * settings, not on the network (`jitcache explain`, stats). */
#define JC_REMOTE_REFUSED (-2)
int jc_remote_get(struct jc_remote *r, int i, const struct jc_key *key,
		  struct jc_remote_value *v, uint64_t delta[JC_NCOUNTERS]);
/* One compile request (see the top): NULL if r is NULL or out of memory
 * (a request's calls then do what they would without one).  Used by one
 * thread at a time; freed by jc_remote_request_end(). */
struct jc_remote_request;
struct jc_remote_request *jc_remote_request(struct jc_remote *r, const struct jc_key *key);
/* The request's look at the i-th remote, as jc_remote_get(): what its wait
 * learnt answers it, else the remote is asked.  leasing: the first look of
 * a compile, which calls jc_remote_wait() next on a miss: at the Redis
 * that holds the leases the same command takes the key's lease, or sees
 * who holds it (redis.h), and the wait starts from there.  A lookup that
 * then hits (a later remote) or does not wait: jc_remote_drop_look()
 * releases that lease. */
int jc_remote_ask(struct jc_remote_request *q, int i, int leasing, struct jc_remote_value *v,
		  uint64_t delta[JC_NCOUNTERS]);
void jc_remote_drop_look(struct jc_remote_request *q);
/* A value of the i-th remote is written back to the writable remotes
 * before it (backfill), in two steps, so that it is copied once: the write
 * is made from v as read (checked: jc_remote_value_check), before the
 * caller decodes v's payload in place (NULL: no remote to write, or out of
 * memory); then it is queued, as a put, once the value is found good
 * (else, good 0, dropped), releasing in the same request the lease q's
 * first look took (q NULL: none).  NULL w is fine. */
struct jc_remote_write;
struct jc_remote_write *jc_remote_backfill_write(struct jc_remote *r, int i,
						 const struct jc_key *key,
						 const struct jc_remote_value *v);
void jc_remote_backfill(struct jc_remote *r, struct jc_remote_write *w,
			struct jc_remote_request *q, int good);

/* Check a value as an entry file is checked (magic, version, full key,
 * sizes, checksum), without decompressing it. */
enum jc_entry_status jc_remote_value_check(const struct jc_key *key,
					   const struct jc_remote_value *v,
					   struct jc_entry_header *h, const char **why);

/* Queue the encoded entry for every writable remote.  0 if queued.  q
 * (NULL: none), the request whose value it is: the lease it holds is
 * released by the same write where the tier can (Redis), else after it. */
int jc_remote_put(struct jc_remote *r, const struct jc_key *key, const struct jc_encoded *e,
		  struct jc_remote_request *q, uint64_t delta[JC_NCOUNTERS]);

/* On a miss, with a writable Redis, S3 or WebDAV remote: wait, until
 * deadline_ns (jc_wall_ns() time), until the key's value exists or nobody
 * else holds its lease (redis.h and s3_lease.h say how leases are trusted;
 * a WebDAV lock is not signed, so with trust_required it is not waited
 * for).  Without one: JC_REMOTE_FREE at once, compile here.  A lease had
 * is q's (jc_remote_leased), until jc_remote_release(q). */
enum jc_remote_wait {
	JC_REMOTE_LEASED,  /* the lease is q's: compile, put, release */
	JC_REMOTE_READY,   /* the value exists now: look it up again */
	JC_REMOTE_FREE,    /* read-only, or a lease not trusted: compile here */
	JC_REMOTE_TIMEOUT, /* still being compiled elsewhere at the deadline */
	JC_REMOTE_FAILED,  /* the remote cannot be used now */
};
enum jc_remote_wait jc_remote_wait(struct jc_remote_request *q, int64_t deadline_ns,
				   uint64_t delta[JC_NCOUNTERS]);
int jc_remote_leased(const struct jc_remote_request *q);
/* The keys of the cache (sign.h; kept alive by the caller): the signer signs
 * this node's leases; with trust_required, only leases trust verifies are
 * waited for (the others: JC_REMOTE_FREE, compile here). */
void jc_remote_set_keys(struct jc_remote *r, const struct jc_signer *signer,
			const struct jc_trust *trust, int trust_required);
/* Let go q's lease: the one its first look took, at once; the one its
 * wait took, unless its put released it, once the writes queued before
 * are done (renewal stops then, and the lease is deleted if still ours).
 * NULL is fine. */
void jc_remote_release(struct jc_remote_request *q);
/* jc_remote_release(), and q freed.  NULL is fine. */
void jc_remote_request_end(struct jc_remote_request *q);

#endif
