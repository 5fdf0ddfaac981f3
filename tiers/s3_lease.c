// SPDX-License-Identifier: MIT
/* s3_lease.c — compile leases as objects of an S3 bucket, taken and kept
 * with conditional writes.  See s3_lease.h. */
#include "tiers/s3_lease.h"
#include "tiers/client.h"
#include "tiers/lease.h"

#include "config/clock.h"
#include "config/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SUFFIX ".lease"

/* The kind's handle: the bucket's client. */
struct s3 {
	struct jc_http *h;
};

/* An S3 lease: the engine's, and what the bucket said of it. */
struct s3_lease {
	struct jc_lease l;
	char etag[80];    /* of our last write */
	unsigned seq;     /* of our writes: each body, so each ETag, is new */
	/* a waiter's: another's lease as last seen (its ETag, and when first
	 * seen with it, this machine's clock), the pause between looks at the
	 * value, the next look at the lease, and whether the create was just
	 * refused (the value looked at only after a pause) */
	char seen_etag[80];
	int64_t since_ns, pause, next_look;
	int refused;
};

/* The server ignores conditional writes (found by the first lease): no S3
 * lease is used in this process. */
static int ignored;

static struct jc_http *http_of(const struct jc_lease *l)
{
	return ((struct s3 *)jc_leases_kind_handle(l->e))->h;
}

/* ---- one lease ------------------------------------------------------------ */

static const char *const CREATE[] = { "If-None-Match: *", NULL };

/* Write the lease with the condition given (If-None-Match: *, or If-Match:
 * an ETag), its token token: 1 written (etag is its new one), 0 refused
 * (412: another's, or 409: another's write at the same moment; If-Match,
 * 404: gone), -1 failed (a create answered 404: no such bucket; any other
 * refusal). */
static int write_lease(struct s3_lease *sl, const char *const *cond, const char *token,
		       uint64_t delta[JC_NCOUNTERS])
{
	char body[JC_LEASE_TOKEN_MAX + 64];
	struct jc_http_answer a;
	/* who holds it (the token: signed with a signing key), the how-manieth
	 * write, and until when (ms since the epoch, the holder's clock: for
	 * people; waiters go by the server's clock and by the ETag, stale()) */
	int n = snprintf(body, sizeof body, "jitcache-lease-v1 %s %u %lld\n", token, ++sl->seq,
			 (long long)(jc_wall_ns() / 1000000 +
				     (int64_t)(jc_leases_lease(sl->l.e) * 1000)));
	if (jc_http_exchange(http_of(&sl->l), &sl->l.key, SUFFIX, "PUT", cond, body, (size_t)n, &a,
			     delta) != 0)
		return -1;
	if (a.code == 200 || a.code == 201 || a.code == 204) {
		snprintf(sl->etag, sizeof sl->etag, "%s", a.etag);
		return sl->etag[0] ? 1 : -1;
	}
	if (a.code == 412 || a.code == 409 || (a.code == 404 && cond != CREATE))
		return 0;
	JC_LOG_ONCE(JC_LOG_WARN, "remote S3: a compile lease cannot be written (HTTP %ld%s); "
		    "compiling here", a.code, a.code == 404 ? ": no such bucket?" : "");
	return -1;
}

static int write_if_match(struct s3_lease *sl, const char *etag, const char *token,
			  uint64_t delta[JC_NCOUNTERS])
{
	char line[100];
	const char *cond[] = { line, NULL };
	snprintf(line, sizeof line, "If-Match: %s", etag);
	return write_lease(sl, cond, token, delta);
}

/* The renewal: an overwrite of our own write only (If-Match). */
static int s3_renew(void *z, struct jc_lease *l, const char *next)
{
	struct s3_lease *sl = (struct s3_lease *)l;
	uint64_t delta[JC_NCOUNTERS] = { 0 };
	char etag[sizeof sl->etag];
	(void)z;
	memcpy(etag, sl->etag, sizeof etag);
	int renewed = write_if_match(sl, etag, next, delta); /* (a failure: tried again) */
	if (renewed == 0)
		sl->etag[0] = '\0'; /* taken over: not ours to delete */
	return renewed;
}

/* Delete the lease if it is still ours (If-Match). */
static void s3_release(void *z, struct jc_lease *l)
{
	struct s3_lease *sl = (struct s3_lease *)l;
	(void)z;
	if (!sl->etag[0])
		return;
	char line[100];
	const char *cond[] = { line, NULL };
	struct jc_http_answer a;
	uint64_t delta[JC_NCOUNTERS] = { 0 };
	snprintf(line, sizeof line, "If-Match: %s", sl->etag);
	jc_http_exchange(http_of(l), &l->key, SUFFIX, "DELETE", cond, NULL, 0, &a, delta);
}

static void s3_name_of(void *z, const struct jc_key *key, char out[JC_LEASE_NAME_MAX])
{
	(void)z;
	char hex[2 * JC_KEY_BYTES + 1];
	jc_key_hex(key, hex);
	snprintf(out, JC_LEASE_NAME_MAX, "s3:%s" SUFFIX, hex);
}

/* ---- waiting -------------------------------------------------------------- */

/* Is the lease a dead holder's?  By the server's clock: not written for
 * more than a lease time (and 2 s: Last-Modified counts whole seconds); by
 * ours: the same ETag for lease_wait seconds. */
static int stale(struct s3_lease *sl, const struct jc_http_answer *a)
{
	int64_t now = jc_wall_ns();
	if (strcmp(sl->seen_etag, a->etag) != 0) {
		snprintf(sl->seen_etag, sizeof sl->seen_etag, "%s", a->etag);
		sl->since_ns = now;
	}
	if (a->date && a->last_modified &&
	    (double)(a->date - a->last_modified) > jc_leases_lease(sl->l.e) + 2)
		return 1;
	return now - sl->since_ns >= (int64_t)(jc_leases_lease_wait(sl->l.e) * 1e9);
}

/* Our create succeeded: would a second one?  On a server that honours
 * conditions it is refused (412); asked once per process.  1: it was. */
static int conditions_kept(struct s3_lease *sl, uint64_t delta[JC_NCOUNTERS])
{
	static int checked;
	if (__atomic_exchange_n(&checked, 1, __ATOMIC_ACQ_REL))
		return 1;
	char ours[sizeof sl->etag];
	memcpy(ours, sl->etag, sizeof ours);
	int again = write_lease(sl, CREATE, sl->l.token, delta);
	if (again <= 0) { /* (no answer: the lease is ours all the same) */
		memcpy(sl->etag, ours, sizeof ours);
		return 1;
	}
	__atomic_store_n(&ignored, 1, __ATOMIC_RELAXED);
	jc_log(JC_LOG_WARN, "remote S3: the server ignores conditional writes (a second "
	       "If-None-Match: * PUT succeeded); it cannot hold compile leases, so machines "
	       "that share only it may compile the same kernel at once (a Redis remote listed "
	       "beside it holds them)");
	return 0;
}

/* The waiter's pause between looks at the value: 50 ms, doubling to a
 * twentieth of the lease (at least 50 ms, at most 1 s: a value stored is
 * found that late at most); and between looks at the lease (its ETag, for
 * a dead holder's; gone, for one released without a value): a fifth of
 * the lease or of lease_wait, 0.1 s at least. */
static int64_t pause_most(const struct jc_leases *e)
{
	double most = jc_leases_lease(e) / 20;
	return (int64_t)((most < 0.05 ? 0.05 : most > 1 ? 1 : most) * 1e9);
}

static int64_t look_every(const struct jc_leases *e)
{
	double lease = jc_leases_lease(e), wait = jc_leases_lease_wait(e);
	double every = (lease < wait ? lease : wait) / 5;
	return (int64_t)((every < 0.1 ? 0.1 : every) * 1e9);
}

/* Create the lease (only if absent).  Taken: unless the value is there by
 * now (a holder stored it and let go since our lookup), or the server
 * turns out to ignore conditions. */
static enum jc_lease_take create(struct s3_lease *sl, struct jc_remote_value *v,
				 uint64_t delta[JC_NCOUNTERS])
{
	int wrote = write_lease(sl, CREATE, sl->l.token, delta);
	if (wrote < 0)
		return JC_LEASE_FAILED;
	if (wrote == 0)
		return JC_LEASE_HELD;
	if (!conditions_kept(sl, delta)) {
		s3_release(NULL, &sl->l); /* taken where conditions are ignored: not a lease */
		return JC_LEASE_NONE;
	}
	if (jc_http_get(http_of(&sl->l), &sl->l.key, v, delta) == 1) {
		s3_release(NULL, &sl->l); /* stored since our lookup: no compile */
		return JC_LEASE_READY;
	}
	return JC_LEASE_TAKEN;
}

/* One look at another's lease (HEAD; GET where its token is to be judged,
 * trusted_keys): gone, the value looked at, then the lease created again;
 * a dead holder's, taken over (one waiter wins: If-Match its ETag); else
 * held. */
static enum jc_lease_take look_at_lease(struct s3_lease *sl, struct jc_remote_value *v,
					uint64_t delta[JC_NCOUNTERS])
{
	struct jc_lease *l = &sl->l;
	struct jc_http_answer a;
	sl->next_look = jc_wall_ns() + look_every(l->e);
	if (jc_http_exchange(http_of(l), &l->key, SUFFIX, l->need_token ? "GET" : "HEAD", NULL,
			     NULL, 0, &a, delta) != 0)
		return JC_LEASE_FAILED;
	if (a.code == 404) { /* released, or never there */
		/* A holder stores the value before it lets go: looked at first,
		 * the value found here spares a lease created and deleted for
		 * nothing (a waiter whose look at the lease came before its
		 * look at the value cost 4 more requests; fleet_s3.sh). */
		int got = jc_http_get(http_of(l), &l->key, v, delta);
		if (got != 0)
			return got > 0 ? JC_LEASE_READY : JC_LEASE_FAILED;
		return create(sl, v, delta);
	}
	if (a.code != 200)
		return JC_LEASE_FAILED; /* (said by neither: not a failure of the server's) */
	if (l->need_token && sscanf(a.body, "jitcache-lease-v1 %319s", l->seen) != 1)
		l->seen[0] = '\0';
	if (stale(sl, &a) && a.etag[0]) {
		int wrote = write_if_match(sl, a.etag, l->token, delta);
		if (wrote > 0) {
			JC_LOG_ONCE(JC_LOG_INFO, "remote S3: another machine's compile lease was "
				    "not renewed (lease, lease_wait): taken over, compiling here");
			return JC_LEASE_TAKEN;
		}
		if (wrote < 0)
			return JC_LEASE_FAILED;
		sl->seen_etag[0] = '\0'; /* another took it over: watch the new holder */
	}
	return JC_LEASE_HELD;
}

/* The first try creates the lease; refused (another's), the lease is
 * looked at after a fifth of a lease (at once where its token is to be
 * judged); every later try looks at it. */
static enum jc_lease_take s3_try_take(void *z, struct jc_lease *l, int first,
				      struct jc_remote_value *v, uint64_t delta[JC_NCOUNTERS])
{
	struct s3_lease *sl = (struct s3_lease *)l;
	(void)z;
	if (!first)
		return look_at_lease(sl, v, delta);
	if (__atomic_load_n(&ignored, __ATOMIC_RELAXED))
		return JC_LEASE_NONE;
	sl->pause = 50000000;
	enum jc_lease_take t = create(sl, v, delta);
	if (t != JC_LEASE_HELD)
		return t;
	sl->refused = 1; /* another's, just seen: the value is looked at after a pause */
	sl->next_look = jc_wall_ns() + look_every(l->e);
	return l->need_token ? look_at_lease(sl, v, delta) : JC_LEASE_HELD;
}

/* Look at the value (a GET, which brings it once stored: one request a
 * look) with a growing pause, until the next look at the lease. */
static enum jc_remote_wait s3_wait_hint(void *z, struct jc_lease *l, int64_t deadline_ns,
					struct jc_remote_value *v, uint64_t delta[JC_NCOUNTERS])
{
	struct s3_lease *sl = (struct s3_lease *)l;
	int64_t most = pause_most(l->e);
	(void)z;
	for (;;) {
		int found = sl->refused ? 0 : jc_http_get(http_of(l), &l->key, v, delta);
		if (found)
			return found > 0 ? JC_REMOTE_READY : JC_REMOTE_FAILED;
		int64_t left = deadline_ns - jc_wall_ns();
		if (left <= 0)
			return JC_REMOTE_TIMEOUT;
		jc_lease_sleep(sl->pause < left ? sl->pause : left);
		if (!sl->refused)
			sl->pause = sl->pause * 2 < most ? sl->pause * 2 : most;
		sl->refused = 0;
		if (jc_wall_ns() >= sl->next_look)
			return JC_REMOTE_TIMEOUT;
	}
}

static const struct jc_lease_kind s3_kind = {
	.name = "S3",
	.size = sizeof(struct s3_lease),
	.name_of = s3_name_of,
	.try_take = s3_try_take,
	.renew = s3_renew,
	.release = s3_release,
	.wait_hint = s3_wait_hint,
};

struct jc_leases *jc_s3_leases_open(struct jc_http *h, double lease, double lease_wait)
{
	if (!h || !jc_http_is_s3(h))
		return NULL;
	struct s3 *s = calloc(1, sizeof *s);
	struct jc_leases *e = s ? jc_leases_open(&s3_kind, s, jc_http_url(h), lease, lease_wait) : NULL;
	if (!e) {
		free(s);
		return NULL;
	}
	s->h = h;
	return e;
}

void jc_s3_leases_close(struct jc_leases *e)
{
	if (e)
		free(jc_leases_kind_handle(e));
	jc_leases_close(e);
}
