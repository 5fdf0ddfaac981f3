// SPDX-License-Identifier: MIT
/*
 * store.h — the local on-disk store (store/): one cache directory of
 * verified entries, as ccache's LocalStorage or Mesa's disk_cache_*.  It
 * knows no GPU, no tier and no setting; it calls only trust/ (entries are
 * signed and verified as they are written and read) and config/ (log
 * lines).  cache/ (cache/cache.h) opens one and composes it with the
 * read-only layers, the remotes and the compile-once locks; it asks the
 * store and never reaches into it (store/internal.h is the store's alone).
 *
 *   struct jc_store *s = jc_store_open(&opts);   // NULL: said why
 *   struct jc_entry e;
 *   if (jc_store_get(s, &key, &e) == 0) { use(e.data, e.size); jc_entry_free(&e); }
 *   jc_entry_encode(&key, bin, size, compile_word, compress, &enc); // entry.h
 *   jc_store_put(s, &key, &enc, 1);               // temp file, rename, evict
 *   jc_store_flush(s);                            // counts still pending
 *   jc_store_close(s);
 *
 * Entries: DIR/ab/<32 hex digits> for a key starting with byte 0xab
 * (store/object.h names them, wherever they lie), in the format of
 * store/entry.h, written to a temporary file in the same
 * subdirectory and renamed into place, so a reader sees a whole entry or
 * none; a read checks the whole entry and a bad one is removed.  The size
 * cap, the usage record of each subdirectory, eviction of the least
 * recently used entries and the statistics file (store/stats.h) are the
 * store's business: a put makes room, a get refreshes recency.
 *
 * Error convention: nothing here aborts or exits; functions return 0 or -1
 * (get: -2 too) and say what went wrong at most once per kind of problem
 * (config/log.h).  The caller owns what it passes in; jc_store_get() hands
 * over e.data, freed by jc_entry_free().  Every function is safe to call
 * from several threads and processes at once.
 */
#ifndef JITCACHE_STORE_H
#define JITCACHE_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

#define JC_KEY_BYTES 16

struct jc_key {
	uint8_t bytes[JC_KEY_BYTES];
};

/* Lower-case hex of the key, NUL-terminated. */
void jc_key_hex(const struct jc_key *key, char out[2 * JC_KEY_BYTES + 1]);
/* And back, as an entry's file name is read: 0, or -1 if s is not exactly
 * 2 * JC_KEY_BYTES lower-case hex digits (a lock, temporary or someone
 * else's file; key then partly written). */
int jc_key_from_hex(const char *s, struct jc_key *key);

struct jc_entry {
	void *data;
	size_t size;
	uint64_t compile_ns; /* what compiling this cost when it was stored */
	uint64_t wall_ns;    /* its wall time (entry.h: compile_ns if unknown) */
	int layer;           /* 0: from the cache directory; n: from the n-th
				read-only layer (tiers/layers.h) */
	int remote;          /* not 0: the slot (stats.h's JC_TIERS) of the remote tier that
				answered it (then kept locally) */
	void *map;           /* non-NULL: data lies in this read-only mapping of
				the entry file (map_size bytes), not on the heap */
	size_t map_size;
};
void jc_entry_free(struct jc_entry *entry);

/* Statistics.  The per-process counts are this process's; the shared ones
 * are kept in the cache directory across processes.
 *
 * Every counter is one line of JC_COUNTERS: X(NAME, field, label).  It makes
 * the field of struct jc_cache_stats, the counter JC_NAME of the statistics
 * file (store/stats.h, in this order: add new ones at the end), its key in
 * `jitcache stats --json` and its line (label) in `jitcache stats`. */
#define JC_COUNTERS(X)                                                          \
	X(HITS,           hits,           "hits")                               \
	X(MISSES,         misses,         "misses")                             \
	X(STORES,         stores,         "stores")                             \
	X(EVICTIONS,      evictions,      "evictions")                          \
	X(CORRUPT,        corrupt,        "corrupt entries")                    \
	X(STORE_FAILURES, store_failures, "store failures")                     \
	/* payload bytes written by stores (compressed) */                      \
	X(BYTES_STORED,   bytes_stored,   "bytes stored")                       \
	/* compile time of the entries that hit */                              \
	X(SAVED_NS,       saved_ns,       "compile time saved")                 \
	/* of the hits, those served by a read-only layer (layers.h) */         \
	X(LAYER_HITS,     layer_hits,     "from layers")                        \
	/* every remote tier together (Redis, HTTP, S3: remote.h; "remote"     \
	 * always means all of them, "redis" the Redis tier): lookups they      \
	 * answered (also counted in hits) and first lookups they could not    \
	 * answer; failed exchanges;                                            \
	 * values that failed verification; values written; bytes read and     \
	 * written */                                                           \
	X(REMOTE_HITS,    remote_hits,    "remote hits")                        \
	X(REMOTE_MISSES,  remote_misses,  "remote misses")                      \
	X(REMOTE_ERRORS,  remote_errors,  "remote errors")                      \
	X(REMOTE_CORRUPT, remote_corrupt, "remote bad values")                  \
	X(REMOTE_STORES,  remote_stores,  "remote stores")                      \
	X(REMOTE_BYTES_IN,  remote_bytes_in,  "remote bytes in")                \
	X(REMOTE_BYTES_OUT, remote_bytes_out, "remote bytes out")             \
	/* of the hits, failure records: a build that failed, answered with    \
	 * the driver's error and log without compiling */                      \
	X(FAILED_HITS,    failed_hits,    "failed builds replayed")            \
	/* requests passed straight to the driver, by reason (jc_pass) */      \
	X(PASSED_NATIVE,  passed_native,  "passed through: native or binaries") \
	X(PASSED_COMPILE_LINK, passed_compile_link, "passed through: compile/link") \
	X(PASSED_NOT_KEYABLE, passed_not_keyable, "passed through: not keyable") \
	/* entries from Redis, layers or archives refused: not signed by a     \
	 * trusted key (trusted_keys, sign.h) */                               \
	X(UNTRUSTED,      untrusted,      "unsigned or untrusted entries refused") \
	/* the compile wall time of the entries that hit: what the user would  \
	 * have waited (saved_ns is the compiler's CPU time; an entry stored   \
	 * before wall times were kept counts its CPU time here too) */        \
	X(SAVED_WALL_NS,  saved_wall_ns,  "compile wall time saved")          \
	/* of the misses, by cause (they add up to the misses counted since    \
	 * these were: see jc_cache_stats.since): found nowhere; an entry found \
	 * damaged (local, a layer or Redis); refused by the driver; refused   \
	 * as unsigned or untrusted; a tier that could not be asked (Redis     \
	 * unreachable or backing off) */                                       \
	X(MISS_NOT_FOUND, miss_not_found, "misses: found nowhere")            \
	X(MISS_CORRUPT,   miss_corrupt,   "misses: entry damaged")            \
	X(MISS_REJECTED,  miss_rejected,  "misses: refused by the driver")    \
	X(MISS_UNTRUSTED, miss_untrusted, "misses: entry untrusted")          \
	X(MISS_UNREACHABLE, miss_unreachable, "misses: a tier unreachable")   \
	/* of the misses, compiles that failed (the program got the error) */  \
	X(BUILD_FAILURES, build_failures, "builds failed")                     \
	/* remote writes dropped: the queue was full, or still held writes at  \
	 * the end of the process after exit_wait (each is in the local store) */ \
	X(REMOTE_DROPPED, remote_dropped, "remote writes dropped")          \
	/* wall time the program waited for remote lookups (answers, misses,   \
	 * failures and timeouts alike): what the remotes cost, to set against \
	 * the compile wall time their hits saved */                          \
	X(REMOTE_WAIT_NS, remote_wait_ns, "remote lookup time")             \
	/* of the misses, by cause: a file the key covers changed while the    \
	 * compiler read it, so nothing was stored (counted at first as the    \
	 * cause the lookup saw, then moved here) */                            \
	X(MISS_CHANGED, miss_changed, "misses: an input changed while compiling") \
	/* of the misses, by cause (after MISS_UNREACHABLE, added later): a    \
	 * tier whose server refused the login (Redis: password, user, ACL) */  \
	X(MISS_LOGIN_REFUSED, miss_login_refused, "misses: a tier refused the login") \
	/* wall time waited for the compile-once lock of a key (another        \
	 * process's compile here, or another machine's lease): set against     \
	 * what the hit that often follows saves */                             \
	X(LOCK_WAIT_NS,   lock_wait_ns,   "time waited for others' compiles")

/* Room for the hit counters of the tiers a hit can come from; which
 * tier counts in which slot is the statistics file's (store/stats.h's
 * JC_TIERS), not the store's API. */
#define JC_TIER_SLOTS 64 /* room for tiers to come */

struct jc_cache_stats {
#define X(NAME, field, label) uint64_t field;
	JC_COUNTERS(X)
#undef X
	/* hits by tier: tier_hits[slot] (store/stats.h's JC_TIERS) */
	uint64_t tier_hits[JC_TIER_SLOTS];
	/* current contents (shared stats only): entries (compiled results and
	 * failure records), recipes beside them, and the bytes of both */
	uint64_t entries, recipes, size;
	/* shared stats only: when the counters started (wall ns since 1970:
	 * the statistics file was made, or `jitcache stats --zero`), 0 if
	 * unknown (a file made by a jitcache that did not record it) */
	int64_t since_ns;
};
/* The struct of the counters v (JC_NCOUNTERS of them, store/stats.h). */
void jc_stats_fill(const uint64_t *v, struct jc_cache_stats *out);

/* The hit rate, misses by cause, hits by tier, stores and time saved of s
 * as the members of a JSON object, each preceded by ", " (the schema of
 * docs/configuration.md, "stats --json"): "hit_rate", "hits_by_tier",
 * "misses_by_cause", "stores_by_tier", "saved_s". */
void jc_stats_json_parts(FILE *out, const struct jc_cache_stats *s);
/* The same figures in Prometheus' text exposition format, each sample
 * labelled with the cache directory dir (stats --prometheus). */
void jc_stats_prometheus(FILE *out, const struct jc_cache_stats *s, const char *dir,
			 uint64_t max_size);
/* The key under which the recipe (cache.h) of the entry of key is stored:
 * same first byte, so the same subdirectory as the entry; the rest a hash
 * of the entry's key, which no request's key is made of. */
void jc_recipe_key(const struct jc_key *entry, struct jc_key *recipe);

/* ---- the store -------------------------------------------------------------- */

struct jc_store;

/* The store tells its owner of each count it makes itself (stores,
 * evictions, entries verify found bad), so that the owner's counts of this
 * process hold them too; the shared counters get them from the store. */
typedef void jc_store_count_fn(void *ctx, const uint64_t *delta);

struct jc_store_options {
	const char *dir;      /* made (0700; shared: 0777 less the umask) if missing */
	uint64_t max_size;    /* bytes of entry files; 0 means no cap */
	int shared;           /* accept a directory owned or writable by others */
	jc_store_count_fn *counted; /* may be NULL */
	void *counted_ctx;
};

/* Open the directory (absolute from now on: a later chdir() does not move
 * it), check it may be trusted (owned by this user and writable by nobody
 * else, unless shared) and hold it open: every later access goes through
 * that descriptor (/proc/self/fd/N), never through the path again, and a
 * removed or lost directory is made and checked again.  NULL after one
 * line saying why.  A new statistics file starts by counting what is there. */
struct jc_store *jc_store_open(const struct jc_store_options *opts);
/* A read-only store: a layer (tiers/layers.h), a directory laid out as a
 * cache directory that is only ever read, as Mesa's read-only caches and
 * ccache's read-only secondaries.  dir must exist and be absolute; it is
 * trusted if owned by this user or root and writable by nobody else
 * (unless shared), then held open as a cache directory is.  Nothing is
 * ever made, written, counted or removed there: no statistics file, no
 * recency, no locks; only jc_store_open_object(), jc_store_each_object(),
 * jc_store_dir() and jc_store_close() serve it (put and remove refuse).
 * A descriptor lost to the program (or the directory removed) is not
 * opened again: the store is then unusable, said once.  NULL after one
 * line saying why. */
struct jc_store *jc_store_open_read_only(const char *dir, int shared, uint64_t max_size);
/* NULL is fine.  Counts still pending (jc_store_count) are not written:
 * jc_store_flush() first.  The directory's descriptor is closed only if
 * it is still the one held (the program may have reused the number). */
void jc_store_close(struct jc_store *s);

/* The directory as configured (absolute), for messages. */
const char *jc_store_dir(const struct jc_store *s);
/* Can the directory be used now (checked to be still the one opened, made
 * again if it was removed)?  1, or 0 after one line saying why.  Nothing
 * outside the store reaches the directory's files: what the rooms above
 * need of it is one of the functions below. */
int jc_store_usable(struct jc_store *s);
/* DIR/locks, the file of the compile-once locks (cache/lock.c locks one
 * byte of it per key): made if missing, put back if it was removed or is
 * no regular file, made private if others could read it (they could hold
 * its locks).  Opened for writing if this user may (*type F_WRLCK), else
 * for reading (F_RDLCK: a read-only cache).  shown gets its name as
 * configured, for messages.  The descriptor (close-on-exec), or -1 with
 * errno: EBADF when the directory cannot be used (said). */
int jc_store_open_locks(struct jc_store *s, short *type, char shown[PATH_MAX]);
/* An unnamed temporary file in the cache directory, for bytes on their way
 * in (an import's members), readable and writable by this process alone
 * and gone when closed; or -1. */
int jc_store_spool(struct jc_store *s);
/* After a write into the directory failed: 1 if this process cannot write
 * the directory at all (its permissions, a read-only file system), which is
 * then said in one line with that reason, once per process, at the level of
 * the first refused write that would be seen (a read-only cache that only
 * serves hits says nothing at the default level), and the caller says
 * nothing of its own; 0 if it can, and the caller says what failed. */
int jc_store_unwritable(struct jc_store *s, int level /* enum jc_log_level */);

/* The entry of key: 0 and *out filled (out->layer and out->remote 0) on a
 * valid entry, whose recency (and its recipe's) is refreshed; -1 if there
 * is none (or it cannot be read now, said once); -2 if it was damaged, then
 * removed (said once: counting it is the caller's).  An entry of another
 * format version is removed too, and is -1. */
int jc_store_get(struct jc_store *s, const struct jc_key *key, struct jc_entry *out);
/* Is there a valid entry of key?  Its recency is left alone.  1 or 0. */
int jc_store_has(struct jc_store *s, const struct jc_key *key);
/* The object file of key, opened read-only through the held directory
 * (never through a symbolic link, never a FIFO or device: fsutil.h's
 * jc_fs_open_file), for the reader to accept (store/object.h's
 * jc_accept_file): the descriptor, or -1 with errno (ENOENT or ENOTDIR:
 * there is none; EBADF: the store cannot be used now, said). */
int jc_store_open_object(struct jc_store *s, const struct jc_key *key);
/* The size of the entry file of key, 0 if none. */
uint64_t jc_store_file_size(struct jc_store *s, const struct jc_key *key);

/* Store e (store/entry.h) under key, replacing any entry of key: written to
 * a temporary file, made room for (the least recently used entries are
 * evicted, so that the entry files stay under max_size, a few
 * subdirectories scanned at most), renamed into place and added to its
 * subdirectory's usage record.  Writers finish one at a time under a cap,
 * so that several together do not pass it.  counted: count it in stores
 * and bytes_stored (a compiled result; not a copy from elsewhere, nor a
 * recipe).  0; -1 if larger than max_size (nothing said) or not written
 * (said once). */
struct jc_encoded;
int jc_store_put(struct jc_store *s, const struct jc_key *key, const struct jc_encoded *e,
		 int counted);
/* Remove the entry of key: 0 if removed. */
int jc_store_remove(struct jc_store *s, const struct jc_key *key);

/* Call fn with every entry file (recipes included) last used at since_ns
 * or later, subdirectory by subdirectory: its key, its bytes as stored
 * (not checked: the caller does) and mtime; a file that could not be read
 * comes with data NULL and why.  Files larger than max_size allows are not
 * read.  A nonzero return from fn ends the walk and is returned. */
typedef int jc_store_file_fn(void *ctx, const struct jc_key *key, const void *data,
			     uint64_t size, int64_t mtime_s, const char *why);
int jc_store_each_file(struct jc_store *s, int64_t since_ns, jc_store_file_fn *fn, void *ctx);
/* Every object of the directory with its kind, as jc_objects_each()
 * (store/object.h) walks a layer: 0, or what fn ended the walk with (0
 * too when the directory cannot be used: said). */
typedef int jc_object_fn(void *ctx, const struct jc_key *key, int fd, uint32_t flags);
int jc_store_each_object(struct jc_store *s, jc_object_fn *fn, void *ctx);

/* ---- counters, kept in DIR/stats across processes ---- */

/* Add delta (JC_NCOUNTERS counters, store/stats.h) to the shared counters;
 * *after (if not NULL) gets their new values (all 0 if the file could not
 * be used).  Never waits more than a few milliseconds for the counters'
 * lock: what cannot be written then is added by a later count, or by
 * jc_store_flush(), which waits 50 ms at most.  A removed or damaged
 * statistics file is made again, and what is there recounted. */
void jc_store_count(struct jc_store *s, const uint64_t *delta, uint64_t *after);
void jc_store_flush(struct jc_store *s); /* NULL is fine */
/* The shared counters and the directory's contents: 0, or -1. */
int jc_store_shared_stats(struct jc_store *s, struct jc_cache_stats *out);
/* Set every shared counter to 0 and their start to now: 0 or -1. */
int jc_store_zero_stats(struct jc_store *s);

/* The ring of recent misses (store/misses.h): add one (said once if it
 * cannot be), or read them all (free *out): 0 or -1. */
struct jc_miss;
void jc_store_note_miss(struct jc_store *s, struct jc_miss *m);
int jc_store_misses(struct jc_store *s, struct jc_miss **out, size_t *n);

/* ---- the admin's scans (the `jitcache` command, through cache.h) ---- */

int jc_store_clear(struct jc_store *s);                  /* remove every entry */
/* Evict least recently used entries down to max_size bytes (0: no cap, as
 * the setting: nothing is evicted; jc_store_clear empties), or those last
 * used (or stored) before used_before_ns (wall ns since 1970). */
int jc_store_trim(struct jc_store *s, uint64_t max_size);
int jc_store_trim_unused(struct jc_store *s, int64_t used_before_ns);
/* Check every entry, remove bad ones; write a line for each bad one, each
 * entry or subdirectory that could not be checked (a symlink in place of a
 * subdirectory, an unreadable file) and a summary to out (if not NULL).
 * Returns the number of problems: bad entries (removed or, in a read-only
 * cache, left in place) and what could not be checked; 0 means every entry
 * was checked and sound, -1 that the directory cannot be used.  trim, clear
 * and verify visit every subdirectory; they also recount the usage records
 * and remove leftover temporary files. */
long jc_store_verify(struct jc_store *s, FILE *out);

#endif
