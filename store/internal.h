// SPDX-License-Identifier: MIT
/*
 * internal.h — what the files of the store share; no file outside store/
 * includes it (tests/integration/layout.sh checks).  The rooms above use
 * the store through store/store.h.  struct jc_store is defined here.
 *
 * The store's files, each calling only those above it (no cycle):
 *
 *   layout.c   paths, file identities, reading and removing one entry file
 *   scan.c     listing and cleaning one subdirectory; jc_resync
 *   count.c    the shared counters (jc_store_count)
 *   evict.c    making room under the cap; trim, clear, verify
 *   store.c    opening the store; get, put, remove, the admin's walks
 *   locks.c    DIR/locks, the compile-once locks' file (jc_store_open_locks)
 *
 * beside object.c (the names of objects in every layout and the walk over
 * a directory of them: object.h), entry.c (the entry format), stats.c
 * (the statistics file), misses.c (the ring of recent misses, misses.h)
 * and fsutil.c (file system helpers), which know nothing of struct
 * jc_store.
 *
 * Layout of a cache directory DIR:
 *
 *   DIR/stats                    shared counters and per-subdirectory usage
 *   DIR/misses                   the last 128 misses, for `jitcache explain`
 *   DIR/ab/<32 hex digits>       the entry whose key starts with byte 0xab
 *   DIR/locks                    compile-once locks: one byte per key
 *                                (cache/lock.c, through jc_store_open_locks())
 *   DIR/ab/<32 hex digits>.lock  a lock file of jitcache before 2026-11;
 *                                removed by cleanup once an hour old
 *   DIR/ab/.tmp.*                entries being written; left over by a crash
 *                                and removed by cleanup once an hour old
 *   DIR/.tmp.import.*            an import's spool (jc_store_spool), where
 *                                O_TMPFILE is not: unlinked at once
 *   DIR/remote-<hash>.down       until when the remote tier of that address
 *                                is skipped after a failure (tiers/remote.c)
 */
#ifndef JITCACHE_STORE_INTERNAL_H
#define JITCACHE_STORE_INTERNAL_H

#include "store/entry.h"
#include "store/fsutil.h"
#include "store/stats.h"
#include "store/store.h"

#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

/* How many times a process opens its cache directory again after losing
 * it (its descriptor closed or reused by the program, the directory
 * removed) before it stops caching: each time costs one descriptor, kept
 * open to the end (layout.c says why). */
#define JC_DIR_REOPEN_MAX 8

/* Leftover temporary and lock files older than this are removed. */
#define JC_STALE_NS (3600 * (int64_t)1000000000)

struct jc_store {
	/* Every file of the cache is reached through dir, which names the
	 * directory held open in dfd ("/proc/self/fd/N"), never through the
	 * configured path again: a rename of the directory or of an ancestor
	 * after it was checked cannot put another in its place.  N is whatever
	 * number the kernel gave when the directory was first needed (never a
	 * number chosen by jitcache, which the program could be using); dfd is
	 * checked to be the same directory (held_dev, held_ino) before each
	 * use, and the directory opened again at a new number if the program
	 * closed or reused it (layout.c).  dir then points to the new name:
	 * it is read atomically, and the names are kept in names[] for the
	 * process's life, so a thread still using an older one reads a whole
	 * string.  shown is the path as configured (absolute), for messages
	 * and for the remotes' back-off files, which hold only a time. */
	const char *_Atomic dir;
	char names[JC_DIR_REOPEN_MAX + 1][32];
	int reopened;             /* names[] used after the first */
	char shown[PATH_MAX - 64];
	int dfd;                  /* the checked directory, or -1 (atomic) */
	uint64_t held_dev, held_ino; /* what dfd is (atomic: revival replaces it) */
	int shared;
	int read_only;            /* a layer (jc_store_open_read_only): never
				     written, made or opened again */
	uint64_t max_size;
	mode_t file_mode, dir_mode;
	mode_t lock_mode;         /* files that carry locks (stats, misses,
				     locks): never readable by others, who
				     could hold a lock on them (count.c) */
	uint64_t pending[JC_NCOUNTERS]; /* not yet in the statistics file
					   (its lock was busy), atomic */
	int64_t counters_busy_ns;      /* when its lock was last found busy */
	pid_t pending_pid;             /* the process pending is of (a child
					  of a fork() starts with none) */
	jc_store_count_fn *counted;    /* told of the counts the store makes */
	void *counted_ctx;
};

/* ---- layout.c ---- */

/* Is the store's dfd still the directory checked (a program that closed
 * descriptors it did not open, and opened others, could have reused it)?
 * If not, or if it was removed, the number is left alone (it may be the
 * program's now) and the directory is made again at its path, checked,
 * and held at whatever number the kernel gives (c->dir then names it), at
 * most JC_DIR_REOPEN_MAX times.  0 if usable; -1 after one line. */
int jc_dir_usable(struct jc_store *c);
/* Is c->dfd still the directory held (even if removed)?  What may be
 * closed at the end: a number the program reused is the program's. */
int jc_dir_held(const struct jc_store *c);

/* path, with the "/proc/self/fd/N" of c->dir shown as the configured path. */
const char *jc_shown(const struct jc_store *c, const char *path, char out[PATH_MAX]);

/* "DIR/ab" for subdirectory sub, and "DIR/ab/name". */
void jc_subdir_path(const struct jc_store *c, int sub, char path[PATH_MAX]);
void jc_file_path(const struct jc_store *c, int sub, const char *name, char path[PATH_MAX]);

/* Which file a name referred to when it was looked at. */
struct jc_file_id {
	dev_t dev;
	ino_t ino;
	int64_t mtime_ns;
};
void jc_file_id_of(const struct stat *st, struct jc_file_id *id);

/* Remove DIR/ab/name and take it off the usage record; if expect is given,
 * only if the name still refers to that file, unchanged (not replaced, not
 * used since).  Returns 0 if removed. */
int jc_remove_entry(struct jc_store *c, int sub, const char *name,
		    const struct jc_file_id *expect);

/* ---- scan.c ---- */

struct jc_item {
	char name[2 * JC_KEY_BYTES + 1];
	int sub;
	int recipe;            /* the file says it is a recipe (cache.h) */
	uint64_t size;
	struct jc_file_id id;
};

struct jc_listing {
	struct jc_item *v;
	size_t n, cap;
	uint64_t size;
	long odd, odd_kept; /* entry names that were not regular files:
			       removed, and left (could not remove them) */
	FILE *say;  /* set by the caller: where to name each of them */
};

/* Add the entries of subdirectory sub to l, removing stale temporary files
 * and lock files (every unheld lock file if all_locks), and anything under
 * an entry's name that is not a regular file (a symlink, FIFO, socket or
 * device someone put there: never opened; each counted in l->odd or
 * l->odd_kept and named on l->say).  A subdirectory
 * that does not exist is empty; one that cannot be read (a symlink, which
 * is never followed, included) is -1 with errno set. */
int jc_list_subdir(const struct jc_store *c, int sub, int all_locks, struct jc_listing *l);

/* Lock sub's usage record and list its entries into l (every unheld lock
 * file is removed too if all_locks): the lock's fd, or -1 (with nothing
 * held) if either fails. */
int jc_lock_and_list(struct jc_store *c, int sub, int all_locks, struct jc_listing *l,
		     struct jc_usage *u);
void jc_sort_by_age(struct jc_listing *l);
/* The usage record of the entries l->v[from..]. */
void jc_usage_of(const struct jc_listing *l, size_t from, struct jc_usage *u);

/* What an eviction round may remove from one subdirectory. */
struct jc_quota {
	int64_t bound;  /* entries older than this go first (INT64_MAX: any) */
	uint64_t need;  /* stop once this many bytes are freed */
	int all_locks;  /* remove every unheld lock file (clear) */
};

/* Scan sub under its record lock, remove entries oldest first as q allows,
 * and rewrite the record from what is left.  Returns the number removed, or
 * -1 if the subdirectory could not be locked or read. */
long jc_clean_subdir(struct jc_store *c, int sub, const struct jc_quota *q);

/* Rescan one subdirectory (or all): recount its usage record and remove
 * stale temporary and lock files. */
void jc_resync(struct jc_store *c, int sub);
void jc_resync_all(struct jc_store *c);

/* ---- count.c ---- */

/* Count what the store did itself (stores, evictions, entries verify found
 * bad): tell the owner's counted function (jc_store_options), then add them
 * to the shared counters (jc_store_count). */
void jc_store_count_own(struct jc_store *s, const uint64_t delta[JC_NCOUNTERS],
			uint64_t shared_after[JC_NCOUNTERS]);

/* ---- evict.c ---- */

/* Before storing incoming bytes, evict least recently used entries so that
 * the total stays under the cap (a few subdirectories at most). */
void jc_make_room(struct jc_store *c, uint64_t incoming);

#endif
