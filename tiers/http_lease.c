// SPDX-License-Identifier: MIT
/* http_lease.c — compile leases on a WebDAV server: an exclusive write lock
 * (RFC 4918 LOCK) on a small file per key, renewed while its holder
 * compiles: the WebDAV kind of the lease engine (lease.h).  See http.h
 * ("compile leases through WebDAV LOCK"). */
#include "tiers/http.h"
#include "tiers/client.h"
#include "tiers/lease.h"

#include "config/clock.h"
#include "config/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The kind's handle. */
struct jc_http_leases {
	struct jc_http *h;
	double lease;   /* seconds asked for (Timeout); renewed every third of it */
	double backoff; /* seconds no lease is asked after a failed look */
	int64_t skip_until; /* jc_mono_ns(): none asked before then: atomic */
	int none;       /* the server has no LOCK (403, 405, 501): atomic */
	int dir_made;   /* PATH/leases/ is known to exist: atomic */
	int told_odd;   /* an answer that is no lease's said: atomic */
};

/* A WebDAV lease: the engine's, the lock's token, and a waiter's pace. */
struct dav_lease {
	struct jc_lease l;
	char lock[128];      /* "<urn:...>": the Lock-Token */
	char if_line[160];   /* "If: (<urn:...>)" */
	int64_t pause, next_lock; /* between looks at the value; the next LOCK */
};

/* ---- one look ------------------------------------------------------------------ */

enum take { TAKEN, HELD, NONE, FAILED, ON /* make_dir(): go on to the LOCK */ };

static void say_odd(struct jc_http_leases *z, const char *what, long code)
{
	if (jc_log_first(&z->told_odd))
		jc_log(JC_LOG_INFO, "remote %s: %s answered HTTP %ld, not a lease's answer; "
		       "compiling without waiting for other machines", jc_http_url(z->h), what, code);
}

/* The lock's lifetime the server granted (<D:timeout>Second-N), in seconds;
 * 0 if it does not say (or says Infinite). */
static double granted(const char *body)
{
	const char *t = strstr(body, "Second-");
	return t ? strtod(t + 7, NULL) : 0;
}

/* Renew every third of the lease we asked for, or of the one granted if
 * shorter (nginx's dav-ext grants its lock zone's timeout whatever is asked). */
static void set_period(struct dav_lease *d, const struct jc_http_leases *z, const char *body)
{
	double s = z->lease, server = granted(body);
	if (server > 0 && server < s)
		s = server;
	d->l.period_ns = (int64_t)(s / 3 * 1e9);
	if (d->l.period_ns < 100000000)
		d->l.period_ns = 100000000;
}

/* The server holds no leases for us: said once, and not asked again. */
static enum take no_leases(struct jc_http_leases *z, const char *what, long code)
{
	if (jc_log_first(&z->none))
		jc_log(JC_LOG_INFO, "remote %s holds no compile leases (%s: HTTP %ld; nginx needs "
		       "dav-ext's LOCK, docs/fleets.md): machines that miss the same kernel at "
		       "once each compile it", jc_http_url(z->h), what, code);
	return NONE;
}

/* What PATH/leases/README says: why a LOCK is sent there before any. */
static const char readme[] =
	"jitcache's compile leases: WebDAV locks on the files here, one per kernel being compiled "
	"(see jitcache's docs/fleets.md).\n";

/* Make PATH/leases/ (PUT of its README) before the first LOCK there: nginx's
 * dav-ext adds a lock before it creates the file, and keeps it when that
 * fails (409, no directory), for nobody, for its whole timeout. */
static enum take make_dir(struct jc_http_leases *z, const struct jc_key *key,
			  uint64_t delta[JC_NCOUNTERS])
{
	struct jc_http_answer a;
	if (__atomic_load_n(&z->dir_made, __ATOMIC_RELAXED))
		return ON;
	long code = jc_http_request(z->h, "PUT", key, JC_HTTP_README, NULL, readme,
				    sizeof readme - 1, &a, delta);
	if (code >= 200 && code <= 299) {
		__atomic_store_n(&z->dir_made, 1, __ATOMIC_RELAXED);
		return ON;
	}
	if (code >= 400 && code <= 499) /* it takes no file there: no leases */
		return no_leases(z, "PUT of leases/README", code);
	if (code > 0)
		say_odd(z, "PUT of leases/README", code);
	return FAILED;
}

/* Write who holds the lease into its file, the lock's token with it: for
 * whoever wonders who compiles, and for a waiter that judges the token
 * (trusted_keys): its second line. */
static void write_note(struct jc_http_leases *z, struct dav_lease *d, const char *token,
		       uint64_t delta[JC_NCOUNTERS])
{
	char host[64] = "?", note[JC_LEASE_TOKEN_MAX + 128];
	struct jc_http_answer a;
	gethostname(host, sizeof host - 1);
	int n = snprintf(note, sizeof note, "jitcache compile lease: %s pid %d\n%s\n", host,
			 (int)getpid(), token);
	const char *if_token[] = { d->if_line, NULL };
	jc_http_request(z->h, "PUT", &d->l.key, JC_HTTP_LEASE, if_token, note, (size_t)n, &a,
			delta);
}

/* Take the lease: LOCK its file (made by the LOCK if new), and write who
 * holds it into it. */
static enum take take(struct jc_http_leases *z, struct dav_lease *d,
		      uint64_t delta[JC_NCOUNTERS])
{
	struct jc_http_answer a;
	char host[64] = "?", owner[256], timeout[48];
	enum take made = make_dir(z, &d->l.key, delta);
	if (made != ON)
		return made;
	gethostname(host, sizeof host - 1);
	snprintf(owner, sizeof owner,
		 "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
		 "<D:lockinfo xmlns:D=\"DAV:\"><D:lockscope><D:exclusive/></D:lockscope>"
		 "<D:locktype><D:write/></D:locktype><D:owner>jitcache %s pid %d</D:owner>"
		 "</D:lockinfo>\n", host, (int)getpid());
	snprintf(timeout, sizeof timeout, "Timeout: Second-%.0f", z->lease);
	const char *headers[] = { timeout, "Content-Type: application/xml; charset=utf-8",
				  "Depth: 0", NULL };
	long code = jc_http_request(z->h, "LOCK", &d->l.key, JC_HTTP_LEASE, headers, owner,
				    strlen(owner), &a, delta);
	if ((code == 200 || code == 201) && a.lock_token[0]) {
		snprintf(d->lock, sizeof d->lock, "%s", a.lock_token);
		snprintf(d->if_line, sizeof d->if_line, "If: (%s)", d->lock);
		set_period(d, z, a.body);
		write_note(z, d, d->l.token, delta);
		return TAKEN;
	}
	if (code == 423)
		return HELD;
	/* no WebDAV locks (405, 501, or any refusal), or none for us (403) */
	if ((code >= 400 && code <= 499 && code != 409 && code != 412) || code == 501)
		return no_leases(z, "LOCK", code);
	if (code == 409) /* PATH/leases/ went away: made again next time */
		__atomic_store_n(&z->dir_made, 0, __ATOMIC_RELAXED);
	if (code > 0)
		say_odd(z, "LOCK", code);
	return FAILED;
}

/* Give the lock back: DELETE the file with the token (it goes with its
 * lock), or UNLOCK where DELETE is not allowed.  A lock that expired and
 * was taken by another is not ours: its 423 is left alone. */
static void dav_release(void *zv, struct jc_lease *l)
{
	struct jc_http_leases *z = zv;
	struct dav_lease *d = (struct dav_lease *)l;
	uint64_t delta[JC_NCOUNTERS] = { 0 };
	struct jc_http_answer a;
	const char *if_token[] = { d->if_line, NULL };
	long code = jc_http_request(z->h, "DELETE", &l->key, JC_HTTP_LEASE, if_token, NULL, 0,
				    &a, delta);
	if (code == 405 || code == 403 || code == 501) {
		char line[160];
		snprintf(line, sizeof line, "Lock-Token: %s", d->lock);
		const char *unlock[] = { line, NULL };
		jc_http_request(z->h, "UNLOCK", &l->key, JC_HTTP_LEASE, unlock, NULL, 0, &a,
				delta);
	}
}

/* 1 renewed (or taken again: a lock that lapsed, as dav-ext does), 0 lost to
 * another machine, -1 no answer (tried again next time).  A signed token
 * (new at each renewal) is written into the file again. */
static int dav_renew(void *zv, struct jc_lease *l, const char *next)
{
	struct jc_http_leases *z = zv;
	struct dav_lease *d = (struct dav_lease *)l;
	uint64_t delta[JC_NCOUNTERS] = { 0 };
	struct jc_http_answer a;
	char timeout[48];
	snprintf(timeout, sizeof timeout, "Timeout: Second-%.0f", z->lease);
	const char *headers[] = { d->if_line, timeout, NULL };
	long code = jc_http_request(z->h, "LOCK", &l->key, JC_HTTP_LEASE, headers, NULL, 0,
				    &a, delta);
	/* (the token is this thread's until the release: the engine keeps it out) */
	if ((code == 200 || code == 201) && a.lock_token[0] && strcmp(a.lock_token, d->lock)) {
		snprintf(d->lock, sizeof d->lock, "%s", a.lock_token);
		snprintf(d->if_line, sizeof d->if_line, "If: (%s)", d->lock);
	}
	if ((code == 200 || code == 201) && strcmp(next, l->token) != 0)
		write_note(z, d, next, delta);
	return code == 200 || code == 201 ? 1 : code < 0 ? -1 : 0;
}

/* ---- waiting ------------------------------------------------------------------------ */

/* Another's token, the second line of its file (trusted_keys): a holder
 * writes it just after its LOCK, so a file still empty is read again for
 * up to a second; "" if none.  0 if the file is gone (released: the lease
 * may be taken), else 1. */
static int read_token(struct jc_http_leases *z, struct jc_lease *l,
		      uint64_t delta[JC_NCOUNTERS])
{
	l->seen[0] = '\0';
	for (int tries = 0; tries < 10 && !l->seen[0]; tries++) {
		struct jc_http_answer a;
		if (tries)
			jc_lease_sleep(100000000);
		long code = jc_http_request(z->h, "GET", &l->key, JC_HTTP_LEASE, NULL, NULL, 0, &a,
					    delta);
		if (code == 404)
			return 0;
		const char *nl = code == 200 ? strchr(a.body, '\n') : NULL;
		if (code != 200)
			return 1;
		if (nl && sscanf(nl + 1, "%319s", l->seen) != 1)
			l->seen[0] = '\0';
	}
	return 1;
}

static void failed(struct jc_http_leases *z)
{
	/* (no answer, or not a lease's: each miss would wait for it again) */
	int64_t until = jc_mono_ns() + (int64_t)(z->backoff * 1e9);
	__atomic_store_n(&z->skip_until, until, __ATOMIC_RELAXED);
}

/* Take the lease; JC_LEASE_READY (v filled) where the holder before
 * stored the value and let go just before.  A lock is waited for while
 * the server keeps it, which is while its holder renews it (a dead
 * holder's expires by the server's timeout). */
static enum jc_lease_take dav_try_take(void *zv, struct jc_lease *l, int first,
				       struct jc_remote_value *v, uint64_t delta[JC_NCOUNTERS])
{
	struct jc_http_leases *z = zv;
	struct dav_lease *d = (struct dav_lease *)l;
	if (first && __atomic_load_n(&z->none, __ATOMIC_RELAXED))
		return JC_LEASE_NONE;
	if (first && jc_mono_ns() < __atomic_load_n(&z->skip_until, __ATOMIC_RELAXED))
		return JC_LEASE_FAILED; /* a look failed a moment ago: compile here */
	if (first)
		d->pause = 50000000;
	int64_t lock_every = (int64_t)(z->lease / 5 * 1e9);
	d->next_lock = jc_wall_ns() + (lock_every < 200000000 ? 200000000 : lock_every);
	enum take t = take(z, d, delta);
	if (t == HELD && l->need_token && !read_token(z, l, delta)) {
		t = take(z, d, delta); /* let go meanwhile: once more */
		if (t == HELD)
			read_token(z, l, delta);
	}
	if (t == TAKEN) {
		if (jc_http_get(z->h, &l->key, v, delta) != 1)
			return JC_LEASE_TAKEN;
		dav_release(z, l);
		return JC_LEASE_READY;
	}
	if (t == FAILED)
		failed(z);
	return t == NONE ? JC_LEASE_NONE : t == HELD ? JC_LEASE_HELD : JC_LEASE_FAILED;
}

/* The waiter's pause between looks at the value: 50 ms, doubling to a
 * twentieth of the lease (at least 50 ms, at most 1 s: a value stored is
 * found that late at most); and between LOCKs, which find a dead holder's
 * lock gone once the server dropped it (a lease time after its last
 * renewal): a fifth of the lease, 0.2 s at least. */
static int64_t pause_most(double lease)
{
	double s = lease / 20;
	return (int64_t)((s < 0.05 ? 0.05 : s > 1 ? 1 : s) * 1e9);
}

/* Look at the value (a GET, which brings it once it is there: once the
 * holder is done, the waiters find it without taking the lease) with a
 * growing pause, until the next LOCK. */
static enum jc_remote_wait dav_wait_hint(void *zv, struct jc_lease *l, int64_t deadline_ns,
					 struct jc_remote_value *v, uint64_t delta[JC_NCOUNTERS])
{
	struct jc_http_leases *z = zv;
	struct dav_lease *d = (struct dav_lease *)l;
	int64_t most = pause_most(z->lease);
	for (;;) {
		int64_t left = deadline_ns - jc_wall_ns();
		if (left <= 0)
			return JC_REMOTE_TIMEOUT;
		jc_lease_sleep(d->pause < left ? d->pause : left);
		d->pause = d->pause * 2 < most ? d->pause * 2 : most;
		int found = jc_http_get(z->h, &l->key, v, delta);
		if (found < 0)
			failed(z);
		if (found)
			return found > 0 ? JC_REMOTE_READY : JC_REMOTE_FAILED;
		if (jc_wall_ns() >= d->next_lock)
			return JC_REMOTE_TIMEOUT;
	}
}

static void dav_name_of(void *z, const struct jc_key *key, char out[JC_LEASE_NAME_MAX])
{
	char hex[2 * JC_KEY_BYTES + 1];
	(void)z;
	jc_key_hex(key, hex);
	snprintf(out, JC_LEASE_NAME_MAX, "webdav:leases/%s", hex);
}

static const struct jc_lease_kind dav_kind = {
	.name = "WebDAV",
	.size = sizeof(struct dav_lease),
	.name_of = dav_name_of,
	.try_take = dav_try_take,
	.renew = dav_renew,
	.release = dav_release,
	.wait_hint = dav_wait_hint,
};

struct jc_leases *jc_http_leases_open(struct jc_http *h, double lease, double backoff,
				      double lease_wait)
{
	struct jc_http_leases *z = h && !jc_http_is_s3(h) ? calloc(1, sizeof *z) : NULL;
	if (!z)
		return NULL;
	z->h = h;
	z->lease = lease >= 1 ? (lease < 86400 ? lease : 86400) : 1; /* also NaN */
	z->backoff = backoff > 0 ? (backoff < 86400 ? backoff : 86400) : 0;
	struct jc_leases *e = jc_leases_open(&dav_kind, z, jc_http_url(h), z->lease, lease_wait);
	if (!e)
		free(z);
	return e;
}

void jc_http_leases_close(struct jc_leases *e)
{
	if (e)
		free(jc_leases_kind_handle(e));
	jc_leases_close(e);
}
