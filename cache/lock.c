/* lock.c — compile-once locks: one flock(2)ed file per key, and with a
 * remote tier, a lease in Redis while the key is compiled (remote.h). */
#include "cache/internal.h"

#include "cache/fsutil.h"
#include "config/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

struct jc_cache_lock {
	int fd;                        /* -1: no local lock */
	struct jc_remote_lease *lease; /* NULL: none */
};

static int open_lock_file(struct jc_cache *c, int sub, const char *path)
{
	char dir[PATH_MAX];
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, c->file_mode);
	if (fd < 0 && errno == ENOENT && jc_dir_usable(c) == 0) {
		jc_subdir_path(c, sub, dir);
		if (jc_fs_mkdir_p(dir, c->dir_mode) == 0)
			fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, c->file_mode);
	}
	if (fd < 0 && (errno == EACCES || errno == EROFS)) /* read-only cache */
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	return fd;
}

/* Cleanup may remove an unlocked lock file between our open() and flock();
 * a lock on a removed file excludes nobody, so check the name still leads
 * to the file we locked. */
static int still_linked(int fd, const char *path)
{
	struct stat a, b;
	return fstat(fd, &a) == 0 && lstat(path, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* NULL, with errno = err (ETIMEDOUT: another process still holds it). */
static struct jc_cache_lock *give_up(int fd, const char *path, int err)
{
	if (fd >= 0)
		close(fd);
	if (err == ETIMEDOUT)
		JC_LOG_ONCE(JC_LOG_INFO, "gave up waiting for another process to compile %s; "
			    "compiling here as well", path);
	else
		JC_LOG_ONCE(JC_LOG_INFO, "cannot lock %s (%s); compiling without waiting "
			    "for other processes", path, strerror(err));
	errno = err;
	return NULL;
}

static struct jc_cache_lock *lock_local(struct jc_cache *cache, const struct jc_key *key,
					int64_t deadline)
{
	char name[2 * JC_KEY_BYTES + 6], path[PATH_MAX], shown[PATH_MAX];
	int sub = key->bytes[0];
	if (!cache->local) {
		errno = EROFS; /* layers only: nowhere to lock */
		return NULL;
	}
	if (jc_dir_usable(cache) != 0) {
		errno = EBADF;
		return NULL;
	}
	jc_key_hex(key, name);
	strcat(name, ".lock");
	jc_file_path(cache, sub, name, path);
	const char *said = jc_shown(cache, path, shown);
	for (int attempt = 0; attempt < 100; attempt++) {
		int fd = open_lock_file(cache, sub, path);
		if (fd < 0)
			return give_up(-1, said, errno);
		if (jc_fs_flock_wait(fd, (double)(deadline - jc_wall_ns()) / 1e9) != 0)
			return give_up(fd, said, errno);
		if (!still_linked(fd, path)) {
			close(fd);
			continue;
		}
		struct jc_cache_lock *lock = malloc(sizeof *lock);
		if (!lock)
			return give_up(fd, said, ENOMEM);
		lock->fd = fd;
		lock->lease = NULL;
		return lock;
	}
	return NULL;
}

/* Holding the local lock, wait for other machines through the remote tier,
 * until the same deadline.  Whatever happens, the caller goes on: to find
 * the value, or to compile (with the lease, or without one when the remote
 * cannot be used or another machine is still compiling at the deadline). */
static void wait_remote(struct jc_cache *c, const struct jc_key *key, int64_t deadline,
			struct jc_cache_lock *lock)
{
	uint64_t delta[JC_NCOUNTERS] = { 0 };
	char hex[2 * JC_KEY_BYTES + 1];
	int64_t start = jc_wall_ns();
	enum jc_remote_wait w = jc_remote_wait(c->remote, key, deadline, &lock->lease, delta);
	jc_key_hex(key, hex);
	if (w == JC_REMOTE_TIMEOUT)
		JC_LOG_ONCE(JC_LOG_INFO, "gave up waiting for another machine to compile %s; "
			    "compiling here as well", hex);
	else if (w == JC_REMOTE_READY && jc_wall_ns() - start > 1000000)
		jc_log(JC_LOG_DEBUG, "waited %.3f s for another machine to compile %s",
		       (double)(jc_wall_ns() - start) / 1e9, hex);
	for (int i = 0; i < JC_NCOUNTERS; i++)
		if (delta[i]) {
			jc_count(c, delta, NULL);
			break;
		}
}

struct jc_cache_lock *jc_cache_lock_key(struct jc_cache *cache, const struct jc_key *key)
{
	double timeout = cache->lock_timeout > 0 ? cache->lock_timeout : 0; /* also NaN */
	if (timeout > 1e6)
		timeout = 1e6;
	int64_t deadline = jc_wall_ns() + (int64_t)(timeout * 1e9);
	struct jc_cache_lock *lock = lock_local(cache, key, deadline);
	if (!lock && errno != ETIMEDOUT && cache->remote && (lock = malloc(sizeof *lock)))
		*lock = (struct jc_cache_lock){ .fd = -1 }; /* no local lock: still coordinate */
	if (lock && cache->remote)
		wait_remote(cache, key, deadline, lock);
	return lock;
}

void jc_cache_unlock(struct jc_cache_lock *lock)
{
	if (!lock)
		return;
	jc_remote_release(lock->lease);
	if (lock->fd >= 0) {
		flock(lock->fd, LOCK_UN); /* also for a child that fork() gave a copy of the fd */
		close(lock->fd);
	}
	free(lock);
}
