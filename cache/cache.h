/*
 * cache.h — jitcache's on-disk store: keys in, bytes out.
 *
 * A cache is a directory of entries, fanned out in 256 subdirectories by the
 * first byte of the key.  An entry holds a magic number, a format version,
 * its full 128-bit key, the payload size, a checksum, the compile time it
 * saves, and the payload.  Entries are written to a temporary file in the
 * same directory and renamed into place, so a reader sees a whole entry or
 * none; every read validates the entry, and a bad one counts as corrupt, is
 * removed and reported as a miss.  The store knows nothing of GPUs: the
 * payload is opaque bytes.
 *
 * Calling sequence:
 *
 *   struct jc_cache *c = jc_cache_open(&opts);    // NULL: caching is off
 *   struct jc_entry e;
 *   if (jc_cache_get(c, &key, &e) == 0) { use(e.data, e.size); jc_entry_free(&e); }
 *   else {
 *       struct jc_cache_lock *l = jc_cache_lock_key(c, &key); // may wait
 *       if (jc_cache_recheck(c, &key, &e) == 0) ... // another process made it
 *       else { compile(); jc_cache_put(c, &key, bin, size, compile_ns); }
 *       jc_cache_unlock(l);                       // NULL is fine
 *   }
 *   jc_cache_close(c);
 *
 * Error convention: nothing here aborts or exits.  Functions that can fail
 * return 0 on success and -1 on failure; failures of the file system are
 * logged (config/log.h) at most once per kind of problem, and the caller
 * simply carries on as on a miss.  The caller owns what it passes in; a
 * successful jc_cache_get() hands over e.data, to be freed by jc_entry_free().
 * All functions are safe to call from several threads and processes at once.
 *
 * Size cap: when stored bytes would exceed max_size, least recently used
 * entries are evicted, down to about 90% of the cap (recency is the entry
 * file's mtime, which jitcache itself bumps on every hit: no reliance on
 * atime).  Size means the entry files' sizes (header + stored payload), not
 * disk blocks.  Eviction is incremental: a store scans a few subdirectories
 * at most, never the whole cache (cache/evict.c).  Stores write in parallel
 * but finish ("make room, rename") one at a time, so that several writers
 * together do not pass the cap.  An entry larger than the cap is not stored.
 *
 * Crash safety: a process killed at any point leaves whole entries or none,
 * no lock held and a sound statistics file; at worst a temporary file (removed
 * once it is an hour old), a usage count off by one entry until its
 * subdirectory is next rescanned, and its last second of hits missing from
 * the shared counts (jc_cache_flush).  Nothing is fsync'd (as in ccache):
 * after a power cut, a damaged entry fails its checksum and is compiled
 * again.
 *
 * Trust: jc_cache_open() refuses a directory owned by another user or
 * writable by group or others, unless opts->shared, because whoever can write
 * entries chooses the GPU code this user's programs run.  The configured path
 * is used as given, symlinks included (a ~/.cache that links elsewhere
 * works), checked on the opened directory and then held open: every later
 * access goes through that descriptor (/proc/self/fd/N/...; without /proc
 * mounted the directory is not used), so a rename of
 * the directory or of a parent cannot swap it (a removed one is made and
 * checked again); below it, no file jitcache opens or creates (entries, temporary,
 * lock and statistics files) is followed if it is a symlink.  The
 * subdirectories "00".."ff" are trusted as their owner made them.
 */
#ifndef JITCACHE_CACHE_H
#define JITCACHE_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JC_KEY_BYTES 16

struct jc_key {
	uint8_t bytes[JC_KEY_BYTES];
};

/* Lower-case hex of the key, NUL-terminated. */
void jc_key_hex(const struct jc_key *key, char out[2 * JC_KEY_BYTES + 1]);

/* The remote tier (README "The remote tier"): a Redis server many machines
 * share.  A lookup that misses the directory asks the remote, verifies what
 * it gets exactly like an entry file and keeps it in the directory; a store
 * writes both; jc_cache_lock_key() also takes a lease in Redis, so that one
 * machine compiles while the others wait for its value.  The remote is
 * never fatal and never slow: see cache/remote.h. */
struct jc_remote_options {
	const char *url;           /* redis://... or redis+unix://...; NULL, "" or
				      "off": no remote tier (config/remote_url.h) */
	const char *password_file; /* if set, its first line is the password */
	int read_only;             /* read values, never write (no stores, no leases) */
	double connect_timeout;    /* seconds */
	double timeout;            /* seconds, for each whole answer */
	double backoff;            /* seconds the remote is skipped after a failure */
	double lease;              /* seconds a compile lease lives, renewed meanwhile */
	double lease_wait;         /* seconds another's lease is waited for, unless
				      trusted keys verify it (then: the deadline) */
	int compress;              /* values zstd-compressed on the wire */
};

struct jc_cache_options {
	const char *dir;       /* created (0700) if missing */
	uint64_t max_size;     /* bytes; 0 means no cap */
	int shared;            /* accept a directory owned/writable by others */
	double lock_timeout;   /* seconds jc_cache_lock_key() waits at most */
	int compress;          /* store payloads zstd-compressed (builds with
				  JC_HAVE_ZSTD; otherwise said once, ignored) */
	const char *layers;    /* read-only cache directories "DIR[:DIR...]"
				  searched after dir (cache/layers.h); may be NULL */
	struct jc_remote_options remote; /* all zero: no remote tier */
	const char *signing_key;  /* private key file: sign what is stored (sign.h) */
	const char *trusted_keys; /* public key files "FILE[:FILE...]": entries from
				     Redis, layers and archives must be signed by
				     one of them; NULL or "": no such rule */
	int trusted_keys_invalid; /* the setting was given but refused: accept
				     nothing from Redis, layers and archives */
	int helper;               /* a helper storing for another process
				     (shim/storer.h): lookups count neither hit
				     nor miss, that process counted its request;
				     it takes no compile-once lock or lease */
};

struct jc_cache;

/* Open (creating if needed) the cache directory.  Returns NULL, after one
 * log line saying why, when the directory cannot be used, unless usable
 * layers are given: then a cache that only serves hits from the layers
 * (a container with a read-only file system), with a second line saying
 * so; its put, lock, drop, shared statistics and management calls do
 * nothing and fail. */
struct jc_cache *jc_cache_open(const struct jc_cache_options *opts);
void jc_cache_close(struct jc_cache *cache);
const char *jc_cache_dir(const struct jc_cache *cache);

struct jc_entry {
	void *data;
	size_t size;
	uint64_t compile_ns; /* what compiling this cost when it was stored */
	int layer;           /* 0: from the cache directory; n: from the n-th
				read-only layer (cache/layers.h) */
	void *map;           /* non-NULL: data lies in this read-only mapping of
				the entry file (map_size bytes), not on the heap */
	size_t map_size;
};

/* 0 and *out filled on a valid hit; -1 on a miss (including a corrupt entry,
 * which is removed).  A hit refreshes the entry's recency.  An entry missing
 * from the cache directory is looked up in the read-only layers next (a
 * hit there is served from the layer, which is never changed). */
int jc_cache_get(struct jc_cache *cache, const struct jc_key *key, struct jc_entry *out);
/* The same, for the second look after jc_cache_lock_key(), following a
 * jc_cache_get() miss: a miss is not counted again, and a hit turns that
 * first miss into a hit, so that each request counts one hit or one miss. */
int jc_cache_recheck(struct jc_cache *cache, const struct jc_key *key, struct jc_entry *out);
void jc_entry_free(struct jc_entry *entry);

/* Store atomically; an existing entry with the same key is replaced.  May
 * evict older entries to stay under the cap.  0 on success. */
int jc_cache_put(struct jc_cache *cache, const struct jc_key *key,
		 const void *data, size_t size, uint64_t compile_ns);

/* The driver rejected `entry`, just returned by a get for `key`: remove it
 * (unless it came from a layer, which is never changed), and count that
 * lookup as a miss and a corrupt entry instead of a hit. */
void jc_cache_reject(struct jc_cache *cache, const struct jc_key *key,
		     const struct jc_entry *entry);

/* Remove an entry (counts as corrupt in the stats).  For an entry just
 * returned by a get that the driver then refused, use jc_cache_reject(). */
void jc_cache_drop(struct jc_cache *cache, const struct jc_key *key);

/* Compile-once coordination between threads and processes.  Takes an
 * exclusive lock on the key (one byte of the cache's `locks` file, lock.c;
 * released by the kernel if the holder dies), waiting at most lock_timeout
 * seconds.  Returns
 * NULL if the wait timed out or locking is impossible: the caller then
 * compiles on its own.  With a remote tier, the holder of the local lock
 * then waits, within the same lock_timeout, until no other machine holds
 * the key's lease in Redis or the value is there, and takes the lease
 * itself (a read-only remote takes none); the lease is renewed until
 * jc_cache_unlock() and expires by itself if its holder dies.  Either way
 * the caller's jc_cache_recheck() then finds what another machine stored.
 * A helper's cache (options.helper) takes neither and returns NULL: a
 * process that runs on idle CPU time must never make others wait. */
struct jc_cache_lock;
struct jc_cache_lock *jc_cache_lock_key(struct jc_cache *cache, const struct jc_key *key);
void jc_cache_unlock(struct jc_cache_lock *lock);

/* Recipes (README "First run warm"): what a request that missed was made
 * of, so that `jitcache warm` can compile it again for another driver or
 * GPU.  A recipe is a fact about one entry: it is an entry file itself,
 * beside that entry (same subdirectory), under a key derived from the
 * entry's (jc_recipe_key), marked JC_ENTRY_RECIPE and always compressed,
 * and so written, checked, evicted, exported and imported like any entry.
 * A hit on the entry refreshes its recipe's recency too, so that a recipe
 * lives as long as its entry is used.  Storing a recipe counts in no
 * statistic; it is not sent to the remote tier.  The payload is opaque here
 * (key/recipe.h writes and reads it). */
void jc_recipe_key(const struct jc_key *entry, struct jc_key *recipe);
/* 0 if stored; -1 (nothing said) if not, e.g. larger than the cap. */
int jc_cache_put_recipe(struct jc_cache *cache, const struct jc_key *entry,
			const void *data, size_t size);
/* Call fn with every valid recipe of the cache directory, then of each
 * read-only layer; a nonzero return from fn stops the walk and is
 * returned.  Bad recipe files are skipped (verify removes them). */
typedef int (*jc_recipe_fn)(void *ctx, const void *data, size_t size);
int jc_cache_each_recipe(struct jc_cache *cache, jc_recipe_fn fn, void *ctx);

/* Statistics.  The per-process counts are this process's; the shared ones
 * are kept in the cache directory across processes.
 *
 * Every counter is one line of JC_COUNTERS: X(NAME, field, label).  It makes
 * the field of struct jc_cache_stats, the counter JC_NAME of the statistics
 * file (cache/stats.h, in this order: add new ones at the end), its key in
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
	/* the remote tier (remote.h): lookups it answered (also counted in     \
	 * hits) and first lookups it could not answer; failed exchanges;      \
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
	/* misses whose store was left to a helper process (shim/storer.h),   \
	 * which counts the store itself */                                     \
	X(STORES_LEFT,    stores_left,    "stores left to a helper")

struct jc_cache_stats {
#define X(NAME, field, label) uint64_t field;
	JC_COUNTERS(X)
#undef X
	/* current contents (shared stats only): entries (compiled results and
	 * failure records), recipes beside them, and the bytes of both */
	uint64_t entries, recipes, size;
};
void jc_cache_process_stats(const struct jc_cache *cache, struct jc_cache_stats *out);
/* Count a hit (already counted as one) that answered with a failure record. */
void jc_cache_count_failure_hit(struct jc_cache *cache);
/* Count a request the caller passed to the compiler without asking the
 * cache: a load of code already compiled (native input, a program created
 * from binaries), a separate compile or link step, or an input it cannot
 * key.  These wait with the hits (above) on their way to the shared file. */
enum jc_pass { JC_PASS_NATIVE, JC_PASS_COMPILE_LINK, JC_PASS_NOT_KEYABLE };
void jc_cache_count_pass(struct jc_cache *cache, enum jc_pass why);
/* Count a miss whose result a helper process stores (shim/storer.h). */
void jc_cache_count_store_left(struct jc_cache *cache);
int jc_cache_shared_stats(struct jc_cache *cache, struct jc_cache_stats *out);

/* Hits reach the shared counts in batches: at the latest with the first
 * other event or the first hit a second after them, at jc_cache_close() or
 * jc_cache_shared_stats(), or here.  Call it before the process ends (the
 * shim does, at exit); a process killed by a signal loses the hits of its
 * last second from the shared counts.  NULL is fine. */
void jc_cache_flush(struct jc_cache *cache);

/* Management, for the `jitcache` command. */
int jc_cache_clear(struct jc_cache *cache);                  /* remove every entry */
int jc_cache_trim(struct jc_cache *cache, uint64_t max_size); /* evict LRU to size */
/* Check every entry, remove bad ones; write a line for each bad one, each
 * entry or subdirectory that could not be checked (a symlink in place of a
 * subdirectory, an unreadable file) and a summary to out (if not NULL).
 * Returns the number of problems: bad entries (removed or, in a read-only
 * cache, left in place) and what could not be checked; 0 means every entry
 * was checked and sound, -1 that there is no cache directory to check.
 * trim, clear and verify visit every subdirectory; they also recount the
 * usage records and remove leftover temporary files. */
long jc_cache_verify(struct jc_cache *cache, FILE *out);

#endif
