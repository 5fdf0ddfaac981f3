// SPDX-License-Identifier: MIT
/* A file written whole or not at all (tempfile.h). */
#include "config/tempfile.h"
#include "config/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int jc_temp_open(int dfd, const char *dir, mode_t mode, char tmp[PATH_MAX])
{
	static unsigned counter;
	for (int attempt = 0; attempt < 100; attempt++) {
		unsigned n = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
		unsigned noise = (unsigned)jc_wall_ns();
		int len = snprintf(tmp, PATH_MAX, "%s/.tmp.%ld.%u.%08x", dir, (long)getpid(), n, noise);
		if (len < 0 || len >= PATH_MAX)
			return errno = ENAMETOOLONG, -1;
		int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return errno = EEXIST, -1;
}

int jc_temp_open_beside(int dfd, const char *target, mode_t mode, char tmp[PATH_MAX])
{
	char dir[PATH_MAX];
	const char *slash = strrchr(target, '/');
	if (!slash)
		return jc_temp_open(dfd, ".", mode, tmp);
	if ((size_t)(slash - target) >= sizeof dir)
		return errno = ENAMETOOLONG, -1;
	/* "/x" -> "/", "a/b" -> "a" */
	snprintf(dir, sizeof dir, "%.*s", slash == target ? 1 : (int)(slash - target), target);
	return jc_temp_open(dfd, dir, mode, tmp);
}

int jc_temp_place(int dfd, const char *tmp, const char *target, int how)
{
	int rc = 1;
	how &= ~JC_TEMP_SYNC;
	if (how != JC_TEMP_RENAME && linkat(dfd, tmp, dfd, target, 0) != 0) {
		rc = errno == EEXIST ? 0 : -1;
		/* No hard links here: a rename will do. */
		if (how == JC_TEMP_LINK_OR_RENAME && (errno == EPERM || errno == EOPNOTSUPP))
			how = JC_TEMP_RENAME;
	}
	if (how == JC_TEMP_RENAME)
		rc = renameat(dfd, tmp, dfd, target) == 0 ? 1 : -1;
	int err = errno;
	unlinkat(dfd, tmp, 0); /* after a rename, nothing there */
	errno = err;
	return rc;
}

int jc_temp_commit(int dfd, int fd, const char *tmp, const char *target, int how)
{
	int rc = (how & JC_TEMP_SYNC) ? fsync(fd) : 0;
	int err = errno;
	if (close(fd) != 0 && rc == 0)
		rc = -1, err = errno;
	if (rc != 0) {
		unlinkat(dfd, tmp, 0);
		errno = err;
		return -1;
	}
	return jc_temp_place(dfd, tmp, target, how);
}

void jc_temp_discard(int dfd, int fd, const char *tmp)
{
	int err = errno;
	if (fd >= 0)
		close(fd);
	unlinkat(dfd, tmp, 0);
	errno = err;
}

int jc_temp_write(int fd, const void *data, size_t size)
{
	const char *buf = data;
	while (size > 0) {
		ssize_t n = write(fd, buf, size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 ? (errno = EIO, -1) : -1;
		buf += n;
		size -= (size_t)n;
	}
	return 0;
}

int jc_temp_put(int dfd, const char *dir, const void *buf, size_t size, mode_t mode,
		const char *target, int how)
{
	char tmp[PATH_MAX];
	int fd = jc_temp_open(dfd, dir, mode, tmp);
	if (fd < 0)
		return -1;
	if (jc_temp_write(fd, buf, size) != 0) {
		jc_temp_discard(dfd, fd, tmp);
		return -1;
	}
	return jc_temp_commit(dfd, fd, tmp, target, how);
}
