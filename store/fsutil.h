// SPDX-License-Identifier: MIT
/*
 * fsutil.h — the operating-system details under the store (which the rooms
 * above it use too): directories that may be trusted, whole reads and
 * writes (temporary files: config/tempfile.h), timestamps and bounded waits for locks.  Nothing
 * here knows what an entry is.
 *
 * Functions return 0 on success and -1 with errno set on failure, unless
 * they say otherwise.  Waits never block longer than the timeout they are
 * given: every lock is taken by polling a non-blocking attempt with a short,
 * growing sleep, so a stopped or stuck holder costs a bounded delay, never a
 * hang.  Locks are released by the kernel when their holder dies.
 */
#ifndef JITCACHE_FSUTIL_H
#define JITCACHE_FSUTIL_H

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Create path and any missing parents with mode (like mkdir -p). */
int jc_fs_mkdir_p(const char *path, mode_t mode);

/* Open a file that others may have put in place (a cache, layer or state
 * directory): openat(dfd, path, flags | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY |
 * O_CLOEXEC, mode), kept only if fstat() says it is a regular file.  So a
 * FIFO, device, socket or directory planted under the name never blocks the
 * caller and is never read or written: -1 with errno JC_ENOTREG, as for a
 * FIFO that has no reader (whose open for writing fails with ENXIO).  dfd
 * may be AT_FDCWD.  O_NONBLOCK changes nothing for a regular file. */
#define JC_ENOTREG EMEDIUMTYPE
int jc_fs_open_file(int dfd, const char *path, int flags, mode_t mode);

/* strerror(err), saying "not a regular file" for JC_ENOTREG. */
const char *jc_fs_strerror(int err);

/* Write every byte of the iovecs, resuming after short writes. */
int jc_fs_write_all(int fd, const struct iovec *iov, int count);

/* Read exactly size bytes; -1 with errno EIO if the file ends first. */
int jc_fs_read_all(int fd, void *buf, size_t size);

/* Files that are not the cache's (a driver's own directory, shim/cl's
 * PoCL refresh), read the same careful way: links never followed below the
 * directory, a FIFO or device never opened.
 *
 * jc_fs_walk() calls fn(ctx, path, depth, size) for each regular file below
 * dir, depth-first, the names of a directory in alphabetical order: path is
 * dir, "/" and the file's names below it (valid during the call), depth
 * that of the file's directory, counted from first_depth for dir itself.
 * Symbolic links are not followed, ".", ".." and names skip(name) refuses
 * are left out (directories with all below them), and directories deeper
 * than max_depth are not entered.  Paths longer than PATH_MAX are left out. */
typedef void jc_fs_walk_fn(void *ctx, const char *path, int depth, uint64_t size);
void jc_fs_walk(const char *dir, int first_depth, int max_depth, int (*skip)(const char *name),
		jc_fs_walk_fn *fn, void *ctx);
/* A regular file whole, at most limit bytes, not through a symbolic link and
 * never waiting (O_NONBLOCK): 0 with *data (malloc'd) and *size, else -1. */
int jc_fs_read_file(const char *path, size_t limit, unsigned char **data, size_t *size);
/* path with every symbolic link, "." and ".." resolved (malloc'd), or NULL. */
char *jc_fs_realpath(const char *path);
/* The size of the regular file at path (links followed), or -1. */
int64_t jc_fs_file_size(const char *path);
/* The mtime of what path names (links followed), in nanoseconds, or -1. */
int64_t jc_fs_path_mtime_ns(const char *path);
/* Whether anything is at path (links followed). */
int jc_fs_exists(const char *path);
/* fn(ctx, name) for each entry of dir but "." and "..", in the directory's
 * order, until fn returns nonzero (which is returned); 0, or -1 if dir
 * cannot be read. */
int jc_fs_each_name(const char *dir, int (*fn)(void *ctx, const char *name), void *ctx);
/* A file's mtime in nanoseconds (as config/clock.h's jc_wall_ns()). */
int64_t jc_fs_mtime_ns(const struct stat *st);

/* Set the modification time of an open file to ns (falling back to "now"
 * where only the owner may set an explicit time, as in a shared cache). */
int jc_fs_set_mtime(int fd, int64_t ns);


/* An open-file-description lock (F_OFD_SETLK) of type F_RDLCK or F_WRLCK on
 * [start, start+len), waiting at most timeout seconds.  Such locks belong to
 * the open file, so two threads that each opened the file exclude each other
 * just as two processes do; closing the fd releases them. */
int jc_fs_lock_range(int fd, short type, off_t start, off_t len, double timeout);
void jc_fs_unlock_range(int fd, off_t start, off_t len);

/* Little-endian fields of the on-disk formats. */
static inline void jc_put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t jc_get_le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* ---- directories that may be trusted (defined in layout.c) ---- */

/* Open the directory at path (creating it and missing parents with mode
 * first, with JC_DIR_CREATE) and check, on the open directory itself, that
 * it may be trusted: owned by this user (or root too, with JC_DIR_LAYER)
 * and writable by nobody else, unless shared.  The descriptor (O_CLOEXEC),
 * or -1 after one log line saying why (none with JC_DIR_QUIET); *st gets
 * what it is. */
#define JC_DIR_CREATE 1
#define JC_DIR_LAYER  2 /* a read-only layer: root may own it; messages say so */
#define JC_DIR_QUIET  4
int jc_dir_open(const char *path, int flags, mode_t mode, int shared, struct stat *st);

/* The name by which files below a held directory fd are reached:
 * "/proc/self/fd/N", which cannot be made to lead elsewhere.  0; or -1
 * after one line saying why (no /proc: path itself could be swapped by a
 * rename of a parent, so the directory is not used). */
int jc_dir_name(int fd, const struct stat *st, const char *path, char *out, size_t size);

#endif
