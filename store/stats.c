// SPDX-License-Identifier: MIT
#include "store/stats.h"
#include "config/clock.h"

#include "store/fsutil.h"
#include "config/tempfile.h"
#include "config/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE 4096
#define FILE_SIZE (3 * PAGE)
#define MAGIC_SIZE 16            /* "jcstats\0" + version + reserved */
#define COUNTERS_AT MAGIC_SIZE
#define COUNTERS_SIZE (8 * JC_NCOUNTERS)
#define USAGE_AT PAGE
#define RECORD 32                /* divides PAGE: no record crosses a page */
#define VERSION 1
#define STORE_LOCK_AT FILE_SIZE  /* a lock, not data: past the end is fine */
#define SINCE_AT (PAGE - 8)      /* when the counters started */
#define ASIDE_AT (PAGE - 16)     /* nonzero: counts may have been set aside */
_Static_assert(COUNTERS_AT + COUNTERS_SIZE <= ASIDE_AT, "counters overflow page 0");

/* The counters are held for a read and a write; a usage record may be held
 * while its subdirectory is scanned. */
#define COUNTERS_WAIT 0.5
#define USAGE_WAIT 10.0

static void stats_path(const char *dir, char path[PATH_MAX])
{
	snprintf(path, PATH_MAX, "%s/stats", dir);
}

static void put_magic(uint8_t *p)
{
	memcpy(p, "jcstats", 8);
	jc_put_le64(p + 8, VERSION);
}

static int magic_ok(const uint8_t *p)
{
	return memcmp(p, "jcstats", 8) == 0 && jc_get_le64(p + 8) == VERSION;
}

static int open_stats(const char *dir, int flags)
{
	char path[PATH_MAX];
	stats_path(dir, path);
	return jc_fs_open_file(AT_FDCWD, path, flags, 0);
}

/* Unlock before closing: after a fork() in another thread of the host, a
 * child shares the open file, and close() alone would leave it the lock. */
static void done(int fd)
{
	jc_fs_unlock_range(fd, 0, 0);
	close(fd);
}

/* Read page 0's magic and counters; EBADMSG if the file is not ours. */
static int read_head(int fd, uint8_t head[MAGIC_SIZE + COUNTERS_SIZE])
{
	ssize_t n = pread(fd, head, MAGIC_SIZE + COUNTERS_SIZE, 0);
	if (n == MAGIC_SIZE + COUNTERS_SIZE && magic_ok(head))
		return 0;
	if (n >= 0) {
		JC_LOG_ONCE(JC_LOG_WARN, "statistics file in a cache directory is damaged; "
			    "it will be replaced and the sizes recounted");
		errno = EBADMSG;
	}
	return -1;
}

/* Write a fresh file beside the old one and put it in place; with from,
 * a copy of that open file's contents (which are sound). */
static int create_file(const char *dir, mode_t mode, int replace, int from)
{
	char path[PATH_MAX];
	uint8_t *buf = calloc(1, FILE_SIZE);
	if (!buf)
		return -1;
	if (from < 0 || pread(from, buf, FILE_SIZE, 0) != FILE_SIZE) {
		memset(buf, 0, FILE_SIZE);
		put_magic(buf);
		jc_put_le64(buf + SINCE_AT, (uint64_t)jc_wall_ns());
		jc_put_le64(buf + ASIDE_AT, 1); /* counts set aside before, if any */
	}
	/* Linked, keeping a file another process made meanwhile. */
	stats_path(dir, path);
	int rc = jc_temp_put(AT_FDCWD, dir, buf, FILE_SIZE, mode, path,
			     replace ? JC_TEMP_RENAME : JC_TEMP_LINK_OR_RENAME);
	free(buf);
	return rc;
}

int jc_stats_init(const char *dir, mode_t mode)
{
	int fd = open_stats(dir, O_RDONLY);
	if (fd < 0)
		/* A symlink in its place (ELOOP) is replaced, never followed;
		 * a FIFO or the like, never opened for reading or writing. */
		return errno == ENOENT ? create_file(dir, mode, 0, -1)
		     : errno == ELOOP || errno == JC_ENOTREG ? create_file(dir, mode, 1, -1) : -1;
	struct stat st;
	uint8_t head[MAGIC_SIZE + COUNTERS_SIZE];
	int sound = fstat(fd, &st) == 0 && st.st_size == FILE_SIZE && read_head(fd, head) == 0;
	int rc = sound ? 0 : create_file(dir, mode, 1, -1);
	/* Made readable by others (before 2026-11, or by hand): anyone could
	 * have opened it and hold its locks.  A private copy takes its place
	 * (counts added meanwhile may be lost, once); where the directory
	 * cannot be written, its owner at least takes the right away. */
	if (sound && (st.st_mode & 0007) && create_file(dir, mode, 1, fd) != 1 &&
	    fchmod(fd, st.st_mode & 0770) != 0)
		JC_LOG_ONCE(JC_LOG_WARN, "the statistics file in a cache directory is readable by "
			    "others, who could stall its counts; chmod o-rwx it");
	close(fd);
	return rc;
}

/* ---- counts set aside ------------------------------------------------------
 *
 * A count that cannot have the counters' lock in time (many processes
 * counting at once on a loaded machine, whose holder the scheduler has
 * stopped inside it) is not kept in the process, where an exit without the
 * lock lost it: it is added to a file of the process's own beside the
 * statistics file, DIR/stats-aside-PID (magic, then the counters, as page
 * 0), under a lock on that file alone, and the word at ASIDE_AT of page 0
 * is set.  The next process that holds the counters' lock and finds that
 * word set clears it and folds every such file in: it locks the file
 * (skipping one that is busy, and setting the word again), adds what it
 * holds and removes it.  A writer that finds its file removed (no link
 * left) after taking its lock makes a new one.  So every count is in the
 * statistics file or in a file beside it before the call that made it
 * returns; a reader under the counters' lock adds the files not yet folded
 * in, which no fold can change meanwhile. */
#define ASIDE_PREFIX "stats-aside-"
#define ASIDE_SIZE (MAGIC_SIZE + COUNTERS_SIZE)
#define ASIDE_FOLD_MAX 64 /* files folded in by one count */
#define ASIDE_WAIT 0.05   /* for one held by its writer, when reading or zeroing */

static void aside_mark(int fd, uint64_t v)
{
	uint8_t b[8];
	jc_put_le64(b, v);
	if (pwrite(fd, b, 8, ASIDE_AT) != 8)
		JC_LOG_ONCE(JC_LOG_INFO, "cannot mark counts set aside in a cache's statistics "
			    "file (%s)", strerror(errno));
}

static int aside_marked(int fd)
{
	uint8_t b[8];
	return pread(fd, b, 8, ASIDE_AT) == 8 && jc_get_le64(b) != 0;
}

/* Is the aside file fd still in the directory (not folded in and removed)? */
static int aside_linked(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && st.st_nlink > 0;
}

/* The bytes of an aside file fd (locked): 0 if they are sound. */
static int aside_read(int fd, uint8_t buf[ASIDE_SIZE])
{
	struct stat st;
	return fstat(fd, &st) == 0 && st.st_size == ASIDE_SIZE &&
	       pread(fd, buf, ASIDE_SIZE, 0) == ASIDE_SIZE && memcmp(buf, "jcaside", 8) == 0
		? 0 : -1;
}

static void aside_sum(const uint8_t buf[ASIDE_SIZE], uint64_t v[JC_NCOUNTERS])
{
	for (int i = 0; i < JC_NCOUNTERS; i++)
		v[i] += jc_get_le64(buf + MAGIC_SIZE + 8 * i);
}

int jc_stats_aside(const char *dir, mode_t mode, const uint64_t delta[JC_NCOUNTERS], double wait)
{
	char path[PATH_MAX];
	uint8_t buf[ASIDE_SIZE];
	snprintf(path, sizeof path, "%s/" ASIDE_PREFIX "%ld", dir, (long)getpid());
	for (int attempt = 0; attempt < 3; attempt++) {
		int fd = jc_fs_open_file(AT_FDCWD, path, O_RDWR | O_CREAT, mode);
		if (fd < 0)
			return -1;
		if (jc_fs_lock_range(fd, F_WRLCK, 0, 0, wait) != 0) {
			int err = errno;
			close(fd);
			return errno = err, -1;
		}
		if (!aside_linked(fd)) { /* folded in meanwhile */
			done(fd);
			continue;
		}
		if (aside_read(fd, buf) != 0) { /* new (or not ours: replaced) */
			memset(buf, 0, sizeof buf);
			put_magic(buf);
			memcpy(buf, "jcaside", 8);
		}
		for (int i = 0; i < JC_NCOUNTERS; i++) {
			uint8_t *p = buf + MAGIC_SIZE + 8 * i;
			jc_put_le64(p, jc_get_le64(p) + delta[i]);
		}
		int rc = pwrite(fd, buf, ASIDE_SIZE, 0) == ASIDE_SIZE ? 0 : -1;
		done(fd);
		if (rc != 0)
			return -1;
		int sfd = open_stats(dir, O_RDWR); /* after the file: see above */
		if (sfd < 0)
			return 0; /* a new one is made marked (create_file) */
		aside_mark(sfd, 1);
		close(sfd);
		return 0;
	}
	return errno = EAGAIN, -1;
}

/* Call fn(ctx, fd) for each aside file of dir, opened and locked (waiting
 * at most wait); 1 if some were left (busy, or past max), else 0. */
static int each_aside(const char *dir, int flags, short type, double wait, int max,
		      int (*fn)(void *ctx, int fd, const char *path), void *ctx)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[PATH_MAX];
	int left = 0, n = 0;
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, ASIDE_PREFIX, sizeof ASIDE_PREFIX - 1) != 0)
			continue;
		if (n++ >= max) {
			left = 1;
			break;
		}
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		int fd = jc_fs_open_file(AT_FDCWD, path, flags, 0);
		if (fd < 0)
			continue; /* gone, or not a regular file: not counts */
		if (jc_fs_lock_range(fd, type, 0, 0, wait) != 0)
			left = 1;
		else
			fn(ctx, fd, path);
		done(fd);
	}
	if (d)
		closedir(d);
	return left;
}

/* Removed while locked and linked: path still names fd's file, which the
 * next writer, finding no link left, makes again. */
static int fold_one(void *ctx, int fd, const char *path)
{
	uint8_t buf[ASIDE_SIZE];
	if (!aside_linked(fd))
		return 0;
	int sound = aside_read(fd, buf) == 0; /* else damaged: nothing to count */
	if (unlink(path) == 0 && sound)
		aside_sum(buf, ctx);
	return 0;
}

static int read_one(void *ctx, int fd, const char *path)
{
	uint8_t buf[ASIDE_SIZE];
	(void)path;
	if (aside_linked(fd) && aside_read(fd, buf) == 0)
		aside_sum(buf, ctx);
	return 0;
}

static int drop_one(void *ctx, int fd, const char *path)
{
	(void)ctx;
	return aside_linked(fd) ? unlink(path) : 0;
}

/* Under the counters' write lock: the counts set aside into add. */
static void fold_aside(int fd, const char *dir, uint64_t add[JC_NCOUNTERS])
{
	if (!aside_marked(fd))
		return;
	aside_mark(fd, 0); /* before the files are looked for: see above */
	if (each_aside(dir, O_RDWR, F_WRLCK, 0, ASIDE_FOLD_MAX, fold_one, add))
		aside_mark(fd, 1);
}

static int change_counters(int fd, const char *dir, const uint64_t delta[JC_NCOUNTERS],
			   uint64_t after[JC_NCOUNTERS], double wait)
{
	uint8_t head[MAGIC_SIZE + COUNTERS_SIZE];
	uint64_t add[JC_NCOUNTERS];
	if (jc_fs_lock_range(fd, F_WRLCK, 0, PAGE, wait) != 0 || read_head(fd, head) != 0)
		return -1;
	memcpy(add, delta, sizeof add);
	fold_aside(fd, dir, add);
	for (int i = 0; i < JC_NCOUNTERS; i++) {
		uint8_t *p = head + COUNTERS_AT + 8 * i;
		uint64_t v = jc_get_le64(p) + add[i];
		jc_put_le64(p, v);
		if (after)
			after[i] = v;
	}
	return pwrite(fd, head + COUNTERS_AT, COUNTERS_SIZE, COUNTERS_AT) == COUNTERS_SIZE ? 0 : -1;
}

int jc_stats_add(const char *dir, const uint64_t delta[JC_NCOUNTERS],
		 uint64_t after[JC_NCOUNTERS], double wait)
{
	int fd = open_stats(dir, O_RDWR);
	if (fd < 0)
		return -1;
	int rc = change_counters(fd, dir, delta, after, wait);
	done(fd);
	return rc;
}

int jc_stats_read(const char *dir, uint64_t out[JC_NCOUNTERS])
{
	uint8_t head[MAGIC_SIZE + COUNTERS_SIZE];
	int fd = open_stats(dir, O_RDONLY);
	if (fd < 0)
		return -1;
	int rc = jc_fs_lock_range(fd, F_RDLCK, 0, PAGE, COUNTERS_WAIT) == 0 ? read_head(fd, head) : -1;
	for (int i = 0; rc == 0 && i < JC_NCOUNTERS; i++)
		out[i] = jc_get_le64(head + COUNTERS_AT + 8 * i);
	/* With the counts set aside and not yet folded in (none can be
	 * meanwhile: folding takes the write lock). */
	if (rc == 0 && aside_marked(fd))
		each_aside(dir, O_RDONLY, F_RDLCK, ASIDE_WAIT, INT32_MAX, read_one, out);
	done(fd);
	return rc;
}

int jc_stats_since(const char *dir, int64_t *since_ns)
{
	uint8_t b[8];
	int fd = open_stats(dir, O_RDONLY);
	if (fd < 0)
		return -1;
	int rc = jc_fs_lock_range(fd, F_RDLCK, 0, PAGE, COUNTERS_WAIT) == 0 &&
		 pread(fd, b, 8, SINCE_AT) == 8 ? 0 : -1;
	done(fd);
	if (rc == 0)
		*since_ns = (int64_t)jc_get_le64(b);
	return rc;
}

int jc_stats_zero(const char *dir)
{
	uint8_t head[MAGIC_SIZE + COUNTERS_SIZE], since[8];
	int fd = open_stats(dir, O_RDWR);
	if (fd < 0)
		return -1;
	int rc = jc_fs_lock_range(fd, F_WRLCK, 0, PAGE, COUNTERS_WAIT) == 0 &&
		 read_head(fd, head) == 0 ? 0 : -1;
	memset(head + COUNTERS_AT, 0, COUNTERS_SIZE);
	jc_put_le64(since, (uint64_t)jc_wall_ns());
	if (rc == 0 && (pwrite(fd, head + COUNTERS_AT, COUNTERS_SIZE, COUNTERS_AT) != COUNTERS_SIZE ||
			pwrite(fd, since, 8, SINCE_AT) != 8))
		rc = -1;
	if (rc == 0 && aside_marked(fd)) { /* counts set aside are counts too */
		aside_mark(fd, 0);
		if (each_aside(dir, O_RDWR, F_WRLCK, ASIDE_WAIT, INT32_MAX, drop_one, NULL))
			aside_mark(fd, 1);
	}
	done(fd);
	return rc;
}

/* A record: size, count, oldest_ns, then the recipes among count with
 * RECIPES_COUNTED set.  That word was zero (reserved) before recipes were
 * counted apart, and an older jitcache writing the record still zeroes it:
 * without the mark, a record with entries has its recipes uncounted. */
#define RECIPES_COUNTED (1ull << 63)

static void decode_usage(const uint8_t *p, struct jc_usage *u)
{
	uint64_t recipes = jc_get_le64(p + 24);
	u->size = jc_get_le64(p);
	u->count = jc_get_le64(p + 8);
	u->oldest_ns = (int64_t)jc_get_le64(p + 16);
	u->recipes = recipes & RECIPES_COUNTED ? recipes & ~RECIPES_COUNTED
		   : u->count ? JC_USAGE_UNSPLIT : 0;
}

static int read_usage(int fd, int first, int n, struct jc_usage *out)
{
	uint8_t buf[JC_SUBDIRS * RECORD];
	uint8_t head[MAGIC_SIZE + COUNTERS_SIZE];
	size_t size = (size_t)n * RECORD;
	if (read_head(fd, head) != 0)
		return -1;
	if (pread(fd, buf, size, USAGE_AT + first * RECORD) != (ssize_t)size)
		return errno = EBADMSG, -1;
	for (int i = 0; i < n; i++)
		decode_usage(buf + i * RECORD, &out[i]);
	return 0;
}

int jc_stats_usage_all(const char *dir, struct jc_usage out[JC_SUBDIRS])
{
	int fd = open_stats(dir, O_RDONLY);
	if (fd < 0)
		return -1;
	int rc = jc_fs_lock_range(fd, F_RDLCK, USAGE_AT, JC_SUBDIRS * RECORD, USAGE_WAIT);
	if (rc == 0)
		rc = read_usage(fd, 0, JC_SUBDIRS, out);
	done(fd);
	return rc;
}

int jc_stats_store_lock(const char *dir)
{
	int fd = open_stats(dir, O_RDWR);
	if (fd >= 0 && jc_fs_lock_range(fd, F_WRLCK, STORE_LOCK_AT, 1, USAGE_WAIT) != 0) {
		done(fd);
		return -1;
	}
	return fd;
}

void jc_stats_store_unlock(int fd)
{
	done(fd);
}

int jc_usage_lock(const char *dir, int sub, struct jc_usage *u)
{
	int fd = open_stats(dir, O_RDWR);
	if (fd < 0)
		return -1;
	if (jc_fs_lock_range(fd, F_WRLCK, USAGE_AT + sub * RECORD, RECORD, USAGE_WAIT) != 0 ||
	    read_usage(fd, sub, 1, u) != 0) {
		int saved = errno;
		done(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

void jc_usage_commit(int fd, int sub, const struct jc_usage *u)
{
	uint8_t rec[RECORD] = { 0 };
	jc_put_le64(rec, u->size);
	jc_put_le64(rec + 8, u->count);
	jc_put_le64(rec + 16, (uint64_t)u->oldest_ns);
	if (u->recipes != JC_USAGE_UNSPLIT)
		jc_put_le64(rec + 24, (u->recipes < u->count ? u->recipes : u->count) | RECIPES_COUNTED);
	if (pwrite(fd, rec, RECORD, USAGE_AT + sub * RECORD) != RECORD)
		JC_LOG_ONCE(JC_LOG_INFO, "cannot update the cache's statistics file; "
			    "its sizes will be recounted later");
	done(fd);
}

void jc_usage_release(int fd)
{
	done(fd);
}
