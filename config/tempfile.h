// SPDX-License-Identifier: MIT
/*
 * tempfile.h — a file written whole or not at all, as git's tempfile and
 * lockfile API: create a temporary file beside the target, write it, then
 * commit it into place with one rename (or link), or discard it.  Readers
 * see the old file or the new one, never half of one; a writer killed
 * halfway leaves a ".tmp.*" file that nobody reads (the store's scans
 * remove old ones), never a damaged target.
 *
 * Nothing is removed at exit or on a signal (jitcache installs no handler
 * in the program's process): each failing step removes the temporary
 * file itself, and errno then says why the step failed.
 *
 * Every name is taken relative to dfd (AT_FDCWD, or a directory held open
 * so that a rename of its parents cannot redirect the writes).
 *
 *   char tmp[PATH_MAX];
 *   int fd = jc_temp_open(AT_FDCWD, dir, 0644, tmp);
 *   if (fd < 0) ...nothing made...
 *   ...write fd...
 *   if (jc_temp_commit(AT_FDCWD, fd, tmp, target, JC_TEMP_RENAME) < 0)
 *           ...failed: target untouched, tmp gone...
 *   // or, for bytes already in memory, all of it in one call:
 *   jc_temp_put(AT_FDCWD, dir, bytes, n, 0600, target, JC_TEMP_LINK);
 */
#ifndef JITCACHE_CONFIG_TEMPFILE_H
#define JITCACHE_CONFIG_TEMPFILE_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

/* How a temporary file is put in place (jc_temp_place's `how`):
 * RENAME replaces whatever is there; LINK keeps a file another process put
 * there first; LINK_OR_RENAME links, but renames where the file system has
 * no hard links (EPERM, EOPNOTSUPP).  With SYNC (or'd in), the file is
 * fsync'd before it is closed (jc_temp_commit, jc_temp_put). */
#define JC_TEMP_RENAME 0
#define JC_TEMP_LINK 1
#define JC_TEMP_LINK_OR_RENAME 2
#define JC_TEMP_SYNC 8

/* A new file "DIR/.tmp.PID.N.NOISE" (mode, less the umask), open for
 * writing (O_CLOEXEC), never through a symbolic link and never a name that
 * exists: its descriptor, with its name in tmp; or -1 with nothing made. */
int jc_temp_open(int dfd, const char *dir, mode_t mode, char tmp[PATH_MAX]);

/* The same in the directory that holds target (".", for a bare name). */
int jc_temp_open_beside(int dfd, const char *target, mode_t mode, char tmp[PATH_MAX]);

/* Every byte of data to fd, resuming after short writes: 0, or -1 with
 * errno (EIO where the file system took nothing). */
int jc_temp_write(int fd, const void *data, size_t size);

/* The closed temporary file tmp put in place as target (how), then tmp
 * removed, whatever happened: 1 if put in place, 0 if (LINK) a file was
 * there first and is kept, -1 with errno. */
int jc_temp_place(int dfd, const char *tmp, const char *target, int how);

/* fd closed (fsync'd first with JC_TEMP_SYNC), then jc_temp_place(): its
 * answer; -1 with tmp removed if the data could not be written out. */
int jc_temp_commit(int dfd, int fd, const char *tmp, const char *target, int how);

/* fd closed (if >= 0) and tmp removed, errno kept. */
void jc_temp_discard(int dfd, int fd, const char *tmp);

/* The whole file target := size bytes of buf, made in dir with mode:
 * jc_temp_open, write, jc_temp_commit. */
int jc_temp_put(int dfd, const char *dir, const void *buf, size_t size, mode_t mode,
		const char *target, int how);

#endif
