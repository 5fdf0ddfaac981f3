// SPDX-License-Identifier: MIT
/*
 * lease.h — the one lease engine: compile-once across machines for every
 * kind of remote that can hold a lease (Redis, S3, WebDAV).  A kind gives
 * four primitives (struct jc_lease_kind: try-take, renew, release,
 * wait-hint) that speak its protocol; the engine does the rest, the same
 * way for every kind:
 *
 *   - the wait: try to take the key's lease; held by another, check that
 *     the holder is one we trust (below), then let the kind wait its way
 *     (wait_hint: a blocking pop, or looks at the value with a growing
 *     pause) until the value is there, the deadline, or the next try;
 *   - renewal: ONE thread per process renews every lease of every kind it
 *     holds, each every period_ns (a third of the lease time unless the
 *     kind says shorter).  It is started by the first lease taken, not
 *     before (a process that never compiles has none), and ends when the
 *     last is let go (joined: nothing is left running).  It takes no
 *     signal of the host's (client.h's jc_thread_start);
 *   - fork: a child never renews nor releases its parent's leases.  Each
 *     lease knows the process that took it; in a child (pthread_atfork)
 *     the renewal list starts empty and no thread runs, and a parent's
 *     lease released there is only freed;
 *   - signed tokens: a lease's token is "HOST/PID/NONCE/MS"; with a
 *     signing key (sign.h) it ends with "/" and 144 hex digits, the key's
 *     id and Ed25519 signature of "<the lease's name>\n<the token before
 *     it>" (domain "jitcache-lease-v1"), made again at each renewal (a new
 *     MS).  With trust_required (trusted_keys), another's lease is waited
 *     for only if its token is signed by a trusted key, for this lease's
 *     name, within a lease time (and 5 s of clock skew) of now: whoever
 *     else can write the remote cannot make misses wait.  Any other
 *     (unsigned, a key not trusted, another key's name, old, unreadable)
 *     is said once and not waited for: JC_REMOTE_FREE, compile here.
 *
 * A kind's lease is its own struct that begins with struct jc_lease (the
 * engine allocates kind->size bytes, zeroed); the kind reads key, name and
 * token, and fills seen (another's token, when need_token) and may set
 * period_ns.  The kind's handle z and the kind are given at open.
 *
 *   struct jc_leases *e = jc_leases_open(kind, z, shown, lease, lease_wait);
 *   jc_leases_set_keys(e, signer, trust, trust_required)
 *   jc_lease_wait(e, key, deadline, look, &lease, &v, delta)   as jc_remote_wait
 *   jc_lease_release(lease)           after the value's put; NULL is fine
 *   jc_leases_close(e)
 *
 * A kind whose lookup can take the lease in the same request (Redis's
 * first look) makes the lease with jc_lease_new(), runs its take, and
 * hands the result to jc_lease_looked(); the wait then starts from it.  A
 * kind whose store can release the lease in the same request calls
 * jc_lease_stop() (no renewal from now on; 0 if the lease is not this
 * process's to release) before it, and jc_lease_free() after.
 *
 * Thread-safe; a lease is used by one thread at a time (and the renewal
 * thread, which the engine keeps out of the kind's way: renew() is never
 * called for a lease being released, nor after jc_lease_stop()).
 */
#ifndef JITCACHE_LEASE_H
#define JITCACHE_LEASE_H

#include "tiers/remote.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A token: "HOST/PID/NONCE/MS" and, signed, "/" + 144 hex digits. */
#define JC_LEASE_TOKEN_MAX 320
/* What a lease's signature covers first: the kind's name for it. */
#define JC_LEASE_NAME_MAX 96

struct jc_leases;

/* One lease: being taken, held (ours), or another's being waited for. */
struct jc_lease {
	struct jc_leases *e;
	struct jc_key key;
	char name[JC_LEASE_NAME_MAX];  /* the kind's name for it (jc_lease_kind.name_of) */
	char holder[96];               /* "HOST/PID/NONCE": who we are */
	char token[JC_LEASE_TOKEN_MAX]; /* ours, as last written (signed: as of then) */
	char seen[JC_LEASE_TOKEN_MAX];  /* another's, as the last try read it ("": not read) */
	int need_token;                /* the kind must read another's token into seen */
	int64_t period_ns;             /* between renewals */
	pid_t pid;                     /* the process that made it */
	/* the engine's own */
	int state;                     /* what the last try (or the look) found */
	int listed, busy, lost;        /* in the renewal list; being renewed; lost */
	int64_t next_ns;               /* its next renewal (jc_mono_ns) */
	struct jc_lease *next;
};

/* What one try to take the lease found. */
enum jc_lease_take {
	JC_LEASE_TAKEN,  /* ours now: renewed until released */
	JC_LEASE_HELD,   /* another's (seen: its token, if need_token) */
	JC_LEASE_READY,  /* the value exists (v filled, or empty: refused unread) */
	JC_LEASE_NONE,   /* no lease here (said): compile without waiting */
	JC_LEASE_FAILED, /* the remote cannot be used now: compile here */
};

struct jc_lease_kind {
	const char *name; /* "S3", "WebDAV", "Redis": in messages */
	size_t size;      /* of the kind's lease struct, which begins with struct jc_lease */
	/* The kind's name for key's lease (what a signature covers). */
	void (*name_of)(void *z, const struct jc_key *key, char out[JC_LEASE_NAME_MAX]);
	/* Take the lease, or take over a dead holder's (the kind judges);
	 * first: the first try of this wait.  A lease taken while the value
	 * is there already is let go by the kind: JC_LEASE_READY. */
	enum jc_lease_take (*try_take)(void *z, struct jc_lease *l, int first,
				       struct jc_remote_value *v, uint64_t delta[JC_NCOUNTERS]);
	/* Keep the lease ours with next as its token (the same but for a
	 * signed one): 1 renewed, 0 lost to another, -1 no answer (tried
	 * again next period).  From the renewal thread. */
	int (*renew)(void *z, struct jc_lease *l, const char *next);
	/* Let go the lease if still ours. */
	void (*release)(void *z, struct jc_lease *l);
	/* Another holds it: wait, the kind's way, until the value exists
	 * (JC_REMOTE_READY, v filled), the remote fails (JC_REMOTE_FAILED), or
	 * it is time to try again (JC_REMOTE_TIMEOUT), never past deadline_ns. */
	enum jc_remote_wait (*wait_hint)(void *z, struct jc_lease *l, int64_t deadline_ns,
					 struct jc_remote_value *v, uint64_t delta[JC_NCOUNTERS]);
};

/* NULL if out of memory.  shown: the remote, for messages (kept by the
 * caller).  lease, lease_wait: seconds (remote.h). */
struct jc_leases *jc_leases_open(const struct jc_lease_kind *kind, void *z, const char *shown,
				 double lease, double lease_wait);
void jc_leases_close(struct jc_leases *e);
void jc_leases_set_keys(struct jc_leases *e, const struct jc_signer *signer,
			const struct jc_trust *trust, int trust_required);
/* The settings as the engine keeps them (bounded), for the kinds. */
double jc_leases_lease(const struct jc_leases *e);
double jc_leases_lease_wait(const struct jc_leases *e);
int jc_leases_trust_required(const struct jc_leases *e);
void *jc_leases_kind_handle(const struct jc_leases *e);

/* As jc_remote_wait (remote.h): look (consumed; NULL: none) is what a
 * lookup's jc_lease_looked() recorded. */
enum jc_remote_wait jc_lease_wait(struct jc_leases *e, const struct jc_key *key,
				  int64_t deadline_ns, struct jc_lease *look,
				  struct jc_lease **lease, struct jc_remote_value *v,
				  uint64_t delta[JC_NCOUNTERS]);
/* Stop renewing, and let go the lease (the kind's release) if this
 * process holds it; in a fork()ed child, or another's: only freed. */
void jc_lease_release(struct jc_lease *l);

/* tier.h's lease operations for a kind whose leases handle (its
 * leases_open()'s) is a struct jc_leases: its leases are the engine's,
 * passed through tier.h as struct jc_remote_lease. */
void jc_leases_tier_set_keys(void *z, const struct jc_signer *signer,
			     const struct jc_trust *trust, int trust_required);
enum jc_remote_wait jc_leases_tier_wait(void *z, const struct jc_key *key, int64_t deadline_ns,
					struct jc_remote_lease *look,
					struct jc_remote_lease **lease, struct jc_remote_value *v,
					uint64_t delta[JC_NCOUNTERS]);
void jc_leases_tier_release(struct jc_remote_lease *lease);

/* Sleep ns nanoseconds, a signal's interruption included (a kind's wait). */
void jc_lease_sleep(int64_t ns);

/* For a kind's combined requests (above). */
struct jc_lease *jc_lease_new(struct jc_leases *e, const struct jc_key *key);
/* Record what the lookup's take found (TAKEN: renewed from now on). */
void jc_lease_looked(struct jc_lease *l, enum jc_lease_take t);
int jc_lease_ours(const struct jc_lease *l);
int jc_lease_stop(struct jc_lease *l);
void jc_lease_free(struct jc_lease *l);
/* Another's token: 1 if trusted (above), 0 with *why. */
int jc_lease_trusted(const struct jc_leases *e, const char *name, const char *token,
		     const char **why);

#endif
