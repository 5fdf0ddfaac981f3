// SPDX-License-Identifier: MIT
/* client.c — the back-off and SIGPIPE guard the remotes' clients share
 * (client.h). */
#include "tiers/client.h"
#include "config/clock.h"
#include "config/log.h"

#include "store/fsutil.h"
#include "store/object.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void jc_backoff_init(struct jc_backoff *b, const char *state_dir, const char *where,
		     double seconds)
{
	struct stat st;
	memset(b, 0, sizeof *b);
	b->seconds = seconds > 0 ? seconds : 0; /* also NaN */
	if (!state_dir || stat(state_dir, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    snprintf(b->dir, sizeof b->dir, "%s", state_dir) >= (int)sizeof b->dir) {
		b->dir[0] = '\0';
		return;
	}
	b->dev = (uint64_t)st.st_dev;
	b->ino = (uint64_t)st.st_ino;
	_Static_assert(sizeof b->name >= JC_OBJECT_BACKOFF_NAME_MAX, "a back-off file's name fits");
	jc_object_backoff_name(where, b->name); /* the store names the directory's files */
}

/* The back-off file, opened with flags in the directory state_dir named
 * when b was made, and only there: -1 if the path now leads elsewhere (a
 * descriptor of /proc/self/fd/N the program reused, a directory renamed and
 * another made in its place), or to anything but a regular file (a FIFO is
 * opened without blocking and refused). */
static int open_file(const struct jc_backoff *b, int flags)
{
	struct stat st;
	if (!b->dir[0])
		return -1;
	int dfd = open(b->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	int fd = -1;
	if (fstat(dfd, &st) == 0 && (uint64_t)st.st_dev == b->dev && (uint64_t)st.st_ino == b->ino)
		fd = jc_fs_open_file(dfd, b->name, flags, 0600);
	close(dfd);
	return fd;
}

void jc_backoff_start(struct jc_backoff *b)
{
	jc_backoff_start_cause(b, 0);
}

void jc_backoff_start_cause(struct jc_backoff *b, int cause)
{
	int64_t until = jc_wall_ns() + (int64_t)(b->seconds * 1e9);
	__atomic_store_n(&b->cause, cause, __ATOMIC_RELAXED);
	__atomic_store_n(&b->until, until, __ATOMIC_RELAXED);
	int fd = open_file(b, O_WRONLY | O_CREAT);
	if (fd < 0)
		return;
	char text[48];
	int n = snprintf(text, sizeof text, "%lld %d\n", (long long)until, cause);
	if (ftruncate(fd, 0) != 0 || write(fd, text, (size_t)n) != n) {
		/* a short file is ignored by its readers */
	}
	close(fd);
}

int jc_backoff_active(struct jc_backoff *b)
{
	int64_t now = jc_wall_ns();
	if (now < __atomic_load_n(&b->until, __ATOMIC_RELAXED))
		return 1;
	int fd = open_file(b, O_RDONLY);
	if (fd < 0)
		return 0;
	char text[48] = "";
	ssize_t n = read(fd, text, sizeof text - 1);
	close(fd);
	char *end = text;
	long long until = n > 0 ? strtoll(text, &end, 10) : 0;
	if (until <= now || until > now + (int64_t)(b->seconds * 1e9) + 1000000000)
		return 0;
	long cause = strtol(end, NULL, 10); /* none (an older jitcache's file): 0 */
	__atomic_store_n(&b->cause, cause > 0 && cause < 256 ? (int)cause : 0, __ATOMIC_RELAXED);
	__atomic_store_n(&b->until, (int64_t)until, __ATOMIC_RELAXED);
	return 1;
}

int jc_backoff_cause(struct jc_backoff *b)
{
	return jc_backoff_active(b) ? __atomic_load_n(&b->cause, __ATOMIC_RELAXED) : 0;
}

void jc_remote_problem(int *told, const char *shown, const struct jc_backoff *down,
		       const char *fmt, va_list ap)
{
	char what[512];
	if (!jc_log_first(told))
		return;
	vsnprintf(what, sizeof what, fmt, ap);
	if (down)
		jc_log(JC_LOG_WARN, "remote %s: %s; not using it for %g s (local cache only)", shown,
		       what, down->seconds);
	else
		jc_log(JC_LOG_WARN, "remote %s: %s", shown, what);
}

void jc_pipe_block(struct jc_pipe_guard *g)
{
	sigset_t pipe, pending;
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe, &g->old);
	g->was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
}

void jc_pipe_unblock(struct jc_pipe_guard *g)
{
	sigset_t pipe, pending;
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	if (!g->was_pending && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE)) {
		struct timespec zero = { 0, 0 };
		while (sigtimedwait(&pipe, NULL, &zero) < 0 && errno == EINTR) {
		}
	}
	pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}

void jc_cond_init_mono(pthread_cond_t *cv)
{
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(cv, &attr);
	pthread_condattr_destroy(&attr);
}

int jc_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int made = pthread_create(thread, NULL, fn, arg) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return made;
}

void jc_thread_stop(pthread_t thread, pthread_mutex_t *mu, pthread_cond_t *cv, int *stop)
{
	pthread_mutex_lock(mu);
	*stop = 1;
	pthread_cond_signal(cv);
	pthread_mutex_unlock(mu);
	pthread_join(thread, NULL);
	pthread_cond_destroy(cv);
	pthread_mutex_destroy(mu);
}
