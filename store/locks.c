// SPDX-License-Identifier: MIT
/* locks.c — DIR/locks, the one file of the compile-once locks (cache/lock.c
 * says how a key locks its byte of it; jc_store_open_locks() in store.h):
 * where it is, and that nobody but this user's processes can hold its
 * locks. */
#include "store/internal.h"

#include "store/fsutil.h"
#include "config/tempfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* Put a new, empty DIR/locks in place of what is there: 0, or -1. */
static int new_locks(struct jc_store *s, const char *path)
{
	if (jc_dir_usable(s) != 0 ||
	    jc_temp_put(AT_FDCWD, s->dir, "", 0, s->lock_mode, path, JC_TEMP_RENAME) < 0)
		return -1;
	return 0;
}

/* Made readable by others (before 2026-11, or by hand), DIR/locks would
 * let anyone hold a key's lock and make every miss wait lock_timeout.  A
 * new file is put in its place: whoever opened the old one holds locks
 * nobody asks for any more (a process compiling meanwhile is not waited
 * for, once).  Where the directory cannot be written, its owner at least
 * takes the right away. */
static int private_locks(struct jc_store *s, const char *path, int fd)
{
	struct stat st;
	if (fstat(fd, &st) != 0 || !(st.st_mode & 0007))
		return fd;
	if (new_locks(s, path) != 0) {
		(void)fchmod(fd, st.st_mode & 0770);
		return fd;
	}
	close(fd);
	return jc_fs_open_file(AT_FDCWD, path, O_RDWR, 0);
}

/* DIR/locks, for writing if this user may, else for reading. */
static int open_locks(struct jc_store *s, const char *path, short *type)
{
	mode_t mode = s->lock_mode;
	*type = F_WRLCK;
	int fd = jc_fs_open_file(AT_FDCWD, path, O_RDWR | O_CREAT, mode);
	if (fd < 0 && errno == ENOENT && jc_dir_usable(s) == 0) /* removed: made again */
		fd = jc_fs_open_file(AT_FDCWD, path, O_RDWR | O_CREAT, mode);
	if (fd < 0 && errno == JC_ENOTREG && new_locks(s, path) == 0) /* a FIFO...: replaced */
		fd = jc_fs_open_file(AT_FDCWD, path, O_RDWR | O_CREAT, mode);
	if (fd >= 0)
		return private_locks(s, path, fd);
	if (fd < 0 && (errno == EACCES || errno == EROFS)) { /* read-only cache */
		*type = F_RDLCK;
		fd = jc_fs_open_file(AT_FDCWD, path, O_RDONLY, 0);
	}
	return fd;
}

int jc_store_open_locks(struct jc_store *s, short *type, char shown[PATH_MAX])
{
	char path[PATH_MAX];
	snprintf(shown, PATH_MAX, "%s/locks", s->shown);
	if (jc_dir_usable(s) != 0) {
		errno = EBADF;
		return -1;
	}
	snprintf(path, sizeof path, "%s/locks", s->dir);
	return open_locks(s, path, type);
}
