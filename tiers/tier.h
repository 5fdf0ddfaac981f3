// SPDX-License-Identifier: MIT
/*
 * tier.h — what a kind of remote tier provides: one table of operations,
 * through which remote.c (the queue of writes, the order of the tiers,
 * backfill, exit and fork) asks every remote, whatever its kind.  The
 * manual for writing a new kind (docs/design.md, "Adding a tier"):
 *
 *   1. its file, tiers/KIND.c, that defines `const struct jc_tier_ops
 *      jc_tier_KIND`;
 *   2. its line X(KIND, kind, shape, "scheme://"...) in config/remote_url.h's
 *      JC_REMOTE_KINDS_LIST: JC_REMOTE_KIND, its operations in the table
 *      of kinds, the shape its URL is parsed into (the spec's typed
 *      address `at`: redis, web, bucket or path; a new shape is a parser
 *      in config/remote_url.c and a member of that union) and its schemes;
 *   3. optional, its hits counted apart: X(KIND, kind, N, 1) in
 *      store/stats.h's JC_TIERS, N the next free slot, and .slot =
 *      JC_SLOT_KIND (else it counts in another kind's slot).
 *
 * The URL is parsed once, by config/remote_url.c, when the settings are
 * read: open() gets it typed (jc_tier_open.spec->at) and never parses it
 * again.  open() only reads settings (files, variables): it connects to
 * nothing, so a process that never asks the remote pays nothing.
 *
 * Calling sequence (remote.c; every call thread-safe):
 *
 *   void *t = ops->open(&o);                 NULL: unusable, one line said why
 *   ops->load()                              once per process before the first
 *                                            get, put or wait (optional: a
 *                                            library loaded at run time)
 *   ops->get(t, key, &v, look, delta)        1 found (v filled), 0 absent, -1 failed,
 *                                            JC_REMOTE_REFUSED: the server refused
 *                                            the login (remote.h; a kind that
 *                                            cannot tell says -1); look: below
 *   ops->put(t, key, bytes, n, lease, delta) 0 stored, -1 failed (never if
 *                                            read-only); lease: below
 *   ops->describe(t, buf, size)              "KIND URL", no credentials
 *   ops->close(t)
 *
 * Compile once across machines (optional; leases_open NULL: the kind holds
 * no lease).  remote.c takes its leases from one tier: the writable one of
 * the smallest lease_order (first in the list among equals) whose
 * leases_open() gives leases.  Today: the first writable Redis, else the
 * first writable S3 remote, else the first writable WebDAV server.
 *
 *   void *z = ops->leases_open(t, opts)      NULL: none here
 *   ops->set_keys(z, signer, trust, trust_required)
 *   ops->wait(z, key, deadline, look, &lease, &v, delta)   as jc_remote_wait
 *                                            (remote.h), from what look
 *                                            learnt (consumed; NULL: none)
 *   ops->release(lease)                      after the value's put, or a
 *                                            look not waited for; in a
 *                                            fork()ed child: only freed
 *   ops->leases_close(z)                     NULL: closed with the tier
 *
 * A compile request (remote.h) may ask the tier that holds its leases for
 * more in the exchanges it makes anyway; a kind that cannot ignores both:
 *   - get's look (NULL for any other look): the first look of a compile;
 *     a kind whose leases are its tier's own handle may take the key's
 *     lease on a miss, or see who holds it, in the same request, and
 *     leave what it learnt in *look for its wait (else leave it NULL);
 *   - put's lease (NULL for any other write): *lease is the lease of the
 *     compile whose value this is; a kind that can releases it in the same
 *     request (or lets go of one it only looked at) and sets *lease to
 *     NULL; else remote.c releases it once the writes before are done.
 *
 * Failure convention: as remote.h's, never fatal and never slow; each
 * operation bounds itself by the timeouts it was opened with, a remote
 * across a network is skipped for `backoff` after a failure (client.h),
 * and each kind of problem is said once.  Counting: operations add to
 * delta what they did (errors, bytes, stores, values too large); hits and
 * misses are the caller's.
 */
#ifndef JITCACHE_TIER_H
#define JITCACHE_TIER_H

#include "tiers/remote.h"
#include "config/remote_url.h"

#include <stddef.h>
#include <stdint.h>

/* What open() gets. */
struct jc_tier_open {
	const struct jc_remote_spec *spec;    /* the URL parsed, its attributes */
	const struct jc_remote_options *opts; /* [remote]'s, the timeouts this tier's
						 (its attributes, or at least
						 min_connect_timeout, min_timeout) */
	int read_only;                        /* this tier is never written */
	const char *state_dir;                /* the cache directory: back-off files */
	uint64_t limit;                       /* a value larger is never read */
};

struct jc_tier_ops {
	const char *name;  /* "redis", "http", "s3": in messages */
	int slot;          /* JC_SLOT_...: the statistics slot of its hits */
	/* The least [remote]'s connect_timeout and timeout are raised to
	 * (those are made for Redis on a LAN); 0: taken as they are. */
	double min_connect_timeout, min_timeout;
	/* Its lease wait looks at the value itself: an answer other than
	 * JC_REMOTE_READY or JC_REMOTE_FAILED means the value was absent then,
	 * and the look after the wait asks nothing more.  Its lookups' misses
	 * are then not kept for that look (0: kept, one answer instead of two). */
	int wait_looks;

	void (*load)(void); /* optional */
	void *(*open)(const struct jc_tier_open *o);
	int (*get)(void *t, const struct jc_key *key, struct jc_remote_value *v,
		   struct jc_remote_lease **look, uint64_t delta[JC_NCOUNTERS]);
	int (*put)(void *t, const struct jc_key *key, const void *bytes, size_t n,
		   struct jc_remote_lease **lease, uint64_t delta[JC_NCOUNTERS]);
	void (*describe)(void *t, char *out, size_t size);
	void (*close)(void *t);

	/* compile-once leases: all NULL (and lease_order 0) if none */
	int lease_order;
	void *(*leases_open)(void *t, const struct jc_remote_options *opts);
	void (*set_keys)(void *z, const struct jc_signer *signer, const struct jc_trust *trust,
			 int trust_required);
	/* look: what get's look learnt of this key, the wait's to free (NULL
	 * for none).  v: filled (the caller's) with the value when the wait read
	 * it with JC_REMOTE_READY; else left empty (size 0). */
	enum jc_remote_wait (*wait)(void *z, const struct jc_key *key, int64_t deadline_ns,
				    struct jc_remote_lease *look, struct jc_remote_lease **lease,
				    struct jc_remote_value *v, uint64_t delta[JC_NCOUNTERS]);
	void (*release)(struct jc_remote_lease *lease);
	void (*leases_close)(void *z);
};

/* The kinds (config/remote_url.h's JC_REMOTE_KINDS_LIST), each defined by
 * its own file: jc_tier_redis (redis.c), jc_tier_http (web.c: http.c and
 * WebDAV leases), jc_tier_s3 (web.c: http.c and S3 leases), jc_tier_file
 * (file.c). */
#define X(NAME, name, ...) extern const struct jc_tier_ops jc_tier_##name;
JC_REMOTE_KINDS_LIST(X)
#undef X

/* The operations of a kind; NULL for none. */
const struct jc_tier_ops *jc_tier_of(enum jc_remote_kind kind);

#endif
