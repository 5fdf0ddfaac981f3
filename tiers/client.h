// SPDX-License-Identifier: MIT
/*
 * client.h — what every remote's client shares (redis.c, http.c): the
 * back-off after a failure, shared by the processes of a cache directory,
 * and SIGPIPE kept from the host process around a network exchange.
 *
 *   struct jc_backoff b;
 *   jc_backoff_init(&b, cache_dir, "redis:host:6379", seconds);  // cache_dir NULL: this process only
 *   if (jc_backoff_active(&b)) return -1;   // skipped: costs nothing
 *   ... on a failure: jc_backoff_start(&b);
 *
 *   struct jc_pipe_guard g;
 *   jc_pipe_block(&g);  write(sock, ...);  jc_pipe_unblock(&g);
 *
 *   jc_remote_problem(&told[kind], shown, &b, fmt, ap);  // said once, with the back-off
 *
 * The back-off file, DIR/remote-<16 hex of where>.down, holds the wall time
 * (ns) until which the remote is skipped, then why (a number the remote's
 * client gives, 0 by default: one a login refused, so that every process
 * that skips it says why its lookups missed).  Best effort: a directory that
 * cannot be written only means other processes find out for themselves; a
 * time further off than one back-off period is not one we wrote, and is
 * ignored.  The file is only ever in the directory cache_dir named at init
 * (its device and inode checked before each use): never in another one the
 * same path leads to later (/proc/self/fd/N of a descriptor the program
 * reused, a directory renamed and made again), and only a regular file
 * (opened without blocking: a FIFO is refused).  Thread-safe.
 */
#ifndef JITCACHE_CLIENT_H
#define JITCACHE_CLIENT_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>

struct jc_backoff {
	char dir[PATH_MAX];  /* the cache directory, or "": no shared file */
	uint64_t dev, ino;   /* what dir was at init */
	char name[32];       /* the back-off file's name in it */
	double seconds;      /* how long a failure skips the remote */
	int64_t until;       /* wall ns; read and written atomically */
	int cause;           /* why, as the last start said (ours or read) */
};

/* where: what names the remote (its URL's parts), hashed into the file name. */
void jc_backoff_init(struct jc_backoff *b, const char *state_dir, const char *where,
		     double seconds);
/* Skip the remote for b->seconds from now, in every process of the directory. */
void jc_backoff_start(struct jc_backoff *b);
/* The same, saying why (cause > 0, the client's own numbers). */
void jc_backoff_start_cause(struct jc_backoff *b, int cause);
/* Is the remote in a back-off period, ours or one another process started? */
int jc_backoff_active(struct jc_backoff *b);
/* The cause of the back-off period the remote is in, 0 if none or none said. */
int jc_backoff_cause(struct jc_backoff *b);

/* A remote's problem in one line, "remote SHOWN: WHAT" (fmt and ap), said
 * once per flag: the first time *told is seen (config/log.h's
 * jc_log_first(); a remote keeps one per kind of problem).  With down, the
 * back-off the problem started (jc_backoff_start() first) is said too:
 * "; not using it for N s (local cache only)".  Always at warn level. */
__attribute__((format(printf, 4, 0)))
void jc_remote_problem(int *told, const char *shown, const struct jc_backoff *down,
		       const char *fmt, va_list ap);

/* Writing to a connection the server closed raises SIGPIPE, which would
 * kill a host process that never asked for a network: it is blocked in
 * this thread around an exchange, and one raised meanwhile is taken off
 * the pending set before unblocking. */
struct jc_pipe_guard {
	sigset_t old;
	int was_pending;
};
void jc_pipe_block(struct jc_pipe_guard *g);
void jc_pipe_unblock(struct jc_pipe_guard *g);

/* The remotes' threads (writers, lease renewals) and their waits:
 * jc_cond_init_mono() makes a condition variable whose timed waits take
 * CLOCK_MONOTONIC deadlines (config/clock.h's jc_mono_ns()), and
 * jc_thread_start() a thread that takes no signal of the host's (all are
 * blocked in it).  1 if the thread started, 0 if not. */
void jc_cond_init_mono(pthread_cond_t *cv);
int jc_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg);
/* The end of such a thread that waits on cv, under mu, until *stop: sets
 * *stop, wakes it, joins it, then destroys mu and cv. */
void jc_thread_stop(pthread_t thread, pthread_mutex_t *mu, pthread_cond_t *cv, int *stop);

#endif
