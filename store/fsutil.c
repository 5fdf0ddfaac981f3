// SPDX-License-Identifier: MIT
#include "store/fsutil.h"
#include "config/clock.h"
#include "config/tempfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int jc_fs_mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);
	if (len == 0 || len >= sizeof buf)
		return errno = ENAMETOOLONG, -1;
	memcpy(buf, path, len + 1);
	/* Most often only the last component is missing (a subdirectory of
	 * the cache directory, reached through /proc/self/fd: each prefix
	 * tried there is a lookup in procfs).  Else each prefix ending before
	 * a '/', then the whole path. */
	if (mkdir(path, mode) == 0 || errno == EEXIST)
		len = 0;
	for (size_t i = 1; i <= len; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		char saved = buf[i];
		buf[i] = '\0';
		if (mkdir(buf, mode) != 0 && errno != EEXIST)
			return -1;
		buf[i] = saved;
	}
	struct stat st;
	if (stat(path, &st) != 0)
		return -1;
	return S_ISDIR(st.st_mode) ? 0 : (errno = ENOTDIR, -1);
}

int jc_fs_open_file(int dfd, const char *path, int flags, mode_t mode)
{
	struct stat st;
	int fd = openat(dfd, path, flags | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, mode);
	if (fd < 0) {
		/* A FIFO without a reader, or a socket: say what it is. */
		if (errno == ENXIO && fstatat(dfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISREG(st.st_mode))
			errno = JC_ENOTREG;
		return -1;
	}
	int rc = fstat(fd, &st);
	if (rc == 0 && S_ISREG(st.st_mode))
		return fd;
	int err = rc != 0 ? errno : JC_ENOTREG;
	close(fd);
	errno = err;
	return -1;
}

const char *jc_fs_strerror(int err)
{
	return err == JC_ENOTREG ? "not a regular file" : strerror(err);
}

/* Call op (readv or writev) until every byte of the iovecs is moved; a
 * read that meets the end of the file fails with EIO. */
static int move_all(ssize_t (*op)(int, const struct iovec *, int), int fd,
		    const struct iovec *iov, int count)
{
	struct iovec rest[8];
	if (count > 8)
		return errno = EINVAL, -1;
	memcpy(rest, iov, sizeof *iov * (size_t)count);
	struct iovec *v = rest;
	ssize_t n = 0;
	for (;;) {
		/* Skip what was moved (and empty iovecs), then part of one. */
		while (count > 0 && (size_t)n >= v->iov_len) {
			n -= (ssize_t)v->iov_len;
			v++;
			count--;
		}
		if (count == 0)
			return 0;
		v->iov_base = (char *)v->iov_base + n;
		v->iov_len -= (size_t)n;
		n = op(fd, v, count);
		if (n < 0 && errno == EINTR)
			n = 0;
		else if (n < 0)
			return -1;
		else if (n == 0)
			return errno = EIO, -1;
	}
}

int jc_fs_write_all(int fd, const struct iovec *iov, int count)
{
	return move_all(writev, fd, iov, count);
}

int jc_fs_read_all(int fd, void *buf, size_t size)
{
	struct iovec iov = { buf, size };
	return move_all(readv, fd, &iov, 1);
}

int64_t jc_fs_mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

int jc_fs_set_mtime(int fd, int64_t ns)
{
	/* An explicit time rather than UTIME_NOW: the kernel's "now" for file
	 * times ticks only every few milliseconds, too coarse to order entries
	 * used one after the other. */
	struct timespec times[2] = {
		{ .tv_nsec = UTIME_OMIT },
		{ .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 },
	};
	if (futimens(fd, times) == 0)
		return 0;
	if (errno != EPERM)
		return -1;
	times[1].tv_nsec = UTIME_NOW; /* not the owner: allowed with write access */
	return futimens(fd, times);
}

/* Sleep before the next attempt: 50 us at first, doubling up to 10 ms, never
 * past the deadline.  Returns 0 when the deadline has passed. */
static int wait_a_little(int64_t deadline, long *delay_ns)
{
	int64_t left = deadline - jc_wall_ns();
	if (left <= 0)
		return 0;
	long ns = *delay_ns < left ? *delay_ns : (long)left;
	struct timespec ts = { .tv_sec = 0, .tv_nsec = ns };
	nanosleep(&ts, NULL);
	*delay_ns = *delay_ns * 2 > 10000000 ? 10000000 : *delay_ns * 2;
	return 1;
}

static int64_t deadline_after(double timeout)
{
	if (!(timeout > 0))
		return 0;
	if (timeout > 1e9)
		timeout = 1e9;
	return jc_wall_ns() + (int64_t)(timeout * 1e9);
}

int jc_fs_lock_range(int fd, short type, off_t start, off_t len, double timeout)
{
	int64_t deadline = deadline_after(timeout);
	long delay = 50000;
	for (;;) {
		struct flock fl = { .l_type = type, .l_whence = SEEK_SET,
				    .l_start = start, .l_len = len };
		if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
			return 0;
		if (errno != EAGAIN && errno != EACCES && errno != EINTR)
			return -1;
		if (!wait_a_little(deadline, &delay))
			return errno = ETIMEDOUT, -1;
	}
}

void jc_fs_unlock_range(int fd, off_t start, off_t len)
{
	struct flock fl = { .l_type = F_UNLCK, .l_whence = SEEK_SET,
			    .l_start = start, .l_len = len };
	(void)fcntl(fd, F_OFD_SETLK, &fl);
}

/* ---- files that are not the cache's -------------------------------------- */

struct walk {
	int max_depth;
	int (*skip)(const char *name);
	jc_fs_walk_fn *fn;
	void *ctx;
	char path[PATH_MAX];
};

static void walk_below(struct walk *w, size_t len, int depth)
{
	struct dirent **list = NULL;
	int n = depth <= w->max_depth ? scandir(w->path, &list, NULL, alphasort) : -1;
	struct stat st;
	for (int i = 0; i < n; i++) {
		const char *name = list[i]->d_name;
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || (w->skip && w->skip(name)) ||
		    len + 1 + strlen(name) >= sizeof w->path)
			continue;
		snprintf(w->path + len, sizeof w->path - len, "/%s", name);
		if (lstat(w->path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			walk_below(w, strlen(w->path), depth + 1);
		else if (S_ISREG(st.st_mode))
			w->fn(w->ctx, w->path, depth, (uint64_t)st.st_size);
	}
	w->path[len] = '\0';
	for (int i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

void jc_fs_walk(const char *dir, int first_depth, int max_depth, int (*skip)(const char *name),
		jc_fs_walk_fn *fn, void *ctx)
{
	struct walk *w = malloc(sizeof *w);
	if (!w)
		return;
	*w = (struct walk){ .max_depth = max_depth, .skip = skip, .fn = fn, .ctx = ctx };
	if (snprintf(w->path, sizeof w->path, "%s", dir) < (int)sizeof w->path)
		walk_below(w, strlen(w->path), first_depth);
	free(w);
}

int jc_fs_read_file(const char *path, size_t limit, unsigned char **data, size_t *size)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	*data = NULL;
	if (fd < 0)
		return -1;
	int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size <= limit &&
		 (*data = malloc(st.st_size ? (size_t)st.st_size : 1));
	if (ok && jc_fs_read_all(fd, *data, (size_t)st.st_size) != 0)
		ok = 0;
	close(fd);
	if (!ok) {
		free(*data);
		*data = NULL;
		return -1;
	}
	*size = (size_t)st.st_size;
	return 0;
}

char *jc_fs_realpath(const char *path)
{
	return realpath(path, NULL);
}

int64_t jc_fs_file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (int64_t)st.st_size : -1;
}

int64_t jc_fs_path_mtime_ns(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? jc_fs_mtime_ns(&st) : -1;
}

int jc_fs_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

int jc_fs_each_name(const char *dir, int (*fn)(void *ctx, const char *name), void *ctx)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int rc = 0;
	for (struct dirent *e; rc == 0 && (e = readdir(d));)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			rc = fn(ctx, e->d_name);
	closedir(d);
	return rc;
}


int jc_fs_put_record(const char *dir, const char *path, size_t size, mode_t mode, int replace,
		     int from, void (*fresh)(uint8_t *buf))
{
	uint8_t *buf = calloc(1, size);
	if (!buf)
		return -1;
	if (from < 0 || pread(from, buf, size, 0) != (ssize_t)size) {
		memset(buf, 0, size);
		fresh(buf);
	}
	int rc = jc_temp_put(AT_FDCWD, dir, buf, size, mode, path,
			     replace ? JC_TEMP_RENAME : JC_TEMP_LINK_OR_RENAME);
	free(buf);
	return rc;
}
