// SPDX-License-Identifier: MIT
/* remote.c — the remote tiers in order, and the queue that writes to them
 * off the program's path (remote.h). */
#include "tiers/remote.h"
#include "tiers/client.h"
#include "tiers/tier.h"
#include "config/clock.h"

#include "config/log.h"
#include "config/remote_url.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct tier {
	const struct jc_tier_ops *ops; /* its kind's (tier.h) */
	void *h;                       /* what ops->open() gave; NULL: unusable */
	int read_only;
};

/* A queued write: a value for every writable tier before `upto` (all of
 * them for a put; those before the tier that answered for a backfill), or
 * a lease to release once the writes before it are done. */
struct job {
	struct job *next;
	struct jc_key key;
	int upto;
	struct jc_remote_lease *lease; /* a release, not a write */
	struct jc_remote_lease *release; /* a write that releases this lease (tier.h: put's lease) */
	int exec_seen; /* being run when an exec was tried (counted dropped then, if a write) */
	size_t size;
	unsigned char value[];
};

struct jc_remote {
	struct tier t[JC_REMOTES_MAX]; /* in the list's order (no handle: unusable) */
	int n, writable, compress;
	int lease_tier;             /* the tier whose leases are taken (tier.h), or -1 */
	void *leases;               /* its ops->leases_open()'s */
	double exit_wait;
	jc_remote_count_fn *count;
	void *ctx;

	/* the queue, and its threads (this process's: pid) */
	pthread_mutex_t mu;
	pthread_cond_t work, idle;
	struct job *head, *tail;
	size_t queued_bytes;
	int queued, busy, stop; /* busy: jobs being run */
	int threads;                        /* how many are running */
	pid_t pid;
	pthread_t thread[JC_REMOTE_WRITERS];
	struct job *running[JC_REMOTE_WRITERS]; /* the jobs being run, for an exec */
};

/* ---- opening ------------------------------------------------------------ */

/* For the exit handler, exec and fork.  Written under opened_mu, which is
 * never held across a wait; read without it before an exec (the exec may
 * come from a signal handler that interrupted the holder). */
static struct jc_remote *opened[16];
static pthread_mutex_t opened_mu = PTHREAD_MUTEX_INITIALIZER;
/* The process that last started a writer thread: only it has writes to
 * save before execve() (jc_remote_before_exec).  Read without a lock. */
static pid_t writer_pid;
/* When the exit handler's wait ends (jc_mono_ns()), once it has begun: an
 * exec from a signal handler during it waits no longer. */
static int64_t exit_deadline;

static void at_exit(void);
static void before_fork(void);
static void after_fork_parent(void);
static void after_fork_child(void);

static void register_handlers(void)
{
	atexit(at_exit);
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

static double at_least(double v, double least)
{
	return v > least ? v : least; /* also NaN */
}

/* Open tier t as sp says; one that cannot be opened has no handle, said
 * once, and answers nothing. */
static void open_tier(struct tier *t, const struct jc_remote_spec *sp,
		      const struct jc_remote_options *opts, const char *state_dir, uint64_t limit)
{
	struct jc_remote_options o = *opts;
	const struct jc_tier_ops *ops = t->ops;
	/* [remote]'s timeouts are for Redis on a LAN; a web server or a bucket
	 * is often across the internet, with TLS to set up */
	o.connect_timeout = sp->connect_timeout > 0 ? sp->connect_timeout
		: ops->min_connect_timeout > 0 ? at_least(opts->connect_timeout, ops->min_connect_timeout)
		: opts->connect_timeout;
	o.timeout = sp->timeout > 0 ? sp->timeout
		: ops->min_timeout > 0 ? at_least(opts->timeout, ops->min_timeout) : opts->timeout;
	t->h = ops->open(&(struct jc_tier_open){ .spec = sp, .opts = &o, .read_only = t->read_only,
						  .state_dir = state_dir, .limit = limit });
}

/* The leases of the writable tier of the smallest lease_order, first in
 * the list among equals, whose kind gives some (tier.h). */
static void open_leases(struct jc_remote *r, const struct jc_remote_options *opts)
{
	int last = 0;
	for (int i = 0; i < r->n; i++)
		if (r->t[i].ops->lease_order > last)
			last = r->t[i].ops->lease_order;
	r->lease_tier = -1;
	for (int order = 1; order <= last && r->lease_tier < 0; order++)
		for (int i = 0; i < r->n && r->lease_tier < 0; i++) {
			const struct tier *t = &r->t[i];
			if (!t->h || t->read_only || t->ops->lease_order != order ||
			    !t->ops->leases_open)
				continue;
			r->leases = t->ops->leases_open(t->h, opts);
			if (r->leases)
				r->lease_tier = i;
		}
}

/* The queue's mutex and condition variables, new: at open, and in a fork()ed
 * child, where the parent's copies may record waiters (its writer thread)
 * that do not exist there, and a signal or wait on them would block for
 * ever. */
static void init_sync(struct jc_remote *r)
{
	pthread_mutex_init(&r->mu, NULL);
	jc_cond_init_mono(&r->work);
	jc_cond_init_mono(&r->idle);
}

/* The web and S3 remotes' client library (their kind's ops->load) is
 * loaded by the first exchange with one, not at load: a process that never
 * asks one (a shell, a tool started under `jitcache run`, a program whose
 * every lookup hits locally) loads no libcurl and no TLS.  The library registers TLS's exit handler
 * as it loads; ours is registered again after it, so that it runs first
 * (handlers run in reverse) and the queued writes still have TLS. */
static void load_libraries(void)
{
	for (int k = 0; k < JC_REMOTE_KINDS; k++)
		if (jc_tier_of(k) && jc_tier_of(k)->load)
			jc_tier_of(k)->load(); /* said why if not */
	atexit(at_exit);
}

/* Before t's first exchange. */
static void ready(const struct tier *t)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	if (t->ops->load)
		pthread_once(&once, load_libraries);
}

struct jc_remote *jc_remote_open(const struct jc_remote_options *opts, const char *state_dir,
				 uint64_t limit, jc_remote_count_fn *count, void *ctx)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	const char *why = "";
	if (!opts || !opts->url || !opts->url[0])
		return NULL;
	struct jc_remote *r = calloc(1, sizeof *r);
	struct jc_remote_spec *specs = calloc(JC_REMOTES_MAX, sizeof *specs);
	if (!r || !specs || jc_remote_list_parse(opts->url, specs, &r->n, &why) != 0) {
		if (r && specs) {
			char shown[JC_REMOTE_LIST_MAX];
			jc_remote_list_redact(opts->url, shown, sizeof shown);
			jc_log(JC_LOG_WARN, "remote %s is not valid (%s); no remote tier", shown, why);
		}
		free(specs);
		free(r);
		return NULL;
	}
	int usable = 0;
	for (int i = 0; i < r->n; i++) {
		struct tier *t = &r->t[i];
		t->read_only = specs[i].read_only || opts->read_only;
		t->ops = jc_tier_of(specs[i].kind);
		open_tier(t, &specs[i], opts, state_dir, limit); /* said why if not */
		if (!t->h)
			continue;
		usable++;
		r->writable += !t->read_only;
	}
	free(specs);
	if (!usable) {
		free(r);
		return NULL;
	}
	open_leases(r, opts);
	r->compress = opts->compress;
	r->exit_wait = opts->exit_wait > 0 ? opts->exit_wait : 0; /* also NaN */
	if (r->exit_wait > 3600)
		r->exit_wait = 3600;
	r->count = count;
	r->ctx = ctx;
	init_sync(r);
	r->pid = getpid();
	pthread_once(&once, register_handlers);
	pthread_mutex_lock(&opened_mu);
	for (size_t i = 0; i < sizeof opened / sizeof *opened; i++)
		if (!opened[i]) {
			__atomic_store_n(&opened[i], r, __ATOMIC_RELEASE);
			break;
		}
	pthread_mutex_unlock(&opened_mu);
	return r;
}

int jc_remote_read_only(const struct jc_remote *r)
{
	return !r || r->writable == 0;
}

int jc_remote_compress(const struct jc_remote *r)
{
	return r && r->compress;
}

int jc_remote_tiers(const struct jc_remote *r)
{
	return r ? r->n : 0;
}

int jc_remote_slot(const struct jc_remote *r, int i)
{
	return r && i >= 0 && i < r->n ? r->t[i].ops->slot : JC_SLOT_LOCAL;
}

void jc_remote_describe(const struct jc_remote *r, int i, char *out, size_t size)
{
	if (!size)
		return;
	out[0] = '\0';
	if (!r || i < 0 || i >= r->n)
		return;
	if (r->t[i].h)
		r->t[i].ops->describe(r->t[i].h, out, size);
	else
		snprintf(out, size, "%s (unusable)", r->t[i].ops->name);
}

void jc_remote_set_keys(struct jc_remote *r, const struct jc_signer *signer,
			const struct jc_trust *trust, int trust_required)
{
	if (r && r->leases && r->t[r->lease_tier].ops->set_keys)
		r->t[r->lease_tier].ops->set_keys(r->leases, signer, trust, trust_required);
}

/* ---- reading ------------------------------------------------------------ */

/* One compile request's dealings with the remotes (remote.h), from its
 * first look to its release, on whatever thread takes it on:
 *   - the web and S3 remotes that answered "absent": a miss costs one
 *     answer of each, not two (a bucket, or a web server without leases,
 *     cannot tell that another machine stored the value meanwhile; an S3
 *     lease or a WebDAV lock taken looks at the value once more itself);
 *   - the Redis that holds the leases, when the lease wait saw its value
 *     absent (the lease taken, or waited for in vain): the wait's script
 *     looked after the first lookup did;
 *   - the value that lease wait read when its holder woke it: the recheck
 *     gets it without asking again;
 *   - the lease, from looked (the first look took it or saw another's) to
 *     held (the wait's) to released (by the write of its value, which
 *     claims it, or after it).
 * A remote is skipped so once; the absences are forgotten when a lease
 * wait finds the value (JC_REMOTE_READY). */
struct jc_remote_request {
	struct jc_remote *r;
	struct jc_key key;
	unsigned absent; /* bit i: the i-th remote */
	int ready_tier;  /* ready holds the value read by the lease wait, or -1 */
	struct jc_remote_value ready;
	/* what the first look learnt of the lease (tier.h, get's look), for
	 * the wait */
	struct jc_remote_lease *looked;
	/* the lease the wait handed out: the put of the key writes and
	 * releases it in one request (claim_lease), else it is released after */
	struct jc_remote_lease *held;
};

struct jc_remote_request *jc_remote_request(struct jc_remote *r, const struct jc_key *key)
{
	struct jc_remote_request *q = r ? calloc(1, sizeof *q) : NULL;
	if (q) {
		q->r = r;
		q->key = *key;
		q->ready_tier = -1;
	}
	return q;
}

/* A lease is always the lease tier's (jc_remote_wait). */
static void release_lease(struct jc_remote *r, struct jc_remote_lease *l)
{
	r->t[r->lease_tier].ops->release(l);
}

void jc_remote_drop_look(struct jc_remote_request *q)
{
	if (q && q->looked)
		release_lease(q->r, q->looked);
	if (q)
		q->looked = NULL;
}

/* jc_remote_get(), and a request's look (q; leasing: its first). */
static int get(struct jc_remote *r, int i, const struct jc_key *key, struct jc_remote_value *v,
	       uint64_t delta[JC_NCOUNTERS], struct jc_remote_request *q, int leasing)
{
	memset(v, 0, sizeof *v);
	if (!r || i < 0 || i >= r->n)
		return -1;
	if (q && q->absent & 1u << i) {
		q->absent &= ~(1u << i);
		return 0;
	}
	if (q && q->ready_tier == i) {
		*v = q->ready; /* the caller's now */
		q->ready_tier = -1;
		return 1;
	}
	const struct tier *t = &r->t[i];
	if (!t->h)
		return -1;
	ready(t);
	struct jc_remote_lease **look = NULL; /* the lease tier may take it (tier.h) */
	if (q && leasing && r->leases && i == r->lease_tier) {
		jc_remote_drop_look(q);
		look = &q->looked;
	}
	int found = t->ops->get(t->h, key, v, look, delta);
	if (q && found == 0 && !t->ops->wait_looks)
		q->absent |= 1u << i;
	return found;
}

int jc_remote_get(struct jc_remote *r, int i, const struct jc_key *key,
		  struct jc_remote_value *v, uint64_t delta[JC_NCOUNTERS])
{
	return get(r, i, key, v, delta, NULL, 0);
}

int jc_remote_ask(struct jc_remote_request *q, int i, int leasing, struct jc_remote_value *v,
		  uint64_t delta[JC_NCOUNTERS])
{
	if (!q) {
		memset(v, 0, sizeof *v);
		return -1;
	}
	return get(q->r, i, &q->key, v, delta, q, leasing);
}

enum jc_entry_status jc_remote_value_check(const struct jc_key *key,
					   const struct jc_remote_value *v,
					   struct jc_entry_header *h, const char **why)
{
	enum jc_entry_status status = jc_entry_check_header(v->header, v->size, key, h, why);
	if (status != JC_ENTRY_OK)
		return status;
	if (!v->payload && h->stored_size) { /* not fetched: its header claims too much */
		*why = "larger than max_size allows (refused unread)";
		return JC_ENTRY_CORRUPT;
	}
	if (jc_entry_checksum(v->header, v->payload, h->stored_size) != h->checksum) {
		*why = "checksum mismatch";
		return JC_ENTRY_CORRUPT;
	}
	return JC_ENTRY_OK;
}

enum jc_remote_wait jc_remote_wait(struct jc_remote_request *q, int64_t deadline_ns,
				   uint64_t delta[JC_NCOUNTERS])
{
	struct jc_remote_value v = { .size = 0 };
	struct jc_remote *r = q ? q->r : NULL;
	if (!r || !r->leases)
		return JC_REMOTE_FREE;
	int i = r->lease_tier;
	const struct tier *t = &r->t[i];
	ready(t);
	struct jc_remote_lease *look = q->looked, *lease = NULL; /* the wait's now */
	q->looked = NULL;
	enum jc_remote_wait w = t->ops->wait(r->leases, &q->key, deadline_ns, look, &lease, &v,
					     delta);
	q->held = w == JC_REMOTE_LEASED ? lease : NULL;
	if (w == JC_REMOTE_READY) {
		q->absent = 0; /* stored by another machine: ask every remote */
		if (v.size) {
			free(q->ready_tier >= 0 ? q->ready.payload : NULL);
			q->ready = v;
			q->ready_tier = i;
		}
	} else if (w != JC_REMOTE_FAILED && t->ops->wait_looks) {
		q->absent |= 1u << i; /* not there at the wait's last look */
	}
	return w;
}

int jc_remote_leased(const struct jc_remote_request *q)
{
	return q && q->held;
}

/* ---- the writer thread -------------------------------------------------- */

static void count(struct jc_remote *r, const uint64_t delta[JC_NCOUNTERS])
{
	if (r->count)
		r->count(r->ctx, delta);
}

static void queue_release(struct jc_remote *r, struct jc_remote_lease *lease);

static void run_job(struct jc_remote *r, struct job *j)
{
	uint64_t delta[JC_NCOUNTERS] = { 0 };
	if (j->lease) {
		release_lease(r, j->lease);
		return;
	}
	for (int i = 0; i < j->upto && i < r->n; i++) {
		struct tier *t = &r->t[i];
		if (t->read_only || !t->h)
			continue;
		ready(t);
		t->ops->put(t->h, &j->key, j->value, j->size,
			    j->release && i == r->lease_tier ? &j->release : NULL, delta);
	}
	if (j->release) /* its kind did not release it with the value: once the writes
			   queued before are done, as a release without a write is */
		queue_release(r, j->release);
	count(r, delta);
}

/* Under r->mu: the job at the head may be run now.  A lease's release
 * waits until the writes queued before it (all those being run, the queue
 * being in order) are done: a machine waiting for the lease then finds the
 * value. */
static int runnable(const struct jc_remote *r)
{
	return r->head && (!r->head->lease || r->busy == 0);
}

/* Under r->mu: a free slot of r->running (one per thread, each running
 * one job at most). */
static struct job **running_slot(struct jc_remote *r)
{
	for (int i = 0; i < JC_REMOTE_WRITERS; i++)
		if (!r->running[i])
			return &r->running[i];
	return NULL; /* not reached */
}

static void *writer(void *arg)
{
	struct jc_remote *r = arg;
	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!runnable(r) && !r->stop)
			pthread_cond_wait(&r->work, &r->mu);
		if (!runnable(r))
			break;
		struct job *j = r->head, **slot = running_slot(r);
		r->head = j->next;
		if (!r->head)
			r->tail = NULL;
		r->busy++;
		if (slot)
			*slot = j;
		pthread_mutex_unlock(&r->mu);
		run_job(r, j);
		pthread_mutex_lock(&r->mu);
		if (slot)
			*slot = NULL;
		r->busy--;
		r->queued--;
		r->queued_bytes -= j->size;
		free(j);
		if (r->head && r->head->lease && r->busy == 0)
			pthread_cond_broadcast(&r->work); /* a release waits for us */
		if (!r->head && r->busy == 0)
			pthread_cond_broadcast(&r->idle);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/* Under r->mu: a thread to run the job just queued: another one (up to
 * JC_REMOTE_WRITERS) if every running one is busy.  0 if there is one. */
static int have_thread(struct jc_remote *r)
{
	if (r->threads > 0 && (r->busy < r->threads || r->threads == JC_REMOTE_WRITERS))
		return 0;
	if (jc_thread_start(&r->thread[r->threads], writer, r)) {
		r->threads++;
		__atomic_store_n(&writer_pid, getpid(), __ATOMIC_RELEASE);
		return 0;
	}
	if (r->threads > 0)
		return 0; /* those running will do */
	JC_LOG_ONCE(JC_LOG_INFO, "cannot start the thread that writes to the remote "
		    "tiers; writing in the program instead");
	return -1;
}

/* Queue j, or run it here if no thread can be had.  Dropped (counted) if
 * the queue is full. */
static void enqueue(struct jc_remote *r, struct job *j)
{
	pthread_mutex_lock(&r->mu);
	int over = !j->lease && (r->queued >= JC_REMOTE_QUEUE_WRITES ||
				 r->queued_bytes + j->size > JC_REMOTE_QUEUE_BYTES);
	if (over || r->stop || have_thread(r) != 0) {
		pthread_mutex_unlock(&r->mu);
		if (over || r->stop) {
			JC_LOG_ONCE(JC_LOG_INFO, "the remote writes queued are more than %u MiB or "
				    "%d values; later ones are dropped (each is in the local store)",
				    JC_REMOTE_QUEUE_BYTES >> 20, JC_REMOTE_QUEUE_WRITES);
			count(r, (uint64_t[JC_NCOUNTERS]){ [JC_REMOTE_DROPPED] = !j->lease });
			if (j->lease || j->release)
				release_lease(r, j->lease ? j->lease : j->release);
		} else {
			run_job(r, j);
		}
		free(j);
		return;
	}
	j->next = NULL;
	if (r->tail)
		r->tail->next = j;
	else
		r->head = j;
	r->tail = j;
	r->queued++;
	r->queued_bytes += j->size;
	pthread_cond_signal(&r->work);
	pthread_mutex_unlock(&r->mu);
}

/* The lease request q holds (*lease: the wait's, or the first look's),
 * taken by the write j of its value: where the lease tier's kind can
 * (tier.h, put's lease), the write stores it and releases the lease in one
 * request; else it is released after.  Only for a write j makes to the
 * lease tier. */
static void claim_lease(struct jc_remote *r, struct jc_remote_request *q, struct job *j,
			struct jc_remote_lease **lease)
{
	if (!q || q->r != r || !*lease || !r->leases || r->lease_tier >= j->upto ||
	    memcmp(&q->key, &j->key, sizeof j->key) != 0)
		return;
	j->release = *lease;
	*lease = NULL;
}

static struct job *new_job(const struct jc_key *key, int upto, size_t size)
{
	struct job *j = malloc(sizeof *j + size);
	if (j) {
		memset(j, 0, sizeof *j);
		j->key = *key;
		j->upto = upto;
		j->size = size;
	}
	return j;
}

int jc_remote_put(struct jc_remote *r, const struct jc_key *key, const struct jc_encoded *e,
		  struct jc_remote_request *q, uint64_t delta[JC_NCOUNTERS])
{
	(void)delta; /* counted by the writer */
	if (!r || !r->writable)
		return -1;
	size_t size = (size_t)JC_ENCODED_SIZE(e);
	struct job *j = new_job(key, r->n, size);
	if (!j)
		return -1;
	memcpy(j->value, e->header, JC_ENTRY_HEADER_SIZE);
	memcpy(j->value + JC_ENTRY_HEADER_SIZE, e->payload, e->payload_size);
	memcpy(j->value + JC_ENTRY_HEADER_SIZE + e->payload_size, e->trailer, e->trailer_size);
	if (q)
		claim_lease(r, q, j, &q->held);
	enqueue(r, j);
	return 0;
}

/* A backfill (struct jc_remote_write, never defined) is a job, made
 * before it is queued. */
struct jc_remote_write *jc_remote_backfill_write(struct jc_remote *r, int i,
						 const struct jc_key *key,
						 const struct jc_remote_value *v)
{
	int before = 0;
	for (int k = 0; r && k < i && k < r->n; k++)
		before += !r->t[k].read_only;
	if (!before || !v->payload || v->size < JC_ENTRY_HEADER_SIZE)
		return NULL;
	struct job *j = new_job(key, i, (size_t)v->size);
	if (!j)
		return NULL;
	memcpy(j->value, v->header, JC_ENTRY_HEADER_SIZE);
	memcpy(j->value + JC_ENTRY_HEADER_SIZE, v->payload, (size_t)v->size - JC_ENTRY_HEADER_SIZE);
	return (struct jc_remote_write *)j;
}

void jc_remote_backfill(struct jc_remote *r, struct jc_remote_write *w,
			struct jc_remote_request *q, int good)
{
	struct job *j = (struct job *)w;
	if (!j || !good) {
		free(j);
		return;
	}
	if (q) /* the first look took it: a later tier hit */
		claim_lease(r, q, j, &q->looked);
	enqueue(r, j);
}

/* Queue the release of lease after the writes queued before it. */
static void queue_release(struct jc_remote *r, struct jc_remote_lease *lease)
{
	struct job *j = new_job(&(struct jc_key){ 0 }, 0, 0);
	if (!j) {
		release_lease(r, lease);
		return;
	}
	j->lease = lease;
	enqueue(r, j);
}

void jc_remote_release(struct jc_remote_request *q)
{
	if (!q)
		return;
	jc_remote_drop_look(q);
	if (q->held) /* not claimed by a put (which releases it) */
		queue_release(q->r, q->held);
	q->held = NULL;
}

void jc_remote_request_end(struct jc_remote_request *q)
{
	if (!q)
		return;
	jc_remote_release(q);
	if (q->ready_tier >= 0)
		free(q->ready.payload);
	free(q);
}

int jc_remote_flush(struct jc_remote *r, double seconds)
{
	if (!r)
		return 0;
	int64_t end = jc_mono_ns() + (int64_t)(seconds * 1e9);
	pthread_mutex_lock(&r->mu);
	while ((r->head || r->busy) && r->threads && r->pid == getpid()) {
		int64_t now = jc_mono_ns();
		if (now >= end)
			break;
		struct timespec ts = { end / 1000000000, end % 1000000000 };
		pthread_cond_timedwait(&r->idle, &r->mu, &ts);
	}
	int left = r->queued;
	pthread_mutex_unlock(&r->mu);
	return left ? -1 : 0;
}

/* Under r->mu: take the queued jobs off the queue (writes dropped, leases
 * released); how many writes were dropped. */
static uint64_t drop_queued(struct jc_remote *r)
{
	uint64_t dropped = 0;
	while (r->head) {
		struct job *j = r->head;
		r->head = j->next;
		dropped += !j->lease;
		r->queued--;
		r->queued_bytes -= j->size;
		if (j->lease || j->release) /* no write of ours is left before it */
			release_lease(r, j->lease ? j->lease : j->release);
		free(j);
	}
	r->tail = NULL;
	return dropped;
}

static void said_dropped(struct jc_remote *r, uint64_t dropped, const char *when, double seconds)
{
	if (!dropped)
		return;
	jc_log(JC_LOG_INFO, "%llu remote writes dropped %s after %.1f s (each is in the local "
	       "store)", (unsigned long long)dropped, when, seconds);
	count(r, (uint64_t[JC_NCOUNTERS]){ [JC_REMOTE_DROPPED] = dropped });
}

/* Under r->mu: the writes being run that no exec has counted dropped yet,
 * marked counted now (with the releases being run: no exec waits for them
 * again). */
static uint64_t see_running(struct jc_remote *r)
{
	uint64_t n = 0;
	for (int i = 0; i < JC_REMOTE_WRITERS; i++) {
		struct job *j = r->running[i];
		if (j && !j->exec_seen) {
			n += !j->lease;
			j->exec_seen = 1;
		}
	}
	return n;
}

/* Stop the thread after at most `seconds`: what is still queued then is
 * dropped and counted.  The thread may be in the middle of a write (bounded
 * by the tier's timeout): with wait_busy it is waited for, else (at exit)
 * left to end with the process, detached. */
static void finish(struct jc_remote *r, double seconds, int wait_busy)
{
	pthread_mutex_lock(&r->mu);
	int done = r->stop; /* finished already (the exit handler may run twice) */
	pthread_mutex_unlock(&r->mu);
	if (done)
		return;
	jc_remote_flush(r, seconds);
	pthread_mutex_lock(&r->mu);
	r->stop = 1;
	uint64_t dropped = drop_queued(r);
	int busy = r->busy, threads = r->pid == getpid() ? r->threads : 0;
	dropped += wait_busy ? 0 : see_running(r); /* may not be done */
	pthread_cond_broadcast(&r->work);
	pthread_mutex_unlock(&r->mu);
	for (int i = 0; i < threads; i++)
		if (wait_busy || !busy)
			pthread_join(r->thread[i], NULL);
		else
			pthread_detach(r->thread[i]);
	r->threads = 0;
	said_dropped(r, dropped, "at exit", seconds);
}

/* Under r->mu: is something left for an exec to wait for?  A job queued,
 * or one being run that no earlier exec saw: a program's own PATH search
 * (Python's os.execvp tries execv() in each directory) waits once, and a
 * write stuck in a slow server is counted dropped once. */
static int exec_pending(const struct jc_remote *r)
{
	if (!r->threads || r->pid != getpid())
		return 0;
	if (r->head)
		return 1;
	for (int i = 0; i < JC_REMOTE_WRITERS; i++)
		if (r->running[i] && !r->running[i]->exec_seen)
			return 1;
	return 0;
}

/* r->mu, locked without ever blocking on it, tried until deadline: the
 * exec may come from a signal handler that interrupted this very thread
 * while it held it.  0 if locked. */
static int lock_before(struct jc_remote *r, int64_t deadline)
{
	for (;;) {
		if (pthread_mutex_trylock(&r->mu) == 0)
			return 0;
		if (jc_mono_ns() >= deadline)
			return -1;
		nanosleep(&(struct timespec){ .tv_nsec = 2000000 }, NULL);
	}
}

/* The queue of r given up to exit_wait (no longer than the exit handler's
 * wait, if the exec interrupted it), by looking every 2 ms, not by waiting
 * on a condition variable the interrupted thread may be waiting on. */
static void exec_wait(struct jc_remote *r)
{
	int64_t deadline = jc_mono_ns() + (int64_t)(r->exit_wait * 1e9);
	int64_t exiting = __atomic_load_n(&exit_deadline, __ATOMIC_ACQUIRE);
	if (exiting && exiting < deadline)
		deadline = exiting;
	for (;;) {
		if (lock_before(r, deadline) != 0)
			return; /* held all along (by the thread interrupted): exec as is */
		if (!exec_pending(r) || jc_mono_ns() >= deadline)
			break;
		pthread_mutex_unlock(&r->mu);
		nanosleep(&(struct timespec){ .tv_nsec = 2000000 }, NULL);
	}
	uint64_t dropped = 0;
	if (r->threads && r->pid == getpid())
		dropped = drop_queued(r) + see_running(r);
	pthread_mutex_unlock(&r->mu);
	said_dropped(r, dropped, "at exec", r->exit_wait);
}

/* Before execve() replaces the program (and its writer thread) with
 * another: as at exit, the queued writes get exit_wait and those left are
 * dropped, counted and said, as profilers' runtimes (gcov's __gcov_execve)
 * save their counters before an exec.  The thread is left running: should
 * the exec fail, the program goes on with a working queue (a write cut short
 * by the exec, counted dropped, is then done after all; a later exec waits
 * only for what was queued since).  No lock is waited for: an exec from a
 * signal handler must not wait for the thread it interrupted. */
void jc_remote_before_exec(void)
{
	if (__atomic_load_n(&writer_pid, __ATOMIC_ACQUIRE) != getpid())
		return; /* nothing written by this process (or a vfork()ed child) */
	for (size_t i = 0; i < sizeof opened / sizeof *opened; i++) {
		struct jc_remote *r = __atomic_load_n(&opened[i], __ATOMIC_ACQUIRE);
		if (r && r->pid == getpid())
			exec_wait(r);
	}
}

static void forget(struct jc_remote *r)
{
	pthread_mutex_lock(&opened_mu);
	for (size_t i = 0; i < sizeof opened / sizeof *opened; i++)
		if (opened[i] == r)
			__atomic_store_n(&opened[i], NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&opened_mu);
}

void jc_remote_close(struct jc_remote *r)
{
	if (!r)
		return;
	forget(r);
	finish(r, r->exit_wait, 1);
	if (r->leases && r->t[r->lease_tier].ops->leases_close)
		r->t[r->lease_tier].ops->leases_close(r->leases);
	for (int i = 0; i < r->n; i++)
		if (r->t[i].h)
			r->t[i].ops->close(r->t[i].h);
	pthread_cond_destroy(&r->work);
	pthread_cond_destroy(&r->idle);
	pthread_mutex_destroy(&r->mu);
	free(r);
}

/* At exit the remotes stay open (the host may still compile from another
 * thread): only the queue is given its time, and the thread stopped.  The
 * list's lock is not held across the wait: a signal handler that execs
 * meanwhile (jc_remote_before_exec) would wait for it for ever. */
static void at_exit(void)
{
	struct jc_remote *mine[sizeof opened / sizeof *opened];
	size_t n = 0;
	pthread_mutex_lock(&opened_mu);
	for (size_t i = 0; i < sizeof opened / sizeof *opened; i++)
		if (opened[i] && opened[i]->pid == getpid())
			mine[n++] = opened[i];
	pthread_mutex_unlock(&opened_mu);
	for (size_t i = 0; i < n; i++) {
		__atomic_store_n(&exit_deadline,
				 jc_mono_ns() + (int64_t)(mine[i]->exit_wait * 1e9), __ATOMIC_RELEASE);
		finish(mine[i], mine[i]->exit_wait, 0);
	}
}

static void before_fork(void)
{
	pthread_mutex_lock(&opened_mu);
	for (size_t i = 0; i < sizeof opened / sizeof *opened; i++)
		if (opened[i])
			pthread_mutex_lock(&opened[i]->mu);
}

static void after_fork_parent(void)
{
	for (size_t i = 0; i < sizeof opened / sizeof *opened; i++)
		if (opened[i])
			pthread_mutex_unlock(&opened[i]->mu);
	pthread_mutex_unlock(&opened_mu);
}

/* The child has no writer thread and writes nothing its parent queued:
 * the parent does.  Its own writes start a thread of its own, on a queue
 * whose condition variables are new: the ones copied from the parent may
 * count the parent's writer thread as a waiter. */
static void after_fork_child(void)
{
	for (size_t i = 0; i < sizeof opened / sizeof *opened; i++) {
		struct jc_remote *r = opened[i];
		if (!r)
			continue;
		/* mu was taken by before_fork() on this very thread: unlocked, not
		 * made anew, so that a checker (TSan) sees it released. */
		pthread_mutex_unlock(&r->mu);
		jc_cond_init_mono(&r->work);
		jc_cond_init_mono(&r->idle);
		struct job *j = r->head;
		while (j) {
			struct job *next = j->next;
			if (j->lease || j->release) /* a child's copy: freed only */
				release_lease(r, j->lease ? j->lease : j->release);
			free(j);
			j = next;
		}
		r->head = r->tail = NULL;
		r->queued = 0;
		r->queued_bytes = 0;
		r->busy = 0;
		memset(r->running, 0, sizeof r->running); /* the parent's threads' */
		r->stop = 0;
		r->threads = 0;
		r->pid = getpid();
	}
	pthread_mutex_unlock(&opened_mu);
}
