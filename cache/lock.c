/* lock.c — compile-once locks: one flock(2)ed file per key. */
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
	int fd;
};

static int open_lock_file(const struct jc_cache *c, int sub, const char *path)
{
	char dir[PATH_MAX];
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, c->file_mode);
	if (fd < 0 && errno == ENOENT) {
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
	return NULL;
}

struct jc_cache_lock *jc_cache_lock_key(struct jc_cache *cache, const struct jc_key *key)
{
	char name[2 * JC_KEY_BYTES + 6], path[PATH_MAX];
	int sub = key->bytes[0];
	double timeout = cache->lock_timeout > 0 ? cache->lock_timeout : 0; /* also NaN */
	if (timeout > 1e6)
		timeout = 1e6;
	int64_t deadline = jc_wall_ns() + (int64_t)(timeout * 1e9);
	if (!cache->local)
		return NULL; /* layers only: nothing to wait for, nowhere to lock */
	jc_key_hex(key, name);
	strcat(name, ".lock");
	jc_file_path(cache, sub, name, path);
	for (int attempt = 0; attempt < 100; attempt++) {
		int fd = open_lock_file(cache, sub, path);
		if (fd < 0)
			return give_up(-1, path, errno);
		if (jc_fs_flock_wait(fd, (double)(deadline - jc_wall_ns()) / 1e9) != 0)
			return give_up(fd, path, errno);
		if (!still_linked(fd, path)) {
			close(fd);
			continue;
		}
		struct jc_cache_lock *lock = malloc(sizeof *lock);
		if (!lock)
			return give_up(fd, path, ENOMEM);
		lock->fd = fd;
		return lock;
	}
	return NULL;
}

void jc_cache_unlock(struct jc_cache_lock *lock)
{
	if (!lock)
		return;
	flock(lock->fd, LOCK_UN); /* also for a child that fork() gave a copy of the fd */
	close(lock->fd);
	free(lock);
}
