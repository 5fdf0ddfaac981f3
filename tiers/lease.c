// SPDX-License-Identifier: MIT
/* lease.c — the one lease engine: the wait, one renewal thread per process,
 * fork rules and signed tokens, over each kind's primitives.  See lease.h. */
#include "tiers/lease.h"
#include "tiers/client.h"

#include "config/clock.h"
#include "config/log.h"
#include "trust/sign.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define NOTE_DOMAIN "jitcache-lease-v1"

struct jc_leases {
	const struct jc_lease_kind *kind;
	void *z;
	const char *shown;
	double lease, lease_wait;        /* seconds */
	const struct jc_signer *signer;  /* signs this node's leases; or NULL */
	const struct jc_trust *trust;    /* with trust_required: the leases waited for */
	int trust_required;
};

struct jc_leases *jc_leases_open(const struct jc_lease_kind *kind, void *z, const char *shown,
				 double lease, double lease_wait)
{
	struct jc_leases *e = calloc(1, sizeof *e);
	if (!e)
		return NULL;
	e->kind = kind;
	e->z = z;
	e->shown = shown;
	e->lease = lease > 0.1 ? (lease < 1e6 ? lease : 1e6) : 0.1; /* also NaN */
	e->lease_wait = lease_wait > 0 ? (lease_wait < 1e6 ? lease_wait : 1e6) : 0;
	return e;
}

void jc_leases_close(struct jc_leases *e)
{
	free(e);
}

void jc_leases_set_keys(struct jc_leases *e, const struct jc_signer *signer,
			const struct jc_trust *trust, int trust_required)
{
	if (!e)
		return;
	e->signer = signer;
	e->trust = trust;
	e->trust_required = trust_required;
}

double jc_leases_lease(const struct jc_leases *e)
{
	return e->lease;
}

double jc_leases_lease_wait(const struct jc_leases *e)
{
	return e->lease_wait;
}

int jc_leases_trust_required(const struct jc_leases *e)
{
	return e->trust_required;
}

void *jc_leases_kind_handle(const struct jc_leases *e)
{
	return e->z;
}

/* ---- tokens ------------------------------------------------------------------------- */

static long long lease_ms(const struct jc_leases *e)
{
	return (long long)(e->lease * 1000);
}

/* What a token's signature covers: the lease's name, and the token's
 * first len bytes.  The length, or -1 if it does not fit. */
static int message(char msg[JC_LEASE_NAME_MAX + JC_LEASE_TOKEN_MAX], const char *name,
		   const char *token, int len)
{
	int m = snprintf(msg, JC_LEASE_NAME_MAX + JC_LEASE_TOKEN_MAX, "%s\n%.*s", name, len, token);
	return m < 0 || m >= JC_LEASE_NAME_MAX + JC_LEASE_TOKEN_MAX ? -1 : m;
}

/* Who holds the lease and since when; with a signing key, signed. */
static void make_token(const struct jc_lease *l, char out[JC_LEASE_TOKEN_MAX])
{
	const struct jc_leases *e = l->e;
	int n = snprintf(out, JC_LEASE_TOKEN_MAX, "%s/%lld", l->holder,
			 (long long)(jc_wall_ns() / 1000000));
	if (!e->signer || n < 0 || n >= JC_LEASE_TOKEN_MAX - 2 * JC_SIG_TRAILER_SIZE - 2)
		return;
	char msg[JC_LEASE_NAME_MAX + JC_LEASE_TOKEN_MAX];
	int m = message(msg, l->name, out, n);
	if (m < 0)
		return;
	uint8_t sig[JC_SIG_TRAILER_SIZE];
	jc_sign_note(e->signer, NOTE_DOMAIN, msg, (size_t)m, sig);
	char *p = out + n;
	*p++ = '/';
	for (size_t i = 0; i < sizeof sig; i++, p += 2)
		snprintf(p, 3, "%02x", sig[i]);
}

int jc_lease_trusted(const struct jc_leases *e, const char *name, const char *token,
		     const char **why)
{
	const char *slash = strrchr(token, '/');
	uint8_t sig[JC_SIG_TRAILER_SIZE];
	if (!slash || strlen(slash + 1) != 2 * sizeof sig)
		return *why = "not signed", 0;
	for (size_t i = 0; i < sizeof sig; i++) {
		unsigned v;
		if (sscanf(slash + 1 + 2 * i, "%2x", &v) != 1)
			return *why = "not signed", 0;
		sig[i] = (uint8_t)v;
	}
	const char *ms_at = slash;
	while (ms_at > token && ms_at[-1] != '/')
		ms_at--;
	long long since = strtoll(ms_at, NULL, 10), now = (long long)(jc_wall_ns() / 1000000);
	char msg[JC_LEASE_NAME_MAX + JC_LEASE_TOKEN_MAX];
	int m = message(msg, name, token, (int)(slash - token));
	if (m < 0 || jc_trust_verify_note(e->trust, NOTE_DOMAIN, msg, (size_t)m, sig, why) != 0)
		return 0;
	if (now - since > lease_ms(e) + 5000 || since - now > 5000)
		return *why = "signed, but not renewed within a lease time", 0;
	return 1;
}

/* ---- one lease ---------------------------------------------------------------------- */

struct jc_lease *jc_lease_new(struct jc_leases *e, const struct jc_key *key)
{
	struct jc_lease *l = e ? calloc(1, e->kind->size) : NULL;
	if (!l)
		return NULL;
	char host[64] = "?";
	uint64_t nonce;
	gethostname(host, sizeof host - 1);
	host[strcspn(host, " \n/")] = '\0';
	if (getrandom(&nonce, sizeof nonce, GRND_NONBLOCK) != sizeof nonce)
		nonce = (uint64_t)jc_wall_ns() ^ (uint64_t)getpid() << 32;
	l->e = e;
	l->key = *key;
	l->pid = getpid();
	l->state = -1;
	l->period_ns = (int64_t)(e->lease * 1e9 / 3);
	l->need_token = e->trust_required;
	e->kind->name_of(e->z, key, l->name);
	snprintf(l->holder, sizeof l->holder, "%s/%d/%016llx", host, (int)l->pid,
		 (unsigned long long)nonce);
	make_token(l, l->token);
	return l;
}

/* ---- the renewal thread ------------------------------------------------------------- */

/* Every lease this process holds, renewed by one thread.  running: the
 * thread exists (started by the first hold); stopping: the last lease
 * went, and the releaser joins it. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv;        /* the thread's wake-up, and a release's wait */
static int cv_made;
static struct jc_lease *held;
static int running, stopping;
static pthread_t thread;

static void fork_prepare(void)
{
	pthread_mutex_lock(&mu);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&mu);
}

/* The child has no renewal thread, and renews none of its parent's leases
 * (their copies are only freed: jc_lease_release). */
static void fork_child(void)
{
	held = NULL;
	running = stopping = 0;
	/* mu was taken by fork_prepare() on this very thread: unlocked, not
	 * made anew, so that a checker (TSan) sees it released (as remote.c). */
	jc_cond_init_mono(&cv);
	pthread_mutex_unlock(&mu);
}

static void once(void)
{
	jc_cond_init_mono(&cv);
	cv_made = 1;
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* The earliest renewal due, or NULL. */
static struct jc_lease *earliest(void)
{
	struct jc_lease *first = NULL;
	for (struct jc_lease *l = held; l; l = l->next)
		if (!first || l->next_ns < first->next_ns)
			first = l;
	return first;
}

static void unlist(struct jc_lease *l)
{
	for (struct jc_lease **p = &held; *p; p = &(*p)->next)
		if (*p == l) {
			*p = l->next;
			break;
		}
	l->listed = 0;
}

/* Renew l (taken off the lock; l->busy keeps its release waiting). */
static void renew_one(struct jc_lease *l)
{
	const struct jc_leases *e = l->e;
	char next[JC_LEASE_TOKEN_MAX];
	memcpy(next, l->token, sizeof next);
	if (e->signer)
		make_token(l, next); /* dated now: a waiter trusts it a lease time */
	l->busy = 1;
	pthread_mutex_unlock(&mu);
	int renewed = e->kind->renew(e->z, l, next);
	pthread_mutex_lock(&mu);
	l->busy = 0;
	if (renewed > 0)
		memcpy(l->token, next, sizeof next);
	l->next_ns = jc_mono_ns() + l->period_ns;
	if (renewed == 0) {
		JC_LOG_ONCE(JC_LOG_INFO, "remote %s: a compile lease expired before it could be "
			    "renewed; another machine may compile the same kernel", e->shown);
		l->lost = 1;
		unlist(l);
	}
	pthread_cond_broadcast(&cv);
}

static void *renew_loop(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	while (!stopping) {
		struct jc_lease *l = earliest();
		int64_t now = jc_mono_ns();
		if (l && l->next_ns <= now) {
			renew_one(l);
			continue;
		}
		if (!l) {
			pthread_cond_wait(&cv, &mu);
			continue;
		}
		struct timespec until = { l->next_ns / 1000000000, l->next_ns % 1000000000 };
		pthread_cond_timedwait(&cv, &mu, &until);
	}
	pthread_mutex_unlock(&mu);
	return NULL;
}

/* Hold l: renewed from now on, by the thread (started if none runs). */
static void hold(struct jc_lease *l)
{
	static pthread_once_t made = PTHREAD_ONCE_INIT;
	pthread_once(&made, once);
	pthread_mutex_lock(&mu);
	while (stopping) /* the last holder's release joins the thread */
		pthread_cond_wait(&cv, &mu);
	if (!running && !(running = jc_thread_start(&thread, renew_loop, NULL)))
		JC_LOG_ONCE(JC_LOG_INFO, "cannot start a thread to renew compile leases; a "
			    "compile longer than the lease may be repeated on another machine");
	l->next_ns = jc_mono_ns() + l->period_ns;
	l->next = held;
	held = l;
	l->listed = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

int jc_lease_ours(const struct jc_lease *l)
{
	return l && l->state == JC_LEASE_TAKEN && l->pid == getpid();
}

int jc_lease_stop(struct jc_lease *l)
{
	if (!jc_lease_ours(l))
		return 0;
	if (!cv_made)
		return 1;
	pthread_mutex_lock(&mu);
	while (l->busy)
		pthread_cond_wait(&cv, &mu);
	if (l->listed)
		unlist(l);
	int last = running && !held && !stopping;
	if (last)
		stopping = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	if (last) { /* nothing left to renew: the thread ends */
		pthread_join(thread, NULL);
		pthread_mutex_lock(&mu);
		running = stopping = 0;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
	return 1;
}

void jc_lease_free(struct jc_lease *l)
{
	free(l);
}

void jc_lease_release(struct jc_lease *l)
{
	if (!l)
		return;
	if (jc_lease_stop(l)) /* (one lost: the kind's compare-and-delete finds it not ours) */
		l->e->kind->release(l->e->z, l);
	free(l);
}

void jc_lease_looked(struct jc_lease *l, enum jc_lease_take t)
{
	l->state = (int)t;
	if (t == JC_LEASE_TAKEN)
		hold(l);
}

/* ---- the wait ----------------------------------------------------------------------- */

void jc_lease_sleep(int64_t ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
	}
}

/* Another's lease, held: may it be waited for? */
static int trusted(struct jc_lease *l)
{
	const struct jc_leases *e = l->e;
	const char *why = "";
	if (!e->trust_required || jc_lease_trusted(e, l->name, l->seen, &why))
		return 1;
	JC_LOG_ONCE(JC_LOG_WARN, "remote %s: a compile lease is not waited for (%s; "
		    "trusted_keys): compiling here", e->shown, why);
	return 0;
}

static enum jc_remote_wait outcome(enum jc_lease_take t)
{
	switch (t) {
	case JC_LEASE_TAKEN:
		return JC_REMOTE_LEASED;
	case JC_LEASE_READY:
		return JC_REMOTE_READY;
	case JC_LEASE_NONE:
		return JC_REMOTE_FREE;
	case JC_LEASE_HELD:
		return JC_REMOTE_TIMEOUT;
	default:
		return JC_REMOTE_FAILED;
	}
}

/* Try to take it, and while another holds it (one we trust), wait its
 * kind's way, until the deadline (lock_timeout). */
enum jc_remote_wait jc_lease_wait(struct jc_leases *e, const struct jc_key *key,
				  int64_t deadline_ns, struct jc_lease *look,
				  struct jc_lease **lease, struct jc_remote_value *v,
				  uint64_t delta[JC_NCOUNTERS])
{
	*lease = NULL;
	memset(v, 0, sizeof *v);
	if (look && (look->e != e || look->pid != getpid() || look->state < 0)) {
		jc_lease_release(look);
		look = NULL;
	}
	if (!e) {
		jc_lease_release(look);
		return JC_REMOTE_FAILED;
	}
	struct jc_lease *l = look ? look : jc_lease_new(e, key);
	if (!l)
		return JC_REMOTE_FAILED;
	enum jc_lease_take t = look ? (enum jc_lease_take)look->state
		: e->kind->try_take(e->z, l, 1, v, delta);
	enum jc_remote_wait w = outcome(t);
	while (t == JC_LEASE_HELD) {
		if (!trusted(l)) {
			w = JC_REMOTE_FREE;
			break;
		}
		if (jc_wall_ns() >= deadline_ns)
			break;
		w = e->kind->wait_hint(e->z, l, deadline_ns, v, delta);
		if (w != JC_REMOTE_TIMEOUT || jc_wall_ns() >= deadline_ns)
			break;
		if (e->signer)
			make_token(l, l->token); /* signed as of now */
		t = e->kind->try_take(e->z, l, 0, v, delta);
		w = outcome(t);
	}
	if (w == JC_REMOTE_LEASED) {
		if (l->state != JC_LEASE_TAKEN) /* (a look's: held already) */
			jc_lease_looked(l, JC_LEASE_TAKEN);
		*lease = l;
	} else {
		l->state = -1; /* not ours: only freed */
		jc_lease_release(l);
	}
	return w;
}

/* ---- as tier.h's operations ---------------------------------------------------------- */

void jc_leases_tier_set_keys(void *z, const struct jc_signer *signer,
			     const struct jc_trust *trust, int trust_required)
{
	jc_leases_set_keys(z, signer, trust, trust_required);
}

enum jc_remote_wait jc_leases_tier_wait(void *z, const struct jc_key *key, int64_t deadline_ns,
					struct jc_remote_lease *look,
					struct jc_remote_lease **lease, struct jc_remote_value *v,
					uint64_t delta[JC_NCOUNTERS])
{
	struct jc_lease *l = NULL;
	enum jc_remote_wait w = jc_lease_wait(z, key, deadline_ns, (struct jc_lease *)look, &l, v,
					      delta);
	*lease = (struct jc_remote_lease *)l;
	return w;
}

void jc_leases_tier_release(struct jc_remote_lease *lease)
{
	jc_lease_release((struct jc_lease *)lease);
}
