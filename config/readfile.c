// SPDX-License-Identifier: MIT
/* readfile.c — reading a small settings or secrets file whole (readfile.h). */
#include "config/readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static const char *kind_of(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory, not a file";
	if (S_ISFIFO(mode))
		return "a FIFO, not a regular file";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device, not a regular file";
	if (S_ISSOCK(mode))
		return "a socket, not a regular file";
	return "not a regular file";
}

/* Read at most max bytes, and one more to see whether the file is longer. */
static char *read_bounded(int fd, size_t max, size_t *len, const char **why)
{
	char *buf = malloc(max + 2);
	size_t n = 0;
	if (!buf) {
		*why = "out of memory";
		return NULL;
	}
	while (n <= max) {
		ssize_t got = read(fd, buf + n, max + 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			*why = strerror(errno);
			free(buf);
			return NULL;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	if (n > max) {
		*why = "larger than a settings file may be";
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

char *jc_read_small_file(const char *path, size_t max, size_t *len, const char **why)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		*why = strerror(errno);
		return NULL;
	}
	char *text = NULL;
	if (fstat(fd, &st) != 0) {
		*why = strerror(errno);
	} else if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)) {
		text = calloc(1, 1); /* /dev/null: empty, on purpose */
		*len = 0;
		*why = "out of memory";
	} else if (!S_ISREG(st.st_mode)) {
		*why = kind_of(st.st_mode);
	} else if ((uint64_t)st.st_size > max) {
		*why = "larger than a settings file may be";
	} else {
		text = read_bounded(fd, max, len, why);
	}
	int err = errno;
	close(fd);
	errno = err;
	return text;
}
