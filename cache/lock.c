// SPDX-License-Identifier: MIT
/* lock.c — compile-once locks: a byte-range lock per key in one file,
 * DIR/locks, and with a remote tier, a lease in Redis while the key is
 * compiled (remote.h).
 *
 * One file for every key: a lock file per entry doubled the cache's inodes
 * and stayed behind (inode quotas and NFS directories feel both).  Each key
 * locks one byte of DIR/locks, at an offset made of its first 62 bits, with
 * an open file description lock (F_OFD_SETLK: owned by the descriptor, so
 * threads of one process exclude each other as processes do).  Two keys on
 * one byte would only wait for each other.  The file stays empty: locks
 * beyond its end are fine.  A cache this user may only read is locked
 * shared (F_RDLCK on a read-only descriptor), which still waits for a
 * writer that compiles the key.
 *
 * The descriptor is close-on-exec, but a fork() without exec copies it,
 * and with it the lock (the open file description owns it): a child that
 * outlives a compile that dies (a server's worker, forked while another
 * thread compiled) would make every process missing that key wait
 * lock_timeout.  So the locks held are listed, and a fork()ed child closes
 * its copies at once (pthread_atfork); the list's mutex, also taken before
 * a fork, is held only around opening a descriptor and listing it, never
 * while waiting for a lock. */
#include "cache/internal.h"
#include "config/clock.h"

#include "store/fsutil.h"
#include "config/tempfile.h"
#include "config/log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct jc_cache_lock {
	int fd;                        /* -1: no local lock */
	off_t at;                      /* the key's byte in DIR/locks */
	struct jc_remote_request *remote; /* the request whose lease is waited for; NULL: none */
	int own_remote;                /* made by jc_cache_lock_key(): ended at unlock */
	struct jc_cache_lock **pprev, *next; /* in `held` while fd is open (pprev) */
};

/* ---- the descriptors a fork()ed child must not keep ----------------------- */

static pthread_mutex_t held_mu = PTHREAD_MUTEX_INITIALIZER;
static struct jc_cache_lock *held;

static void fork_prepare(void)
{
	pthread_mutex_lock(&held_mu);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&held_mu);
}

/* In the child, alone: its copies closed (the parent's descriptors, and
 * their locks, are untouched), the list emptied.  A lock the forking
 * thread itself held is then unlocked by it as one without a descriptor. */
static void fork_child(void)
{
	for (struct jc_cache_lock *l = held, *next; l; l = next) {
		next = l->next;
		close(l->fd);
		l->fd = -1;
		l->pprev = NULL;
		l->next = NULL;
	}
	held = NULL;
	pthread_mutex_unlock(&held_mu);
}

static void watch_forks(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* Under held_mu. */
static void list_held(struct jc_cache_lock *l)
{
	l->next = held;
	l->pprev = &held;
	if (held)
		held->pprev = &l->next;
	held = l;
}

/* Under held_mu. */
static void unlist_held(struct jc_cache_lock *l)
{
	if (!l->pprev)
		return;
	*l->pprev = l->next;
	if (l->next)
		l->next->pprev = l->pprev;
	l->pprev = NULL;
	l->next = NULL;
}

/* Closes l's descriptor (unlocking) and takes it off the list. */
static void close_held(struct jc_cache_lock *l)
{
	pthread_mutex_lock(&held_mu);
	unlist_held(l);
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
	pthread_mutex_unlock(&held_mu);
}

static off_t byte_of(const struct jc_key *key)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | key->bytes[i];
	return (off_t)(v >> 2); /* 62 bits: a valid, positive offset */
}

/* NULL, with errno = err (ETIMEDOUT: another process still holds it). */
static struct jc_cache_lock *give_up(struct jc_store *store, struct jc_cache_lock *lock,
				     const char *path, int err)
{
	if (lock)
		close_held(lock);
	free(lock);
	if (err == ETIMEDOUT)
		JC_LOG_ONCE(JC_LOG_INFO, "gave up waiting for another process to compile a "
			    "module locked in %s; compiling here as well", path);
	else if (!jc_store_unwritable(store, JC_LOG_INFO)) /* else said once, with why */
		JC_LOG_ONCE(JC_LOG_INFO, "cannot lock %s (%s); compiling without waiting "
			    "for other processes", path, jc_fs_strerror(err));
	errno = err;
	return NULL;
}

/* The key's byte of DIR/locks, waited for until deadline.  *unheld: 1 when
 * nobody held it (taken at the first try: no wait for another's compile,
 * however long a busy machine made opening the file take). */
static struct jc_cache_lock *lock_local(struct jc_cache *cache, const struct jc_key *key,
					int64_t deadline, int *unheld)
{
	char said[PATH_MAX];
	if (!cache->store) {
		errno = EROFS; /* layers only: nowhere to lock */
		return NULL;
	}
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, watch_forks);
	struct jc_cache_lock *lock = malloc(sizeof *lock);
	if (!lock) /* (no memory to open its file: the directory is named) */
		return give_up(cache->store, NULL, jc_store_dir(cache->store), ENOMEM);
	*lock = (struct jc_cache_lock){ .fd = -1, .at = byte_of(key) };
	short type;
	pthread_mutex_lock(&held_mu); /* opened and listed with no fork between */
	lock->fd = jc_store_open_locks(cache->store, &type, said);
	int err = errno;
	if (lock->fd >= 0)
		list_held(lock);
	pthread_mutex_unlock(&held_mu);
	if (lock->fd < 0 && err == EBADF) { /* the directory cannot be used: said */
		free(lock);
		errno = EBADF;
		return NULL;
	}
	if (lock->fd < 0)
		return give_up(cache->store, lock, said, err);
	*unheld = jc_fs_lock_range(lock->fd, type, lock->at, 1, 0) == 0;
	if (!*unheld && (errno != ETIMEDOUT ||
			 jc_fs_lock_range(lock->fd, type, lock->at, 1,
					  (double)(deadline - jc_wall_ns()) / 1e9) != 0))
		return give_up(cache->store, lock, said, errno); /* closing the descriptor unlocks */
	return lock;
}

/* Holding the local lock, wait for other machines through the remote tier,
 * until the same deadline.  Whatever happens, the caller goes on: to find
 * the value, or to compile (with the lease, or without one when the remote
 * cannot be used or another machine is still compiling at the deadline).
 * The nanoseconds spent where no other machine's compile was waited for
 * (the remote unusable, or its lease not taken: the requests alone), which
 * are not a wait for others (a slow server is not another's compile). */
static int64_t wait_remote(struct jc_cache *c, struct jc_remote_request *q,
			   const struct jc_key *key, int64_t deadline)
{
	uint64_t delta[JC_NCOUNTERS] = { 0 };
	char hex[2 * JC_KEY_BYTES + 1];
	int64_t start = jc_wall_ns(), began = jc_mono_ns();
	enum jc_remote_wait w = jc_remote_wait(q, deadline, delta);
	jc_key_hex(key, hex);
	if (w == JC_REMOTE_TIMEOUT)
		JC_LOG_ONCE(JC_LOG_INFO, "gave up waiting for another machine to compile %s; "
			    "compiling here as well", hex);
	else if (w == JC_REMOTE_READY && jc_wall_ns() - start > 1000000)
		jc_log(JC_LOG_DEBUG, "waited %.3f s for another machine to compile %s",
		       (double)(jc_wall_ns() - start) / 1e9, hex);
	for (int i = 0; i < JC_NCOUNTERS; i++)
		if (delta[i]) {
			jc_cache_count(c, delta, NULL);
			break;
		}
	return w == JC_REMOTE_FREE || w == JC_REMOTE_FAILED ? jc_mono_ns() - began : 0;
}

/* The local lock, then the remote lease of request q (NULL: one of the
 * lock's own), until lock_timeout.  *asking: the time taken without
 * waiting for another process or machine (a local lock nobody held, the
 * remote's requests: wait_remote). */
static struct jc_cache_lock *lock_key(struct jc_cache *cache, const struct jc_key *key,
				      struct jc_remote_request *q, int64_t *asking)
{
	double timeout = cache->lock_timeout > 0 ? cache->lock_timeout : 0; /* also NaN */
	if (timeout > 1e6)
		timeout = 1e6;
	int64_t deadline = jc_wall_ns() + (int64_t)(timeout * 1e9), began = jc_mono_ns();
	int unheld = 0;
	struct jc_cache_lock *lock = lock_local(cache, key, deadline, &unheld);
	if (unheld)
		*asking = jc_mono_ns() - began;
	/* (EBADF: the directory cannot be used, nor then the remotes, cache.c) */
	if (!lock && errno != ETIMEDOUT && errno != EBADF && cache->remote &&
	    (lock = malloc(sizeof *lock)))
		*lock = (struct jc_cache_lock){ .fd = -1 }; /* no local lock: still coordinate */
	if (lock && cache->remote) {
		lock->own_remote = !q;
		lock->remote = q ? q : jc_remote_request(cache->remote, key);
		*asking += wait_remote(cache, lock->remote, key, deadline);
	} else { /* a lease the request's first look took */
		jc_remote_drop_look(q);
	}
	return lock;
}

struct jc_cache_lock *jc_cache_lock_for(struct jc_cache *cache, const struct jc_key *key,
					struct jc_remote_request *q)
{
	int64_t asked = jc_mono_ns(), asking = 0;
	struct jc_cache_lock *lock = lock_key(cache, key, q, &asking);
	/* What the program waited here for another's compile (under a
	 * millisecond, or none: not worth a write of the statistics). */
	int64_t waited = jc_mono_ns() - asked - asking;
	uint64_t delta[JC_NCOUNTERS] = { [JC_LOCK_WAIT_NS] = waited > 0 ? (uint64_t)waited : 0 };
	if (delta[JC_LOCK_WAIT_NS] >= 1000000)
		jc_cache_count(cache, delta, NULL);
	return lock;
}

struct jc_cache_lock *jc_cache_lock_key(struct jc_cache *cache, const struct jc_key *key)
{
	return jc_cache_lock_for(cache, key, NULL);
}

void jc_cache_unlock(struct jc_cache_lock *lock)
{
	if (!lock)
		return;
	if (lock->own_remote)
		jc_remote_request_end(lock->remote);
	else
		jc_remote_release(lock->remote);
	/* Explicitly: a child started without fork()'s handlers (a raw
	 * clone()) may share the open file description, and with it the lock. */
	if (lock->fd >= 0)
		jc_fs_unlock_range(lock->fd, lock->at, 1);
	close_held(lock);
	free(lock);
}
