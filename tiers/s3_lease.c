// SPDX-License-Identifier: MIT
/* s3_lease.c — compile leases as objects of an S3 bucket, taken and kept
 * with conditional writes.  See s3_lease.h. */
#include "tiers/s3_lease.h"
#include "tiers/client.h"

#include "config/clock.h"
#include "config/log.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define SUFFIX ".lease"

struct jc_s3_leases {
	struct jc_http *h;
	double lease, lease_wait; /* seconds */
	int trust_required;
};

struct jc_remote_lease {
	struct jc_s3_leases *s;
	struct jc_key key;
	char holder[96]; /* "HOST/PID/NONCE" */
	char etag[80];   /* of our last write */
	unsigned seq;    /* of our writes: each body, so each ETag, is new */
	pid_t pid;
	pthread_t thread;
	int has_thread, stop;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

/* The server ignores conditional writes (found by the first lease): no S3
 * lease is used in this process. */
static int ignored;

struct jc_s3_leases *jc_s3_leases_open(struct jc_http *h, double lease, double lease_wait)
{
	if (!h || !jc_http_is_s3(h))
		return NULL;
	struct jc_s3_leases *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->h = h;
	s->lease = lease > 0.1 ? lease : 0.1; /* also NaN */
	s->lease_wait = lease_wait > 0 ? lease_wait : 0;
	if (s->lease > 1e6)
		s->lease = 1e6;
	if (s->lease_wait > 1e6)
		s->lease_wait = 1e6;
	return s;
}

void jc_s3_leases_close(struct jc_s3_leases *s)
{
	free(s);
}

void jc_s3_leases_set_trust(struct jc_s3_leases *s, int trust_required)
{
	if (s)
		s->trust_required = trust_required;
}

/* ---- one lease ------------------------------------------------------------ */

static const char *const CREATE[] = { "If-None-Match: *", NULL };

/* Write the lease with the condition given (If-None-Match: *, or If-Match:
 * an ETag): 1 written (l->etag is its new one), 0 refused (412: another's,
 * or 409: another's write at the same moment; If-Match, 404: gone), -1
 * failed (a create answered 404: no such bucket; any other refusal). */
static int write_lease(struct jc_remote_lease *l, const char *const *cond,
		       uint64_t delta[JC_NCOUNTERS])
{
	char body[160];
	struct jc_http_answer a;
	/* who holds it, the how-manieth write, and until when (ms since the
	 * epoch, the holder's clock: for people; waiters go by the server's
	 * clock and by the ETag, stale()) */
	int n = snprintf(body, sizeof body, "jitcache-lease-v1 %s %u %lld\n", l->holder,
			 ++l->seq, (long long)(jc_wall_ns() / 1000000 +
					       (int64_t)(l->s->lease * 1000)));
	if (jc_http_exchange(l->s->h, &l->key, SUFFIX, "PUT", cond, body, (size_t)n, &a,
			     delta) != 0)
		return -1;
	if (a.code == 200 || a.code == 201 || a.code == 204) {
		snprintf(l->etag, sizeof l->etag, "%s", a.etag);
		return l->etag[0] ? 1 : -1;
	}
	if (a.code == 412 || a.code == 409 || (a.code == 404 && cond != CREATE))
		return 0;
	JC_LOG_ONCE(JC_LOG_WARN, "remote S3: a compile lease cannot be written (HTTP %ld%s); "
		    "compiling here", a.code, a.code == 404 ? ": no such bucket?" : "");
	return -1;
}

static int write_if_match(struct jc_remote_lease *l, const char *etag,
			  uint64_t delta[JC_NCOUNTERS])
{
	char line[100];
	const char *cond[] = { line, NULL };
	snprintf(line, sizeof line, "If-Match: %s", etag);
	return write_lease(l, cond, delta);
}

static void *renew_loop(void *arg)
{
	struct jc_remote_lease *l = arg;
	int64_t period_ns = (int64_t)(l->s->lease * 1e9 / 3);
	pthread_mutex_lock(&l->mu);
	while (!l->stop) {
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		int64_t ns = until.tv_nsec + period_ns;
		until.tv_sec += ns / 1000000000;
		until.tv_nsec = ns % 1000000000;
		while (!l->stop && pthread_cond_timedwait(&l->cv, &l->mu, &until) != ETIMEDOUT) {
		}
		if (l->stop)
			break;
		char etag[sizeof l->etag];
		memcpy(etag, l->etag, sizeof etag);
		pthread_mutex_unlock(&l->mu);
		uint64_t delta[JC_NCOUNTERS] = { 0 };
		int renewed = write_if_match(l, etag, delta); /* (a failure: tried again) */
		pthread_mutex_lock(&l->mu);
		if (renewed == 0) {
			JC_LOG_ONCE(JC_LOG_INFO, "remote S3: a compile lease was taken over before "
				    "it could be renewed; another machine may compile the same "
				    "kernel");
			l->etag[0] = '\0';
			break;
		}
	}
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

/* The renewal thread takes no signal of the host's. */
static void start_renewal(struct jc_remote_lease *l)
{
	jc_cond_init_mono(&l->cv);
	pthread_mutex_init(&l->mu, NULL);
	l->has_thread = jc_thread_start(&l->thread, renew_loop, l);
	if (!l->has_thread) {
		pthread_cond_destroy(&l->cv);
		pthread_mutex_destroy(&l->mu);
		JC_LOG_ONCE(JC_LOG_INFO, "cannot start a thread to renew compile leases; a compile "
			    "longer than the lease may be repeated on another machine");
	}
}

static struct jc_remote_lease *new_lease(struct jc_s3_leases *s, const struct jc_key *key)
{
	struct jc_remote_lease *l = calloc(1, sizeof *l);
	if (!l)
		return NULL;
	char host[64] = "?";
	uint64_t nonce;
	gethostname(host, sizeof host - 1);
	host[strcspn(host, " \n")] = '\0';
	if (getrandom(&nonce, sizeof nonce, GRND_NONBLOCK) != sizeof nonce)
		nonce = (uint64_t)jc_wall_ns() ^ (uint64_t)getpid() << 32;
	l->s = s;
	l->key = *key;
	l->pid = getpid();
	snprintf(l->holder, sizeof l->holder, "%s/%d/%016llx", host, (int)l->pid,
		 (unsigned long long)nonce);
	return l;
}

void jc_s3_lease_release(struct jc_remote_lease *l)
{
	if (!l)
		return;
	if (l->pid != getpid()) { /* a fork()ed child's copy: the parent's to release */
		free(l);
		return;
	}
	if (l->has_thread)
		jc_thread_stop(l->thread, &l->mu, &l->cv, &l->stop);
	if (l->etag[0]) {
		char line[100];
		const char *cond[] = { line, NULL };
		struct jc_http_answer a;
		uint64_t delta[JC_NCOUNTERS] = { 0 };
		snprintf(line, sizeof line, "If-Match: %s", l->etag);
		jc_http_exchange(l->s->h, &l->key, SUFFIX, "DELETE", cond, NULL, 0, &a, delta);
	}
	free(l);
}

/* ---- waiting -------------------------------------------------------------- */

/* What a waiter saw of another's lease: its ETag, and when it was first
 * seen with it (this machine's clock). */
struct watch {
	char etag[80];
	int64_t since_ns;
};

/* Is the lease a dead holder's?  By the server's clock: not written for
 * more than a lease time (and 2 s: Last-Modified counts whole seconds); by
 * ours: the same ETag for lease_wait seconds. */
static int stale(const struct jc_s3_leases *s, struct watch *w, const struct jc_http_answer *a)
{
	int64_t now = jc_wall_ns();
	if (strcmp(w->etag, a->etag) != 0) {
		snprintf(w->etag, sizeof w->etag, "%s", a->etag);
		w->since_ns = now;
	}
	if (a->date && a->last_modified && (double)(a->date - a->last_modified) > s->lease + 2)
		return 1;
	return now - w->since_ns >= (int64_t)(s->lease_wait * 1e9);
}

static void sleep_ns(int64_t ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
	}
}

/* Our create succeeded: would a second one?  On a server that honours
 * conditions it is refused (412); asked once per process. */
static enum jc_remote_wait check_conditions(struct jc_remote_lease *l,
					    uint64_t delta[JC_NCOUNTERS])
{
	static int checked;
	if (__atomic_exchange_n(&checked, 1, __ATOMIC_ACQ_REL))
		return JC_REMOTE_LEASED;
	char ours[sizeof l->etag];
	memcpy(ours, l->etag, sizeof ours);
	int again = write_lease(l, CREATE, delta);
	if (again <= 0) { /* (no answer: the lease is ours all the same) */
		memcpy(l->etag, ours, sizeof ours);
		return JC_REMOTE_LEASED;
	}
	__atomic_store_n(&ignored, 1, __ATOMIC_RELAXED);
	jc_log(JC_LOG_WARN, "remote S3: the server ignores conditional writes (a second "
	       "If-None-Match: * PUT succeeded); it cannot hold compile leases, so machines "
	       "that share only it may compile the same kernel at once (a Redis remote listed "
	       "beside it holds them)");
	return JC_REMOTE_FREE;
}

/* The waiter's pause between looks at the value: 50 ms, doubling to a
 * twentieth of the lease (at least 50 ms, at most 1 s: a value stored is
 * found that late at most); and between looks at the lease (its ETag, for
 * a dead holder's; gone, for one released without a value): a fifth of
 * the lease or of lease_wait, 0.1 s at least. */
static int64_t pause_most(const struct jc_s3_leases *s)
{
	double most = s->lease / 20;
	return (int64_t)((most < 0.05 ? 0.05 : most > 1 ? 1 : most) * 1e9);
}

static int64_t look_every(const struct jc_s3_leases *s)
{
	double every = (s->lease < s->lease_wait ? s->lease : s->lease_wait) / 5;
	return (int64_t)((every < 0.1 ? 0.1 : every) * 1e9);
}

/* One look at another's lease (HEAD): JC_REMOTE_TIMEOUT to keep waiting
 * (*gone: released, or never there: take it), or what the wait ends with. */
static enum jc_remote_wait look_at_lease(struct jc_remote_lease *l, struct watch *w, int *gone,
					 int *took_over, uint64_t delta[JC_NCOUNTERS])
{
	struct jc_s3_leases *s = l->s;
	struct jc_http_answer a;
	if (jc_http_exchange(s->h, &l->key, SUFFIX, "HEAD", NULL, NULL, 0, &a, delta) != 0)
		return JC_REMOTE_FAILED;
	*gone = a.code == 404;
	if (a.code != 200 && a.code != 404)
		return JC_REMOTE_FAILED; /* (said by neither: not a failure of the server's) */
	if (a.code == 200 && s->trust_required) {
		JC_LOG_ONCE(JC_LOG_WARN, "remote S3: another machine's compile lease is "
			    "not waited for (S3 leases are not signed; trusted_keys): "
			    "compiling here");
		return JC_REMOTE_FREE;
	}
	if (a.code == 200 && stale(s, w, &a) && a.etag[0]) {
		int wrote = write_if_match(l, a.etag, delta);
		if (wrote != 0) {
			*took_over = wrote > 0;
			return wrote > 0 ? JC_REMOTE_LEASED : JC_REMOTE_FAILED;
		}
		w->etag[0] = '\0'; /* another took it over: watch the new holder */
	}
	return JC_REMOTE_TIMEOUT;
}

enum jc_remote_wait jc_s3_lease_wait(struct jc_s3_leases *s, const struct jc_key *key,
				     int64_t deadline_ns, struct jc_remote_lease **lease,
				     struct jc_remote_value *v, uint64_t delta[JC_NCOUNTERS])
{
	*lease = NULL;
	memset(v, 0, sizeof *v);
	if (!s)
		return JC_REMOTE_FAILED;
	if (__atomic_load_n(&ignored, __ATOMIC_RELAXED))
		return JC_REMOTE_FREE;
	struct jc_remote_lease *l = new_lease(s, key);
	if (!l)
		return JC_REMOTE_FAILED;
	/* Create the lease; refused (another's), look at the value (a GET,
	 * which brings it once stored: one request a look) with a growing
	 * pause, and at the lease now and then (the lease first, then the
	 * value: a holder writes the value before it deletes the lease). */
	struct watch w = { .etag = "" };
	int64_t pause = 50000000, most = pause_most(s), every = look_every(s), next_look = 0;
	int create = 1, took_over = 0;
	enum jc_remote_wait r = JC_REMOTE_TIMEOUT;
	while (r == JC_REMOTE_TIMEOUT) {
		int wrote = 0, refused = 0;
		if (create && (wrote = write_lease(l, CREATE, delta)) != 0) {
			r = wrote > 0 ? check_conditions(l, delta) : JC_REMOTE_FAILED;
			if (r == JC_REMOTE_LEASED && jc_http_get(s->h, key, v, delta) == 1) {
				jc_s3_lease_release(l); /* stored since our lookup: no compile */
				return JC_REMOTE_READY;
			}
			break;
		}
		if (create) { /* another's, just seen: the value is looked at after a pause */
			refused = 1;
			create = 0;
			next_look = s->trust_required ? 0 : jc_wall_ns() + every;
		}
		if (jc_wall_ns() >= next_look) {
			r = look_at_lease(l, &w, &create, &took_over, delta);
			next_look = jc_wall_ns() + every;
			if (r != JC_REMOTE_TIMEOUT)
				break;
		}
		int found = refused ? 0 : jc_http_get(s->h, key, v, delta);
		if (found) {
			r = found > 0 ? JC_REMOTE_READY : JC_REMOTE_FAILED;
			break;
		}
		int64_t left = deadline_ns - jc_wall_ns();
		if (left <= 0)
			break;
		/* released, or never there: try to take it again soon */
		int64_t ns = create ? 20000000 : pause;
		sleep_ns(ns < left ? ns : left);
		if (!create && !refused)
			pause = pause * 2 < most ? pause * 2 : most;
	}
	if (took_over)
		JC_LOG_ONCE(JC_LOG_INFO, "remote S3: another machine's compile lease was not "
			    "renewed (lease, lease_wait): taken over, compiling here");
	if (r == JC_REMOTE_LEASED) {
		start_renewal(l);
		*lease = l;
	} else if (r == JC_REMOTE_FREE && l->etag[0]) {
		jc_s3_lease_release(l); /* taken where conditions are ignored: not a lease */
	} else {
		free(l);
	}
	return r;
}
