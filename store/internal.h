// SPDX-License-Identifier: MIT
/*
 * internal.h — what the files of the store share, and what the rooms above
 * it (cache/: cache.c, lock.c, recipe.c, transfer.c; tiers/layers.c) use
 * of the store's insides.  struct jc_cache is defined here: the store's
 * directory and counters, with the tiers and trust hung on it by cache/.
 *
 * The store's files, each calling only those above it (no cycle):
 *
 *   layout.c   paths, file identities, reading and removing one entry file
 *   scan.c     listing and cleaning one subdirectory; jc_resync
 *   count.c    this process's and the shared counters (jc_count)
 *   evict.c    making room under the cap; trim, clear, verify
 *
 * beside entry.c (the entry format), stats.c (the statistics file),
 * misses.c (the ring of recent misses, misses.h) and fsutil.c (file system
 * helpers), which know nothing of struct jc_cache.
 *
 * Layout of a cache directory DIR:
 *
 *   DIR/stats                    shared counters and per-subdirectory usage
 *   DIR/misses                   the last 128 misses, for `jitcache explain`
 *   DIR/ab/<32 hex digits>       the entry whose key starts with byte 0xab
 *   DIR/locks                    compile-once locks: one byte per key (lock.c)
 *   DIR/ab/<32 hex digits>.lock  a lock file of jitcache before 2026-11;
 *                                removed by cleanup once an hour old
 *   DIR/ab/.tmp.*                entries being written; left over by a crash
 *                                and removed by cleanup once an hour old
 *   DIR/remote-<hash>.down       until when the remote tier of that address
 *                                is skipped after a failure (remote.c)
 */
#ifndef JITCACHE_CACHE_INTERNAL_H
#define JITCACHE_CACHE_INTERNAL_H

#include "store/entry.h"
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

struct jc_cache {
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
	uint64_t max_size;
	double lock_timeout;
	int compress;
	mode_t file_mode, dir_mode;
	mode_t lock_mode;         /* files that carry locks (stats, misses,
				     locks): never readable by others, who
				     could hold a lock on them (count.c) */
	uint64_t counts[JC_NCOUNTERS]; /* this process's, updated atomically */
	uint64_t pending[JC_NCOUNTERS]; /* not yet in the statistics file
					   (its lock was busy), atomic */
	int64_t counters_busy_ns;      /* when its lock was last found busy */
	pid_t counts_pid;              /* the process they are of (a child of a
					  fork() starts with none: count.c) */
	struct jc_layers *layers;      /* read-only, searched after dir; or NULL */
	int local;                     /* 0: dir is unusable and empty: the layers
					  serve hits, and nothing else is done */
	struct jc_remote *remote;      /* NULL: no remote tier */
	struct jc_signer *signer;      /* signs what this process stores; or NULL */
	struct jc_trust *trust;        /* keys entries from Redis, layers and
					  archives must be signed with (sign.h) */
	int trust_required;            /* trusted keys were configured: with no
					  readable key, nothing is accepted */
};

/* ---- layout.c ---- */

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

/* Is the cache's dfd still the directory checked (a program that closed
 * descriptors it did not open, and opened others, could have reused it)?
 * If not, or if it was removed, the number is left alone (it may be the
 * program's now) and the directory is made again at its path, checked,
 * and held at whatever number the kernel gives (c->dir then names it), at
 * most JC_DIR_REOPEN_MAX times.  0 if usable; -1 after one line. */
int jc_dir_usable(struct jc_cache *c);

/* path, with the "/proc/self/fd/N" of c->dir shown as the configured path. */
const char *jc_shown(const struct jc_cache *c, const char *path, char out[PATH_MAX]);

/* "DIR/ab" for subdirectory sub, and "DIR/ab/name". */
void jc_subdir_path(const struct jc_cache *c, int sub, char path[PATH_MAX]);
void jc_file_path(const struct jc_cache *c, int sub, const char *name, char path[PATH_MAX]);

/* Read, validate and hand out the entry for key from its open file fd.  On a
 * bad file, returns its status with a reason in *why.  A file whose header
 * claims more than limit bytes (jc_entry_limit) is refused unread. */
enum jc_entry_status jc_read_entry(int fd, const struct jc_key *key, uint64_t limit,
				   struct jc_entry *out, const char **why);
/* The same for an entry that must be signed by a key of trust (sign.h;
 * NULL: none could be loaded): else JC_ENTRY_UNTRUSTED with *why.  The
 * signature is checked before anything is decompressed. */
struct jc_trust;
enum jc_entry_status jc_read_entry_trusted(int fd, const struct jc_key *key, uint64_t limit,
					   const struct jc_trust *trust, struct jc_entry *out,
					   const char **why);

/* Is file name of the directory dfd (AT_FDCWD: name is a path) an entry
 * file flagged as a recipe?  0 when not, or when it cannot be read. */
int jc_file_is_recipe(int dfd, const char *name);

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
int jc_remove_entry(struct jc_cache *c, int sub, const char *name,
		    const struct jc_file_id *expect);

/* Subtract, stopping at zero: counts that drifted must not wrap around. */
static inline uint64_t jc_sub_sat(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

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
int jc_list_subdir(const struct jc_cache *c, int sub, int all_locks, struct jc_listing *l);

/* Lock sub's usage record and list its entries into l (every unheld lock
 * file is removed too if all_locks): the lock's fd, or -1 (with nothing
 * held) if either fails. */
int jc_lock_and_list(struct jc_cache *c, int sub, int all_locks, struct jc_listing *l,
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
long jc_clean_subdir(struct jc_cache *c, int sub, const struct jc_quota *q);

/* Rescan one subdirectory (or all): recount its usage record and remove
 * stale temporary and lock files. */
void jc_resync(struct jc_cache *c, int sub);
void jc_resync_all(struct jc_cache *c);

/* ---- count.c ---- */

/* Add to this process's counters and to the shared ones, at once
 * (re-creating a removed or damaged statistics file, recounted with
 * jc_resync_all); *shared_after (if not NULL) gets the file's new values
 * (all 0 if the file could not be used).  Never waits more than a few
 * milliseconds for the counters' lock: what cannot be written then is
 * added by a later count, or by jc_cache_flush(). */
void jc_count(struct jc_cache *c, const uint64_t delta[JC_NCOUNTERS],
	      uint64_t shared_after[JC_NCOUNTERS]);

/* ---- cache.c ---- */

/* Store a recipe under its own key (jc_recipe_key() of its entry's), as
 * jc_cache_put_recipe() does: also for an imported one. */
int jc_store_recipe(struct jc_cache *c, const struct jc_key *key, const void *data,
		    size_t size);
/* Store an entry exactly as encoded elsewhere (an imported signed entry,
 * whose signature must stay): 0, or -1 (no directory, larger than max_size,
 * a failed write). */
struct jc_encoded;
int jc_store_encoded(struct jc_cache *c, const struct jc_key *key,
		     const struct jc_encoded *e);

/* ---- evict.c ---- */

/* Before storing incoming bytes, evict least recently used entries so that
 * the total stays under the cap (a few subdirectories at most). */
void jc_make_room(struct jc_cache *c, uint64_t incoming);

#endif
