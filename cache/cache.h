// SPDX-License-Identifier: MIT
/*
 * cache.h — the cache as the shim sees it: keys in, bytes out, across the
 * tiers (the local store, read-only layers, Redis), once per key.
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
 * at most, never the whole cache (store/evict.c).  Stores write in parallel
 * but finish ("make room, rename") one at a time, so that several writers
 * together do not pass the cap.  An entry larger than the cap is not stored.
 *
 * Crash safety: a process killed at any point leaves whole entries or none,
 * no lock held and a sound statistics file; at worst a temporary file (removed
 * once it is an hour old), a usage count off by one entry until its
 * subdirectory is next rescanned, and at most the one count it was adding
 * missing from the shared counts (store/count.c).  Nothing is fsync'd (as in ccache):
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

#include "store/store.h"
#include "tiers/remote.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One cache: the local store (store/store.h) with the read-only layers,
 * the remotes and the compile-once locks around it (cache/internal.h). */
struct jc_cache;

struct jc_cache_options {
	const char *dir;       /* created (0700) if missing */
	uint64_t max_size;     /* bytes; 0 means no cap */
	int shared;            /* accept a directory owned/writable by others */
	double lock_timeout;   /* seconds jc_cache_lock_key() waits at most */
	int compress;          /* store payloads zstd-compressed (builds with
				  JC_HAVE_ZSTD; otherwise said once, ignored) */
	const char *layers;    /* read-only cache directories "DIR[:DIR...]"
				  searched after dir (tiers/layers.h); may be NULL */
	struct jc_remote_options remote; /* all zero: no remote tier */
	const char *signing_key;  /* private key file: sign what is stored (sign.h) */
	const char *trusted_keys; /* public key files "FILE[:FILE...]": entries from
				     Redis, layers and archives must be signed by
				     one of them; NULL or "": no such rule */
	int trusted_keys_invalid; /* the setting was given but refused: accept
				     nothing from Redis, layers and archives */
};

struct jc_config;
enum { JC_OPTIONS_LOCAL = 0, JC_OPTIONS_LAYERS = 1, JC_OPTIONS_REMOTE = 2 };

/* The options the settings cfg (config/config.h) give: the cache directory,
 * its size cap, sharing, lock wait, compression, signing and trusted keys;
 * with JC_OPTIONS_LAYERS its read-only layers too, with JC_OPTIONS_REMOTE
 * its remote tiers.  The strings point into cfg. */
struct jc_cache_options jc_cache_options_from_config(const struct jc_config *cfg, int tiers);

/* Open (creating if needed) the cache directory.  Returns NULL, after one
 * log line saying why, when the directory cannot be used, unless usable
 * layers are given: then a cache that only serves hits from the layers
 * (a container with a read-only file system), with a second line saying
 * so; its put, lock, drop, shared statistics and management calls do
 * nothing and fail. */
struct jc_cache *jc_cache_open(const struct jc_cache_options *opts);
void jc_cache_close(struct jc_cache *cache);
/* Wait up to seconds for this process's remote writes still queued
 * (remote.h: writes to the remote tiers are made by a thread, off the
 * program's path).  0 if none is left. */
int jc_cache_flush_remote(struct jc_cache *cache, double seconds);
const char *jc_cache_dir(const struct jc_cache *cache);


/* 0 and *out filled on a valid hit; -1 on a miss (including a corrupt entry,
 * which is removed).  A hit refreshes the entry's recency.  An entry missing
 * from the cache directory is looked up in the read-only layers next (a
 * hit there is served from the layer, which is never changed). */
int jc_cache_get(struct jc_cache *cache, const struct jc_key *key, struct jc_entry *out);
/* The second look after jc_cache_lock_key(), following a jc_cache_get()
 * miss: a miss is not counted again, and a hit turns that first miss into
 * a hit, so that each request counts one hit or one miss. */
int jc_cache_recheck(struct jc_cache *cache, const struct jc_key *key, struct jc_entry *out);

/* One compile request: what shim/compile_once.c carries from the first
 * lookup of a key through the lock, the recheck, the store and the unlock,
 * on whatever thread finishes it (an OpenCL build with pfn_notify may end
 * on the driver's thread: the request is handed over with it; no thread
 * keeps any of it).  Its members are the cache's to fill:
 *
 *   struct jc_request q;
 *   jc_request_begin(&q, cache, &key);
 *   if (jc_request_get(&q, &e) != 0) {            // as jc_cache_get()
 *       jc_request_lock(&q);                      // as jc_cache_lock_key()
 *       if (jc_request_recheck(&q, &e) != 0)      // as jc_cache_recheck()
 *           { compile(); jc_request_put(&q, bin, size, compile_ns); }
 *   }
 *   jc_request_end(&q);                           // unlocked, lease let go
 *
 * With a remote tier, the first lookup in the Redis that holds compile
 * leases also takes the key's lease, or sees who holds it, in the same
 * command, and the lock's wait starts from there; the store of the value
 * releases that lease in the same command (remote.h). */
struct jc_request {
	struct jc_cache *cache;
	struct jc_key key;
	int miss;                         /* the miss counter (JC_MISS_...) its first
					     lookup counted; 0: none */
	struct jc_remote_request *remote; /* what the remotes answered, and the
					     lease (remote.h); NULL: none */
	struct jc_cache_lock *lock;       /* jc_request_lock()'s; NULL: none */
	uint64_t look_ns, lock_ns;        /* its first lookup's time, its lock's wait */
};
void jc_request_begin(struct jc_request *q, struct jc_cache *cache, const struct jc_key *key);
int jc_request_get(struct jc_request *q, struct jc_entry *out);
/* A first lookup that takes no lease, for a caller that may not lock and
 * compile (tests/helpers/jc_lookup.c); the rest of the request is the same. */
int jc_request_look(struct jc_request *q, struct jc_entry *out);
void jc_request_lock(struct jc_request *q);
int jc_request_recheck(struct jc_request *q, struct jc_entry *out);
int jc_request_put(struct jc_request *q, const void *data, size_t size, uint64_t compile_ns);
/* jc_cache_reject() of the entry a look of q returned; q's miss is then
 * JC_MISS_REJECTED. */
void jc_request_reject(struct jc_request *q, const struct jc_entry *entry);
/* The cause its lookups saw (enum jc_miss_cause). */
int jc_request_cause(const struct jc_request *q);
void jc_request_end(struct jc_request *q);

/* Store atomically; an existing entry with the same key is replaced.  May
 * evict older entries to stay under the cap.  0 on success.  compile_ns is
 * the compile word of store/entry.h: jc_compile_word(cpu_ns, wall_ns) (a
 * plain time is read back as both). */
int jc_cache_put(struct jc_cache *cache, const struct jc_key *key,
		 const void *data, size_t size, uint64_t compile_ns);

/* Refreshing an entry: a second store of one build, when the driver has
 * since compiled more of what its binary carries (PoCL's work-group code,
 * shim/cl/cl_pocl.h).  jc_cache_peek() reads the entry from the cache
 * directory alone (not a layer, not a remote); jc_cache_replace() stores
 * new bytes under the key as jc_cache_put() does, atomically, but not to
 * the remote tiers (each machine refreshes its own).  Neither counts in
 * any statistic.  Both 0, or -1. */
int jc_cache_peek(struct jc_cache *cache, const struct jc_key *key, struct jc_entry *out);
int jc_cache_replace(struct jc_cache *cache, const struct jc_key *key, const void *data,
		     size_t size, uint64_t compile_ns);

/* The driver rejected `entry`, just returned by a get for `key`: remove it
 * (unless it came from a layer, which is never changed), and count that
 * lookup as a miss and a corrupt entry instead of a hit. */
void jc_cache_reject(struct jc_cache *cache, const struct jc_key *key,
		     const struct jc_entry *entry);

/* A hit on `entry` whose compile the caller carried out all the same (an
 * OpenCL compile that reads files, cl_link.c): it stays a hit, but the
 * compile time the entry would have saved is taken back. */
void jc_cache_hit_compiled(struct jc_cache *cache, const struct jc_entry *entry);
/* Compile time a hit saved after it was counted (PoCL's work-group code
 * that an entry's binary carried and PoCL found, shim/cl/cl_pocl.h): added
 * to the time saved, the hits as they are. */
void jc_cache_credit(struct jc_cache *cache, uint64_t cpu_ns, uint64_t wall_ns);

/* Record a miss that is final (the recheck after the lock missed too),
 * whose lookups saw cause (jc_request_cause), and the outcome of its
 * compile in the cache directory's ring of recent misses
 * (store/misses.h), for `jitcache explain`, with the trace of its key
 * (key/fingerprint.h; NULL: none). */
void jc_cache_note_miss(struct jc_cache *cache, const struct jc_key *key, int cause,
			const void *trace, size_t trace_len, int failed);
/* A miss whose compile read a file the key covers after it had changed
 * (the key computed again after the compile differs): nothing was stored.
 * The miss, counted under `cause` (what the lookup saw, enum
 * jc_miss_cause), is counted as JC_MISS_CHANGED instead, and recorded for
 * `jitcache explain` with that cause. */
void jc_cache_note_changed(struct jc_cache *cache, const struct jc_key *key, int cause,
			   const void *trace, size_t trace_len);
/* Every recorded miss, oldest first (free *out); 0 or -1 (none recorded). */
struct jc_miss;
int jc_cache_misses(struct jc_cache *cache, struct jc_miss **out, size_t *n);

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
 * the caller's jc_cache_recheck() then finds what another machine stored. */
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
 * (key/recipe.h writes and reads it).  jc_recipe_key() (store.h) gives
 * the recipe's key. */
/* 0 if stored; -1 (nothing said) if not, e.g. larger than the cap. */
int jc_cache_put_recipe(struct jc_cache *cache, const struct jc_key *entry,
			const void *data, size_t size);
/* Call fn with every valid recipe of the cache directory (layer 0), then
 * of each read-only layer (layer 1, 2, ...); a nonzero return from fn stops
 * the walk and is returned.  Bad recipe files are skipped (verify removes
 * them).  A layer's recipe is trusted as its entries are: with trusted
 * keys, only one signed by one of them is given to fn; the others are
 * counted in *refused (may be NULL) and said in one line. */
typedef int (*jc_recipe_fn)(void *ctx, const void *data, size_t size, int layer);
int jc_cache_each_recipe(struct jc_cache *cache, jc_recipe_fn fn, void *ctx,
			 unsigned *refused);

/* Statistics.  The per-process counts are this process's (stats.c); the
 * shared ones are kept in the cache directory across processes, by the
 * store (store/store.h, jc_store_count). */
void jc_cache_process_stats(const struct jc_cache *cache, struct jc_cache_stats *out);
/* Count a hit (already counted as one) that answered with a failure record. */
void jc_cache_count_failure_hit(struct jc_cache *cache);
/* Count a request the caller passed to the compiler without asking the
 * cache: a load of code already compiled (native input, a program created
 * from binaries), a separate compile or link step, or an input it cannot
 * key.  These wait with the hits (above) on their way to the shared file. */
enum jc_pass { JC_PASS_NATIVE, JC_PASS_COMPILE_LINK, JC_PASS_NOT_KEYABLE };
void jc_cache_count_pass(struct jc_cache *cache, enum jc_pass why);
int jc_cache_shared_stats(struct jc_cache *cache, struct jc_cache_stats *out);

/* Every count reaches the shared file as it happens (store/count.c), so a
 * process killed by a signal loses none of them, unless the file's lock
 * was busy: such counts wait for the next one, and for this, which waits
 * 50 ms at most for the lock (the library calls it at exit).  NULL is fine. */
void jc_cache_flush(struct jc_cache *cache);
/* Set every shared counter to 0 and the start (since_ns) to now
 * (`jitcache stats --zero`).  0 or -1. */
int jc_cache_zero_stats(struct jc_cache *cache);
/* Count, in this process and the shared file, one build that failed. */
void jc_cache_count_build_failure(struct jc_cache *cache);

/* Append one JSON line (stats_log) with this process's counts to file:
 * its time, program, pid, cache directory and jc_stats_json_parts().  One
 * write(2) with O_APPEND: lines of processes ending together do not mix.
 * 0, or -1 (said once at info). */
int jc_cache_stats_log(const struct jc_cache *cache, const char *file);

/* Management, for the `jitcache` command: the store's (store/store.h:
 * jc_store_clear, jc_store_trim, ...), -1 without a cache directory. */
int jc_cache_clear(struct jc_cache *cache);                  /* remove every entry */
int jc_cache_trim(struct jc_cache *cache, uint64_t max_size);
int jc_cache_trim_unused(struct jc_cache *cache, int64_t used_before_ns);
long jc_cache_verify(struct jc_cache *cache, FILE *out);

#include "cache/transfer.h"

#endif
