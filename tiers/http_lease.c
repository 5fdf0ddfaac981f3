// SPDX-License-Identifier: MIT
/* http_lease.c — compile leases on a WebDAV server: an exclusive write lock
 * (RFC 4918 LOCK) on a small file per key, renewed while its holder
 * compiles.  See http.h ("compile leases through WebDAV LOCK"). */
#include "tiers/http.h"
#include "tiers/client.h"

#include "config/clock.h"
#include "config/log.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct jc_http_leases {
	struct jc_http *h;
	double lease;   /* seconds asked for (Timeout); renewed every third of it */
	double backoff; /* seconds no lease is asked after a failed look */
	int64_t skip_until; /* jc_mono_ns(): none asked before then: atomic */
	int none;       /* the server has no LOCK (403, 405, 501): atomic */
	int dir_made;   /* PATH/leases/ is known to exist: atomic */
	int told_odd;   /* an answer that is no lease's said: atomic */
	int told_lost;  /* a lock lost before its release said: atomic */
};

struct jc_http_lease {
	struct jc_http_leases *z;
	struct jc_key key;
	pid_t pid;
	char token[128];     /* "<urn:...>": the Lock-Token */
	char if_line[160];   /* "If: (<urn:...>)" */
	int64_t period_ns;   /* between renewals */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop, has_thread;
};

struct jc_http_leases *jc_http_leases_open(struct jc_http *h, double lease, double backoff)
{
	struct jc_http_leases *z = h && !jc_http_is_s3(h) ? calloc(1, sizeof *z) : NULL;
	if (z) {
		z->h = h;
		z->lease = lease >= 1 ? (lease < 86400 ? lease : 86400) : 1; /* also NaN */
		z->backoff = backoff > 0 ? (backoff < 86400 ? backoff : 86400) : 0;
	}
	return z;
}

void jc_http_leases_close(struct jc_http_leases *z)
{
	free(z);
}

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
static void set_period(struct jc_http_lease *l, const char *body)
{
	double s = l->z->lease, server = granted(body);
	if (server > 0 && server < s)
		s = server;
	l->period_ns = (int64_t)(s / 3 * 1e9);
	if (l->period_ns < 100000000)
		l->period_ns = 100000000;
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

/* Take the lease: LOCK its file (made by the LOCK if new), and write who
 * holds it into it (for whoever wonders who compiles). */
static enum take take(struct jc_http_lease *l, uint64_t delta[JC_NCOUNTERS])
{
	struct jc_http_leases *z = l->z;
	struct jc_http_answer a;
	char host[64] = "?", note[160], owner[256], timeout[48];
	enum take made = make_dir(z, &l->key, delta);
	if (made != ON)
		return made;
	gethostname(host, sizeof host - 1);
	snprintf(note, sizeof note, "jitcache compile lease: %s pid %d\n", host, (int)getpid());
	snprintf(owner, sizeof owner,
		 "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
		 "<D:lockinfo xmlns:D=\"DAV:\"><D:lockscope><D:exclusive/></D:lockscope>"
		 "<D:locktype><D:write/></D:locktype><D:owner>jitcache %s pid %d</D:owner>"
		 "</D:lockinfo>\n", host, (int)getpid());
	snprintf(timeout, sizeof timeout, "Timeout: Second-%.0f", z->lease);
	const char *headers[] = { timeout, "Content-Type: application/xml; charset=utf-8",
				  "Depth: 0", NULL };
	long code = jc_http_request(z->h, "LOCK", &l->key, JC_HTTP_LEASE, headers, owner,
				    strlen(owner), &a, delta);
	if ((code == 200 || code == 201) && a.lock_token[0]) {
		snprintf(l->token, sizeof l->token, "%s", a.lock_token);
		snprintf(l->if_line, sizeof l->if_line, "If: (%s)", l->token);
		set_period(l, a.body);
		const char *if_token[] = { l->if_line, NULL };
		jc_http_request(z->h, "PUT", &l->key, JC_HTTP_LEASE, if_token, note, strlen(note),
				&a, delta);
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
static void give_back(struct jc_http_lease *l)
{
	uint64_t delta[JC_NCOUNTERS] = { 0 };
	struct jc_http_answer a;
	const char *if_token[] = { l->if_line, NULL };
	long code = jc_http_request(l->z->h, "DELETE", &l->key, JC_HTTP_LEASE, if_token, NULL, 0,
				    &a, delta);
	if (code == 405 || code == 403 || code == 501) {
		char line[160];
		snprintf(line, sizeof line, "Lock-Token: %s", l->token);
		const char *unlock[] = { line, NULL };
		jc_http_request(l->z->h, "UNLOCK", &l->key, JC_HTTP_LEASE, unlock, NULL, 0, &a,
				delta);
	}
}

/* ---- the holder's renewals ------------------------------------------------------ */

/* 1 renewed (or taken again: a lock that lapsed, as dav-ext does), 0 lost to
 * another machine, -1 no answer (tried again next time). */
static int renew(struct jc_http_lease *l)
{
	uint64_t delta[JC_NCOUNTERS] = { 0 };
	struct jc_http_answer a;
	char timeout[48];
	snprintf(timeout, sizeof timeout, "Timeout: Second-%.0f", l->z->lease);
	const char *headers[] = { l->if_line, timeout, NULL };
	long code = jc_http_request(l->z->h, "LOCK", &l->key, JC_HTTP_LEASE, headers, NULL, 0,
				    &a, delta);
	/* (the token is this thread's until the join: give_back() comes after) */
	if ((code == 200 || code == 201) && a.lock_token[0] && strcmp(a.lock_token, l->token)) {
		snprintf(l->token, sizeof l->token, "%s", a.lock_token);
		snprintf(l->if_line, sizeof l->if_line, "If: (%s)", l->token);
	}
	return code == 200 || code == 201 ? 1 : code < 0 ? -1 : 0;
}

static void *renew_loop(void *arg)
{
	struct jc_http_lease *l = arg;
	pthread_mutex_lock(&l->mu);
	while (!l->stop) {
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		int64_t ns = until.tv_nsec + l->period_ns;
		until.tv_sec += ns / 1000000000;
		until.tv_nsec = ns % 1000000000;
		while (!l->stop && pthread_cond_timedwait(&l->cv, &l->mu, &until) != ETIMEDOUT) {
		}
		if (l->stop)
			break;
		pthread_mutex_unlock(&l->mu);
		int renewed = renew(l);
		pthread_mutex_lock(&l->mu);
		if (renewed == 0) {
			if (jc_log_first(&l->z->told_lost))
				jc_log(JC_LOG_INFO, "remote %s: a compile lease expired before it "
				       "could be renewed; another machine may compile the same "
				       "kernel", jc_http_url(l->z->h));
			break;
		}
	}
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

/* The renewal thread takes no signal of the host's. */
static void start_renewal(struct jc_http_lease *l)
{
	jc_cond_init_mono(&l->cv);
	pthread_mutex_init(&l->mu, NULL);
	l->has_thread = jc_thread_start(&l->thread, renew_loop, l);
	if (!l->has_thread)
		JC_LOG_ONCE(JC_LOG_INFO, "cannot start a thread to renew compile leases; a compile "
			    "longer than the lease may be repeated on another machine");
}

/* ---- waiting ------------------------------------------------------------------------ */

static void sleep_ns(int64_t ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
	}
}

/* Take the lease; JC_REMOTE_READY (v filled) where the holder before
 * stored the value and let go just before. */
static enum jc_remote_wait try_take(struct jc_http_lease *l, struct jc_remote_value *v,
				    uint64_t delta[JC_NCOUNTERS])
{
	enum take t = take(l, delta);
	if (t == TAKEN) {
		if (jc_http_get(l->z->h, &l->key, v, delta) != 1)
			return JC_REMOTE_LEASED;
		give_back(l);
		return JC_REMOTE_READY;
	}
	return t == NONE ? JC_REMOTE_FREE : t == HELD ? JC_REMOTE_TIMEOUT /* keep waiting */
		: JC_REMOTE_FAILED;
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

enum jc_remote_wait jc_http_wait(struct jc_http_leases *z, const struct jc_key *key,
				 int64_t deadline_ns, struct jc_http_lease **lease,
				 struct jc_remote_value *v, uint64_t delta[JC_NCOUNTERS])
{
	*lease = NULL;
	memset(v, 0, sizeof *v);
	if (!z)
		return JC_REMOTE_FAILED;
	if (__atomic_load_n(&z->none, __ATOMIC_RELAXED))
		return JC_REMOTE_FREE;
	if (jc_mono_ns() < __atomic_load_n(&z->skip_until, __ATOMIC_RELAXED))
		return JC_REMOTE_FAILED; /* a look failed a moment ago: compile here */
	struct jc_http_lease *l = calloc(1, sizeof *l);
	if (!l)
		return JC_REMOTE_FAILED;
	l->z = z;
	l->key = *key;
	l->pid = getpid();
	/* A lock is waited for while the server keeps it, which is while its
	 * holder renews it (a dead holder's expires by the server's timeout),
	 * up to the deadline (lock_timeout).  The first look, whose lookup
	 * has just missed, is a LOCK; then the value is looked at (a GET,
	 * which brings it once it is there: once the holder is done, the
	 * waiters find it without taking the lease), and the lock tried again
	 * only now and then. */
	int64_t pause = 50000000, most = pause_most(z->lease);
	int64_t lock_every = (int64_t)(z->lease / 5 * 1e9), next_lock = 0;
	if (lock_every < 200000000)
		lock_every = 200000000;
	enum jc_remote_wait w = JC_REMOTE_TIMEOUT;
	for (int first = 1;; first = 0) {
		int found = first ? 0 : jc_http_get(z->h, key, v, delta);
		if (found)
			w = found > 0 ? JC_REMOTE_READY : JC_REMOTE_FAILED;
		else if (jc_wall_ns() >= next_lock) {
			w = try_take(l, v, delta);
			next_lock = jc_wall_ns() + lock_every;
		}
		if (w != JC_REMOTE_TIMEOUT)
			break;
		int64_t left = deadline_ns - jc_wall_ns();
		if (left <= 0)
			break;
		sleep_ns(pause < left ? pause : left);
		pause = pause * 2 < most ? pause * 2 : most;
	}
	if (w == JC_REMOTE_FAILED) {
		/* (no answer, or not a lease's: each miss would wait for it again) */
		int64_t until = jc_mono_ns() + (int64_t)(z->backoff * 1e9);
		__atomic_store_n(&z->skip_until, until, __ATOMIC_RELAXED);
	}
	if (w == JC_REMOTE_LEASED) {
		start_renewal(l);
		*lease = l;
	} else {
		free(l);
	}
	return w;
}

void jc_http_release(struct jc_http_lease *l)
{
	if (!l)
		return;
	if (l->pid != getpid()) { /* a fork()ed child's copy: the parent's to release */
		free(l);
		return;
	}
	if (l->has_thread)
		jc_thread_stop(l->thread, &l->mu, &l->cv, &l->stop);
	give_back(l);
	free(l);
}
